//! The contract's RESULT line: formatting (for `mote-bench run`) and parsing (for the suite,
//! which reads the line every child prints).
//!
//! `RESULT bench=W impl=I variant=V <param>=<v>... wall_ms=<float> [extra=<v>...] [peak_rss_kb=<int>]`
//!
//! Words between `variant` and `wall_ms` are parameters, words after it are extras; the
//! position is what tells them apart, so parsing needs no catalog.

use crate::harness::params::Params;
use anyhow::{anyhow, bail, ensure, Result};
use serde::{Deserialize, Serialize};

/// One parsed RESULT line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultLine {
    /// `bench=`: the workload.
    pub bench: String,
    /// `impl=`: the implementation.
    pub imp: String,
    /// `variant=` (`-` when none).
    pub variant: String,
    /// Parameters as printed (values actually used).
    pub params: Params,
    /// The workload's own wall time.
    pub wall_ms: f64,
    /// Extra figures after `wall_ms`, in order, excluding `peak_rss_kb`.
    pub extras: Vec<(String, String)>,
    /// Peak RSS if the line carries it.
    pub peak_rss_kb: Option<u64>,
}

impl ResultLine {
    /// Formats the line (without a trailing newline).
    pub fn format(&self) -> String {
        let mut s = format!(
            "RESULT bench={} impl={} variant={}",
            self.bench, self.imp, self.variant
        );
        for kv in self.params.to_kv_args() {
            s.push(' ');
            s.push_str(&kv);
        }
        s.push_str(&format!(" wall_ms={:.3}", self.wall_ms));
        for (k, v) in &self.extras {
            s.push_str(&format!(" {k}={v}"));
        }
        if let Some(rss) = self.peak_rss_kb {
            s.push_str(&format!(" peak_rss_kb={rss}"));
        }
        s
    }

    /// Parses one line. Errors say which part is missing or malformed.
    pub fn parse(line: &str) -> Result<ResultLine> {
        let mut words = line.split_whitespace();
        ensure!(
            words.next() == Some("RESULT"),
            "not a RESULT line: '{}'",
            truncate(line, 80)
        );
        let mut pairs = Vec::new();
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| anyhow!("RESULT line: '{w}' is not k=v"))?;
            ensure!(
                !k.is_empty() && !v.is_empty(),
                "RESULT line: '{w}' is not k=v"
            );
            pairs.push((k, v));
        }
        let fixed = ["bench", "impl", "variant"];
        for (i, name) in fixed.iter().enumerate() {
            match pairs.get(i) {
                Some((k, _)) if k == name => {}
                _ => bail!("RESULT line: field {} must be '{name}='", i + 1),
            }
        }
        let wall_at = pairs
            .iter()
            .position(|(k, _)| *k == "wall_ms")
            .ok_or_else(|| anyhow!("RESULT line: missing wall_ms"))?;
        ensure!(wall_at >= 3, "RESULT line: wall_ms before variant");
        let wall_ms: f64 = pairs[wall_at]
            .1
            .parse()
            .map_err(|_| anyhow!("RESULT line: wall_ms={} is not a number", pairs[wall_at].1))?;
        ensure!(
            wall_ms.is_finite() && wall_ms >= 0.0,
            "RESULT line: wall_ms={wall_ms} out of range"
        );
        let mut params = Vec::new();
        for (k, v) in &pairs[3..wall_at] {
            let v: u64 = v
                .parse()
                .map_err(|_| anyhow!("RESULT line: parameter {k}={v} is not an integer"))?;
            params.push((*k, v));
        }
        let mut extras = Vec::new();
        let mut peak_rss_kb = None;
        for (k, v) in &pairs[wall_at + 1..] {
            if *k == "peak_rss_kb" {
                peak_rss_kb = Some(
                    v.parse()
                        .map_err(|_| anyhow!("RESULT line: peak_rss_kb={v} is not an integer"))?,
                );
            } else {
                extras.push((k.to_string(), v.to_string()));
            }
        }
        Ok(ResultLine {
            bench: pairs[0].1.to_string(),
            imp: pairs[1].1.to_string(),
            variant: pairs[2].1.to_string(),
            params: Params::from_pairs(params),
            wall_ms,
            extras,
            peak_rss_kb,
        })
    }

    /// Finds and parses the RESULT line in a program's whole stdout. The contract says there is
    /// exactly one; should a program print more, the last one wins (it is the final answer).
    pub fn find_in(stdout: &str) -> Result<ResultLine> {
        let line = stdout
            .lines()
            .rev()
            .find(|l| l.starts_with("RESULT "))
            .ok_or_else(|| anyhow!("no RESULT line on stdout"))?;
        ResultLine::parse(line)
    }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str =
        "RESULT bench=million impl=go variant=- k=1000000 wall_ms=2470.5 spawn_ms=1200.25 peak_rss_kb=1114112";

    #[test]
    fn parses_a_good_line() {
        let r = ResultLine::parse(GOOD).unwrap();
        assert_eq!(r.bench, "million");
        assert_eq!(r.imp, "go");
        assert_eq!(r.variant, "-");
        assert_eq!(r.params.to_kv_string(), "k=1000000");
        assert_eq!(r.wall_ms, 2470.5);
        assert_eq!(r.extras, vec![("spawn_ms".into(), "1200.25".into())]);
        assert_eq!(r.peak_rss_kb, Some(1_114_112));
    }

    #[test]
    fn format_then_parse_round_trips() {
        let r = ResultLine {
            bench: "chain".into(),
            imp: "tokio".into(),
            variant: "int".into(),
            params: Params::from_pairs([("m", 10), ("n", 20)]),
            wall_ms: 1.25,
            extras: vec![("batch".into(), "8".into())],
            peak_rss_kb: None,
        };
        let line = r.format();
        assert_eq!(
            line,
            "RESULT bench=chain impl=tokio variant=int m=10 n=20 wall_ms=1.250 batch=8"
        );
        assert_eq!(ResultLine::parse(&line).unwrap(), r);
    }

    #[test]
    fn missing_fields_are_errors() {
        let e = ResultLine::parse("RESULT bench=chain impl=tokio variant=int m=1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing wall_ms"), "{e}");
        let e = ResultLine::parse("RESULT impl=tokio variant=int wall_ms=1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'bench='"), "{e}");
        let e = ResultLine::parse("RESULT bench=a impl=b variant=c wall_ms=fast")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a number"), "{e}");
    }

    #[test]
    fn junk_is_rejected() {
        assert!(ResultLine::parse("").is_err());
        assert!(ResultLine::parse("hello world").is_err());
        assert!(ResultLine::parse("RESULT bench=a impl=b variant=c junk wall_ms=1").is_err());
        assert!(ResultLine::parse("RESULT bench=a impl=b variant=c m=x wall_ms=1").is_err());
        assert!(ResultLine::parse("RESULT bench=a impl=b variant=c wall_ms=-1").is_err());
        assert!(
            ResultLine::parse("RESULT bench=a impl=b variant=c wall_ms=1 peak_rss_kb=lots")
                .is_err()
        );
    }

    #[test]
    fn finds_the_line_among_other_output() {
        let out = format!("warming up\n{GOOD}\n");
        assert_eq!(ResultLine::find_in(&out).unwrap().bench, "million");
        assert!(ResultLine::find_in("nothing here\n").is_err());
    }
}
