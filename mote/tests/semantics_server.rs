//! Conformance: `gen_server:call` (cases P27-P29 of `mote/tests/conformance/README.md`)
//! against [`mote::server`], and the server protocol's other promises (deferred replies,
//! `NoReply`, stop, init failure, names, parents).

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{reason, run_case, wait_until, Driver, Msg};
use mote::server::{self, CallError, Context, Next, ReplyTo, Server, ServerRef};
use mote::{ExitReason, Pid, Process, ProcessId};

/// The cases' server `S`.
struct TestServer;

#[derive(Debug, Clone)]
enum Req {
    /// Reply `pong`.
    Ping,
    /// Sleep this many ms, then reply `late_reply`.
    Sleep(u64),
    /// Stop with this reason without replying.
    Stop(ExitReason),
    /// Raise an error (panic) in the handler.
    Crash,
}

async fn crash() -> Next {
    panic!("boom")
}

impl Server for TestServer {
    type Call = Req;
    type Reply = &'static str;
    type Cast = ();
    type Info = ();

    async fn handle_call(
        &mut self,
        request: Req,
        from: ReplyTo<&'static str>,
        _ctx: &mut Context<Self>,
    ) -> Next {
        match request {
            Req::Ping => from.reply("pong"),
            Req::Sleep(ms) => {
                mote::sleep(Duration::from_millis(ms)).await;
                from.reply("late_reply");
            }
            Req::Stop(reason) => return Next::Stop(reason),
            Req::Crash => return crash().await,
        }
        Next::Continue
    }
}

/// The request as the reference writes it.
fn show_req(r: &Req) -> String {
    match r {
        Req::Ping => "ping".into(),
        Req::Sleep(ms) => format!("{{sleep,{ms}}}"),
        Req::Stop(why) => format!("{{stop,{}}}", reason(why)),
        Req::Crash => "crash".into(),
    }
}

type CallResult = Result<&'static str, CallError>;

/// `pong`, or `exit:{Reason,{gen_server,call,[S,Req,T]}}`.
fn show_call(o: &Driver, r: &CallResult, server: ProcessId, req: &Req, timeout_ms: u64) -> String {
    let why = match r {
        Ok(reply) => return (*reply).to_string(),
        Err(CallError::NoProc) => "noproc".to_string(),
        Err(CallError::Timeout) => "timeout".to_string(),
        Err(CallError::Exit(r)) => reason(r),
        Err(other) => format!("<{other}>"),
    };
    format!(
        "exit:{{{why},{{gen_server,call,[{},{},{timeout_ms}]}}}}",
        o.show(server),
        show_req(req)
    )
}

/// Spawns the caller A (watched by O): it makes the calls one after another, then serves
/// O's commands as an agent so O can read its mailbox and fate. Returns A and the results.
async fn caller_of(
    o: &mut Driver,
    calls: Vec<(ServerRef<TestServer>, Req)>,
    timeout: Duration,
) -> (Pid<Msg>, Vec<CallResult>) {
    let out: Arc<Mutex<Option<Vec<CallResult>>>> = Arc::default();
    let slot = Arc::clone(&out);
    let a = mote::spawn(move |p: Process<Msg>| async move {
        let mut results = Vec::new();
        for (server, req) in calls {
            results.push(server.call(req, timeout).await);
        }
        *slot.lock().unwrap() = Some(results);
        common::agent(p).await
    });
    o.name(a, "A");
    o.watch(a);
    wait_until("the caller has its results", || {
        out.lock().unwrap().is_some()
    })
    .await;
    let r = out.lock().unwrap().take().unwrap();
    (a, r)
}

/// A caller making one call.
async fn caller(
    o: &mut Driver,
    server: ServerRef<TestServer>,
    req: Req,
    timeout: Duration,
) -> (Pid<Msg>, CallResult) {
    let (a, mut r) = caller_of(o, vec![(server, req)], timeout).await;
    (a, r.remove(0))
}

