//! Which scenarios a suite runs (every workload x variant at the suite's sizes, plus the
//! sweeps; a sweep point equal to a base scenario is run once and serves both), and which
//! implementations run each scenario (its lineup).

use super::model::{Metric, Scenario, Sweep};
use crate::catalog;
use crate::harness::params::Params;
use crate::impls::Impl;
use crate::peers;
use crate::workloads::spec::{Size, Spec, NO_VARIANT, THREADS};
use crate::workloads::{call, pingpong, Entry};

/// The sweeps of the contract ("chain over M, million over K, workers over W = 1..cores"),
/// and over workloads' options (a peer that lacks one sits its points out), at `size` on a
/// machine with `cores` cores.
pub fn sweeps(size: Size, cores: usize) -> Vec<Sweep> {
    let pick = |quick: &[u64], standard: &[u64], full: &[u64]| {
        match size {
            Size::Quick => quick,
            Size::Standard => standard,
            Size::Full => full,
        }
        .to_vec()
    };
    vec![
        Sweep {
            name: "chain_m".into(),
            title: "chain (int): time vs processes M".into(),
            workload: "chain".into(),
            variants: vec!["int".into()],
            fixed: Params::default(),
            param: "m".into(),
            values: pick(
                &[100, 300, 1_000, 3_000],
                &[300, 1_000, 3_000, 10_000],
                &[1_000, 3_000, 10_000, 30_000],
            ),
            metric: Metric::TimeMs,
            log_x: true,
        },
        Sweep {
            name: "million_k".into(),
            title: "million: peak RSS vs idle processes K".into(),
            workload: "million".into(),
            variants: vec![NO_VARIANT.into()],
            fixed: Params::default(),
            param: "k".into(),
            values: pick(
                &[2_000, 20_000, 200_000],
                &[20_000, 200_000, 1_000_000],
                &[10_000, 100_000, 1_000_000],
            ),
            metric: Metric::RssMb,
            log_x: true,
        },
        Sweep {
            name: "call_callers".into(),
            title: "call: time vs concurrent clients, callers".into(),
            workload: "call".into(),
            variants: vec![NO_VARIANT.into()],
            fixed: Params::default(),
            param: "callers".into(),
            values: pick(
                &[1, 100, 10_000],
                &[1, 100, 10_000],
                &[1, 10, 100, 1_000, 10_000],
            ),
            metric: Metric::TimeMs,
            log_x: true,
        },
        Sweep {
            name: "copy_chunks".into(),
            title: "copy (par): time vs tasks per computation, chunks (Rust only)".into(),
            workload: "copy".into(),
            variants: vec!["par".into()],
            fixed: Params::default(),
            param: "chunks".into(),
            values: pick(&[1, 4], &[1, 4], &[1, 2, 4, 8]),
            metric: Metric::TimeMs,
            log_x: false,
        },
        Sweep {
            name: "workers_w".into(),
            title: "workers (push, steal): time vs workers W".into(),
            workload: "workers".into(),
            variants: vec!["push".into(), "steal".into()],
            fixed: Params::default(),
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
            fixed: Params::default(),
            param: "batch".into(),
            values: pick(&[1, 100], &[1, 100], &[1, 10, 100, 1_000]),
            metric: Metric::TimeMs,
            log_x: true,
        },
    ]
}

/// The pairs of the scaling study's `pingpong`: enough independent exchanges to keep 16
/// threads busy (the suite's `pingpong` is one pair, a sequential exchange).
pub const SCALING_PAIRS: u64 = 100;

/// The clients of the scaling study's `call`: the contended server, where a runtime
/// can lose by moving callers between threads (the suite's `call` is one client).
pub const SCALING_CALLERS: u64 = 10_000;

/// The thread counts of the scaling study on a machine with `cores` cores: the powers of two
/// below it, and `cores` itself.
pub fn thread_counts(cores: usize) -> Vec<u64> {
    let cores = cores.max(1) as u64;
    let mut counts: Vec<u64> = std::iter::successors(Some(1u64), |t| Some(t * 2))
        .take_while(|&t| t < cores)
        .collect();
    counts.push(cores);
    counts
}

