//! The comparison with a saved run as a console table and an HTML section.

use super::format::ratio;
use super::html::escape;
use crate::harness::bootstrap::{RatioCi, Verdict, RESAMPLES};
use crate::suite::compare::Comparison;
use std::fmt::Write;

/// How a verdict reads.
fn word(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::Slower) => "SLOWER",
        Some(Verdict::Faster) => "faster",
        _ => "",
    }
}

/// A ratio with its interval, or `-`.
pub(super) fn with_interval(r: Option<RatioCi>) -> (String, String) {
    match r {
        Some(r) => (ratio(r.ratio), format!("{}..{}", ratio(r.lo), ratio(r.hi))),
        None => ("-".into(), String::new()),
    }
}

/// What the numbers are, in one paragraph.
fn method(c: &Comparison) -> String {
    format!(
        "time = this run's median / the saved run's ({}, {}), with a 95% percentile-bootstrap \
         interval of that ratio of medians ({RESAMPLES} resamples of each run's measured times). \
         vs tokio = the same for the implementation's median over tokio's in each run, which \
         cancels a machine that was busier during one of the two runs. SLOWER or faster: the \
         whole interval lies above or below 1. Few runs give wide intervals; on a shared \
         machine trust vs tokio over time.",
        c.against, c.against_timestamp
    )
}

/// The comparison as a console table.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\n## compared with {}\n{}", c.against, method(c));
    let _ = writeln!(
        out,
        "{:<40} {:<20} {:>6} {:>13} {:<7} {:>8} {:>13} {:<7} {:>5}",
        "scenario", "impl", "time", "95%", "", "vs tokio", "95%", "", "runs"
    );
    for r in &c.rows {
        let (t, ti) = with_interval(Some(r.time));
        let (v, vi) = with_interval(r.vs_tokio);
        let line = format!(
            "{:<40} {:<20} {:>6} {:>13} {:<7} {:>8} {:>13} {:<7} {:>5}",
            r.scenario,
            r.imp.name(),
            t,
            ti,
            word(Some(r.verdict)),
            v,
            vi,
            word(r.vs_tokio_verdict()),
            format!("{}/{}", r.new_runs, r.old_runs),
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(
        out,
        "{} of {} slower in time, {} slower relative to tokio{}",
        c.slower().count(),
        c.rows.len(),
        c.slower_vs_tokio().count(),
        if c.unmatched > 0 {
            format!(
                "; {} scenario/implementation pairs were in only one of the runs",
                c.unmatched
            )
        } else {
            String::new()
        }
    );
    out
}

/// The comparison as an HTML section.
pub fn html(h: &mut String, c: &Comparison) {
    let _ = writeln!(
        h,
        "<h2 id=\"compare\">Compared with a saved run</h2><p class=\"summary\">{}</p>",
        escape(&method(c))
    );
    h.push_str(
        "<table class=\"results\"><thead><tr><th>scenario</th><th>impl</th><th>time</th>\
         <th>95% interval</th><th></th><th>vs tokio</th><th>95% interval</th><th></th>\
         <th>runs (new/old)</th></tr></thead><tbody>\n",
    );
    for r in &c.rows {
        let slower = r.verdict == Verdict::Slower || r.vs_tokio_verdict() == Some(Verdict::Slower);
        let class = if slower { " class=\"failed\"" } else { "" };
        let (t, ti) = with_interval(Some(r.time));
        let (v, vi) = with_interval(r.vs_tokio);
        let _ = writeln!(
            h,
            "<tr{class}><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{t}</td>\
             <td>{ti}</td><td class=\"note\">{}</td><td>{v}</td><td>{vi}</td>\
             <td class=\"note\">{}</td><td>{}/{}</td></tr>",
            escape(&r.scenario),
            escape(r.imp.name()),
            word(Some(r.verdict)),
            word(r.vs_tokio_verdict()),
            r.new_runs,
            r.old_runs,
        );
    }
    h.push_str("</tbody></table>\n");
}
