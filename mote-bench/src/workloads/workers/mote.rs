//! `workers` on mote, written as an Erlang user writes the write-up's three strategies:
//! processes and messages. `push`: W worker processes spawned before the clock, fed runs
//! round-robin into their mailboxes, each sending its counts to the master. `steal`: W
//! workers that ask the master for the next run when idle (the ask carries the last count),
//! as the Cloud Haskell write-up's work stealing does. The OTP layer's `mote::pool::Pool`
//! (job handles, bounded queues, a result per job) does the same work with more per job:
//! the `pool=1` option runs it instead.

use super::Distribute;
use crate::harness::outcome::ms_since;
use crate::workloads::common::{batches, count_items, prime_factor_count, Items};
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::pool::{Dispatch, Pool};
use mote::{Pid, Process};
use std::time::{Duration, Instant};

impl Distribute for Mote {
    fn master_slave(&self, n: u64) -> Result<Measured<u64>> {
        master_slave(n)
    }

    fn push(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
        push(w, n, batch)
    }

    fn steal(&self, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
        steal(w, n, batch)
    }
}

/// `push` (or with `steal`, `steal`) on the OTP layer's pool: the `pool=1` option.
pub(super) fn on_pool(steal: bool, w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
    let dispatch = if steal {
        Dispatch::Steal
    } else {
        Dispatch::RoundRobin
    };
    pooled(dispatch, w, n, batch)
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

/// W worker processes spawned before the clock; the master sends runs round-robin, each
/// worker sends the master the count of every run it receives ([`STOP`] ends a worker).
///
/// The runs are plain `Items`, 16 bytes as in the tokio program, not `Option<Items>`: the
/// master queues most of the 50,000 runs before the workers take them, so the 24 bytes of
/// an `Option` made mote's peak RSS about 0.4 MB higher than tokio's for the same work
/// (tokio's workers end when their channel closes, which needs no message).
fn push(w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
    mote_main(move |mut main: Process<u64>| async move {
        let master = main.pid();
        let workers: Vec<_> = (0..w)
            .map(|_| {
                mote::spawn(move |mut worker: Process<Items>| async move {
                    loop {
                        let run = worker.recv().await;
                        if run == STOP {
                            return;
                        }
                        master.send(count_items(run));
                    }
                })
            })
            .collect();
        let start = Instant::now();
        let mut runs = 0;
        for (run, worker) in batches(n, batch).zip(workers.iter().cycle()) {
            worker.send(run);
            runs += 1;
        }
        let sum = collect(&mut main, runs).await;
        let wall_ms = ms_since(start);
        workers.iter().for_each(|worker| worker.send(STOP));
        Ok(Measured::new(wall_ms, sum))
    })
}

/// The run that ends a `push` worker: empty (`lo > hi`), so never one of [`batches`]'s.
const STOP: Items = (1, 0);

/// A worker's request for the next run, with the count of the run it just finished.
struct Ask {
    done: Option<u64>,
    worker: Pid<Option<Items>>,
}

/// W worker processes spawned before the clock, each asking the master for the next run
/// when idle; the master answers every ask with the next run, or `None` when none is left.
fn steal(w: usize, n: u64, batch: u64) -> Result<Measured<u64>> {
    mote_main(move |mut main: Process<Ask>| async move {
        let master = main.pid();
        let start = Instant::now();
        for _ in 0..w {
            mote::spawn(move |mut worker: Process<Option<Items>>| async move {
                let me = worker.pid();
                let mut done = None;
                loop {
                    master.send(Ask { done, worker: me });
                    match worker.recv().await {
                        Some(run) => done = Some(count_items(run)),
                        None => return,
                    }
                }
            });
        }
        let mut runs = batches(n, batch);
        let (replies, mut received, mut sum) = (n.div_ceil(batch), 0u64, 0u64);
        while received < replies {
            let ask = main.recv().await;
            if let Some(count) = ask.done {
                sum += count;
                received += 1;
            }
            ask.worker.send(runs.next());
        }
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
