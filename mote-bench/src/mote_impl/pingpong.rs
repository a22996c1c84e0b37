//! `pingpong`: R round trips between two processes A and B; A reports to main.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// What A tells main: trips made and replies that differed from their request.
struct Report {
    trips: u64,
    mismatches: u64,
}

/// A ping: the value and who to send it back to (Erlang's `B ! {self(), I}`).
type Ping = (u64, Pid<u64>);

/// Runs `pingpong`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("pingpong", variant));
    }
    let r = p.get("r")?;
    run_main(move |mut main: Process<Report>| async move {
        let start = Instant::now();
        let report_to = main.pid();
        // B: echo R pings back to their sender, then end.
        let b = mote::spawn(move |mut b: Process<Ping>| async move {
            for _ in 0..r {
                let (i, from) = b.recv().await;
                from.send(i);
            }
        });
        // A: R round trips, then a report to main.
        mote::spawn(move |mut a: Process<u64>| async move {
            let me = a.pid();
            let mut report = Report {
                trips: 0,
                mismatches: 0,
            };
            for i in 0..r {
                b.send((i, me));
                let v = a.recv().await;
                report.mismatches += u64::from(v != i);
                report.trips += 1;
            }
            report_to.send(report);
        });
        let report = main.recv().await;
        let wall_ms = ms_since(start);
        check(report.trips == r && report.mismatches == 0, || {
            format!(
                "pingpong: {} trips of {r}, {} replies differ from their request",
                report.trips, report.mismatches
            )
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