async fn start_named(o: &mut Driver, name: &str) -> ServerRef<TestServer> {
    let s = server::start(TestServer)
        .await
        .expect("the test server starts");
    o.name(s.id(), name);
    o.watch(s.id());
    s
}

const T1000: Duration = Duration::from_millis(1000);

#[test]
fn p27_call_dead_server() {
    let line = run_case("P27-call-dead-server", |mut o: Driver| async move {
        let d = start_named(&mut o, "D").await;
        d.stop(ExitReason::Normal, T1000).await.unwrap();
        assert!(!mote::is_alive(d.id()));
        let started = Instant::now();
        let (a, r) = caller(&mut o, d, Req::Ping, T1000).await;
        // "The call exits at once (no wait for the timeout)".
        assert!(started.elapsed() < T1000, "the call waited for its timeout");
        o.settle().await;
        vec![
            format!("A.call={}", show_call(&o, &r, d.id(), &Req::Ping, 1000)),
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P27-call-dead-server A.call=exit:{noproc,{gen_server,call,[D,ping,1000]}} A=alive A.mbox=[]"
    );
}

#[test]
fn p28_call_timeout() {
    let line = run_case("P28-call-timeout", |mut o: Driver| async move {
        let s = start_named(&mut o, "S").await;
        let req = Req::Sleep(200);
        let (a, r) = caller(&mut o, s, req.clone(), Duration::from_millis(50)).await;
        // A waits 300 ms: S has replied by then.
        mote::sleep(Duration::from_millis(300)).await;
        let mbox = o.mbox(a).await.expect("A is alive");
        let after = s.call(Req::Ping, T1000).await;
        vec![
            format!("A.call={}", show_call(&o, &r, s.id(), &req, 50)),
            format!("A.mbox_after_300ms={}", o.show_list(&mbox)),
            format!("S={}", o.fate_of(s.id()).await),
            format!(
                "S.after={}",
                show_call(&o, &after, s.id(), &Req::Ping, 1000)
            ),
        ]
    });
    assert_eq!(
        line,
        "CASE P28-call-timeout A.call=exit:{timeout,{gen_server,call,[S,{sleep,200},50]}} A.mbox_after_300ms=[] S=alive S.after=pong"
    );
}

#[test]
fn p29_call_server_exits() {
    let line = run_case("P29-call-server-exits", |mut o: Driver| async move {
        let s1 = start_named(&mut o, "S1").await;
        let s2 = start_named(&mut o, "S2").await;
        let s3 = start_named(&mut o, "S3").await;
        let cases = [
            (s1, "S1", Req::Stop(ExitReason::custom("boom"))),
            (s2, "S2", Req::Stop(ExitReason::Normal)),
            (s3, "S3", Req::Crash),
        ];
        let calls = cases.iter().map(|(s, _, r)| (*s, r.clone())).collect();
        let (a, results) = caller_of(&mut o, calls, T1000).await;
        let mut tokens = Vec::new();
        for ((s, name, req), r) in cases.iter().zip(&results) {
            tokens.push(format!(
                "{name}.call={}",
                show_call(&o, r, s.id(), req, 1000)
            ));
            tokens.push(format!("{name}={}", o.fate_of(s.id()).await));
        }
        o.settle().await;
        tokens.push(o.fate_tok(a).await);
        tokens.push(o.mbox_tok(a).await);
        tokens
    });
    // A panic is mote's `{Reason, Stacktrace}` without the stack trace (the deviation
    // documented on `ExitReason`, as in P16): `{boom,<stacktrace>}` reads `panic(boom)`.
    assert_eq!(
        line,
        "CASE P29-call-server-exits S1.call=exit:{boom,{gen_server,call,[S1,{stop,boom},1000]}} S1=dead:boom S2.call=exit:{normal,{gen_server,call,[S2,{stop,normal},1000]}} S2=dead:normal S3.call=exit:{panic(boom),{gen_server,call,[S3,crash,1000]}} S3=dead:panic(boom) A=alive A.mbox=[]"
    );
}
