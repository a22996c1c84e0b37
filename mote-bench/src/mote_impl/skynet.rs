//! `skynet`: a tree of processes with fan-out 10; leaves reply their offset, inner nodes sum
//! their children's replies.

use super::{bad_variant, run_main};
use crate::catalog::NO_VARIANT;
use crate::outcome::{check, ms_since, Outcome};
use crate::params::Params;
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

const FAN_OUT: u64 = 10;

/// Runs `skynet`.
pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    if variant != NO_VARIANT {
        return Err(bad_variant("skynet", variant));
    }
    let l = p.get("l")?;
    run_main(move |mut main: Process<u64>| async move {
        let start = Instant::now();
        spawn_node(0, l, main.pid());
        let sum = main.recv().await;
        let wall_ms = ms_since(start);
        let expect = l * (l - 1) / 2;
        check(sum == expect, || {
            format!("skynet: sum {sum}, expected {expect}")
        })?;
        Ok(Outcome::new(wall_ms))
    })
}

/// Spawns the node covering leaves `[off, off + size)`. A plain function that spawns (rather
/// than a recursive `async fn`) keeps the future type finite without boxing.
fn spawn_node(off: u64, size: u64, parent: Pid<u64>) {
    mote::spawn(move |mut node: Process<u64>| async move {
        if size == 1 {
            parent.send(off);
            return;
        }
        let me = node.pid();
        let child = size / FAN_OUT;
        for i in 0..FAN_OUT {
            spawn_node(off + i * child, child, me);
        }
        let mut sum = 0;
        for _ in 0..FAN_OUT {
            sum += node.recv().await;
        }
        parent.send(sum);
    });
}
