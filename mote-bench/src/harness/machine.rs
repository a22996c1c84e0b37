//! What the reports say about the machine: cores, memory, OS, CPU and toolchain versions, plus
//! the UTC timestamp (formatted here to avoid a date crate for one string).

use crate::peers::{version_of, Peer};
use crate::suite::model::Machine;
use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

/// Number of cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Probes the machine. Toolchain versions are asked only of the peer runtimes in the run.
pub fn probe(runtimes: &[&Peer]) -> Machine {
    let versions: BTreeMap<String, String> = runtimes
        .iter()
        .filter_map(|p| Some((p.runtime.to_string(), version_of(p.version)?)))
        .collect();
    Machine {
        cores: cores(),
        memory_mb: meminfo_total_kb().unwrap_or(0) / 1024,
        os: os_description(),
        cpu: cpu_model().unwrap_or_else(|| "unknown".into()),
        rustc: env!("MOTE_BENCH_RUSTC").to_string(),
        tokio: env!("MOTE_BENCH_TOKIO").to_string(),
        go: versions.get("go").cloned(),
        elixir: versions.get("elixir").cloned(),
        versions,
    }
}

fn meminfo_total_kb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn os_description() -> String {
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    match std::fs::read_to_string("/proc/sys/kernel/osrelease") {
        Ok(kernel) => format!("{pretty}, kernel {}", kernel.trim()),
        Err(_) => pretty,
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn timestamp_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Formats Unix seconds as RFC 3339 UTC (civil-from-days, Howard Hinnant's algorithm).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn probe_reports_this_machine() {
        let m = probe(&[]);
        assert!(m.cores >= 1);
        assert!(m.memory_mb > 0);
        assert!(m.rustc.starts_with("rustc"), "{}", m.rustc);
        assert!(m.go.is_none() && m.versions.is_empty());
    }
}
