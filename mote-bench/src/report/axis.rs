//! An f64 chart axis whose ticks sit exactly at given points: category centres for bar charts,
//! the swept values for line charts. (plotters' `with_key_points` on an f64 range loses the
//! default formatting that `configure_mesh` needs, hence this small axis.)

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// A linear f64 axis over `range` with ticks at `ticks`.
#[derive(Debug, Clone)]
pub struct TickedAxis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl TickedAxis {
    /// An axis over `range` (start < end) ticked at `ticks`.
    pub fn new(range: Range<f64>, ticks: Vec<f64>) -> Self {
        TickedAxis { range, ticks }
    }
}

impl Ranged for TickedAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let frac = if span > 0.0 {
            (value - self.range.start) / span
        } else {
            0.5
        };
        limit.0 + (frac * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Bold points carry the labels; no light grid lines between them.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_linearly_onto_pixels() {
        let a = TickedAxis::new(0.0..4.0, vec![0.5, 1.5]);
        assert_eq!(a.map(&0.0, (10, 410)), 10);
        assert_eq!(a.map(&2.0, (10, 410)), 210);
        assert_eq!(a.map(&4.0, (10, 410)), 410);
    }
}
