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

/// The reuse of a reply slot ([`Waiter::recycle`](super::Waiter)): the waiter resets the
/// slot's cells once a relaxed load of the count says it is the only owner left, after an
/// acquire fence; the other owner (the reply handle) touches the cells last, then drops its
/// count with release. The count here is a loom atomic standing for `Arc`'s (whose own
/// atomics loom cannot see), with the orderings `Arc`'s drop uses; a reset that the fence
/// did not order after the producer's last write is a data race on the cell.
#[test]
fn loom_a_slot_is_reset_only_after_its_other_owner_is_done_with_it() {
    use crate::rt::sync::{fence, AtomicUsize, Ordering, UnsafeCell};
    /// The slot's cells, shared as the completion shares them.
    struct Cell(UnsafeCell<u32>);
    // SAFETY: reached only as the owner count allows (the model's subject).
    unsafe impl Sync for Cell {}
    model(|| {
        let owners = Arc::new(AtomicUsize::new(2));
        let cell = Arc::new(Cell(UnsafeCell::new(0u32)));
        let producer = {
            let (owners, cell) = (Arc::clone(&owners), Arc::clone(&cell));
            thread::spawn(move || {
                // SAFETY: the producer's turn: the waiter resets the cell only once it has
                // seen this owner gone.
                cell.0.with_mut(|v| unsafe { *v = 7 });
                owners.fetch_sub(1, Ordering::Release);
            })
        };
        // The waiter's `recycle`, tried until it finds itself alone.
        loop {
            if owners.load(Ordering::Relaxed) == 1 {
                fence(Ordering::Acquire);
                // SAFETY: the only owner left, and the fence orders the other's last write
                // before this one.
                cell.0.with_mut(|v| unsafe { *v = 0 });
                break;
            }
            thread::yield_now();
        }
        producer.join().unwrap();
    });
}

/// A slot emptied for reuse ([`Waiter::emptied`]) keeps the waker its last wait registered:
/// the next wait polled by the same task registers nothing, and the reply still wakes it
/// (the producer wakes by reference, leaving the waker in place). An emptied slot that kept
/// `WAKER` without the waker, or the waker without `WAKER`, parks the second wait forever.
#[test]
fn loom_a_reused_slot_wakes_through_the_waker_it_kept() {
    model(|| {
        let waker = unparker();
        let mut waiter = Waiter::<u32>::new();
        let producer = Arc::clone(waiter.completion());
        let replier = thread::spawn(move || {
            let _ = producer.complete(1);
        });
        assert_eq!(wait(&mut waiter, &waker), Ok(1));
        replier.join().unwrap();
        let mut waiter = waiter
            .emptied()
            .expect("the only owner once the replier is gone");
        assert!(!waiter.is_done() && !waiter.is_ready());
        let producer = Arc::clone(waiter.completion());
        let replier = thread::spawn(move || {
            let _ = producer.complete(2);
        });
        assert_eq!(wait(&mut waiter, &waker), Ok(2));
        replier.join().unwrap();
    });
}

/// A call's reply put by its sole producer ([`Completion::complete_as_sole_producer`](super::Completion)),
/// which claims and publishes in one read-modify-write, racing the waiter's poll and its
/// giving up: the reply is either taken by the waiter (woken if it had parked) or given
/// back to the replier, never both, never lost; the cell is never reached by both at once.
#[test]
fn loom_a_sole_producers_reply_racing_the_poll_and_a_give_up_lands_once() {
    model(|| {
        let mut waiter = Waiter::<u32>::new();
        let producer = Arc::clone(waiter.completion());
        // SAFETY: the only producer of this completion.
        let replier = thread::spawn(move || unsafe { producer.complete_as_sole_producer(7) }.err());
        assert_eq!(wait(&mut waiter, &unparker()), Ok(7));
        assert_eq!(replier.join().unwrap(), None);
        assert!(waiter.is_done());
    });
    model(|| {
        let mut waiter = Waiter::<u32>::new();
        let producer = Arc::clone(waiter.completion());
        // SAFETY: the only producer of this completion.
        let replier = thread::spawn(move || unsafe { producer.complete_as_sole_producer(7) }.err());
        let kept = match waiter.poll_take(&mut Context::from_waker(&unparker())) {
            Poll::Ready(outcome) => Some(outcome),
            Poll::Pending => waiter.close(),
        };
        let given_back = replier.join().unwrap();
        match kept {
            Some(outcome) => assert_eq!((outcome, given_back), (Ok(7), None)),
            None => assert_eq!(given_back, Some(7)),
        }
        assert!(waiter.is_done());
        assert!(!waiter.is_ready());
    });
}
