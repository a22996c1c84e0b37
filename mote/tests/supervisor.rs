//! `mote::supervisor` beyond the conformance cases: restart types, shutdown modes, start
//! failures, nested trees, the dynamic supervisor and the errors of the child API.
//!
//! Every wait is bounded ([`WAIT`]): workers report `Started`/`Terminated` to the test's
//! root process, which waits for those messages or for monitors' `Down`s, or polls the
//! supervisor a bounded number of times. No assertion depends on how long anything took.

use std::future::Future;
use std::time::{Duration, Instant};

use mote::server::{CallError, Context, Next, ReplyTo, Server, ServerRef, StartError};
use mote::supervisor::{
    ChildKind, ChildSpec, DynamicSupervisor, Restart, Shutdown, Strategy, Supervisor,
    SupervisorError, SupervisorRef,
};
use mote::{Down, Exit, ExitReason, Pid, Process, ProcessId, SpawnOptions, Term};

/// The longest any single wait may take before the test fails.
const WAIT: Duration = Duration::from_secs(5);
/// A period long enough that only restart counts matter.
const HOUR: Duration = Duration::from_secs(3600);

type W = ServerRef<Worker>;

/// The test's root process's mailbox.
enum TMsg {
    Started(&'static str, W),
    /// The stubborn raw child's start.
    Raw(ProcessId),
    Terminated(&'static str, ExitReason),
    Down(Down),
}

impl From<Down> for TMsg {
    fn from(d: Down) -> Self {
        TMsg::Down(d)
    }
}

/// A server child that reports its start and its `terminate` to the test process; a cast
/// makes it stop with the reason cast.
struct Worker {
    tag: &'static str,
    t: Pid<TMsg>,
    trap: bool,
}

impl Server for Worker {
    type Call = ();
    type Reply = ();
    type Cast = ExitReason;
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        if self.trap {
            ctx.trap_exit(true);
        }
        self.t.send(TMsg::Started(self.tag, ctx.server()));
        Ok(())
    }

    async fn handle_call(&mut self, _: (), from: ReplyTo<()>, _: &mut Context<Self>) -> Next {
        from.reply(());
        Next::Continue
    }

    async fn handle_cast(&mut self, reason: ExitReason, _: &mut Context<Self>) -> Next {
        Next::Stop(reason)
    }

    async fn terminate(&mut self, reason: &ExitReason, _: &mut Context<Self>) {
        self.t.send(TMsg::Terminated(self.tag, reason.clone()));
    }
}

fn worker(tag: &'static str, t: Pid<TMsg>) -> ChildSpec {
    ChildSpec::server(tag, move || Worker {
        tag,
        t,
        trap: false,
    })
}

fn trapping_worker(tag: &'static str, t: Pid<TMsg>) -> ChildSpec {
    ChildSpec::server(tag, move || Worker { tag, t, trap: true })
}

/// The next `Started` of `tag`, within [`WAIT`].
async fn started(p: &mut Process<TMsg>, tag: &str) -> W {
    match p
        .recv_matching_timeout(|m| matches!(m, TMsg::Started(t, _) if *t == tag), WAIT)
        .await
    {
        Some(TMsg::Started(_, pid)) => pid,
        _ => panic!("{tag} did not start within {WAIT:?}"),
    }
}

/// The next `count` `Started` messages, whatever their tags, in arrival order.
async fn starts(p: &mut Process<TMsg>, count: usize) -> Vec<(&'static str, W)> {
    let mut out = Vec::new();
    while out.len() < count {
        match p
            .recv_matching_timeout(|m| matches!(m, TMsg::Started(..)), WAIT)
            .await
        {
            Some(TMsg::Started(tag, pid)) => out.push((tag, pid)),
            _ => panic!("only {out:?} started within {WAIT:?}, {count} expected"),
        }
    }
    out
}

/// `Started` messages already queued (none is expected when this is called).
async fn queued_starts(p: &mut Process<TMsg>) -> Vec<&'static str> {
    let mut out = Vec::new();
    while let Some(TMsg::Started(tag, _)) = p
        .recv_matching_timeout(|m| matches!(m, TMsg::Started(..)), Duration::ZERO)
        .await
    {
        out.push(tag);
    }
    out
}

/// The reason `tag`'s `terminate` ran with, within [`WAIT`].
async fn terminated(p: &mut Process<TMsg>, tag: &str) -> ExitReason {
    match p
        .recv_matching_timeout(|m| matches!(m, TMsg::Terminated(t, _) if *t == tag), WAIT)
        .await
    {
        Some(TMsg::Terminated(_, reason)) => reason,
        _ => panic!("{tag}'s terminate did not run within {WAIT:?}"),
    }
}

