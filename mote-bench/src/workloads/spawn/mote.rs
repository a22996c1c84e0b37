//! `spawn` on mote.

use super::SpawnAll;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::Process;
use std::time::Instant;

impl SpawnAll for Mote {
    fn spawn_all(&self, k: u64) -> Result<Measured<u64>> {
        mote_main(move |mut main: Process<()>| async move {
            let start = Instant::now();
            let done = main.pid();
            for _ in 0..k {
                // Asynchronous spawn: the Pid is not needed, the reply is the only result.
                mote::spawn(move |_short: Process<()>| async move { done.send(()) });
            }
            let mut replies = 0u64;
            while replies < k {
                main.recv().await;
                replies += 1;
            }
            Ok(Measured::new(ms_since(start), replies))
        })
    }
}
