//! `fanin` on tokio: the senders share clones of one unbounded channel; the receiver reports
//! over a `oneshot`.

use super::{FanIn, Tally};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::closed;
use crate::workloads::{Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc::unbounded_channel, oneshot};

impl FanIn for Tokio {
    fn fan_in(&self, s: u64, n: u64) -> Result<Measured<Tally>> {
        let per_sender = n / s;
        self.main(async move {
            let start = Instant::now();
            let (to_receiver, mut rx) = unbounded_channel::<u64>();
            let (report_tx, report_rx) = oneshot::channel::<Tally>();
            tokio::spawn(async move {
                let (mut count, mut sum) = (0u64, 0u64);
                while count < n {
                    match rx.recv().await {
                        Some(v) => {
                            count += 1;
                            sum += v;
                        }
                        None => break,
                    }
                }
                let _ = report_tx.send(Tally { count, sum });
            });
            for _ in 0..s {
                let tx = to_receiver.clone();
                tokio::spawn(async move {
                    for _ in 0..per_sender {
                        if tx.send(1).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(to_receiver);
            let tally = report_rx.await.map_err(|_| closed("fanin receiver"))?;
            Ok(Measured::new(ms_since(start), tally))
        })
    }
}
