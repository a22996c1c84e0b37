//! [`Pool::map_reduce`]: a map over the chunks of a shared slice, reduced in chunk order.

use std::sync::Arc;

use super::{JobError, Pool};

impl Pool {
    /// Maps `map` over `data` in chunks of `chunk` items, one job per chunk, and folds the
    /// results with `reduce` in chunk order (so `reduce` need not be commutative). Nothing is
    /// copied: each job gets the `Arc` and its range.
    ///
    /// Returns `Ok(None)` for empty `data`, the first job error if a chunk fails, and
    /// [`JobError::InvalidInput`] for a `chunk` of 0.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mote::pool::{JobError, Pool};
    /// mote::run(|_p: mote::Process<()>| async move {
    ///     let pool = Pool::builder().workers(2).start().await.unwrap();
    ///     let data: Arc<[u64]> = (1..=1000).collect();
    ///     let sum = pool.map_reduce(data.clone(), 100, |c| c.iter().sum::<u64>(), |a, b| a + b).await;
    ///     assert_eq!(sum, Ok(Some(500_500)));
    ///     let bad = pool.map_reduce(data, 0, |c| c.len(), |a, b| a + b).await;
    ///     assert!(matches!(bad, Err(JobError::InvalidInput(_))));
    /// })
    /// .unwrap();
    /// ```
    pub async fn map_reduce<T, A, M, R>(
        &self,
        data: Arc<[T]>,
        chunk: usize,
        map: M,
        mut reduce: R,
    ) -> Result<Option<A>, JobError>
    where
        T: Send + Sync + 'static,
        A: Send + 'static,
        M: Fn(&[T]) -> A + Send + Sync + 'static,
        R: FnMut(A, A) -> A,
    {
        if chunk == 0 {
            return Err(JobError::InvalidInput(
                "map_reduce: chunk must be at least 1",
            ));
        }
        let map = Arc::new(map);
        let mut jobs = Vec::with_capacity(data.len().div_ceil(chunk));
        for start in (0..data.len()).step_by(chunk) {
            let end = (start + chunk).min(data.len());
            let (data, map) = (Arc::clone(&data), Arc::clone(&map));
            jobs.push(self.submit(async move { (*map)(&data[start..end]) }).await);
        }
        let mut acc = None;
        for job in jobs {
            let value = job.await?;
            acc = Some(match acc {
                None => value,
                Some(prev) => reduce(prev, value),
            });
        }
        Ok(acc)
    }
}
