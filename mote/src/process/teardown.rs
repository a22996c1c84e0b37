//! The end of a run: the processes a [`run`](crate::run) leaves behind end with it.
//!
//! Every process belongs to a *run group*, inherited from the process that spawned it; the
//! root process of each `run` or `run_async` starts a new group. When the root ends, every
//! process still alive in its group is ended with reason `shutdown`, as `init:stop` ends
//! every process of a BEAM node: its future is dropped (so destructors run), and its links
//! and monitors fire with `shutdown`. `run` returns only once they have all ended.
//!
//! Groups keep the runs of one OS process apart (the tests of a test binary run their
//! `mote::run`s side by side, on one runtime): a run ends only its own processes. A process
//! spawned from outside any process (a plain thread, a tokio task) belongs to no group and
//! outlives every run.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::rt::signals;
use crate::rt::table::TABLE;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// A new run group, never 0 (0 is "no group").
pub(crate) fn new_group() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    loop {
        let g = NEXT.fetch_add(1, Ordering::Relaxed);
        if g != 0 {
            return g;
        }
    }
}

/// Asks every live process of `group` but `root` to end with `shutdown`. Returns how many
/// were still alive (the root included): 0 once the group is gone.
fn end_group(group: u32, root: ProcessId) -> usize {
    let mut alive = 0;
    for slot in TABLE.slots() {
        // A live process of the group, or a stale id (the slot recycled meanwhile), which
        // `terminate` refuses; never a process of another run (see `live_id_in_group`).
        let Some(id) = slot.live_id_in_group(group) else {
            continue;
        };
        // The root is ending by itself; every other process is told to.
        if id == root || signals::terminate(id, ExitReason::Shutdown) {
            alive += 1;
        }
    }
    alive
}

/// How long to wait between looks at a group that is ending (processes end at their next
/// poll; one spawned by a destructor meanwhile is caught by the next look).
const LOOK_AGAIN: Duration = Duration::from_millis(1);

/// Ends `group`, blocking the thread until all its processes have ended.
pub(crate) fn end_group_blocking(group: u32, root: ProcessId) {
    while end_group(group, root) > 0 {
        std::thread::sleep(LOOK_AGAIN);
    }
}

/// Ends `group`, waiting asynchronously until all its processes have ended.
pub(crate) async fn end_group_async(group: u32, root: ProcessId) {
    while end_group(group, root) > 0 {
        crate::process::sleep::sleep(LOOK_AGAIN).await;
    }
}
