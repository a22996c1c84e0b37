//! Model checks of the completion's state word: a reply that races the waiter's poll wakes
//! it (or is seen by it), a waiter that changes its waker is woken through the new one, and
//! an outcome racing other producers and a waiter that gives up ends up in exactly one
//! place.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p mote --lib --release loom`. A lost
//! wake-up shows as a waiter parked forever, which loom reports as a deadlock; a cell
//! reached by two threads against the protocol, as a data race.
//!
//! Without `--cfg loom` the same bodies run as plain threaded tests, many times over (and
//! under miri, see `.ci/run`).

use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::Waiter;
use crate::rt::sync::models::{model, thread, Unpark};
use crate::values::exit::ExitReason;

fn unparker() -> Waker {
    Waker::from(Arc::new(Unpark(thread::current())))
}

/// Polls until the outcome comes, parking while pending: a lost wake-up parks forever.
fn wait<T>(waiter: &mut Waiter<T>, waker: &Waker) -> Result<T, ExitReason> {
    let mut cx = Context::from_waker(waker);
    loop {
        match waiter.poll_take(&mut cx) {
            Poll::Ready(outcome) => return outcome,
            Poll::Pending => thread::park(),
        }
    }
}

#[test]
fn loom_a_reply_racing_the_poll_wakes_the_waiter() {
    model(|| {
        let mut waiter = Waiter::<u32>::new();
        let producer = Arc::clone(waiter.completion());
        let replier = thread::spawn(move || producer.complete(7).is_ok());
        assert_eq!(wait(&mut waiter, &unparker()), Ok(7));
        assert!(replier.join().unwrap());
        assert!(waiter.is_done());
    });
}

#[test]
fn loom_a_waiter_that_changes_its_waker_is_woken_through_the_new_one() {
    model(|| {
        let mut waiter = Waiter::<u32>::new();
        let producer = Arc::clone(waiter.completion());
        let replier = thread::spawn(move || {
            let _ = producer.complete(7);
        });
        // First polled by a waker that wakes nobody: if the reply woke that one, the
        // waiter below would park forever.
        let first = waiter.poll_take(&mut Context::from_waker(Waker::noop()));
        let outcome = match first {
            Poll::Ready(outcome) => outcome,
            Poll::Pending => wait(&mut waiter, &unparker()),
        };
        assert_eq!(outcome, Ok(7));
        replier.join().unwrap();
    });
}

#[test]
fn loom_racing_producers_and_a_waiter_giving_up_settle_exactly_once() {
    model(|| {
        let mut waiter = Waiter::<u32>::new();
        let producer = Arc::clone(waiter.completion());
        let replier = thread::spawn(move || producer.complete(7).err());
        let failer = {
            let producer = Arc::clone(waiter.completion());
            thread::spawn(move || producer.fail(ExitReason::Killed))
        };
        // The waiter first registers a waker (the producers may read it), then gives up.
        let kept = match waiter.poll_take(&mut Context::from_waker(&unparker())) {
            Poll::Ready(outcome) => {
                assert_eq!(waiter.close(), None, "taken already");
                Some(outcome)
            }
            Poll::Pending => waiter.close(),
        };
        let given_back = replier.join().unwrap();
        failer.join().unwrap();
        match kept {
            // The reply came first: the waiter has it, nobody else does.
            Some(Ok(v)) => assert_eq!((v, given_back), (7, None)),
            // Otherwise the reply went back to its producer (the failure won, or the
            // waiter gave up first).
            Some(Err(reason)) => assert_eq!((reason, given_back), (ExitReason::Killed, Some(7))),
            None => assert_eq!(given_back, Some(7)),
        }
        assert!(waiter.is_done());
        assert!(!waiter.is_ready());
    });
}
