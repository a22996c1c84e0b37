//! The work-distribution write-up's factorisation: the number of prime factors of every n in 1..=50,000, summed,
//! computed serially, by a process per item (master-slave), and by a `mote::pool::Pool` in
//! each dispatch mode (work pushing: round-robin, least-loaded; work stealing), one item per
//! job and in batches. Prints the times: batching is what makes a pool pay off.
//!
//! `cargo run --release -p examples --example worker_pool`

use std::time::{Duration, Instant};

use mote::pool::{Dispatch, Pool};
use mote::Process;

const N: u64 = 50_000;

/// The number of prime factors of `n`, with multiplicity (1 has none).
fn prime_factors(mut n: u64) -> u64 {
    let (mut count, mut d) = (0, 2);
    while n > 1 {
        if d * d > n {
            return count + 1;
        }
        if n % d == 0 {
            n /= d;
            count += 1;
        } else {
            d += 1;
        }
    }
    count
}

/// The sum over `lo..=hi`.
fn count_range(lo: u64, hi: u64) -> u64 {
    (lo..=hi).map(prime_factors).sum()
}

/// Runs 1..=N through `pool` in jobs of `batch` items; returns the sum.
async fn pooled(pool: &Pool, batch: u64) -> u64 {
    let mut jobs = Vec::new();
    for lo in (1..=N).step_by(batch as usize) {
        let hi = (lo + batch - 1).min(N);
        // `submit` waits while the pool's queue is full: the master cannot run ahead.
        jobs.push(pool.submit(async move { count_range(lo, hi) }).await);
    }
    let mut sum = 0;
    for job in jobs {
        sum += job.await.expect("a factorisation job");
    }
    sum
}

fn main() {
    mote::run(|mut main: Process<u64>| async move {
        let start = Instant::now();
        let expect = count_range(1, N);
        println!(
            "serial                      {:>8.2} ms  (sum {expect})",
            ms(start)
        );

        // Master-slave: a process per item, spawned asynchronously.
        let start = Instant::now();
        let master = main.pid();
        for i in 1..=N {
            mote::spawn(move |_slave: Process<()>| async move { master.send(prime_factors(i)) });
        }
        let mut sum = 0;
        for _ in 0..N {
            sum += main.recv().await;
        }
        assert_eq!(sum, expect);
        println!("master-slave (spawn/item)   {:>8.2} ms", ms(start));

        for dispatch in [Dispatch::RoundRobin, Dispatch::LeastLoaded, Dispatch::Steal] {
            let pool = Pool::builder()
                .dispatch(dispatch)
                .start()
                .await
                .expect("the pool starts");
            for batch in [1, 100, 1000] {
                let start = Instant::now();
                let sum = pooled(&pool, batch).await;
                assert_eq!(sum, expect);
                let label = format!("{dispatch:?}, batch {batch}");
                println!("pool {label:<22} {:>8.2} ms", ms(start));
            }
            pool.shutdown(Duration::from_secs(10))
                .await
                .expect("the pool stops");
        }
    })
    .expect("the root process ends normally");
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
