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

// ---------------------------------------------------------------------------------------
// gen_server's other results and options, each checked first on OTP 25. The Erlang side is
// a gen_server module `gs` whose `init/1`, handlers and `terminate/2` report to a log
// process `Log`; the snippets below show its relevant clauses and what the BEAM answered.
// ---------------------------------------------------------------------------------------

use mote::server::{Init, ServerOptions, StartError};
use mote::term::Term;

/// What the probe server reports to its log.
#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Init(ProcessId),
    Continue(Term),
    Cast,
    Info(&'static str),
    Timeout,
    Exit,
    Terminate(ExitReason),
}

/// How the probe's `init` answers.
#[derive(Clone)]
enum InitAs {
    Ok,
    Ignore,
    Stop(ExitReason),
    Continue,
    Timeout(Duration),
    /// Sleep this long, then answer ok.
    Slow(Duration),
    /// Trap exits, answer ok.
    Trap,
}

/// Calls to the probe.
enum PCall {
    Ping,
    /// Reply `ok`, then answer this.
    Then(Next),
    /// Reply `ok` after sending itself the info `hello`, then answer a timeout.
    InfoThenTimeout(Duration),
    /// Call itself (by name if given), reply with what that call answered.
    CallSelf(Option<&'static str>),
    /// Keep the `ReplyTo`, stop with this reason; `terminate` replies.
    StopReplyingInTerminate(ExitReason),
    /// Send itself an exit signal with this reason; if `caught`, catch the unwind, await
    /// once and reply.
    ExitSelf {
        reason: ExitReason,
        caught: bool,
    },
}

struct Probe {
    log: Pid<Ev>,
    init: InitAs,
    held: Option<ReplyTo<Result<&'static str, CallError>>>,
}

fn probe(log: Pid<Ev>, init: InitAs) -> Probe {
    Probe {
        log,
        init,
        held: None,
    }
}

impl Server for Probe {
    type Call = PCall;
    type Reply = Result<&'static str, CallError>;
    type Cast = ();
    type Info = &'static str;

    async fn init_full(&mut self, ctx: &mut Context<Self>) -> Init {
        self.log.send(Ev::Init(ctx.id()));
        match self.init.clone() {
            InitAs::Ok => Init::Ok,
            InitAs::Ignore => Init::Ignore,
            InitAs::Stop(r) => Init::Stop(r),
            InitAs::Continue => Init::ContinueWith(Term::atom("c1")),
            InitAs::Timeout(t) => Init::Timeout(t),
            InitAs::Slow(t) => {
                mote::sleep(t).await;
                Init::Ok
            }
            InitAs::Trap => {
                ctx.trap_exit(true);
                Init::Ok
            }
        }
    }

    async fn handle_continue(&mut self, term: Term, _: &mut Context<Self>) -> Next {
        self.log.send(Ev::Continue(term.clone()));
        if term == Term::atom("c1") {
            Next::ContinueWith(Term::atom("c2"))
        } else {
            Next::Continue
        }
    }

    async fn handle_call(
        &mut self,
        call: PCall,
        from: ReplyTo<Self::Reply>,
        ctx: &mut Context<Self>,
    ) -> Next {
        match call {
            PCall::Ping => from.reply(Ok("pong")),
            PCall::Then(next) => {
                from.reply(Ok("ok"));
                return next;
            }
            PCall::InfoThenTimeout(t) => {
                ctx.server().info("hello");
                from.reply(Ok("ok"));
                return Next::Timeout(t);
            }
            PCall::CallSelf(name) => {
                let t = Duration::from_secs(10);
                let answer = match name {
                    Some(name) => server::call_named::<Probe>(name, PCall::Ping, t).await,
                    None => ctx.server().call(PCall::Ping, t).await,
                };
                from.reply(answer.map(|_| "answered"));
            }
            PCall::ExitSelf { reason, caught } => {
                let me = ctx.id();
                if !caught {
                    mote::exit(me, reason.clone());
                }
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    mote::exit(me, reason)
                }));
                drop(caught);
                // The signal ends the process here, at its first await after the catch.
                mote::yield_now().await;
                from.reply(Ok("survived"));
            }
            PCall::StopReplyingInTerminate(reason) => {
                self.held = Some(from);
                return Next::Stop(reason);
            }
        }
        Next::Continue
    }

    async fn handle_cast(&mut self, _: (), _: &mut Context<Self>) -> Next {
        self.log.send(Ev::Cast);
        Next::Continue
    }

    async fn handle_info(&mut self, info: &'static str, _: &mut Context<Self>) -> Next {
        self.log.send(Ev::Info(info));
        Next::Continue
    }

    async fn handle_timeout(&mut self, _: &mut Context<Self>) -> Next {
        self.log.send(Ev::Timeout);
        Next::Continue
    }

    async fn handle_exit(&mut self, _: mote::Exit, _: &mut Context<Self>) -> Next {
        // Ignores every exit: the parent's must stop the server all the same.
        self.log.send(Ev::Exit);
        Next::Continue
    }

    async fn terminate(&mut self, reason: &ExitReason, _: &mut Context<Self>) {
        self.log.send(Ev::Terminate(reason.clone()));
        if let Some(from) = self.held.take() {
            from.reply(Ok("replied"));
        }
    }
}

