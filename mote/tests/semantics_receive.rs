//! Conformance: selective receive, `after 0`, timers and message ordering (cases P22-P26 of
//! `mote/tests/conformance/README.md`), plus a few timer edge cases.

mod common;

use std::time::Duration;

use common::{wait_until, WAIT};
use mote::{Down, Pid, Process};

/// Renders a list of atoms: `[a,b,c]`.
fn list(items: &[&str]) -> String {
    format!("[{}]", items.join(","))
}

/// The messages of the receive cases: atoms, and O's step commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum M {
    Atom(&'static str),
    Step(u8),
}

/// Report of a case's process to O.
#[derive(Debug)]
enum Report {
    Tokens(Vec<String>),
    /// A has done its first step (P23: O sends `x` only after it).
    Ready,
    Down(Down),
}

impl From<Down> for Report {
    fn from(d: Down) -> Self {
        Report::Down(d)
    }
}

/// Spawns `body` as process A, monitored by O (a crash of A shows up as a `Down` instead of
/// its report).
fn spawn_a<F, Fut>(o: &mut Process<Report>, body: F) -> Pid<M>
where
    F: FnOnce(Process<M>, Pid<Report>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let me = o.pid();
    o.spawn_monitor(move |p: Process<M>| body(p, me)).0
}

async fn report(o: &mut Process<Report>) -> Vec<String> {
    match o.recv_timeout(WAIT).await {
        Some(Report::Tokens(t)) => t,
        Some(Report::Down(d)) => panic!("A ended with {:?} before reporting", d.reason),
        Some(Report::Ready) => panic!("unexpected Ready"),
        None => panic!("no report from A within {WAIT:?}"),
    }
}

#[test]
fn p22_selective_receive_order() {
    let line = mote::run(|mut o: Process<Report>| async move {
        let a = spawn_a(&mut o, |mut p, o| async move {
            wait_until("a, b and c are in A's mailbox", || p.mailbox_len() == 3).await;
            // The matcher sees the mailbox oldest first; what it is shown before it accepts
            // `c` is the whole mailbox (A.mbox_before).
            let mut seen = Vec::new();
            let first = p
                .recv_matching(|m| {
                    seen.push(*m);
                    *m == M::Atom("c")
                })
                .await;
            let second = p.recv_timeout(WAIT).await.expect("a");
            let third = p.recv_timeout(WAIT).await.expect("b");
            let after = p.try_recv();
            let name = |m: M| match m {
                M::Atom(s) => s,
                M::Step(_) => "step",
            };
            let before: Vec<&str> = seen.into_iter().map(name).collect();
            o.send(Report::Tokens(vec![
                format!("A.mbox_before={}", list(&before)),
                format!(
                    "received={}",
                    list(&[name(first), name(second), name(third)])
                ),
                format!(
                    "A.mbox_after={}",
                    list(&after.into_iter().map(name).collect::<Vec<_>>())
                ),
            ]));
        });
        for atom in ["a", "b", "c"] {
            a.send(M::Atom(atom));
        }
        format!(
            "CASE P22-selective-receive-order {}",
            report(&mut o).await.join(" ")
        )
    })
    .unwrap();
    assert_eq!(
        line,
        "CASE P22-selective-receive-order A.mbox_before=[a,b,c] received=[c,a,b] A.mbox_after=[]"
    );
}

