//! `skynet`: a tree of processes with fan-out 10: a node covering leaves [off, off+size)
//! spawns 10 children of size/10 each, sums their replies and sends the sum to its parent; a
//! node of size 1 replies `off`. L is a power of 10.

mod mote;
mod tokio;

use super::spec::{expect, param, Spec, Style};
use super::{Measured, Mote, Tokio, Workload};
use crate::harness::outcome::check;
use crate::harness::params::Params;
use anyhow::Result;

/// The workload.
pub struct Skynet;

/// Children per inner node.
const FAN_OUT: u64 = 10;

static SPEC: Spec = Spec {
    name: "skynet",
    summary: "a tree of processes with fan-out 10 summing L leaves",
    variants: &[],
    params: &[param("l", 10_000, 100_000, 1_000_000)],
    extras: &[],
    options: &[],
    styles: &[Style {
        imp: "tokio",
        name: tokio::CHANNEL,
        summary: "children reply on an unbounded channel their parent owns instead of through \
                  their JoinHandles",
    }],
    validate: power_of_ten_leaves,
    test_sizes: &[("l", 1_000)],
    expect: &[
        expect("mote", 970.0),
        expect("tokio", 1_800.0),
        expect("go", 1_400.0),
        expect("elixir", 4_000.0),
    ],
};

fn power_of_ten_leaves(p: &Params) -> Result<()> {
    let l = p.get("l")?;
    anyhow::ensure!(is_power_of_ten(l), "skynet: l={l} is not a power of 10");
    Ok(())
}

/// True for 1, 10, 100, ...
pub fn is_power_of_ten(mut x: u64) -> bool {
    if x == 0 {
        return false;
    }
    while x % 10 == 0 {
        x /= 10;
    }
    x == 1
}

/// What a runtime supplies: the tree over `l` leaves; the answer is the root's sum.
trait SumTree {
    fn sum_tree(&self, l: u64) -> Result<Measured<u64>>;
}

impl Workload for Skynet {
    const SPEC: &'static Spec = &SPEC;
    type Answer = u64;

    fn on_mote(_variant: &str, p: &Params) -> Result<Measured<u64>> {
        Mote.sum_tree(p.get("l")?)
    }

    fn on_tokio(tokio: Tokio, _variant: &str, p: &Params) -> Result<Measured<u64>> {
        tokio.sum_tree(p.get("l")?)
    }

    fn check(_variant: &str, p: &Params, sum: &u64) -> Result<()> {
        let l = p.get("l")?;
        let expect = l * (l - 1) / 2;
        check(*sum == expect, || {
            format!("skynet: sum {sum}, expected {expect}")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_of_ten() {
        assert!(is_power_of_ten(1));
        assert!(is_power_of_ten(1_000_000));
        assert!(!is_power_of_ten(0));
        assert!(!is_power_of_ten(20));
    }
}