/// A custom exit reason.
fn why(r: &str) -> ExitReason {
    ExitReason::custom(r)
}

const LONG: Duration = Duration::from_secs(10);

/// The next log entry, failing after [`LONG`].
async fn next_ev(p: &mut Process<Ev>) -> Ev {
    p.recv_timeout(LONG)
        .await
        .expect("the probe reported nothing")
}

/// The log entries until the probe's `Init`, skipping it; returns the probe's id.
async fn init_ev(p: &mut Process<Ev>) -> ProcessId {
    match next_ev(p).await {
        Ev::Init(id) => id,
        other => panic!("expected Init, got {other:?}"),
    }
}

/// ```erlang
/// init(ignore) -> ignore.
/// gen_server:start(gs, ignore, []).        % ignore
/// init({stop, R}) -> {stop, R}.
/// gen_server:start(gs, {stop, bad}, []).   % {error, bad}
/// ```
#[test]
fn init_answering_ignore_or_stop_is_what_start_returns() {
    mote::run(|mut p: Process<Ev>| async move {
        let r = server::start(probe(p.pid(), InitAs::Ignore)).await;
        assert_eq!(r, Err(StartError::Ignored));
        let id = init_ev(&mut p).await;
        wait_until("the probe has ended", || !mote::is_alive(id)).await;
        let r = server::start(probe(p.pid(), InitAs::Stop(why("bad")))).await;
        assert_eq!(r, Err(StartError::Init(why("bad"))));
    })
    .unwrap();
}

/// ```erlang
/// init({continue, Log}) -> Log ! init, {ok, Log, {continue, c1}}.
/// handle_continue(c1, Log) -> Log ! {continue, c1}, {noreply, Log, {continue, c2}};
/// handle_continue(c2, Log) -> Log ! {continue, c2}, {noreply, Log}.
/// {ok, P} = gen_server:start(gs, {continue, self()}, []), gen_server:cast(P, msg).
/// % the log gets [init, {continue, c1}, {continue, c2}, cast]
/// ```
#[test]
fn init_continue_runs_handle_continue_before_the_first_message() {
    mote::run(|mut p: Process<Ev>| async move {
        let s = server::start(probe(p.pid(), InitAs::Continue))
            .await
            .unwrap();
        s.cast(());
        init_ev(&mut p).await;
        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push(next_ev(&mut p).await);
        }
        assert_eq!(
            seen,
            [
                Ev::Continue(Term::atom("c1")),
                Ev::Continue(Term::atom("c2")),
                Ev::Cast
            ]
        );
    })
    .unwrap();
}

/// ```erlang
/// init({timeout, Log}) -> {ok, Log, 50}.
/// % with no message, handle_info(timeout, Log) runs: the log gets [{info, timeout}]
/// handle_call(timeout, _F, Log) -> {reply, ok, Log, 50}.
/// % after the reply, with no message: the log gets [{info, timeout}]
/// ```
#[test]
fn a_timeout_with_no_message_calls_handle_timeout() {
    mote::run(|mut p: Process<Ev>| async move {
        let s = server::start(probe(p.pid(), InitAs::Timeout(Duration::from_millis(1))))
            .await
            .unwrap();
        init_ev(&mut p).await;
        assert_eq!(next_ev(&mut p).await, Ev::Timeout);
        let after = Next::Timeout(Duration::ZERO);
        assert_eq!(s.call(PCall::Then(after), LONG).await, Ok(Ok("ok")));
        assert_eq!(next_ev(&mut p).await, Ev::Timeout);
    })
    .unwrap();
}

