//! What the suite says while it runs: a progress bar on a terminal, one plain line per run
//! otherwise (a log file or CI gets the same information), both with the time left at the
//! pace seen so far.

use super::estimate::{human, remaining_ms};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// The suite's progress reporter.
pub struct Progress {
    bar: Option<ProgressBar>,
    runs: u64,
    done: u64,
    expected_total_ms: f64,
    expected_done_ms: f64,
    started: Instant,
}

impl Progress {
    /// A reporter for `runs` runs expected to take `expected_ms` in all: a bar when stderr
    /// is a terminal, plain lines when it is not.
    pub fn new(runs: u64, expected_ms: f64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(runs);
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:32}] {pos}/{len} runs  {msg}",
                )
                .expect("static progress template")
                .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            runs,
            done: 0,
            expected_total_ms: expected_ms,
            expected_done_ms: 0.0,
            started: Instant::now(),
        }
    }

    fn left(&self) -> String {
        let elapsed = self.started.elapsed().as_secs_f64() * 1e3;
        human(remaining_ms(
            self.expected_total_ms,
            self.expected_done_ms,
            elapsed,
        ))
    }

    /// A run of `what` starts.
    pub fn starting(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("about {} left  {what}", self.left()));
        }
    }

    /// `runs` runs expected to take `expected_ms` are over (made, skipped or abandoned);
    /// `what` happened to `label`.
    pub fn finished(&mut self, runs: u64, expected_ms: f64, label: &str, what: &str) {
        self.done += runs;
        self.expected_done_ms += expected_ms;
        match &self.bar {
            Some(bar) => bar.inc(runs),
            None => eprintln!(
                "[{:>4}/{} runs, {} elapsed, about {} left] {label}: {what}",
                self.done,
                self.runs,
                human(self.started.elapsed().as_secs_f64() * 1e3),
                self.left()
            ),
        }
    }

    /// A line for the user that must not be lost under the bar (a failure).
    pub fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// The suite is over.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