/// Waits (bounded) for the `Down` of a monitor taken with `p.monitor(pid)` earlier.
async fn down(p: &mut Process<TMsg>, pid: ProcessId) -> ExitReason {
    match p
        .recv_matching_timeout(|m| matches!(m, TMsg::Down(d) if d.pid == pid), WAIT)
        .await
    {
        Some(TMsg::Down(d)) => d.reason,
        _ => panic!("{pid} did not end within {WAIT:?}"),
    }
}

/// Polls `cond` until it holds, at most [`WAIT`].
async fn poll<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + WAIT;
    while !cond().await {
        assert!(
            Instant::now() < deadline,
            "timed out after {WAIT:?} waiting until {what}"
        );
        mote::sleep(Duration::from_millis(1)).await;
    }
}

/// The pid column of `which_children`, by id.
async fn pid_of(sup: &SupervisorRef, id: &str) -> Option<ProcessId> {
    sup.which_children()
        .await
        .expect("the supervisor answers")
        .into_iter()
        .find(|c| &*c.id == id)
        .unwrap_or_else(|| panic!("no child {id}"))
        .pid
}

async fn ids(sup: &SupervisorRef) -> Vec<String> {
    sup.which_children()
        .await
        .expect("the supervisor answers")
        .iter()
        .map(|c| c.id.to_string())
        .collect()
}

fn run<F, Fut>(body: F)
where
    F: FnOnce(Process<TMsg>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    if let Err(e) = mote::run(body) {
        panic!("the test process ended with {e:?} (see its panic message above)");
    }
}

#[test]
fn transient_child_is_restarted_only_after_an_abnormal_exit() {
    run(|mut p| async move {
        let t = p.pid();
        let sup = Supervisor::new(Strategy::OneForOne)
            .intensity(10, HOUR)
            .child(worker("t", t).restart(Restart::Transient))
            .start_link()
            .await
            .expect("the supervisor starts");
        let first = started(&mut p, "t").await;
        let info = &sup.which_children().await.unwrap()[0];
        assert_eq!(info.restart, Restart::Transient);
        assert_eq!(info.kind, ChildKind::Worker);

        // An abnormal exit: restarted.
        p.monitor(first.id());
        first.cast(ExitReason::custom("boom"));
        assert_eq!(down(&mut p, first.id()).await, ExitReason::custom("boom"));
        let second = started(&mut p, "t").await;
        assert_ne!(second, first);
        assert_eq!(pid_of(&sup, "t").await, Some(second.id()));

        // `normal`, `shutdown` and `{shutdown, _}`: not restarted, the spec stays with no
        // pid (Erlang's rule for transient children: the supervisor design principles).
        let mut current = second;
        let with_detail = ExitReason::shutdown_with(Term::atom("maintenance"));
        for reason in [ExitReason::Normal, ExitReason::Shutdown, with_detail] {
            p.monitor(current.id());
            current.cast(reason.clone());
            assert_eq!(down(&mut p, current.id()).await, reason);
            poll("the supervisor has seen the exit", || async {
                pid_of(&sup, "t").await.is_none()
            })
            .await;
            assert_eq!(ids(&sup).await, ["t"]);
            assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());
            let counts = sup.count_children().await.unwrap();
            assert_eq!((counts.specs, counts.active), (1, 0));
            // Started again by hand for the next round.
            let pid = sup.restart_child("t").await.expect("restarts");
            current = started(&mut p, "t").await;
            assert_eq!(current.id(), pid);
        }
        // A kill is abnormal too.
        mote::exit(current.id(), ExitReason::Kill);
        let again = started(&mut p, "t").await;
        assert_eq!(pid_of(&sup, "t").await, Some(again.id()));
    });
}

