//! The workload catalog: one line per workload, in the order of the contract's table (also
//! the suite's order). A workload's parameters, sizes, variants and check live in its own
//! folder under `workloads/`; this list is the only other place that names it.

use crate::workloads::spec::usage;
use crate::workloads::{self as w, Entry};
use anyhow::Result;

/// Every workload, in contract order.
pub static WORKLOADS: &[Entry] = &[
    Entry::of::<w::chain::Chain>(),
    Entry::of::<w::million::Million>(),
    Entry::of::<w::spawn::Spawn>(),
    Entry::of::<w::pingpong::Pingpong>(),
    Entry::of::<w::ring::Ring>(),
    Entry::of::<w::skynet::Skynet>(),
    Entry::of::<w::fanin::Fanin>(),
    Entry::of::<w::call::Call>(),
    Entry::of::<w::parsum::Parsum>(),
    Entry::of::<w::copy::Copy>(),
    Entry::of::<w::workers::Workers>(),
];

/// Looks a workload up by name.
pub fn find(name: &str) -> Option<&'static Entry> {
    WORKLOADS.iter().find(|w| w.spec.name == name)
}

/// Looks a workload up, as a [`crate::workloads::spec::UsageError`] when it is unknown.
pub fn lookup(name: &str) -> Result<&'static Entry> {
    find(name).ok_or_else(|| {
        let known: Vec<_> = WORKLOADS.iter().map(|w| w.spec.name).collect();
        usage(format!(
            "unknown workload '{name}' (workloads: {})",
            known.join(", ")
        ))
    })
}
