//! Unit tests of the task's single-threaded paths: allocation, polls, wakes (idle, during a
//! poll, after completion, stale ones of an ended incarnation), drops (of the runnable
//! unrun, of the cell), reuse of a cell, panics. They run under miri too (see `.ci/run`),
//! which checks each path frees once and touches only live memory.

use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::raw::Header;
use super::recorder::{OwnedCell, Recorder};
use super::{task_bytes, Runnable, TaskBody, TaskCell};

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

fn probe<const N: usize>(cell: &OwnedCell, steps: &[Step]) -> (Runnable, Handles) {
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
    (cell.spawn::<_, Recorder<N>>(future), handles)
}

#[test]
fn the_header_is_8_bytes_the_cell_16_and_a_task_is_the_header_and_the_body() {
    assert_eq!(std::mem::size_of::<Header>(), 8);
    assert_eq!(std::mem::size_of::<TaskCell>(), 16);
    // `million`'s runner: a 48-byte future -> 56 bytes, a 64-byte chunk.
    assert_eq!(task_bytes::<[u64; 6]>(), 56);
}

#[test]
fn a_task_polled_to_the_end_drops_its_future_and_is_freed_when_its_cell_is_reused() {
    type R = Recorder<0>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<0>(&cell, &[Step::Pending, Step::Ready]);
    let kept = cell.waker();
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
    // Completed: wakes do nothing, the memory stays until the cell is reused.
    kept.wake_by_ref();
    assert!(R::take().is_empty());
    drop(h.take_waker());
    assert_eq!(R::take_freed(), 0);
    let (runnable, next) = probe::<0>(&cell, &[Step::Pending, Step::Ready]);
    assert_eq!(
        R::take_freed(),
        1,
        "the last incarnation freed by the spawn"
    );
    assert!(!runnable.run());
    // The old waker names the cell: it wakes the new incarnation (a spurious poll).
    kept.wake();
    assert_eq!(R::run_all(), 1);
    assert_eq!((next.polls(), next.drops()), (2, 1));
    drop(cell);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_wake_during_the_poll_reschedules_the_task_after_it() {
    type R = Recorder<1>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<1>(&cell, &[Step::WakeSelf, Step::Ready]);
    assert!(runnable.run(), "woken while running");
    let mut queued = R::take();
    assert_eq!(queued.len(), 1);
    let (runnable, while_running) = queued.pop().unwrap();
    assert!(while_running);
    assert!(!runnable.run());
    assert_eq!((h.polls(), h.drops()), (2, 1));
    drop(cell);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_runnable_dropped_unrun_drops_the_future_and_later_wakes_do_nothing() {
    type R = Recorder<2>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<2>(&cell, &[Step::Pending]);
    let waker = cell.waker();
    drop(runnable);
    assert_eq!((h.polls(), h.drops()), (0, 1));
    waker.wake_by_ref();
    waker.wake();
    assert!(R::take().is_empty());
    assert_eq!(R::take_freed(), 0);
    drop(cell);
    assert_eq!((h.drops(), R::take_freed()), (1, 1));
}

#[test]
fn an_idle_task_keeps_its_future_until_its_cell_is_dropped() {
    type R = Recorder<3>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<3>(&cell, &[Step::Pending]);
    let waker = cell.waker();
    let clone = waker.clone();
    assert!(waker.will_wake(&clone));
    assert!(cell.get().is_waker(&clone));
    assert!(!runnable.run());
    // The poll's waker is the task's (the slot tells its own task's polls by this).
    let polled_with = h.take_waker();
    assert!(polled_with.will_wake(&waker));
    assert!(cell.get().is_waker(&polled_with));
    let other = OwnedCell::new();
    assert!(!other.get().is_waker(&polled_with));
    drop((waker, clone, polled_with));
    assert_eq!((h.drops(), R::take_freed()), (0, 0));
    drop(cell);
    assert_eq!((h.drops(), R::take_freed()), (1, 1));
}

#[test]
fn a_wake_by_value_of_an_idle_task_schedules_it() {
    type R = Recorder<4>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<4>(&cell, &[Step::Pending, Step::Ready]);
    assert!(!runnable.run());
    h.take_waker().wake();
    assert_eq!(R::run_all(), 1);
    assert_eq!((h.polls(), h.drops()), (2, 1));
    drop(cell);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_panic_escaping_the_poll_completes_the_task() {
    type R = Recorder<5>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<5>(&cell, &[Step::Panic]);
    let waker = cell.waker();
    let caught = catch_unwind(AssertUnwindSafe(|| runnable.run()));
    assert!(caught.is_err(), "the panic goes on to the caller");
    assert_eq!(h.drops(), 1, "the future was dropped");
    waker.wake_by_ref();
    assert!(R::take().is_empty(), "completed: not scheduled again");
    drop(cell);
    assert_eq!((h.drops(), R::take_freed()), (1, 1));
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
    let cell = OwnedCell::new();
    let runnable = cell.spawn::<_, R>(async move {
        let _first = counted;
        let _second = PanicOnDrop;
        std::future::pending::<()>().await;
    });
    assert!(!runnable.run());
    // The idle task's future goes with its cell.
    drop(cell);
    assert_eq!(drops.load(Ordering::Relaxed), 1);
    assert_eq!(R::take_freed(), 1);
}

#[test]
fn a_runnable_travels_as_one_pointer() {
    type R = Recorder<7>;
    let cell = OwnedCell::new();
    let (runnable, h) = probe::<7>(&cell, &[Step::Ready]);
    assert_eq!(std::mem::size_of::<Runnable>(), 8);
    let raw = runnable.into_raw();
    // SAFETY: from `into_raw` just above, turned back once.
    let runnable = unsafe { Runnable::from_raw(raw) };
    assert!(!runnable.run());
    assert_eq!((h.polls(), h.drops()), (1, 1));
    drop(cell);
    assert_eq!(R::take_freed(), 1);
}

/// A body that ends itself during its poll the way the process runner does: it marks the
/// task completed, drops its value in place, and then returns `Ready` or panics.
struct SelfEnding {
    value: ManuallyDrop<Counted>,
    panic_after: bool,
}

impl TaskBody for SelfEnding {
    fn poll(self: Pin<&mut Self>, cell: &TaskCell, _: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: from the body's own poll.
        unsafe { cell.complete_in_poll() };
        // SAFETY: live until here (the task drops a completed body never), not used again.
        unsafe { ManuallyDrop::drop(&mut this.value) };
        if this.panic_after {
            panic!("a panic after the body ended itself");
        }
        Poll::Ready(())
    }
}

impl Drop for SelfEnding {
    fn drop(&mut self) {
        // SAFETY: the task drops the body only if it did not end itself.
        unsafe { ManuallyDrop::drop(&mut self.value) };
    }
}

#[test]
fn a_body_that_completes_itself_is_not_dropped_again() {
    type R = Recorder<12>;
    for panic_after in [false, true] {
        let drops = Arc::new(AtomicUsize::new(0));
        let cell = OwnedCell::new();
        let body = SelfEnding {
            value: ManuallyDrop::new(Counted(Arc::clone(&drops))),
            panic_after,
        };
        // SAFETY: the cell outlives the runnable and every waker (none is made).
        let runnable = unsafe { cell.get().spawn::<_, R>(body) };
        let ran = catch_unwind(AssertUnwindSafe(|| runnable.run()));
        assert_eq!(ran.is_err(), panic_after);
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        cell.waker().wake();
        assert!(R::take().is_empty(), "completed: wakes do nothing");
        drop(cell);
        assert_eq!((drops.load(Ordering::Relaxed), R::take_freed()), (1, 1));
    }
}
