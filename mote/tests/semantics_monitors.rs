//! Conformance: monitors (cases P11-P14 of `mote/tests/conformance/README.md`), and the
//! guarantee of `demonitor` that no `DOWN` of the removed monitor arrives after it returns.

mod common;

use std::time::{Duration, Instant};

use common::{run_case, Driver, WAIT};
use mote::{Down, ExitReason, MonitorRef, Process, Signal};

fn boom() -> ExitReason {
    ExitReason::custom("boom")
}

#[test]
fn p11_monitor_dead_pid() {
    let line = run_case("P11-monitor-dead-pid", |mut o: Driver| async move {
        let d = o.dead_pid("D").await;
        let a = o.agent("A", false).await;
        let r = o.call(a, move |p| p.monitor(d)).await.unwrap();
        o.name_ref(r, "R");
        o.settle().await;
        vec![
            format!("A.monitor={}", o.show_ref(r)),
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P11-monitor-dead-pid A.monitor=R A=alive A.mbox=[{'DOWN',R,process,D,noproc}]"
    );
}

#[test]
fn p12_demonitor_flush() {
    let line = run_case("P12-demonitor-flush", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let f = o.agent("F", false).await;
        let g = o.agent("G", false).await;
        // O monitors B only after A, F and G do: B's monitors fire in the order they were
        // made, so when O has B's DOWN, A's and F's have been delivered too (on the BEAM the
        // DOWNs to different processes are unordered; O's "wait until B is dead" relies on
        // them being there, so the harness makes sure they are).
        let b = o.agent_unwatched("B");
        let ra = o.call(a, move |p| p.monitor(b)).await.unwrap();
        let rf = o.call(f, move |p| p.monitor(b)).await.unwrap();
        let rg = o.call(g, move |p| p.monitor(b)).await.unwrap();
        o.name_ref(ra, "Ra");
        o.name_ref(rf, "Rf");
        o.name_ref(rg, "Rg");
        o.watch(b);
        let g_demon = o.call(g, move |p| p.demonitor(rg)).await.unwrap();
        o.exit_self(b, boom()).await;
        assert_eq!(o.wait_dead(b).await, boom());
        let a_demon = o.call(a, move |p| p.demonitor(ra)).await.unwrap();
        let f_demon = o.call(f, move |p| p.demonitor_flush(rf)).await.unwrap();
        o.settle().await;
        vec![
            format!("G.demonitor_while_alive={g_demon}"),
            o.mbox_tok(g).await,
            format!("A.demonitor_after_down={a_demon}"),
            o.mbox_tok(a).await,
            format!("F.demonitor_flush_after_down={f_demon}"),
            o.mbox_tok(f).await,
        ]
    });
    // The BEAM returns `true` from all three calls; `Process::demonitor` does too.
    // Documented deviation of `demonitor_flush` only: "this answers like
    // `demonitor(Ref, [flush, info])`". After B's DOWN has been delivered the monitor is no
    // longer active (Erlang's `[info]` answers `false` too), so F's call returns `false`.
    // Every mailbox token is the BEAM's.
    assert_eq!(
        line,
        "CASE P12-demonitor-flush G.demonitor_while_alive=true G.mbox=[] A.demonitor_after_down=true \
         A.mbox=[{'DOWN',Ra,process,B,boom}] F.demonitor_flush_after_down=false F.mbox=[]"
    );
}

#[test]
fn p13_two_monitors() {
    let line = run_case("P13-two-monitors", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let b = o.agent_unwatched("B");
        let r1 = o.call(a, move |p| p.monitor(b)).await.unwrap();
        let r2 = o.call(a, move |p| p.monitor(b)).await.unwrap();
        o.name_ref(r1, "R1");
        o.name_ref(r2, "R2");
        o.watch(b); // after A's monitors: see P12
        o.exit_self(b, boom()).await;
        o.settle().await;
        vec![
            format!("distinct_refs={}", r1 != r2),
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P13-two-monitors distinct_refs=true A=alive \
         A.mbox=[{'DOWN',R1,process,B,boom},{'DOWN',R2,process,B,boom}]"
    );
}

#[test]
fn p14_monitor_and_link() {
    let line = run_case("P14-monitor-and-link", |mut o: Driver| async move {
        let a = o.agent("A", true).await;
        let a2 = o.agent("A2", true).await;
        let b = o.agent_unwatched("B");
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        let r = o.call(a, move |p| p.monitor(b)).await.unwrap();
        let r2 = o.call(a2, move |p| p.monitor(b)).await.unwrap();
        o.call(a2, move |p| p.link(b)).await.unwrap().unwrap();
        o.name_ref(r, "R");
        o.name_ref(r2, "R2");
        o.watch(b); // after the others' monitors: see P12
        o.exit_self(b, boom()).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
            o.fate_tok(a2).await,
            o.mbox_tok(a2).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P14-monitor-and-link A=alive A.mbox=[{'EXIT',B,boom},{'DOWN',R,process,B,boom}] \
         A2=alive A2.mbox=[{'EXIT',B,boom},{'DOWN',R2,process,B,boom}]"
    );
}

/// Erlang's documentation of `demonitor/1`: "Once demonitor(MonitorRef) has returned, it is
/// guaranteed that no {'DOWN', MonitorRef, _, _, _} message, because of the monitor, will be
/// placed in the caller message queue in the future." With `[flush]` the mailbox then holds
/// no such message at all. mote's `demonitor_flush` rustdoc: "Removes a monitor and any
/// `Down` it already delivered to the mailbox".
///
/// The test widens the window in which B is dying but has not yet delivered the watched
/// DOWN: W holds many monitors on B made before the one it removes, so B's exit delivers
/// many DOWNs first. W removes its last monitor with `demonitor_flush` as soon as the first
/// DOWN arrives (B is then certainly exiting) and afterwards must never see that monitor's
/// DOWN. Many rounds; any late DOWN is a failure.
#[test]
fn demonitor_flush_leaves_no_late_down() {
    const ROUNDS: usize = 8;
    const EARLIER: usize = 2_000;
    let late = mote::run(|mut w: Process<Signal<()>>| async move {
        let mut late = Vec::new();
        for round in 0..ROUNDS {
            let b = mote::spawn(|mut b: Process<()>| async move { b.recv().await });
            let first = w.monitor(b);
            for _ in 1..EARLIER {
                w.monitor(b);
            }
            let last = w.monitor(b);
            end_elsewhere(b);
            let early = spin_for_down(&mut w, first).await;
            assert_eq!(early, 0, "round {round}: `first`'s DOWN comes first");
            w.demonitor_flush(last);
            // Take the other DOWNs as they come (B delivers them in monitor order, `last`
            // after all of them), then give a late DOWN a moment to show up.
            let mut downs = 0;
            while downs < EARLIER - 1 {
                match w.recv_timeout(WAIT).await {
                    Some(Signal::Down(Down { monitor, .. })) if monitor == last => late.push(round),
                    Some(Signal::Down(_)) => downs += 1,
                    other => panic!("round {round}: {downs} DOWNs, then {other:?}"),
                }
            }
            mote::sleep(Duration::from_millis(5)).await;
            while let Some(m) = w.try_recv() {
                match m {
                    Signal::Down(Down { monitor, .. }) if monitor == last => late.push(round),
                    other => panic!("unexpected {other:?}"),
                }
            }
            // All the other monitors fired (the one received above, `first`, is not counted).
            assert_eq!(downs, EARLIER - 1, "round {round}");
        }
        late
    })
    .unwrap();
    assert!(
        late.is_empty(),
        "a DOWN of a monitor removed with demonitor_flush arrived later, in rounds {late:?}"
    );
}

/// Same guarantee for plain `demonitor` (no flush): once it has returned, no DOWN for the
/// removed monitor is placed in the mailbox. W calls `demonitor` right after taking the
/// first DOWN; a DOWN of the removed monitor already queued when it returns is allowed, one
/// queued afterwards is a violation.
#[test]
fn demonitor_no_down_after_return() {
    const ROUNDS: usize = 8;
    const EARLIER: usize = 2_000;
    let late: Vec<(usize, bool)> = mote::run(|mut w: Process<Signal<()>>| async move {
        let mut late = Vec::new();
        for round in 0..ROUNDS {
            let b = mote::spawn(|mut b: Process<()>| async move { b.recv().await });
            let first = w.monitor(b);
            for _ in 1..EARLIER {
                w.monitor(b);
            }
            let last = w.monitor(b);
            end_elsewhere(b);
            let early = spin_for_down(&mut w, first).await;
            assert_eq!(early, 0, "round {round}: `first`'s DOWN comes first");
            let active = w.demonitor_info(last);
            // Erlang's guarantee is about what is placed *after* demonitor returns, so what
            // is queued is sampled right after the call (a DOWN placed between an earlier
            // look and the call is legitimately "before").
            let (queued, before) = take_queued(&mut w, last);
            let mut downs = 1 + queued; // `first`, and the others already queued
            let mut after = false;
            while downs < EARLIER {
                match w.recv_timeout(WAIT).await {
                    Some(Signal::Down(Down { monitor, .. })) if monitor == last => after = true,
                    Some(Signal::Down(_)) => downs += 1,
                    other => panic!("round {round}: {downs} DOWNs, then {other:?}"),
                }
            }
            mote::sleep(Duration::from_millis(5)).await;
            after |= take_queued(&mut w, last).1;
            if after && !before {
                late.push((round, active));
            }
        }
        late
    })
    .unwrap();
    assert!(
        late.is_empty(),
        "a DOWN arrived after demonitor had returned (round, demonitor's result): {late:?}"
    );
}

/// Makes B return, waking it from a thread that is not a scheduler thread: B then runs on
/// another scheduler thread than W, at the same time as W. (Woken from W's own thread, B
/// would wait in that thread's "run next" slot until W yields; see
/// `process_lifecycle::woken_process_runs_while_its_waker_computes`.)
fn end_elsewhere(b: mote::Pid<()>) {
    std::thread::spawn(move || b.send(()))
        .join()
        .expect("sending from a plain thread");
}

/// Waits for `first`'s DOWN by spinning on `try_recv` (for at most one second, then
/// waiting normally): W keeps its scheduler thread, so B's exit runs on another one, and W
/// acts while B is still delivering its DOWNs. Returns how many other messages came first.
async fn spin_for_down(w: &mut Process<Signal<()>>, first: MonitorRef) -> usize {
    let spin_until = Instant::now() + Duration::from_secs(1);
    let mut others = 0;
    while Instant::now() < spin_until {
        match w.try_recv() {
            Some(Signal::Down(d)) if d.monitor == first => return others,
            Some(_) => others += 1,
            None => std::hint::spin_loop(),
        }
    }
    let got = w
        .recv_matching_timeout(|m| matches!(m, Signal::Down(d) if d.monitor == first), WAIT)
        .await;
    assert!(got.is_some(), "no DOWN within {WAIT:?}");
    others
}

/// Drains the mailbox: the number of DOWNs of monitors other than `r`, and whether `r`'s
/// DOWN was there.
fn take_queued(w: &mut Process<Signal<()>>, r: MonitorRef) -> (usize, bool) {
    let (mut others, mut found) = (0, false);
    while let Some(m) = w.try_recv() {
        match m {
            Signal::Down(d) if d.monitor == r => found = true,
            Signal::Down(_) => others += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    (others, found)
}
