//! `pingpong` on tokio: two tasks joined by a pair of channels; A reports to main over a
//! `oneshot`. The default uses unbounded `mpsc` channels; the `bounded` style uses
//! `mpsc::channel(1)` (tokio's advice for back-pressure, and a strict ping-pong never has
//! more than one message in flight); `current_thread` runs the default program on one thread.
//! Each pair reports to main over its own `oneshot`.

use super::{share, Report, Volley};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::{closed, CURRENT_THREAD};
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The `bounded` style's name.
pub const BOUNDED: &str = "bounded";

impl Volley for Tokio {
    fn volley(&self, r: u64, pairs: u64) -> Result<Measured<Report>> {
        let bounded = match self.style {
            None => false,
            Some(s) if s == CURRENT_THREAD.name => false,
            Some(BOUNDED) => true,
            Some(other) => return Err(unknown_style("pingpong", other)),
        };
        self.main(async move {
            let start = Instant::now();
            let mut reports = Vec::with_capacity(pairs as usize);
            for k in 0..pairs {
                let (report_tx, report_rx) = oneshot::channel::<Report>();
                if bounded {
                    volley_bounded(share(r, pairs, k), report_tx);
                } else {
                    volley_unbounded(share(r, pairs, k), report_tx);
                }
                reports.push(report_rx);
            }
            let mut total = Report::default();
            for report_rx in reports {
                total += report_rx.await.map_err(|_| closed("pingpong A"))?;
            }
            Ok(Measured::new(ms_since(start), total))
        })
    }
}

/// Spawns B, then A, over unbounded channels.
fn volley_unbounded(r: u64, report_tx: oneshot::Sender<Report>) {
    let (to_a, mut a_rx) = mpsc::unbounded_channel::<u64>();
    let (to_b, mut b_rx) = mpsc::unbounded_channel::<u64>();
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
        let mut report = Report::default();
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
}

/// The same over `mpsc::channel(1)`.
fn volley_bounded(r: u64, report_tx: oneshot::Sender<Report>) {
    let (to_a, mut a_rx) = mpsc::channel::<u64>(1);
    let (to_b, mut b_rx) = mpsc::channel::<u64>(1);
    tokio::spawn(async move {
        while let Some(i) = b_rx.recv().await {
            if to_a.send(i).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut report = Report::default();
        for i in 0..r {
            if to_b.send(i).await.is_err() {
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
}
