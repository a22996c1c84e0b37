//! The end of a process as a future: a [`Waiter`] and the [`ExitWatch`] that fills it, for
//! code that only waits for a process to end (a supervisor stopping a child, a pool's
//! shutdown, the test kit's `wait_exit`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{ExitWatch, Waiter};
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// Resolves to the reason a process ended with (`noproc` if it was not alive when watched).
///
/// The watch is set when this is made, not at its first poll, so an end that comes in
/// between (the `kill` sent right after, say) is not missed. Dropping it removes the watch.
pub(crate) struct ProcessEnd {
    // Declared first, so dropped first: the watch goes before the completion it reports into.
    _watch: ExitWatch,
    ended: Waiter<()>,
}

impl ProcessEnd {
    /// Watches `target`'s end from now on.
    pub(crate) fn watch(target: ProcessId) -> Self {
        let ended = Waiter::new();
        let watch = ExitWatch::new(target, ended.completion());
        ProcessEnd {
            _watch: watch,
            ended,
        }
    }
}

impl Future for ProcessEnd {
    type Output = ExitReason;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ExitReason> {
        self.ended.poll_take(cx).map(|outcome| match outcome {
            Err(reason) => reason,
            Ok(()) => unreachable!("only the watch fills this completion, with a reason"),
        })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn gives_the_reason_of_an_end_that_comes_before_the_first_poll() {
        crate::run(|_p: crate::Process<()>| async move {
            let target = crate::spawn(|mut p: crate::Process<()>| async move {
                p.recv().await;
            });
            let end = ProcessEnd::watch(target.id());
            crate::exit(target.id(), ExitReason::Kill);
            // Its end has come (or is on its way) before the first poll.
            crate::sleep(Duration::from_millis(10)).await;
            assert_eq!(end.await, ExitReason::Killed);
            assert_eq!(ProcessEnd::watch(target.id()).await, ExitReason::NoProc);
        })
        .unwrap();
    }
}
