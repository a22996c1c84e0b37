//! `million`: K tasks each blocked on its own mailbox, then woken once and replying to main.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// Runs `million`; reports `spawn_ms`, the time until all K tasks are spawned.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("million", variant));
    }
    let k = p.get_usize("k")?;
    run_main(async move {
        let start = Instant::now();
        let (done_tx, mut done_rx) = unbounded_channel::<()>();
        let mut mailboxes: Vec<UnboundedSender<()>> = Vec::with_capacity(k);
        for _ in 0..k {
            let (tx, mut rx) = unbounded_channel::<()>();
            let done = done_tx.clone();
            tokio::spawn(async move {
                if rx.recv().await.is_some() {
                    // Main outlives every task, so the reply cannot fail in a correct run; a
                    // missing reply is caught by main's count.
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
        let mut replies = 0usize;
        while replies < k {
            done_rx.recv().await.ok_or_else(|| closed("million main"))?;
            replies += 1;
        }
        let wall_ms = ms_since(start);
        check(replies == k, || {
            format!("million: {replies} replies, expected {k}")
        })?;
        Ok(Outcome::new(wall_ms).with_extra("spawn_ms", format!("{spawn_ms:.3}")))
    })
}