/// The scaling study (`--scaling`): how each runtime's time changes with its worker
/// threads, on workloads with parallelism to use: many ping-pong pairs, skynet's tree,
/// fanin's senders and the chain's relays; and one where more threads can cost time: many
/// clients of one server.
pub fn scaling_sweeps(cores: usize) -> Vec<Sweep> {
    let sweep = |workload: &str, variant: &str, fixed: Params, what: &str| Sweep {
        name: format!("threads_{workload}"),
        title: format!("{what}: time vs worker threads"),
        workload: workload.into(),
        variants: vec![variant.into()],
        fixed,
        param: THREADS.into(),
        values: thread_counts(cores),
        metric: Metric::TimeMs,
        log_x: true,
    };
    vec![
        sweep("chain", "int", Params::default(), "chain (int)"),
        sweep(
            "pingpong",
            NO_VARIANT,
            Params::from_pairs([(pingpong::PAIRS, SCALING_PAIRS)]),
            &format!("pingpong, {SCALING_PAIRS} pairs"),
        ),
        sweep("skynet", NO_VARIANT, Params::default(), "skynet"),
        sweep("fanin", NO_VARIANT, Params::default(), "fanin"),
        sweep(
            "call",
            NO_VARIANT,
            Params::from_pairs([(call::CALLERS, SCALING_CALLERS)]),
            &format!("call, {SCALING_CALLERS} callers"),
        ),
    ]
}

/// What a suite runs besides each workload's base scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweeps {
    /// Nothing (`--no-sweeps`).
    Off,
    /// The suite's sweeps ([`sweeps`]).
    Suite,
    /// The scaling study alone ([`scaling_sweeps`]), without the base scenarios.
    Scaling,
}

