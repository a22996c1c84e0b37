//! Which scenarios a suite runs: every workload x variant at its default (or `--quick`) sizes,
//! plus the sweeps. A sweep point equal to a base scenario is run once and serves both.

use super::model::{Metric, Scenario, Sweep};
use crate::catalog::{self, WorkloadSpec};
use crate::params::Params;

/// The sweeps of the contract ("chain over M, million over K, workers over W = 1..cores"),
/// sized for a full or a `--quick` suite on a machine with `cores` cores.
pub fn sweeps(quick: bool, cores: usize) -> Vec<Sweep> {
    let pick = |full: &[u64], q: &[u64]| if quick { q.to_vec() } else { full.to_vec() };
    vec![
        Sweep {
            name: "chain_m".into(),
            title: "chain (int): time vs processes M".into(),
            workload: "chain".into(),
            variants: vec!["int".into()],
            param: "m".into(),
            values: pick(&[1_000, 3_000, 10_000, 30_000], &[100, 300, 1_000, 3_000]),
            metric: Metric::TimeMs,
            log_x: true,
        },
        Sweep {
            name: "million_k".into(),
            title: "million: peak RSS vs idle processes K".into(),
            workload: "million".into(),
            variants: vec![catalog::NO_VARIANT.into()],
            param: "k".into(),
            values: pick(&[10_000, 100_000, 1_000_000], &[2_000, 20_000, 200_000]),
            metric: Metric::RssMb,
            log_x: true,
        },
        Sweep {
            name: "call_callers".into(),
            title: "call: time vs concurrent clients, callers (Rust only)".into(),
            workload: "call".into(),
            variants: vec![catalog::NO_VARIANT.into()],
            param: "callers".into(),
            values: pick(&[1, 10, 100, 1_000, 10_000], &[1, 100, 10_000]),
            metric: Metric::TimeMs,
            log_x: true,
        },
        Sweep {
            name: "copy_chunks".into(),
            title: "copy (par): time vs tasks per computation, chunks (Rust only)".into(),
            workload: "copy".into(),
            variants: vec!["par".into()],
            param: "chunks".into(),
            values: pick(&[1, 2, 4, 8], &[1, 4]),
            metric: Metric::TimeMs,
            log_x: false,
        },
        Sweep {
            name: "workers_w".into(),
            title: "workers (push, steal): time vs workers W".into(),
            workload: "workers".into(),
            variants: vec!["push".into(), "steal".into()],
            param: "w".into(),
            values: (1..=cores.max(1) as u64).collect(),
            metric: Metric::TimeMs,
            log_x: false,
        },
        Sweep {
            name: "workers_batch".into(),
            title: "workers (push, steal): time vs items per message, batch (Rust only)".into(),
            workload: "workers".into(),
            variants: vec!["push".into(), "steal".into()],
            param: "batch".into(),
            values: pick(&[1, 10, 100, 1_000], &[1, 100]),
            metric: Metric::TimeMs,
            log_x: true,
        },
    ]
}

