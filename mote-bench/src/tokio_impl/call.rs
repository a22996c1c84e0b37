//! `call`: a client task makes R synchronous calls to a server task (request over mpsc, reply
//! over a fresh `oneshot`), then reports to main. `callers=k` (an option, as on mote) splits
//! the R calls over k client tasks calling the one server at once, each reporting its count.

use super::{bad_variant, closed, run_main};
use crate::catalog::NO_VARIANT;
use crate::common::shares;
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
    // Not in the contract's table: absent means the contract's one client.
    let callers = p.get("callers").unwrap_or(1).max(1);
    let outcome = run_main(async move {
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
            let (report_tx, report_rx) = oneshot::channel::<(u64, u64)>();
            reports.push(report_rx);
            tokio::spawn(async move {
                let (mut calls, mut wrong) = (0u64, 0u64);
                for i in share {
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
        }
        drop(server);
        // Awaited in start order: the clock stops once every client has reported.
        let (mut calls, mut wrong) = (0u64, 0u64);
        for report in reports {
            let (c, w) = report.await.map_err(|_| closed("call client"))?;
            calls += c;
            wrong += w;
        }
        let wall_ms = ms_since(start);
        check(calls == r && wrong == 0, || {
            format!("call: {calls} calls of {r}, {wrong} replies != request + 1")
        })?;
        Ok(Outcome::new(wall_ms))
    })?;
    Ok(if callers > 1 {
        outcome.with_extra("callers", callers)
    } else {
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_caller_count_makes_all_the_calls() {
        for callers in [1, 2, 7, 100] {
            let p = Params::from_pairs([("r", 1000), ("callers", callers)]);
            let out = run(NO_VARIANT, &p).unwrap();
            let extra = out.extras.iter().find(|(k, _)| k == "callers");
            assert_eq!(extra.is_some(), callers > 1, "callers={callers}");
        }
    }
}
