//! `million` on mote.

use super::WakeAll;
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

impl WakeAll for Mote {
    fn wake_all(&self, k: usize) -> Result<Measured<u64>> {
        mote_main(move |mut main: Process<()>| async move {
            let start = Instant::now();
            let done = main.pid();
            let pids: Vec<Pid<()>> = (0..k)
                .map(|_| {
                    mote::spawn(move |mut idle: Process<()>| async move {
                        idle.recv().await;
                        done.send(());
                    })
                })
                .collect();
            let spawn_ms = ms_since(start);
            for pid in &pids {
                pid.send(());
            }
            let mut replies = 0u64;
            while replies < k as u64 {
                main.recv().await;
                replies += 1;
            }
            Ok(Measured::new(ms_since(start), replies)
                .with_extra("spawn_ms", format!("{spawn_ms:.3}")))
        })
    }
}