/// ```erlang
/// ok = gen_server:call(P, timeout), P ! hello.
/// % the log gets [{info, hello}] and nothing else: the message cancelled the timeout
/// ```
/// Here the message is queued before the handler answers the timeout, so no machine delay
/// can let the timeout win the race.
#[test]
fn any_message_cancels_the_timeout() {
    mote::run(|mut p: Process<Ev>| async move {
        let s = server::start(probe(p.pid(), InitAs::Ok)).await.unwrap();
        init_ev(&mut p).await;
        let t = Duration::from_millis(20);
        assert_eq!(s.call(PCall::InfoThenTimeout(t), LONG).await, Ok(Ok("ok")));
        assert_eq!(next_ev(&mut p).await, Ev::Info("hello"));
        mote::sleep(t * 5).await;
        assert_eq!(s.call(PCall::Ping, LONG).await, Ok(Ok("pong")));
        assert_eq!(p.try_recv(), None, "no timeout after a message came");
    })
    .unwrap();
}

/// ```erlang
/// handle_call(hib, _F, Log) -> {reply, ok, Log, hibernate}.
/// ok = gen_server:call(P, hib), process_info(P, status).   % {status, waiting}
/// gen_server:call(P, ping).                                  % pong: it wakes on a message
/// ```
#[test]
fn a_hibernating_server_wakes_on_the_next_message() {
    mote::run(|mut p: Process<Ev>| async move {
        let s = server::start(probe(p.pid(), InitAs::Ok)).await.unwrap();
        init_ev(&mut p).await;
        assert_eq!(
            s.call(PCall::Then(Next::Hibernate), LONG).await,
            Ok(Ok("ok"))
        );
        s.info("wake");
        assert_eq!(next_ev(&mut p).await, Ev::Info("wake"));
        assert_eq!(s.call(PCall::Ping, LONG).await, Ok(Ok("pong")));
    })
    .unwrap();
}

/// ```erlang
/// init({sleep, T}) -> timer:sleep(T), {ok, none}.
/// gen_server:start(gs, {sleep, 500}, [{timeout, 50}]).   % {error, timeout}
/// ```
/// (proc_lib unlinks and kills the process on such a timeout: a linked starter lives on.)
#[test]
fn a_slow_init_is_killed_and_start_returns_timeout() {
    mote::run(|mut p: Process<Ev>| async move {
        let r = ServerOptions::new()
            .linked()
            .start_timeout(Duration::from_millis(20))
            .start(probe(p.pid(), InitAs::Slow(Duration::from_secs(60))))
            .await;
        assert_eq!(r, Err(StartError::Timeout));
        let id = init_ev(&mut p).await;
        wait_until("the probe has ended", || !mote::is_alive(id)).await;
        // The starter was linked, and lives on: this line runs.
    })
    .unwrap();
}

/// ```erlang
/// {ok, N} = gen_server:start({local, gsname}, gs, x, []),
/// gen_server:start({local, gsname}, gs, x, []).   % {error, {already_started, N}}
/// gen_server:call(gsname, ping).                   % pong: by name, no lookup first
/// gen_server:cast(nobody_here, msg).               % ok
/// catch gen_server:call(nobody_here, ping).
/// % {'EXIT', {noproc, {gen_server, call, [nobody_here, ping]}}}
/// ```
#[test]
fn a_taken_name_gives_already_started_with_the_holder() {
    mote::run(|p: Process<Ev>| async move {
        let opts = || ServerOptions::new().name("sem_gs_taken");
        let first = opts().start(probe(p.pid(), InitAs::Ok)).await.unwrap();
        let again = opts().start(probe(p.pid(), InitAs::Ok)).await;
        assert_eq!(again, Err(StartError::AlreadyStarted(first.id())));
        let by_name = server::call_named::<Probe>("sem_gs_taken", PCall::Ping, LONG).await;
        assert_eq!(by_name, Ok(Ok("pong")));
    })
    .unwrap();
}

/// ```erlang
/// gen_server:cast(nobody_here, msg).   % ok
/// ```
#[test]
fn cast_to_missing_name_is_silent() {
    mote::run(|_p: Process<Ev>| async move {
        server::cast_named::<Probe>("sem_gs_nobody", ());
    })
    .unwrap();
}

/// ```erlang
/// catch gen_server:call(nobody_here, ping).
/// % {'EXIT', {noproc, {gen_server, call, [nobody_here, ping]}}}
/// ```
#[test]
fn call_to_missing_name_is_noproc() {
    mote::run(|_p: Process<Ev>| async move {
        let r = server::call_named::<Probe>("sem_gs_nobody", PCall::Ping, LONG).await;
        assert_eq!(r, Err(CallError::NoProc));
    })
    .unwrap();
}

