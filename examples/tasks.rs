//! Tasks without Elixir's copies: `uniq`, `frequencies` and `shuffle` over one list of a
//! million numbers, sequentially and as three tasks sharing one `Arc<[u64]>`; then an
//! `async_stream` with bounded concurrency.
//!
//! On the BEAM the parallel version of this is *slower* than the sequential one, because
//! each task gets a copy of the list and the caller a copy of each result. Here each task
//! gets a pointer, and each result is moved back. Try `--release` for meaningful times.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mote::task::{self, StreamOptions};
use mote::Process;

/// A small xorshift generator, enough for test data and shuffling.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn random_list(size: usize, spread: u64) -> Arc<[u64]> {
    let mut state = 0x9e37_79b9_7f4a_7c15;
    (0..size).map(|_| next(&mut state) % spread + 1).collect()
}

fn uniq(xs: &[u64]) -> Vec<u64> {
    let mut seen = HashSet::new();
    xs.iter().copied().filter(|x| seen.insert(*x)).collect()
}

fn frequencies(xs: &[u64]) -> HashMap<u64, usize> {
    let mut counts = HashMap::new();
    for &x in xs {
        *counts.entry(x).or_insert(0) += 1;
    }
    counts
}

fn shuffle(xs: &[u64]) -> Vec<u64> {
    let mut state = 0x2545_f491_4f6c_dd1d;
    let mut out = xs.to_vec();
    for i in (1..out.len()).rev() {
        out.swap(i, (next(&mut state) % (i as u64 + 1)) as usize);
    }
    out
}

type Results = (Vec<u64>, HashMap<u64, usize>, Vec<u64>);

fn sequential(data: &[u64]) -> Results {
    (uniq(data), frequencies(data), shuffle(data))
}

async fn parallel(data: &Arc<[u64]>) -> Results {
    // Each task captures its own `Arc` (one pointer copied), never the list.
    let uniques = task::spawn({
        let data = Arc::clone(data);
        async move { uniq(&data) }
    });
    let counts = task::spawn({
        let data = Arc::clone(data);
        async move { frequencies(&data) }
    });
    let shuffled = task::spawn({
        let data = Arc::clone(data);
        async move { shuffle(&data) }
    });
    (
        uniques.await.expect("uniq"),
        counts.await.expect("frequencies"),
        shuffled.await.expect("shuffle"),
    )
}

fn main() {
    mote::run(|_p: Process<()>| async {
        let data = random_list(1_000_000, 1_000);

        let start = Instant::now();
        let expected = sequential(&data);
        let sequential_time = start.elapsed();

        let start = Instant::now();
        let got = parallel(&data).await;
        let parallel_time = start.elapsed();

        assert_eq!(got, expected, "the same results either way");
        println!(
            "1M items on {} worker threads: sequential {:?}, three tasks {:?} ({} uniques)",
            mote::worker_threads(),
            sequential_time,
            parallel_time,
            got.0.len()
        );

        // One task per chunk, at most two at a time, results as they finish.
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let chunks = (0..data.len()).step_by(100_000);
        let mut sums = task::async_stream(
            chunks,
            {
                let (data, in_flight, max_in_flight) =
                    (Arc::clone(&data), in_flight.clone(), max_in_flight.clone());
                move |start| {
                    let (data, in_flight, max_in_flight) =
                        (Arc::clone(&data), in_flight.clone(), max_in_flight.clone());
                    async move {
                        let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        max_in_flight.fetch_max(now, Ordering::SeqCst);
                        let sum: u64 = data[start..start + 100_000].iter().sum();
                        mote::sleep(Duration::from_millis(5)).await;
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                        (start, sum)
                    }
                }
            },
            StreamOptions::new().max_concurrency(2).ordered(false),
        );
        let mut total = 0;
        let mut chunks_done = 0;
        while let Some(result) = sums.next().await {
            let (start, sum) = result.expect("a chunk's sum");
            println!("chunk at {start:>7}: {sum}");
            total += sum;
            chunks_done += 1;
        }
        assert_eq!(total, data.iter().sum::<u64>());
        println!(
            "{chunks_done} chunks, at most {} in flight (limit 2), total {total}",
            max_in_flight.load(Ordering::SeqCst)
        );
    })
    .expect("the root process ends normally");
}
