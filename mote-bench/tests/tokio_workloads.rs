//! Every workload and variant of the catalog runs on tokio at small sizes and passes its own
//! answer check (a wrong answer is an error, so `Ok` means the check held).

use mote_bench::catalog::WORKLOADS;
use mote_bench::tokio_impl;

/// Small but non-trivial sizes, so the debug build stays quick.
fn small(workload: &str) -> Vec<(String, u64)> {
    let pairs: &[(&str, u64)] = match workload {
        "chain" => &[("m", 50), ("n", 200)],
        "million" | "spawn" => &[("k", 2_000)],
        "pingpong" | "call" => &[("r", 2_000)],
        "ring" => &[("t", 5_000), ("p", 13)],
        "skynet" => &[("l", 1_000)],
        "fanin" => &[("s", 10), ("n", 20_000)],
        "parsum" => &[("r", 10_050), ("reps", 3)],
        "copy" => &[("n", 3_000), ("r", 2)],
        "workers" => &[("w", 3), ("n", 3_000)],
        other => panic!("no small sizes for {other}"),
    };
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn every_workload_and_variant_checks_its_answer() {
    for w in WORKLOADS {
        let params = w.resolve_params(true, &small(w.name)).unwrap();
        for v in w.variant_names() {
            let out = tokio_impl::run(w.name, v, &params)
                .unwrap_or_else(|e| panic!("{} {v}: {e:#}", w.name));
            assert!(out.wall_ms > 0.0, "{} {v}", w.name);
        }
    }
}

#[test]
fn million_reports_spawn_ms_not_after_wall_ms() {
    let params = mote_bench::catalog::find("million")
        .unwrap()
        .resolve_params(true, &[("k".into(), 5_000)])
        .unwrap();
    let out = tokio_impl::run("million", "-", &params).unwrap();
    let (name, value) = &out.extras[0];
    assert_eq!(name, "spawn_ms");
    let spawn_ms: f64 = value.parse().unwrap();
    assert!(
        spawn_ms > 0.0 && spawn_ms <= out.wall_ms,
        "{spawn_ms} vs {}",
        out.wall_ms
    );
}

#[test]
fn unknown_variant_is_a_usage_error() {
    let params = mote_bench::catalog::find("chain")
        .unwrap()
        .base_params(true);
    let err = tokio_impl::run("chain", "float", &params).unwrap_err();
    assert!(err
        .downcast_ref::<mote_bench::catalog::UsageError>()
        .is_some());
}
