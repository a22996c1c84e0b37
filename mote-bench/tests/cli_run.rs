//! The `mote-bench` binary end to end: `run` prints a contract RESULT line and uses the
//! contract's exit statuses; a tiny suite writes its three reports.

use mote_bench::harness::result_line::ResultLine;
use mote_bench::suite::model::SuiteResults;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mote-bench"))
}

/// Runs `workload` on `imp` with `params` (each `k=v`).
fn run_with(workload: &str, imp: &str, params: &[&str]) -> std::process::Output {
    let mut cmd = bench();
    cmd.args(["run", "--workload", workload, "--impl", imp]);
    for p in params {
        cmd.args(["--param", p]);
    }
    cmd.output().unwrap()
}

#[test]
fn run_tokio_prints_a_result_line() {
    let out = run_with("ring", "tokio", &["t=1000", "p=7"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let line = ResultLine::parse(stdout.trim()).unwrap();
    assert_eq!(
        (
            line.bench.as_str(),
            line.imp.as_str(),
            line.variant.as_str()
        ),
        ("ring", "tokio", "-")
    );
    assert_eq!(line.params.to_kv_string(), "t=1000 p=7");
    assert!(line.wall_ms > 0.0);
    assert!(line.peak_rss_kb.unwrap() > 0);
}

#[test]
fn run_reports_extras_and_variants() {
    let out = run_with("million", "tokio", &["k=1000"]);
    let line = ResultLine::find_in(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(line.extras[0].0, "spawn_ms");
    let out = bench()
        .args([
            "run",
            "--workload",
            "workers",
            "--impl",
            "tokio",
            "--variant",
            "steal",
            "--quick",
        ])
        .output()
        .unwrap();
    let line = ResultLine::find_in(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(
        (line.variant.as_str(), line.params.to_kv_string().as_str()),
        ("steal", "w=2 n=5000")
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["run", "--workload", "nope", "--impl", "tokio"][..],
        &[
            "run",
            "--workload",
            "chain",
            "--impl",
            "tokio",
            "--variant",
            "float",
        ],
        &[
            "run",
            "--workload",
            "chain",
            "--impl",
            "tokio",
            "--param",
            "q=1",
        ],
        &[
            "run",
            "--workload",
            "chain",
            "--impl",
            "tokio",
            "--param",
            "m=x",
        ],
        &[
            "run",
            "--workload",
            "skynet",
            "--impl",
            "tokio",
            "--param",
            "l=12",
        ],
        &["run", "--workload", "chain", "--impl", "rust"],
    ] {
        let out = bench().args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// Every runtime that takes the options in `params` runs `workload` with them and prints
/// them back on its RESULT line, its own answer checked (a peer not installed here is
/// passed over, said on stderr).
fn options_reach_every_runtime(workload: &str, params: &[&str]) {
    for imp in ["mote", "tokio", "go", "elixir"] {
        let out = run_with(workload, imp, params);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if ["go", "elixir"].contains(&imp) && stderr.contains("not available") {
            eprintln!("{imp} peer not available here, not checked: {stderr}");
            continue;
        }
        assert!(out.status.success(), "{workload} on {imp}: {stderr}");
        let line = ResultLine::find_in(&String::from_utf8(out.stdout).unwrap()).unwrap();
        assert_eq!(line.params.to_kv_string(), params.join(" "), "{imp}");
    }
}

#[test]
fn options_reach_the_result_line_and_peers_refuse_those_they_lack() {
    let params = ["r=300", "pairs=3", "threads=1"];
    options_reach_every_runtime("pingpong", &params);
    // Clojure's core.async peer takes no option: a usage error that names it, before any run.
    let out = run_with("pingpong", "clojure_async", &params);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not take the option pairs"));
}

#[test]
fn every_runtime_splits_its_calls_over_the_callers_asked_for() {
    // 7 callers share 300 calls unevenly (43 each, the first six 44): each program checks
    // the sum of its callers' reports.
    options_reach_every_runtime("call", &["r=300", "callers=7", "threads=2"]);
}

/// Runs a `--quick` suite without warm-ups and with `args` into a fresh directory named
/// after `name`; returns the directory and stdout, having checked that it succeeded.
fn quick_suite(name: &str, args: &[&str]) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("mote-bench-{name}-{}", std::process::id()));
    let out = bench()
        .args(["--quick", "--warmup", "0"])
        .args(args)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, stdout)
}

#[test]
fn a_tiny_suite_writes_three_reports() {
    let (dir, stdout) = quick_suite(
        "suite",
        &[
            "--impls",
            "tokio",
            "--workloads",
            "pingpong,ring",
            "--runs",
            "2",
        ],
    );
    assert!(stdout.contains("## pingpong - r=20000"), "{stdout}");
    for f in [
        "results.json",
        "report.html",
        "bars-pingpong.svg",
        "bars-ring.svg",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let json = mote_bench::report::json::read(&dir.join("results.json")).unwrap();
    assert_eq!(json.scenarios.len(), 2);
    let tokio = &json.scenarios[0].impls[0];
    assert_eq!(tokio.imp, mote_bench::impls::Impl::tokio());
    assert_eq!(tokio.runs.len(), 2);
    assert_eq!(tokio.stats.unwrap().time.n, 2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_suite_and_the_report_command_say_where_mote_stands() {
    let (dir, stdout) = quick_suite(
        "standing",
        &[
            "--impls",
            "mote,tokio",
            "--workloads",
            "ring",
            "--runs",
            "3",
        ],
    );
    let standing = |out: &str| -> String {
        let at = out
            .find("## mote against the fastest peer")
            .unwrap_or_else(|| panic!("no standing in:\n{out}"));
        out[at..].to_string()
    };
    let printed = standing(&stdout);
    let row = printed
        .lines()
        .find(|l| l.starts_with("ring "))
        .unwrap_or_else(|| panic!("no ring row in:\n{printed}"));
    assert!(row.contains("tokio") && row.contains("3/3"), "{row}");
    assert!(printed.contains("of 1 scenarios"), "{printed}");
    // The same table from the saved run.
    let out = bench()
        .arg("report")
        .arg(dir.join("results.json"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let again = standing(&String::from_utf8_lossy(&out.stdout));
    assert!(again.contains(row), "{again}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("id=\"standing\""));
    // Each run noted how far apart the cores were just before it, and both say so.
    let distance = "The cores' round trip just before each run";
    assert!(printed.contains(distance), "{printed}");
    assert!(again.contains(distance), "{again}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    let runs: Vec<&serde_json::Value> = json["scenarios"][0]["impls"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["runs"].as_array().unwrap())
        .collect();
    assert!(runs.len() >= 6, "{json}");
    assert!(
        runs.iter()
            .all(|r| r["core_round_trip_ns"].as_u64() > Some(0)),
        "{json}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn instructions_are_counted_per_unit_under_callgrind() {
    // A peer's own process is refused before anything runs, valgrind or not.
    let refused = bench()
        .args([
            "instructions",
            "--workload",
            "pingpong",
            "--impls",
            "mote,go",
        ])
        .args(["--per", "r"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("go runs in its own"));
    let one = bench()
        .args([
            "instructions",
            "--workload",
            "pingpong",
            "--per",
            "r",
            "--factor",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(one.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&one.stderr).contains("at least twice"));
    if !mote_bench::harness::callgrind::available() {
        eprintln!("SKIP: valgrind is not installed; the counts were not taken");
        return;
    }
    let out = bench()
        .args(["instructions", "--workload", "pingpong"])
        .args(["--impls", "mote,tokio:current_thread", "--per", "r"])
        .args(["--param", "r=2000", "--param", "threads=1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("runs at r=2000 and r=4000"), "{stdout}");
    for imp in ["mote ", "tokio:current_thread "] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(imp))
            .unwrap_or_else(|| panic!("no {imp}row in:\n{stdout}"));
        let per: f64 = row.split_whitespace().nth(1).unwrap().parse().unwrap();
        // A round trip is hundreds to a few thousand instructions, never nothing.
        assert!((100.0..20_000.0).contains(&per), "{row}");
    }
}

#[test]
fn short_runs_are_repeated_until_they_add_up_to_the_min_time() {
    let (dir, _) = quick_suite(
        "min-time",
        &[
            "--impls",
            "mote,tokio",
            "--workloads",
            "ring",
            "--runs",
            "1",
            "--min-time",
            "0.05",
            "--max-runs",
            "3",
        ],
    );
    let json = mote_bench::report::json::read(&dir.join("results.json")).unwrap();
    let count = json.config.run_count();
    assert_eq!((count.runs, count.max_runs), (1, 3));
    let mut repeated = 0;
    for s in &json.scenarios {
        for i in &s.impls {
            let planned = count.measured(&s.scenario, &i.imp) as usize;
            assert_eq!(i.runs.len(), planned, "{} {}", s.scenario.label(), i.imp);
            repeated += usize::from(planned > 1);
        }
    }
    // A quick ring run is expected to take well under 50 ms.
    assert!(repeated > 0, "no implementation made more than --runs");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ctrl_c_stops_the_suite_and_keeps_what_was_measured() {
    let dir = std::env::temp_dir().join(format!("mote-bench-sigint-{}", std::process::id()));
    let json = dir.join("results.json");
    // Far more runs than the test waits for: the suite is still running when it is stopped.
    let mut child = bench()
        .args([
            "--quick",
            "--impls",
            "tokio",
            "--workloads",
            "ring",
            "--no-sweeps",
            "--runs",
            "100000",
            "--warmup",
            "0",
            "--out",
        ])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first run to be on disk (bounded, so a broken harness fails, not hangs).
    let deadline = Instant::now() + Duration::from_secs(300);
    let measured = |r: &SuiteResults| {
        r.scenarios
            .iter()
            .flat_map(|s| &s.impls)
            .map(|i| i.runs.len())
            .sum::<usize>()
    };
    loop {
        if let Ok(r) = mote_bench::report::json::read(&json) {
            if measured(&r) > 0 {
                break;
            }
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the suite ended by itself"
        );
        assert!(Instant::now() < deadline, "no run reached results.json");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill has no memory-safety preconditions; the pid is our live child's.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let r = mote_bench::report::json::read(&json).unwrap();
    let why = r.incomplete.clone().expect("marked incomplete");
    assert!(why.starts_with("stopped by the user after"), "{why}");
    assert!(measured(&r) >= 1);
    assert!(r.scenarios[0].impls[0].stats.is_some());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("Incomplete run"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("INCOMPLETE: stopped by the user"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// `remote` measures every pair of nodes (mote and Erlang) and prints one table row per
/// case. Skipped without `erl` unless `MOTE_REQUIRE_ERL=1`; built with the `remote`
/// feature (CI: `cargo test -p mote-bench --features remote --test cli_run`).
#[cfg(feature = "remote")]
#[test]
fn remote_prints_a_row_per_case() {
    let has_erl = ["erl", "erlc"].iter().all(|tool| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(tool).is_file()))
    });
    if !has_erl {
        assert_ne!(
            std::env::var("MOTE_REQUIRE_ERL").as_deref(),
            Ok("1"),
            "erl required"
        );
        eprintln!("SKIP remote_prints_a_row_per_case: erl not on PATH");
        return;
    }
    let out = bench()
        .args([
            "remote",
            "--rounds",
            "1",
            "--trips",
            "200",
            "--messages",
            "2000",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| pingpong") || l.starts_with("| throughput"))
        .collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    for row in rows {
        // case, n, four timings, a ratio
        assert_eq!(row.matches('|').count(), 8, "{row}");
        assert!(row.contains("µs") || row.contains(" ns"), "{row}");
    }
}

/// Without the `remote` feature, `remote` says how to get it, with a usage error's status.
#[cfg(not(feature = "remote"))]
#[test]
fn remote_without_its_feature_says_how_to_enable_it() {
    let out = bench().args(["remote"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--features remote"));
}

/// A reader that closed its end early (`mote-bench list | head -1`) ends the listing quietly:
/// exit status 0 and no panic. The pipe's read end is closed before the program starts, so
/// its first write fails every time (the old `println!`s panicked on it, status 101).
#[test]
fn list_into_a_closed_pipe_ends_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = bench()
        .arg("list")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "status {:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `--scheduler-stats` prints mote's scheduler counters after the RESULT line, and is a usage
/// error for the other implementations.
#[test]
fn scheduler_stats_are_motes_alone() {
    let args = |imp: &str| {
        let mut a = vec!["run", "--workload", "ring", "--impl", imp, "--quick"];
        a.push("--scheduler-stats");
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let out = bench().args(args("mote")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let tasks: u64 = stderr
        .lines()
        .filter(|l| l.starts_with("SCHED worker="))
        .map(|l| {
            let t = l.split(' ').find_map(|w| w.strip_prefix("tasks=")).unwrap();
            t.parse::<u64>().unwrap()
        })
        .sum();
    assert!(stderr.starts_with("SCHED threads="), "{stderr}");
    assert!(
        tasks > 0,
        "the ring's processes ran on the threads: {stderr}"
    );
    let out = bench().args(args("tokio")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn core_distance_samples_the_round_trip_between_two_threads() {
    let out = bench()
        .args(["core-distance", "--samples", "3", "--trips", "2000"])
        .args(["--every-ms", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let trips: Vec<u64> = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("round trip ")?
                .strip_suffix(" ns")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(trips.len(), 3, "{text}");
    assert!(trips.iter().all(|&ns| ns > 0), "{text}");
    assert!(text.contains("3 samples: least"), "{text}");
    let none = bench()
        .args(["core-distance", "--samples", "0"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
}
