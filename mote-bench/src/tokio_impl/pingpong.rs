//! `pingpong`: R round trips between two tasks A and B; A reports to main.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc::unbounded_channel, oneshot};

/// What A tells main: trips made and replies that differed from their request.
struct Report {
    trips: u64,
    mismatches: u64,
}

/// Runs `pingpong`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("pingpong", variant));
    }
    let r = p.get("r")?;
    run_main(async move {
        let start = Instant::now();
        let (to_a, mut a_rx) = unbounded_channel::<u64>();
        let (to_b, mut b_rx) = unbounded_channel::<u64>();
        let (report_tx, report_rx) = oneshot::channel::<Report>();
        // B: echo every request back to A; ends when A drops its sender.
        tokio::spawn(async move {
            while let Some(i) = b_rx.recv().await {
                if to_a.send(i).is_err() {
                    break;
                }
            }
        });
        // A: R round trips, then a report to main.
        tokio::spawn(async move {
            let mut report = Report {
                trips: 0,
                mismatches: 0,
            };
            for i in 0..r {
                if to_b.send(i).is_err() {
                    break;
                }
                match a_rx.recv().await {
                    Some(v) => report.mismatches += u64::from(v != i),
                    None => break,
                }
                report.trips += 1;
            }
            let _ = report_tx.send(report);
        });
        let report = report_rx.await.map_err(|_| closed("pingpong A"))?;
        let wall_ms = ms_since(start);
        check(report.trips == r && report.mismatches == 0, || {
            format!(
                "pingpong: {} trips of {r}, {} replies differ from their request",
                report.trips, report.mismatches
            )
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
