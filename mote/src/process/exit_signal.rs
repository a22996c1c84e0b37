//! Sending exit signals: [`exit`] (Erlang's `exit/2`). The rules a signal follows on
//! arrival are in `rt::signals`; a process ending itself is `Process::exit`.

use crate::process::self_id::self_id;
use crate::rt::runner::ExitNow;
use crate::rt::signals;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// Sends an exit signal to a process (Erlang's `exit/2`), from the calling process (or from
/// [`ProcessId::NONE`] outside any process).
///
/// A non-trapping target ends with `reason` unless it is `Normal` (ignored, except when a
/// process sends it to itself); a trapping one gets an [`Exit`](crate::Exit) message; `Kill` cannot be
/// trapped and ends the target with `Killed`. A signal a process sends itself that ends it
/// ends it at once: the call does not return.
///
/// ```
/// use mote::{Down, ExitReason, Process};
/// mote::run(|mut p: Process<Down>| async move {
///     let victim = mote::spawn(|mut v: Process<()>| async move { v.recv().await });
///     p.monitor(victim);
///     mote::exit(victim, ExitReason::Kill);
///     assert_eq!(p.recv().await.reason, ExitReason::Killed);
/// })
/// .unwrap();
/// ```
pub fn exit(target: impl Into<ProcessId>, reason: ExitReason) {
    let target = target.into();
    let from = self_id().unwrap_or(ProcessId::NONE);
    if from == target {
        // A signal to oneself is a signal: it is recorded as the process's pending exit
        // (or, trapped, queued as a message) before anything else happens, so catching the
        // unwind below cannot keep the process alive: it ends at its next poll at the latest
        // (BEAM: `catch exit(self(), boom)` still ends the process with `boom`). Untrapped,
        // it ends the caller now: the call does not return.
        let trapping = signals::peek_live(from, |_, s| s.as_ref().is_some_and(|s| s.trap_exit))
            .unwrap_or(false);
        signals::exit_signal(target, from, reason.clone(), false);
        if reason == ExitReason::Kill {
            std::panic::resume_unwind(Box::new(ExitNow(ExitReason::Killed)));
        }
        if !trapping {
            std::panic::resume_unwind(Box::new(ExitNow(reason)));
        }
        return;
    }
    signals::exit_signal(target, from, reason, false);
}
