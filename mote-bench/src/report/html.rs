//! The self-contained HTML report: inline CSS, the charts as inline SVG, a results table per
//! workload, the sweeps, and the failures with their stderr.

use super::charts::Chart;
use super::console::{few_runs, few_runs_note, heading, row_cells};
use crate::catalog;
use crate::suite::model::{ScenarioResult, Status, SuiteResults};
use crate::suite::standing::standings;
use std::fmt::Write;

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.4rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { padding: 0.25rem 0.6rem; text-align: right; border-bottom: 1px solid #eee; }
th:first-child, td:first-child, td.name { text-align: left; }
td.scenario { text-align: left; font-weight: 600; background: #f6f6f6; }
td.note { text-align: left; color: #777; }
tr.failed td.note { color: #b00; }
table.meta td { text-align: left; }
figure { margin: 0.8rem 0; } figure svg { max-width: 100%; height: auto; }
pre { background: #f4f4f4; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; }
.summary { color: #555; margin-top: 0; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5rem 0.8rem; }
.caveat { color: #8a5a00; font-size: 0.85rem; }
";

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the report; `charts` are those of [`super::charts::all`].
pub fn render(results: &SuiteResults, charts: &[Chart]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>mote-bench results</title><style>{STYLE}</style></head><body>\n\
         <h1>mote-bench</h1><p class=\"summary\">The write-ups' experiments side by side on mote, \
         raw tokio, Go and the BEAM. {}</p>\n",
        escape(&results.timestamp)
    );
    if let Some(why) = &results.incomplete {
        let _ = writeln!(
            h,
            "<p class=\"warning\">Incomplete run: {}. The figures below are what was \
             measured before it ended.</p>",
            escape(why)
        );
    }
    meta(&mut h, results);
    super::standing::html(&mut h, &standings(results));
    if let Some(c) = &results.comparison {
        super::compare::html(&mut h, c);
    }
    for w in results.workloads() {
        let _ = writeln!(h, "<h2 id=\"w-{0}\">{0}</h2>", escape(w));
        if let Some(entry) = catalog::find(w) {
            let _ = writeln!(h, "<p class=\"summary\">{}</p>", escape(entry.spec.summary));
        }
        if let Some(c) = charts.iter().find(|c| c.name == format!("bars-{w}")) {
            figure(&mut h, c);
        }
        let rows: Vec<&ScenarioResult> = results
            .scenarios
            .iter()
            .filter(|s| s.scenario.workload == w)
            .collect();
        table(&mut h, &rows);
    }
    let sweeps: Vec<&Chart> = charts
        .iter()
        .filter(|c| c.name.starts_with("sweep-"))
        .collect();
    if !sweeps.is_empty() {
        h.push_str("<h2 id=\"sweeps\">Sweeps</h2>\n");
        for c in sweeps {
            figure(&mut h, c);
        }
    }
    failures(&mut h, results);
    h.push_str("</body></html>\n");
    h
}

fn meta(h: &mut String, r: &SuiteResults) {
    let m = &r.machine;
    let mut rows: Vec<(String, String)> = vec![
        (
            "machine".into(),
            format!("{} cores, {} MiB, {}", m.cores, m.memory_mb, m.os),
        ),
        ("cpu".into(), m.cpu.clone()),
        ("rust".into(), format!("{}, tokio {}", m.rustc, m.tokio)),
    ];
    if let Some(spread) = super::core_distance::summary(r) {
        rows.push(("cores' round trip before each run".into(), spread));
    }
    for (runtime, version) in m.peer_versions() {
        rows.push((runtime, version));
    }
    let c = &r.config;
    rows.push((
        "config".into(),
        format!(
            "{} sizes, {} warm-up + {} runs per scenario and implementation, \
             interleaved across a workload's scenarios; timeout {} s",
            c.size().name(),
            c.warmup,
            c.run_count().describe(),
            c.timeout_s
        ),
    ));
    rows.push(("command".into(), r.command_line.join(" ")));
    h.push_str("<table class=\"meta\">\n");
    for (k, v) in rows {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", k, escape(&v));
    }
    h.push_str("</table>\n");
    if !r.notes.is_empty() {
        h.push_str("<ul class=\"notes\">\n");
        for n in &r.notes {
            let _ = writeln!(h, "<li>{}</li>", escape(n));
        }
        h.push_str("</ul>\n");
    }
}

fn figure(h: &mut String, c: &Chart) {
    let _ = writeln!(h, "<figure id=\"{}\">{}</figure>", escape(&c.name), c.svg);
}

fn table(h: &mut String, rows: &[&ScenarioResult]) {
    let few = rows.iter().any(|s| s.impls.iter().any(few_runs));
    h.push_str(
        "<table class=\"results\"><thead><tr><th>impl</th><th>median</th><th>mean</th>\
         <th>deviation</th><th>min</th><th>p99</th><th>peak RSS</th><th>time vs tokio</th>\
         <th>RSS vs tokio</th></tr></thead><tbody>\n",
    );
    for s in rows {
        let _ = writeln!(
            h,
            "<tr><td class=\"scenario\" colspan=\"9\">{}</td></tr>",
            escape(&heading(s))
        );
        for r in &s.impls {
            let class = match r.status {
                Status::Ok => "ok",
                Status::Skipped { .. } => "skipped",
                Status::Failed { .. } => "failed",
            };
            let _ = write!(h, "<tr class=\"{class}\"><td class=\"name\">{}</td>", r.imp);
            match row_cells(r) {
                Ok(cells) => {
                    for c in cells {
                        let _ = write!(h, "<td>{}</td>", escape(&c));
                    }
                }
                Err(why) => {
                    let _ = write!(h, "<td class=\"note\" colspan=\"8\">{}</td>", escape(&why));
                }
            }
            h.push_str("</tr>\n");
        }
    }
    h.push_str("</tbody></table>\n");
    if few {
        let _ = writeln!(h, "<p class=\"caveat\">{}</p>", escape(&few_runs_note()));
    }
}

fn failures(h: &mut String, r: &SuiteResults) {
    let failed: Vec<_> = r
        .scenarios
        .iter()
        .flat_map(|s| s.impls.iter().map(move |i| (s, i)))
        .filter_map(|(s, i)| match &i.status {
            Status::Failed {
                reason,
                stderr_tail,
            } => Some((s, &i.imp, reason, stderr_tail)),
            _ => None,
        })
        .collect();
    if failed.is_empty() {
        return;
    }
    h.push_str("<h2 id=\"failures\">Failures</h2>\n");
    for (s, imp, reason, tail) in failed {
        let _ = writeln!(
            h,
            "<h3>{} [{}]: {}</h3><pre>{}</pre>",
            escape(&s.scenario.label()),
            imp,
            escape(reason),
            escape(tail)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
