//! `call`: a client process makes R synchronous calls to a `mote::server` server (the OTP
//! layer's call: a reply slot watched for the server's exit, with a timeout), then reports to
//! main.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
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
    run_main(move |mut main: Process<(u64, u64)>| async move {
        let start = Instant::now();
        let server = server::start(Increment).await?;
        let report = main.pid();
        mote::spawn(move |_client: Process<()>| async move {
            let (mut calls, mut wrong) = (0u64, 0u64);
            for i in 0..r {
                match server.call(i, TIMEOUT).await {
                    Ok(v) => wrong += u64::from(v != i + 1),
                    Err(_) => break,
                }
                calls += 1;
            }
            report.send((calls, wrong));
        });
        let (calls, wrong) = main.recv().await;
        let wall_ms = ms_since(start);
        server.stop(mote::ExitReason::Normal, TIMEOUT).await?;
        check(calls == r && wrong == 0, || {
            format!("call: {calls} calls of {r}, {wrong} replies != request + 1")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
