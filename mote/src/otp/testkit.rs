//! A test kit: `#[mote::test]` and the assertions tests of processes keep rewriting.
//!
//! [`macro@crate::test`] turns an `async fn` into a `#[test]` that runs it as a fresh root
//! process with [`run`](crate::run), under a time limit (60 s unless the attribute says
//! `timeout = "10s"`), so a test that would hang fails instead. Every test gets its own
//! process and mailbox; the runtime, like an Erlang node, is shared by all the tests of a
//! binary, so many `#[mote::test]`s (and plain `#[test]`s calling `mote::run`) run side by
//! side, on the test harness's threads, without a tokio runtime of their own.
//!
//! ```
//! use std::time::Duration;
//! use mote::{testkit, Process};
//!
//! // In a test file this is `#[mote::test] async fn echo(mut p: Process<u32>) { ... }`.
//! async fn echo(mut p: Process<u32>) {
//!     let me = p.pid();
//!     mote::spawn(move |_c: Process<()>| async move { me.send(7) });
//!     assert_eq!(testkit::assert_receive(&mut p, Duration::from_secs(5)).await, 7);
//!     testkit::refute_receive(&mut p, Duration::from_millis(20)).await;
//! }
//! testkit::run_test(Duration::from_secs(10), echo);
//! ```
//!
//! The assertions follow ExUnit's names: [`assert_receive`] waits for the next message,
//! [`refute_receive`] checks that none comes, [`assert_mailbox`] compares what is queued now,
//! and [`wait_exit`] waits for another process to end and gives its exit reason.

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

use crate::process::handle::Process;
use crate::process::runtime::run;
use crate::rt::completion::ProcessEnd;
use crate::rt::timeout_wheel::timeout;
use crate::values::exit::{ExitReason, IntoExitReason};
use crate::values::pid::ProcessId;

/// Runs `test` as a root process, as `#[mote::test]` does, and fails (panics) if it does not
/// end normally within `limit`: with the panic's own message when the test panicked (so
/// `#[should_panic(expected = ...)]` works), with the exit reason when it ended another
/// way, or with "timed out" when the limit passed.
///
/// ```
/// use std::time::Duration;
/// mote::testkit::run_test(Duration::from_secs(5), |_p: mote::Process<()>| async {
///     assert_eq!(1 + 1, 2);
/// });
/// ```
///
/// ```should_panic
/// use std::time::Duration;
/// mote::testkit::run_test(Duration::from_millis(50), |mut p: mote::Process<u8>| async move {
///     p.recv().await; // nothing ever comes
/// });
/// ```
pub fn run_test<M, F, Fut>(limit: Duration, test: F)
where
    M: Send + 'static,
    F: FnOnce(Process<M>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoExitReason + Send + 'static,
{
    let outcome = run(move |p: Process<M>| {
        let body = test(p);
        async move {
            timeout(limit, body)
                .await
                .map(IntoExitReason::into_exit_reason)
        }
    });
    match outcome {
        Ok(Ok(ExitReason::Normal)) => {}
        Ok(Ok(reason)) => panic!("the test process ended with reason {reason}"),
        Ok(Err(_)) => panic!("the test timed out after {limit:?}"),
        Err(ExitReason::Panic(message)) => panic!("{message}"),
        Err(reason) => panic!("the test process exited with reason {reason}"),
    }
}

/// Waits up to `within` for the next message and returns it; panics if none arrives
/// (ExUnit's `assert_receive`).
///
/// ```
/// use std::time::Duration;
/// mote::run(|mut p: mote::Process<&'static str>| async move {
///     p.pid().send("hello");
///     assert_eq!(mote::testkit::assert_receive(&mut p, Duration::from_secs(1)).await, "hello");
/// })
/// .unwrap();
/// ```
pub async fn assert_receive<M: Send + 'static>(p: &mut Process<M>, within: Duration) -> M {
    match p.recv_timeout(within).await {
        Some(m) => m,
        None => panic!("no message arrived within {within:?}"),
    }
}

/// Waits `for_` and panics if a message arrives meanwhile (ExUnit's `refute_receive`).
///
/// ```
/// use std::time::Duration;
/// mote::run(|mut p: mote::Process<u8>| async move {
///     mote::testkit::refute_receive(&mut p, Duration::from_millis(10)).await;
/// })
/// .unwrap();
/// ```
pub async fn refute_receive<M: Debug + Send + 'static>(p: &mut Process<M>, for_: Duration) {
    if let Some(m) = p.recv_timeout(for_).await {
        panic!("expected no message within {for_:?}, got {m:?}");
    }
}

/// Takes every message queued now, oldest first, without waiting.
///
/// ```
/// mote::run(|mut p: mote::Process<u8>| async move {
///     p.pid().send(1);
///     p.pid().send(2);
///     assert_eq!(mote::testkit::drain(&mut p), vec![1, 2]);
///     assert!(mote::testkit::drain(&mut p).is_empty());
/// })
/// .unwrap();
/// ```
pub fn drain<M: Send + 'static>(p: &mut Process<M>) -> Vec<M> {
    std::iter::from_fn(|| p.try_recv()).collect()
}

/// Asserts that the messages queued now are exactly `expected`, in order (taking them).
///
/// ```
/// mote::run(|mut p: mote::Process<&'static str>| async move {
///     p.pid().send("a");
///     p.pid().send("b");
///     mote::testkit::assert_mailbox(&mut p, &["a", "b"]);
/// })
/// .unwrap();
/// ```
pub fn assert_mailbox<M: PartialEq + Debug + Send + 'static>(p: &mut Process<M>, expected: &[M]) {
    let got = drain(p);
    assert_eq!(got.as_slice(), expected, "the mailbox holds other messages");
}

/// Waits up to `within` for process `id` to end and returns its exit reason (`noproc` if
/// it was not alive); panics if it is still running after `within`. Works for a process
/// of any message type, from any process or async context, and leaves no monitor behind.
///
/// ```
/// use std::time::Duration;
/// use mote::{ExitReason, Process};
/// mote::run(|_p: Process<()>| async move {
///     let child = mote::spawn(|mut c: Process<u8>| async move {
///         c.recv().await;
///         ExitReason::custom("done")
///     });
///     // Joined so that the watch is in place before the child can end.
///     let (reason, ()) = tokio::join!(
///         mote::testkit::wait_exit(child, Duration::from_secs(5)),
///         async { child.send(1) },
///     );
///     assert_eq!(reason, ExitReason::custom("done"));
/// })
/// .unwrap();
/// ```
pub async fn wait_exit(id: impl Into<ProcessId>, within: Duration) -> ExitReason {
    let id = id.into();
    match timeout(within, ProcessEnd::watch(id)).await {
        Ok(reason) => reason,
        Err(_) => panic!("process {id:?} was still running after {within:?}"),
    }
}
