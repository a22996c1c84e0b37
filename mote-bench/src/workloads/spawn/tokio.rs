//! `spawn` on tokio: detached tasks replying over one unbounded channel. The `join_handles`
//! style keeps every task's `JoinHandle` and awaits them in order instead (the handle is
//! tokio's reply channel for a task's result).

use super::SpawnAll;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::unbounded_channel;

/// The `join_handles` style's name.
pub const JOIN_HANDLES: &str = "join_handles";

impl SpawnAll for Tokio {
    fn spawn_all(&self, k: u64) -> Result<Measured<u64>> {
        match self.style {
            None => self.main(async move {
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
            }),
            Some(JOIN_HANDLES) => self.main(async move {
                let start = Instant::now();
                let handles: Vec<_> = (0..k).map(|_| tokio::spawn(async {})).collect();
                let mut replies = 0u64;
                for h in handles {
                    h.await?;
                    replies += 1;
                }
                Ok(Measured::new(ms_since(start), replies))
            }),
            Some(other) => Err(unknown_style("spawn", other)),
        }
    }
}
