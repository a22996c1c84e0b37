//! Conformance: links, exit signals, unlink and crash reasons (cases P01-P10, P15-P17 of
//! `mote/tests/conformance/README.md`).
//!
//! Each test re-expresses one case with mote's API and compares the outcome line, token by
//! token, with the line the BEAM produced (see `common/mod.rs` for O and the agents).

mod common;

use common::{link_result, reason, run_case, Driver};
use mote::{ExitReason, Process};

/// A crash (erlang:error(boom)); typed so that the process's return type is explicit.
fn crash() -> ExitReason {
    panic!("boom")
}

fn boom() -> ExitReason {
    ExitReason::custom("boom")
}

#[test]
fn p01_link_normal_notrap() {
    let line = run_case("P01-link-normal-notrap", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let b = o.agent("B", false).await;
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        o.finish(b); // B's function returns
        o.wait_dead(b).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
            o.fate_tok(b).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P01-link-normal-notrap A=alive A.mbox=[] B=dead:normal"
    );
}

#[test]
fn p02_link_normal_trap() {
    let line = run_case("P02-link-normal-trap", |mut o: Driver| async move {
        let a = o.agent("A", true).await;
        let b = o.agent("B", false).await;
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        o.finish(b);
        o.wait_dead(b).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
            o.fate_tok(b).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P02-link-normal-trap A=alive A.mbox=[{'EXIT',B,normal}] B=dead:normal"
    );
}

#[test]
fn p03_link_abnormal_notrap() {
    let line = run_case("P03-link-abnormal-notrap", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let b = o.agent("B", false).await;
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        o.exit_self(b, boom()).await;
        o.wait_dead(a).await;
        o.settle().await;
        vec![o.fate_tok(a).await, o.fate_tok(b).await]
    });
    assert_eq!(
        line,
        "CASE P03-link-abnormal-notrap A=dead:boom B=dead:boom"
    );
}

