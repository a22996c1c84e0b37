//! `skynet`: a tree of tasks with fan-out 10; leaves reply their offset, inner nodes sum their
//! children's replies.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

const FAN_OUT: u64 = 10;

/// Runs `skynet`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("skynet", variant));
    }
    let l = p.get("l")?;
    run_main(async move {
        let start = Instant::now();
        let (tx, mut rx) = unbounded_channel::<u64>();
        spawn_node(0, l, tx);
        let sum = rx.recv().await.ok_or_else(|| closed("skynet root"))?;
        let wall_ms = ms_since(start);
        let expect = l * (l - 1) / 2;
        check(sum == expect, || {
            format!("skynet: sum {sum}, expected {expect}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}

/// Spawns the node covering leaves `[off, off + size)`. A plain function that spawns (rather
/// than a recursive `async fn`) keeps the future type finite without boxing.
fn spawn_node(off: u64, size: u64, parent: UnboundedSender<u64>) {
    tokio::spawn(async move {
        if size == 1 {
            let _ = parent.send(off);
            return;
        }
        let (tx, mut rx) = unbounded_channel::<u64>();
        let child = size / FAN_OUT;
        for i in 0..FAN_OUT {
            spawn_node(off + i * child, child, tx.clone());
        }
        drop(tx);
        let mut sum = 0;
        for _ in 0..FAN_OUT {
            match rx.recv().await {
                Some(v) => sum += v,
                // A child vanished: leave the parent without a reply so main reports it.
                None => return,
            }
        }
        let _ = parent.send(sum);
    });
}
