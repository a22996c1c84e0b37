//! Workload parameters: an ordered list of `name=value` pairs of positive integers.
//!
//! Order matters because the RESULT line prints parameters in the contract's table order, and
//! the suite uses the printed form as part of a scenario's identity.

use anyhow::{anyhow, bail, Result};
use serde::{Deserialize, Serialize};

/// The parameters of one scenario, in contract order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Params(Vec<(String, u64)>);

impl Params {
    /// Builds a parameter set from pairs, keeping their order.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, u64)>) -> Self {
        Params(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// The value of `name`; an error names the missing parameter (a workload asking for a
    /// parameter its catalog entry lacks is a bug worth a clear message, not a panic).
    pub fn get(&self, name: &str) -> Result<u64> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| anyhow!("parameter '{name}' is not set"))
    }

    /// [`Params::get`] converted to `usize` (counts and sizes index memory).
    pub fn get_usize(&self, name: &str) -> Result<usize> {
        let v = self.get(name)?;
        usize::try_from(v).map_err(|_| anyhow!("parameter {name}={v} does not fit in usize"))
    }

    /// Replaces the value of an existing parameter; returns false when `name` is not one.
    pub fn set(&mut self, name: &str, value: u64) -> bool {
        match self.0.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => {
                slot.1 = value;
                true
            }
            None => false,
        }
    }

    /// Appends a parameter (after the contract's ones).
    pub fn push(&mut self, name: &str, value: u64) {
        self.0.push((name.to_string(), value));
    }

    /// The parameters after `prefix`, if these start with exactly `prefix`'s.
    pub fn strip_prefix(&self, prefix: &Params) -> Option<Params> {
        self.0
            .starts_with(&prefix.0)
            .then(|| Params(self.0[prefix.0.len()..].to_vec()))
    }

    /// The pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// `k=v` words separated by spaces, as in the RESULT line and the peers' command lines.
    pub fn to_kv_string(&self) -> String {
        self.to_kv_args().join(" ")
    }

    /// `k=v` words, one per parameter.
    pub fn to_kv_args(&self) -> Vec<String> {
        self.iter().map(|(k, v)| format!("{k}={v}")).collect()
    }
}

/// Parses one `--param k=v` argument. The value must be a non-negative integer; `_` digit
/// separators are accepted (`n=1_000_000`) since the contract's sizes are easy to mistype.
pub fn parse_kv(arg: &str) -> Result<(String, u64)> {
    let Some((k, v)) = arg.split_once('=') else {
        bail!("bad parameter '{arg}': expected k=v, e.g. m=1000");
    };
    let k = k.trim();
    if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!("bad parameter '{arg}': '{k}' is not a parameter name");
    }
    let digits: String = v.trim().chars().filter(|c| *c != '_').collect();
    let value = digits
        .parse::<u64>()
        .map_err(|_| anyhow!("bad parameter '{arg}': '{v}' is not a non-negative integer"))?;
    Ok((k.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_good_pairs() {
        assert_eq!(parse_kv("m=1000").unwrap(), ("m".to_string(), 1000));
        assert_eq!(
            parse_kv("n=1_000_000").unwrap(),
            ("n".to_string(), 1_000_000)
        );
        assert_eq!(parse_kv("reps=0").unwrap(), ("reps".to_string(), 0));
    }

    #[test]
    fn rejects_bad_pairs_with_clear_errors() {
        let e = parse_kv("m1000").unwrap_err().to_string();
        assert!(e.contains("expected k=v"), "{e}");
        let e = parse_kv("m=ten").unwrap_err().to_string();
        assert!(e.contains("not a non-negative integer"), "{e}");
        let e = parse_kv("m=-3").unwrap_err().to_string();
        assert!(e.contains("not a non-negative integer"), "{e}");
        let e = parse_kv("=3").unwrap_err().to_string();
        assert!(e.contains("not a parameter name"), "{e}");
        assert!(parse_kv("m=").is_err());
        assert!(parse_kv("m=99999999999999999999999").is_err());
    }

    #[test]
    fn keeps_order_and_sets_existing_only() {
        let mut p = Params::from_pairs([("t", 10), ("p", 503)]);
        assert!(p.set("p", 7));
        assert!(!p.set("x", 1));
        assert_eq!(p.to_kv_string(), "t=10 p=7");
        assert_eq!(p.get("t").unwrap(), 10);
        assert!(p.get("x").is_err());
    }
}
