//! `pingpong` on mote: every ping carries the sender's `Pid` (Erlang's `B ! {self(), I}`).

use super::{Report, Volley};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// A ping: the value and who to send it back to.
type Ping = (u64, Pid<u64>);

impl Volley for Mote {
    fn volley(&self, r: u64) -> Result<Measured<Report>> {
        mote_main(move |mut main: Process<Report>| async move {
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
            Ok(Measured::new(ms_since(start), report))
        })
    }
}
