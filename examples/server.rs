//! A gen_server: calls, casts, info messages and timers, a deferred reply, a call that times
//! out, a call to a dead server, and stop.

use std::collections::HashMap;
use std::time::Duration;

use mote::server::{self, CallError, Context, Next, ReplyTo, Server};
use mote::{ExitReason, Process};

/// A key-value store whose `Await` calls are answered only once their key is set.
#[derive(Default)]
struct Store {
    values: HashMap<String, u64>,
    /// Deferred replies: callers waiting for a key.
    waiting: HashMap<String, Vec<ReplyTo<Reply>>>,
    ticks: u32,
}

enum Call {
    Get(String),
    /// Reply when the key has a value (a deferred reply).
    Await(String),
    /// Take this long to answer.
    Slow(Duration),
}

enum Reply {
    Value(Option<u64>),
    Done,
}

/// How main prints a call's outcome.
fn show(r: &Result<Reply, CallError>) -> String {
    match r {
        Ok(Reply::Value(Some(v))) => format!("value {v}"),
        Ok(Reply::Value(None)) => "no value".into(),
        Ok(Reply::Done) => "done".into(),
        Err(e) => format!("error: {e}"),
    }
}

enum Cast {
    Put(String, u64),
}

enum Info {
    Tick,
    Hello(&'static str),
}

impl Server for Store {
    type Call = Call;
    type Reply = Reply;
    type Cast = Cast;
    type Info = Info;

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        println!("[store] init in {}", ctx.id());
        ctx.send_after(Info::Tick, Duration::from_millis(10));
        Ok(())
    }

    async fn handle_call(
        &mut self,
        call: Call,
        from: ReplyTo<Reply>,
        _: &mut Context<Self>,
    ) -> Next {
        match call {
            Call::Get(key) => from.reply(Reply::Value(self.values.get(&key).copied())),
            Call::Await(key) => match self.values.get(&key) {
                Some(&v) => from.reply(Reply::Value(Some(v))),
                None => {
                    println!("[store] {key} is not set yet: the reply waits");
                    self.waiting.entry(key).or_default().push(from);
                }
            },
            Call::Slow(d) => {
                mote::sleep(d).await;
                // The caller may have given up; then this reply is dropped.
                println!(
                    "[store] slow call done; caller still waiting: {}",
                    from.is_waiting()
                );
                from.reply(Reply::Done);
            }
        }
        Next::Continue
    }

    async fn handle_cast(&mut self, cast: Cast, _: &mut Context<Self>) -> Next {
        let Cast::Put(key, value) = cast;
        println!("[store] put {key} = {value}");
        for waiter in self.waiting.remove(&key).unwrap_or_default() {
            waiter.reply(Reply::Value(Some(value)));
        }
        self.values.insert(key, value);
        Next::Continue
    }

    async fn handle_info(&mut self, info: Info, ctx: &mut Context<Self>) -> Next {
        match info {
            Info::Tick => {
                self.ticks += 1;
                println!("[store] tick {}", self.ticks);
                if self.ticks < 3 {
                    ctx.send_after(Info::Tick, Duration::from_millis(10));
                }
            }
            Info::Hello(from) => println!("[store] info message: hello from {from}"),
        }
        Next::Continue
    }

    async fn terminate(&mut self, reason: &ExitReason, _: &mut Context<Self>) {
        println!(
            "[store] terminate ({reason}) with {} keys, {} callers still waiting",
            self.values.len(),
            self.waiting.values().map(Vec::len).sum::<usize>()
        );
    }
}

fn main() {
    let outcome = mote::run(|mut p: Process<String>| async move {
        let t = Duration::from_secs(1);
        let store = server::start(Store::default())
            .await
            .expect("the store starts");

        // Cast, then call: a server handles its messages in order.
        store.cast(Cast::Put("a".into(), 1));
        println!(
            "get a -> {}",
            show(&store.call(Call::Get("a".into()), t).await)
        );
        println!(
            "get b -> {}",
            show(&store.call(Call::Get("b".into()), t).await)
        );
        store.info(Info::Hello("main"));

        // A deferred reply: another process waits for `answer` until it is put.
        let me = p.pid();
        mote::spawn(move |_w: Process<()>| async move {
            let r = store.call(Call::Await("answer".into()), t).await;
            me.send(format!("the waiter got {}", show(&r)));
        });
        // Let the waiter's call arrive first (not needed for correctness: an earlier put
        // is answered at once).
        mote::sleep(Duration::from_millis(20)).await;
        store.cast(Cast::Put("answer".into(), 42));
        match p.recv_timeout(t).await {
            Some(line) => println!("{line}"),
            None => println!("the waiter did not report back"),
        }

        // A call that times out; the late reply is dropped, never delivered anywhere.
        let r = store
            .call(
                Call::Slow(Duration::from_millis(100)),
                Duration::from_millis(20),
            )
            .await;
        println!("slow call with a 20 ms timeout -> {}", show(&r));
        assert_eq!(r.err(), Some(CallError::Timeout));
        // The server is still fine.
        let r = store.call(Call::Get("answer".into()), t).await;
        println!("get answer -> {}", show(&r));

        // Stop: terminate runs, then the server is gone.
        match store.stop(ExitReason::Normal, t).await {
            Ok(()) => println!("stopped"),
            Err(e) => println!("stop failed: {e}"),
        }
        let r = store.call(Call::Get("a".into()), t).await;
        println!("call to the stopped server -> {}", show(&r));
        assert_eq!(r.err(), Some(CallError::NoProc));
        println!(
            "mailbox of main after all that: {} messages",
            p.mailbox_len()
        );
    });
    if let Err(reason) = outcome {
        eprintln!("the example's main process ended with {reason}");
        std::process::exit(1);
    }
}
