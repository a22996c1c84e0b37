//! A connection's backlog: the bytes queued for its socket and not yet taken by it, and
//! the busy state that makes [`Pid::send_async`](mote::Pid::send_async) wait.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::Notify;

/// Past this many queued bytes a connection is busy: Erlang's default distribution buffer
/// busy limit (`+zdbbl`, 1 MiB), past which a BEAM process sending on it is suspended.
pub(crate) const BUSY_LIMIT: usize = 1024 * 1024;

/// Queued bytes and the waiters for the end of a busy spell.
#[derive(Debug, Default)]
pub(crate) struct Backlog {
    bytes: AtomicUsize,
    closed: AtomicBool,
    drained: Notify,
}

impl Backlog {
    /// `n` more bytes wait for the socket.
    pub(crate) fn add(&self, n: usize) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }

    /// The socket took `n` of the queued bytes; waiters go when the backlog is under the
    /// limit again.
    pub(crate) fn sub(&self, n: usize) {
        let before = self.bytes.fetch_sub(n, Ordering::AcqRel);
        if before > BUSY_LIMIT && before - n <= BUSY_LIMIT {
            self.drained.notify_waiters();
        }
    }

    /// The connection is gone: nobody waits for it any more.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.drained.notify_waiters();
    }

    /// More than [`BUSY_LIMIT`] bytes wait, on a connection still open.
    pub(crate) fn is_busy(&self) -> bool {
        self.bytes.load(Ordering::Acquire) > BUSY_LIMIT && !self.closed.load(Ordering::Acquire)
    }

    /// Ends when the connection is not busy (at once if it is not now).
    pub(crate) async fn writable(&self) {
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            // Registered before the check: a `sub` between the check and the wait is seen.
            drained.as_mut().enable();
            if !self.is_busy() {
                return;
            }
            drained.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn a_waiter_goes_when_the_backlog_falls_under_the_limit_or_closes() {
        let backlog = Arc::new(Backlog::default());
        backlog.add(BUSY_LIMIT + 10);
        assert!(backlog.is_busy());
        let waiter = tokio::spawn({
            let b = backlog.clone();
            async move { b.writable().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "busy: the waiter waits");
        backlog.sub(5);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "still over the limit");
        backlog.sub(5);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the waiter goes once the backlog is at the limit")
            .unwrap();

        backlog.add(BUSY_LIMIT);
        let waiter = tokio::spawn({
            let b = backlog.clone();
            async move { b.writable().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        backlog.close();
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("a closed connection releases its waiters")
            .unwrap();
    }
}
