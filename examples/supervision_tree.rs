//! A supervision tree surviving injected crashes.
//!
//! ```text
//! root (one_for_one)
//! ├── counter        a registered server ("counter")
//! ├── cache          a registered server ("cache")
//! └── db (rest_for_one supervisor, "db_sup")
//!     ├── db_conn    a "database connection" ("db_conn")
//!     └── query      a worker that uses the connection it found at start ("query")
//! ```
//!
//! A client keeps calling the servers by name while processes are killed and handlers
//! panic. A call that fails (the server died under it, or the name is not registered
//! again yet) is retried; the supervisors restart what died, and the servers' `init`s
//! print each (re)start.

use std::collections::HashMap;
use std::time::Duration;

use mote::server::{CallError, Context, Next, ReplyTo, Server, ServerOptions, ServerRef};
use mote::supervisor::{ChildSpec, Strategy, Supervisor, SupervisorRef};
use mote::{ExitReason, Process, Term};

const T: Duration = Duration::from_millis(500);

async fn crash() -> Next {
    panic!("injected panic")
}

/// A counter: its count starts from zero again after a restart (state is not kept).
#[derive(Default)]
struct Counter(u64);

enum CounterCall {
    Incr,
    Crash,
}

impl Server for Counter {
    type Call = CounterCall;
    type Reply = u64;
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        println!("  [counter] started as {}", ctx.id());
        Ok(())
    }

    async fn handle_call(
        &mut self,
        c: CounterCall,
        from: ReplyTo<u64>,
        _: &mut Context<Self>,
    ) -> Next {
        match c {
            CounterCall::Incr => {
                self.0 += 1;
                from.reply(self.0);
                Next::Continue
            }
            CounterCall::Crash => crash().await,
        }
    }
}

#[derive(Default)]
struct Cache(HashMap<u32, String>);

enum CacheCall {
    Put(u32, String),
    Len,
}

impl Server for Cache {
    type Call = CacheCall;
    type Reply = usize;
    /// A cast that makes the handler panic.
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        println!("  [cache] started as {}", ctx.id());
        Ok(())
    }

    async fn handle_call(
        &mut self,
        c: CacheCall,
        from: ReplyTo<usize>,
        _: &mut Context<Self>,
    ) -> Next {
        match c {
            CacheCall::Put(k, v) => {
                self.0.insert(k, v);
                from.reply(self.0.len());
            }
            CacheCall::Len => from.reply(self.0.len()),
        }
        Next::Continue
    }

    async fn handle_cast(&mut self, (): (), _: &mut Context<Self>) -> Next {
        crash().await
    }
}

/// The "database connection".
struct DbConn {
    session: u32,
}

impl Server for DbConn {
    type Call = String;
    type Reply = String;
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        println!("  [db_conn] connected as {}", ctx.id());
        Ok(())
    }

    async fn handle_call(
        &mut self,
        sql: String,
        from: ReplyTo<String>,
        _: &mut Context<Self>,
    ) -> Next {
        self.session += 1;
        from.reply(format!(
            "rows for `{sql}` (query #{} on this connection)",
            self.session
        ));
        Next::Continue
    }
}

/// Runs queries on the connection it found when it started: if the connection is
/// replaced, this worker must be restarted too, which is what rest_for_one does.
struct Query {
    conn: Option<ServerRef<DbConn>>,
}

impl Server for Query {
    type Call = String;
    type Reply = String;
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        // Exit reasons are Erlang terms: `{no_db_conn, <<"why">>}`.
        let conn = ServerRef::<DbConn>::named("db_conn")
            .map_err(|e| Term::from((Term::atom("no_db_conn"), e.to_string())))?;
        println!("  [query] started as {} on db_conn {}", ctx.id(), conn.id());
        self.conn = Some(conn);
        Ok(())
    }

    async fn handle_call(
        &mut self,
        sql: String,
        from: ReplyTo<String>,
        _: &mut Context<Self>,
    ) -> Next {
        let Some(conn) = self.conn else {
            return Next::Stop(ExitReason::custom("no_connection"));
        };
        match conn.call(sql, T).await {
            Ok(rows) => {
                from.reply(rows);
                Next::Continue
            }
            // The connection this worker relied on is gone: crash, and be restarted.
            Err(e) => Next::Stop(ExitReason::from(Term::from((
                Term::atom("db_conn_failed"),
                e.to_string(),
            )))),
        }
    }
}

