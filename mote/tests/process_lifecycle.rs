//! Process lifecycle and robustness: panic isolation, registry races, monitors of dead and
//! stale pids, selective receive over many messages, bounded mailboxes, and the errors of
//! bad use. (The 100,000-process teardown lives alone in `teardown_100k.rs`, so that it can
//! compare `process_count()` with 0.)

mod common;

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use common::{wait_until, WAIT};
use mote::{
    Down, Exit, ExitReason, LinkError, Pid, Process, ProcessId, RegistryError, Signal,
    SpawnOptions, TrySendError,
};
use tokio::sync::Notify;

/// Receives the next message or fails the test after [`WAIT`].
async fn next<M: Send + 'static>(p: &mut Process<M>, what: &str) -> M {
    match p.recv_timeout(WAIT).await {
        Some(m) => m,
        None => panic!("no {what} within {WAIT:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Panic isolation
// ---------------------------------------------------------------------------------------

/// A value whose destructor panics (a process may hold one when it is killed).
struct PanicsOnDrop;

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("destructor panic");
        }
    }
}

fn crash(i: u32) {
    panic!("crash {i}")
}

#[test]
fn panic_isolation() {
    mote::run(|mut o: Process<Signal<u32>>| async move {
        let me = o.pid();
        // A bystander: echoes numbers until it gets 0.
        let (echo, _) = o.spawn_monitor(move |mut b: Process<u32>| async move {
            loop {
                let n = b.recv().await;
                if n == 0 {
                    return;
                }
                me.send(Signal::Msg(n));
            }
        });
        // 100 unlinked processes panic; each ends alone, with its own message.
        let mut crashed = std::collections::HashMap::new();
        for i in 0..100u32 {
            let (pid, r) = o.spawn_monitor(move |_c: Process<()>| async move { crash(i) });
            crashed.insert(r, (pid.id(), i));
        }
        for _ in 0..100 {
            match next(&mut o, "DOWN of a crashed process").await {
                Signal::Down(d) => {
                    let (pid, i) = crashed.remove(&d.monitor).expect("one DOWN per monitor");
                    assert_eq!(d.pid, pid);
                    assert_eq!(d.reason, ExitReason::Panic(format!("crash {i}").into()));
                }
                other => panic!("expected a DOWN, got {other:?}"),
            }
        }
        // A process killed while holding a value whose destructor panics: it ends with
        // `killed`, and the scheduler thread survives the destructor's panic.
        let (holder, holder_ref) = o.spawn_monitor(|mut h: Process<()>| async move {
            let _guard = PanicsOnDrop;
            h.recv().await;
        });
        mote::exit(holder, ExitReason::Kill);
        match next(&mut o, "DOWN of the killed holder").await {
            Signal::Down(d) => assert_eq!((d.monitor, d.reason), (holder_ref, ExitReason::Killed)),
            other => panic!("expected a DOWN, got {other:?}"),
        }
        // The bystander is untouched and answers.
        assert!(mote::is_alive(echo));
        echo.send(7);
        assert!(matches!(next(&mut o, "echo").await, Signal::Msg(7)));
        // The runtime keeps spawning and running processes, on every worker.
        for i in 1..=1000u32 {
            mote::spawn(move |_c: Process<()>| async move { me.send(Signal::Msg(i)) });
        }
        let mut got = Vec::new();
        for _ in 0..1000 {
            match next(&mut o, "reply of a new process").await {
                Signal::Msg(i) => got.push(i),
                other => panic!("expected a reply, got {other:?}"),
            }
        }
        got.sort_unstable();
        assert!(got.iter().copied().eq(1..=1000));
        echo.send(0);
        match next(&mut o, "DOWN of the echo").await {
            Signal::Down(d) => assert_eq!((d.pid, d.reason), (echo.id(), ExitReason::Normal)),
            other => panic!("expected a DOWN, got {other:?}"),
        }
    })
    .unwrap();
    // A root process that panics is reported by `run`, and `run` keeps working after it.
    let crashed = mote::run(|_p: Process<()>| async { panic!("root crash") });
    assert_eq!(
        crashed,
        Err::<(), _>(ExitReason::Panic("root crash".into()))
    );
    assert_eq!(mote::run(|_p: Process<()>| async { 6 * 7 }), Ok(42));
}

