//! The comparison with a saved run as a console table and an HTML section.

use super::format::ratio;
use super::html::escape;
use crate::harness::bootstrap::{Verdict, RESAMPLES};
use crate::suite::compare::Comparison;
use std::fmt::Write;

/// How a verdict reads.
fn word(v: Verdict) -> &'static str {
    match v {
        Verdict::Slower => "SLOWER",
        Verdict::Faster => "faster",
        Verdict::Same => "",
    }
}

/// What the numbers are, in one paragraph.
fn method(c: &Comparison) -> String {
    format!(
        "time = this run's median / the saved run's ({}, {}), with a 95% percentile-bootstrap \
         interval of that ratio of medians ({RESAMPLES} resamples of each run's measured times). \
         SLOWER or faster: the whole interval lies above or below 1. Few runs give wide \
         intervals; the machines are noisy, so read the interval, not the point.",
        c.against, c.against_timestamp
    )
}

/// The comparison as a console table.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\n## compared with {}\n{}", c.against, method(c));
    let _ = writeln!(
        out,
        "{:<44} {:<18} {:>7} {:>17} {:>7}  ",
        "scenario", "impl", "time", "95% interval", "runs"
    );
    for r in &c.rows {
        let _ = writeln!(
            out,
            "{:<44} {:<18} {:>7} {:>17} {:>7}  {}",
            r.scenario,
            r.imp.name(),
            ratio(r.time.ratio),
            format!("{}..{}", ratio(r.time.lo), ratio(r.time.hi)),
            format!("{}/{}", r.new_runs, r.old_runs),
            word(r.verdict)
        );
    }
    let slower = c.slower().count();
    let _ = writeln!(
        out,
        "{slower} of {} slower{}",
        c.rows.len(),
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
         <th>95% interval</th><th>runs (new/old)</th><th></th></tr></thead><tbody>\n",
    );
    for r in &c.rows {
        let class = if r.verdict == Verdict::Slower {
            " class=\"failed\""
        } else {
            ""
        };
        let _ = writeln!(
            h,
            "<tr{class}><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td>\
             <td>{}..{}</td><td>{}/{}</td><td class=\"note\">{}</td></tr>",
            escape(&r.scenario),
            escape(r.imp.name()),
            ratio(r.time.ratio),
            ratio(r.time.lo),
            ratio(r.time.hi),
            r.new_runs,
            r.old_runs,
            word(r.verdict)
        );
    }
    h.push_str("</tbody></table>\n");
}
