//! `pingpong` on mote: every ping carries the sender's `Pid` (Erlang's `B ! {self(), I}`).
//! Each pair's B is spawned before its A, which starts the exchange.

use super::{share, Report, Volley};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// A ping: the value and who to send it back to.
type Ping = (u64, Pid<u64>);

impl Volley for Mote {
    fn volley(&self, r: u64, pairs: u64) -> Result<Measured<Report>> {
        mote_main(move |mut main: Process<Report>| async move {
            let start = Instant::now();
            let report_to = main.pid();
            for k in 0..pairs {
                let trips = share(r, pairs, k);
                // B: echo its pair's pings back to their sender, then end.
                let b = mote::spawn(move |mut b: Process<Ping>| async move {
                    for _ in 0..trips {
                        let (i, from) = b.recv().await;
                        from.send(i);
                    }
                });
                // A: its pair's round trips, then a report to main.
                mote::spawn(move |mut a: Process<u64>| async move {
                    let me = a.pid();
                    let mut report = Report::default();
                    for i in 0..trips {
                        b.send((i, me));
                        let v = a.recv().await;
                        report.mismatches += u64::from(v != i);
                        report.trips += 1;
                    }
                    report_to.send(report);
                });
            }
            let mut total = Report::default();
            for _ in 0..pairs {
                total += main.recv().await;
            }
            Ok(Measured::new(ms_since(start), total))
        })
    }
}
