//! Spawns 100,000 processes, tears them all down, and checks that `mote::process_count()`
//! comes back to where it was. This file holds only this test, so nothing else runs in the
//! runtime and the count must return to exactly 0 once the root process has ended too.

use std::time::{Duration, Instant};

use mote::{ExitReason, Pid, Process};

const N: usize = 100_000;

/// Teardown of 100,000 processes in an unoptimised build on a busy 2-core machine takes a
/// while (about a second here); the deadline is generous but finite.
const DEADLINE: Duration = Duration::from_secs(10);

/// Polls `process_count()` until it equals `target`; the last count seen if the deadline
/// passes first.
fn poll_count(target: usize) -> Result<(), usize> {
    let until = Instant::now() + DEADLINE;
    loop {
        let n = mote::process_count();
        if n == target {
            return Ok(());
        }
        if Instant::now() > until {
            return Err(n);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn teardown_100k_processes() {
    assert_eq!(mote::process_count(), 0, "nothing runs before the test");
    let counts = mote::run(|_root: Process<()>| async move {
        let baseline = mote::process_count(); // the root itself
        let pids: Vec<Pid<u8>> = (0..N)
            .map(|_| {
                mote::spawn(|mut c: Process<u8>| async move {
                    // Waits; a message makes it return (normal), an exit signal kills it.
                    c.recv().await;
                })
            })
            .collect();
        let all = mote::process_count();
        // Half end normally, the other half are killed (exit/2 with `kill`).
        for (i, pid) in pids.iter().enumerate() {
            if i % 2 == 0 {
                pid.send(0);
            } else {
                mote::exit(*pid, ExitReason::Kill);
            }
        }
        let until = Instant::now() + DEADLINE;
        while mote::process_count() != baseline && Instant::now() < until {
            mote::sleep(Duration::from_millis(5)).await;
        }
        let after = mote::process_count();
        let still_alive = pids.iter().filter(|p| mote::is_alive(**p)).count();
        (baseline, all, after, still_alive)
    })
    .unwrap();
    let (baseline, all, after, still_alive) = counts;
    assert_eq!(baseline, 1, "only the root process runs");
    assert_eq!(all, baseline + N, "all {N} processes were alive at once");
    assert_eq!(still_alive, 0, "every process has ended");
    assert_eq!(
        after, baseline,
        "process_count returned to its value before the spawns"
    );
    // Once the root has ended as well, nothing is left.
    if let Err(n) = poll_count(0) {
        panic!("process_count() is {n}, not 0, {DEADLINE:?} after the root process ended");
    }
    assert!(
        mote::processes().is_empty(),
        "processes() lists {:?}",
        mote::processes().len()
    );
}
