//! Report writing on a synthetic suite: the JSON round-trips through serde, the HTML holds an
//! inline <svg> per chart and a row per implementation, the .svg files exist.

use mote_bench::harness::bootstrap::Verdict;
use mote_bench::harness::params::Params;
use mote_bench::impls::Impl;
use mote_bench::report::{self, charts, console};
use mote_bench::suite::fill_stats;
use mote_bench::suite::model::*;
use mote_bench::workloads::spec::Size;
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir =
        std::env::temp_dir().join(format!("mote-bench-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn runs(times: &[f64], rss_kb: u64) -> Vec<RunRecord> {
    let mut v = vec![RunRecord {
        warmup: true,
        wall_ms: 999.0,
        peak_rss_kb: rss_kb,
        extras: vec![],
        process_ms: 1000.0,
        core_round_trip_ns: Some(190),
    }];
    v.extend(times.iter().map(|&t| RunRecord {
        warmup: false,
        wall_ms: t,
        peak_rss_kb: rss_kb,
        extras: vec![("spawn_ms".into(), "1.5".into())],
        process_ms: t + 5.0,
        core_round_trip_ns: None,
    }));
    v
}

fn ok(imp: Impl, times: &[f64], rss_kb: u64) -> ImplResult {
    ImplResult {
        runs: runs(times, rss_kb),
        ..ImplResult::new(imp, Status::Ok)
    }
}

fn skipped(imp: Impl) -> ImplResult {
    ImplResult::new(
        imp,
        Status::Skipped {
            reason: "the mote implementation of chain is not wired in yet".into(),
        },
    )
}

fn scenario(
    workload: &str,
    variant: &str,
    params: &[(&str, u64)],
    base: bool,
    sweeps: &[&str],
) -> Scenario {
    Scenario {
        workload: workload.into(),
        variant: variant.into(),
        params: Params::from_pairs(params.iter().copied()),
        base,
        sweeps: sweeps.iter().map(|s| s.to_string()).collect(),
    }
}

fn synthetic() -> SuiteResults {
    let mut scenarios = vec![
        ScenarioResult {
            scenario: scenario(
                "chain",
                "int",
                &[("m", 1000), ("n", 1000)],
                true,
                &["chain_m"],
            ),
            impls: vec![
                skipped(Impl::mote()),
                ok(Impl::tokio(), &[10.0, 12.0, 11.0], 10_240),
                ok(Impl::named("go"), &[20.0, 22.0, 21.0], 20_480),
            ],
        },
        ScenarioResult {
            scenario: scenario(
                "chain",
                "int",
                &[("m", 3000), ("n", 1000)],
                false,
                &["chain_m"],
            ),
            impls: vec![ok(Impl::tokio(), &[30.0, 33.0], 30_720)],
        },
        ScenarioResult {
            scenario: scenario("chain", "list20", &[("m", 1000), ("n", 1000)], true, &[]),
            impls: vec![
                ok(Impl::tokio(), &[14.0, 15.0], 10_240),
                ImplResult::new(
                    Impl::named("elixir"),
                    Status::Failed {
                        reason: "timed out after 5 s".into(),
                        stderr_tail: "<beam> crashed & burned".into(),
                    },
                ),
            ],
        },
    ];
    fill_stats(&mut scenarios);
    SuiteResults {
        schema: SCHEMA,
        timestamp: "2026-11-22T10:00:00Z".into(),
        command_line: vec!["mote-bench".into(), "--quick".into()],
        machine: Machine {
            cores: 2,
            memory_mb: 24_000,
            os: "Linux".into(),
            cpu: "test cpu".into(),
            rustc: "rustc 1.95.0".into(),
            tokio: "1.54.1".into(),
            go: Some("go version go1.26".into()),
            elixir: None,
            versions: Default::default(),
        },
        config: Config {
            quick: true,
            size: Some(Size::Quick),
            runs: 3,
            min_time_s: 0.0,
            max_runs: 3,
            warmup: 1,
            timeout_s: 60,
            impls: vec![
                Impl::mote(),
                Impl::tokio(),
                Impl::named("go"),
                Impl::named("elixir"),
            ],
            workloads: vec!["chain".into()],
        },
        notes: vec!["elixir skipped: <none>".into()],
        sweeps: vec![Sweep {
            name: "chain_m".into(),
            title: "chain (int): time vs processes M".into(),
            workload: "chain".into(),
            variants: vec!["int".into()],
            fixed: Default::default(),
            param: "m".into(),
            values: vec![1000, 3000],
            metric: Metric::TimeMs,
            log_x: true,
        }],
        scenarios,
        incomplete: None,
        comparison: None,
    }
}

#[test]
fn statistics_and_ratios_are_filled_from_measured_runs_only() {
    let r = synthetic();
    let tokio = &r.scenarios[0].impls[1];
    let st = tokio.stats.unwrap();
    // The 999 ms warm-up is excluded.
    assert_eq!((st.time.n, st.time.median, st.time.max), (3, 11.0, 12.0));
    let go = r.scenarios[0].impls[2].vs_tokio.unwrap();
    assert!((go.time - 21.0 / 11.0).abs() < 1e-12);
    assert!((go.rss - 2.0).abs() < 1e-12);
    assert!(r.scenarios[0].impls[0].stats.is_none());
    assert!(r.scenarios[2].impls[1].stats.is_none());
}

#[test]
fn json_round_trips_through_serde() {
    let r = synthetic();
    let dir = temp_dir("json");
    let written = report::write_all(&r, &dir).unwrap();
    let back = report::json::read(&written.json).unwrap();
    assert_eq!(back, r);
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written.json).unwrap()).unwrap();
    assert_eq!(raw["scenarios"][0]["impls"][0]["status"], "skipped");
    assert_eq!(raw["scenarios"][0]["impls"][1]["impl"], "tokio");
    assert_eq!(
        raw["scenarios"][0]["impls"][1]["runs"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn html_has_an_svg_per_chart_and_the_table_rows() {
    let r = synthetic();
    let dir = temp_dir("html");
    let written = report::write_all(&r, &dir).unwrap();
    let html = std::fs::read_to_string(&written.html).unwrap();
    let chart_list = charts::all(&r).unwrap();
    // One bar chart (chain) and one sweep chart.
    let names: Vec<_> = chart_list.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["bars-chain", "sweep-chain_m"]);
    assert_eq!(html.matches("<svg").count(), chart_list.len());
    assert_eq!(written.svgs.len(), 2);
    for svg in &written.svgs {
        let text = std::fs::read_to_string(svg).unwrap();
        assert!(text.starts_with("<svg"), "{}", svg.display());
    }
    // Rows: the tokio median of chain int, the skip reason, the failure, escaped stderr.
    assert!(
        html.contains("<td>11.00 ms</td>"),
        "tokio median row missing"
    );
    assert!(html.contains("<td>1.91x</td>"), "go time ratio missing");
    assert!(html.contains("skipped (the mote implementation of chain is not wired in yet)"));
    assert!(html.contains("FAILED (timed out after 5 s)"));
    assert!(html.contains("&lt;beam&gt; crashed &amp; burned"));
    assert!(html.contains("chain int m=3000 n=1000   [sweep chain_m]"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn console_table_has_a_row_per_implementation() {
    let table = console::render(&synthetic());
    assert!(table.contains("## chain int m=1000 n=1000"));
    let tokio_row = table
        .lines()
        .find(|l| l.starts_with("tokio") && l.contains("11.00 ms"))
        .expect("tokio row");
    assert!(tokio_row.contains("±9.09%"), "{tokio_row}");
    assert!(tokio_row.contains("10.0 MiB"), "{tokio_row}");
    assert!(tokio_row.contains("1.00x"), "{tokio_row}");
    assert!(table.contains("mote          skipped (the mote implementation"));
}

#[test]
fn comparison_flags_the_slower_implementations_only() {
    let old = synthetic();
    let mut new = synthetic();
    // go got 1.5x slower on chain int; tokio stayed where it was.
    for run in &mut new.scenarios[0].impls[2].runs {
        run.wall_ms *= 1.5;
    }
    fill_stats(&mut new.scenarios);
    let c = mote_bench::suite::compare::compare(&new, &old, "old/results.json");
    let row = |imp: &str, scenario: &str| {
        c.rows
            .iter()
            .find(|r| r.imp.name() == imp && r.scenario == scenario)
            .unwrap()
    };
    let go = row("go", "chain int m=1000 n=1000");
    assert!((go.time.ratio - 1.5).abs() < 1e-12);
    assert_eq!(go.verdict, Verdict::Slower);
    // tokio did not move, so relative to it go is as much slower.
    let rel = go.vs_tokio.unwrap();
    assert!((rel.ratio - 1.5).abs() < 1e-12);
    assert_eq!(go.vs_tokio_verdict(), Some(Verdict::Slower));
    let tokio = row("tokio", "chain int m=1000 n=1000");
    assert_eq!((tokio.time.ratio, tokio.verdict), (1.0, Verdict::Same));
    assert!(tokio.vs_tokio.is_none());
    // Skipped and failed implementations have nothing to compare.
    assert_eq!(c.rows.len(), 4);
    assert_eq!(c.slower().count(), 1);
    let text = mote_bench::report::compare::render(&c);
    let go_line = text.lines().find(|l| l.contains(" go ")).unwrap();
    assert_eq!(go_line.matches("1.50x").count(), 2, "{go_line}");
    assert_eq!(go_line.matches("SLOWER").count(), 2, "{go_line}");
    assert!(
        text.contains("1 of 4 slower in time, 1 slower relative to tokio"),
        "{text}"
    );
    // The comparison travels in results.json and shows in the HTML.
    new.comparison = Some(c);
    let dir = temp_dir("compare");
    let written = report::write_all(&new, &dir).unwrap();
    assert_eq!(report::json::read(&written.json).unwrap(), new);
    let html = std::fs::read_to_string(&written.html).unwrap();
    assert!(html.contains("Compared with a saved run") && html.contains("SLOWER"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn figures_from_fewer_than_three_runs_are_marked() {
    let r = synthetic();
    let table = console::render(&r);
    // chain list20's tokio has 2 measured runs, chain int's 3.
    assert!(table.contains("14.50 ms †"), "{table}");
    assert!(table.contains("11.00 ms "), "{table}");
    assert!(!table.contains("11.00 ms †"));
    assert!(table.contains("† fewer than 3 measured runs"));
    let html = report::html::render(&r, &charts::all(&r).unwrap());
    assert!(html.contains("<td>14.50 ms †</td>"));
    // The chart draws the 2-run box hollow and says how many runs it has.
    let chain = charts::workload_chart(&r, "chain").unwrap().unwrap();
    assert!(chain.svg.contains("n=2"), "no run count on the thin box");
}

#[test]
fn a_dwarfing_runtime_puts_the_chart_on_a_log_axis() {
    let mut r = synthetic();
    let log_label = "wall time (log scale)";
    assert!(!charts::workload_chart(&r, "chain")
        .unwrap()
        .unwrap()
        .svg
        .contains(log_label));
    for run in &mut r.scenarios[0].impls[2].runs {
        run.wall_ms *= 100.0;
    }
    fill_stats(&mut r.scenarios);
    assert!(charts::workload_chart(&r, "chain")
        .unwrap()
        .unwrap()
        .svg
        .contains(log_label));
}

#[test]
fn the_report_says_where_mote_stands_against_the_fastest_peer() {
    let mut r = synthetic();
    // No scenario where mote ran: no standing, and no section for it.
    assert!(mote_bench::suite::standing::standings(&r).is_empty());
    let html = report::html::render(&r, &charts::all(&r).unwrap());
    assert!(!html.contains("id=\"standing\""));

    // mote measured beside tokio and go in the first scenario: go is slower than tokio, so
    // tokio is the one compared; mote's runs lie wholly below tokio's.
    r.scenarios[0].impls[0] = ok(Impl::mote(), &[5.0, 5.5, 6.0], 5_120);
    let mut scenarios = std::mem::take(&mut r.scenarios);
    fill_stats(&mut scenarios);
    r.scenarios = scenarios;
    let rows = mote_bench::suite::standing::standings(&r);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].peer, Impl::tokio());
    assert_eq!(rows[0].verdict, Some(Verdict::Faster));
    assert!((rows[0].time.ratio - 5.5 / 11.0).abs() < 1e-12);
    assert_eq!(rows[0].rss_vs_tokio, Some(0.5));
    let html = report::html::render(&r, &charts::all(&r).unwrap());
    assert!(html.contains("id=\"standing\""), "no standing section");
    assert!(html.contains("mote ahead on 1 of 1 scenarios, no difference shown on 0"));
    let table = report::standing::render(&rows);
    assert!(
        table.contains("chain int m=1000 n=1000") && table.contains("ahead"),
        "{table}"
    );
}

#[test]
fn the_cores_round_trip_before_each_run_is_summed_up() {
    let mut r = synthetic();
    // Every run's sample: 30, 80, 190, 480 and 850 ns, then the rest at 190.
    let mut samples = [30, 80, 190, 480, 850].into_iter();
    for run in r
        .scenarios
        .iter_mut()
        .flat_map(|s| &mut s.impls)
        .flat_map(|i| &mut i.runs)
    {
        run.core_round_trip_ns = Some(samples.next().unwrap_or(190));
    }
    let runs = r
        .scenarios
        .iter()
        .flat_map(|s| &s.impls)
        .map(|i| i.runs.len())
        .sum::<usize>();
    assert!(runs >= 5, "{runs} runs");
    let summary = report::core_distance::summary(&r).unwrap();
    assert!(
        summary.starts_with("least 30 ns, quartiles 190 / 190 / "),
        "{summary}"
    );
    assert!(
        summary.ends_with(&format!("most 850 ns ({runs} runs)")),
        "{summary}"
    );
    assert!(report::core_distance::render(&r).contains(&summary));
    let dir = temp_dir("core_distance");
    let written = report::write_all(&r, &dir).unwrap();
    let html = std::fs::read_to_string(&written.html).unwrap();
    assert!(
        html.contains("cores&#39; round trip before each run")
            || html.contains("cores' round trip before each run")
    );
    assert!(html.contains(&summary));
    // A file from before the samples were taken reads back without them.
    let text = std::fs::read_to_string(&written.json)
        .unwrap()
        .replace("\"core_round_trip_ns\"", "\"old_unknown_field_ns\"");
    std::fs::write(&written.json, text).unwrap();
    let old = report::json::read(&written.json).unwrap();
    assert_eq!(report::core_distance::summary(&old), None);
    assert_eq!(report::core_distance::render(&old), "");
    std::fs::remove_dir_all(dir).unwrap();
}
