//! Ratios of sample medians with bootstrap confidence intervals, for comparing a run with a
//! saved one (`--compare`): this run's median over the saved run's, and the same relative to
//! a baseline measured in each run (an implementation's median over tokio's in the same run,
//! new over old), which cancels a machine that was faster or slower as a whole.
//!
//! Method: the percentile bootstrap. Each resample draws, with replacement, as many values
//! from each sample as it has, and computes the ratio from the resampled medians; the
//! interval is the 2.5th to 97.5th percentile of those ratios. The generator is seeded, so the same
//! samples always give the same interval. With 3 runs a side the interval is wide (roughly
//! from the fastest new run over the slowest old one to the other way round): it says how far
//! the samples let one see, which is the point.

use super::stats::quantile_sorted;
use crate::workloads::common::XorShift64Star;

/// Resamples per interval.
pub const RESAMPLES: usize = 10_000;
/// The generator's seed.
const SEED: u64 = 0x5EED;

/// A ratio `new / old` of medians with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RatioCi {
    /// Median of the new sample over median of the old one.
    pub ratio: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
}

/// What a ratio says about the new run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The whole interval is above 1: the new run is slower.
    Slower,
    /// The whole interval is below 1: the new run is faster.
    Faster,
    /// The interval holds 1: no difference the samples can show.
    Same,
}

impl RatioCi {
    /// Slower, faster or the same, by where the interval lies.
    pub fn verdict(&self) -> Verdict {
        if self.lo > 1.0 {
            Verdict::Slower
        } else if self.hi < 1.0 {
            Verdict::Faster
        } else {
            Verdict::Same
        }
    }
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    quantile_sorted(xs, 0.5)
}

/// `stat` of the samples' medians with its bootstrap interval; `None` when a sample is empty
/// or holds a non-finite value, or `stat` of the medians is not finite.
fn bootstrap(samples: &[&[f64]], stat: impl Fn(&[f64]) -> f64) -> Option<RatioCi> {
    if samples
        .iter()
        .any(|xs| xs.is_empty() || xs.iter().any(|x| !x.is_finite()))
    {
        return None;
    }
    let medians: Vec<f64> = samples.iter().map(|xs| median(&mut xs.to_vec())).collect();
    let ratio = stat(&medians);
    if !ratio.is_finite() {
        return None;
    }
    let mut rng = XorShift64Star::new(SEED);
    let mut buf = Vec::new();
    let mut resampled = vec![0.0; samples.len()];
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            for (m, xs) in resampled.iter_mut().zip(samples) {
                buf.clear();
                buf.extend((0..xs.len()).map(|_| xs[rng.uniform(0, xs.len() as u64 - 1) as usize]));
                *m = median(&mut buf);
            }
            Some(stat(&resampled)).filter(|r| r.is_finite())
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    Some(RatioCi {
        ratio,
        lo: quantile_sorted(&ratios, 0.025),
        hi: quantile_sorted(&ratios, 0.975),
    })
}

/// `median(new) / median(old)` with its bootstrap interval; `None` when a sample is empty,
/// holds a non-finite value, or the old median is zero.
pub fn ratio_of_medians(new: &[f64], old: &[f64]) -> Option<RatioCi> {
    bootstrap(&[new, old], |m| m[0] / m[1])
}

/// `(median(new) / median(new_base)) / (median(old) / median(old_base))`: how an
/// implementation's time relative to a baseline measured beside it changed between two runs,
/// with its bootstrap interval.
pub fn ratio_of_relatives(
    new: &[f64],
    new_base: &[f64],
    old: &[f64],
    old_base: &[f64],
) -> Option<RatioCi> {
    bootstrap(&[new, new_base, old, old_base], |m| {
        (m[0] / m[1]) / (m[2] / m[3])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_samples_give_one_inside_the_interval() {
        let xs = [100.0, 102.0, 98.0, 101.0, 99.0];
        let ci = ratio_of_medians(&xs, &xs).unwrap();
        assert_eq!(ci.ratio, 1.0);
        assert!(ci.lo <= 1.0 && ci.hi >= 1.0, "{ci:?}");
        assert_eq!(ci.verdict(), Verdict::Same);
    }

    #[test]
    fn a_clear_slowdown_is_flagged() {
        let old = [100.0, 101.0, 99.0, 100.5, 99.5];
        let new = [150.0, 152.0, 149.0, 151.0, 148.0];
        let ci = ratio_of_medians(&new, &old).unwrap();
        assert!((ci.ratio - 1.5).abs() < 1e-12);
        // Every resampled ratio lies between min(new)/max(old) and max(new)/min(old).
        assert!(ci.lo >= 148.0 / 101.0 && ci.hi <= 152.0 / 99.0, "{ci:?}");
        assert_eq!(ci.verdict(), Verdict::Slower);
        let faster = ratio_of_medians(&old, &new).unwrap();
        assert_eq!(faster.verdict(), Verdict::Faster);
    }

    #[test]
    fn overlapping_noisy_samples_are_not_flagged() {
        let old = [100.0, 140.0, 90.0];
        let new = [110.0, 95.0, 150.0];
        let ci = ratio_of_medians(&new, &old).unwrap();
        assert!((ci.ratio - 110.0 / 100.0).abs() < 1e-12);
        assert_eq!(ci.verdict(), Verdict::Same, "{ci:?}");
    }

    #[test]
    fn the_interval_holds_the_point_estimate_and_is_reproducible() {
        let old = [10.0, 12.0, 11.0, 13.0];
        let new = [9.0, 14.0, 12.5];
        let a = ratio_of_medians(&new, &old).unwrap();
        assert!(a.lo <= a.ratio && a.ratio <= a.hi, "{a:?}");
        assert_eq!(a, ratio_of_medians(&new, &old).unwrap());
    }

    #[test]
    fn a_machine_slower_as_a_whole_cancels_out_of_the_relative_ratio() {
        let old = [100.0, 101.0, 99.0];
        let old_base = [200.0, 202.0, 198.0];
        // Everything took twice as long in the new run.
        let new: Vec<f64> = old.iter().map(|x| x * 2.0).collect();
        let new_base: Vec<f64> = old_base.iter().map(|x| x * 2.0).collect();
        assert_eq!(
            ratio_of_medians(&new, &old).unwrap().verdict(),
            Verdict::Slower
        );
        let rel = ratio_of_relatives(&new, &new_base, &old, &old_base).unwrap();
        assert!((rel.ratio - 1.0).abs() < 1e-12);
        assert_eq!(rel.verdict(), Verdict::Same, "{rel:?}");
        // Only the implementation got slower: the relative ratio shows it.
        let slower: Vec<f64> = old.iter().map(|x| x * 1.5).collect();
        let rel = ratio_of_relatives(&slower, &old_base, &old, &old_base).unwrap();
        assert!((rel.ratio - 1.5).abs() < 1e-12);
        assert_eq!(rel.verdict(), Verdict::Slower);
    }

    #[test]
    fn unusable_samples_give_none() {
        assert!(ratio_of_medians(&[], &[1.0]).is_none());
        assert!(ratio_of_medians(&[1.0], &[0.0]).is_none());
        assert!(ratio_of_medians(&[f64::NAN], &[1.0]).is_none());
        assert!(ratio_of_relatives(&[1.0], &[0.0], &[1.0], &[1.0]).is_none());
    }
}
