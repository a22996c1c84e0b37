//! Stopping a process the way a supervisor does (Erlang's shutdown protocol): the exit
//! signal `shutdown`, a grace period to clean up, then the untrappable `kill`.

use std::future::Future;
use std::time::Duration;

use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// Sends `shutdown` to `target`, waits up to `grace` (`None`: as long as it takes) for
/// `ended`, then sends `kill` and waits for `ended` again. Returns what `ended` gave.
///
/// `ended` must finish when the target ends (a watch on it, a task's outcome): a process
/// that traps exits may ignore `shutdown`, never `kill`.
pub(crate) async fn shut_down<F: Future + Unpin>(
    target: ProcessId,
    grace: Option<Duration>,
    ended: &mut F,
) -> F::Output {
    crate::exit(target, ExitReason::Shutdown);
    if let Some(grace) = grace {
        match crate::rt::timeout_wheel::timeout(grace, &mut *ended).await {
            Ok(out) => return out,
            Err(_) => crate::exit(target, ExitReason::Kill),
        }
    }
    ended.await
}
