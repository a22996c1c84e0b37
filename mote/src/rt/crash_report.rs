//! Crash reports: what a process that crashed leaves behind, as OTP's `proc_lib` crash
//! reports do.
//!
//! A process crashes when its own code ends it abnormally: a panic, [`Process::exit`]
//! with an abnormal reason, or returning one. (A process ended by another's exit signal,
//! or ending with `normal` or a `shutdown` reason, did not crash: no report, as in OTP.)
//! The report is a `tracing` event at level ERROR, target `mote::crash`, with the pid, the
//! registered name, the reason, where a panic happened, the mailbox length and the links
//! (in OTP's crash report, the links are where a supervisor or parent shows up). With no
//! `tracing` subscriber installed, the same report goes to standard error, so a crash is
//! never silent.
//!
//! Rust's own panic message (`thread 'mote-worker-0' panicked at ...`, with no pid or
//! name) is replaced by the report for panics inside processes; a panic anywhere else is
//! left to the previous hook. `Builder::panic_messages(true)` keeps Rust's message too.
//!
//! [`Process::exit`]: crate::Process::exit

use std::cell::RefCell;
use std::panic::{self, PanicHookInfo};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use crate::rt::current;
use crate::rt::table::Slot;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

/// Whether Rust's panic message is printed for panics inside processes too.
static KEEP_PANIC_MESSAGES: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Where the last panic inside a process on this thread happened, for its report.
    static LAST_PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps (or stops keeping) Rust's default panic message for panics inside processes.
pub(crate) fn keep_panic_messages(keep: bool) {
    KEEP_PANIC_MESSAGES.store(keep, Ordering::Relaxed);
}

/// Installs the panic hook, once per OS process (when the scheduler starts).
pub(crate) fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            if current::current().is_none() {
                return previous(info);
            }
            if let Some(location) = info.location() {
                let at = format!(
                    "{}:{}:{}",
                    location.file(),
                    location.line(),
                    location.column()
                );
                LAST_PANIC_AT.with(|l| *l.borrow_mut() = Some(at));
            }
            if KEEP_PANIC_MESSAGES.load(Ordering::Relaxed) {
                previous(info);
            }
        }));
    });
}

/// Whether a process that ended by its own hand with `reason` crashed.
pub(crate) fn is_crash(reason: &ExitReason) -> bool {
    !matches!(reason, ExitReason::Normal) && !reason.is_shutdown()
}

/// Reports the crash of the process in `slot` (`id`), which ended by its own hand with
/// `reason`. Called by the runner before the exit signals go out.
pub(crate) fn report(slot: &Slot, id: ProcessId, reason: &ExitReason) {
    // A location left by a panic the process caught itself belongs to no crash.
    let at = LAST_PANIC_AT
        .with(|l| l.borrow_mut().take())
        .filter(|_| matches!(reason, ExitReason::Panic(_)));
    let (name, links) = {
        let extras = slot.lock_extras();
        match extras.as_ref() {
            Some(e) => (
                e.name.as_ref().map(|n| n.name.as_str().to_string()),
                e.links.clone(),
            ),
            None => (None, Vec::new()),
        }
    };
    let mailbox_len = slot.queued();
    if tracing::dispatcher::has_been_set() {
        tracing::error!(
            target: "mote::crash",
            pid = %id,
            name = name.as_deref(),
            reason = %reason,
            panicked_at = at.as_deref(),
            mailbox_len,
            links = ?links,
            "process {id} crashed: {reason}",
        );
    } else {
        let mut line = format!("=CRASH REPORT= process {id}");
        if let Some(name) = &name {
            line += &format!(" ({name})");
        }
        line += &format!(" crashed: {reason}");
        if let Some(at) = &at {
            line += &format!(" at {at}");
        }
        line += &format!("; mailbox {mailbox_len} messages; links {links:?}");
        eprintln!("{line}");
    }
}
