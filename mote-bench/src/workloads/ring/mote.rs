//! `ring` on mote: every member learns its successor from main before the token starts.

use super::PassToken;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// What a ring member receives.
enum Ring {
    /// Its successor, sent by main once every member exists (always the first message).
    Next(Pid<Ring>),
    /// The token with its remaining count.
    Token(u64),
    /// The ring is done: pass it on and end.
    Stop,
}

impl PassToken for Mote {
    fn pass_token(&self, t: u64, procs: usize) -> Result<Measured<usize>> {
        mote_main(move |mut main: Process<usize>| async move {
            let start = Instant::now();
            let report = main.pid();
            let ring: Vec<Pid<Ring>> = (0..procs)
                .map(|j| mote::spawn(move |me: Process<Ring>| member(me, j, report)))
                .collect();
            // Main's `Next` reaches each member before any token can: the token only leaves main
            // after every `Next` is queued.
            for (j, pid) in ring.iter().enumerate() {
                pid.send(Ring::Next(ring[(j + 1) % procs]));
            }
            ring[0].send(Ring::Token(t));
            let index = main.recv().await;
            Ok(Measured::new(ms_since(start), index))
        })
    }
}

/// Member `j`: forwards the token counted down; on 0 it reports `j` and sends `Stop` around
/// the ring, which ends every member (the stop dies quietly at the reporter, already gone).
async fn member(mut me: Process<Ring>, j: usize, report: Pid<usize>) {
    let Ring::Next(next) = me.recv().await else {
        return;
    };
    loop {
        match me.recv().await {
            Ring::Token(0) => {
                report.send(j);
                next.send(Ring::Stop);
                return;
            }
            Ring::Token(v) => next.send(Ring::Token(v - 1)),
            Ring::Stop => {
                next.send(Ring::Stop);
                return;
            }
            Ring::Next(_) => {}
        }
    }
}
