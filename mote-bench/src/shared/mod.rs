//! The runtime-independent half of workloads whose input, sequential version and answer
//! check are the same for every implementation: each runtime supplies only its parallel
//! parts, so the check cannot drift between them.

pub mod copy;
pub mod parsum;
