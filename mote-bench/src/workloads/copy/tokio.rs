//! `copy` on tokio: the three computations as tasks sharing the input through an `Arc`.

use super::{chunk_ranges, merge_frequencies, merge_uniq, CopyResults, Parallel};
use crate::harness::outcome::ms_since;
use crate::workloads::common::{frequencies, shuffle, uniq};
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::sync::Arc;
use std::time::Instant;
use tokio::task::{JoinError, JoinHandle};

impl Parallel for Tokio {
    /// Each repetition runs the three computations as tasks (uniq and frequencies as `chunks`
    /// tasks each, with `chunks` > 1) and awaits them all, like `Task.async` +
    /// `Task.await_many`; the `JoinHandle` is tokio's reply channel for a task.
    fn parallel(
        &self,
        data: Arc<[i64]>,
        r: u64,
        chunks: usize,
    ) -> Result<Measured<Vec<CopyResults>>> {
        self.main(async move {
            let ranges = chunk_ranges(data.len(), chunks);
            let start = Instant::now();
            let mut results = Vec::with_capacity(r as usize);
            for _ in 0..r {
                // The same order as mote's: the contract's for three tasks, else shuffle first.
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
                    uniq: merge_uniq(try_join_all(u).await?),
                    freqs: merge_frequencies(try_join_all(f).await?),
                    shuffled: s.await?,
                });
            }
            Ok(Measured::new(ms_since(start), results))
        })
    }
}

/// A task computing `f` over `data[range]`, holding its own clone of the `Arc`.
fn spawn_on<T, R>(data: &Arc<[i64]>, range: R, f: fn(&[i64]) -> T) -> JoinHandle<T>
where
    T: Send + 'static,
    R: std::slice::SliceIndex<[i64], Output = [i64]> + Send + 'static,
{
    let data = Arc::clone(data);
    tokio::spawn(async move { f(&data[range]) })
}

/// Awaits the handles in order.
async fn try_join_all<T>(handles: Vec<JoinHandle<T>>) -> Result<Vec<T>, JoinError> {
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(h.await?);
    }
    Ok(out)
}
