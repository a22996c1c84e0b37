//! What a workload declares about itself: its name, variants, parameters with their three
//! sizes, extra figures, options, named styles, constraints, test sizes and expected cost.
//!
//! Each workload's `mod.rs` holds one [`Spec`]; the CLI, the suite planner, the peers'
//! command lines, `mote-bench list` and the tests all read it, so names and sizes exist once.

use crate::harness::params::Params;
use anyhow::Result;

/// How big a run is. `Full` is the contract's size (the write-ups' own experiments, what
/// `mote-bench run` uses unless told otherwise); `Standard` is what the default suite runs,
/// sized so the whole suite takes about ten minutes on two cores; `Quick` is the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    /// The smoke-test sizes (`--quick`).
    Quick,
    /// The default suite's sizes.
    #[default]
    Standard,
    /// The contract's sizes (`--full`).
    Full,
}

impl Size {
    /// Every size, smallest first.
    pub const ALL: [Size; 3] = [Size::Quick, Size::Standard, Size::Full];

    /// The name used by `--size` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Size::Quick => "quick",
            Size::Standard => "standard",
            Size::Full => "full",
        }
    }

    /// Parses a `--size` value.
    pub fn parse(s: &str) -> Result<Size, String> {
        Size::ALL
            .into_iter()
            .find(|z| z.name() == s)
            .ok_or_else(|| format!("unknown size '{s}' (sizes: quick, standard, full)"))
    }
}

/// One parameter of a workload: its name and its value at each [`Size`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// Name as written in `k=v` and in the RESULT line.
    pub name: &'static str,
    /// Value at `--quick`.
    pub quick: u64,
    /// Value in the default suite.
    pub standard: u64,
    /// The contract's value (`--full`, and `mote-bench run` without a size).
    pub full: u64,
    /// Whether a run's work grows in proportion to this parameter (chain's `m` and `n`, not
    /// ring's `p`): the duration estimate scales by the product of these.
    pub scales: bool,
}

impl ParamSpec {
    /// The value at `size`.
    pub fn at(&self, size: Size) -> u64 {
        match size {
            Size::Quick => self.quick,
            Size::Standard => self.standard,
            Size::Full => self.full,
        }
    }
}

/// A parameter whose work scales with its value, given at the three sizes (quick, standard,
/// full).
pub const fn param(name: &'static str, quick: u64, standard: u64, full: u64) -> ParamSpec {
    ParamSpec {
        name,
        quick,
        standard,
        full,
        scales: true,
    }
}

/// A parameter that shapes the run without scaling its work (ring's `p`, workers' `w`).
pub const fn shape(name: &'static str, quick: u64, standard: u64, full: u64) -> ParamSpec {
    ParamSpec {
        scales: false,
        ..param(name, quick, standard, full)
    }
}

/// A named alternative of one implementation's program for a workload (tokio's tail-first
/// chain, its bounded-channel call...): the default program is the fastest one found, the
/// styles are the others, kept so the suite shows what was tried. Run as `--impl tokio:NAME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// The implementation it is a style of (`tokio`).
    pub imp: &'static str,
    /// Its name (`tail_first`).
    pub name: &'static str,
    /// What it does differently.
    pub summary: &'static str,
}

/// What a run of a workload is expected to take on the reference machine (2 cores), at the
/// full sizes, for the duration estimate printed before a suite starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// An implementation name, or `impl/variant` for a variant that differs a lot.
    pub key: &'static str,
    /// The workload's own time, ms.
    pub ms: f64,
}

/// `key` takes `ms` at the full sizes.
pub const fn expect(key: &'static str, ms: f64) -> Expect {
    Expect { key, ms }
}

/// One workload of the contract.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Name as written in `--workload` and `bench=`.
    pub name: &'static str,
    /// One line saying what is measured.
    pub summary: &'static str,
    /// Variants in contract order; empty when the workload has none (printed as `-`).
    pub variants: &'static [&'static str],
    /// Parameters in the order the RESULT line prints them.
    pub params: &'static [ParamSpec],
    /// Extra figures the workload may print after `wall_ms`.
    pub extras: &'static [&'static str],
    /// Parameters outside the contract's table that the Rust implementations take (absent by
    /// default, accepted by `--param`, printed after the contract's ones); a peer takes those
    /// its [`crate::peers::PeerImpl::options`] lists. Every workload also takes [`THREADS`].
    pub options: &'static [&'static str],
    /// Named alternatives of an implementation's program.
    pub styles: &'static [Style],
    /// Contract constraints on the parameter values beyond "positive integer".
    pub validate: fn(&Params) -> Result<()>,
    /// Small sizes for the tests (debug builds), overriding the quick ones.
    pub test_sizes: &'static [(&'static str, u64)],
    /// Expected full-size times per implementation.
    pub expect: &'static [Expect],
}

/// The variant name printed for a workload without variants.
pub const NO_VARIANT: &str = "-";

