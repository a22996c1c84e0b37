//! `skynet` on mote.

use super::{SumTree, FAN_OUT};
use crate::harness::outcome::ms_since;
use crate::workloads::runtimes::mote_main;
use crate::workloads::{Measured, Mote};
use anyhow::Result;
use mote::{Pid, Process};
use std::time::Instant;

impl SumTree for Mote {
    fn sum_tree(&self, l: u64) -> Result<Measured<u64>> {
        mote_main(move |mut main: Process<u64>| async move {
            let start = Instant::now();
            spawn_node(0, l, main.pid());
            let sum = main.recv().await;
            Ok(Measured::new(ms_since(start), sum))
        })
    }
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
