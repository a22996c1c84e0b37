//! `workers`: the sum of prime-factor counts of 1..=N computed serially, by a process per item
//! (`master_slave`), by W pre-spawned workers fed round-robin (`push`), or by W workers asking
//! the master for the next item (`steal`). Main is the master.
//!
//! The pools are unbatched by default: one item per message, the baseline pattern of the
//! contract. An optional `batch` parameter (k > 1) makes every pool message carry k
//! consecutive items and every reply the sum of their counts; the run then reports
//! `batch=<k>` as an extra figure.

use super::{bad_variant, run_main};
use crate::common::{factor_count_sum, prime_factor_count};
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// The items `lo..=hi` (one item when `lo == hi`).
type Items = (u64, u64);

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
        "push" => push(w, n, batch)?,
        "steal" => steal(w, n, batch)?,
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

/// The sum of the counts of `lo..=hi`.
fn count_items((lo, hi): Items) -> u64 {
    (lo..=hi).map(prime_factor_count).sum()
}

/// 1..=n cut into runs of `batch` items, in order.
fn batches(n: u64, batch: u64) -> impl Iterator<Item = Items> {
    (1..=n)
        .step_by(batch as usize)
        .map(move |lo| (lo, (lo + batch - 1).min(n)))
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

/// What a `push` worker receives.
enum Job {
    /// Count these items and reply the sum to the master.
    Count(Items),
    /// No more work: end.
    Stop,
}

/// W workers spawned before timing; the master pushes items round-robin into their mailboxes.
fn push(w: usize, n: u64, batch: u64) -> Result<(f64, u64)> {
    run_main(move |mut main: Process<u64>| async move {
        let master = main.pid();
        let workers: Vec<Pid<Job>> = (0..w)
            .map(|_| {
                mote::spawn(move |mut worker: Process<Job>| async move {
                    while let Job::Count(items) = worker.recv().await {
                        master.send(count_items(items));
                    }
                })
            })
            .collect();
        let start = Instant::now();
        let mut sent = 0u64;
        for (items, slot) in batches(n, batch).zip((0..w).cycle()) {
            workers[slot].send(Job::Count(items));
            sent += 1;
        }
        let sum = collect(&mut main, sent).await;
        let wall_ms = ms_since(start);
        for worker in &workers {
            worker.send(Job::Stop);
        }
        Ok((wall_ms, sum))
    })
}

/// A worker's request to the master: the count of its previous items (none on the first
/// request) and where to send the next items (`None`: no work left).
struct Ask {
    done: Option<u64>,
    from: Pid<Option<Items>>,
}

/// W workers spawned before timing; each idle worker asks the master for the next item. The
/// request carries the previous result so every item costs one request and one reply.
fn steal(w: usize, n: u64, batch: u64) -> Result<(f64, u64)> {
    run_main(move |mut main: Process<Ask>| async move {
        let master = main.pid();
        for _ in 0..w {
            mote::spawn(move |mut worker: Process<Option<Items>>| async move {
                let from = worker.pid();
                let mut done = None;
                loop {
                    master.send(Ask { done, from });
                    match worker.recv().await {
                        Some(items) => done = Some(count_items(items)),
                        None => return,
                    }
                }
            });
        }
        let mut work = batches(n, batch);
        let total = n.div_ceil(batch);
        // The workers' first requests may already wait in the master's mailbox: an idle
        // worker asks at once, and the clock starts when the master begins answering.
        let start = Instant::now();
        let (mut received, mut sum, mut stopped) = (0u64, 0u64, 0usize);
        while received < total {
            let ask = main.recv().await;
            if let Some(c) = ask.done {
                sum += c;
                received += 1;
            }
            let items = work.next();
            stopped += usize::from(items.is_none());
            ask.from.send(items);
        }
        let wall_ms = ms_since(start);
        // Every result is in, so each worker still running has one request (with no result)
        // on its way: answering it `None` ends the worker.
        while stopped < w {
            main.recv().await.from.send(None);
            stopped += 1;
        }
        Ok((wall_ms, sum))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_item_once() {
        let b: Vec<_> = batches(10, 4).collect();
        assert_eq!(b, vec![(1, 4), (5, 8), (9, 10)]);
        assert_eq!(
            batches(3, 1).collect::<Vec<_>>(),
            vec![(1, 1), (2, 2), (3, 3)]
        );
    }

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
