//! The subcommands' entry points; each returns the process exit status.

pub mod compare;
pub mod list;
pub mod report;
pub mod run;
pub mod suite;