/// ```erlang
/// handle_call(self_call, _F, S) -> {reply, (catch gen_server:call(self(), x)), S}.
/// gen_server:call(N, self_call).
/// % {'EXIT', {calling_self, {gen_server, call, [N, x]}}}: at once, no timeout
/// ```
#[test]
fn a_server_calling_itself_gets_calling_self_by_pid_and_by_name() {
    mote::run(|p: Process<Ev>| async move {
        let s = ServerOptions::new()
            .name("sem_gs_self")
            .start(probe(p.pid(), InitAs::Ok))
            .await
            .unwrap();
        let by_pid = s.call(PCall::CallSelf(None), LONG).await;
        assert_eq!(by_pid, Ok(Err(CallError::CallingSelf)));
        let by_name = s.call(PCall::CallSelf(Some("sem_gs_self")), LONG).await;
        assert_eq!(by_name, Ok(Err(CallError::CallingSelf)));
    })
    .unwrap();
}

/// ```erlang
/// init({trap, Log}) -> process_flag(trap_exit, true), {ok, Log}.
/// Parent = spawn(fun() -> {ok, C} = gen_server:start_link(gs, {trap, Self}, []),
///                         Self ! {child, C}, receive die -> exit(parent_died) end end).
/// % C ends with parent_died, and its log gets [{terminate, parent_died}] only:
/// % handle_info never sees the parent's 'EXIT', the gen_server loop handles it
/// ```
#[test]
fn the_parents_exit_stops_a_trapping_server_with_the_parents_reason() {
    mote::run(|mut p: Process<Ev>| async move {
        let log = p.pid();
        let parent = mote::spawn(move |mut q: Process<()>| async move {
            server::start_link(probe(log, InitAs::Trap)).await.unwrap();
            q.recv().await;
            why("parent_died")
        });
        let child = init_ev(&mut p).await;
        parent.send(());
        assert_eq!(next_ev(&mut p).await, Ev::Terminate(why("parent_died")));
        wait_until("the probe has ended", || !mote::is_alive(child)).await;
        assert_eq!(p.try_recv(), None, "handle_exit never ran");
    })
    .unwrap();
}

/// ```erlang
/// gen_server:stop(P5, shutdown, 1000).   % ok, and the log already has
///                                         % [{terminate, shutdown}]
/// handle_call({stop_reply, R}, _F, Log) -> {stop, R, replied, Log}.
/// R = gen_server:call(P, {stop_reply, normal}),
/// receive M -> M after 0 -> none end.
/// % R = replied, and {terminate, normal} is already in the mailbox: terminate ran
/// % before the reply was sent
/// ```
/// mote's reply goes when the handler sends it; a `ReplyTo` kept and answered from
/// `terminate` gives OTP's order (documented in the `server` module).
#[test]
fn terminate_runs_before_stop_returns_and_before_a_reply_sent_from_it() {
    mote::run(|mut p: Process<Ev>| async move {
        let s = server::start(probe(p.pid(), InitAs::Ok)).await.unwrap();
        init_ev(&mut p).await;
        s.stop(ExitReason::Shutdown, LONG).await.unwrap();
        assert_eq!(p.try_recv(), Some(Ev::Terminate(ExitReason::Shutdown)));

        let s = server::start(probe(p.pid(), InitAs::Ok)).await.unwrap();
        init_ev(&mut p).await;
        let r = s
            .call(PCall::StopReplyingInTerminate(ExitReason::Normal), LONG)
            .await;
        assert_eq!(r, Ok(Ok("replied")));
        assert_eq!(p.try_recv(), Some(Ev::Terminate(ExitReason::Normal)));
    })
    .unwrap();
}

/// ```erlang
/// handle_call(die, _F, Log) -> catch exit(self(), boom), {reply, survived, Log}.
/// terminate(R, Log) -> Log ! {terminate, R}.
/// catch gen_server:call(P, die).
/// % {'EXIT', {boom, {gen_server, call, [P, die]}}}: the server ended with boom, at once,
/// % without replying and without terminate (the log stays empty)
/// ```
/// In mote the caught signal ends the server at its next await (here right after the
/// catch; see "Deviations from Erlang/OTP" in docs/design.md for a handler that never
/// awaits). Uncaught, the server loop's own catch must not run `terminate` either.
#[test]
fn an_exit_signal_a_server_sends_itself_ends_it_without_terminate() {
    mote::run(|mut p: Process<Ev>| async move {
        for caught in [true, false] {
            let s = server::start(probe(p.pid(), InitAs::Ok)).await.unwrap();
            init_ev(&mut p).await;
            let call = PCall::ExitSelf {
                reason: why("boom"),
                caught,
            };
            let r = s.call(call, LONG).await;
            assert_eq!(r, Err(CallError::Exit(why("boom"))), "caught: {caught}");
            assert_eq!(
                p.try_recv(),
                None,
                "terminate did not run (caught: {caught})"
            );
        }
    })
    .unwrap();
}
