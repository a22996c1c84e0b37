//! mote against the fastest peer of every scenario ([`crate::suite::standing`]) as a console
//! table and an HTML section.

use super::compare::with_interval;
use super::console::FEW_RUNS;
use super::format::ratio;
use super::html::escape;
use crate::harness::bootstrap::{Verdict, RESAMPLES};
use crate::suite::model::MIN_SAMPLES;
use crate::suite::standing::Standing;
use std::fmt::Write;

/// How a verdict about mote reads.
fn word(v: Option<Verdict>) -> String {
    match v {
        Some(Verdict::Faster) => "ahead".into(),
        Some(Verdict::Slower) => "BEHIND".into(),
        Some(Verdict::Same) => "no difference shown".into(),
        None => format!("too few runs {FEW_RUNS}"),
    }
}

/// What the numbers are, in one paragraph.
fn method() -> String {
    format!(
        "time = mote's median / the median of the fastest other implementation (any style) in \
         the same scenario and run, with a 95% percentile-bootstrap interval of that ratio \
         ({RESAMPLES} resamples of each side's measured times). ahead or BEHIND: the whole \
         interval lies below or above 1; otherwise the runs cannot tell the two apart (as \
         where both run the same code); no verdict from fewer than {MIN_SAMPLES} runs a side. \
         RSS vs tokio = mote's median peak RSS / raw tokio's."
    )
}

/// One line of totals: how many scenarios mote is ahead on, behind on (named) and level.
fn totals(rows: &[Standing]) -> String {
    let count = |v| rows.iter().filter(|r| r.verdict == v).count();
    let behind: Vec<&str> = rows
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Slower))
        .map(|r| r.scenario.as_str())
        .collect();
    let mut line = format!(
        "mote ahead on {} of {} scenarios, no difference shown on {}, behind on {}",
        count(Some(Verdict::Faster)),
        rows.len(),
        count(Some(Verdict::Same)),
        behind.len()
    );
    if !behind.is_empty() {
        let _ = write!(line, " ({})", behind.join("; "));
    }
    let few = count(None);
    if few > 0 {
        let _ = write!(line, "; too few runs for a verdict on {few}");
    }
    line
}

/// The standings as a console table; empty when there are none.
pub fn render(rows: &[Standing]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(out, "\n## mote against the fastest peer\n{}", method());
    let _ = writeln!(
        out,
        "{:<40} {:<24} {:>6} {:>13} {:<20} {:>12} {:>5}",
        "scenario", "fastest peer", "time", "95%", "", "RSS vs tokio", "runs"
    );
    for r in rows {
        let (time, interval) = with_interval(Some(r.time));
        let line = format!(
            "{:<40} {:<24} {:>6} {:>13} {:<20} {:>12} {:>5}",
            r.scenario,
            r.peer.name(),
            time,
            interval,
            word(r.verdict),
            r.rss_vs_tokio.map_or("-".into(), ratio),
            format!("{}/{}", r.runs.0, r.runs.1),
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "{}", totals(rows));
    out
}

/// The standings as an HTML section; nothing when there are none.
pub fn html(h: &mut String, rows: &[Standing]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "<h2 id=\"standing\">mote against the fastest peer</h2><p class=\"summary\">{}</p>\
         <p>{}</p>",
        escape(&method()),
        escape(&totals(rows))
    );
    h.push_str(
        "<table class=\"results\"><thead><tr><th>scenario</th><th>fastest peer</th>\
         <th>time</th><th>95% interval</th><th></th><th>RSS vs tokio</th>\
         <th>runs (mote/peer)</th></tr></thead><tbody>\n",
    );
    for r in rows {
        let class = if r.verdict == Some(Verdict::Slower) {
            " class=\"failed\""
        } else {
            ""
        };
        let (time, interval) = with_interval(Some(r.time));
        let _ = writeln!(
            h,
            "<tr{class}><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{time}</td>\
             <td>{interval}</td><td class=\"note\">{}</td><td>{}</td><td>{}/{}</td></tr>",
            escape(&r.scenario),
            escape(r.peer.name()),
            word(r.verdict),
            r.rss_vs_tokio.map_or("-".into(), ratio),
            r.runs.0,
            r.runs.1,
        );
    }
    h.push_str("</tbody></table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::bootstrap::RatioCi;
    use crate::impls::Impl;

    fn row(scenario: &str, lo: f64, hi: f64) -> Standing {
        row_of(scenario, lo, hi, 3)
    }

    fn row_of(scenario: &str, lo: f64, hi: f64, runs: usize) -> Standing {
        let time = RatioCi {
            ratio: (lo + hi) / 2.0,
            lo,
            hi,
        };
        Standing {
            scenario: scenario.into(),
            peer: Impl::named("tokio:current_thread"),
            verdict: (runs >= MIN_SAMPLES).then(|| time.verdict()),
            time,
            rss_vs_tokio: Some(0.5),
            runs: (runs, 4),
        }
    }

    #[test]
    fn the_table_names_the_peer_the_interval_and_the_rows_behind() {
        let rows = [
            row("chain int m=10 n=10", 0.5, 0.7),
            row("copy seq n=10 r=2", 0.9, 1.2),
            row("call - r=10 callers=100", 1.1, 1.4),
            row_of("copy par n=10 r=2", 0.6, 0.7, 2),
        ];
        let out = render(&rows);
        assert!(out.contains("tokio:current_thread"), "{out}");
        assert!(out.contains("0.50x..0.70x"), "{out}");
        assert!(out.contains("no difference shown"), "{out}");
        assert!(
            out.contains(
                "mote ahead on 1 of 4 scenarios, no difference shown on 1, behind on 1 \
                 (call - r=10 callers=100); too few runs for a verdict on 1"
            ),
            "{out}"
        );
        let mut h = String::new();
        html(&mut h, &rows);
        assert_eq!(h.matches("<tr class=\"failed\">").count(), 1, "{h}");
        assert!(h.contains("3/4"), "{h}");
        assert!(out.contains("too few runs †"), "{out}");
        assert!(render(&[]).is_empty());
    }
}
