//! `chain` on mote: the chain is built from its tail (main) to its head, since a process's
//! `Pid` exists only once it is spawned.

use super::{Received, Relay};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

impl Relay for Mote {
    fn relay<T: Send + 'static>(
        &self,
        m: usize,
        n: u64,
        mut make: impl FnMut(u64) -> T + Send + 'static,
        fold: impl Fn(&T) -> u64 + Send + 'static,
    ) -> Result<Measured<Received>> {
        mote_main(move |mut main: Process<T>| async move {
            let start = Instant::now();
            let mut next: Pid<T> = main.pid();
            for _ in 0..m {
                let to = next;
                next = mote::spawn(move |mut relay: Process<T>| async move {
                    // Exactly n messages pass through every relay; then it ends.
                    for _ in 0..n {
                        to.send(relay.recv().await);
                    }
                });
            }
            let head = next;
            for i in 0..n {
                head.send(make(i));
            }
            let (mut count, mut folded) = (0u64, 0u64);
            while count < n {
                let msg = main.recv().await;
                folded += fold(&msg);
                count += 1;
            }
            Ok(Measured::new(ms_since(start), Received { count, folded }))
        })
    }
}
