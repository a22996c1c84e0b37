//! The subcommands' entry points; each returns the process exit status.

pub mod compare;
pub mod core_distance;
pub mod instructions;
pub mod list;
#[cfg(feature = "remote")]
pub mod remote;
pub mod report;
pub mod run;
pub mod suite;

/// Writes `text` to standard output.
///
/// A reader that went away (`mote-bench list | head`) is not an error: what it did not read
/// is dropped and the command goes on (the suite still writes its reports), where `print!`
/// would panic. Any other write error is told on standard error.
pub(crate) fn print(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("mote-bench: writing to standard output: {e}");
        }
        _ => {}
    }
}
