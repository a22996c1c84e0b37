//! mote-bench: the benchmark suite and harness that reproduces the write-ups' experiments side
//! by side on mote, raw tokio, Go and the BEAM (contract: `docs/workloads.md`).
//!
//! Layout: [`workloads`] holds one folder per workload (its spec, input, check, and the mote
//! and tokio programs); [`catalog`] lists them; [`impls`] and [`peers`] are the tables of
//! implementations and of the other runtimes' programs; [`harness`] is the workload-free
//! machinery (child processes, RESULT lines, statistics); [`suite`] plans the scenarios,
//! estimates the duration and runs them as child processes; [`report`] writes the console
//! table, JSON, HTML and SVG; [`cmd`] holds the subcommands behind [`cli`].

pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod harness;
pub mod impls;
pub mod peers;
pub mod report;
pub mod suite;
pub mod workloads;
