//! Statistics over the measured runs of one scenario and implementation.
//!
//! Definitions (stated because small samples make them matter):
//! - median and p99 use linear interpolation between closest ranks (R type 7, numpy's default):
//!   the p-quantile of sorted `x[0..n]` is at index `p * (n - 1)`;
//! - standard deviation is the sample one (divides by n - 1; 0 for a single run), as benchee's.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// Summary of a sample of wall times (ms) or any other measurements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of measurements.
    pub n: usize,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// 50th percentile.
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Summary {
    /// Standard deviation as a percentage of the mean (benchee's "deviation"); 0 for a zero mean.
    pub fn stddev_pct(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            100.0 * self.stddev / self.mean
        }
    }
}

/// Summarises `xs`. An empty sample or a non-finite value is an error, not a panic: a scenario
/// whose every run failed has nothing to summarise.
pub fn summarize(xs: &[f64]) -> Result<Summary> {
    if xs.is_empty() {
        bail!("no measurements to summarise");
    }
    if let Some(bad) = xs.iter().find(|x| !x.is_finite()) {
        bail!("measurement {bad} is not a finite number");
    }
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let stddev = if n > 1 {
        (sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    Ok(Summary {
        n,
        min: sorted[0],
        max: sorted[n - 1],
        median: quantile_sorted(&sorted, 0.5),
        mean,
        stddev,
        p99: quantile_sorted(&sorted, 0.99),
    })
}

/// The `q`-quantile (0..=1) of an ascending, non-empty slice by linear interpolation.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Statistics of one implementation on one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ImplStats {
    /// Wall time (ms) of the measured runs.
    pub time: Summary,
    /// Largest peak RSS of the measured runs, KiB.
    pub rss_max_kb: u64,
    /// Median peak RSS of the measured runs, KiB.
    pub rss_median_kb: f64,
}

/// Computes [`ImplStats`] from the measured runs' `(wall_ms, peak_rss_kb)`.
pub fn impl_stats(runs: &[(f64, u64)]) -> Result<ImplStats> {
    let time = summarize(&runs.iter().map(|r| r.0).collect::<Vec<_>>())?;
    let rss: Vec<f64> = runs.iter().map(|r| r.1 as f64).collect();
    let rss = summarize(&rss)?;
    Ok(ImplStats {
        time,
        rss_max_kb: rss.max as u64,
        rss_median_kb: rss.median,
    })
}

/// One implementation against the tokio baseline of the same scenario and suite run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VsBaseline {
    /// Median time / tokio's median time (below 1: faster than tokio).
    pub time: f64,
    /// Median peak RSS / tokio's median peak RSS.
    pub rss: f64,
}

/// The ratios of `s` to `baseline`; `None` when a baseline figure is zero.
pub fn vs_baseline(s: &ImplStats, baseline: &ImplStats) -> Option<VsBaseline> {
    if baseline.time.median <= 0.0 || baseline.rss_median_kb <= 0.0 {
        return None;
    }
    Some(VsBaseline {
        time: s.time.median / baseline.time.median,
        rss: s.rss_median_kb / baseline.rss_median_kb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn known_small_sample() {
        let s = summarize(&[5.0, 1.0, 4.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            (s.n, s.min, s.max, s.median, s.mean),
            (5, 1.0, 5.0, 3.0, 3.0)
        );
        // Sample variance of 1..=5 is 10 / 4 = 2.5.
        assert!(close(s.stddev, 2.5f64.sqrt()), "{}", s.stddev);
        // p99 at index 0.99 * 4 = 3.96: 4 + 0.96 * (5 - 4).
        assert!(close(s.p99, 4.96), "{}", s.p99);
        assert!(close(s.stddev_pct(), 100.0 * 2.5f64.sqrt() / 3.0));
    }

    #[test]
    fn even_count_median_interpolates() {
        let s = summarize(&[10.0, 20.0, 40.0, 30.0]).unwrap();
        assert!(close(s.median, 25.0));
        assert!(close(s.p99, 30.0 + 0.97 * 10.0), "{}", s.p99);
        // Deviations -15, -5, 5, 15: (225 + 25 + 25 + 225) / 3.
        assert!(close(s.stddev, (500.0f64 / 3.0).sqrt()));
    }

    #[test]
    fn single_and_two_values() {
        let s = summarize(&[7.5]).unwrap();
        assert_eq!(
            (s.median, s.p99, s.stddev, s.min, s.max),
            (7.5, 7.5, 0.0, 7.5, 7.5)
        );
        let s = summarize(&[1.0, 3.0]).unwrap();
        assert!(close(s.median, 2.0));
        assert!(close(s.stddev, 2f64.sqrt()));
        assert!(close(s.p99, 2.98));
    }

    #[test]
    fn empty_and_nan_are_errors() {
        assert!(summarize(&[])
            .unwrap_err()
            .to_string()
            .contains("no measurements"));
        assert!(summarize(&[1.0, f64::NAN]).is_err());
        assert!(impl_stats(&[]).is_err());
    }

    #[test]
    fn rss_and_ratios() {
        let tokio = impl_stats(&[(100.0, 1000), (120.0, 3000), (110.0, 2000)]).unwrap();
        assert_eq!(tokio.rss_max_kb, 3000);
        assert!(close(tokio.rss_median_kb, 2000.0));
        let mote = impl_stats(&[(55.0, 500), (50.0, 500), (60.0, 700)]).unwrap();
        let v = vs_baseline(&mote, &tokio).unwrap();
        assert!(close(v.time, 0.5) && close(v.rss, 0.25), "{v:?}");
    }
}
