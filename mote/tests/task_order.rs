//! Where a newly started process waits for its first run: a process at the back of its
//! thread's queue (Erlang's order), a `mote::task` in the thread's one-task LIFO slot (as
//! `tokio::spawn` does), so a spawner that awaits its tasks runs the last one at once, on its
//! own thread, while idle threads take the earlier ones. In a file of its own, so the
//! runtime has exactly one scheduler thread and the order is the scheduler's alone.

use std::any::Any;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mote::{task, Process};

fn one_thread() {
    let _ = mote::Builder::new().worker_threads(1).install();
    assert_eq!(mote::worker_threads(), 1);
}

type Log = Arc<Mutex<Vec<u32>>>;

/// Runs `start(i, log)` for i in 1..=3 inside one poll of a process (keeping what it
/// returns), then waits until all three have written to `log`, and returns the order they
/// ran in.
fn first_runs(start: fn(u32, Log) -> Box<dyn Any + Send>) -> Vec<u32> {
    one_thread();
    mote::run(move |_p: Process<()>| async move {
        let log = Log::default();
        let _handles: Vec<_> = (1..=3).map(|i| start(i, Arc::clone(&log))).collect();
        while log.lock().unwrap().len() < 3 {
            mote::sleep(Duration::from_millis(1)).await;
        }
        let order = log.lock().unwrap().clone();
        order
    })
    .unwrap()
}

#[test]
fn the_last_task_started_runs_first_then_the_others_in_order() {
    let order =
        first_runs(|i, log| Box::new(task::spawn(async move { log.lock().unwrap().push(i) })));
    assert_eq!(order, [3, 1, 2]);
}

#[test]
fn processes_run_in_the_order_they_were_spawned() {
    let order = first_runs(|i, log| {
        Box::new(mote::spawn(move |_p: Process<()>| async move {
            log.lock().unwrap().push(i)
        }))
    });
    assert_eq!(order, [1, 2, 3]);
}
