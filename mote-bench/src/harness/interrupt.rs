//! Ctrl-C (SIGINT) and SIGTERM as a flag: the suite stops the child it is waiting for, writes
//! what it measured and exits, instead of dying with the measurements in memory.
//!
//! The children run in their own process groups (so a timeout can kill a peer's whole tree),
//! which also keeps a terminal's Ctrl-C from reaching them: the harness kills them itself.
//! A second signal while the first is handled exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Exit status after an interrupt (128 + SIGINT, as a shell reports it).
pub const EXIT_INTERRUPTED: u8 = 130;

fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Routes SIGINT and SIGTERM to the flag. The first signal sets it; one arriving after that
/// exits the process with [`EXIT_INTERRUPTED`].
pub fn install() -> std::io::Result<()> {
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Registered first, so it sees the flag as it was before this signal.
        signal_hook::flag::register_conditional_shutdown(
            sig,
            i32::from(EXIT_INTERRUPTED),
            Arc::clone(flag()),
        )?;
        signal_hook::flag::register(sig, Arc::clone(flag()))?;
    }
    Ok(())
}

/// True once a stop was asked for.
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed)
}

/// Asks for a stop as a signal would (the suite's tests and an internal abort use it).
pub fn request() {
    flag().store(true, Ordering::Relaxed);
}
