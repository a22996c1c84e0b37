//! How jobs reach workers: [`Dispatch`], and the pool's bounded queues that implement it.

use std::sync::atomic::{AtomicUsize, Ordering};

use async_channel::{Receiver, Sender, TrySendError};

use super::envelope::Envelope;

/// How a pool hands jobs to its workers.
///
/// ```
/// use mote::pool::{Dispatch, Pool};
/// mote::run(|_p: mote::Process<()>| async move {
///     let pool = Pool::builder().dispatch(Dispatch::RoundRobin).workers(2).start().await.unwrap();
///     assert_eq!(pool.dispatch(), Dispatch::RoundRobin);
///     assert_eq!(pool.submit(async { 1 + 1 }).await.await, Ok(2));
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dispatch {
    /// Work stealing (as the work-distribution write-ups use the word): one shared bounded queue; each idle worker takes the
    /// next job. Balances uneven jobs by itself. The default.
    #[default]
    Steal,
    /// Work pushing: each worker has its own bounded queue and jobs go to them in turn.
    RoundRobin,
    /// Work pushing: each job goes to the worker whose queue is shortest.
    LeastLoaded,
}

/// The pool's queues: one shared queue ([`Dispatch::Steal`]) or one per worker. They belong
/// to the pool, not to a worker, so a worker's death loses nothing queued: its replacement
/// serves the same queue.
pub(crate) struct Queues {
    dispatch: Dispatch,
    senders: Vec<Sender<Envelope>>,
    receivers: Vec<Receiver<Envelope>>,
    next: AtomicUsize,
}

impl Queues {
    pub(crate) fn new(dispatch: Dispatch, workers: usize, bound: usize) -> Self {
        let count = match dispatch {
            Dispatch::Steal => 1,
            Dispatch::RoundRobin | Dispatch::LeastLoaded => workers,
        };
        let (senders, receivers) = (0..count).map(|_| async_channel::bounded(bound)).unzip();
        Queues {
            dispatch,
            senders,
            receivers,
            next: AtomicUsize::new(0),
        }
    }

    pub(crate) fn dispatch(&self) -> Dispatch {
        self.dispatch
    }

    /// The queue worker `index` serves.
    pub(crate) fn receiver(&self, index: usize) -> &Receiver<Envelope> {
        &self.receivers[index % self.receivers.len()]
    }

    /// The queue the next job goes to when it must wait for room.
    fn pick(&self) -> usize {
        let n = self.senders.len();
        match self.dispatch {
            Dispatch::Steal => 0,
            Dispatch::RoundRobin => self.next.fetch_add(1, Ordering::Relaxed) % n,
            Dispatch::LeastLoaded => {
                // Ties go round in turn, so equally loaded workers share the jobs.
                let start = self.next.fetch_add(1, Ordering::Relaxed);
                (0..n)
                    .map(|k| (start + k) % n)
                    .min_by_key(|&i| self.senders[i].len())
                    .unwrap_or(0)
            }
        }
    }

    /// Queues a job, waiting while its queue is full. Gives it back if the pool is closed.
    pub(crate) async fn send(&self, envelope: Envelope) -> Result<(), Envelope> {
        let i = self.pick();
        self.senders[i].send(envelope).await.map_err(|e| e.0)
    }

    /// Queues a job if there is room (in the chosen queue first, then any other).
    pub(crate) fn try_send(&self, envelope: Envelope) -> Result<(), TrySendError<Envelope>> {
        let first = self.pick();
        let n = self.senders.len();
        let mut envelope = envelope;
        for k in 0..n {
            match self.senders[(first + k) % n].try_send(envelope) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Full(e)) => envelope = e,
                Err(closed) => return Err(closed),
            }
        }
        Err(TrySendError::Full(envelope))
    }

    /// Stops taking jobs; what is queued can still be taken.
    pub(crate) fn close(&self) {
        for s in &self.senders {
            s.close();
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.senders[0].is_closed()
    }

    /// Whether worker `index`'s queue is closed and empty: nothing more will come to it.
    pub(crate) fn is_finished(&self, index: usize) -> bool {
        let r = self.receiver(index);
        r.is_closed() && r.is_empty()
    }

    /// Jobs waiting in the queues.
    pub(crate) fn len(&self) -> usize {
        self.senders.iter().map(Sender::len).sum()
    }

    /// Takes every queued job out (they settle as [`JobError::Lost`](super::JobError::Lost)
    /// when dropped).
    pub(crate) fn drain(&self) -> Vec<Envelope> {
        let mut out = Vec::new();
        for r in &self.receivers {
            while let Ok(e) = r.try_recv() {
                out.push(e);
            }
        }
        out
    }
}
