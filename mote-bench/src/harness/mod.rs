//! The measuring machinery that does not depend on any workload: parameters, the RESULT
//! line, running a child process and reading its peak RSS, the machine's description and
//! how far apart its cores are, statistics, and the Ctrl-C flag.

pub mod bootstrap;
pub mod callgrind;
pub mod child;
pub mod core_distance;
pub mod interrupt;
pub mod machine;
pub mod outcome;
pub mod params;
pub mod result_line;
pub mod rusage;
pub mod stats;