#[test]
fn temporary_child_is_never_restarted_and_its_spec_goes() {
    run(|mut p| async move {
        let t = p.pid();
        let sup = Supervisor::new(Strategy::OneForOne)
            .intensity(10, HOUR)
            .child(worker("temp", t).restart(Restart::Temporary))
            .child(worker("perm", t))
            .start_link()
            .await
            .expect("the supervisor starts");
        let temp = started(&mut p, "temp").await;
        let perm = started(&mut p, "perm").await;
        p.monitor(temp.id());
        mote::exit(temp.id(), ExitReason::Kill);
        assert_eq!(down(&mut p, temp.id()).await, ExitReason::Killed);
        poll("the temporary child's spec is gone", || async {
            ids(&sup).await == ["perm"]
        })
        .await;
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());
        assert_eq!(pid_of(&sup, "perm").await, Some(perm.id()));
        assert_eq!(
            sup.restart_child("temp").await,
            Err(SupervisorError::NotFound("temp".into()))
        );

        // A temporary child that ends normally goes too.
        let pid = sup
            .start_child(worker("temp2", t).restart(Restart::Temporary))
            .await
            .expect("starts");
        let temp2 = started(&mut p, "temp2").await;
        assert_eq!(temp2.id(), pid);
        temp2.cast(ExitReason::Normal);
        poll("the second temporary child's spec is gone", || async {
            ids(&sup).await == ["perm"]
        })
        .await;
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());
    });
}

#[test]
fn brutal_kill_child_ends_killed() {
    run(|mut p| async move {
        let t = p.pid();
        let sup = Supervisor::new(Strategy::OneForOne)
            .child(trapping_worker("b", t).shutdown(Shutdown::BrutalKill))
            .start_link()
            .await
            .expect("the supervisor starts");
        let b = started(&mut p, "b").await;
        p.monitor(b.id());
        sup.terminate_child("b").await.expect("terminates");
        assert_eq!(down(&mut p, b.id()).await, ExitReason::Killed);
        assert!(!mote::is_alive(b.id()));
        assert_eq!(pid_of(&sup, "b").await, None);
        // No terminate for an untrappable kill.
        assert!(p
            .recv_matching_timeout(|m| matches!(m, TMsg::Terminated(..)), Duration::ZERO)
            .await
            .is_none());
    });
}

/// A raw child that traps exits and ignores every exit signal it is sent.
async fn stubborn(mut c: Process<Exit>, t: Pid<TMsg>) {
    c.trap_exit(true);
    t.send(TMsg::Raw(c.id()));
    loop {
        let _ignored = c.recv().await;
    }
}

#[test]
fn timeout_shutdown_kills_a_child_that_ignores_it() {
    run(|mut p| async move {
        let t = p.pid();
        let spec = ChildSpec::new("stubborn", move || async move {
            let pid = SpawnOptions::new()
                .linked()
                .spawn(move |c: Process<Exit>| stubborn(c, t));
            Ok(pid.id())
        })
        .shutdown(Shutdown::Timeout(Duration::from_millis(50)));
        let sup = Supervisor::new(Strategy::OneForOne)
            .child(spec)
            .child(trapping_worker("polite", t))
            .start_link()
            .await
            .expect("the supervisor starts");
        let raw = match p
            .recv_matching_timeout(|m| matches!(m, TMsg::Raw(_)), WAIT)
            .await
        {
            Some(TMsg::Raw(pid)) => pid,
            _ => panic!("the stubborn child did not start"),
        };
        let polite = started(&mut p, "polite").await;
        assert_eq!(pid_of(&sup, "stubborn").await, Some(raw));

        // It traps the `shutdown` and goes on: killed after the grace.
        p.monitor(raw);
        sup.terminate_child("stubborn").await.expect("terminates");
        assert_eq!(down(&mut p, raw).await, ExitReason::Killed);
        assert_eq!(pid_of(&sup, "stubborn").await, None);

        // A trapping server obeys the `shutdown` from its parent, through its terminate.
        p.monitor(polite.id());
        sup.terminate_child("polite").await.expect("terminates");
        assert_eq!(terminated(&mut p, "polite").await, ExitReason::Shutdown);
        assert_eq!(down(&mut p, polite.id()).await, ExitReason::Shutdown);
    });
}

