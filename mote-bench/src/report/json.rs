//! `results.json`: the whole [`SuiteResults`], raw runs included, for later analysis and
//! `--compare`. The suite rewrites it after every run; each rewrite goes to a temporary file
//! renamed over the old one, so a reader (or a crash) never sees half a file.

use crate::suite::model::SuiteResults;
use anyhow::{Context, Result};
use std::path::Path;

/// Writes `results` as pretty JSON to `path`, atomically: into `path` + `.tmp`, then renamed.
pub fn write_atomic(results: &SuiteResults, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(results)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", Path::new(&tmp).display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming into {}", path.display()))
}

/// Reads a results file back (files of older harness versions too: every field added since
/// has a default).
pub fn read(path: &Path) -> Result<SuiteResults> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_replace_the_file_whole_and_leave_no_temporary() {
        let dir = std::env::temp_dir().join(format!("mote-bench-json-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.json");
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/results/otp/results.json");
        let mut r = read(&docs).unwrap();
        r.incomplete = Some("in progress: 1 of 9 runs".into());
        write_atomic(&r, &path).unwrap();
        assert_eq!(read(&path).unwrap().incomplete, r.incomplete);
        r.incomplete = None;
        r.scenarios.truncate(1);
        write_atomic(&r, &path).unwrap();
        let back = read(&path).unwrap();
        assert_eq!((back.incomplete, back.scenarios.len()), (None, 1));
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["results.json"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_committed_reports_of_older_versions_still_read() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/results");
        for run in ["full", "beam", "otp"] {
            let r = read(&docs.join(run).join("results.json")).unwrap();
            assert!(!r.scenarios.is_empty(), "{run}");
            assert!(r.incomplete.is_none(), "{run}");
        }
    }
}
