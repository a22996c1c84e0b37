//! `chain`: N messages relayed through a chain of M relay tasks back to main.

use super::{bad_variant, closed, run_main};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// Runs `chain` (`int` or `list20`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (m, n) = (p.get_usize("m")?, p.get("n")?);
    match variant {
        "int" => {
            let got = relay(m, n, |i| i, |i| *i)?;
            check(got.count == n && got.folded == n * (n - 1) / 2, || {
                format!(
                    "chain int: received {} messages summing to {}",
                    got.count, got.folded
                )
            })?;
            Ok(Outcome::new(got.wall_ms))
        }
        "list20" => {
            // Built once; every send clones the pointer, never the list (contract).
            let list: Arc<[i64]> = (1..=20).collect();
            let got = relay(
                m,
                n,
                move |_| Arc::clone(&list),
                |l: &Arc<[i64]>| u64::from(l.iter().sum::<i64>() != 210),
            )?;
            // `folded` counts the lists that do not sum to 210.
            check(got.count == n && got.folded == 0, || {
                format!(
                    "chain list20: {} messages, {} lists not summing to 210",
                    got.count, got.folded
                )
            })?;
            Ok(Outcome::new(got.wall_ms))
        }
        other => Err(bad_variant("chain", other)),
    }
}

/// What main saw at the tail of the chain.
struct Received {
    /// Messages received.
    count: u64,
    /// The sum of `fold` over them.
    folded: u64,
    /// Time until the last one arrived.
    wall_ms: f64,
}

/// Builds the chain, sends `make(i)` for i in 0..n to its head and folds what comes out of the
/// tail with `fold`, summing the fold's values (the check happens on arrival, so the clock stops
/// when the answer is known).
fn relay<T: Send + 'static>(
    m: usize,
    n: u64,
    mut make: impl FnMut(u64) -> T + Send + 'static,
    fold: impl Fn(&T) -> u64 + Send + 'static,
) -> Result<Received> {
    run_main(async move {
        let start = Instant::now();
        let (main_tx, mut main_rx) = unbounded_channel::<T>();
        let mut next: UnboundedSender<T> = main_tx;
        for _ in 0..m {
            let (tx, mut rx) = unbounded_channel::<T>();
            let to = next;
            tokio::spawn(async move {
                while let Some(msg) = rx.recv().await {
                    // The next relay only goes away after this one, so a failed send means
                    // main stopped listening; nothing is left to do then.
                    if to.send(msg).is_err() {
                        break;
                    }
                }
            });
            next = tx;
        }
        let head = next;
        for i in 0..n {
            head.send(make(i)).map_err(|_| closed("chain head"))?;
        }
        let (mut count, mut folded) = (0u64, 0u64);
        while count < n {
            let msg = main_rx.recv().await.ok_or_else(|| closed("chain tail"))?;
            folded += fold(&msg);
            count += 1;
        }
        Ok(Received {
            count,
            folded,
            wall_ms: ms_since(start),
        })
    })
}