#[test]
fn a_failed_start_names_the_child_and_stops_those_started_before() {
    run(|mut p| async move {
        let t = p.pid();
        let bad = ChildSpec::new("bad", || async { Err(ExitReason::custom("no_db")) });
        let outcome = Supervisor::new(Strategy::OneForOne)
            .child(worker("a", t))
            .child(trapping_worker("b", t))
            .child(bad)
            .child(worker("after", t))
            .start_link()
            .await;
        let reason = match outcome {
            Err(StartError::Init(reason)) => reason,
            other => panic!("expected StartError::Init, got {other:?}"),
        };
        // Erlang's shape, from an OTP 25 `erl`: a supervisor whose child `db`'s start
        // function returns `{error, econnrefused}` makes `supervisor:start_link/2` return
        // `{error,{shutdown,{failed_to_start_child,db,econnrefused}}}`, and its linked
        // parent (trapping exits) receives
        // `{'EXIT',Sup,{shutdown,{failed_to_start_child,db,econnrefused}}}`.
        assert_eq!(
            reason.to_string(),
            "{shutdown,{failed_to_start_child,bad,no_db}}"
        );
        assert!(reason.is_shutdown());
        let a = started(&mut p, "a").await;
        let b = started(&mut p, "b").await;
        // Stopped before start_link returned: monitors say so at once or with `noproc`.
        for w in [a, b] {
            p.monitor(w.id());
            let r = down(&mut p, w.id()).await;
            assert!(
                r == ExitReason::Shutdown || r == ExitReason::NoProc,
                "{w:?} ended with {r:?}"
            );
            poll("the child is dead", || async { !mote::is_alive(w.id()) }).await;
        }
        // b traps exits: it was stopped through its terminate, last started first.
        assert_eq!(terminated(&mut p, "b").await, ExitReason::Shutdown);
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());
    });
}

#[test]
fn nested_tree_restarts_inside_the_inner_supervisor_then_the_subtree() {
    run(|mut p| async move {
        let t = p.pid();
        let inner = Supervisor::new(Strategy::OneForAll)
            .intensity(1, HOUR)
            .child(worker("a", t))
            .child(worker("b", t));
        let root = Supervisor::new(Strategy::OneForOne)
            .intensity(5, HOUR)
            .child(inner.into_child_spec("inner"))
            .child(worker("c", t))
            .start_link()
            .await
            .expect("the tree starts");
        let first = starts(&mut p, 3).await;
        let tags: Vec<&str> = first.iter().map(|s| s.0).collect();
        assert_eq!(tags, ["a", "b", "c"]);
        let (a, b, c) = (first[0].1, first[1].1, first[2].1);
        let children = root.which_children().await.unwrap();
        assert_eq!(children[0].kind, ChildKind::Supervisor);
        assert_eq!(children[0].restart, Restart::Permanent);
        let inner_pid = children[0].pid.expect("the inner supervisor runs");
        assert_eq!(children[1].pid, Some(c.id()));
        let counts = root.count_children().await.unwrap();
        assert_eq!((counts.supervisors, counts.workers), (1, 1));

        // Killing a: the inner one_for_all restarts a and b; c and the inner supervisor
        // keep their pids.
        for w in [a, b, c] {
            p.monitor(w.id());
        }
        p.monitor(inner_pid);
        mote::exit(a.id(), ExitReason::Kill);
        let second = starts(&mut p, 2).await;
        let tags: Vec<&str> = second.iter().map(|s| s.0).collect();
        assert_eq!(tags, ["a", "b"]);
        assert_eq!(down(&mut p, a.id()).await, ExitReason::Killed);
        assert_eq!(down(&mut p, b.id()).await, ExitReason::Shutdown);
        let children = root.which_children().await.unwrap();
        assert_eq!(children[0].pid, Some(inner_pid));
        assert_eq!(children[1].pid, Some(c.id()));
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());
        assert!(mote::is_alive(c.id()));

        // Killing a again is one restart too many for the inner supervisor (1 per hour): it
        // gives up, and the root restarts it with a new pid and fresh children.
        let (a2, b2) = (second[0].1, second[1].1);
        p.monitor(a2.id());
        p.monitor(b2.id());
        mote::exit(a2.id(), ExitReason::Kill);
        assert_eq!(down(&mut p, inner_pid).await, ExitReason::Shutdown);
        assert_eq!(down(&mut p, b2.id()).await, ExitReason::Shutdown);
        let third = starts(&mut p, 2).await;
        let tags: Vec<&str> = third.iter().map(|s| s.0).collect();
        assert_eq!(tags, ["a", "b"]);
        for (_, w) in &third {
            assert!(![a, b, a2, b2].contains(w), "{w:?} is fresh");
        }
        let children = root.which_children().await.unwrap();
        let new_inner = children[0].pid.expect("the inner supervisor was restarted");
        assert_ne!(new_inner, inner_pid);
        assert_eq!(children[1].pid, Some(c.id()));
        assert!(mote::is_alive(c.id()));
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());

        // `normal`: the test process is its parent and does not trap exits.
        root.stop(ExitReason::Normal, WAIT)
            .await
            .expect("the tree stops");
        assert_eq!(down(&mut p, c.id()).await, ExitReason::Shutdown);
        for (_, w) in &third {
            assert!(!mote::is_alive(w.id()));
        }
    });
}

