//! Every workload of the catalog is whole: it has a spec whose sizes and test sizes resolve,
//! a mote and a tokio program (and every declared tokio style) that run every variant and
//! pass the answer check, and a check that fails on a wrong answer. A workload added by
//! half fails here (or does not compile).

use mote_bench::catalog::WORKLOADS;
use mote_bench::workloads::spec::{Size, UsageError};
use mote_bench::workloads::{InProcess, Tokio};

/// The implementations a workload runs on in this process: mote, tokio, and tokio's styles.
fn runners(spec: &mote_bench::workloads::Spec) -> Vec<InProcess> {
    let mut on = vec![InProcess::Mote, InProcess::Tokio(Tokio::default())];
    on.extend(spec.styles_of("tokio").map(|s| {
        InProcess::Tokio(Tokio {
            style: Some(s.name),
            ..Tokio::default()
        })
    }));
    on
}

#[test]
fn every_workload_has_distinct_names_and_sizes_that_resolve() {
    for (i, w) in WORKLOADS.iter().enumerate() {
        let spec = w.spec;
        assert!(WORKLOADS[i + 1..].iter().all(|o| o.spec.name != spec.name));
        assert!(!spec.params.is_empty(), "{}", spec.name);
        for size in Size::ALL {
            spec.resolve_params(size, &[]).unwrap();
        }
        for p in spec.params {
            assert!(
                p.quick <= p.standard && p.standard <= p.full,
                "{} {}",
                spec.name,
                p.name
            );
        }
        spec.test_params().unwrap();
        assert!(
            spec.expected_full_ms("mote", spec.variant_names()[0])
                .is_some()
                && spec
                    .expected_full_ms("tokio", spec.variant_names()[0])
                    .is_some(),
            "{}: no expected time for the duration estimate",
            spec.name
        );
        for style in spec.styles {
            assert_eq!(style.imp, "tokio", "{}: only tokio has styles", spec.name);
        }
    }
}

#[test]
fn every_workload_runs_every_variant_on_every_in_process_implementation() {
    for w in WORKLOADS {
        let params = w.spec.test_params().unwrap();
        for v in w.spec.variant_names() {
            for on in runners(w.spec) {
                let out = w
                    .run(on, v, &params)
                    .unwrap_or_else(|e| panic!("{} {v} {on:?}: {e:#}", w.spec.name));
                assert!(out.wall_ms > 0.0, "{} {v} {on:?}", w.spec.name);
            }
        }
    }
}

#[test]
fn every_check_rejects_an_answer_for_other_parameters() {
    // Each workload's answer depends on its parameters: the answer computed at the test sizes
    // must fail the check made for the doubled sizes.
    for w in WORKLOADS {
        let params = w.spec.test_params().unwrap();
        let mut doubled = params.clone();
        for (k, v) in params.iter() {
            doubled.set(k, v * 2);
        }
        for v in w.spec.variant_names() {
            for on in runners(w.spec) {
                let err = w
                    .run_checked_against(on, v, &params, &doubled)
                    .expect_err(&format!(
                        "{} {v} {on:?}: a wrong answer passed",
                        w.spec.name
                    ));
                assert!(
                    err.downcast_ref::<mote_bench::harness::outcome::CheckFailed>()
                        .is_some(),
                    "{} {v}: {err:#}",
                    w.spec.name
                );
            }
        }
    }
}

#[test]
fn million_reports_spawn_ms_not_after_wall_ms() {
    let entry = mote_bench::catalog::find("million").unwrap();
    let params = entry
        .spec
        .resolve_params(Size::Quick, &[("k".into(), 5_000)])
        .unwrap();
    for on in runners(entry.spec) {
        let out = entry.run(on, "-", &params).unwrap();
        let (name, value) = &out.extras[0];
        assert_eq!(name, "spawn_ms");
        let spawn_ms: f64 = value.parse().unwrap();
        assert!(
            spawn_ms > 0.0 && spawn_ms <= out.wall_ms,
            "{spawn_ms} vs {}",
            out.wall_ms
        );
    }
}

#[test]
fn unknown_variants_and_styles_are_usage_errors() {
    let entry = mote_bench::catalog::find("chain").unwrap();
    let params = entry.spec.params_at(Size::Quick);
    let err = entry
        .run(InProcess::Tokio(Tokio::default()), "float", &params)
        .unwrap_err();
    assert!(err.downcast_ref::<UsageError>().is_some());
    let styled = InProcess::Tokio(Tokio {
        style: Some("sideways"),
        ..Tokio::default()
    });
    let err = entry.run(styled, "int", &params).unwrap_err();
    assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
}
