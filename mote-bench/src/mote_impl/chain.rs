//! `chain`: N messages relayed through a chain of M relay processes back to main.

use super::{bad_variant, run_main};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::sync::Arc;
use std::time::Instant;

/// Runs `chain` (`int` or `list20`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (m, n) = (p.get_usize("m")?, p.get("n")?);
    match variant {
        "int" => {
            let (got, sum) = relay(m, n, |i| i, |i| *i)?;
            check(got.count == n && sum == n * (n - 1) / 2, || {
                format!(
                    "chain int: received {} messages summing to {sum}",
                    got.count
                )
            })?;
            Ok(Outcome::new(got.wall_ms))
        }
        "list20" => {
            // Built once; every send clones the pointer, never the list (contract).
            let list: Arc<[i64]> = (1..=20).collect();
            let (got, bad) = relay(
                m,
                n,
                move |_| Arc::clone(&list),
                |l: &Arc<[i64]>| u64::from(l.iter().sum::<i64>() != 210),
            )?;
            check(got.count == n && bad == 0, || {
                format!(
                    "chain list20: {} messages, {bad} lists not summing to 210",
                    got.count
                )
            })?;
            Ok(Outcome::new(got.wall_ms))
        }
        other => Err(bad_variant("chain", other)),
    }
}

struct Received {
    count: u64,
    wall_ms: f64,
}

/// Builds the chain from its tail (main) to its head, sends `make(i)` for i in 0..n to the
/// head and folds what main receives with `fold`, summing the fold's values (the check happens
/// on arrival, so the clock stops when the answer is known).
fn relay<T: Send + 'static>(
    m: usize,
    n: u64,
    mut make: impl FnMut(u64) -> T + Send + 'static,
    fold: impl Fn(&T) -> u64 + Send + 'static,
) -> Result<(Received, u64)> {
    run_main(move |mut main: Process<T>| async move {
        let start = Instant::now();
        let mut next: Pid<T> = main.pid();
        for _ in 0..m {
            let to = next;
            next = mote::spawn(move |mut relay: Process<T>| async move {
                // Exactly n messages pass through every relay; then it ends.
                for _ in 0..n {
                    to.send(relay.recv().await);
                }
            });
        }
        let head = next;
        for i in 0..n {
            head.send(make(i));
        }
        let (mut count, mut acc) = (0u64, 0u64);
        while count < n {
            let msg = main.recv().await;
            acc += fold(&msg);
            count += 1;
        }
        let wall_ms = ms_since(start);
        Ok((Received { count, wall_ms }, acc))
    })
}