#[test]
fn dynamic_supervisor_children() {
    run(|mut p| async move {
        let t = p.pid();
        let sup = DynamicSupervisor::new()
            .max_children(3)
            .intensity(10, HOUR)
            .start_link()
            .await
            .expect("the dynamic supervisor starts");
        assert!(sup.which_children().await.unwrap().is_empty());

        // Two children of one spec: ids need not be unique.
        let spec = worker("w", t);
        let w1 = sup.start_child(spec.clone()).await.expect("starts");
        let w2 = sup.start_child(spec.clone()).await.expect("starts");
        assert_eq!(started(&mut p, "w").await.id(), w1);
        assert_eq!(started(&mut p, "w").await.id(), w2);

        // A permanent child that dies is restarted with a new pid; its sibling of the same
        // spec is left alone.
        p.monitor(w2);
        mote::exit(w2, ExitReason::Kill);
        assert_eq!(down(&mut p, w2).await, ExitReason::Killed);
        let w2b = started(&mut p, "w").await.id();
        assert_ne!(w2b, w2);
        let pids: Vec<Option<ProcessId>> = sup
            .which_children()
            .await
            .unwrap()
            .iter()
            .map(|c| c.pid)
            .collect();
        assert!(pids.contains(&Some(w1)), "{pids:?}");
        assert!(pids.contains(&Some(w2b)), "{pids:?}");
        assert_eq!(pids.len(), 2);
        assert!(mote::is_alive(w1));
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());

        // max_children.
        let tmp = sup
            .start_child(worker("tmp", t).restart(Restart::Temporary))
            .await
            .expect("the third child starts");
        let tmp_ref = started(&mut p, "tmp").await;
        assert_eq!(tmp_ref.id(), tmp);
        assert_eq!(
            sup.start_child(spec.clone()).await,
            Err(SupervisorError::MaxChildren(3))
        );
        let counts = sup.count_children().await.unwrap();
        assert_eq!(
            (
                counts.specs,
                counts.active,
                counts.workers,
                counts.supervisors
            ),
            (3, 3, 3, 0)
        );
        let which = sup.which_children().await.unwrap();
        assert_eq!(which.len(), 3);
        assert_eq!(which[2].pid, Some(tmp));
        assert_eq!(which[2].restart, Restart::Temporary);

        // A temporary child that ends is forgotten, not restarted.
        tmp_ref.cast(ExitReason::custom("crash"));
        poll("the temporary child is forgotten", || async {
            sup.which_children().await.unwrap().len() == 2
        })
        .await;
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());

        // terminate_child by pid.
        p.monitor(w1);
        sup.terminate_child(w1).await.expect("terminates");
        assert_eq!(down(&mut p, w1).await, ExitReason::Shutdown);
        let which = sup.which_children().await.unwrap();
        assert_eq!(which.len(), 1);
        assert_eq!(which[0].pid, Some(w2b));
        assert!(matches!(
            sup.terminate_child(w1).await,
            Err(SupervisorError::NotFound(_))
        ));
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());

        // Room again.
        sup.start_child(spec).await.expect("a new child fits");
        started(&mut p, "w").await;
        assert_eq!(sup.count_children().await.unwrap().active, 2);

        sup.stop(ExitReason::Normal, WAIT).await.expect("stops");
        assert_eq!(
            sup.start_child(worker("late", t)).await,
            Err(SupervisorError::Call(CallError::NoProc))
        );
        assert_eq!(
            sup.terminate_child(w2b).await,
            Err(SupervisorError::Call(CallError::NoProc))
        );
        assert_eq!(sup.count_children().await, Err(CallError::NoProc));
        assert!(!mote::is_alive(w2b));
    });
}