/// A child spec for a server registered under its id.
fn named<S: Server>(id: &'static str, make: fn() -> S) -> ChildSpec {
    ChildSpec::new(id, move || async move {
        let server = ServerOptions::new().name(id).linked().start(make()).await?;
        Ok(server.id())
    })
}

/// Calls the server registered as `name`, retrying (a few times) while it is being
/// restarted.
async fn call<S: Server>(name: &str, request: impl Fn() -> S::Call) -> Result<S::Reply, String> {
    let mut last = String::new();
    for _attempt in 0..50 {
        match ServerRef::<S>::named(name) {
            Ok(server) => match server.call(request(), T).await {
                Ok(reply) => return Ok(reply),
                Err(e) => {
                    println!("  client: call to {name} failed ({e}); retrying");
                    last = e.to_string();
                }
            },
            Err(e) => last = format!("{name} is not registered ({e})"),
        }
        mote::sleep(Duration::from_millis(5)).await;
    }
    Err(format!("{name} kept failing: {last}"))
}

fn kill(name: &str) {
    match mote::whereis(name) {
        Some(pid) => {
            println!("!! killing {name} ({pid})");
            mote::exit(pid, ExitReason::Kill);
        }
        None => println!("!! {name} is not running right now"),
    }
}

async fn show(title: &str, sup: &SupervisorRef) {
    match sup.which_children().await {
        Ok(children) => {
            let items: Vec<String> = children
                .iter()
                .map(|c| match c.pid {
                    Some(pid) => format!("{}={pid}", c.id),
                    None => format!("{}=not running", c.id),
                })
                .collect();
            println!("{title}: {}", items.join(", "));
        }
        Err(e) => println!("{title}: cannot ask ({e})"),
    }
}

async fn client(rounds: u32) -> Result<(), String> {
    for round in 1..=rounds {
        match round {
            3 => kill("counter"),
            5 => {
                println!("!! making the cache panic");
                ServerRef::<Cache>::named("cache")
                    .map_err(|e| format!("cache: {e}"))?
                    .cast(());
            }
            7 => kill("db_conn"),
            9 => {
                println!("!! making the counter panic in a call");
                // Called once, not retried: the call fails, the server died handling it.
                let counter =
                    ServerRef::<Counter>::named("counter").map_err(|e| format!("counter: {e}"))?;
                let r: Result<u64, CallError> = counter.call(CounterCall::Crash, T).await;
                println!("  client: the crashing call returned {r:?}");
            }
            11 => kill("query"),
            _ => {}
        }
        let n = call::<Counter>("counter", || CounterCall::Incr).await?;
        let len = call::<Cache>("cache", || CacheCall::Put(round, format!("v{round}"))).await?;
        let rows = call::<Query>("query", || format!("SELECT {round}")).await?;
        println!("round {round:2}: counter={n} cache_len={len} {rows}");
    }
    Ok(())
}

fn main() {
    // Panics are expected here: print one line instead of the default report.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .unwrap_or("a panic");
        println!("  (a handler panicked: {what})");
    }));
    let outcome = mote::run(|_p: Process<()>| async move {
        let db = Supervisor::new(Strategy::RestForOne)
            .name("db_sup")
            .child(named("db_conn", || DbConn { session: 0 }))
            .child(named("query", || Query { conn: None }));
        let root = Supervisor::new(Strategy::OneForOne)
            .intensity(10, Duration::from_secs(5))
            .child(named("counter", Counter::default))
            .child(named("cache", Cache::default))
            .child(db.into_child_spec("db"))
            .start_link()
            .await
            .map_err(|e| format!("the tree did not start: {e}"))?;
        show("root", &root).await;

        let result = client(12).await;

        println!("--- final state ---");
        show("root", &root).await;
        match SupervisorRef::named("db_sup") {
            Ok(db) => show("db_sup", &db).await,
            Err(e) => println!("db_sup: {e}"),
        }
        match call::<Cache>("cache", || CacheCall::Len).await {
            Ok(n) => println!("cache holds {n} entries (it lost those put before its crash)"),
            Err(e) => println!("cache: {e}"),
        }
        match root.stop(ExitReason::Normal, Duration::from_secs(5)).await {
            Ok(()) => println!("tree stopped"),
            Err(e) => println!("the tree did not stop cleanly: {e}"),
        }
        // The stopped servers released their names.
        let after = ServerRef::<Counter>::named("counter").map(|_| ());
        println!("counter after the stop: {after:?}");
        result
    });
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            eprintln!("client gave up: {e}");
            std::process::exit(1);
        }
        Err(reason) => {
            eprintln!("the example's main process ended with {reason}");
            std::process::exit(1);
        }
    }
}
