//! `call`: a client task makes R synchronous calls to a server task (request over mpsc, reply
//! over a fresh `oneshot`), then reports to main.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use std::time::Instant;
use tokio::sync::{mpsc::unbounded_channel, oneshot};

/// A request to the server: the value and where to send the reply.
type Request = (u64, oneshot::Sender<u64>);

/// Runs `call`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("call", variant));
    }
    let r = p.get("r")?;
    run_main(async move {
        let start = Instant::now();
        let (server, mut requests) = unbounded_channel::<Request>();
        tokio::spawn(async move {
            while let Some((i, reply)) = requests.recv().await {
                let _ = reply.send(i + 1);
            }
        });
        let (report_tx, report_rx) = oneshot::channel::<(u64, u64)>();
        tokio::spawn(async move {
            let (mut calls, mut wrong) = (0u64, 0u64);
            for i in 0..r {
                let (reply_tx, reply_rx) = oneshot::channel();
                if server.send((i, reply_tx)).is_err() {
                    break;
                }
                match reply_rx.await {
                    Ok(v) => wrong += u64::from(v != i + 1),
                    Err(_) => break,
                }
                calls += 1;
            }
            let _ = report_tx.send((calls, wrong));
        });
        let (calls, wrong) = report_rx.await.map_err(|_| closed("call client"))?;
        let wall_ms = ms_since(start);
        check(calls == r && wrong == 0, || {
            format!("call: {calls} calls of {r}, {wrong} replies != request + 1")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
