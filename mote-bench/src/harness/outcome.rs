//! What one in-process workload run returns, the wrong-answer error the `run` command turns
//! into the contract's exit status, and the exit statuses themselves.

use std::time::Instant;

/// The result of one workload run: its own wall time and the extra figures it defines.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Time from just before the first spawn of the measured phase to the answer, in ms.
    pub wall_ms: f64,
    /// Extra `name=value` figures printed after `wall_ms` (e.g. `spawn_ms`), in order.
    pub extras: Vec<(String, String)>,
}

/// Exit status of a run whose answer was wrong (contract).
pub const EXIT_WRONG_ANSWER: i32 = 1;
/// Exit status of a run with an unknown workload, variant or parameter (contract).
pub const EXIT_USAGE: i32 = 2;
/// Exit status of a run whose implementation does not have the workload (a peer's
/// convention, beyond the contract): stdout then holds a line `SKIP <reason>`.
pub const EXIT_SKIPPED: i32 = 3;
/// Prefix of the line a skipped run prints on stdout.
pub const SKIP_PREFIX: &str = "SKIP ";

/// Milliseconds elapsed since `start`, as the float the RESULT line prints.
pub fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// A workload computed a wrong answer (contract: `ERROR <what>` on stderr, exit status 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFailed(pub String);

impl std::fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckFailed {}

/// Fails with [`CheckFailed`] unless `ok`; `what` is only built on failure.
pub fn check(ok: bool, what: impl FnOnce() -> String) -> anyhow::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(CheckFailed(what()).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_builds_check_failed() {
        assert!(check(true, || unreachable!()).is_ok());
        let e = check(false, || "sum 3 != 4".into()).unwrap_err();
        assert_eq!(e.downcast_ref::<CheckFailed>().unwrap().0, "sum 3 != 4");
    }
}