#[test]
fn p23_receive_after_0() {
    let line = mote::run(|mut o: Process<Report>| async move {
        let a = spawn_a(&mut o, |mut p, o| async move {
            let outcome = |r: Option<M>| match r {
                None => "timeout".to_string(),
                Some(M::Atom(s)) => format!("{{got,{s}}}"),
                Some(M::Step(n)) => format!("{{got,step{n}}}"),
            };
            // Empty mailbox, receive anything, `after 0`.
            let empty = outcome(p.recv_matching_timeout(|_| true, Duration::ZERO).await);
            o.send(Report::Ready);
            // O has sent `x` (then step 1, which A waits for: one sender, so `x` is there).
            p.recv_matching_timeout(|m| *m == M::Step(1), WAIT)
                .await
                .expect("step 1");
            let matching = outcome(
                p.recv_matching_timeout(|m| *m == M::Atom("x"), Duration::ZERO)
                    .await,
            );
            // O has sent `y` (then step 2); A receives only `z`, `after 0`.
            p.recv_matching_timeout(|m| *m == M::Step(2), WAIT)
                .await
                .expect("step 2");
            let non_matching = outcome(
                p.recv_matching_timeout(|m| *m == M::Atom("z"), Duration::ZERO)
                    .await,
            );
            let mut rest = Vec::new();
            while let Some(m) = p.try_recv() {
                rest.push(match m {
                    M::Atom(s) => s,
                    M::Step(_) => "step",
                });
            }
            o.send(Report::Tokens(vec![
                format!("empty={empty}"),
                format!("matching={matching}"),
                format!("non_matching={non_matching}"),
                format!("A.mbox={}", list(&rest)),
            ]));
        });
        // The steps run in order: O sends `x` once A has looked at its empty mailbox.
        match o.recv_timeout(WAIT).await {
            Some(Report::Ready) => {}
            other => panic!("expected A to be ready, got {other:?}"),
        }
        a.send(M::Atom("x"));
        a.send(M::Step(1));
        a.send(M::Atom("y"));
        a.send(M::Step(2));
        format!(
            "CASE P23-receive-after-0 {}",
            report(&mut o).await.join(" ")
        )
    })
    .unwrap();
    assert_eq!(
        line,
        "CASE P23-receive-after-0 empty=timeout matching={got,x} non_matching=timeout A.mbox=[y]"
    );
}

/// `recv_timeout(ZERO)` is the other spelling of `after 0` for "receive anything".
#[test]
fn p23_recv_timeout_zero_is_after_0() {
    mote::run(|mut p: Process<&'static str>| async move {
        assert_eq!(p.recv_timeout(Duration::ZERO).await, None);
        p.pid().send("x");
        assert_eq!(p.recv_timeout(Duration::ZERO).await, Some("x"));
        assert_eq!(p.recv_timeout(Duration::ZERO).await, None);
    })
    .unwrap();
}

#[test]
fn p24_send_after_cancel() {
    let line = mote::run(|mut a: Process<&'static str>| async move {
        // (1) A pending timer, cancelled at once.
        let t = mote::send_after(a.pid(), "tick", Duration::from_millis(100));
        let left = mote::cancel_timer(&t);
        // Erlang returns the time left as an integer number of milliseconds in 1..100;
        // mote returns it as a `Duration` (`Some`), which must lie in (0, 100 ms].
        let pending_cancel = match left {
            Some(d) if d > Duration::ZERO && d <= Duration::from_millis(100) => "integer_ms_left_in_1..100".to_string(),
            other => format!("{other:?}"),
        };
        mote::sleep(Duration::from_millis(150)).await;
        let mut after_150 = Vec::new();
        while let Some(m) = a.try_recv() {
            after_150.push(m);
        }
        // (2) A timer that has fired: cancel_timer returns `false` (mote: `None`), the
        // delivered message stays.
        let t = mote::send_after(a.pid(), "tock", Duration::from_millis(10));
        mote::sleep(Duration::from_millis(50)).await;
        // A loaded machine may run the timer late: wait until it has fired (5 s at most,
        // then the case fails on the cancel's result).
        for _ in 0..500 {
            if mote::read_timer(&t).is_none() {
                break;
            }
            mote::sleep(Duration::from_millis(10)).await;
        }
        let fired_cancel = match mote::cancel_timer(&t) {
            None => "false".to_string(),
            Some(d) => format!("{d:?}"),
        };
        // The timer marks itself fired just before it sends, so the message may still be
        // on its way: wait for it rather than only looking.
        let mut fired = Vec::from_iter(a.recv_timeout(Duration::from_secs(5)).await);
        while let Some(m) = a.try_recv() {
            fired.push(m);
        }
        format!(
            "CASE P24-send-after-cancel pending.cancel={pending_cancel} pending.mbox_after_150ms={} fired.cancel={fired_cancel} fired.mbox={}",
            list(&after_150),
            list(&fired)
        )
    })
    .unwrap();
    assert_eq!(
        line,
        "CASE P24-send-after-cancel pending.cancel=integer_ms_left_in_1..100 pending.mbox_after_150ms=[] \
         fired.cancel=false fired.mbox=[tock]"
    );
}

