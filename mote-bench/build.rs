//! Records, for the reports' machine section, the rustc that builds the harness and the tokio
//! version it links (read from the workspace's Cargo.lock).

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "rustc (unknown version)".into());
    println!("cargo:rustc-env=MOTE_BENCH_RUSTC={version}");

    let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=build.rs");
    let tokio = std::fs::read_to_string(&lock)
        .ok()
        .and_then(|text| {
            // Cargo.lock lists `name = "tokio"` followed by its `version = "..."` line.
            let mut lines = text.lines();
            lines.find(|l| l.trim() == "name = \"tokio\"")?;
            let v = lines.next()?.trim().strip_prefix("version = \"")?;
            Some(v.trim_end_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=MOTE_BENCH_TOKIO={tokio}");
}
