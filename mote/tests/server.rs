//! `mote::server` beyond the conformance cases: deferred replies, `NoReply`, stop and
//! terminate, init failures, names, parents, calls from outside processes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mote::server::{
    self, CallError, Context, Next, ReplyTo, Server, ServerOptions, ServerRef, StartError,
    StopError,
};
use mote::{Down, Exit, ExitReason, Process, RegistryError};

const T: Duration = Duration::from_secs(5);

/// Records what happened to it in a shared log.
#[derive(Default)]
struct Probe {
    log: Arc<Mutex<Vec<String>>>,
    fail_init: Option<ExitReason>,
    parked: Vec<ReplyTo<u64>>,
}

#[allow(clippy::enum_variant_names)] // `SelfCall`: a call to oneself.
enum Call {
    Echo(u64),
    /// Keep the reply handle; answered by the next `Release`.
    Park,
    /// Answer every parked call with this value.
    Release(u64),
    /// Drop the reply handle without answering.
    Drop,
    Sleep(u64),
    Panic,
    /// Call yourself.
    SelfCall,
}

async fn boom() -> Next {
    panic!("handler boom")
}

impl Server for Probe {
    type Call = Call;
    type Reply = u64;
    type Cast = String;
    type Info = String;

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        ctx.trap_exit(true);
        self.log.lock().unwrap().push("init".into());
        match self.fail_init.take() {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    async fn handle_call(
        &mut self,
        call: Call,
        from: ReplyTo<u64>,
        ctx: &mut Context<Self>,
    ) -> Next {
        match call {
            Call::Echo(n) => from.reply(n),
            Call::Park => self.parked.push(from),
            Call::Release(n) => {
                for p in self.parked.drain(..) {
                    p.reply(n);
                }
                from.reply(0);
            }
            Call::Drop => drop(from),
            Call::Sleep(ms) => {
                self.log.lock().unwrap().push(format!("sleep {ms}"));
                mote::sleep(Duration::from_millis(ms)).await;
                from.reply(ms);
            }
            Call::Panic => return boom().await,
            Call::SelfCall => {
                let me = ctx.server();
                let r = me.call(Call::Echo(1), T).await;
                self.log.lock().unwrap().push(format!("self call: {r:?}"));
                from.reply(0);
            }
        }
        Next::Continue
    }

    async fn handle_cast(&mut self, msg: String, _ctx: &mut Context<Self>) -> Next {
        self.log.lock().unwrap().push(format!("cast {msg}"));
        Next::Continue
    }

    async fn handle_info(&mut self, msg: String, _ctx: &mut Context<Self>) -> Next {
        self.log.lock().unwrap().push(format!("info {msg}"));
        Next::Continue
    }

    async fn terminate(&mut self, reason: &ExitReason, _ctx: &mut Context<Self>) {
        self.log.lock().unwrap().push(format!("terminate {reason}"));
    }
}

fn new_probe() -> (Probe, Arc<Mutex<Vec<String>>>) {
    let p = Probe::default();
    let log = Arc::clone(&p.log);
    (p, log)
}

fn logged(log: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    log.lock().unwrap().clone()
}

#[test]
fn call_cast_info_arrive_in_order() {
    mote::run(|_p: Process<()>| async move {
        let (p, log) = new_probe();
        let s = server::start(p).await.unwrap();
        s.cast("a".into());
        s.info("b".into());
        assert_eq!(s.call(Call::Echo(7), T).await, Ok(7));
        assert_eq!(logged(&log), ["init", "cast a", "info b"]);
    })
    .unwrap();
}

#[test]
fn deferred_replies_answer_parked_callers() {
    mote::run(|mut p: Process<Result<u64, CallError>>| async move {
        let (probe, _log) = new_probe();
        let s = server::start(probe).await.unwrap();
        let me = p.pid();
        for _ in 0..3 {
            mote::spawn(move |_c: Process<()>| async move { me.send(s.call(Call::Park, T).await) });
        }
        // Each parked call is in the server before the release (calls are handled in order
        // per caller, so poll until all three are parked).
        let mut released = 0;
        let mut answers = Vec::new();
        while answers.len() < 3 {
            assert_eq!(s.call(Call::Release(42), T).await, Ok(0));
            released += 1;
            assert!(released < 5000, "parked calls never answered");
            while let Some(a) = p.try_recv() {
                answers.push(a);
            }
            mote::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(answers, vec![Ok(42); 3]);
    })
    .unwrap();
}

#[test]
fn a_dropped_reply_handle_fails_the_call_at_once() {
    mote::run(|_p: Process<()>| async move {
        let (probe, _log) = new_probe();
        let s = server::start(probe).await.unwrap();
        assert_eq!(
            s.call(Call::Drop, Duration::MAX).await,
            Err(CallError::NoReply)
        );
        // The server goes on.
        assert_eq!(s.call(Call::Echo(1), T).await, Ok(1));
    })
    .unwrap();
}

#[test]
fn a_server_killed_mid_call_fails_the_call_with_its_reason_and_no_stray_message() {
    mote::run(|mut p: Process<u64>| async move {
        let (probe, log) = new_probe();
        let s = server::start(probe).await.unwrap();
        let victim = s.id();
        let seen = Arc::clone(&log);
        mote::spawn(move |_k: Process<()>| async move {
            // Mid-call: once the handler has started.
            while !logged(&seen).iter().any(|l| l == "sleep 10000") {
                mote::sleep(Duration::from_millis(1)).await;
            }
            mote::exit(victim, ExitReason::Kill);
        });
        assert_eq!(
            s.call(Call::Sleep(10_000), T).await,
            Err(CallError::Exit(ExitReason::Killed))
        );
        // A kill skips terminate, as on the BEAM.
        assert_eq!(logged(&log), ["init", "sleep 10000"]);
        assert_eq!(p.recv_timeout(Duration::from_millis(30)).await, None);
    })
    .unwrap();
}

#[test]
fn a_handler_panic_runs_terminate_and_fails_the_call() {
    mote::run(|_p: Process<()>| async move {
        let (probe, log) = new_probe();
        let s = server::start(probe).await.unwrap();
        let r = s.call(Call::Panic, T).await;
        assert_eq!(
            r,
            Err(CallError::Exit(ExitReason::Panic("handler boom".into())))
        );
        assert_eq!(
            logged(&log),
            ["init", r#"terminate {panic,<<"handler boom">>}"#]
        );
        assert_eq!(s.call(Call::Echo(1), T).await, Err(CallError::NoProc));
    })
    .unwrap();
}

#[test]
fn stop_runs_terminate_and_reports_errors() {
    mote::run(|_p: Process<()>| async move {
        let (probe, log) = new_probe();
        let s = server::start(probe).await.unwrap();
        assert_eq!(s.stop(ExitReason::Shutdown, T).await, Ok(()));
        assert_eq!(logged(&log), ["init", "terminate shutdown"]);
        assert_eq!(
            s.stop(ExitReason::Shutdown, T).await,
            Err(StopError::NoProc)
        );

        let (probe, busy_log) = new_probe();
        let busy = server::start(probe).await.unwrap();
        mote::spawn(move |_c: Process<()>| async move {
            let _ = busy.call(Call::Sleep(10_000), T).await;
        });
        let mut waited = 0;
        while logged(&busy_log).len() < 2 {
            mote::sleep(Duration::from_millis(1)).await;
            waited += 1;
            assert!(waited < 5000, "the server never took the call");
        }
        let r = busy
            .stop(ExitReason::Normal, Duration::from_millis(20))
            .await;
        assert_eq!(r, Err(StopError::Timeout));
        assert!(mote::is_alive(busy.id()));
        mote::exit(busy.id(), ExitReason::Kill);
    })
    .unwrap();
}

#[test]
fn init_failure_is_returned_and_spares_a_linked_starter() {
    mote::run(|mut p: Process<Exit>| async move {
        p.trap_exit(true);
        let (mut probe, log) = new_probe();
        probe.fail_init = Some(ExitReason::custom("bad config"));
        let r = ServerOptions::new().linked().start(probe).await;
        assert_eq!(r, Err(StartError::Init(ExitReason::custom("bad config"))));
        assert_eq!(logged(&log), ["init"]);
        // The server unlinked before ending: no exit signal reaches the starter.
        assert!(p.recv_timeout(Duration::from_millis(30)).await.is_none());
    })
    .unwrap();
}

#[test]
fn names_are_registered_before_init_and_refused_when_taken() {
    mote::run(|_p: Process<()>| async move {
        let (first, _) = new_probe();
        let s = ServerOptions::new()
            .name("probe")
            .start(first)
            .await
            .unwrap();
        assert_eq!(mote::whereis("probe"), Some(s.id()));
        let (probe2, _) = new_probe();
        let again = ServerOptions::new().name("probe").start(probe2).await;
        assert_eq!(again, Err(StartError::AlreadyStarted(s.id())));
        let by_name = ServerRef::<Probe>::named("probe").unwrap();
        assert_eq!(by_name.call(Call::Echo(3), T).await, Ok(3));

        // A name no process can take is refused as such, before anything starts.
        let (probe3, log) = new_probe();
        let bad = ServerOptions::new().name("undefined").start(probe3).await;
        assert_eq!(bad, Err(StartError::Name(RegistryError::ReservedName)));
        let (probe4, _) = new_probe();
        let long = ServerOptions::new()
            .name("n".repeat(300))
            .start(probe4)
            .await;
        assert_eq!(
            long,
            Err(StartError::Name(RegistryError::NameTooLong { chars: 300 }))
        );
        assert!(logged(&log).is_empty(), "init never ran");
    })
    .unwrap();
}

#[test]
fn a_trapping_server_stops_when_its_parent_exits() {
    mote::run(|mut p: Process<Down>| async move {
        let (probe, log) = new_probe();
        p.spawn_monitor(move |_parent: Process<()>| async move {
            let s = server::start_link(probe).await.unwrap();
            assert!(mote::is_alive(s.id()));
            ExitReason::custom("parent gone")
        });
        let down = p.recv().await;
        assert_eq!(down.reason, ExitReason::custom("parent gone"));
        // The server was started by the parent, linked; its exit signal stops the server.
        let mut waited = 0;
        while !logged(&log).iter().any(|l| l.starts_with("terminate")) {
            mote::sleep(Duration::from_millis(1)).await;
            waited += 1;
            assert!(
                waited < 5000,
                "the server never terminated: {:?}",
                logged(&log)
            );
        }
        assert_eq!(logged(&log), ["init", "terminate 'parent gone'"]);
    })
    .unwrap();
}

#[test]
fn a_server_calling_itself_gets_an_error_not_a_hang() {
    mote::run(|_p: Process<()>| async move {
        let (probe, log) = new_probe();
        let s = server::start(probe).await.unwrap();
        assert_eq!(s.call(Call::SelfCall, T).await, Ok(0));
        assert_eq!(logged(&log)[1], "self call: Err(CallingSelf)");
    })
    .unwrap();
}

#[test]
fn calls_work_from_a_plain_tokio_runtime() {
    // Started from outside any process, so no `mote::run` ends it when it returns.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let (probe, _) = new_probe();
        let s = server::start(probe).await.unwrap();
        assert_eq!(s.call(Call::Echo(9), T).await, Ok(9));
        assert_eq!(
            s.call(Call::Sleep(200), Duration::from_millis(5)).await,
            Err(CallError::Timeout)
        );
        assert_eq!(s.stop(ExitReason::Normal, T).await, Ok(()));
    });
}
