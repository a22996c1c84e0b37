//! `mote::pg`: join, leave, members (typed), multiple joins, removal of dead members,
//! which_groups. Groups are global: each test uses its own group names. Every wait is
//! bounded.

use std::time::{Duration, Instant};

use mote::pg::{self, PgError};
use mote::{Down, ExitReason, Pid, Process};

const WAIT: Duration = Duration::from_secs(5);

/// Polls `cond` until it holds or `WAIT` passes; returns whether it held.
async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !cond() {
        if start.elapsed() > WAIT {
            return false;
        }
        mote::sleep(Duration::from_millis(1)).await;
    }
    true
}

/// A process that waits for one message, then ends.
fn idle<M: Send + 'static>() -> Pid<M> {
    mote::spawn(|mut p: Process<M>| async move {
        p.recv().await;
    })
}

fn has_group(name: &str) -> bool {
    pg::which_groups().iter().any(|g| &**g == name)
}

#[test]
fn join_leave_members() {
    mote::run(|p: Process<u32>| async move {
        let a = idle::<u32>();
        let b = idle::<u32>();
        assert!(pg::members::<u32>("t-basic").is_empty());
        pg::join("t-basic", a).unwrap();
        pg::join("t-basic", p.pid()).unwrap();
        pg::join("t-basic", b).unwrap();
        assert_eq!(pg::members::<u32>("t-basic"), vec![a, p.pid(), b]);
        assert!(pg::leave("t-basic", p.pid()));
        assert_eq!(pg::members::<u32>("t-basic"), vec![a, b]);
        assert!(!pg::leave("t-basic", p.pid()), "not a member any more");
        assert!(!pg::leave("t-no-such-group", a));
        a.send(0);
        b.send(0);
    })
    .unwrap();
}

#[test]
fn joins_are_counted() {
    mote::run(|p: Process<()>| async move {
        let me = p.pid();
        pg::join("t-count", me).unwrap();
        pg::join("t-count", me).unwrap();
        pg::join("t-count", me).unwrap();
        assert_eq!(pg::members::<()>("t-count"), vec![me; 3]);
        assert!(pg::leave("t-count", me));
        assert_eq!(pg::members::<()>("t-count"), vec![me; 2]);
        assert!(pg::leave("t-count", me));
        assert!(pg::leave("t-count", me));
        assert!(pg::members::<()>("t-count").is_empty());
        assert!(!pg::leave("t-count", me));
    })
    .unwrap();
}

#[test]
fn members_are_typed() {
    mote::run(|p: Process<u32>| async move {
        let text = idle::<String>();
        pg::join("t-typed", p.pid()).unwrap();
        pg::join("t-typed", text).unwrap();
        assert_eq!(pg::members::<u32>("t-typed"), vec![p.pid()]);
        assert_eq!(pg::members::<String>("t-typed"), vec![text]);
        assert!(pg::members::<u64>("t-typed").is_empty());
        assert_eq!(pg::member_ids("t-typed"), vec![p.id(), text.id()]);
        text.send(String::new());
    })
    .unwrap();
}

#[test]
fn dead_members_are_removed() {
    mote::run(|mut p: Process<Down>| async move {
        let worker = idle::<u8>();
        let other = idle::<u8>();
        pg::join("t-dead-1", worker).unwrap();
        pg::join("t-dead-1", worker).unwrap();
        pg::join("t-dead-2", worker).unwrap();
        pg::join("t-dead-1", other).unwrap();
        p.monitor(worker);
        mote::exit(worker, ExitReason::Kill);
        let down = p.recv_timeout(WAIT).await.expect("the worker's Down");
        assert_eq!((down.pid, down.reason), (worker.id(), ExitReason::Killed));
        assert!(eventually(|| pg::members::<u8>("t-dead-1") == vec![other]).await);
        assert!(eventually(|| !has_group("t-dead-2")).await);
        // A normal end too.
        pg::join("t-dead-3", other).unwrap();
        p.monitor(other);
        other.send(0);
        let down = p.recv_timeout(WAIT).await.expect("the other's Down");
        assert_eq!(down.reason, ExitReason::Normal);
        assert!(eventually(|| !has_group("t-dead-1") && !has_group("t-dead-3")).await);
        assert!(!pg::leave("t-dead-1", other));
    })
    .unwrap();
}

#[test]
fn joining_a_dead_process_is_an_error() {
    mote::run(|mut p: Process<Down>| async move {
        let (gone, _) = p.spawn_monitor(|_c: Process<u8>| async {});
        p.recv_timeout(WAIT).await.expect("its Down");
        assert_eq!(pg::join("t-noproc", gone), Err(PgError::NoProc));
        assert!(pg::members::<u8>("t-noproc").is_empty());
        assert!(!has_group("t-noproc"));
    })
    .unwrap();
}

#[test]
fn a_member_that_left_everything_and_then_died_is_not_relisted() {
    mote::run(|mut p: Process<Down>| async move {
        let w = idle::<u8>();
        pg::join("t-left", w).unwrap();
        assert!(pg::leave("t-left", w));
        p.monitor(w);
        w.send(0);
        p.recv_timeout(WAIT).await.expect("its Down");
        // Joining again after its death fails; nothing was left behind.
        assert_eq!(pg::join("t-left", w), Err(PgError::NoProc));
        assert!(pg::members::<u8>("t-left").is_empty());
    })
    .unwrap();
}

#[test]
fn which_groups_lists_groups_with_members() {
    mote::run(|p: Process<()>| async move {
        let me = p.pid();
        pg::join("t-which-b", me).unwrap();
        pg::join("t-which-a", me).unwrap();
        let mine: Vec<String> = pg::which_groups()
            .iter()
            .filter(|g| g.starts_with("t-which-"))
            .map(|g| g.to_string())
            .collect();
        assert_eq!(mine, vec!["t-which-a", "t-which-b"], "sorted by name");
        pg::leave("t-which-a", me);
        assert!(!has_group("t-which-a"));
        assert!(has_group("t-which-b"));
    })
    .unwrap();
}

#[test]
fn works_from_outside_processes() {
    let w = idle::<u8>();
    pg::join("t-outside", w).unwrap();
    assert_eq!(pg::members::<u8>("t-outside"), vec![w]);
    assert!(pg::leave("t-outside", w));
    assert!(!has_group("t-outside"));
    w.send(0);
}
