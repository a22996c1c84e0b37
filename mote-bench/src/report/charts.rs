//! SVG charts drawn with plotters' SVG backend into strings: a distribution chart per
//! workload (a box per implementation and variant, every measured run as a dot) and a line
//! chart per sweep. The same strings are inlined in the HTML and written as `.svg` files.
//!
//! Every chart keeps its legend in a strip of its own to the right of the plot, so it cannot
//! cover data; the y axis turns logarithmic when the largest value is more than
//! [`LOG_RATIO`] times the smallest (one runtime dwarfing the others would flatten the rest);
//! a box drawn from fewer than [`MIN_SAMPLES`] runs is hollow and labelled with its count.

use super::axis::TickedAxis;
use super::format;
use crate::impls::Impl;
use crate::suite::model::{Metric, ScenarioResult, SuiteResults, Sweep, MIN_SAMPLES};
use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::RGBColor;

/// One rendered chart.
#[derive(Debug, Clone)]
pub struct Chart {
    /// File stem (`bars-chain`, `sweep-chain_m`).
    pub name: String,
    /// Title shown above it.
    pub title: String,
    /// The SVG document.
    pub svg: String,
}

const SIZE: (u32, u32) = (900, 400);
/// Width of the legend strip.
const LEGEND_W: u32 = 170;
/// Above this max/min ratio the y axis is logarithmic.
pub const LOG_RATIO: f64 = 20.0;

const PALETTE: [RGBColor; 8] = [
    RGBColor(0xd9, 0x5f, 0x02),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x1b, 0x9e, 0x77),
    RGBColor(0x75, 0x50, 0xb7),
    RGBColor(0xb3, 0x9d, 0xdb),
    RGBColor(0xe7, 0x29, 0x8a),
    RGBColor(0x66, 0xa6, 0x1e),
    RGBColor(0xa6, 0x76, 0x1d),
];

/// Series colours of the implementations of one chart: each base's colour is fixed by its
/// place in the tables, so every chart reads alike; its styles are lighter shades of it,
/// lighter for each further style in `impls`.
pub fn colors(impls: &[Impl]) -> Vec<RGBColor> {
    impls
        .iter()
        .enumerate()
        .map(|(k, imp)| {
            let base = PALETTE[imp.rank().min(PALETTE.len() - 1)];
            if imp.style().is_none() {
                return base;
            }
            let before = impls[..k]
                .iter()
                .filter(|i| i.style().is_some() && i.base() == imp.base())
                .count();
            let lift = (0.35 + 0.2 * before as f64).min(0.85);
            let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * lift) as u8;
            RGBColor(mix(base.0), mix(base.1), mix(base.2))
        })
        .collect()
}

/// Plotters' drawing errors borrow nothing but are generic over the backend; flatten them.
fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// A y axis, linear from 0 or logarithmic, as a linear axis over transformed values (so one
/// chart type serves both).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YScale {
    /// Logarithmic (values are drawn at their log10).
    pub log: bool,
    lo: f64,
    hi: f64,
}

impl YScale {
    /// The scale for values between `min` and `max` (both positive for a log scale to be
    /// chosen): logarithmic when `max / min` exceeds [`LOG_RATIO`].
    pub fn for_range(min: f64, max: f64) -> YScale {
        let max = max.max(1e-3);
        if min > 0.0 && max / min > LOG_RATIO {
            YScale {
                log: true,
                lo: (min / 1.5).log10(),
                hi: (max * 1.5).log10(),
            }
        } else {
            YScale {
                log: false,
                lo: 0.0,
                hi: max * 1.12,
            }
        }
    }

    /// Where `v` goes on the axis.
    pub fn to_axis(&self, v: f64) -> f64 {
        if self.log {
            v.max(1e-9).log10()
        } else {
            v
        }
    }

    /// The value at axis position `y`.
    pub fn from_axis(&self, y: f64) -> f64 {
        if self.log {
            10f64.powf(y)
        } else {
            y
        }
    }

