//! The subcommands' entry points; each returns the process exit status.

pub mod compare;
pub mod list;
pub mod remote;
pub mod report;
pub mod run;
pub mod suite;