#[test]
fn child_api_errors() {
    run(|mut p| async move {
        let t = p.pid();
        let sup = Supervisor::new(Strategy::OneForOne)
            .child(worker("a", t))
            .start_link()
            .await
            .expect("the supervisor starts");
        let a = started(&mut p, "a").await.id();
        let nf = |id: &str| Err(SupervisorError::NotFound(id.into()));
        assert_eq!(sup.terminate_child("zz").await, nf("zz"));
        assert_eq!(
            sup.restart_child("zz").await,
            Err(SupervisorError::NotFound("zz".into()))
        );
        assert_eq!(sup.delete_child("zz").await, nf("zz"));
        let running = |id: &str| SupervisorError::Running(id.into());
        assert_eq!(sup.restart_child("a").await, Err(running("a")));
        assert_eq!(sup.delete_child("a").await, Err(running("a")));
        // OTP 25: `supervisor:start_child(S, Spec)` with the id of a running child answers
        // `{error, {already_started, Pid}}`; of a child that is not running,
        // `{error, already_present}` (checked below, after the terminate).
        assert_eq!(
            sup.start_child(worker("a", t)).await,
            Err(SupervisorError::AlreadyStarted(a))
        );
        // Nothing of that touched a.
        assert_eq!(pid_of(&sup, "a").await, Some(a));
        assert_eq!(queued_starts(&mut p).await, Vec::<&str>::new());

        // A stopped child: restarted by hand, then deleted.
        sup.terminate_child("a").await.expect("terminates");
        assert!(!mote::is_alive(a));
        assert_eq!(
            sup.terminate_child("a").await,
            Ok(()),
            "already stopped: ok"
        );
        assert_eq!(
            sup.start_child(worker("a", t)).await,
            Err(SupervisorError::AlreadyPresent("a".into()))
        );
        let a2 = sup.restart_child("a").await.expect("restarts");
        assert_eq!(started(&mut p, "a").await.id(), a2);
        assert_ne!(a2, a);
        sup.terminate_child("a").await.expect("terminates");
        sup.delete_child("a").await.expect("deletes");
        assert_eq!(sup.delete_child("a").await, nf("a"));
        assert!(ids(&sup).await.is_empty());

        // A duplicate in the initial list is refused.
        let dup = Supervisor::new(Strategy::OneForOne)
            .child(worker("x", t))
            .child(worker("x", t))
            .start_link()
            .await;
        // Erlang (OTP 25 `erl`): `{error,{start_spec,{duplicate_child_name,x}}}`.
        match dup {
            Err(StartError::Init(r)) => {
                assert_eq!(r.to_string(), "{start_spec,{duplicate_child_name,x}}")
            }
            other => panic!("expected StartError::Init, got {other:?}"),
        }

        // A start function that fails: StartFailed with its reason, and the spec is not
        // kept. (Erlang's `start_child` returns `{error,{econnrefused,ChildRecord}}` for a
        // start function returning `{error,econnrefused}`: the same reason, beside
        // supervisor internals mote does not expose.)
        let failing = ChildSpec::new("f", || async {
            let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
            Err(ExitReason::from(refused))
        });
        assert_eq!(
            sup.start_child(failing).await,
            Err(SupervisorError::StartFailed(ExitReason::custom(
                "econnrefused"
            )))
        );
        assert!(ids(&sup).await.is_empty());

        // A dead supervisor.
        let id = sup.id();
        sup.stop(ExitReason::Normal, WAIT).await.expect("stops");
        assert!(!mote::is_alive(id));
        let noproc = Err(SupervisorError::Call(CallError::NoProc));
        assert_eq!(sup.terminate_child("a").await, noproc);
        assert_eq!(sup.restart_child("a").await, noproc.clone().map(|()| a));
        assert_eq!(sup.delete_child("a").await, noproc);
        assert_eq!(
            sup.start_child(worker("b", t)).await,
            noproc.clone().map(|()| a)
        );
        assert_eq!(sup.which_children().await, Err(CallError::NoProc));
        assert_eq!(sup.count_children().await, Err(CallError::NoProc));
    });
}

// ---------------------------------------------------------------------------------------
// Ignored children and the child API in every state of a child, as OTP 25 answers. The
// Erlang side is a supervisor `sup` (one_for_one) whose child start functions are
// `start_ignore() -> ignore`, `start_worker() -> {ok, spawn_link(...)}`.
// ---------------------------------------------------------------------------------------

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use mote::server::Init;
use mote::supervisor::ChildCounts;

/// A server child whose `init` answers ignore while `on` is false.
struct Switch {
    t: Pid<TMsg>,
    on: Arc<AtomicBool>,
}

impl Server for Switch {
    type Call = ();
    type Reply = ();
    type Cast = ExitReason;
    type Info = ();

    async fn init_full(&mut self, ctx: &mut Context<Self>) -> Init {
        if !self.on.load(Ordering::SeqCst) {
            return Init::Ignore;
        }
        self.t.send(TMsg::Raw(ctx.id()));
        Init::Ok
    }

    async fn handle_cast(&mut self, reason: ExitReason, _: &mut Context<Self>) -> Next {
        Next::Stop(reason)
    }
}

fn switch(tag: &'static str, t: Pid<TMsg>, on: &Arc<AtomicBool>) -> ChildSpec {
    let on = Arc::clone(on);
    ChildSpec::server(tag, move || Switch {
        t,
        on: Arc::clone(&on),
    })
}

