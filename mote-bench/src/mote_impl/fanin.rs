//! `fanin`: S sender processes each send N/S ones to a single receiver process, which counts
//! to N and then tells main.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::Process;
use std::time::Instant;

/// Runs `fanin`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("fanin", variant));
    }
    let (s, n) = (p.get("s")?, p.get("n")?);
    let per_sender = n / s;
    run_main(move |mut main: Process<(u64, u64)>| async move {
        let start = Instant::now();
        let report = main.pid();
        let receiver = mote::spawn(move |mut rx: Process<u64>| async move {
            let (mut count, mut sum) = (0u64, 0u64);
            while count < n {
                sum += rx.recv().await;
                count += 1;
            }
            report.send((count, sum));
        });
        for _ in 0..s {
            mote::spawn(move |_sender: Process<()>| async move {
                for _ in 0..per_sender {
                    receiver.send(1);
                }
            });
        }
        let (count, sum) = main.recv().await;
        let wall_ms = ms_since(start);
        check(count == n && sum == n, || {
            format!("fanin: count {count}, sum {sum}, expected {n}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
