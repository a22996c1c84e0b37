//! Tasks: run a future as a process and await its value (Elixir's `Task`), without its
//! traps.
//!
//! [`spawn`] runs a future as a mote process and returns a [`Task<T>`], a handle to its
//! value. [`await_many`] awaits several; [`async_stream`] runs one task per item of an
//! iterator with bounded concurrency (Elixir's `Task.async_stream`).
//!
//! # What is different from Elixir's `Task`
//!
//! * **Nothing is copied.** On the BEAM, a task gets a copy of everything its closure
//!   captures and the caller gets a copy of its result, which is why running `uniq`,
//!   `frequencies` and `shuffle` over a million-element list in three tasks is *slower*
//!   than running them one after the other. Here the future's captures are moved into the
//!   task and its value is moved back; big inputs are shared through an `Arc` (one pointer
//!   copied per task).
//! * **Any process can await a task.** A [`Task`] is `Send`: move it to another process,
//!   a tokio task or a thread, and await it there. Elixir's `Task.await` only works in the
//!   process that started the task.
//! * **Crashes are reported, not propagated**, by default: [`spawn`] does not link, and a
//!   panic comes back as [`TaskError::Exit`]. [`spawn_link`] links the task to the caller,
//!   as Elixir's `Task.async` does.
//! * **Dropping a `Task` does not stop it** (see [`Task`]); [`Task::shutdown`] and
//!   [`Task::abort`] do.
//! * **The last task started runs first.** A new task waits in its thread's one-task LIFO
//!   slot, as `tokio::spawn`'s does, not at the back of the queue like a spawned process
//!   (and an Elixir task): a caller that starts tasks and then awaits them runs the last one
//!   at once on its own thread, cache-warm, while idle threads take the earlier ones. Start
//!   the longest task last when they differ in length.
//!
//! # Example: the same data, three tasks
//!
//! ```
//! use std::collections::{HashMap, HashSet};
//! use std::sync::Arc;
//! use mote::task;
//!
//! fn uniq(xs: &[u64]) -> Vec<u64> {
//!     let mut seen = HashSet::new();
//!     xs.iter().copied().filter(|x| seen.insert(*x)).collect()
//! }
//!
//! fn frequencies(xs: &[u64]) -> HashMap<u64, usize> {
//!     let mut counts = HashMap::new();
//!     for &x in xs {
//!         *counts.entry(x).or_insert(0) += 1;
//!     }
//!     counts
//! }
//!
//! fn shuffle(xs: &[u64], mut seed: u64) -> Vec<u64> {
//!     let mut out = xs.to_vec();
//!     for i in (1..out.len()).rev() {
//!         seed ^= seed << 13;
//!         seed ^= seed >> 7;
//!         seed ^= seed << 17;
//!         out.swap(i, (seed % (i as u64 + 1)) as usize);
//!     }
//!     out
//! }
//!
//! mote::run(|_p: mote::Process<()>| async {
//!     // One allocation, shared by all three tasks: each gets a pointer, not a copy.
//!     let data: Arc<[u64]> = (0..100_000u64).map(|i| i * 7_919 % 1_000).collect();
//!
//!     let uniques = task::spawn({
//!         let data = Arc::clone(&data);
//!         async move { uniq(&data) }
//!     });
//!     let counts = task::spawn({
//!         let data = Arc::clone(&data);
//!         async move { frequencies(&data) }
//!     });
//!     let shuffled = task::spawn({
//!         let data = Arc::clone(&data);
//!         async move { shuffle(&data, 0x2545_f491_4f6c_dd1d) }
//!     });
//!
//!     // The results are moved back, not copied.
//!     let (uniques, counts, shuffled) =
//!         (uniques.await.unwrap(), counts.await.unwrap(), shuffled.await.unwrap());
//!     assert_eq!(uniques.len(), 1_000);
//!     assert_eq!(counts.values().sum::<usize>(), data.len());
//!     assert_eq!(shuffled.len(), data.len());
//! })
//! .unwrap();
//! ```

mod error;
mod handle;
mod many;
mod stream;

use std::future::Future;

pub use error::TaskError;
pub use handle::Task;
pub use many::await_many;
pub use stream::{async_stream, AsyncStream, OnTimeout, StreamOptions};

use crate::process::spawn::SpawnError;

/// Runs `future` as a new process and returns the handle to its value (Elixir's
/// `Task.async`, without the link: see [`spawn_link`]).
///
/// The task is not linked to the caller: if it panics or is killed, the handle reports
/// [`TaskError::Exit`] and nothing else is affected. It works inside and outside
/// processes.
///
/// # Panics
/// If the process table is full, like [`mote::spawn`](crate::spawn).
///
/// ```
/// use mote::{task, task::TaskError, ExitReason};
///
/// async fn crash() -> u32 { panic!("boom") }
///
/// mote::run(|_p: mote::Process<()>| async {
///     assert_eq!(task::spawn(async { 2 + 2 }).await, Ok(4));
///     // The crash is reported; the caller goes on.
///     let err = task::spawn(crash()).await.unwrap_err();
///     assert_eq!(err, TaskError::Exit(ExitReason::Panic("boom".into())));
/// })
/// .unwrap();
/// ```
pub fn spawn<F>(future: F) -> Task<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match Task::try_spawn(future, false) {
        Ok(task) => task,
        Err(e) => panic!("mote::task::spawn: {e}"),
    }
}

/// Like [`spawn`], but links the task to the calling process (Elixir's `Task.async`): if
/// the task crashes, the caller gets the exit signal (it dies too, unless it traps exits,
/// in which case it receives an [`Exit`](crate::Exit) message), and if the caller dies, so
/// does the task.
///
/// # Panics
/// Outside a process (there is no caller to link to), or if the process table is full;
/// [`try_spawn_link`] reports both as errors.
///
/// ```
/// use mote::{task, Exit, ExitReason, Process};
///
/// async fn crash() -> u32 { panic!("boom") }
///
/// mote::run(|mut p: Process<Exit>| async move {
///     p.trap_exit(true);
///     let t = task::spawn_link(crash());
///     let id = t.id();
///     assert!(t.await.is_err());
///     let exit = p.recv().await;
///     assert_eq!((exit.from, exit.reason), (id, ExitReason::Panic("boom".into())));
/// })
/// .unwrap();
/// ```
pub fn spawn_link<F>(future: F) -> Task<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match try_spawn_link(future) {
        Ok(task) => task,
        Err(e) => panic!("mote::task::spawn_link: {e}"),
    }
}

/// Like [`spawn_link`], but reports a call outside any process
/// ([`SpawnError::NotInProcess`]) or a full process table as an error.
///
/// ```
/// use mote::{task, SpawnError};
/// // Outside a process there is nothing to link to.
/// let r = task::try_spawn_link(async { 1 });
/// assert_eq!(r.unwrap_err(), SpawnError::NotInProcess);
///
/// mote::run(|_p: mote::Process<()>| async {
///     let t = task::try_spawn_link(async { 1 }).unwrap();
///     assert_eq!(t.await, Ok(1));
/// })
/// .unwrap();
/// ```
pub fn try_spawn_link<F>(future: F) -> Result<Task<F::Output>, SpawnError>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Task::try_spawn(future, true)
}
