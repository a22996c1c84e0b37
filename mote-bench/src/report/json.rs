//! `results.json`: the whole [`SuiteResults`], raw runs included, for later analysis.

use crate::suite::model::SuiteResults;
use anyhow::{Context, Result};
use std::path::Path;

/// Writes `results` as pretty JSON to `path`.
pub fn write(results: &SuiteResults, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(results)?;
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Reads a results file back.
pub fn read(path: &Path) -> Result<SuiteResults> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}
