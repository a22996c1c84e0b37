//! Reports of a suite run: the console table, `results.json`, `report.html` and each chart as a
//! standalone `.svg`.

pub mod axis;
pub mod charts;
pub mod compare;
pub mod console;
pub mod core_distance;
pub mod format;
pub mod html;
pub mod json;
pub mod standing;

use crate::suite::model::SuiteResults;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The files [`write_all`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// `results.json`.
    pub json: PathBuf,
    /// `report.html`.
    pub html: PathBuf,
    /// One `.svg` per chart.
    pub svgs: Vec<PathBuf>,
}

/// Writes `results.json`, `report.html` and the charts' `.svg` files into `dir` (created if
/// needed).
pub fn write_all(results: &SuiteResults, dir: &Path) -> Result<Written> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json_path = dir.join("results.json");
    json::write_atomic(results, &json_path)?;
    let charts = charts::all(results)?;
    let mut svgs = Vec::new();
    for c in &charts {
        let p = dir.join(format!("{}.svg", c.name));
        std::fs::write(&p, &c.svg).with_context(|| format!("writing {}", p.display()))?;
        svgs.push(p);
    }
    let html_path = dir.join("report.html");
    std::fs::write(&html_path, html::render(results, &charts))
        .with_context(|| format!("writing {}", html_path.display()))?;
    Ok(Written {
        json: json_path,
        html: html_path,
        svgs,
    })
}