/// A process woken by a message runs even while its sender computes without yielding,
/// when another scheduler thread is idle, as on the BEAM (2 schedulers, and preemption),
/// where B answers at once. mote queues a process woken from a scheduler thread in that
/// thread's one-task "run next" (LIFO) slot, which idle threads do not steal from; the
/// scheduler's watchdog moves it out within a few milliseconds of its waker's poll running
/// on, and wakes an idle thread for it. Without the watchdog B waits until W yields.
#[test]
fn woken_process_runs_while_its_waker_computes() {
    woken_process_runs_during_computation(false);
}

/// A computing process that calls `mote::yield_now` between steps lets the process it woke
/// run on the idle thread (at once, without the watchdog).
#[test]
fn woken_process_runs_when_its_waker_yields() {
    woken_process_runs_during_computation(true);
}

fn woken_process_runs_during_computation(yield_between_steps: bool) {
    if mote::worker_threads() < 2 {
        eprintln!(
            "skipped: needs 2 scheduler threads, have {}",
            mote::worker_threads()
        );
        return;
    }
    let ran = mote::run(|mut w: Process<()>| async move {
        let flag = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&flag);
        let me = w.pid();
        let b = mote::spawn(move |mut b: Process<()>| async move {
            me.send(());
            b.recv().await;
            seen.store(true, Ordering::SeqCst);
        });
        next(&mut w, "B started").await;
        wait_until("B waits in its receive", || {
            mote::process_info(b.id()).is_some_and(|i| i.status == mote::Status::Waiting)
        })
        .await;
        b.send(());
        // W computes without yielding until B has run, for at most 5 s: B runs within
        // milliseconds on an idle thread, and the generous bound keeps the test from
        // failing on a machine so loaded that the idle thread or the watchdog waits long
        // for a core (the other tests of this binary run at the same time).
        let until = Instant::now() + Duration::from_secs(5);
        while !flag.load(Ordering::SeqCst) && Instant::now() < until {
            if yield_between_steps {
                mote::yield_now().await;
            }
            std::hint::spin_loop();
        }
        flag.load(Ordering::SeqCst)
    })
    .unwrap();
    assert!(
        ran,
        "B did not run while W computed for 5 s, although a scheduler thread was idle"
    );
}

// ---------------------------------------------------------------------------------------
// Registry races
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
enum Race {
    Registered(ProcessId, Result<(), RegistryError>),
    Down(Down),
}

impl From<Down> for Race {
    fn from(d: Down) -> Self {
        Race::Down(d)
    }
}

/// Two processes register one name at the same moment, many rounds: exactly one wins, the
/// other gets `NameTaken` naming the winner; when both have ended the name is free again.
#[test]
fn registry_race_two_processes() {
    const NAME: &str = "lifecycle_race";
    const ROUNDS: usize = 200;
    mote::run(|mut o: Process<Race>| async move {
        for round in 0..ROUNDS {
            let ready = Arc::new(AtomicUsize::new(0));
            let me = o.pid();
            let mut racers = Vec::new();
            for _ in 0..2 {
                let ready = Arc::clone(&ready);
                let (pid, _) = o.spawn_monitor(move |mut c: Process<()>| async move {
                    // Both start together: each spins until the other has arrived too
                    // (boundedly: if both share one scheduler thread, the first one cannot
                    // wait for the second and goes ahead after 5 ms).
                    ready.fetch_add(1, Ordering::AcqRel);
                    let until = Instant::now() + Duration::from_millis(5);
                    while ready.load(Ordering::Acquire) < 2 && Instant::now() < until {
                        std::hint::spin_loop();
                    }
                    let r = mote::register(NAME, c.pid());
                    me.send(Race::Registered(c.id(), r));
                    c.recv().await; // stays alive, holding the name if it won
                });
                racers.push(pid);
            }
            let mut results = Vec::new();
            for _ in 0..2 {
                match next(&mut o, "register result").await {
                    Race::Registered(id, r) => results.push((id, r)),
                    other => panic!("round {round}: expected a result, got {other:?}"),
                }
            }
            let winners: Vec<ProcessId> = results
                .iter()
                .filter(|(_, r)| r.is_ok())
                .map(|(id, _)| *id)
                .collect();
            assert_eq!(
                winners.len(),
                1,
                "round {round}: exactly one winner, got {results:?}"
            );
            let winner = winners[0];
            for (id, r) in &results {
                if *id != winner {
                    assert_eq!(
                        r,
                        &Err(RegistryError::NameTaken {
                            name: NAME.into(),
                            owner: winner
                        }),
                        "round {round}: the loser is told who owns the name"
                    );
                    assert_eq!(mote::registered_name(*id), None, "round {round}");
                }
            }
            assert_eq!(mote::whereis(NAME), Some(winner), "round {round}");
            assert_eq!(
                mote::registered_name(winner).as_deref(),
                Some(NAME),
                "round {round}"
            );
            for pid in &racers {
                pid.send(());
            }
            for _ in 0..2 {
                match next(&mut o, "DOWN of a racer").await {
                    Race::Down(d) => assert_eq!(d.reason, ExitReason::Normal, "round {round}"),
                    other => panic!("round {round}: expected a DOWN, got {other:?}"),
                }
            }
            assert_eq!(
                mote::whereis(NAME),
                None,
                "round {round}: the name is released on death"
            );
        }
    })
    .unwrap();
}

