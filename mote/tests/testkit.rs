//! `#[mote::test]` and the test kit's assertions, many tests in one binary: each runs as its
//! own root process on the one shared runtime, in parallel on the harness's threads.

use std::time::Duration;

use mote::{testkit, Down, ExitReason, Process};

/// A crash with `message`, typed so the process's return type is explicit.
fn crash(message: &str) -> ExitReason {
    panic!("{message}")
}

const SHORT: Duration = Duration::from_millis(30);
const LONG: Duration = Duration::from_secs(10);

#[mote::test]
async fn a_test_without_a_process_argument() {
    let child = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
    // `join!` polls `wait_exit` first, so its watch is in place before the child may end.
    let (reason, ()) = tokio::join!(testkit::wait_exit(child, LONG), async {
        mote::sleep(SHORT).await;
        child.send(());
    });
    assert_eq!(reason, ExitReason::Normal);
}

#[mote::test]
async fn a_test_receives_in_its_own_mailbox(mut p: Process<u64>) {
    let me = p.pid();
    for i in 0..3 {
        mote::spawn(move |_c: Process<()>| async move { me.send(i) });
    }
    let mut got = vec![
        testkit::assert_receive(&mut p, LONG).await,
        testkit::assert_receive(&mut p, LONG).await,
        testkit::assert_receive(&mut p, LONG).await,
    ];
    got.sort();
    assert_eq!(got, vec![0, 1, 2]);
    testkit::refute_receive(&mut p, SHORT).await;
}

#[mote::test(timeout = "20s")]
async fn the_mailbox_assertion_sees_order(mut p: Process<&'static str>) {
    let me = p.pid();
    me.send("a");
    me.send("b");
    testkit::assert_mailbox(&mut p, &["a", "b"]);
    assert!(testkit::drain(&mut p).is_empty());
}

#[mote::test]
async fn a_test_may_return_a_result(p: Process<()>) -> Result<(), ExitReason> {
    mote::register("testkit_result", p.pid()).map_err(|e| ExitReason::custom(e.to_string()))?;
    assert_eq!(mote::whereis("testkit_result"), Some(p.id()));
    Ok(())
}

#[derive(Debug)]
enum Msg {
    Down(Down),
}
impl From<Down> for Msg {
    fn from(d: Down) -> Msg {
        Msg::Down(d)
    }
}

#[mote::test]
async fn wait_exit_and_a_monitor_agree(mut p: Process<Msg>) {
    let child = mote::spawn(|mut c: Process<()>| async move {
        c.recv().await;
        crash("expected crash")
    });
    let r = p.monitor(child);
    let (reason, ()) = tokio::join!(testkit::wait_exit(child, LONG), async {
        mote::sleep(SHORT).await;
        child.send(());
    });
    assert_eq!(reason, ExitReason::Panic("expected crash".into()));
    let Msg::Down(down) = testkit::assert_receive(&mut p, LONG).await;
    assert_eq!((down.monitor, down.reason), (r, reason));
}

#[mote::test]
async fn wait_exit_of_a_dead_process_is_noproc() {
    let child = mote::spawn(|_c: Process<()>| async {});
    testkit::wait_exit(child, LONG).await;
    assert_eq!(testkit::wait_exit(child, LONG).await, ExitReason::NoProc);
}

// The failures: each must fail its test, with a message that says why.

#[mote::test(timeout = "100ms")]
#[should_panic(expected = "timed out after 100ms")]
async fn a_hanging_test_fails_at_its_limit(mut p: Process<u8>) {
    p.recv().await;
}

#[mote::test]
#[should_panic(expected = "two and two")]
async fn a_panicking_test_fails_with_its_message() {
    assert_eq!(2 + 2, 5, "two and two");
}

#[mote::test]
#[should_panic(expected = "ended with reason bad_input")]
async fn an_abnormal_result_fails_the_test() -> Result<(), ExitReason> {
    Err(ExitReason::custom("bad_input"))
}

#[mote::test]
#[should_panic(expected = "no message arrived")]
async fn assert_receive_fails_when_nothing_comes(mut p: Process<u8>) {
    testkit::assert_receive(&mut p, SHORT).await;
}

#[mote::test]
#[should_panic(expected = "expected no message")]
async fn refute_receive_fails_when_something_comes(mut p: Process<u8>) {
    p.pid().send(1);
    testkit::refute_receive(&mut p, SHORT).await;
}

#[mote::test]
#[should_panic(expected = "still running")]
async fn wait_exit_fails_for_a_live_process() {
    let child = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
    testkit::wait_exit(child, SHORT).await;
}
