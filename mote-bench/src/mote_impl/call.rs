//! `call`: a client process makes R synchronous calls to a server process (the request
//! carries the client's `Pid`, the reply comes back into the client's mailbox), then reports
//! to main.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// What the server receives.
enum Request {
    /// Reply `i + 1` to the caller.
    Call(u64, Pid<u64>),
    /// No more calls: end.
    Stop,
}

/// Runs `call`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("call", variant));
    }
    let r = p.get("r")?;
    run_main(move |mut main: Process<(u64, u64)>| async move {
        let start = Instant::now();
        let server = mote::spawn(|mut s: Process<Request>| async move {
            while let Request::Call(i, from) = s.recv().await {
                from.send(i + 1);
            }
        });
        let report = main.pid();
        mote::spawn(move |mut client: Process<u64>| async move {
            let me = client.pid();
            let (mut calls, mut wrong) = (0u64, 0u64);
            for i in 0..r {
                server.send(Request::Call(i, me));
                let v = client.recv().await;
                wrong += u64::from(v != i + 1);
                calls += 1;
            }
            server.send(Request::Stop);
            report.send((calls, wrong));
        });
        let (calls, wrong) = main.recv().await;
        let wall_ms = ms_since(start);
        check(calls == r && wrong == 0, || {
            format!("call: {calls} calls of {r}, {wrong} replies != request + 1")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