/// The same race with true parallelism: two OS threads released by a barrier register two
/// live processes under one name. Exactly one wins each round.
#[test]
fn registry_race_two_threads() {
    const NAME: &str = "lifecycle_race_threads";
    let a: Pid<()> = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
    let b: Pid<()> = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
    for round in 0..300 {
        let barrier = Barrier::new(2);
        let (ra, rb) = std::thread::scope(|s| {
            let ta = s.spawn(|| {
                barrier.wait();
                mote::register(NAME, a)
            });
            let tb = s.spawn(|| {
                barrier.wait();
                mote::register(NAME, b)
            });
            (ta.join().unwrap(), tb.join().unwrap())
        });
        let (winner, loser_result) = match (&ra, &rb) {
            (Ok(()), Err(e)) => (a.id(), e.clone()),
            (Err(e), Ok(())) => (b.id(), e.clone()),
            _ => panic!("round {round}: exactly one winner expected, got {ra:?} and {rb:?}"),
        };
        assert_eq!(
            loser_result,
            RegistryError::NameTaken {
                name: NAME.into(),
                owner: winner
            },
            "round {round}"
        );
        assert_eq!(mote::whereis(NAME), Some(winner), "round {round}");
        mote::unregister(NAME).unwrap();
        assert_eq!(
            mote::registered_name(winner),
            None,
            "round {round}: unregister clears the name"
        );
    }
    a.send(());
    b.send(());
}

// ---------------------------------------------------------------------------------------
// Monitors of dead and stale pids
// ---------------------------------------------------------------------------------------

