//! How the scheduler's two threads share a request/reply exchange: without waking a sleeping
//! thread per message, and still running a process that waits behind a long poll on the
//! other thread. In a file of its own, so the runtime has exactly two scheduler threads and
//! the wake-up counts are this file's alone (its tests take turns).

mod common;

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::wait_until;
use mote::{metrics, Pid, Process};

/// The tests take turns: each counts the runtime's sleeps or needs its idle thread.
static TURN: Mutex<()> = Mutex::new(());

fn two_threads() {
    // Fails only if another test of this file installed first: with the same count.
    let _ = mote::Builder::new().worker_threads(2).install();
    assert_eq!(mote::worker_threads(), 2);
}

fn sleeps(m: &metrics::RuntimeMetrics) -> u64 {
    m.workers.iter().map(|w| w.sleeps).sum()
}

/// A worker's request for the next item.
struct Ask(Pid<Option<u64>>);

/// A master hands items to two workers that ask for the next one when done (the `workers
/// steal` benchmark's shape: three processes on two threads, a request and a reply per
/// item). The master's reply to one worker displaces the other from the thread's one-task
/// LIFO slot into its queue; that task is the thread's next but one. Waking the other
/// thread for it (which the scheduler did on every such push) put a thread to sleep and
/// woke it again about once per 25 items, each time a system call and tens of
/// microseconds: about 2,000 sleeps for these 50,000 items, and three times the run time.
/// Now a lone queued task wakes nobody, and a thread that finds none spins briefly before
/// it sleeps: a handful of sleeps in all.
#[test]
fn request_reply_among_three_processes_does_not_wake_a_thread_per_message() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    two_threads();
    const ITEMS: u64 = 50_000;
    let (sum, slept) = mote::run(|mut master: Process<Ask>| async move {
        let me = master.pid();
        for _ in 0..2 {
            mote::spawn(move |mut worker: Process<Option<u64>>| async move {
                let pid = worker.pid();
                loop {
                    me.send(Ask(pid));
                    match worker.recv().await {
                        // A little work per item, as the benchmark's factor counts.
                        Some(item) => {
                            black_box((0..50).fold(item, |a, b| a.wrapping_mul(31) ^ b));
                        }
                        None => return,
                    }
                }
            });
        }
        let before = metrics::snapshot();
        let mut sum = 0;
        for item in 1..=ITEMS {
            let Ask(worker) = master.recv().await;
            worker.send(Some(item));
            sum += item;
        }
        let after = metrics::snapshot();
        for _ in 0..2 {
            let Ask(worker) = master.recv().await;
            worker.send(None);
        }
        (sum, sleeps(&after) - sleeps(&before))
    })
    .unwrap();
    assert_eq!(sum, ITEMS * (ITEMS + 1) / 2);
    assert!(
        slept < ITEMS / 100,
        "scheduler threads fell asleep {slept} times in {ITEMS} request/reply exchanges"
    );
}

/// A process that waits in a thread's queue (not its LIFO slot) while the process that
/// thread runs computes without yielding still runs, on the other, idle thread: pushing a
/// lone task into a queue wakes no sleeper, so the watchdog must notice the owner's long
/// poll and wake one. W wakes B and then C; C, woken last, runs next on W's thread (B waits
/// in the queue behind it) and computes until B has run, for at most 5 s (B runs within
/// milliseconds; the bound is generous for a loaded machine).
#[test]
fn process_queued_behind_a_long_poll_runs_on_the_idle_thread() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    two_threads();
    let ran = mote::run(|mut w: Process<()>| async move {
        let flag = Arc::new(AtomicBool::new(false));
        let (seen, done) = (Arc::clone(&flag), Arc::clone(&flag));
        let me = w.pid();
        let b = mote::spawn(move |mut b: Process<()>| async move {
            b.recv().await;
            seen.store(true, Ordering::SeqCst);
        });
        let c = mote::spawn(move |mut c: Process<()>| async move {
            c.recv().await;
            let until = Instant::now() + Duration::from_secs(5);
            while !done.load(Ordering::SeqCst) && Instant::now() < until {
                std::hint::spin_loop();
            }
            me.send(());
        });
        let waiting = |pid: mote::ProcessId| {
            mote::process_info(pid).is_some_and(|i| i.status == mote::Status::Waiting)
        };
        wait_until("B and C wait in their receives", || {
            waiting(b.id()) && waiting(c.id())
        })
        .await;
        // Both threads fall asleep (W's own wake-up after this sleep wakes one).
        mote::sleep(Duration::from_millis(20)).await;
        b.send(());
        c.send(());
        w.recv().await;
        flag.load(Ordering::SeqCst)
    })
    .unwrap();
    assert!(
        ran,
        "B did not run while C computed for 5 s, although a scheduler thread was idle"
    );
}

/// The metrics count what the scheduler threads do to share work: W sleeps (both threads
/// fall asleep; the timer's wake-up of W wakes one), then spawns 16 processes that each
/// compute for a millisecond. They wait in W's thread's queue, so the other thread is woken
/// for them and steals some; when the work runs out, the threads spin before they sleep.
#[test]
fn wakeups_steals_and_spins_are_counted() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    two_threads();
    let (before, after) = mote::run(|mut w: Process<()>| async move {
        mote::sleep(Duration::from_millis(20)).await;
        let before = metrics::snapshot();
        let me = w.pid();
        for _ in 0..16 {
            mote::spawn(move |_: Process<()>| async move {
                let until = Instant::now() + Duration::from_millis(1);
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                me.send(());
            });
        }
        for _ in 0..16 {
            w.recv().await;
        }
        (before, metrics::snapshot())
    })
    .unwrap();
    let sum = |m: &metrics::RuntimeMetrics, f: fn(&metrics::WorkerMetrics) -> u64| -> u64 {
        m.workers.iter().map(f).sum()
    };
    assert!(before.wakeups >= 1, "W's timer woke a sleeping thread");
    assert!(
        after.wakeups > before.wakeups,
        "the spawned processes woke the other thread: {before:?} -> {after:?}"
    );
    assert!(
        sum(&after, |w| w.steals) > sum(&before, |w| w.steals),
        "the other thread stole: {before:?} -> {after:?}"
    );
    assert!(
        sum(&after, |w| w.spins) > sum(&before, |w| w.spins),
        "a thread spun once its work ran out: {before:?} -> {after:?}"
    );
}
