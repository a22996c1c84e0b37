//! Conformance: the timer BIFs (`erlang:send_after/3`, `start_timer/3`, `read_timer/1`,
//! `cancel_timer/1,2`) against mote's timers, each checked first on a real BEAM (OTP 25,
//! `erl -noshell`). The Erlang snippet and what the BEAM answered are in the comment of
//! each test, in our words. (Cancelling before and after firing is case P24, in
//! `semantics_receive.rs`.)

use std::time::Duration;

use mote::{Process, TimerCancelled, TimerFired};

/// Generous bound on any wait: a hang becomes a failure.
const WAIT: Duration = Duration::from_secs(10);

/// Waits until `pid` has ended.
async fn ended(pid: mote::ProcessId) {
    let start = std::time::Instant::now();
    while mote::is_alive(pid) {
        assert!(start.elapsed() < WAIT, "{pid:?} did not end");
        mote::sleep(Duration::from_millis(1)).await;
    }
}

/// A timer to a process that is not alive is cancelled at once.
///
/// Erlang: `D = spawn(fun() -> ok end)`, then, once D has ended,
/// `T = erlang:send_after(1000, D, x)`: `read_timer(T)` and `cancel_timer(T)` both answer
/// `false`.
#[test]
fn timer_to_a_dead_pid_is_cancelled_at_once() {
    mote::run(|_p: Process<()>| async move {
        let dead = mote::spawn(|_d: Process<u8>| async {});
        ended(dead.id()).await;
        let t = mote::send_after(dead, 1, Duration::from_secs(1));
        assert_eq!(mote::read_timer(&t), None);
        assert_eq!(mote::cancel_timer(&t), None);
    })
    .unwrap();
}

/// A pending timer ends when its destination ends.
///
/// Erlang: `L` waits for `stop`; `T = erlang:send_after(1000, L, x)`; `read_timer(T)` is an
/// integer; then `L ! stop`, and after L has ended `read_timer(T)` and `cancel_timer(T)`
/// answer `false`.
#[test]
fn timer_ends_with_its_destination() {
    mote::run(|_p: Process<()>| async move {
        let l = mote::spawn(|mut l: Process<&'static str>| async move {
            l.recv().await;
        });
        let t = mote::send_after(l, "x", Duration::from_secs(1));
        assert!(mote::read_timer(&t).is_some());
        l.send("stop");
        ended(l.id()).await;
        assert_eq!(mote::read_timer(&t), None);
        assert_eq!(mote::cancel_timer(&t), None);
    })
    .unwrap();
}

/// The destination's exit drops the timer's message at once (it is not kept until the
/// timer's time), so whatever it owns is freed.
#[test]
fn a_dead_destination_frees_the_message_at_once() {
    struct Tracked(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    mote::run(|_p: Process<()>| async move {
        let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let l = mote::spawn(|mut l: Process<Option<Tracked>>| async move {
            l.recv().await;
        });
        let t = mote::send_after(l, Some(Tracked(dropped.clone())), Duration::from_secs(3600));
        l.send(None);
        ended(l.id()).await;
        // Dropped by the exit itself (just after the process stops being alive), with no
        // read of the timer needed.
        let start = std::time::Instant::now();
        while !dropped.load(std::sync::atomic::Ordering::SeqCst) && start.elapsed() < WAIT {
            mote::sleep(Duration::from_millis(1)).await;
        }
        assert!(dropped.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(mote::read_timer(&t), None);
    })
    .unwrap();
}

/// `start_timer` delivers `{timeout, Ref, Msg}` with the reference it returned.
///
/// Erlang: `T = erlang:start_timer(5, self(), ring)`, then `receive {timeout, R, ring}`:
/// `R =:= T` is `true`.
#[test]
fn start_timer_message_carries_its_reference() {
    mote::run(|mut p: Process<TimerFired<&'static str>>| async move {
        let other = mote::start_timer(p.pid(), "other", Duration::from_millis(50));
        let t = mote::start_timer(p.pid(), "ring", Duration::from_millis(5));
        let fired = p.recv_timeout(WAIT).await.expect("the timer fired");
        assert_eq!(
            fired,
            TimerFired {
                timer: t.id(),
                message: "ring"
            }
        );
        assert_ne!(fired.timer, other.id());
        let second = p.recv_timeout(WAIT).await.expect("the other timer fired");
        assert_eq!(second.timer, other.id());
    })
    .unwrap();
}

/// A timer to a name looks the name up when it fires, not when it starts.
///
/// Erlang: `T = erlang:send_after(20, later, seven)`, then `register(later, self())`: the
/// message arrives; `read_timer(T)` is then `false`.
#[test]
fn timer_to_a_name_resolves_when_it_fires() {
    mote::run(|mut p: Process<&'static str>| async move {
        let t = mote::send_after_named("later", "seven", Duration::from_millis(20)).unwrap();
        mote::register("later", p.pid()).unwrap();
        assert_eq!(p.recv_timeout(WAIT).await, Some("seven"));
        assert_eq!(mote::read_timer(&t), None);
    })
    .unwrap();
}

