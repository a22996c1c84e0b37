//! The workload catalog: every workload of `docs/workloads.md` with its variants, its
//! parameters (default and `--quick` values) and the extra figures it reports.
//!
//! This is the single place the contract's table lives in code; the CLI, the suite planner and
//! the implementations all look workloads up here so they cannot disagree on names or defaults.

use crate::params::Params;
use anyhow::Result;

/// One parameter of a workload: its name and the values used by a default and a `--quick` run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// Name as written in `k=v` and in the RESULT line.
    pub name: &'static str,
    /// Value used by a full-size run.
    pub default: u64,
    /// Value used by `--quick`.
    pub quick: u64,
}

/// One workload of the contract.
#[derive(Debug, Clone, Copy)]
pub struct WorkloadSpec {
    /// Name as written in `--workload` and `bench=`.
    pub name: &'static str,
    /// Variants in contract order; empty when the workload has none (printed as `-`).
    pub variants: &'static [&'static str],
    /// Parameters in the order the RESULT line prints them.
    pub params: &'static [ParamSpec],
    /// Extra figures the workload may print after `wall_ms`.
    pub extras: &'static [&'static str],
    /// Parameters outside the contract's table that an implementation may take (absent by
    /// default, accepted by `--param`, printed after the contract's ones).
    pub options: &'static [&'static str],
    /// One line saying what is measured.
    pub summary: &'static str,
    /// Contract constraints on the parameter values beyond "positive integer".
    validate: fn(&Params) -> Result<()>,
}

/// The variant name printed for a workload without variants.
pub const NO_VARIANT: &str = "-";

const fn p(name: &'static str, default: u64, quick: u64) -> ParamSpec {
    ParamSpec {
        name,
        default,
        quick,
    }
}

fn no_constraint(_: &Params) -> Result<()> {
    Ok(())
}

fn skynet_constraint(p: &Params) -> Result<()> {
    let l = p.get("l")?;
    anyhow::ensure!(is_power_of_ten(l), "skynet: l={l} is not a power of 10");
    Ok(())
}

fn fanin_constraint(p: &Params) -> Result<()> {
    let (s, n) = (p.get("s")?, p.get("n")?);
    anyhow::ensure!(n % s == 0, "fanin: n={n} is not a multiple of s={s}");
    Ok(())
}

fn call_constraint(p: &Params) -> Result<()> {
    // `callers` is an option: absent means the contract's one client.
    if let Ok(k) = p.get("callers") {
        let r = p.get("r")?;
        anyhow::ensure!(
            k <= r,
            "call: callers={k} is more than r={r} (every caller makes at least one call)"
        );
    }
    Ok(())
}

/// True for 1, 10, 100, ...
pub fn is_power_of_ten(mut x: u64) -> bool {
    if x == 0 {
        return false;
    }
    while x % 10 == 0 {
        x /= 10;
    }
    x == 1
}

