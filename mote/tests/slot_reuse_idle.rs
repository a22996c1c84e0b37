//! A worker holds its memory epoch pinned across a batch of task runs (so that each process
//! poll need not pin on its own), and a dead process's slot is recycled only once every pin
//! older than its death is gone. A worker that ran out of work must therefore let go of its
//! pin before it sleeps: asleep pinned, it would keep every slot freed before it fell asleep
//! until work came again, and with one worker, for good. This file holds only this test, so
//! no other process runs beside it.

use std::collections::HashSet;
use std::time::Duration;

use mote::Process;

// Fewer than the 64 spawns after which a spawning process moves its pin forward (which
// would hide a worker that never lets go of it).
const ROUNDS: usize = 60;

#[test]
fn slots_of_ended_processes_are_reused_while_the_only_worker_idles() {
    mote::Builder::new()
        .worker_threads(1)
        .install()
        .expect("the first runtime of this binary");
    let distinct = mote::run(|_root: Process<()>| async move {
        let mut numbers = HashSet::new();
        for _ in 0..ROUNDS {
            let child = mote::spawn(|_c: Process<()>| async {});
            numbers.insert(child.id().number());
            // Asleep, the root leaves the worker with nothing to run: it sleeps too.
            while mote::is_alive(child) {
                mote::sleep(Duration::from_millis(1)).await;
            }
            mote::sleep(Duration::from_millis(1)).await;
        }
        numbers.len()
    })
    .expect("the root ends normally");
    // One child is alive at a time; with recycling held back, every spawn would take a slot
    // never used before.
    assert!(
        distinct < ROUNDS / 2,
        "{distinct} distinct slots for {ROUNDS} processes that lived one at a time"
    );
}
