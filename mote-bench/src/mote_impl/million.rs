//! `million`: K processes each blocked in a receive, then woken once and replying to main.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

/// Runs `million`; reports `spawn_ms`, the time until all K processes are spawned.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("million", variant));
    }
    let k = p.get_usize("k")?;
    run_main(move |mut main: Process<()>| async move {
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
        let mut replies = 0usize;
        while replies < k {
            main.recv().await;
            replies += 1;
        }
        let wall_ms = ms_since(start);
        check(replies == k, || {
            format!("million: {replies} replies, expected {k}")
        })?;
        Ok(Outcome::new(wall_ms).with_extra("spawn_ms", format!("{spawn_ms:.3}")))
    })
}
