//! [`TaskError`]: why a task gave no value.

use crate::process::spawn::SpawnError;
use crate::values::exit::ExitReason;

/// Why awaiting a [`Task`](crate::task::Task) gave no value.
///
/// ```
/// use mote::task::{self, TaskError};
/// use mote::ExitReason;
///
/// async fn crash() -> u32 { panic!("boom") }
///
/// mote::run(|_p: mote::Process<()>| async {
///     let err = task::spawn(crash()).await.unwrap_err();
///     assert_eq!(err, TaskError::Exit(ExitReason::Panic("boom".into())));
///     assert_eq!(err.to_string(), r#"the task exited: {panic,<<"boom">>}"#);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// The task's process ended without producing its value: it panicked, was killed or
    /// shut down, or ended through an exit signal (a linked process's crash, say). Carries
    /// its exit reason.
    #[error("the task exited: {0}")]
    Exit(ExitReason),
    /// The task did not finish in time.
    #[error("the task timed out")]
    Timeout,
    /// The task's result was already taken (by an earlier await or
    /// [`Task::yield_timeout`](crate::task::Task::yield_timeout)).
    #[error("the task's result was already taken")]
    AlreadyTaken,
    /// The task's process could not be spawned.
    #[error("the task could not be spawned: {0}")]
    Spawn(#[from] SpawnError),
}
