//! mote-bench: the benchmark harness that reproduces the seeds' experiments side by side on
//! mote, raw tokio, Go and the BEAM (contract: `docs/workloads.md`).
//!
//! Layout: [`catalog`] holds the contract's table; [`tokio_impl`] and [`mote_impl`] implement
//! the workloads in-process; [`suite`] plans and runs the scenarios as child processes
//! ([`child`], [`rusage`], [`peers`]); [`stats`] summarises; [`report`] writes the console
//! table, JSON, HTML and SVG; [`cmd`] holds the subcommands behind [`cli`].

pub mod catalog;
pub mod child;
pub mod cli;
pub mod cmd;
pub mod common;
pub mod impls;
pub mod machine;
pub mod mote_impl;
pub mod outcome;
pub mod params;
pub mod peers;
pub mod report;
pub mod result_line;
pub mod rusage;
pub mod shared;
pub mod stats;
pub mod suite;
pub mod tokio_impl;
