//! `copy` on mote: the three computations as `mote::task`s sharing the input through an `Arc`.

use super::{chunk_ranges, merge_frequencies, merge_uniq, CopyResults, Parallel};
use crate::harness::outcome::ms_since;
use crate::workloads::common::{frequencies, shuffle, uniq};
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::task::{self, Task};
use mote::Process;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Parallel for Mote {
    /// Each repetition starts one `mote::task` per computation (per chunk, with `chunks` > 1),
    /// each moving in a clone of the `Arc` (nothing is copied), and awaits the handles.
    fn parallel(
        &self,
        data: Arc<[i64]>,
        r: u64,
        chunks: usize,
    ) -> Result<Measured<Vec<CopyResults>>> {
        mote_main(move |_main: Process<()>| async move {
            let ranges = chunk_ranges(data.len(), chunks);
            let start = Instant::now();
            let mut results = Vec::with_capacity(r as usize);
            for _ in 0..r {
                // The contract's order for three tasks; with chunks, the one indivisible task
                // first, so the chunks fill the cores around it (longest first).
                let early_shuffle = (ranges.len() > 1).then(|| spawn_on(&data, .., shuffle));
                let u: Vec<_> = ranges
                    .iter()
                    .map(|r| spawn_on(&data, r.clone(), uniq))
                    .collect();
                let f: Vec<_> = ranges
                    .iter()
                    .map(|r| spawn_on(&data, r.clone(), frequencies))
                    .collect();
                let s = early_shuffle.unwrap_or_else(|| spawn_on(&data, .., shuffle));
                results.push(CopyResults {
                    uniq: merge_uniq(task::await_many(u, Duration::MAX).await?),
                    freqs: merge_frequencies(task::await_many(f, Duration::MAX).await?),
                    shuffled: s.await?,
                });
            }
            Ok(Measured::new(ms_since(start), results))
        })
    }
}

/// A task computing `f` over `data[range]`, holding its own clone of the `Arc`.
fn spawn_on<T, R>(data: &Arc<[i64]>, range: R, f: fn(&[i64]) -> T) -> Task<T>
where
    T: Send + 'static,
    R: std::slice::SliceIndex<[i64], Output = [i64]> + Send + 'static,
{
    let data = Arc::clone(data);
    task::spawn(async move { f(&data[range]) })
}
