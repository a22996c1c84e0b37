//! `fanin`: S sender tasks each send N/S ones to a single receiver task, which counts to N and
//! then tells main.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc::unbounded_channel, oneshot};

/// Runs `fanin`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("fanin", variant));
    }
    let (s, n) = (p.get("s")?, p.get("n")?);
    let per_sender = n / s;
    run_main(async move {
        let start = Instant::now();
        let (to_receiver, mut rx) = unbounded_channel::<u64>();
        let (report_tx, report_rx) = oneshot::channel::<(u64, u64)>();
        tokio::spawn(async move {
            let (mut count, mut sum) = (0u64, 0u64);
            while count < n {
                match rx.recv().await {
                    Some(v) => {
                        count += 1;
                        sum += v;
                    }
                    None => break,
                }
            }
            let _ = report_tx.send((count, sum));
        });
        for _ in 0..s {
            let tx = to_receiver.clone();
            tokio::spawn(async move {
                for _ in 0..per_sender {
                    if tx.send(1).is_err() {
                        break;
                    }
                }
            });
        }
        drop(to_receiver);
        let (count, sum) = report_rx.await.map_err(|_| closed("fanin receiver"))?;
        let wall_ms = ms_since(start);
        check(count == n && sum == n, || {
            format!("fanin: count {count}, sum {sum}, expected {n}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
