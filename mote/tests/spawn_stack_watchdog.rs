//! A spawn stack behind a long poll: its processes are run by the other thread. No idle
//! thread takes from another's spawn stack, so the watchdog moves them to the global queue.
//! In a file of its own, so the runtime has exactly two scheduler threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mote::Process;

/// Busy-waits (one long poll) until `done` or `limit` passes; whether `done` came first.
fn spin_until(done: impl Fn() -> bool, limit: Duration) -> bool {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > limit {
            return false;
        }
        std::hint::spin_loop();
    }
    true
}

#[test]
fn a_spawn_stack_behind_a_long_poll_is_run_by_the_idle_thread() {
    let _ = mote::Builder::new().worker_threads(2).install();
    assert_eq!(mote::worker_threads(), 2);
    let ran = mote::run(|mut main: Process<bool>| async move {
        // One thread held by a long poll, so that nothing steals from the other while it
        // fills its queue.
        let hold = Arc::new(AtomicBool::new(true));
        let holding = Arc::new(AtomicBool::new(false));
        {
            let (hold, holding) = (Arc::clone(&hold), Arc::clone(&holding));
            mote::spawn(move |_h: Process<()>| async move {
                holding.store(true, Ordering::Release);
                spin_until(|| !hold.load(Ordering::Acquire), Duration::from_secs(30));
            });
        }
        assert!(spin_until(
            || holding.load(Ordering::Acquire),
            Duration::from_secs(30)
        ));
        // On this thread's queue: the spawner, then enough quick processes to make it deep.
        let children = Arc::new(AtomicUsize::new(0));
        let me = main.pid();
        mote::spawn(move |_s: Process<()>| async move {
            // Its ten children go to the spawn stack (the queue behind it is deep); then it
            // waits for them inside this poll, the other thread let go.
            for _ in 0..10 {
                let children = Arc::clone(&children);
                mote::spawn(move |_c: Process<()>| async move {
                    children.fetch_add(1, Ordering::AcqRel);
                });
            }
            hold.store(false, Ordering::Release);
            me.send(spin_until(
                || children.load(Ordering::Acquire) == 10,
                Duration::from_secs(10),
            ));
        });
        for _ in 0..300 {
            mote::spawn(|_q: Process<()>| async {});
        }
        main.recv().await
    })
    .unwrap();
    assert!(
        ran,
        "the spawn stack's processes waited for the poll in front of them"
    );
}