/// The scenarios for `workloads` (in catalog order) at `size`, with the sweeps whose workload
/// is among them. Returns the scenarios and the sweeps kept.
pub fn plan(
    workloads: &[&'static Entry],
    size: Size,
    which: Sweeps,
    cores: usize,
) -> (Vec<Scenario>, Vec<Sweep>) {
    let mut scenarios: Vec<Scenario> = Vec::new();
    if which != Sweeps::Scaling {
        for w in workloads {
            for v in w.spec.variant_names() {
                scenarios.push(Scenario {
                    workload: w.spec.name.into(),
                    variant: v.into(),
                    params: w.spec.params_at(size),
                    base: true,
                    sweeps: Vec::new(),
                });
            }
        }
    }
    let all = match which {
        Sweeps::Off => Vec::new(),
        Sweeps::Suite => sweeps(size, cores),
        Sweeps::Scaling => scaling_sweeps(cores),
    };
    let kept: Vec<Sweep> = all
        .into_iter()
        .filter(|s| workloads.iter().any(|w| w.spec.name == s.workload))
        .collect();
    for sweep in &kept {
        let spec = catalog::find(&sweep.workload)
            .expect("sweeps name catalog workloads")
            .spec;
        for variant in &sweep.variants {
            for &value in &sweep.values {
                let params = sweep_point(spec, size, &sweep.fixed, &sweep.param, value);
                add_point(&mut scenarios, spec.name, variant, params, &sweep.name);
            }
        }
    }
    // Keep each workload's scenarios together so reports and progress read in order.
    let order = |s: &Scenario| {
        catalog::WORKLOADS
            .iter()
            .position(|w| w.spec.name == s.workload)
            .unwrap_or(usize::MAX)
    };
    scenarios.sort_by_key(order);
    (scenarios, kept)
}

fn sweep_point(spec: &Spec, size: Size, fixed: &Params, param: &str, value: u64) -> Params {
    let mut params = spec.params_at(size);
    for (k, v) in fixed.iter().chain([(param, value)]) {
        if !params.set(k, v) {
            // An option outside the contract's table: named even at its neutral value, so
            // every point of the sweep has an x.
            debug_assert!(spec.takes_option(k), "sweep parameter {k} of {}", spec.name);
            params.push(k, v);
        }
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

/// Who runs a scenario: the implementations to run, in interleaving order, and those left
/// out with the reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lineup {
    /// The implementations that run it.
    pub run: Vec<Impl>,
    /// The implementations left out, and why.
    pub skipped: Vec<(Impl, String)>,
}

/// The lineup of `s` for the implementations `asked`, of which `unavailable` cannot run here.
///
/// A base implementation brings its styles for the workload along on base scenarios (the
/// sweeps show the default programs); a style asked for by name runs wherever the workload
/// has it. A peer implementation is left out of workloads outside its `only` list, and of
/// scenarios that set an option it does not take.
pub fn lineup(s: &Scenario, asked: &[Impl], unavailable: &[(Impl, String)]) -> Lineup {
    let mut lineup = Lineup::default();
    let spec = catalog::find(&s.workload).map(|e| e.spec);
    let has_style = |imp: &Impl, style: &str| {
        spec.is_some_and(|sp| sp.styles_of(imp.base()).any(|st| st.name == style))
    };
    for imp in asked {
        if let Some((_, why)) = unavailable.iter().find(|(u, _)| u == imp) {
            lineup.skipped.push((imp.clone(), why.clone()));
        } else if let Some(why) = spec.and_then(|sp| peers::leaves_out(imp.base(), sp, &s.params)) {
            lineup.skipped.push((imp.clone(), why));
        } else if let Some(style) = imp.style() {
            if has_style(imp, style) {
                lineup.run.push(imp.clone());
            }
        } else {
            lineup.run.push(imp.clone());
            if s.base {
                let styles = spec.into_iter().flat_map(|sp| sp.styles_of(imp.base()));
                lineup.run.extend(styles.map(|st| imp.with_style(st.name)));
            }
        }
    }
    lineup.run.sort();
    lineup.run.dedup();
    lineup
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_points_equal_to_base_scenarios_are_shared() {
        let (scenarios, sweeps) = plan(
            &catalog::WORKLOADS.iter().collect::<Vec<_>>(),
            Size::Quick,
            Sweeps::Suite,
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
        let (scenarios, sweeps) = plan(&only, Size::Full, Sweeps::Suite, 4);
        assert!(sweeps.is_empty());
        assert_eq!(scenarios.len(), 1);
        assert_eq!(scenarios[0].params.to_kv_string(), "r=1000000");
    }

    fn base(workload: &str) -> Scenario {
        let spec = catalog::find(workload).unwrap().spec;
        Scenario {
            workload: workload.into(),
            variant: spec.variant_names()[0].into(),
            params: spec.params_at(Size::Quick),
            base: true,
            sweeps: vec![],
        }
    }

    fn names(imps: &[Impl]) -> Vec<&str> {
        imps.iter().map(Impl::name).collect()
    }

    #[test]
    fn base_implementations_bring_their_styles_to_base_scenarios() {
        let asked = [Impl::mote(), Impl::tokio(), Impl::named("go")];
        let chain = base("chain");
        let l = lineup(&chain, &asked, &[]);
        assert_eq!(names(&l.run), ["mote", "tokio", "tokio:tail_first", "go"]);
        let mut point = chain.clone();
        point.base = false;
        assert_eq!(
            names(&lineup(&point, &asked, &[]).run),
            ["mote", "tokio", "go"]
        );
        // A style asked for by name runs where the workload has it, and nowhere else.
        let only_style = [Impl::tokio().with_style("tail_first")];
        assert_eq!(
            names(&lineup(&point, &only_style, &[]).run),
            ["tokio:tail_first"]
        );
        assert!(lineup(&base("ring"), &only_style, &[]).run.is_empty());
    }

    #[test]
    fn the_scaling_study_runs_its_thread_counts_alone() {
        assert_eq!(thread_counts(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(thread_counts(6), vec![1, 2, 4, 6]);
        assert_eq!(thread_counts(1), vec![1]);
        let all: Vec<_> = catalog::WORKLOADS.iter().collect();
        let (scenarios, sweeps) = plan(&all, Size::Quick, Sweeps::Scaling, 4);
        let sweep_names: Vec<_> = sweeps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            sweep_names,
            [
                "threads_chain",
                "threads_pingpong",
                "threads_skynet",
                "threads_fanin",
                "threads_call"
            ]
        );
        // No base scenario: 5 workloads at 1, 2 and 4 threads.
        assert_eq!(scenarios.len(), 15);
        assert!(scenarios.iter().all(|s| !s.base && s.sweeps.len() == 1));
        let pingpong: Vec<_> = scenarios
            .iter()
            .filter(|s| s.workload == "pingpong")
            .map(|s| s.params.to_kv_string())
            .collect();
        assert_eq!(
            pingpong,
            [
                "r=20000 pairs=100 threads=1",
                "r=20000 pairs=100 threads=2",
                "r=20000 pairs=100 threads=4"
            ]
        );
        let call: Vec<_> = scenarios.iter().filter(|s| s.workload == "call").collect();
        assert_eq!(call.len(), 3);
        assert!(call
            .iter()
            .all(|s| s.params.get(call::CALLERS).ok() == Some(SCALING_CALLERS)));
        // Every runtime of the study runs them, and the BEAM's peer (with `--impls`).
        let l = lineup(
            call[0],
            &[
                Impl::mote(),
                Impl::tokio(),
                Impl::named("go"),
                Impl::named("elixir"),
            ],
            &[],
        );
        assert_eq!(names(&l.run), ["mote", "tokio", "go", "elixir"]);
        assert!(l.skipped.is_empty(), "{:?}", l.skipped);
        // `--workloads` narrows the study as it narrows the suite.
        let skynet = [catalog::find("skynet").unwrap()];
        let (scenarios, sweeps) = plan(&skynet, Size::Quick, Sweeps::Scaling, 2);
        assert_eq!((scenarios.len(), sweeps.len()), (2, 1));
        // Go and the BEAM's peer run every point; Clojure's core.async peer none.
        let l = lineup(
            &scenarios[0],
            &[
                Impl::mote(),
                Impl::named("go"),
                Impl::named("elixir"),
                Impl::named("clojure_async"),
            ],
            &[],
        );
        assert_eq!(names(&l.run), ["mote", "go", "elixir"]);
    }

    #[test]
    fn peers_are_left_out_where_they_cannot_run() {
        let tuned = Impl::named("elixir_tuned");
        let asked = [Impl::tokio(), Impl::named("go"), tuned.clone()];
        let ring = lineup(&base("ring"), &asked, &[]);
        assert_eq!(names(&ring.run), ["tokio", "go"]);
        assert_eq!(ring.skipped[0].0, tuned);
        assert!(
            ring.skipped[0].1.contains("runs only million"),
            "{:?}",
            ring.skipped
        );
        let mut copy = base("copy");
        copy.variant = "par".into();
        copy.params.push("chunks", 4);
        let l = lineup(&copy, &asked, &[]);
        assert_eq!(names(&l.run), ["tokio"]);
        assert!(l
            .skipped
            .iter()
            .any(|(i, why)| i.name() == "go" && why == "go does not take the option chunks"));
        // Go and the BEAM's peer take `threads`; Clojure's agents do not.
        let mut threads = base("ring");
        threads.params.push("threads", 4);
        let asked = [
            Impl::named("go"),
            Impl::named("elixir"),
            Impl::named("clojure_agents"),
        ];
        let l = lineup(&threads, &asked, &[]);
        assert_eq!(names(&l.run), ["go", "elixir"]);
        assert_eq!(
            l.skipped,
            vec![(
                Impl::named("clojure_agents"),
                "clojure_agents does not take the option threads".into()
            )]
        );
        let gone = [(Impl::named("go"), "`go` is not on PATH".to_string())];
        let l = lineup(&base("ring"), &asked[..2], &gone);
        assert_eq!(
            l.skipped,
            vec![(Impl::named("go"), "`go` is not on PATH".into())]
        );
    }
}
