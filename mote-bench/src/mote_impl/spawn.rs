//! `spawn`: K short-lived processes spawned one after another, each sending `done` to main.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::Process;
use std::time::Instant;

/// Runs `spawn`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("spawn", variant));
    }
    let k = p.get("k")?;
    run_main(move |mut main: Process<()>| async move {
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
        let wall_ms = ms_since(start);
        check(replies == k, || {
            format!("spawn: {replies} replies, expected {k}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}
