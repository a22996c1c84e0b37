//! `spawn` on tokio: detached tasks replying over one unbounded channel.

use super::SpawnAll;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::{closed, tokio_main};
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::unbounded_channel;

impl SpawnAll for Tokio {
    fn spawn_all(&self, k: u64) -> Result<Measured<u64>> {
        tokio_main(async move {
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
            Ok(Measured::new(ms_since(start), replies))
        })
    }
}