/// Timer details around P24: `read_timer`, cancelling twice, and a timer to a dead process.
#[test]
fn timers_read_cancel_twice_dead_target() {
    mote::run(|mut p: Process<u32>| async move {
        let t = mote::send_after(p.pid(), 1, Duration::from_secs(10));
        let left = mote::read_timer(&t).expect("pending timer");
        assert!(
            left > Duration::from_secs(9) && left <= Duration::from_secs(10),
            "{left:?}"
        );
        assert!(mote::cancel_timer(&t).is_some());
        assert_eq!(
            mote::cancel_timer(&t),
            None,
            "a cancelled timer cannot be cancelled again"
        );
        assert_eq!(mote::read_timer(&t), None);

        // A timer whose target has died fires into nothing (and cancelling it afterwards
        // says it has fired).
        let dead = mote::spawn(|_d: Process<u32>| async {});
        wait_until("D has ended", || !mote::is_alive(dead)).await;
        let t = mote::send_after(dead, 7, Duration::from_millis(5));
        wait_until("the timer to D has fired", || {
            mote::read_timer(&t).is_none()
        })
        .await;
        assert_eq!(mote::cancel_timer(&t), None);
        assert_eq!(p.try_recv(), None);
    })
    .unwrap();
}

#[test]
fn p25_one_sender_order() {
    #[derive(Debug)]
    enum N {
        Int(u32),
        Done,
    }
    let (count, in_order) = mote::run(|mut a: Process<N>| async move {
        let me = a.pid();
        mote::spawn(move |_b: Process<()>| async move {
            for i in 1..=1000 {
                me.send(N::Int(i));
            }
            me.send(N::Done);
        });
        let mut got = Vec::new();
        while let N::Int(i) = a.recv_timeout(WAIT).await.expect("B's messages") {
            got.push(i);
        }
        (got.len(), got.iter().copied().eq(1..=1000))
    })
    .unwrap();
    assert_eq!(
        format!("CASE P25-one-sender-order count={count} in_send_order={in_order}"),
        "CASE P25-one-sender-order count=1000 in_send_order=true"
    );
}

#[test]
fn p26_two_senders() {
    #[derive(Debug)]
    enum N {
        From(char, u32),
        Done,
    }
    let (count, b_order, c_order) = mote::run(|mut a: Process<N>| async move {
        let me = a.pid();
        for tag in ['b', 'c'] {
            mote::spawn(move |_s: Process<()>| async move {
                for i in 1..=500 {
                    me.send(N::From(tag, i));
                }
                me.send(N::Done);
            });
        }
        let (mut from_b, mut from_c, mut done) = (Vec::new(), Vec::new(), 0);
        while done < 2 {
            match a.recv_timeout(WAIT).await.expect("B's and C's messages") {
                N::From('b', i) => from_b.push(i),
                N::From(_, i) => from_c.push(i),
                N::Done => done += 1,
            }
        }
        (
            from_b.len() + from_c.len(),
            from_b.iter().copied().eq(1..=500),
            from_c.iter().copied().eq(1..=500),
        )
    })
    .unwrap();
    assert_eq!(
        format!("CASE P26-two-senders count={count} B.in_send_order={b_order} C.in_send_order={c_order}"),
        "CASE P26-two-senders count=1000 B.in_send_order=true C.in_send_order=true"
    );
}
