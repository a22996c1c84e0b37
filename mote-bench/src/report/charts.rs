//! SVG charts drawn with plotters' SVG backend into strings: a bar chart per workload and a
//! line chart per sweep. The same strings are inlined in the HTML and written as `.svg` files.

use super::axis::TickedAxis;
use super::format;
use crate::impls::Impl;
use crate::suite::model::{Metric, ScenarioResult, SuiteResults, Sweep};
use anyhow::{anyhow, Result};
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

const SIZE: (u32, u32) = (760, 380);

/// Series colour of an implementation (fixed, so every chart reads alike).
pub fn color(imp: Impl) -> RGBColor {
    match imp {
        Impl::Mote => RGBColor(0xd9, 0x5f, 0x02),
        Impl::Tokio => RGBColor(0x1f, 0x77, 0xb4),
        Impl::Go => RGBColor(0x1b, 0x9e, 0x77),
        Impl::Elixir => RGBColor(0x75, 0x50, 0xb7),
        Impl::ElixirTuned => RGBColor(0xb3, 0x9d, 0xdb),
    }
}

/// Plotters' drawing errors borrow nothing but are generic over the backend; flatten them.
fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// A bar per implementation and base scenario of `workload`: the median, with a whisker from
/// the fastest to the slowest run. `None` when no implementation has statistics.
pub fn workload_bars(results: &SuiteResults, workload: &str) -> Result<Option<Chart>> {
    let groups: Vec<&ScenarioResult> = results
        .scenarios
        .iter()
        .filter(|s| s.scenario.base && s.scenario.workload == workload)
        .collect();
    let impls: Vec<Impl> = Impl::ALL
        .into_iter()
        .filter(|i| {
            groups
                .iter()
                .any(|g| g.impls.iter().any(|r| r.imp == *i && r.stats.is_some()))
        })
        .collect();
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
    let y_max = groups
        .iter()
        .flat_map(|g| g.impls.iter().filter_map(|r| r.stats.map(|s| s.time.max)))
        .fold(0.0, f64::max)
        * 1.12;
    let title = format!("{workload}: median wall time per implementation (whiskers: min..max)");
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let n = groups.len() as f64;
        let centers: Vec<f64> = (0..groups.len()).map(|i| i as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(&title, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(70)
            .build_cartesian_2d(TickedAxis::new(0.0..n, centers), 0.0..y_max.max(1e-3))
            .map_err(plot_err)?;
        let label_of = |x: &f64| labels.get(x.floor() as usize).cloned().unwrap_or_default();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_label_formatter(&label_of)
            .y_label_formatter(&|y| format::duration_ms(*y))
            .y_desc("wall time")
            .draw()
            .map_err(plot_err)?;
        let slot = 0.8 / impls.len() as f64;
        for (j, &imp) in impls.iter().enumerate() {
            let c = color(imp);
            let mut bars = Vec::new();
            let mut whiskers = Vec::new();
            for (i, g) in groups.iter().enumerate() {
                let Some(s) = g.impls.iter().find(|r| r.imp == imp).and_then(|r| r.stats) else {
                    continue;
                };
                let x0 = i as f64 + 0.1 + j as f64 * slot;
                let (x1, mid) = (x0 + slot * 0.85, x0 + slot * 0.425);
                bars.push(Rectangle::new([(x0, 0.0), (x1, s.time.median)], c.filled()));
                let cap = slot * 0.15;
                whiskers.push(PathElement::new(
                    vec![(mid, s.time.min), (mid, s.time.max)],
                    BLACK,
                ));
                for y in [s.time.min, s.time.max] {
                    whiskers.push(PathElement::new(
                        vec![(mid - cap, y), (mid + cap, y)],
                        BLACK,
                    ));
                }
            }
            chart
                .draw_series(bars)
                .map_err(plot_err)?
                .label(imp.name())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
            chart.draw_series(whiskers).map_err(plot_err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Some(Chart {
        name: format!("bars-{workload}"),
        title,
        svg,
    }))
}

/// One sweep's points for one implementation and variant: (x, y) in axis units.
struct Line {
    imp: Impl,
    variant: String,
    points: Vec<(f64, f64)>,
}

fn sweep_lines(results: &SuiteResults, sweep: &Sweep) -> Vec<Line> {
    let mut lines = Vec::new();
    for imp in Impl::ALL {
        for variant in &sweep.variants {
            let mut points: Vec<(f64, f64)> = results
                .scenarios
                .iter()
                .filter(|s| {
                    s.scenario.sweeps.contains(&sweep.name) && &s.scenario.variant == variant
                })
                .filter_map(|s| {
                    let x = s.scenario.params.get(&sweep.param).ok()? as f64;
                    let st = s.impls.iter().find(|r| r.imp == imp)?.stats?;
                    let y = match sweep.metric {
                        Metric::TimeMs => st.time.median,
                        Metric::RssMb => st.rss_median_kb / 1024.0,
                    };
                    Some((x, y))
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !points.is_empty() {
                lines.push(Line {
                    imp,
                    variant: variant.clone(),
                    points,
                });
            }
        }
    }
    lines
}

/// The sweep's line chart: the metric against the swept parameter, one line per implementation
/// (and variant, dashed for the second). A log x axis is drawn as log10 on a linear axis with
/// ticks at the swept values. `None` when nothing was measured.
pub fn sweep_chart(results: &SuiteResults, sweep: &Sweep) -> Result<Option<Chart>> {
    let lines = sweep_lines(results, sweep);
    if lines.is_empty() {
        return Ok(None);
    }
    let to_axis = |v: f64| if sweep.log_x { v.log10() } else { v };
    let xs: Vec<f64> = sweep.values.iter().map(|v| to_axis(*v as f64)).collect();
    let (x_lo, x_hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    let pad = ((x_hi - x_lo) * 0.06).max(0.25);
    let y_max = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        * 1.12;
    let y_desc = match sweep.metric {
        Metric::TimeMs => "median wall time",
        Metric::RssMb => "median peak RSS (MB)",
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&sweep.title, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                TickedAxis::new((x_lo - pad)..(x_hi + pad), xs.clone()),
                0.0..y_max.max(1e-3),
            )
            .map_err(plot_err)?;
        let x_label = |x: &f64| format::count(if sweep.log_x { 10f64.powf(*x) } else { *x });
        let y_label = |y: &f64| match sweep.metric {
            Metric::TimeMs => format::duration_ms(*y),
            Metric::RssMb => format!("{y:.0}"),
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
        for line in &lines {
            let c = color(line.imp);
            let pts: Vec<(f64, f64)> = line.points.iter().map(|(x, y)| (to_axis(*x), *y)).collect();
            let style = c.stroke_width(2);
            let name = if sweep.variants.len() > 1 {
                format!("{} {}", line.imp, line.variant)
            } else {
                line.imp.to_string()
            };
            let dashed = sweep.variants.iter().position(|v| *v == line.variant) == Some(1);
            let anno = if dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))
                    .map_err(plot_err)?
            } else {
                chart
                    .draw_series(LineSeries::new(pts.clone(), style))
                    .map_err(plot_err)?
            };
            // The legend sample is dashed like its line (a 16 px dash is a solid sample).
            let (dash, gap) = if dashed { (4, 3) } else { (16, 1) };
            anno.label(name).legend(move |(x, y)| {
                DashedPathElement::new(vec![(x, y), (x + 16, y)], dash, gap, c.stroke_width(2))
            });
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled())))
                .map_err(plot_err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Some(Chart {
        name: format!("sweep-{}", sweep.name),
        title: sweep.title.clone(),
        svg,
    }))
}

/// Every chart of a suite: the workloads' bar charts in catalog order, then the sweeps.
pub fn all(results: &SuiteResults) -> Result<Vec<Chart>> {
    let mut charts = Vec::new();
    for w in results.workloads() {
        charts.extend(workload_bars(results, w)?);
    }
    for sweep in &results.sweeps {
        charts.extend(sweep_chart(results, sweep)?);
    }
    Ok(charts)
}
