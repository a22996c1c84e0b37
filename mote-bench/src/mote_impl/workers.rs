//! `workers`: the sum of prime-factor counts of 1..=N computed serially, by a process per item
//! (`master_slave`), or by a `mote::pool::Pool` of W pre-spawned worker processes: work
//! pushing (`push`, round-robin dispatch) or work stealing (`steal`, idle workers take the
//! next job from a shared queue). Main is the master.
//!
//! The pools are unbatched by default: one item per job, the baseline pattern of the
//! contract. The optional `batch` parameter (`--param batch=k`, k > 1) makes every job
//! count k consecutive items and return the sum of their counts; the run then reports
//! `batch=<k>` as an extra figure.

use super::{bad_variant, run_main};
use crate::common::{batches, count_items, factor_count_sum, prime_factor_count};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::pool::{Dispatch, Pool};
use mote::Process;
use std::time::{Duration, Instant};

/// Runs `workers` (`serial`, `master_slave`, `push` or `steal`).
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let (w, n) = (p.get_usize("w")?, p.get("n")?);
    // Not in the contract's table: absent means unbatched.
    let batch = p.get("batch").unwrap_or(1).max(1);
    let (wall_ms, sum) = match variant {
        "serial" => {
            let start = Instant::now();
            let sum = factor_count_sum(n);
            (ms_since(start), sum)
        }
        "master_slave" => master_slave(n)?,
        "push" => pooled(Dispatch::RoundRobin, w, n, batch)?,
        "steal" => pooled(Dispatch::Steal, w, n, batch)?,
        other => return Err(bad_variant("workers", other)),
    };
    // The reference is computed after the clock stopped, so it costs the variants nothing.
    let expect = factor_count_sum(n);
    check(sum == expect, || {
        format!("workers {variant}: sum {sum}, expected {expect}")
    })?;
    let outcome = Outcome::new(wall_ms);
    Ok(if batch > 1 && matches!(variant, "push" | "steal") {
        outcome.with_extra("batch", batch)
    } else {
        outcome
    })
}

/// Receives `replies` counts in main's mailbox and sums them.
async fn collect(main: &mut Process<u64>, replies: u64) -> u64 {
    let mut sum = 0;
    for _ in 0..replies {
        sum += main.recv().await;
    }
    sum
}

/// A process per item, spawned without waiting (mote's spawn is asynchronous), each replying
/// its count to the master.
fn master_slave(n: u64) -> Result<(f64, u64)> {
    run_main(move |mut main: Process<u64>| async move {
        let start = Instant::now();
        let master = main.pid();
        for i in 1..=n {
            mote::spawn(
                move |_slave: Process<()>| async move { master.send(prime_factor_count(i)) },
            );
        }
        let sum = collect(&mut main, n).await;
        Ok((ms_since(start), sum))
    })
}

/// W workers of a [`mote::pool::Pool`] started before timing (`push`: round-robin into
/// per-worker bounded queues; `steal`: one shared queue the idle workers take from). The master
/// submits every run of items as a job (waiting when the queues are full), then awaits the
/// results in order. The pool's shutdown is after the clock stops.
fn pooled(dispatch: Dispatch, w: usize, n: u64, batch: u64) -> Result<(f64, u64)> {
    run_main(move |_main: Process<()>| async move {
        let pool = Pool::builder()
            .workers(w)
            .dispatch(dispatch)
            .start()
            .await?;
        let start = Instant::now();
        let mut jobs = Vec::with_capacity(n.div_ceil(batch) as usize);
        for items in batches(n, batch) {
            jobs.push(pool.submit(async move { count_items(items) }).await);
        }
        let mut sum = 0;
        for job in jobs {
            sum += job.await?;
        }
        let wall_ms = ms_since(start);
        pool.shutdown(Duration::from_secs(10)).await?;
        Ok((wall_ms, sum))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_right_batched_or_not() {
        for variant in ["push", "steal"] {
            for (w, batch) in [(1, 1), (3, 1), (2, 7), (5, 1000)] {
                let p = Params::from_pairs([("w", w), ("n", 500), ("batch", batch)]);
                let out = run(variant, &p).unwrap();
                let extra = out.extras.iter().find(|(k, _)| k == "batch");
                assert_eq!(extra.is_some(), batch > 1, "{variant} w={w} batch={batch}");
            }
        }
    }
}
