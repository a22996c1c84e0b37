//! Model checks of the task's state word: a wake racing the end of a poll is not lost (the
//! task runs again, and that poll sees what the waker did before waking), a wake racing
//! completion schedules nothing, concurrent wakes of an idle task schedule it once, and a
//! stale wake racing the cell's reuse makes at most one runnable, of the new incarnation.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p mote --lib --release loom`. Without
//! `--cfg loom` the same bodies run as plain threaded tests, many times over (and under
//! miri, see `.ci/run`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::recorder::{OwnedCell, Recorder};
use crate::rt::sync::models::{model, thread};
use crate::rt::sync::{AtomicBool, Ordering};

/// Counts of what happened to a [`Gate`] (read after the threads are joined).
#[derive(Default)]
struct Seen {
    polls: StdAtomicUsize,
    ready: StdAtomicUsize,
    drops: StdAtomicUsize,
}

impl Seen {
    fn get(&self) -> (usize, usize, usize) {
        let load = |n: &StdAtomicUsize| n.load(std::sync::atomic::Ordering::Relaxed);
        (load(&self.polls), load(&self.ready), load(&self.drops))
    }
}

/// Ready once `open` is set (read Relaxed: the wake must order the opener's store before
/// the poll), pending until then.
struct Gate {
    open: Arc<AtomicBool>,
    seen: Arc<Seen>,
}

impl Future for Gate {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let relaxed = std::sync::atomic::Ordering::Relaxed;
        self.seen.polls.fetch_add(1, relaxed);
        if self.open.load(Ordering::Relaxed) {
            self.seen.ready.fetch_add(1, relaxed);
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.seen
            .drops
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

fn gate(open: bool) -> (Gate, Arc<AtomicBool>, Arc<Seen>) {
    let flag = Arc::new(AtomicBool::new(open));
    let seen = Arc::new(Seen::default());
    let gate = Gate {
        open: Arc::clone(&flag),
        seen: Arc::clone(&seen),
    };
    (gate, flag, seen)
}

#[test]
fn loom_a_wake_racing_the_end_of_a_poll_runs_the_task_again() {
    type R = Recorder<8>;
    model(|| {
        let cell = OwnedCell::new();
        let (gate, open, seen) = gate(false);
        let runnable = cell.spawn::<_, R>(gate);
        let waker = cell.waker();
        let opener = thread::spawn(move || {
            open.store(true, Ordering::Relaxed);
            waker.wake();
        });
        runnable.run();
        opener.join().unwrap();
        R::run_all();
        let (polls, ready, drops) = seen.get();
        assert_eq!((ready, drops), (1, 1), "the wake was lost ({polls} polls)");
        assert!(polls <= 2);
        drop(cell);
        assert_eq!(R::take_freed(), 1);
    });
}

#[test]
fn loom_a_wake_racing_completion_schedules_nothing() {
    type R = Recorder<9>;
    model(|| {
        let cell = OwnedCell::new();
        let (gate, _open, seen) = gate(true);
        let runnable = cell.spawn::<_, R>(gate);
        let waker = cell.waker();
        let waking = thread::spawn(move || {
            waker.wake_by_ref();
            drop(waker);
        });
        assert!(!runnable.run());
        waking.join().unwrap();
        assert!(R::take().is_empty(), "a completed task was scheduled");
        assert_eq!(seen.get(), (1, 1, 1));
        drop(cell);
        assert_eq!(R::take_freed(), 1);
    });
}

#[test]
fn loom_concurrent_wakes_of_an_idle_task_schedule_it_once() {
    type R = Recorder<10>;
    model(|| {
        let cell = OwnedCell::new();
        let (gate, open, seen) = gate(false);
        let runnable = cell.spawn::<_, R>(gate);
        let first = cell.waker();
        let second = first.clone();
        assert!(!runnable.run());
        open.store(true, Ordering::Relaxed);
        let wakers: Vec<_> = [first, second]
            .into_iter()
            .map(|waker| {
                thread::spawn(move || {
                    waker.wake_by_ref();
                    drop(waker);
                })
            })
            .collect();
        for waker in wakers {
            waker.join().unwrap();
        }
        let mut queued = R::take();
        assert_eq!(queued.len(), 1, "scheduled {} times", queued.len());
        let (runnable, woken_while_running) = queued.pop().unwrap();
        assert!(!woken_while_running);
        assert!(!runnable.run());
        assert_eq!(seen.get(), (2, 1, 1));
        drop(cell);
        assert_eq!(R::take_freed(), 1);
    });
}

/// A waker of an incarnation that ends races the cell's reuse by the next: it does nothing,
/// or wakes the new incarnation (a spurious poll); never two runnables, never a runnable of
/// the ended one.
#[test]
fn loom_a_stale_wake_racing_reuse_makes_at_most_one_runnable_of_the_new_incarnation() {
    type R = Recorder<11>;
    model(|| {
        let cell = OwnedCell::new();
        let (first, _open, first_seen) = gate(true);
        let runnable = cell.spawn::<_, R>(first);
        let stale = cell.waker();
        let waking = thread::spawn(move || stale.wake());
        assert!(!runnable.run());
        // The first incarnation completed and its run is over: the cell may be reused.
        let (second, _open, second_seen) = gate(false);
        let runnable = cell.spawn::<_, R>(second);
        // A stale wake during this poll reschedules it (a spurious poll to come).
        let woken_while_running = runnable.run();
        waking.join().unwrap();
        let queued = R::take();
        assert!(queued.len() <= 1, "scheduled {} times", queued.len());
        if woken_while_running {
            assert_eq!(queued.len(), 1, "woken during its poll: rescheduled");
        }
        for (runnable, _) in queued {
            assert!(!runnable.run());
        }
        assert_eq!(first_seen.get(), (1, 1, 1));
        let (polls, ready, drops) = second_seen.get();
        assert!((1..=2).contains(&polls) && (ready, drops) == (0, 0));
        assert_eq!(R::take_freed(), 1, "the first freed by the reuse");
        drop(cell);
        assert_eq!(second_seen.get().2, 1);
        assert_eq!(R::take_freed(), 1);
    });
}