/// Every workload, in the order of the contract's table (also the suite's order).
pub const WORKLOADS: &[WorkloadSpec] = &[
    WorkloadSpec {
        name: "chain",
        variants: &["int", "list20"],
        params: &[p("m", 10_000, 1_000), p("n", 10_000, 1_000)],
        extras: &[],
        options: &[],
        summary: "N messages relayed through a chain of M processes",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "million",
        variants: &[],
        params: &[p("k", 1_000_000, 20_000)],
        extras: &["spawn_ms"],
        options: &[],
        summary: "K idle processes blocked in receive, then woken once each",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "spawn",
        variants: &[],
        params: &[p("k", 1_000_000, 20_000)],
        extras: &[],
        options: &[],
        summary: "K short-lived processes spawned one after another",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "pingpong",
        variants: &[],
        params: &[p("r", 1_000_000, 20_000)],
        extras: &[],
        options: &[],
        summary: "R round trips between two processes",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "ring",
        variants: &[],
        params: &[p("t", 10_000_000, 100_000), p("p", 503, 503)],
        extras: &[],
        options: &[],
        summary: "a token passed T times around a ring of P processes",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "skynet",
        variants: &[],
        params: &[p("l", 1_000_000, 10_000)],
        extras: &[],
        options: &[],
        summary: "a tree of processes with fan-out 10 summing L leaves",
        validate: skynet_constraint,
    },
    WorkloadSpec {
        name: "fanin",
        variants: &[],
        params: &[p("s", 100, 10), p("n", 10_000_000, 100_000)],
        extras: &[],
        options: &[],
        summary: "S senders send N messages in total to one receiver",
        validate: fanin_constraint,
    },
    WorkloadSpec {
        name: "call",
        variants: &[],
        params: &[p("r", 1_000_000, 20_000)],
        extras: &["callers"],
        options: &["callers"],
        summary: "R synchronous request/reply calls to a server process",
        validate: call_constraint,
    },
    WorkloadSpec {
        name: "parsum",
        variants: &["serial", "spawn", "pool"],
        params: &[p("r", 100_000, 100_000), p("reps", 100, 10)],
        extras: &[],
        options: &[],
        summary: "sum of R ints in chunks of 100: serial, a process per chunk, a pre-spawned pool",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "copy",
        variants: &["seq", "par"],
        params: &[p("n", 1_000_000, 100_000), p("r", 5, 2)],
        extras: &["chunks"],
        options: &["chunks"],
        summary: "uniq, frequencies and shuffle of N ints, one after another or in parallel",
        validate: no_constraint,
    },
    WorkloadSpec {
        name: "workers",
        variants: &["serial", "master_slave", "push", "steal"],
        params: &[p("w", 2, 2), p("n", 50_000, 5_000)],
        extras: &["batch"],
        options: &["batch"],
        summary:
            "prime-factor counts of 1..=N: serial, process per item, work pushing, work stealing",
        validate: no_constraint,
    },
];

/// Looks a workload up by name.
pub fn find(name: &str) -> Option<&'static WorkloadSpec> {
    WORKLOADS.iter().find(|w| w.name == name)
}

/// A workload name the catalog does not know, or a bad variant or parameter: the contract's
/// "exit status 2" class of error, kept as its own type so `run` can pick the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