/// The next `Raw` start report, within [`WAIT`].
async fn switched_on(p: &mut Process<TMsg>) -> ProcessId {
    match p
        .recv_matching_timeout(|m| matches!(m, TMsg::Raw(_)), WAIT)
        .await
    {
        Some(TMsg::Raw(pid)) => pid,
        _ => panic!("no Switch started within {WAIT:?}"),
    }
}

fn counts(specs: usize, active: usize, supervisors: usize, workers: usize) -> ChildCounts {
    ChildCounts {
        specs,
        active,
        supervisors,
        workers,
    }
}

/// ```erlang
/// init(static) -> {ok, {#{strategy => one_for_one},
///     [#{id => p, start => {sup3, ig, []}},
///      #{id => t, start => {sup3, ig, []}, restart => temporary}]}}.
/// supervisor:which_children(S).   % [{p, undefined, worker, [sup3]}]: the temporary is gone
/// supervisor:start_child(S, spec(ig, start_ignore, permanent)).   % {ok, undefined}
/// supervisor:start_child(S, spec(igt, start_ignore, temporary)).  % {ok, undefined}
/// supervisor:which_children(S).   % only ig is listed, with pid undefined
/// supervisor:start_child(S, spec(ig, start_ignore, permanent)).   % {error, already_present}
/// supervisor:restart_child(S, ig).      % {ok, undefined}: ignored again
/// supervisor:terminate_child(S, ig).    % ok
/// supervisor:delete_child(S, ig).       % ok
/// ```
#[test]
fn a_child_whose_start_answers_ignore_is_kept_with_no_pid() {
    run(|p| async move {
        let t = p.pid();
        let off = Arc::new(AtomicBool::new(false));
        let sup = Supervisor::new(Strategy::OneForOne)
            .child(switch("p", t, &off))
            .child(switch("t", t, &off).restart(Restart::Temporary))
            .start_link()
            .await
            .expect("the supervisor starts");
        assert_eq!(ids(&sup).await, ["p"]);
        assert_eq!(pid_of(&sup, "p").await, None);
        assert_eq!(
            sup.start_child(switch("ig", t, &off)).await,
            Ok(ProcessId::NONE)
        );
        let temporary = switch("igt", t, &off).restart(Restart::Temporary);
        assert_eq!(sup.start_child(temporary).await, Ok(ProcessId::NONE));
        assert_eq!(ids(&sup).await, ["p", "ig"]);
        assert_eq!(sup.count_children().await.unwrap(), counts(2, 0, 0, 2));
        assert_eq!(
            sup.start_child(switch("ig", t, &off)).await,
            Err(SupervisorError::AlreadyPresent("ig".into()))
        );
        assert_eq!(sup.restart_child("ig").await, Ok(ProcessId::NONE));
        assert_eq!(sup.terminate_child("ig").await, Ok(()));
        assert_eq!(sup.delete_child("ig").await, Ok(()));
        assert_eq!(ids(&sup).await, ["p"]);
    })
}

/// OTP: `supervisor:restart_child(S, ig)` on an ignored child whose start now succeeds
/// answers `{ok, Pid}`; the child then runs like any other (`{error, running}` to a second
/// restart, counted as active).
#[test]
fn an_ignored_child_can_be_restarted_later() {
    run(|mut p| async move {
        let t = p.pid();
        let on = Arc::new(AtomicBool::new(false));
        let sup = Supervisor::new(Strategy::OneForOne)
            .child(switch("late", t, &on))
            .start_link()
            .await
            .expect("the supervisor starts");
        assert_eq!(sup.count_children().await.unwrap(), counts(1, 0, 0, 1));
        on.store(true, Ordering::SeqCst);
        let pid = sup.restart_child("late").await.expect("restarts");
        assert_eq!(switched_on(&mut p).await, pid);
        assert_eq!(pid_of(&sup, "late").await, Some(pid));
        assert_eq!(sup.count_children().await.unwrap(), counts(1, 1, 0, 1));
        assert_eq!(
            sup.restart_child("late").await,
            Err(SupervisorError::Running("late".into()))
        );
        assert_eq!(
            sup.start_child(switch("late", t, &on)).await,
            Err(SupervisorError::AlreadyStarted(pid))
        );
    })
}

