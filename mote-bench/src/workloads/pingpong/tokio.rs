//! `pingpong` on tokio: two tasks joined by a pair of unbounded channels; A reports to main
//! over a `oneshot`.

use super::{Report, Volley};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::{closed, tokio_main};
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc::unbounded_channel, oneshot};

impl Volley for Tokio {
    fn volley(&self, r: u64) -> Result<Measured<Report>> {
        tokio_main(async move {
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
            Ok(Measured::new(ms_since(start), report))
        })
    }
}
