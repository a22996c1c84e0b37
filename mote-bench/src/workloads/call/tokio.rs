//! `call` on tokio: the server is a task reading requests from an unbounded `mpsc`; each
//! request carries a fresh `oneshot` for the reply.

use super::{Serve, Tally};
use crate::harness::outcome::ms_since;
use crate::workloads::common::shares;
use crate::workloads::runtimes::{closed, tokio_main};
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc::unbounded_channel, oneshot};

/// A request to the server: the value and where to send the reply.
type Request = (u64, oneshot::Sender<u64>);

impl Serve for Tokio {
    fn serve(&self, r: u64, callers: u64) -> Result<Measured<Tally>> {
        tokio_main(async move {
            let start = Instant::now();
            let (server, mut requests) = unbounded_channel::<Request>();
            tokio::spawn(async move {
                while let Some((i, reply)) = requests.recv().await {
                    let _ = reply.send(i + 1);
                }
            });
            let mut reports = Vec::with_capacity(callers as usize);
            for share in shares(r, callers) {
                let server = server.clone();
                let (report_tx, report_rx) = oneshot::channel::<Tally>();
                reports.push(report_rx);
                tokio::spawn(async move {
                    let mut tally = Tally::default();
                    for i in share {
                        let (reply_tx, reply_rx) = oneshot::channel();
                        if server.send((i, reply_tx)).is_err() {
                            break;
                        }
                        match reply_rx.await {
                            Ok(v) => tally.wrong += u64::from(v != i + 1),
                            Err(_) => break,
                        }
                        tally.calls += 1;
                    }
                    let _ = report_tx.send(tally);
                });
            }
            drop(server);
            // Awaited in start order: the clock stops once every client has reported.
            let mut tally = Tally::default();
            for report in reports {
                tally.add(report.await.map_err(|_| closed("call client"))?);
            }
            Ok(Measured::new(ms_since(start), tally))
        })
    }
}
