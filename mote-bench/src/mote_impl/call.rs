//! `call`: a client process makes R synchronous calls to a `mote::server` server (the OTP
//! layer's call: a reply slot watched for the server's exit, with a timeout), then reports to
//! main.
//!
//! The optional `callers` parameter (`--param callers=k`, k > 1) splits the R calls over k
//! client processes calling the one server at once (each makes R/k or R/k + 1 of them and
//! reports its own count); the server then holds an exit watch per outstanding call, so this
//! measures how a call's cost scales with concurrent callers. The run reports `callers=<k>`
//! as an extra figure.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::common::shares;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::server::{self, Context, Next, ReplyTo, Server};
use mote::Process;
use std::time::{Duration, Instant};

/// Replies `i + 1` to a call with `i`.
struct Increment;

impl Server for Increment {
    type Call = u64;
    type Reply = u64;
    type Cast = ();
    type Info = ();

    async fn handle_call(&mut self, i: u64, from: ReplyTo<u64>, _ctx: &mut Context<Self>) -> Next {
        from.reply(i + 1);
        Next::Continue
    }
}

/// Every call's timeout: long enough never to fire, so each call pays for a live timer as
/// a real caller's does.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `call`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("call", variant));
    }
    let r = p.get("r")?;
    // Not in the contract's table: absent means the contract's one client.
    let callers = p.get("callers").unwrap_or(1).max(1);
    let outcome = run_main(move |mut main: Process<(u64, u64)>| async move {
        let start = Instant::now();
        let server = server::start(Increment).await?;
        let report = main.pid();
        for share in shares(r, callers) {
            mote::spawn(move |_client: Process<()>| async move {
                let (mut calls, mut wrong) = (0u64, 0u64);
                for i in share {
                    match server.call(i, TIMEOUT).await {
                        Ok(v) => wrong += u64::from(v != i + 1),
                        Err(_) => break,
                    }
                    calls += 1;
                }
                report.send((calls, wrong));
            });
        }
        let (mut calls, mut wrong) = (0u64, 0u64);
        for _ in 0..callers {
            let (c, w) = main.recv().await;
            calls += c;
            wrong += w;
        }
        let wall_ms = ms_since(start);
        server.stop(mote::ExitReason::Normal, TIMEOUT).await?;
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
