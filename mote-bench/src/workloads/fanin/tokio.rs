//! `fanin` on tokio: the senders share clones of one unbounded channel; the receiver reports
//! over a `oneshot`. The `bounded` style uses `mpsc::channel(BOUND)` and `send().await`
//! (tokio's advice for back-pressure: a sender waits while the receiver is behind);
//! `current_thread` runs the default program on one thread.

use super::{FanIn, Tally};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::{closed, CURRENT_THREAD};
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The `bounded` style's name.
pub const BOUNDED: &str = "bounded";

/// The `bounded` style's channel capacity: Go's program buffers as many.
const BOUND: usize = 1024;

impl FanIn for Tokio {
    fn fan_in(&self, s: u64, n: u64) -> Result<Measured<Tally>> {
        let bounded = match self.style {
            None => false,
            Some(style) if style == CURRENT_THREAD.name => false,
            Some(BOUNDED) => true,
            Some(other) => return Err(unknown_style("fanin", other)),
        };
        let per_sender = n / s;
        self.main(async move {
            let start = Instant::now();
            let (report_tx, report_rx) = oneshot::channel::<Tally>();
            if bounded {
                fan_in_bounded(s, n, per_sender, report_tx);
            } else {
                fan_in_unbounded(s, n, per_sender, report_tx);
            }
            let tally = report_rx.await.map_err(|_| closed("fanin receiver"))?;
            Ok(Measured::new(ms_since(start), tally))
        })
    }
}

/// The default program: one unbounded channel.
fn fan_in_unbounded(s: u64, n: u64, per_sender: u64, report_tx: oneshot::Sender<Tally>) {
    let (to_receiver, rx) = mpsc::unbounded_channel::<u64>();
    spawn_receiver(n, report_tx, rx);
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
}

/// The `bounded` style: one channel of [`BOUND`] messages, senders waiting for room.
fn fan_in_bounded(s: u64, n: u64, per_sender: u64, report_tx: oneshot::Sender<Tally>) {
    let (to_receiver, rx) = mpsc::channel::<u64>(BOUND);
    spawn_receiver(n, report_tx, rx);
    for _ in 0..s {
        let tx = to_receiver.clone();
        tokio::spawn(async move {
            for _ in 0..per_sender {
                if tx.send(1).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// The receiving end of either channel.
trait Inbox: Send + 'static {
    /// The next message; `None` once every sender is gone.
    fn next(&mut self) -> impl std::future::Future<Output = Option<u64>> + Send;
}

impl Inbox for mpsc::UnboundedReceiver<u64> {
    fn next(&mut self) -> impl std::future::Future<Output = Option<u64>> + Send {
        self.recv()
    }
}

impl Inbox for mpsc::Receiver<u64> {
    fn next(&mut self) -> impl std::future::Future<Output = Option<u64>> + Send {
        self.recv()
    }
}

/// The receiver task of either channel: counts and sums `n` messages, then reports.
fn spawn_receiver(n: u64, report_tx: oneshot::Sender<Tally>, mut rx: impl Inbox) {
    tokio::spawn(async move {
        let (mut count, mut sum) = (0u64, 0u64);
        while count < n {
            match rx.next().await {
                Some(v) => {
                    count += 1;
                    sum += v;
                }
                None => break,
            }
        }
        let _ = report_tx.send(Tally { count, sum });
    });
}