/// A timer to a name nobody holds when it fires drops its message silently.
///
/// Erlang: `T = erlang:send_after(5, nobody, x)`, wait 20 ms: no error anywhere,
/// `read_timer(T)` and `cancel_timer(T)` answer `false`, the mailbox is empty. `undefined`
/// is accepted as a destination too (`send_after(10, undefined, x)` returns a reference).
#[test]
fn timer_to_a_missing_name_drops_its_message() {
    mote::run(|mut p: Process<&'static str>| async move {
        let t = mote::send_after_named("nobody", "x", Duration::from_millis(5)).unwrap();
        let u = mote::send_after_named("undefined", "x", Duration::from_millis(5)).unwrap();
        mote::sleep(Duration::from_millis(20)).await;
        for t in [&t, &u] {
            assert_eq!(mote::read_timer(t), None);
            assert_eq!(mote::cancel_timer(t), None);
        }
        assert_eq!(p.try_recv(), None);
        let long = "n".repeat(256);
        assert!(mote::send_after_named(&long, "x", Duration::from_millis(5)).is_err());
    })
    .unwrap();
}

/// A named timer whose holder's mailbox takes another type drops its message too (mote's
/// typed mailboxes; Erlang has one message type).
#[test]
fn timer_to_a_name_of_another_type_drops_its_message() {
    mote::run(|mut p: Process<&'static str>| async move {
        mote::register("typed", p.pid()).unwrap();
        mote::send_after_named("typed", 5u64, Duration::from_millis(1)).unwrap();
        let t = mote::send_after_named("typed", "ok", Duration::from_millis(10)).unwrap();
        assert_eq!(p.recv_timeout(WAIT).await, Some("ok"));
        assert_eq!(mote::read_timer(&t), None);
        assert_eq!(p.try_recv(), None);
    })
    .unwrap();
}

/// `cancel_timer(T, [{async, true}, {info, true}])`.
///
/// Erlang: on a pending timer it returns `ok`, then `{cancel_timer, T, Left}` arrives with
/// an integer `Left`; on a timer that has fired (its `y` delivered) it returns `ok`, then
/// `{cancel_timer, T, false}` arrives after `y`, which stays in the mailbox.
#[test]
fn cancel_timer_async_sends_the_answer() {
    #[derive(Debug, PartialEq)]
    enum Msg {
        Y,
        Cancelled(TimerCancelled),
    }
    impl From<TimerCancelled> for Msg {
        fn from(c: TimerCancelled) -> Self {
            Msg::Cancelled(c)
        }
    }
    mote::run(|mut p: Process<Msg>| async move {
        let pending = mote::send_after(p.pid(), Msg::Y, Duration::from_secs(1));
        mote::cancel_timer_async(&pending, p.pid());
        match p.recv_timeout(WAIT).await {
            Some(Msg::Cancelled(c)) => {
                assert_eq!(c.timer, pending.id());
                assert!(c.left.is_some_and(|l| l <= Duration::from_secs(1)));
            }
            other => panic!("expected the cancel answer, got {other:?}"),
        }

        let fired = mote::send_after(p.pid(), Msg::Y, Duration::from_millis(1));
        assert_eq!(p.recv_timeout(WAIT).await, Some(Msg::Y));
        mote::cancel_timer_async(&fired, p.pid());
        assert_eq!(
            p.recv_timeout(WAIT).await,
            Some(Msg::Cancelled(TimerCancelled {
                timer: fired.id(),
                left: None
            }))
        );
        assert_eq!(p.try_recv(), None);
    })
    .unwrap();
}

/// `cancel_timer(T, [{info, false}])` and the async form without info: the timer is
/// cancelled, nothing is sent.
///
/// Erlang: both return `ok`; the mailbox stays empty and `read_timer(T)` is then `false`.
#[test]
fn cancel_without_info_cancels_quietly() {
    mote::run(|mut p: Process<u8>| async move {
        let t = mote::send_after(p.pid(), 1, Duration::from_millis(20));
        let _ = mote::cancel_timer(&t);
        assert_eq!(mote::read_timer(&t), None);
        assert_eq!(p.recv_timeout(Duration::from_millis(60)).await, None);
    })
    .unwrap();
}

/// A timer cancelled from another process than the one that started it.
#[test]
fn any_process_may_cancel_a_timer() {
    mote::run(|mut p: Process<u8>| async move {
        let t = mote::send_after(p.pid(), 1, Duration::from_secs(5));
        let me = p.pid();
        let t2 = t.clone();
        mote::spawn(move |_q: Process<()>| async move {
            let left = mote::cancel_timer(&t2);
            me.send(u8::from(left.is_some()));
        });
        assert_eq!(p.recv_timeout(WAIT).await, Some(1));
        assert_eq!(mote::read_timer(&t), None);
    })
    .unwrap();
}

/// Many timers to processes that die first: every one ends with its process (none fires,
/// none is left pending), and timers racing their destination's exit never deliver after
/// reporting cancelled.
#[test]
fn thousands_of_timers_end_with_their_destinations() {
    mote::run(|_p: Process<()>| async move {
        let mut timers = Vec::new();
        let mut pids = Vec::new();
        for _ in 0..10_000 {
            let pid = mote::spawn(|mut q: Process<u32>| async move {
                q.recv().await;
            });
            timers.push(mote::send_after(pid, 0, Duration::from_secs(3600)));
            pids.push(pid);
        }
        for pid in &pids {
            pid.send(1);
        }
        for pid in &pids {
            ended(pid.id()).await;
        }
        assert!(timers.iter().all(|t| mote::read_timer(t).is_none()));
        assert!(timers.iter().all(|t| mote::cancel_timer(t).is_none()));
    })
    .unwrap();
}
