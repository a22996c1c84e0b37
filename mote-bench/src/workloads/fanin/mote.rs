//! `fanin` on mote.

use super::{FanIn, Tally};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::Process;
use std::time::Instant;

impl FanIn for Mote {
    fn fan_in(&self, s: u64, n: u64) -> Result<Measured<Tally>> {
        let per_sender = n / s;
        mote_main(move |mut main: Process<Tally>| async move {
            let start = Instant::now();
            let report = main.pid();
            let receiver = mote::spawn(move |mut rx: Process<u64>| async move {
                let (mut count, mut sum) = (0u64, 0u64);
                while count < n {
                    sum += rx.recv().await;
                    count += 1;
                }
                report.send(Tally { count, sum });
            });
            for _ in 0..s {
                mote::spawn(move |_sender: Process<()>| async move {
                    for _ in 0..per_sender {
                        receiver.send(1);
                    }
                });
            }
            let tally = main.recv().await;
            Ok(Measured::new(ms_since(start), tally))
        })
    }
}