/// The error for a variant a workload does not have (the catalog normally catches it first).
pub(crate) fn bad_variant(workload: &str, variant: &str) -> anyhow::Error {
    UsageError(format!("{workload}: unknown variant '{variant}'")).into()
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(msg: String) -> anyhow::Error {
    UsageError(msg).into()
}

impl WorkloadSpec {
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

    /// The parameter set of a default (`quick = false`) or `--quick` run.
    pub fn base_params(&self, quick: bool) -> Params {
        Params::from_pairs(
            self.params
                .iter()
                .map(|s| (s.name, if quick { s.quick } else { s.default })),
        )
    }

    /// Fills the defaults (or quick values) in, applies `overrides` and validates the result:
    /// every override must name a parameter of this workload, values must be positive and meet
    /// the workload's own constraints. Errors are [`UsageError`]s.
    pub fn resolve_params(&self, quick: bool, overrides: &[(String, u64)]) -> Result<Params> {
        let mut params = self.base_params(quick);
        for (k, v) in overrides {
            if params.set(k, *v) {
                continue;
            }
            // An optional knob (`workers`' `batch`) goes after the contract's parameters,
            // so the RESULT line shows it.
            if self.options.contains(&k.as_str()) {
                params.push(k, *v);
                continue;
            }
            let known: Vec<_> = self.params.iter().map(|s| s.name).collect();
            let options = if self.options.is_empty() {
                String::new()
            } else {
                format!("; options: {}", self.options.join(", "))
            };
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
        }
        (self.validate)(&params).map_err(|e| usage(e.to_string()))?;
        Ok(params)
    }
}

/// Looks a workload up, as a [`UsageError`] when it is unknown.
pub fn lookup(name: &str) -> Result<&'static WorkloadSpec> {
    find(name).ok_or_else(|| {
        let known: Vec<_> = WORKLOADS.iter().map(|w| w.name).collect();
        usage(format!(
            "unknown workload '{name}' (workloads: {})",
            known.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_workload_has_distinct_name_and_params() {
        for (i, w) in WORKLOADS.iter().enumerate() {
            assert!(WORKLOADS[i + 1..].iter().all(|o| o.name != w.name));
            assert!(!w.params.is_empty(), "{}", w.name);
            // The defaults and quick values must satisfy the workload's own constraints.
            w.resolve_params(false, &[]).unwrap();
            w.resolve_params(true, &[]).unwrap();
        }
    }

    #[test]
    fn params_come_in_contract_order_with_quick_values() {
        let chain = find("chain").unwrap();
        let quick = chain.base_params(true);
        let q: Vec<_> = quick.iter().collect();
        assert_eq!(q, vec![("m", 1_000), ("n", 1_000)]);
        let ring = find("ring").unwrap().base_params(false);
        assert_eq!(ring.to_kv_string(), "t=10000000 p=503");
    }

    #[test]
    fn variants_resolve_or_fail_as_usage() {
        let parsum = find("parsum").unwrap();
        assert_eq!(parsum.resolve_variant(None).unwrap(), "serial");
        assert_eq!(parsum.resolve_variant(Some("pool")).unwrap(), "pool");
        let err = parsum.resolve_variant(Some("nope")).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some());
        assert_eq!(find("million").unwrap().resolve_variant(None).unwrap(), "-");
        assert!(find("million").unwrap().resolve_variant(Some("x")).is_err());
    }

    #[test]
    fn constraints_are_enforced() {
        let skynet = find("skynet").unwrap();
        assert!(skynet.resolve_params(false, &[("l".into(), 1000)]).is_ok());
        let e = skynet
            .resolve_params(false, &[("l".into(), 1234)])
            .unwrap_err();
        assert!(e.to_string().contains("power of 10"), "{e}");
        let fanin = find("fanin").unwrap();
        assert!(fanin.resolve_params(false, &[("n".into(), 1001)]).is_err());
        let workers = find("workers").unwrap();
        let batched = workers
            .resolve_params(true, &[("batch".into(), 100)])
            .unwrap();
        assert_eq!(batched.get("batch").unwrap(), 100);
        assert!(workers
            .resolve_params(true, &[])
            .unwrap()
            .get("batch")
            .is_err());
        assert!(workers
            .resolve_params(true, &[("batch".into(), 0)])
            .is_err());
        let call = find("call").unwrap();
        let callers = call
            .resolve_params(true, &[("callers".into(), 20_000)])
            .unwrap();
        assert_eq!(callers.to_kv_string(), "r=20000 callers=20000");
        assert!(call.resolve_params(true, &[("callers".into(), 0)]).is_err());
        let e = call
            .resolve_params(true, &[("callers".into(), 20_001)])
            .unwrap_err();
        assert!(e.downcast_ref::<UsageError>().is_some());
        assert!(
            e.to_string().contains("callers=20001 is more than r=20000"),
            "{e}"
        );
        let chain = find("chain").unwrap();
        let e = chain.resolve_params(false, &[("q".into(), 1)]).unwrap_err();
        assert!(e.to_string().contains("unknown parameter 'q'"), "{e}");
        assert!(chain.resolve_params(false, &[("m".into(), 0)]).is_err());
        assert!(lookup("nope").is_err());
    }

    #[test]
    fn power_of_ten() {
        assert!(is_power_of_ten(1));
        assert!(is_power_of_ten(1_000_000));
        assert!(!is_power_of_ten(0));
        assert!(!is_power_of_ten(20));
    }
}