    /// The axis as plotters draws it, with its ticks.
    pub fn axis(&self) -> TickedAxis {
        TickedAxis::new(self.lo..self.hi, self.ticks())
    }

    /// Tick positions (axis units): 1, 2 and 5 times the powers of ten in range on a log axis
    /// (only the powers when they span more than three decades), about six round steps on a
    /// linear one.
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            let decades = self.hi - self.lo;
            let mults: &[f64] = if decades > 3.0 {
                &[1.0]
            } else {
                &[1.0, 2.0, 5.0]
            };
            let mut ticks = Vec::new();
            for e in (self.lo.floor() as i32)..=(self.hi.ceil() as i32) {
                for m in mults {
                    let y = (m * 10f64.powi(e)).log10();
                    if y >= self.lo && y <= self.hi {
                        ticks.push(y);
                    }
                }
            }
            ticks
        } else {
            let raw = (self.hi - self.lo) / 6.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * mag)
                .find(|s| *s >= raw)
                .unwrap_or(raw);
            (0..)
                .map(|i| self.lo + f64::from(i) * step)
                .take_while(|y| *y <= self.hi)
                .collect()
        }
    }
}

/// A series in a legend: its name, colour, and whether its line is dashed.
struct LegendEntry {
    name: String,
    color: RGBColor,
    dashed: bool,
}