#[test]
fn p04_link_abnormal_trap() {
    let line = run_case("P04-link-abnormal-trap", |mut o: Driver| async move {
        let a = o.agent("A", true).await;
        let b = o.agent("B", false).await;
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        o.exit_self(b, boom()).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
            o.fate_tok(b).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P04-link-abnormal-trap A=alive A.mbox=[{'EXIT',B,boom}] B=dead:boom"
    );
}

#[test]
fn p05_exit_signal_normal() {
    let line = run_case("P05-exit-signal-normal", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let t = o.agent("T", true).await;
        // exit/2 from O: the sender is the calling process.
        mote::exit(a, ExitReason::Normal);
        mote::exit(t, ExitReason::Normal);
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
            o.fate_tok(t).await,
            o.mbox_tok(t).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P05-exit-signal-normal A=alive A.mbox=[] T=alive T.mbox=[{'EXIT',O,normal}]"
    );
}

#[test]
fn p06_exit_signal_abnormal() {
    let line = run_case("P06-exit-signal-abnormal", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let t = o.agent("T", true).await;
        mote::exit(a, boom());
        mote::exit(t, boom());
        o.wait_dead(a).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.fate_tok(t).await,
            o.mbox_tok(t).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P06-exit-signal-abnormal A=dead:boom T=alive T.mbox=[{'EXIT',O,boom}]"
    );
}

/// How a command that calls `mote::exit(self, ..)` ended, in the reference's syntax:
/// `returned` if the call returned (the agent answered), `{died,R}` if the process ended
/// instead.
fn exit_call(r: Result<&'static str, ExitReason>) -> String {
    match r {
        Ok(s) => s.to_string(),
        Err(e) => format!("{{died,{}}}", reason(&e)),
    }
}

/// P07's steps; returns the outcome tokens.
async fn p07_steps(mut o: Driver) -> Vec<String> {
    let a = o.agent("A", false).await;
    let l = o.agent("L", false).await;
    let m = o.agent("M", true).await;
    let t = o.agent("T", true).await;
    o.call(l, move |p| p.link(a)).await.unwrap().unwrap();
    o.call(m, move |p| p.link(a)).await.unwrap().unwrap();
    // A calls exit(self(), normal): on the BEAM the call never returns, A dies.
    let a_call = o
        .call(a, |p| {
            mote::exit(p.pid(), ExitReason::Normal);
            "returned"
        })
        .await;
    let t_call = o
        .call(t, |p| {
            mote::exit(p.pid(), ExitReason::Normal);
            "returned"
        })
        .await;
    o.wait_dead(a).await;
    o.settle().await;
    vec![
        format!("A.exit_call={}", exit_call(a_call)),
        o.fate_tok(a).await,
        o.fate_tok(l).await,
        o.mbox_tok(l).await,
        o.fate_tok(m).await,
        o.mbox_tok(m).await,
        format!("T.exit_call={}", exit_call(t_call)),
        o.fate_tok(t).await,
        o.mbox_tok(t).await,
    ]
}

const P07: &str = "CASE P07-exit-self-normal A.exit_call={died,normal} A=dead:normal L=alive L.mbox=[] \
                   M=alive M.mbox=[{'EXIT',A,normal}] T.exit_call=returned T=alive T.mbox=[{'EXIT',T,normal}]";

#[test]
fn p07_exit_self_normal() {
    let line = run_case("P07-exit-self-normal", p07_steps);
    assert_eq!(line, P07);
}

/// P07 without its `A.exit_call` token (the token `p07_exit_self_normal` fails on), so that
/// the rest of the case stays checked while that test is ignored. Same steps, same line.
#[test]
fn p07_exit_self_normal_except_exit_call() {
    let line = run_case("P07-exit-self-normal", p07_steps);
    let drop_exit_call = |l: &str| {
        l.split(' ')
            .filter(|t| !t.starts_with("A.exit_call="))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(drop_exit_call(&line), drop_exit_call(P07));
}

#[test]
fn p08_exit_kill_trapping() {
    let line = run_case("P08-exit-kill-trapping", |mut o: Driver| async move {
        let a = o.agent("A", true).await;
        let b = o.agent("B", false).await;
        let c = o.agent("C", true).await;
        o.call(b, move |p| p.link(a)).await.unwrap().unwrap();
        o.call(c, move |p| p.link(a)).await.unwrap().unwrap();
        mote::exit(a, ExitReason::Kill);
        o.wait_dead(a).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.fate_tok(b).await,
            o.fate_tok(c).await,
            o.mbox_tok(c).await,
        ]
    });
    assert_eq!(line, "CASE P08-exit-kill-trapping A=dead:killed B=dead:killed C=alive C.mbox=[{'EXIT',A,killed}]");
}

#[test]
fn p09_exit_own_reason_kill() {
    let line = run_case("P09-exit-own-reason-kill", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let b = o.agent("B", false).await;
        let c = o.agent("C", true).await;
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        o.call(a, move |p| p.link(c)).await.unwrap().unwrap();
        // exit(kill) (exit/1): no signal is sent to A itself.
        o.exit_self(a, ExitReason::Kill).await;
        o.settle().await;
        vec![
            o.fate_tok(a).await,
            o.fate_tok(b).await,
            o.fate_tok(c).await,
            o.mbox_tok(c).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P09-exit-own-reason-kill A=dead:kill B=dead:kill C=alive C.mbox=[{'EXIT',A,kill}]"
    );
}

#[test]
fn p10_link_dead_pid() {
    let line = run_case("P10-link-dead-pid", |mut o: Driver| async move {
        let d = o.dead_pid("D").await;
        let a = o.agent("A", false).await;
        let t = o.agent("T", true).await;
        // mote: link/1's exception is the `Err(LinkError::NoProc)` result.
        let a_link = o.call(a, move |p| p.link(d)).await.unwrap();
        let t_link = o.call(t, move |p| p.link(d)).await.unwrap();
        o.settle().await;
        vec![
            format!("A.link={}", link_result(&a_link)),
            o.fate_tok(a).await,
            format!("T.link={}", link_result(&t_link)),
            o.fate_tok(t).await,
            o.mbox_tok(t).await,
        ]
    });
    assert_eq!(line, "CASE P10-link-dead-pid A.link=error:noproc A=alive T.link=true T=alive T.mbox=[{'EXIT',D,noproc}]");
}

#[test]
fn p15_unlink_then_exit() {
    let line = run_case("P15-unlink-then-exit", |mut o: Driver| async move {
        let a = o.agent("A", false).await;
        let t = o.agent("T", true).await;
        let b = o.agent("B", false).await;
        o.call(a, move |p| p.link(b)).await.unwrap().unwrap();
        o.call(t, move |p| p.link(b)).await.unwrap().unwrap();
        // Erlang's unlink/1 always returns true; mote's `Process::unlink` returns `()`, which
        // carries the same (no) information: a call that returns is rendered `true`.
        let a_unlink = o.call(a, move |p| p.unlink(b)).await.map(|()| "true");
        let t_unlink = o.call(t, move |p| p.unlink(b)).await.map(|()| "true");
        o.exit_self(b, boom()).await;
        o.settle().await;
        vec![
            format!("A.unlink={}", a_unlink.unwrap()),
            format!("T.unlink={}", t_unlink.unwrap()),
            o.fate_tok(a).await,
            o.mbox_tok(a).await,
            o.fate_tok(t).await,
            o.mbox_tok(t).await,
        ]
    });
    assert_eq!(
        line,
        "CASE P15-unlink-then-exit A.unlink=true T.unlink=true A=alive A.mbox=[] T=alive T.mbox=[]"
    );
}

/// Why a panic with a non-string payload ended a process, rendered: its message is not
/// documented, only that it is a `Panic`.
fn panic_kind(r: &str) -> String {
    if r.starts_with("dead:panic(") {
        "dead:panic(_)".into()
    } else {
        r.into()
    }
}

#[test]
fn p16_crash_reasons() {
    let line = run_case("P16-crash-reasons", |mut o: Driver| async move {
        let b1 = o.agent("B1", false).await;
        let b2 = o.agent("B2", false).await;
        let b3 = o.agent("B3", false).await;
        let t = o.agent("T", true).await;
        o.call(t, move |p| p.link(b1)).await.unwrap().unwrap();
        // erlang:error(boom), uncaught: a panic.
        let _ = o.call::<(), _>(b1, |_p| panic!("boom")).await;
        // An uncaught `throw(ball)` has no Rust analogue. The nearest thing, a panic whose
        // payload is not a string (`panic_any`), is checked to end the process with a
        // `Panic` reason; its message is not documented, so it is rendered `panic(_)`.
        struct Ball;
        let _ = o.call::<(), _>(b2, |_p| std::panic::panic_any(Ball)).await;
        o.exit_self(b3, ExitReason::custom("bye")).await;
        o.settle().await;
        let b2_fate = o.fate(b2).await;
        vec![
            o.fate_tok(b1).await,
            format!("B2={}", panic_kind(&b2_fate)),
            o.fate_tok(b3).await,
            o.mbox_tok(t).await,
        ]
    });
    // Deviation (documented on `ExitReason`): "A panic carries its message (Erlang's
    // `{Reason, Stacktrace}`, without the stack trace)". So `{boom,<stacktrace>}` is
    // `panic(boom)` here, and `{{nocatch,ball},<stacktrace>}` (a throw, which Rust lacks) is
    // a `Panic` with an undocumented message. The links carry the same reason as the
    // monitors, as on the BEAM.
    assert_eq!(
        line,
        "CASE P16-crash-reasons B1=dead:panic(boom) B2=dead:panic(_) B3=dead:bye T.mbox=[{'EXIT',B1,panic(boom)}]"
    );
}

#[test]
fn p17_spawn_link_child_crash() {
    let line = run_case("P17-spawn-link-child-crash", |mut o: Driver| async move {
        let parent = o.agent("P", true).await;
        // The child waits for O's go before crashing, so that O can monitor it first and
        // learn when it has ended (it still crashes by itself: `panic!`).
        let c = o
            .call(parent, |p| {
                p.spawn_link(|mut c: Process<()>| async move {
                    c.recv().await;
                    crash()
                })
            })
            .await
            .unwrap();
        o.name(c, "C");
        o.watch(c);
        c.send(());
        let r = o.wait_dead(c).await;
        assert_eq!(r, ExitReason::Panic("boom".into()));
        o.settle().await;
        vec![
            format!("P={}", o.fate(parent).await),
            format!("P.mbox={}", mbox_str(&mut o, parent).await),
        ]
    });
    // Deviation (rustdoc of `ExitReason`): a panic's reason is its message without the stack
    // trace: `{boom,<stacktrace>}` is `panic(boom)`.
    assert_eq!(
        line,
        "CASE P17-spawn-link-child-crash P=alive P.mbox=[{'EXIT',C,panic(boom)}]"
    );
}

async fn mbox_str(o: &mut Driver, a: mote::Pid<common::Msg>) -> String {
    let entries = o.mbox(a).await.expect("agent alive");
    o.show_list(&entries)
}