/// The option every workload takes: how many threads run the processes (mote's scheduler
/// threads, tokio's workers, Go's `GOMAXPROCS`). Absent, every runtime gets one per core.
/// The scaling study (`mote-bench --scaling`) sweeps it.
pub const THREADS: &str = "threads";

/// The most [`THREADS`] a run takes: more is a usage error, not a run that spawns thousands
/// of OS threads and fails part way.
pub const MAX_THREADS: u64 = 1024;

/// A workload with no constraint beyond positive parameters.
pub fn no_constraint(_: &Params) -> Result<()> {
    Ok(())
}

/// A workload name the catalog does not know, or a bad variant or parameter: the contract's
/// "exit status 2" class of error, kept as its own type so `run` can pick the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A [`UsageError`] as an `anyhow::Error`.
pub fn usage(msg: String) -> anyhow::Error {
    UsageError(msg).into()
}

/// The error for a variant a workload does not have (the spec normally catches it first).
pub fn bad_variant(workload: &str, variant: &str) -> anyhow::Error {
    usage(format!("{workload}: unknown variant '{variant}'"))
}

impl Spec {
    /// The variants to run: the declared ones, or just `-` for a workload without variants.
    pub fn variant_names(&self) -> Vec<&'static str> {
        if self.variants.is_empty() {
            vec![NO_VARIANT]
        } else {
            self.variants.to_vec()
        }
    }

    /// Resolves `--variant`: absent means the first variant (or `-`); anything else must be
    /// one of the declared variants.
    pub fn resolve_variant(&self, asked: Option<&str>) -> Result<&'static str> {
        let names = self.variant_names();
        match asked {
            None => Ok(names[0]),
            Some(v) => names.iter().copied().find(|n| *n == v).ok_or_else(|| {
                usage(format!(
                    "{}: unknown variant '{v}' (variants: {})",
                    self.name,
                    names.join(", ")
                ))
            }),
        }
    }

    /// The styles of implementation `imp`.
    pub fn styles_of<'a>(&'a self, imp: &'a str) -> impl Iterator<Item = &'static Style> + 'a {
        self.styles.iter().filter(move |s| s.imp == imp)
    }

    /// The style `name` of `imp`, as a [`UsageError`] when there is none.
    pub fn resolve_style(&self, imp: &str, name: &str) -> Result<&'static Style> {
        self.styles_of(imp).find(|s| s.name == name).ok_or_else(|| {
            let known: Vec<_> = self.styles_of(imp).map(|s| s.name).collect();
            usage(format!(
                "{}: {imp} has no style '{name}' (styles: {})",
                self.name,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })
    }

    /// The parameter set at `size`.
    pub fn params_at(&self, size: Size) -> Params {
        Params::from_pairs(self.params.iter().map(|s| (s.name, s.at(size))))
    }

    /// Fills the values at `size` in, applies `overrides` and validates the result: every
    /// override must name a parameter or option of this workload, values must be positive and
    /// meet the workload's own constraints. Errors are [`UsageError`]s.
    pub fn resolve_params(&self, size: Size, overrides: &[(String, u64)]) -> Result<Params> {
        let mut params = self.params_at(size);
        for (k, v) in overrides {
            if params.set(k, *v) {
                continue;
            }
            // An option (`workers`' `batch`) goes after the contract's parameters, so the
            // RESULT line shows it.
            if self.takes_option(k) {
                params.push(k, *v);
                continue;
            }
            let known: Vec<_> = self.params.iter().map(|s| s.name).collect();
            let options: Vec<_> = self.options.iter().copied().chain([THREADS]).collect();
            let options = format!("; options: {}", options.join(", "));
            return Err(usage(format!(
                "{}: unknown parameter '{k}' (parameters: {}{options})",
                self.name,
                known.join(", ")
            )));
        }
        for (k, v) in params.iter() {
            if v == 0 {
                return Err(usage(format!("{}: parameter {k} must be > 0", self.name)));
            }
            if k == THREADS && v > MAX_THREADS {
                return Err(usage(format!(
                    "{}: {THREADS}={v} is more than {MAX_THREADS}",
                    self.name
                )));
            }
        }
        (self.validate)(&params).map_err(|e| usage(e.to_string()))?;
        Ok(params)
    }

    /// Whether `name` is an option of this workload: one of its [`Spec::options`] or
    /// [`THREADS`].
    pub fn takes_option(&self, name: &str) -> bool {
        name == THREADS || self.options.contains(&name)
    }

    /// The options `params` sets: its names that are not the contract's parameters.
    pub fn options_set<'a>(&'a self, params: &'a Params) -> impl Iterator<Item = &'a str> + 'a {
        params
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !self.params.iter().any(|s| s.name == *k))
    }

    /// The parameters the tests run at: the quick values with [`Spec::test_sizes`] applied.
    pub fn test_params(&self) -> Result<Params> {
        let overrides: Vec<(String, u64)> = self
            .test_sizes
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        self.resolve_params(Size::Quick, &overrides)
    }

    /// How much work `params` is relative to the full sizes: the product of the ratios of
    /// the parameters that scale.
    pub fn work_vs_full(&self, params: &Params) -> f64 {
        self.params
            .iter()
            .filter(|s| s.scales)
            .map(|s| params.get(s.name).map_or(1.0, |v| v as f64 / s.full as f64))
            .product()
    }

    /// The expected full-size time of `variant` on `imp` (by name), if the spec has one.
    pub fn expected_full_ms(&self, imp: &str, variant: &str) -> Option<f64> {
        let exact = format!("{imp}/{variant}");
        let find = |key: &str| self.expect.iter().find(|e| e.key == key).map(|e| e.ms);
        find(&exact).or_else(|| find(imp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must_be_even(p: &Params) -> Result<()> {
        anyhow::ensure!(p.get("n")? % 2 == 0, "n is odd");
        Ok(())
    }

    const DEMO: Spec = Spec {
        name: "demo",
        summary: "a spec for the tests",
        variants: &["a", "b"],
        params: &[param("n", 10, 100, 1000), shape("w", 2, 2, 4)],
        extras: &[],
        options: &["batch"],
        styles: &[Style {
            imp: "tokio",
            name: "slow",
            summary: "slower",
        }],
        validate: must_be_even,
        test_sizes: &[("n", 4)],
        expect: &[expect("tokio", 50.0), expect("tokio/b", 80.0)],
    };

    #[test]
    fn sizes_pick_their_column() {
        assert_eq!(DEMO.params_at(Size::Quick).to_kv_string(), "n=10 w=2");
        assert_eq!(DEMO.params_at(Size::Standard).to_kv_string(), "n=100 w=2");
        assert_eq!(DEMO.params_at(Size::Full).to_kv_string(), "n=1000 w=4");
        assert_eq!(DEMO.test_params().unwrap().to_kv_string(), "n=4 w=2");
        assert_eq!(Size::parse("standard"), Ok(Size::Standard));
        assert!(Size::parse("huge").is_err());
    }

    #[test]
    fn variants_resolve_or_fail_as_usage() {
        assert_eq!(DEMO.resolve_variant(None).unwrap(), "a");
        assert_eq!(DEMO.resolve_variant(Some("b")).unwrap(), "b");
        let err = DEMO.resolve_variant(Some("c")).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some());
    }

    #[test]
    fn params_resolve_with_options_and_constraints() {
        let p = DEMO
            .resolve_params(Size::Quick, &[("batch".into(), 3)])
            .unwrap();
        assert_eq!(p.to_kv_string(), "n=10 w=2 batch=3");
        let e = DEMO
            .resolve_params(Size::Quick, &[("n".into(), 3)])
            .unwrap_err();
        assert_eq!(e.to_string(), "n is odd");
        assert!(e.downcast_ref::<UsageError>().is_some());
        let e = DEMO
            .resolve_params(Size::Quick, &[("q".into(), 1)])
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown parameter 'q' (parameters: n, w; options: batch, threads)"),
            "{e}"
        );
        // Every workload takes `threads`, after the contract's parameters, and says which
        // options a parameter set holds.
        let p = DEMO
            .resolve_params(Size::Quick, &[("threads".into(), 4), ("n".into(), 12)])
            .unwrap();
        assert_eq!(p.to_kv_string(), "n=12 w=2 threads=4");
        assert_eq!(DEMO.options_set(&p).collect::<Vec<_>>(), vec!["threads"]);
        assert!(DEMO
            .resolve_params(Size::Quick, &[("threads".into(), 0)])
            .is_err());
        let e = DEMO
            .resolve_params(Size::Quick, &[("threads".into(), MAX_THREADS + 1)])
            .unwrap_err();
        assert!(
            e.to_string().contains("threads=1025 is more than 1024"),
            "{e}"
        );
        assert!(e.downcast_ref::<UsageError>().is_some());
        assert!(DEMO
            .resolve_params(Size::Quick, &[("w".into(), 0)])
            .is_err());
    }

    #[test]
    fn styles_resolve_per_implementation() {
        assert_eq!(DEMO.resolve_style("tokio", "slow").unwrap().name, "slow");
        let e = DEMO.resolve_style("mote", "slow").unwrap_err();
        assert!(e
            .to_string()
            .contains("mote has no style 'slow' (styles: none)"));
    }

    #[test]
    fn work_scales_with_the_scaling_parameters_only() {
        let full = DEMO.params_at(Size::Full);
        assert_eq!(DEMO.work_vs_full(&full), 1.0);
        let standard = DEMO.params_at(Size::Standard);
        // n is a tenth of full; w does not scale.
        assert!((DEMO.work_vs_full(&standard) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn expected_times_prefer_the_variant_entry() {
        assert_eq!(DEMO.expected_full_ms("tokio", "a"), Some(50.0));
        assert_eq!(DEMO.expected_full_ms("tokio", "b"), Some(80.0));
        assert_eq!(DEMO.expected_full_ms("go", "a"), None);
    }
}
