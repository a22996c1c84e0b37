//! Unit tests of the task's single-threaded paths: allocation, polls, wakes (idle, during a
//! poll, after completion), drops (of the runnable unrun, of the last waker), panics. They
//! run under miri too (see `.ci/run`), which checks each path frees once and touches only
//! live memory.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::raw::Header;
use super::recorder::Recorder;
use super::{spawn, Runnable};

/// Counts its drops.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// What a [`Probe`] does on its next poll.
#[derive(Clone, Copy)]
enum Step {
    Pending,
    /// Wakes itself through the poll's waker, then returns `Pending`.
    WakeSelf,
    Ready,
    Panic,
}

/// A future that follows a script of steps, keeps the last waker it was polled with, and
/// counts its polls and its drop.
struct Probe {
    steps: Vec<Step>,
    polls: Arc<AtomicUsize>,
    waker: Arc<Mutex<Option<Waker>>>,
    _dropped: Counted,
}

impl Future for Probe {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let n = self.polls.fetch_add(1, Ordering::Relaxed);
        *self.waker.lock().unwrap() = Some(cx.waker().clone());
        match self.steps[n] {
            Step::Pending => Poll::Pending,
            Step::WakeSelf => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Step::Ready => Poll::Ready(()),
            Step::Panic => panic!("a panic escaping the poll"),
        }
    }
}

struct Handles {
    polls: Arc<AtomicUsize>,
    drops: Arc<AtomicUsize>,
    waker: Arc<Mutex<Option<Waker>>>,
}

impl Handles {
    fn polls(&self) -> usize {
        self.polls.load(Ordering::Relaxed)
    }
    fn drops(&self) -> usize {
        self.drops.load(Ordering::Relaxed)
    }
    fn take_waker(&self) -> Waker {
        self.waker.lock().unwrap().take().expect("polled once")
    }
}

fn probe<const N: usize>(steps: &[Step]) -> (Runnable, Handles) {
    let handles = Handles {
        polls: Arc::new(AtomicUsize::new(0)),
        drops: Arc::new(AtomicUsize::new(0)),
        waker: Arc::new(Mutex::new(None)),
    };
    let future = Probe {
        steps: steps.to_vec(),
        polls: Arc::clone(&handles.polls),
        waker: Arc::clone(&handles.waker),
        _dropped: Counted(Arc::clone(&handles.drops)),
    };
    (spawn::<_, Recorder<N>>(future), handles)
}

#[test]
fn the_header_is_16_bytes_and_a_task_is_the_header_and_the_future() {
    assert_eq!(std::mem::size_of::<Header>(), 16);
    // `million`'s runner: a slot pointer and a 48-byte future -> 72 bytes, an 80-byte chunk.
    assert_eq!(super::task_bytes::<[u64; 7]>(), 72);
}

