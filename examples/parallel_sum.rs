//! The parallel sum of a published Elixir spawn-per-chunk experiment: 100,000 ints summed in chunks of 100, serially, with a process
//! spawned per chunk, and on a pre-spawned `mote::pool::Pool` (`map_reduce` over the shared
//! data: each job gets the `Arc` and its range, nothing is copied). Repeated to get
//! measurable times; prints them.
//!
//! `cargo run --release -p examples --example parallel_sum`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mote::pool::Pool;
use mote::Process;

const LEN: usize = 100_000;
const CHUNK: usize = 100;
const REPS: u32 = 100;

fn main() {
    // Deterministic pseudo-random ints in 1..=1000.
    let mut x: u64 = 42;
    let data: Arc<[i64]> = (0..LEN)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as i64 % 1000 + 1
        })
        .collect();
    let expect: i64 = data.iter().sum();

    mote::run(move |mut main: Process<i64>| async move {
        let start = Instant::now();
        for _ in 0..REPS {
            assert_eq!(black_box(&data).iter().sum::<i64>(), expect);
        }
        report("serial", start);

        // A process per chunk per repetition, each sending its partial sum to main.
        let start = Instant::now();
        let to_main = main.pid();
        let chunks = LEN.div_ceil(CHUNK);
        for _ in 0..REPS {
            for c in 0..chunks {
                let data = Arc::clone(&data);
                mote::spawn(move |_p: Process<()>| async move {
                    let end = (c * CHUNK + CHUNK).min(data.len());
                    to_main.send(data[c * CHUNK..end].iter().sum());
                });
            }
            let mut sum = 0;
            for _ in 0..chunks {
                sum += main.recv().await;
            }
            assert_eq!(sum, expect);
        }
        report("spawn per chunk", start);

        // A pool started once; a job per chunk.
        let pool = Pool::builder().start().await.expect("the pool starts");
        for chunk in [CHUNK, 10 * CHUNK] {
            let start = Instant::now();
            for _ in 0..REPS {
                let sum = pool
                    .map_reduce(
                        Arc::clone(&data),
                        chunk,
                        |c| c.iter().sum::<i64>(),
                        |a, b| a + b,
                    )
                    .await
                    .expect("the chunk sums");
                assert_eq!(sum, Some(expect));
            }
            report(&format!("pool, chunks of {chunk}"), start);
        }
        pool.shutdown(Duration::from_secs(10))
            .await
            .expect("the pool stops");
    })
    .expect("the root process ends normally");
}

fn report(what: &str, start: Instant) {
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    println!(
        "{what:<22} {:>8.2} ms for {REPS} sums ({:.1} µs each)",
        ms,
        ms * 1000.0 / f64::from(REPS)
    );
}