/// Draws the legend in its own strip.
fn legend(
    area: &DrawingArea<SVGBackend, Shift>,
    entries: &[LegendEntry],
    note: &str,
) -> Result<()> {
    let font = ("sans-serif", 13).into_font();
    for (i, e) in entries.iter().enumerate() {
        let y = 48 + 20 * i as i32;
        let swatch = vec![(6, y), (24, y)];
        if e.dashed {
            area.draw(&DashedPathElement::new(
                swatch,
                4,
                3,
                e.color.stroke_width(4),
            ))
        } else {
            area.draw(&PathElement::new(swatch, e.color.stroke_width(6)))
        }
        .map_err(plot_err)?;
        area.draw(&Text::new(e.name.clone(), (30, y - 7), font.clone()))
            .map_err(plot_err)?;
    }
    let small = ("sans-serif", 11)
        .into_font()
        .color(&RGBColor(0x55, 0x55, 0x55));
    for (i, line) in note.lines().enumerate() {
        let y = 60 + 20 * entries.len() as i32 + 14 * i as i32;
        area.draw(&Text::new(line.to_string(), (6, y), small.clone()))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// The measured times of one implementation on one scenario.
fn measured(s: &ScenarioResult, imp: &Impl) -> Vec<f64> {
    s.impls
        .iter()
        .find(|r| r.imp == *imp && r.stats.is_some())
        .map(|r| {
            r.runs
                .iter()
                .filter(|x| !x.warmup)
                .map(|x| x.wall_ms)
                .collect()
        })
        .unwrap_or_default()
}

/// The implementations with statistics in `groups`, in interleaving order.
fn implementations(groups: &[&ScenarioResult]) -> Vec<Impl> {
    let mut impls: Vec<Impl> = groups
        .iter()
        .flat_map(|g| {
            g.impls
                .iter()
                .filter(|r| r.stats.is_some())
                .map(|r| r.imp.clone())
        })
        .collect();
    impls.sort();
    impls.dedup();
    impls
}

/// A box (quartiles), median line, whiskers (min..max) and a dot per run, for each
/// implementation and base scenario of `workload`. `None` when nothing was measured.
pub fn workload_chart(results: &SuiteResults, workload: &str) -> Result<Option<Chart>> {
    let groups: Vec<&ScenarioResult> = results
        .scenarios
        .iter()
        .filter(|s| s.scenario.base && s.scenario.workload == workload)
        .collect();
    let impls = implementations(&groups);
    if groups.is_empty() || impls.is_empty() {
        return Ok(None);
    }
    let labels: Vec<String> = groups
        .iter()
        .map(|g| match g.scenario.variant.as_str() {
            "-" => g.scenario.params.to_kv_string(),
            v => v.to_string(),
        })
        .collect();
    let all: Vec<f64> = groups
        .iter()
        .flat_map(|g| impls.iter().flat_map(|i| measured(g, i)))
        .collect();
    let (min, max) = all
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let y = YScale::for_range(min, max);
    let title = format!("{workload}: wall time of every measured run per implementation");
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plot, side) = root.split_horizontally(SIZE.0 - LEGEND_W);
        let n = groups.len() as f64;
        let centers: Vec<f64> = (0..groups.len()).map(|i| i as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&plot)
            .caption(&title, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(70)
            .build_cartesian_2d(TickedAxis::new(0.0..n, centers), y.axis())
            .map_err(plot_err)?;
        let label_of = |x: &f64| labels.get(x.floor() as usize).cloned().unwrap_or_default();
        let y_desc = if y.log {
            "wall time (log scale)"
        } else {
            "wall time"
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_label_formatter(&label_of)
            .y_label_formatter(&|v| format::duration_ms(y.from_axis(*v)))
            .y_desc(y_desc)
            .draw()
            .map_err(plot_err)?;
        let slot = 0.8 / impls.len() as f64;
        let palette = colors(&impls);
        let mut few = false;
        for (j, imp) in impls.iter().enumerate() {
            let c = palette[j];
            for (i, g) in groups.iter().enumerate() {
                let mut xs = measured(g, imp);
                if xs.is_empty() {
                    continue;
                }
                xs.sort_by(f64::total_cmp);
                let q = |p: f64| y.to_axis(crate::harness::stats::quantile_sorted(&xs, p));
                let x0 = i as f64 + 0.1 + j as f64 * slot;
                let (x1, mid) = (x0 + slot * 0.8, x0 + slot * 0.4);
                let thin = xs.len() < MIN_SAMPLES;
                few |= thin;
                let body = if thin {
                    c.stroke_width(2)
                } else {
                    c.mix(0.55).filled()
                };
                chart
                    .draw_series([Rectangle::new([(x0, q(0.25)), (x1, q(0.75))], body)])
                    .map_err(plot_err)?;
                let whisker = BLACK.stroke_width(1);
                let cap = slot * 0.15;
                let mut lines = vec![
                    vec![(x0, q(0.5)), (x1, q(0.5))],
                    vec![(mid, q(0.0)), (mid, q(0.25))],
                    vec![(mid, q(0.75)), (mid, q(1.0))],
                ];
                for v in [q(0.0), q(1.0)] {
                    lines.push(vec![(mid - cap, v), (mid + cap, v)]);
                }
                chart
                    .draw_series(lines.into_iter().map(|l| PathElement::new(l, whisker)))
                    .map_err(plot_err)?;
                // Each run as a dot, spread across the box so equal times stay visible.
                let k = xs.len() as f64;
                chart
                    .draw_series(xs.iter().enumerate().map(|(r, v)| {
                        let x = x0 + slot * 0.8 * (r as f64 + 0.5) / k;
                        Circle::new((x, y.to_axis(*v)), 2, BLACK.filled())
                    }))
                    .map_err(plot_err)?;
                if thin {
                    // Above the whisker's cap (text hangs below its anchor).
                    let above = q(1.0) + (y.hi - y.lo) * 0.07;
                    chart
                        .draw_series([Text::new(
                            format!("n={}", xs.len()),
                            (x0, above),
                            ("sans-serif", 11).into_font().color(&BLACK),
                        )])
                        .map_err(plot_err)?;
                }
            }
        }
        let entries: Vec<LegendEntry> = impls
            .iter()
            .zip(&palette)
            .map(|(i, c)| LegendEntry {
                name: i.to_string(),
                color: *c,
                dashed: false,
            })
            .collect();
        let note = if few {
            "box: quartiles, whiskers:\nmin..max, dots: runs.\nHollow: fewer than 3\nruns, not to be trusted."
        } else {
            "box: quartiles, whiskers:\nmin..max, dots: runs."
        };
        legend(&side, &entries, note)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Some(Chart {
        name: format!("bars-{workload}"),
        title,
        svg,
    }))
}

/// One sweep's points for one implementation and variant: (x, y, runs) in value units.
struct Line {
    imp: Impl,
    variant: String,
    points: Vec<(f64, f64, usize)>,
}

fn sweep_lines(results: &SuiteResults, sweep: &Sweep) -> Vec<Line> {
    let points_of = |s: &&ScenarioResult| s.scenario.sweeps.contains(&sweep.name);
    let groups: Vec<&ScenarioResult> = results.scenarios.iter().filter(points_of).collect();
    let mut lines = Vec::new();
    for imp in implementations(&groups) {
        for variant in &sweep.variants {
            let mut points: Vec<(f64, f64, usize)> = groups
                .iter()
                .filter(|s| &s.scenario.variant == variant)
                .filter_map(|s| {
                    let x = s.scenario.params.get(&sweep.param).ok()? as f64;
                    let st = s.impls.iter().find(|r| r.imp == imp)?.stats?;
                    let y = match sweep.metric {
                        Metric::TimeMs => st.time.median,
                        Metric::RssMb => st.rss_median_kb / 1024.0,
                    };
                    Some((x, y, st.time.n))
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !points.is_empty() {
                lines.push(Line {
                    imp: imp.clone(),
                    variant: variant.clone(),
                    points,
                });
            }
        }
    }
    lines
}

/// The sweep's line chart: the metric's median against the swept parameter, one line per
/// implementation (and variant, dashed for the second). A log x axis is drawn as log10 on a
/// linear axis with ticks at the swept values. `None` when nothing was measured.
pub fn sweep_chart(results: &SuiteResults, sweep: &Sweep) -> Result<Option<Chart>> {
    let lines = sweep_lines(results, sweep);
    if lines.is_empty() {
        return Ok(None);
    }
    let to_x = |v: f64| if sweep.log_x { v.log10() } else { v };
    let xs: Vec<f64> = sweep.values.iter().map(|v| to_x(*v as f64)).collect();
    let (x_lo, x_hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    let pad = ((x_hi - x_lo) * 0.06).max(0.25);
    let (min, max) = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let y = YScale::for_range(min, max);
    let y_desc = match (sweep.metric, y.log) {
        (Metric::TimeMs, false) => "median wall time",
        (Metric::TimeMs, true) => "median wall time (log scale)",
        (Metric::RssMb, false) => "median peak RSS (MiB)",
        (Metric::RssMb, true) => "median peak RSS (MiB, log scale)",
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plot, side) = root.split_horizontally(SIZE.0 - LEGEND_W);
        let mut chart = ChartBuilder::on(&plot)
            .caption(&sweep.title, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                TickedAxis::new((x_lo - pad)..(x_hi + pad), xs.clone()),
                y.axis(),
            )
            .map_err(plot_err)?;
        let x_label = |x: &f64| format::count(if sweep.log_x { 10f64.powf(*x) } else { *x });
        let y_label = |v: &f64| match sweep.metric {
            Metric::TimeMs => format::duration_ms(y.from_axis(*v)),
            Metric::RssMb => format!("{:.0}", y.from_axis(*v)),
        };
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .x_desc(sweep.param.as_str())
            .y_desc(y_desc)
            .draw()
            .map_err(plot_err)?;
        let mut entries = Vec::new();
        let mut few = false;
        let mut impls: Vec<Impl> = lines.iter().map(|l| l.imp.clone()).collect();
        impls.dedup();
        let palette = colors(&impls);
        for line in &lines {
            let c = palette[impls.iter().position(|i| *i == line.imp).unwrap_or(0)];
            let pts: Vec<(f64, f64)> = line
                .points
                .iter()
                .map(|(x, v, _)| (to_x(*x), y.to_axis(*v)))
                .collect();
            let style = c.stroke_width(2);
            let dashed = sweep.variants.iter().position(|v| *v == line.variant) == Some(1);
            if dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))
                    .map_err(plot_err)?;
            } else {
                chart
                    .draw_series(LineSeries::new(pts.clone(), style))
                    .map_err(plot_err)?;
            }
            // A point from fewer than 3 runs is hollow.
            for (p, (_, _, n)) in pts.iter().zip(&line.points) {
                let thin = *n < MIN_SAMPLES;
                few |= thin;
                let mark = if thin { c.stroke_width(2) } else { c.filled() };
                chart
                    .draw_series([Circle::new(*p, 4, mark)])
                    .map_err(plot_err)?;
            }
            entries.push(LegendEntry {
                name: if sweep.variants.len() > 1 {
                    format!("{} {}", line.imp, line.variant)
                } else {
                    line.imp.to_string()
                },
                color: c,
                dashed,
            });
        }
        let note = if few {
            "points: medians.\nHollow: fewer than 3\nruns, not to be trusted."
        } else {
            "points: medians."
        };
        legend(&side, &entries, note)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Some(Chart {
        name: format!("sweep-{}", sweep.name),
        title: sweep.title.clone(),
        svg,
    }))
}

/// Every chart of a suite: the workloads' charts in catalog order, then the sweeps.
pub fn all(results: &SuiteResults) -> Result<Vec<Chart>> {
    let mut charts = Vec::new();
    for w in results.workloads() {
        charts.extend(workload_chart(results, w)?);
    }
    for sweep in &results.sweeps {
        charts.extend(sweep_chart(results, sweep)?);
    }
    Ok(charts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_turns_logarithmic_when_one_value_dwarfs_the_others() {
        let lin = YScale::for_range(10.0, 150.0);
        assert!(!lin.log);
        assert_eq!(lin.to_axis(42.0), 42.0);
        let log = YScale::for_range(10.0, 49_000.0);
        assert!(log.log);
        assert!((log.to_axis(1000.0) - 3.0).abs() < 1e-12);
        assert!((log.from_axis(2.0) - 100.0).abs() < 1e-9);
        // A zero (nothing measured) never asks for a log axis.
        assert!(!YScale::for_range(0.0, 100.0).log);
    }

    #[test]
    fn ticks_are_round_and_inside_the_axis() {
        let log = YScale::for_range(10.0, 49_000.0);
        let values: Vec<f64> = log.ticks().iter().map(|t| log.from_axis(*t)).collect();
        assert!(
            values.iter().any(|v| (v - 100.0).abs() < 1e-6),
            "{values:?}"
        );
        assert!(values
            .iter()
            .all(|v| *v >= 10.0 / 1.5 && *v <= 49_000.0 * 1.5));
        let lin = YScale::for_range(1.0, 9.0);
        assert_eq!(lin.ticks().first(), Some(&0.0));
        let steps: Vec<f64> = lin.ticks().windows(2).map(|w| w[1] - w[0]).collect();
        assert!(steps
            .iter()
            .all(|s| (s - steps[0]).abs() < 1e-9 && *s > 0.0));
    }

    #[test]
    fn styles_are_distinct_shades_of_their_base() {
        let impls = [
            Impl::mote(),
            Impl::tokio(),
            Impl::tokio().with_style("bounded"),
            Impl::tokio().with_style("reply_channel"),
        ];
        let c = colors(&impls);
        let (tokio, a, b) = (c[1], c[2], c[3]);
        assert!(a != tokio && b != tokio && a != b, "{c:?}");
        for s in [a, b] {
            assert!(s.0 >= tokio.0 && s.1 >= tokio.1 && s.2 >= tokio.2);
        }
        assert_ne!(c[0], tokio);
        // A base keeps its colour whatever else is in the chart.
        assert_eq!(colors(&[Impl::tokio()])[0], tokio);
    }
}