/// ```erlang
/// start() -> case persistent_term:get(sup2_n, 0) of
///              0 -> persistent_term:put(sup2_n, 1), {ok, spawn_link(...)};
///              _ -> ignore end.
/// {ok, W} = supervisor:start_child(S, #{id => w, start => {sup2, start, []}}),
/// W ! boom.   % the restart answers ignore:
/// supervisor:which_children(S).   % [{w, undefined, worker, [sup2]}]
/// supervisor:count_children(S).   % [{specs,1}, {active,0}, {supervisors,0}, {workers,1}]
/// ```
#[test]
fn a_restart_that_answers_ignore_keeps_the_child_with_no_pid() {
    run(|mut p| async move {
        let t = p.pid();
        let on = Arc::new(AtomicBool::new(true));
        let sup = Supervisor::new(Strategy::OneForOne)
            .intensity(10, HOUR)
            .start_link()
            .await
            .expect("the supervisor starts");
        let w = sup.start_child(switch("w", t, &on)).await.unwrap();
        assert_eq!(switched_on(&mut p).await, w);
        on.store(false, Ordering::SeqCst);
        p.monitor(w);
        mote::exit(w, ExitReason::custom("boom"));
        assert_eq!(down(&mut p, w).await, ExitReason::custom("boom"));
        poll("the restart has been tried", || async {
            pid_of(&sup, "w").await.is_none()
        })
        .await;
        assert_eq!(sup.count_children().await.unwrap(), counts(1, 0, 0, 1));
        assert!(mote::is_alive(sup.id()));
    })
}

/// ```erlang
/// init(dyn) -> {ok, {#{strategy => simple_one_for_one},
///                    [#{id => d, start => {sup3, ig, []}}]}}.
/// supervisor:start_child(D, []).   % {ok, undefined}
/// supervisor:which_children(D).    % []: nothing kept
/// ```
#[test]
fn a_dynamic_supervisor_keeps_no_ignored_child() {
    run(|p| async move {
        let off = Arc::new(AtomicBool::new(false));
        let sup = DynamicSupervisor::new()
            .start_link()
            .await
            .expect("the supervisor starts");
        let r = sup.start_child(switch("d", p.pid(), &off)).await;
        assert_eq!(r, Ok(ProcessId::NONE));
        assert_eq!(sup.count_children().await.unwrap().specs, 0);
    })
}

/// The rest of the table, OTP 25's answers (child `w` a running worker):
///
/// ```erlang
/// supervisor:count_children(S).      % [{specs,1},{active,1},{supervisors,0},{workers,1}]
/// supervisor:terminate_child(S, w).  % ok
/// supervisor:which_children(S).      % [{w, undefined, worker, [sup]}]
/// supervisor:count_children(S).      % [{specs,1},{active,0},{supervisors,0},{workers,1}]
/// supervisor:terminate_child(S, w).  % ok (already terminated)
/// supervisor:delete_child(S, w).     % ok, then for an absent id:
/// supervisor:restart_child(S, w).    % {error, not_found}
/// supervisor:terminate_child(S, w).  % {error, not_found}
/// supervisor:delete_child(S, w).     % {error, not_found}
/// {ok, T} = supervisor:start_child(S, spec(t, start_worker, temporary)),
/// supervisor:terminate_child(S, t).  % ok, and t is no longer listed
/// ```
#[test]
fn child_api_answers_as_otp_for_running_terminated_and_absent_children() {
    run(|mut p| async move {
        let t = p.pid();
        let sup = Supervisor::new(Strategy::OneForOne)
            .start_link()
            .await
            .expect("the supervisor starts");
        let w = sup.start_child(worker("w", t)).await.unwrap();
        assert_eq!(started(&mut p, "w").await.id(), w);
        assert_eq!(sup.count_children().await.unwrap(), counts(1, 1, 0, 1));
        assert_eq!(sup.terminate_child("w").await, Ok(()));
        assert_eq!(pid_of(&sup, "w").await, None);
        assert_eq!(sup.count_children().await.unwrap(), counts(1, 0, 0, 1));
        assert_eq!(sup.terminate_child("w").await, Ok(()));
        assert_eq!(sup.delete_child("w").await, Ok(()));
        let nf = SupervisorError::NotFound("w".into());
        assert_eq!(sup.restart_child("w").await, Err(nf.clone()));
        assert_eq!(sup.terminate_child("w").await, Err(nf.clone()));
        assert_eq!(sup.delete_child("w").await, Err(nf));
        sup.start_child(worker("t", t).restart(Restart::Temporary))
            .await
            .unwrap();
        assert_eq!(sup.terminate_child("t").await, Ok(()));
        assert!(ids(&sup).await.is_empty());
    })
}