#[test]
fn a_task_polled_to_the_end_drops_its_future_and_is_freed_by_its_last_waker() {
    type R = Recorder<0>;
    let (runnable, h) = probe::<0>(&[Step::Pending, Step::Ready]);
    let kept = runnable.waker();
    assert!(!runnable.run());
    assert_eq!((h.polls(), h.drops()), (1, 0));
    assert!(R::take().is_empty(), "not woken: not scheduled");
    // A wake of the idle task schedules it, once, as not woken while running.
    kept.wake_by_ref();
    kept.wake_by_ref();
    let mut queued = R::take();
    assert_eq!(queued.len(), 1);
    let (runnable, while_running) = queued.pop().unwrap();
    assert!(!while_running);
    assert!(!runnable.run());
    assert_eq!((h.polls(), h.drops()), (2, 1));
    // Completed: wakes do nothing, the memory stays for the wakers.
    kept.wake_by_ref();
    assert!(R::take().is_empty());
    drop(h.take_waker());
    assert_eq!(R::take_freed(), 0);
    drop(kept);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_wake_during_the_poll_reschedules_the_task_after_it() {
    type R = Recorder<1>;
    let (runnable, h) = probe::<1>(&[Step::WakeSelf, Step::Ready]);
    assert!(runnable.run(), "woken while running");
    let mut queued = R::take();
    assert_eq!(queued.len(), 1);
    let (runnable, while_running) = queued.pop().unwrap();
    assert!(while_running);
    assert!(!runnable.run());
    assert_eq!((h.polls(), h.drops()), (2, 1));
    drop(h.take_waker());
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_runnable_dropped_unrun_drops_the_future_and_later_wakes_do_nothing() {
    type R = Recorder<2>;
    let (runnable, h) = probe::<2>(&[Step::Pending]);
    let waker = runnable.waker();
    drop(runnable);
    assert_eq!((h.polls(), h.drops()), (0, 1));
    waker.wake_by_ref();
    assert!(R::take().is_empty());
    assert_eq!(R::take_freed(), 0);
    waker.wake();
    assert!(R::take().is_empty());
    assert_eq!(R::take_freed(), 1);

    // With no waker: freed at once.
    let (runnable, h) = probe::<2>(&[Step::Pending]);
    drop(runnable);
    assert_eq!(h.drops(), 1);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn an_idle_task_whose_last_waker_goes_drops_its_future_and_is_freed() {
    type R = Recorder<3>;
    let (runnable, h) = probe::<3>(&[Step::Pending]);
    let waker = runnable.waker();
    let clone = waker.clone();
    assert!(waker.will_wake(&clone));
    assert!(!runnable.run());
    // The poll's waker is the task's (the slot tells its own task's polls by this).
    assert!(h.take_waker().will_wake(&waker));
    drop(waker);
    assert_eq!((h.drops(), R::take_freed()), (0, 0));
    drop(clone);
    assert_eq!((h.drops(), R::take_freed()), (1, 1));
}

#[test]
fn a_wake_by_value_of_an_idle_task_schedules_it_and_gives_up_its_reference() {
    type R = Recorder<4>;
    let (runnable, h) = probe::<4>(&[Step::Pending, Step::Ready]);
    assert!(!runnable.run());
    h.take_waker().wake();
    assert_eq!(R::run_all(), 1);
    assert_eq!(h.polls(), 2);
    // The last waker was the one of the second poll, dropped with the probe's slot.
    drop(h.take_waker());
    assert_eq!((h.drops(), R::take_freed()), (1, 1));
}

#[test]
fn a_panic_escaping_the_poll_completes_the_task() {
    type R = Recorder<5>;
    let (runnable, h) = probe::<5>(&[Step::Panic]);
    let waker = runnable.waker();
    let caught = catch_unwind(AssertUnwindSafe(|| runnable.run()));
    assert!(caught.is_err(), "the panic goes on to the caller");
    assert_eq!(h.drops(), 1, "the future was dropped");
    waker.wake_by_ref();
    assert!(R::take().is_empty(), "completed: not scheduled again");
    drop(h.take_waker());
    drop(waker);
    assert_eq!(R::take_freed(), 1);
}

/// Panics in its destructor.
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("a panicking destructor");
    }
}

#[test]
fn a_panic_in_the_futures_destructor_is_swallowed_and_the_rest_dropped() {
    type R = Recorder<6>;
    let drops = Arc::new(AtomicUsize::new(0));
    let counted = Counted(Arc::clone(&drops));
    let runnable = spawn::<_, R>(async move {
        let _first = counted;
        let _second = PanicOnDrop;
        std::future::pending::<()>().await;
    });
    // Nothing keeps a waker: the poll's end drops the last reference, and the future.
    assert!(!runnable.run());
    assert_eq!(drops.load(Ordering::Relaxed), 1);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_runnable_travels_as_one_pointer() {
    type R = Recorder<7>;
    let (runnable, h) = probe::<7>(&[Step::Ready]);
    assert_eq!(std::mem::size_of::<Runnable>(), 8);
    let raw = runnable.into_raw();
    // SAFETY: from `into_raw` just above, turned back once.
    let runnable = unsafe { Runnable::from_raw(raw) };
    assert!(!runnable.run());
    assert_eq!((h.polls(), h.drops()), (1, 1));
    drop(h.take_waker());
    assert_eq!(R::take_freed(), 1);
}
