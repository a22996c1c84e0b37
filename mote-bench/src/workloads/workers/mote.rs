//! `workers` on mote: `push` and `steal` run on a `mote::pool::Pool` of W pre-spawned worker
//! processes (`Dispatch::RoundRobin` into per-worker bounded queues, `Dispatch::Steal` from
//! one shared queue); the master submits every run of items as a job, then awaits the
//! results in order.

use super::Distribute;
use crate::harness::outcome::ms_since;
use crate::workloads::common::{batches, count_items, prime_factor_count};
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::pool::{Dispatch, Pool};
use mote::Process;
use std::time::{Duration, Instant};

impl Distribute for Mote {
    fn master_slave(&self, n: u64) -> Result<Measured<u64>> {
        master_slave(n)
    }

    fn push(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
        pooled(Dispatch::RoundRobin, w, n, batch)
    }

    fn steal(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
        pooled(Dispatch::Steal, w, n, batch)
    }
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
fn master_slave(n: u64) -> Result<Measured<u64>> {
    mote_main(move |mut main: Process<u64>| async move {
        let start = Instant::now();
        let master = main.pid();
        for i in 1..=n {
            mote::spawn(
                move |_slave: Process<()>| async move { master.send(prime_factor_count(i)) },
            );
        }
        let sum = collect(&mut main, n).await;
        Ok(Measured::new(ms_since(start), sum))
    })
}

/// W workers of a [`mote::pool::Pool`] started before timing (`push`: round-robin into
/// per-worker bounded queues; `steal`: one shared queue the idle workers take from). The master
/// submits every run of items as a job (waiting when the queues are full), then awaits the
/// results in order. The pool's shutdown is after the clock stops.
fn pooled(dispatch: Dispatch, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
    mote_main(move |_main: Process<()>| async move {
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
        Ok(Measured::new(wall_ms, sum))
    })
}
