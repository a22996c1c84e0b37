//! A process that spawns many short-lived processes in one long poll (a loop with no await
//! in it) must not hold back the reuse of their slots: each poll pins the thread's memory
//! epoch so that its sends can skip reference counting, and a dead process's slot is
//! recycled only once every pin older than its death is gone. Before spawning moved the
//! spawner's pin forward, a million spawns in one loop kept a million slots (and tasks)
//! until the loop ended. This file holds only this test, so no other process runs beside it.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use mote::Process;

const SPAWNS: usize = 5_000;

#[test]
fn a_long_spawning_poll_lets_the_slots_of_ended_children_be_reused() {
    // Two workers: the spawner's loop occupies one, its children run on the other.
    mote::Builder::new()
        .worker_threads(2)
        .install()
        .expect("the first runtime of this binary");
    let distinct = mote::run(|_root: Process<()>| async move {
        let mut numbers = HashSet::new();
        for _ in 0..SPAWNS {
            let before = mote::process_count();
            let child = mote::spawn(|_c: Process<()>| async {});
            numbers.insert(child.id().number());
            // Without yielding: wait until the child has ended on the other worker.
            let deadline = Instant::now() + Duration::from_secs(10);
            while mote::process_count() > before {
                assert!(Instant::now() < deadline, "a child did not end");
                std::hint::spin_loop();
            }
        }
        numbers.len()
    })
    .expect("the root ends normally");
    // At most one child is alive at a time; with recycling held back for the whole loop,
    // every spawn would take a slot never used before.
    assert!(
        distinct < SPAWNS / 2,
        "{distinct} distinct slots for {SPAWNS} processes that lived one at a time"
    );
}
