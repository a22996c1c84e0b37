//! The workloads, one folder each: `mod.rs` holds the [`Spec`] (parameters, sizes,
//! variants), the variant dispatch, the input and the answer check; `mote.rs` and `tokio.rs`
//! hold the two in-process implementations of the parts that differ by runtime. The Go and
//! Elixir programs of the same workload are `peers/go/<name>.go` and
//! `peers/elixir/<name>.exs`.
//!
//! A workload is a type implementing [`Workload`]; [`Entry::of`] turns it into the catalog's
//! line, and every run goes through [`Entry::run`], which runs the body and then the
//! workload's one [`Workload::check`], so the check cannot drift between runtimes.
//!
//! A variant that runs no runtime at all (`parsum serial`, `copy seq`, `workers serial`) is
//! one `#[inline(never)]` function that every implementation calls. Inlined into each
//! implementation's instance of the generic `run`, it was compiled once per implementation,
//! at different addresses and alignments, and the same sequential code ran a few percent
//! apart between `mote` and `tokio`.

pub mod common;
pub mod runtimes;
pub mod spec;

pub mod call;
pub mod chain;
pub mod copy;
pub mod fanin;
pub mod million;
pub mod parsum;
pub mod pingpong;
pub mod ring;
pub mod skynet;
pub mod spawn;
pub mod workers;

use crate::harness::outcome::Outcome;
use crate::harness::params::Params;
use anyhow::Result;
pub use spec::Spec;

/// The mote runtime, in this process.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mote;

/// Raw tokio, in this process: the default program or one of the workload's named styles.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tokio {
    /// The style's name; `None` for the default program.
    pub style: Option<&'static str>,
    /// The multi-thread runtime's workers ([`spec::THREADS`]); `None` for one per core.
    pub threads: Option<usize>,
}

/// What a body measured: its own wall time, extra figures it timed itself (`spawn_ms`), and
/// the answer for the workload's check.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured<A> {
    /// Time from just before the first spawn of the measured phase to the answer, ms.
    pub wall_ms: f64,
    /// Extra `name=value` figures, in order.
    pub extras: Vec<(String, String)>,
    /// What the workload computed.
    pub answer: A,
}

impl<A> Measured<A> {
    /// A measurement with no extra figures.
    pub fn new(wall_ms: f64, answer: A) -> Self {
        Measured {
            wall_ms,
            extras: Vec::new(),
            answer,
        }
    }

    /// Adds an extra figure.
    pub fn with_extra(mut self, name: &str, value: impl ToString) -> Self {
        self.extras.push((name.to_string(), value.to_string()));
        self
    }
}

/// One workload: its spec, its answer check and its two in-process implementations.
pub trait Workload {
    /// The workload's declaration.
    const SPEC: &'static Spec;
    /// What a run computes, for [`Workload::check`].
    type Answer;
    /// Runs `variant` (already validated) on mote.
    fn on_mote(variant: &str, p: &Params) -> Result<Measured<Self::Answer>>;
    /// Runs `variant` (already validated) on tokio, in the default program or a style.
    fn on_tokio(tokio: Tokio, variant: &str, p: &Params) -> Result<Measured<Self::Answer>>;
    /// Fails with [`crate::harness::outcome::CheckFailed`] unless `answer` is the right
    /// answer for `variant` at `p`.
    fn check(variant: &str, p: &Params, answer: &Self::Answer) -> Result<()>;
    /// Extra figures that follow from the parameters (the options in effect), printed after
    /// the measured ones.
    fn option_extras(_variant: &str, _p: &Params) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// An in-process implementation to run a workload on.
#[derive(Debug, Clone, Copy)]
pub enum InProcess {
    /// mote.
    Mote,
    /// tokio, default or styled.
    Tokio(Tokio),
}

/// Runs `body` at `run_at` and checks its answer against `check_at`: the two are the same
/// except in the test that shows every check can fail.
type RunChecked = fn(InProcess, &str, &Params, &Params) -> Result<Outcome>;

/// A workload as the catalog holds it: its spec and its type-erased run.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The workload's declaration.
    pub spec: &'static Spec,
    run: RunChecked,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("spec", &self.spec.name)
            .finish()
    }
}

fn run_checked<W: Workload>(
    on: InProcess,
    variant: &str,
    run_at: &Params,
    check_at: &Params,
) -> Result<Outcome> {
    // Bodies may rely on a declared variant (single-variant workloads do not look at it).
    W::SPEC.resolve_variant(Some(variant))?;
    let measured = match on {
        InProcess::Mote => W::on_mote(variant, run_at)?,
        InProcess::Tokio(tokio) => W::on_tokio(tokio, variant, run_at)?,
    };
    W::check(variant, check_at, &measured.answer)?;
    let mut extras = measured.extras;
    extras.extend(W::option_extras(variant, run_at));
    Ok(Outcome {
        wall_ms: measured.wall_ms,
        extras,
    })
}

impl Entry {
    /// The catalog line of workload `W`.
    pub const fn of<W: Workload>() -> Entry {
        Entry {
            spec: W::SPEC,
            run: run_checked::<W>,
        }
    }

    /// Runs `variant` at `p` on `on` and checks the answer (a wrong one is a
    /// [`crate::harness::outcome::CheckFailed`] error).
    pub fn run(&self, on: InProcess, variant: &str, p: &Params) -> Result<Outcome> {
        (self.run)(on, variant, p, p)
    }

    /// Runs at `run_at` but checks against `check_at`: how the tests show a check is real.
    pub fn run_checked_against(
        &self,
        on: InProcess,
        variant: &str,
        run_at: &Params,
        check_at: &Params,
    ) -> Result<Outcome> {
        (self.run)(on, variant, run_at, check_at)
    }
}

/// The error for a style the workload does not declare (the spec normally catches it first).
pub fn unknown_style(workload: &str, style: &str) -> anyhow::Error {
    spec::usage(format!("{workload}: tokio has no style '{style}'"))
}
