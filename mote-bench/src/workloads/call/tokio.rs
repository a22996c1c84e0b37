//! `call` on tokio: the server is a task reading requests from an `mpsc` channel.
//!
//! The default sends each request over an unbounded channel with a fresh `oneshot` for the
//! reply (tokio's documented request/response pattern). Styles: `reply_channel`, each client
//! keeps one unbounded reply channel and sends a clone of its sender with every request (as
//! the Go peer reuses one reply channel); `bounded`, requests over `mpsc::channel(callers)`
//! (every client has at most one request in flight, so a sender never waits for room);
//! `current_thread`, the default program on one thread.

use super::{Serve, Tally};
use crate::harness::outcome::ms_since;
use crate::workloads::common::shares;
use crate::workloads::runtimes::{closed, CURRENT_THREAD};
use crate::workloads::{unknown_style, Measured, Tokio};
use anyhow::Result;
use std::ops::Range;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The `reply_channel` style's name.
pub const REPLY_CHANNEL: &str = "reply_channel";
/// The `bounded` style's name.
pub const BOUNDED: &str = "bounded";

/// How requests travel.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Oneshot,
    ReplyChannel,
    Bounded,
}

impl Serve for Tokio {
    fn serve(&self, r: u64, callers: u64) -> Result<Measured<Tally>> {
        let shape = match self.style {
            None => Shape::Oneshot,
            Some(s) if s == CURRENT_THREAD.name => Shape::Oneshot,
            Some(REPLY_CHANNEL) => Shape::ReplyChannel,
            Some(BOUNDED) => Shape::Bounded,
            Some(other) => return Err(unknown_style("call", other)),
        };
        self.main(async move {
            let start = Instant::now();
            let shares = shares(r, callers);
            let reports: Vec<oneshot::Receiver<Tally>> = match shape {
                Shape::Oneshot => oneshot_calls(shares),
                Shape::ReplyChannel => reply_channel_calls(shares),
                Shape::Bounded => bounded_calls(shares, callers),
            };
            // Awaited in start order: the clock stops once every client has reported.
            let mut tally = Tally::default();
            for report in reports {
                tally.add(report.await.map_err(|_| closed("call client"))?);
            }
            Ok(Measured::new(ms_since(start), tally))
        })
    }
}

/// Spawns a client per share of the calls, each running `calls` over its share and
/// reporting its tally; returns the reports' receivers.
fn clients<F, Fut>(
    shares: impl Iterator<Item = Range<u64>>,
    calls: F,
) -> Vec<oneshot::Receiver<Tally>>
where
    F: Fn(Range<u64>) -> Fut,
    Fut: std::future::Future<Output = Tally> + Send + 'static,
{
    shares
        .map(|share| {
            let (report_tx, report_rx) = oneshot::channel();
            let client = calls(share);
            tokio::spawn(async move {
                let _ = report_tx.send(client.await);
            });
            report_rx
        })
        .collect()
}

/// Counts a reply to request `i`.
fn count(tally: &mut Tally, i: u64, reply: Option<u64>) -> bool {
    match reply {
        Some(v) => {
            tally.wrong += u64::from(v != i + 1);
            tally.calls += 1;
            true
        }
        None => false,
    }
}

fn oneshot_calls(shares: impl Iterator<Item = Range<u64>>) -> Vec<oneshot::Receiver<Tally>> {
    let (server, mut requests) = mpsc::unbounded_channel::<(u64, oneshot::Sender<u64>)>();
    tokio::spawn(async move {
        while let Some((i, reply)) = requests.recv().await {
            let _ = reply.send(i + 1);
        }
    });
    clients(shares, |share| {
        let server = server.clone();
        async move {
            let mut tally = Tally::default();
            for i in share {
                let (reply_tx, reply_rx) = oneshot::channel();
                if server.send((i, reply_tx)).is_err() || !count(&mut tally, i, reply_rx.await.ok())
                {
                    break;
                }
            }
            tally
        }
    })
}

fn reply_channel_calls(shares: impl Iterator<Item = Range<u64>>) -> Vec<oneshot::Receiver<Tally>> {
    type Request = (u64, mpsc::UnboundedSender<u64>);
    let (server, mut requests) = mpsc::unbounded_channel::<Request>();
    tokio::spawn(async move {
        while let Some((i, reply)) = requests.recv().await {
            let _ = reply.send(i + 1);
        }
    });
    clients(shares, |share| {
        let server = server.clone();
        async move {
            let mut tally = Tally::default();
            let (reply_tx, mut replies) = mpsc::unbounded_channel();
            for i in share {
                if server.send((i, reply_tx.clone())).is_err()
                    || !count(&mut tally, i, replies.recv().await)
                {
                    break;
                }
            }
            tally
        }
    })
}

fn bounded_calls(
    shares: impl Iterator<Item = Range<u64>>,
    callers: u64,
) -> Vec<oneshot::Receiver<Tally>> {
    let capacity = usize::try_from(callers).unwrap_or(usize::MAX).max(1);
    let (server, mut requests) = mpsc::channel::<(u64, oneshot::Sender<u64>)>(capacity);
    tokio::spawn(async move {
        while let Some((i, reply)) = requests.recv().await {
            let _ = reply.send(i + 1);
        }
    });
    clients(shares, |share| {
        let server = server.clone();
        async move {
            let mut tally = Tally::default();
            for i in share {
                let (reply_tx, reply_rx) = oneshot::channel();
                if server.send((i, reply_tx)).await.is_err()
                    || !count(&mut tally, i, reply_rx.await.ok())
                {
                    break;
                }
            }
            tally
        }
    })
}
