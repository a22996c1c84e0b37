//! What an idle process costs: spawns N processes (default 1,000,000) that block in a receive,
//! then prints the program's resident memory, read from `/proc/self/status` (Linux).
//!
//! `cargo run --release -p examples --example idle_memory -- 1000000`

use std::time::Duration;

use mote::Process;

/// A line of `/proc/self/status`, in MB (`VmRSS` now, `VmHWM` the peak so far).
fn status_mb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let before = status_mb("VmRSS:").unwrap_or(0);
    mote::run(move |mut p: Process<()>| async move {
        let me = p.pid();
        let pids: Vec<_> = (0..n)
            .map(|_| {
                mote::spawn(move |mut c: Process<()>| async move {
                    c.recv().await;
                    me.send(());
                })
            })
            .collect();
        // Give every process its first poll, so each is parked in its receive.
        mote::sleep(Duration::from_millis(300)).await;
        let idle = status_mb("VmRSS:").unwrap_or(0);
        println!(
            "{n} idle processes: {idle} MB resident for the whole program \
             (started at {before} MB; main's Vec of pids is {} MB), about {} bytes each",
            (n * std::mem::size_of::<mote::Pid<()>>()) >> 20,
            (idle.saturating_sub(before) << 20) / n.max(1) as u64,
        );
        for pid in &pids {
            pid.send(());
        }
        for _ in 0..n {
            p.recv().await;
        }
        println!(
            "after they all ended: peak {} MB",
            status_mb("VmHWM:").unwrap_or(0)
        );
    })
    .unwrap();
}
