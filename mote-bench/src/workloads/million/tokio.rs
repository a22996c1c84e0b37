//! `million` on tokio: K tasks each blocked on its own unbounded mailbox.

use super::WakeAll;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::{closed, tokio_main};
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

impl WakeAll for Tokio {
    fn wake_all(&self, k: usize) -> Result<Measured<u64>> {
        tokio_main(async move {
            let start = Instant::now();
            let (done_tx, mut done_rx) = unbounded_channel::<()>();
            let mut mailboxes: Vec<UnboundedSender<()>> = Vec::with_capacity(k);
            for _ in 0..k {
                let (tx, mut rx) = unbounded_channel::<()>();
                let done = done_tx.clone();
                tokio::spawn(async move {
                    if rx.recv().await.is_some() {
                        // Main outlives every task, so the reply cannot fail in a correct
                        // run; a missing reply is caught by main's count.
                        let _ = done.send(());
                    }
                });
                mailboxes.push(tx);
            }
            let spawn_ms = ms_since(start);
            drop(done_tx);
            for tx in &mailboxes {
                tx.send(()).map_err(|_| closed("million task"))?;
            }
            let mut replies = 0u64;
            while replies < k as u64 {
                done_rx.recv().await.ok_or_else(|| closed("million main"))?;
                replies += 1;
            }
            Ok(Measured::new(ms_since(start), replies)
                .with_extra("spawn_ms", format!("{spawn_ms:.3}")))
        })
    }
}
