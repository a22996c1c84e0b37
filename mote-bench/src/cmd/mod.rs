//! The subcommands' entry points; each returns the process exit status.

pub mod compare;
pub mod list;
#[cfg(feature = "remote")]
pub mod remote;
pub mod report;
pub mod run;
pub mod suite;
