//! `ring`: a token counted down from T around a ring of P tasks; the task that sees 0 reports
//! its index to main.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// Runs `ring`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("ring", variant));
    }
    let (t, procs) = (p.get("t")?, p.get_usize("p")?);
    run_main(async move {
        let start = Instant::now();
        let (main_tx, mut main_rx) = unbounded_channel::<usize>();
        // Mailboxes first: task j needs the sender of task j+1 before any task exists.
        let (txs, rxs): (Vec<UnboundedSender<u64>>, Vec<UnboundedReceiver<u64>>) =
            (0..procs).map(|_| unbounded_channel::<u64>()).unzip();
        let first = txs[0].clone();
        for (j, mut rx) in rxs.into_iter().enumerate() {
            let next = txs[(j + 1) % procs].clone();
            let report = main_tx.clone();
            tokio::spawn(async move {
                while let Some(v) = rx.recv().await {
                    if v == 0 {
                        let _ = report.send(j);
                        break;
                    }
                    if next.send(v - 1).is_err() {
                        break;
                    }
                }
            });
        }
        // Only the tasks hold ring senders now, so the ring shuts itself down after the report.
        drop(txs);
        first.send(t).map_err(|_| closed("ring head"))?;
        drop(first);
        let index = main_rx.recv().await.ok_or_else(|| closed("ring report"))?;
        let wall_ms = ms_since(start);
        let expect = (t % procs as u64) as usize;
        check(index == expect, || {
            format!("ring: token stopped at {index}, expected {expect}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
