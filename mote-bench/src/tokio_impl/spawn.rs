//! `spawn`: K short-lived tasks spawned one after another, each sending `done` to main.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::unbounded_channel;

/// Runs `spawn`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("spawn", variant));
    }
    let k = p.get("k")?;
    run_main(async move {
        let start = Instant::now();
        let (done_tx, mut done_rx) = unbounded_channel::<()>();
        for _ in 0..k {
            let done = done_tx.clone();
            // Detached: the JoinHandle is dropped, the reply is the only result.
            tokio::spawn(async move {
                let _ = done.send(());
            });
        }
        drop(done_tx);
        let mut replies = 0u64;
        while replies < k {
            done_rx.recv().await.ok_or_else(|| closed("spawn main"))?;
            replies += 1;
        }
        let wall_ms = ms_since(start);
        check(replies == k, || {
            format!("spawn: {replies} replies, expected {k}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