#[test]
fn monitor_dead_pid() {
    mote::run(|mut o: Process<Signal<u64>>| async move {
        let d: Pid<u64> = mote::spawn(|_d: Process<u64>| async {});
        wait_until("D has ended", || !mote::is_alive(d)).await;
        // A monitor of a dead pid returns a reference and delivers `noproc` (P11).
        let r = o.monitor(d);
        match next(&mut o, "DOWN noproc").await {
            Signal::Down(down) => assert_eq!(
                down,
                Down {
                    monitor: r,
                    pid: d.id(),
                    reason: ExitReason::NoProc,
                    by_name: None,
                }
            ),
            other => panic!("expected a DOWN, got {other:?}"),
        }
        // The monitor is not active any more.
        assert!(!o.demonitor_info(r));
        assert_eq!(o.try_recv().map(|_| ()), None, "exactly one DOWN");

        // A stale pid never reaches a newer process that reuses its table entry (rustdoc of
        // `ProcessId`: "once the process is gone the serial no longer matches, so the id can
        // never reach a newer process that reuses the entry").
        let me = o.pid();
        let mut occupants = Vec::new();
        for _ in 0..1000 {
            let (pid, _) = o.spawn_monitor(move |mut c: Process<u64>| async move {
                loop {
                    let n = c.recv().await;
                    if n == u64::MAX {
                        return;
                    }
                    me.send(Signal::Msg(n)); // a message that reached it
                }
            });
            occupants.push(pid);
        }
        let reused = occupants.iter().any(|p| p.id().number() == d.id().number());
        assert!(!mote::is_alive(d));
        d.send(42); // to the dead D: dropped
        assert!(matches!(d.try_send(43), Err(TrySendError::Dead(43))));
        let r2 = o.monitor(d);
        match next(&mut o, "second DOWN noproc").await {
            Signal::Down(down) => assert_eq!((down.monitor, down.reason), (r2, ExitReason::NoProc)),
            other => panic!("expected a DOWN, got {other:?}"),
        }
        // Stop the occupants (after the stale sends, from the same sender): anything the
        // stale sends delivered would be forwarded before their DOWNs.
        for pid in &occupants {
            pid.send(u64::MAX);
        }
        for _ in 0..occupants.len() {
            match next(&mut o, "DOWN of an occupant").await {
                Signal::Down(down) => assert_eq!(down.reason, ExitReason::Normal),
                Signal::Msg(n) => {
                    panic!("a message sent to the dead pid reached a newer process: {n}")
                }
                Signal::Exit(e) => panic!("unexpected {e:?}"),
            }
        }
        if !reused {
            eprintln!("note: D's table entry was not reused by the 1000 new processes");
        }
        reused
    })
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// Selective receive ordering with many messages
// ---------------------------------------------------------------------------------------

#[test]
fn selective_receive_many_messages() {
    const N: u32 = 10_000;
    mote::run(|mut a: Process<u32>| async move {
        let me = a.pid();
        for i in 0..N {
            me.send(i);
        }
        // A second batch arrives while A is busy with selective receives.
        mote::spawn(move |_s: Process<()>| async move {
            for i in N..2 * N {
                me.send(i);
            }
        });
        // A pattern that matches nothing, `after 0`, leaves everything in place.
        assert_eq!(
            a.recv_matching_timeout(|&m| m == u32::MAX, Duration::ZERO)
                .await,
            None
        );
        // Every multiple of 7, in order (some of them not yet sent when asked for).
        let mut sevens = Vec::new();
        for _ in (0..2 * N).filter(|i| i % 7 == 0) {
            match a.recv_matching_timeout(|&m| m % 7 == 0, WAIT).await {
                Some(m) => sevens.push(m),
                None => panic!("missing multiples of 7 after {}", sevens.len()),
            }
        }
        assert!(sevens.iter().copied().eq((0..2 * N).filter(|i| i % 7 == 0)));
        // Then every multiple of 5 that is left, in order.
        let mut fives = Vec::new();
        while let Some(m) = a
            .recv_matching_timeout(|&m| m % 5 == 0, Duration::ZERO)
            .await
        {
            fives.push(m);
        }
        assert!(fives
            .iter()
            .copied()
            .eq((0..2 * N).filter(|i| i % 5 == 0 && i % 7 != 0)));
        // The rest, in send order.
        let mut rest = Vec::new();
        while let Some(m) = a.try_recv() {
            rest.push(m);
        }
        assert!(rest
            .iter()
            .copied()
            .eq((0..2 * N).filter(|i| i % 5 != 0 && i % 7 != 0)));
        assert_eq!(a.mailbox_len(), 0);
    })
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// Bounded mailboxes
// ---------------------------------------------------------------------------------------

#[derive(Debug, PartialEq, Eq)]
enum Rep {
    Got(u32),
    Sent,
    Down(ExitReason),
}

impl From<Down> for Rep {
    fn from(d: Down) -> Self {
        Rep::Down(d.reason)
    }
}

/// A bounded process that receives one message each time `gate` is notified, reports it to
/// `to`, and returns after receiving 0.
fn gated(bound: usize, gate: &Arc<Notify>, to: Pid<Rep>) -> Pid<u32> {
    let gate = Arc::clone(gate);
    SpawnOptions::new()
        .mailbox_bound(bound)
        .spawn(move |mut c: Process<u32>| async move {
            loop {
                gate.notified().await;
                let n = c.recv().await;
                to.send(Rep::Got(n));
                if n == 0 {
                    return;
                }
            }
        })
}

#[test]
fn bounded_mailbox_try_send_and_send_async() {
    mote::run(|mut o: Process<Rep>| async move {
        let gate = Arc::new(Notify::new());
        let child = gated(3, &gate, o.pid());
        o.monitor(child);
        for i in 1..=3 {
            assert_eq!(child.try_send(i), Ok(()));
        }
        assert_eq!(
            child.try_send(4),
            Err(TrySendError::Full(4)),
            "the 4th message does not fit"
        );
        gate.notify_one();
        assert_eq!(next(&mut o, "Got(1)").await, Rep::Got(1));
        assert_eq!(
            child.try_send(4),
            Ok(()),
            "a received message frees a place"
        );
        assert_eq!(child.try_send(5), Err(TrySendError::Full(5)));

        // send_async waits while the mailbox is full.
        let me = o.pid();
        mote::spawn(move |_s: Process<()>| async move {
            child.send_async(5).await;
            me.send(Rep::Sent);
        });
        assert_eq!(
            o.recv_timeout(Duration::from_millis(100)).await,
            None,
            "send_async must wait"
        );
        gate.notify_one();
        assert_eq!(next(&mut o, "Got(2)").await, Rep::Got(2));
        assert_eq!(next(&mut o, "Sent").await, Rep::Sent);
        for expected in 3..=5 {
            gate.notify_one();
            assert_eq!(next(&mut o, "Got").await, Rep::Got(expected));
        }
        child.send(0);
        gate.notify_one();
        assert_eq!(next(&mut o, "Got(0)").await, Rep::Got(0));
        assert_eq!(next(&mut o, "DOWN").await, Rep::Down(ExitReason::Normal));
        // A dead process: try_send gives the message back, send_async returns at once.
        assert_eq!(child.try_send(9), Err(TrySendError::Dead(9)));
        let quick = tokio::time::timeout(WAIT, child.send_async(9)).await;
        assert!(quick.is_ok(), "send_async to a dead process returns");
    })
    .unwrap();
}

/// Plain `send` is not limited by the bound ("Plain `Pid::send` never waits or fails and is
/// not limited"), and what it sends does not change the bound for `try_send`/`send_async`
/// senders ("A mailbox of at most 16 messages for senders that use
/// `send_async`/`try_send`"): once the plain messages have been received, an empty mailbox
/// of bound 2 takes exactly 2 `try_send`s.
#[test]
fn bounded_mailbox_plain_send_does_not_grow_the_bound() {
    mote::run(|mut o: Process<Rep>| async move {
        let gate = Arc::new(Notify::new());
        let child = gated(2, &gate, o.pid());
        for i in 1..=5 {
            child.send(i); // never fails, never waits
        }
        for i in 1..=5 {
            gate.notify_one();
            assert_eq!(
                next(&mut o, "Got").await,
                Rep::Got(i),
                "plain sends are all delivered, in order"
            );
        }
        let results: Vec<_> = (10..15).map(|i| child.try_send(i)).collect();
        let accepted = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(
            accepted, 2,
            "an empty mailbox of bound 2 takes 2 try_sends, got {results:?}"
        );
        // Drain and end the child.
        for _ in 0..accepted {
            gate.notify_one();
            assert!(matches!(next(&mut o, "Got").await, Rep::Got(_)));
        }
        child.send(0);
        gate.notify_one();
        assert_eq!(next(&mut o, "Got(0)").await, Rep::Got(0));
    })
    .unwrap();
}

/// The part of the check above that holds: plain sends beyond the bound are all delivered.
#[test]
fn bounded_mailbox_plain_send_is_not_limited() {
    mote::run(|mut o: Process<Rep>| async move {
        let gate = Arc::new(Notify::new());
        let child = gated(2, &gate, o.pid());
        for i in 1..=50 {
            child.send(i);
        }
        for i in 1..=50 {
            gate.notify_one();
            assert_eq!(next(&mut o, "Got").await, Rep::Got(i));
        }
        child.send(0);
        gate.notify_one();
        assert_eq!(next(&mut o, "Got(0)").await, Rep::Got(0));
    })
    .unwrap();
}

/// A sender waiting in `send_async` for room in a full mailbox returns as soon as the
/// receiver dies: the rustdoc promises "a dead process returns at once", and the wait is
/// for room that can never come.
#[test]
fn bounded_mailbox_send_async_returns_when_the_receiver_dies() {
    mote::run(|mut o: Process<Rep>| async move {
        let child = SpawnOptions::new()
            .mailbox_bound(1)
            .spawn(|_c: Process<u32>| std::future::pending::<()>());
        o.monitor(child);
        assert_eq!(child.try_send(1), Ok(()));
        let mut waiting = std::pin::pin!(child.send_async(2));
        let first = {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            waiting.as_mut().poll(&mut cx)
        };
        assert!(first.is_pending(), "the mailbox is full: send_async waits");
        mote::exit(child, ExitReason::Kill);
        assert_eq!(next(&mut o, "DOWN").await, Rep::Down(ExitReason::Killed));
        let returned = tokio::time::timeout(WAIT, waiting).await;
        assert!(returned.is_ok(), "send_async still waits on a dead process");
    })
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// Errors of bad use
// ---------------------------------------------------------------------------------------

#[test]
fn bad_use_errors() {
    mote::run(|mut o: Process<Signal<u32>>| async move {
        let dead: Pid<u32> = mote::spawn(|_d: Process<u32>| async {});
        wait_until("D has ended", || !mote::is_alive(dead)).await;

        // link/1 to a dead pid, not trapping: NoProc (Erlang: error noproc).
        assert_eq!(o.link(dead), Err(LinkError::NoProc));
        assert!(
            mote::process_info(o.id()).unwrap().links.is_empty(),
            "no half link left behind"
        );
        // ... trapping: Ok, and an Exit with reason noproc.
        o.trap_exit(true);
        assert_eq!(o.link(dead), Ok(()));
        match next(&mut o, "EXIT noproc").await {
            Signal::Exit(e) => assert_eq!(
                e,
                Exit {
                    from: dead.id(),
                    reason: ExitReason::NoProc
                }
            ),
            other => panic!("expected an EXIT, got {other:?}"),
        }
        o.trap_exit(false);

        // register a dead pid: NoProc, and the name stays free.
        assert_eq!(
            mote::register("lifecycle_dead", dead),
            Err(RegistryError::NoProc)
        );
        assert_eq!(mote::whereis("lifecycle_dead"), None);

        // lookup / send_named with the wrong message type: WrongType.
        mote::register("lifecycle_typed", o.pid()).unwrap();
        assert_eq!(
            mote::lookup::<String>("lifecycle_typed"),
            Err(RegistryError::WrongType {
                name: "lifecycle_typed".into(),
                expected: std::any::type_name::<String>(),
                actual: std::any::type_name::<Signal<u32>>(),
            })
        );
        assert!(matches!(
            mote::send_named("lifecycle_typed", 1u8),
            Err(RegistryError::WrongType { .. })
        ));
        assert_eq!(mote::lookup::<Signal<u32>>("lifecycle_typed"), Ok(o.pid()));

        // A second name for a named process: AlreadyNamed; a taken name: NameTaken.
        assert_eq!(
            mote::register("lifecycle_second", o.pid()),
            Err(RegistryError::AlreadyNamed("lifecycle_typed".into()))
        );
        let other: Pid<u32> = mote::spawn(|mut c: Process<u32>| async move {
            c.recv().await;
        });
        assert_eq!(
            mote::register("lifecycle_typed", other),
            Err(RegistryError::NameTaken {
                name: "lifecycle_typed".into(),
                owner: o.id()
            })
        );
        other.send(0);

        // send_named / lookup / unregister of a name nobody has: NotRegistered.
        assert_eq!(
            mote::send_named("lifecycle_nobody", Signal::Msg(1u32)),
            Err(RegistryError::NotRegistered("lifecycle_nobody".into()))
        );
        assert_eq!(
            mote::lookup::<u32>("lifecycle_nobody"),
            Err(RegistryError::NotRegistered("lifecycle_nobody".into()))
        );
        assert_eq!(
            mote::unregister("lifecycle_nobody"),
            Err(RegistryError::NotRegistered("lifecycle_nobody".into()))
        );
        mote::unregister("lifecycle_typed").unwrap();
        assert_eq!(mote::registered_name(o.id()), None);

        // Things that are silent on the BEAM are silent here: exit/2 and send to a dead pid,
        // unlink of a process that is not linked.
        mote::exit(dead, ExitReason::custom("boom"));
        dead.send(1);
        o.unlink(dead);
        assert_eq!(o.try_recv().map(|_| ()), None);
    })
    .unwrap();
}