/// The scenarios for `workloads` (in catalog order), with the sweeps whose workload is among
/// them. Returns the scenarios and the sweeps kept.
pub fn plan(
    workloads: &[&'static WorkloadSpec],
    quick: bool,
    sweeps_on: bool,
    cores: usize,
) -> (Vec<Scenario>, Vec<Sweep>) {
    let mut scenarios: Vec<Scenario> = Vec::new();
    for w in workloads {
        for v in w.variant_names() {
            scenarios.push(Scenario {
                workload: w.name.into(),
                variant: v.into(),
                params: w.base_params(quick),
                base: true,
                sweeps: Vec::new(),
            });
        }
    }
    let kept: Vec<Sweep> = if sweeps_on {
        sweeps(quick, cores)
            .into_iter()
            .filter(|s| workloads.iter().any(|w| w.name == s.workload))
            .collect()
    } else {
        Vec::new()
    };
    for sweep in &kept {
        let spec = catalog::find(&sweep.workload).expect("sweeps name catalog workloads");
        for variant in &sweep.variants {
            for &value in &sweep.values {
                let params = sweep_point(spec, quick, &sweep.param, value);
                add_point(&mut scenarios, spec.name, variant, params, &sweep.name);
            }
        }
    }
    // Keep each workload's scenarios together so reports and progress read in order.
    let order = |s: &Scenario| {
        catalog::WORKLOADS
            .iter()
            .position(|w| w.name == s.workload)
            .unwrap_or(usize::MAX)
    };
    scenarios.sort_by_key(order);
    (scenarios, kept)
}

fn sweep_point(spec: &WorkloadSpec, quick: bool, param: &str, value: u64) -> Params {
    let mut params = spec.base_params(quick);
    if !params.set(param, value) {
        // An option outside the contract's table: named even at its neutral value, so
        // every point of the sweep has an x.
        debug_assert!(
            spec.options.contains(&param),
            "sweep parameter {param} of {}",
            spec.name
        );
        params.push(param, value);
    }
    params
}

fn add_point(
    scenarios: &mut Vec<Scenario>,
    workload: &str,
    variant: &str,
    params: Params,
    sweep: &str,
) {
    if let Some(s) = scenarios
        .iter_mut()
        .find(|s| s.same_as(workload, variant, &params))
    {
        s.sweeps.push(sweep.to_string());
        return;
    }
    scenarios.push(Scenario {
        workload: workload.into(),
        variant: variant.into(),
        params,
        base: false,
        sweeps: vec![sweep.to_string()],
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_points_equal_to_base_scenarios_are_shared() {
        let (scenarios, sweeps) = plan(
            &catalog::WORKLOADS.iter().collect::<Vec<_>>(),
            true,
            true,
            2,
        );
        assert_eq!(sweeps.len(), 6);
        let base_chain = scenarios
            .iter()
            .find(|s| s.workload == "chain" && s.variant == "int" && s.base)
            .unwrap();
        // Quick chain is m=1000 n=1000, which is also a chain_m point.
        assert_eq!(base_chain.sweeps, vec!["chain_m".to_string()]);
        let chain_points = scenarios
            .iter()
            .filter(|s| s.sweeps.contains(&"chain_m".to_string()))
            .count();
        assert_eq!(chain_points, 4);
        // workers_w over W = 1..=2 for push and steal: w=2 is the base, w=1 is new.
        let w1: Vec<_> = scenarios
            .iter()
            .filter(|s| s.workload == "workers" && s.params.get("w").unwrap() == 1)
            .map(|s| s.variant.as_str())
            .collect();
        assert_eq!(w1, vec!["push", "steal"]);
        // The copy_chunks points name their option, even chunks=1.
        let chunks: Vec<_> = scenarios
            .iter()
            .filter(|s| s.sweeps.contains(&"copy_chunks".to_string()))
            .map(|s| (s.base, s.params.get("chunks").unwrap()))
            .collect();
        assert_eq!(chunks, vec![(false, 1), (false, 4)]);
        // So do the call_callers points, even callers=1.
        let callers: Vec<_> = scenarios
            .iter()
            .filter(|s| s.sweeps.contains(&"call_callers".to_string()))
            .map(|s| (s.base, s.params.get("callers").unwrap()))
            .collect();
        assert_eq!(callers, vec![(false, 1), (false, 100), (false, 10_000)]);
        // 18 base scenarios + 3 chain + 2 million + 3 call + 2 copy + 2 + 4 workers sweep-only
        // points.
        assert_eq!(scenarios.iter().filter(|s| s.base).count(), 18);
        assert_eq!(scenarios.len(), 34);
        // Grouped by workload in catalog order.
        assert_eq!(scenarios[0].workload, "chain");
        assert_eq!(scenarios.last().unwrap().workload, "workers");
    }

    #[test]
    fn filtered_workloads_drop_their_sweeps() {
        let only = [catalog::find("pingpong").unwrap()];
        let (scenarios, sweeps) = plan(&only, false, true, 4);
        assert!(sweeps.is_empty());
        assert_eq!(scenarios.len(), 1);
        assert_eq!(scenarios[0].params.to_kv_string(), "r=1000000");
    }
}
