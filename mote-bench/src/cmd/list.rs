//! `mote-bench list`: the catalog and which implementations can run here; `--markdown` prints
//! the workload table of `docs/workloads.md` (a test keeps the two the same).

use crate::catalog::WORKLOADS;
use crate::cli::ListArgs;
use crate::peers::{self, version_of, Peers, PEERS};
use crate::workloads::spec::{Spec, THREADS};
use std::fmt::Write;
use std::process::ExitCode;

/// Runs the subcommand.
pub fn main(args: ListArgs) -> ExitCode {
    if args.markdown {
        super::print(&markdown_table());
    } else {
        super::print(&listing().expect("writing into a String cannot fail"));
    }
    ExitCode::SUCCESS
}

/// The catalog as `list` prints it, and which implementations can run here.
fn listing() -> Result<String, std::fmt::Error> {
    let mut out = String::new();
    writeln!(out, "Workloads (param=quick/standard/full):")?;
    writeln!(
        out,
        "  every workload takes the option {}: the runtime's worker threads (one per core when \
         absent)",
        with_takers(&[THREADS], false)
    )?;
    for w in WORKLOADS.iter().map(|e| e.spec) {
        let params: Vec<String> = w
            .params
            .iter()
            .map(|p| format!("{}={}/{}/{}", p.name, p.quick, p.standard, p.full))
            .collect();
        writeln!(out, "  {:<9} variants: {}", w.name, variants(w).join(", "))?;
        writeln!(out, "  {:<9} params:   {}", "", params.join(" "))?;
        if !w.options.is_empty() {
            writeln!(
                out,
                "  {:<9} options:  {}",
                "",
                with_takers(w.options, false)
            )?;
        }
        for s in w.styles {
            writeln!(
                out,
                "  {:<9} style:    {}:{}: {}",
                "", s.imp, s.name, s.summary
            )?;
        }
        if !w.extras.is_empty() {
            writeln!(out, "  {:<9} extras:   {}", "", w.extras.join(", "))?;
        }
        writeln!(out, "  {:<9} {}", "", w.summary)?;
    }
    writeln!(out, "\nImplementations:")?;
    let width = PEERS
        .iter()
        .flat_map(|p| p.impls.iter().map(|i| i.name.len()))
        .max()
        .unwrap_or(0)
        .max(14);
    writeln!(
        out,
        "  {:<width$} in-process (mote-bench/src/workloads/*/mote.rs)",
        "mote"
    )?;
    writeln!(
        out,
        "  {:<width$} in-process (mote-bench/src/workloads/*/tokio.rs)",
        "tokio"
    )?;
    let peers = Peers::discover(peers::locate_dir(), false);
    for p in PEERS {
        let program = peers.program(p.runtime);
        for i in p.impls {
            match &program {
                Ok(prog) => writeln!(out, "  {:<width$} {prog}", i.name)?,
                Err(why) => writeln!(out, "  {:<width$} unavailable: {why}", i.name)?,
            }
            writeln!(out, "  {:<width$} {}", "", i.summary)?;
        }
        if let Some(v) = version_of(p.version) {
            writeln!(out, "  {:<width$} toolchain: {v}", "")?;
        }
        if !p.in_default_run {
            writeln!(
                out,
                "  {:<width$} (in --full runs, or when named with --impls)",
                ""
            )?;
        }
    }
    Ok(out)
}

/// `batch (mote, tokio); pairs (mote, tokio, go)`: options and who takes them (in Markdown,
/// the names as code).
fn with_takers(options: &[&str], markdown: bool) -> String {
    let tick = if markdown { "`" } else { "" };
    options
        .iter()
        .map(|o| format!("{tick}{o}{tick} ({})", peers::takers(o).join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

fn variants(w: &Spec) -> Vec<&'static str> {
    if w.variants.is_empty() {
        vec!["-"]
    } else {
        w.variants.to_vec()
    }
}

/// The workload table in Markdown: names, variants, the parameters at each size, options and
/// styles, and what is measured.
pub fn markdown_table() -> String {
    let code = |words: &[&str]| {
        words
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::from(
        "| workload | variants | parameters: quick / standard / full | options (who takes them) \
         | styles | what is measured |\n|---|---|---|---|---|---|\n",
    );
    for w in WORKLOADS.iter().map(|e| e.spec) {
        let params: Vec<String> = w
            .params
            .iter()
            .map(|p| format!("`{}` = {} / {} / {}", p.name, p.quick, p.standard, p.full))
            .collect();
        let styles: Vec<String> = w
            .styles
            .iter()
            .map(|s| format!("{}:{}", s.imp, s.name))
            .collect();
        let styles: Vec<&str> = styles.iter().map(String::as_str).collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            w.name,
            code(&variants(w)),
            params.join("; "),
            with_takers(w.options, true),
            code(&styles),
            w.summary
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_docs_hold_the_catalog_table() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/workloads.md");
        let text = std::fs::read_to_string(docs).unwrap();
        assert!(
            text.contains(&markdown_table()),
            "docs/workloads.md is out of date: paste the output of \
             `cargo run -p mote-bench -- list --markdown` over its workload table"
        );
    }
}
