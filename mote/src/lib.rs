//! Erlang/OTP-style lightweight processes for Rust.
//!
//! A mote *process* is an isolated async task with its own typed mailbox. Processes share
//! nothing but messages, fail alone, and watch each other through links and monitors, as on
//! the BEAM, but at Rust's cost: messages are moved, never copied (big immutable data is
//! shared through `Arc`), an idle process takes a few hundred bytes, and message passing is
//! as fast as a plain channel.
//!
//! ```
//! use mote::{Process, Pid};
//!
//! enum Ask { Double(u64, Pid<u64>), Stop }
//!
//! let answer = mote::run(|mut p: Process<u64>| async move {
//!     let server = mote::spawn(|mut s: Process<Ask>| async move {
//!         while let Ask::Double(n, reply) = s.recv().await {
//!             reply.send(n * 2);
//!         }
//!     });
//!     server.send(Ask::Double(21, p.pid()));
//!     let answer = p.recv().await;
//!     server.send(Ask::Stop);
//!     answer
//! });
//! assert_eq!(answer, Ok(42));
//! ```
//!
//! # The pieces
//!
//! * [`run`] / [`run_async`] start a root process; [`spawn`], [`Process::spawn_link`],
//!   [`Process::spawn_monitor`] start more. [`Builder`] configures the runtime.
//! * [`Pid<M>`] addresses a process whose mailbox takes `M`; [`Pid::send`] never blocks.
//! * [`Process<M>`] is a process's own handle: [`Process::recv`], selective receive with
//!   [`Process::recv_matching`], timeouts with [`Process::recv_timeout`].
//! * Failure: [`ExitReason`], [`Process::link`], [`Process::monitor`],
//!   [`Process::monitor_name`], [`Process::trap_exit`], [`exit`]. System messages ([`Down`],
//!   [`Exit`]) arrive in the same mailbox, converted into `M` with `From` (see [`Process`]).
//! * Terms: [`Term`] is an Erlang term (atoms, tuples, lists, maps, binaries, ...), compared,
//!   ordered and printed as Erlang does; exit reasons are terms.
//! * Worker pools: [`pool`] runs jobs on pre-spawned worker processes (work stealing or
//!   work pushing, bounded queues, panics and dead workers reported per job), with
//!   [`pool::Pool::map_reduce`] for chunked data.
//! * Names: [`register`], [`whereis`], [`lookup`], [`send_named`]. Timers: [`send_after`],
//!   [`start_timer`], [`read_timer`], [`cancel_timer`], [`sleep`]. Introspection: [`processes`], [`process_info`].
//! * [`metrics`]: the runtime's counters (spawns, exits by reason, messages sent, each
//!   scheduler thread's busy time and run queue) and each process's, as a snapshot.
//! * [`task`]: run a future as a process and await its value from anywhere
//!   ([`task::spawn`], [`task::Task`], [`task::await_many`]), or one task per item with
//!   bounded concurrency ([`task::async_stream`]), like Elixir's `Task` without its copies.
//! * [`pg`]: process groups (Erlang's `pg`): [`pg::join`], [`pg::leave`], [`pg::members`].
//! * [`server`]: typed servers (Erlang's `gen_server`): [`server::Server`] callbacks,
//!   [`server::ServerRef::call`] that never leaves a stray reply, casts, deferred replies.
//! * [`supervisor`]: supervision trees ([`supervisor::Supervisor`] with one-for-one,
//!   one-for-all and rest-for-one restarts and restart intensity;
//!   [`supervisor::DynamicSupervisor`] for children started on demand).
//! * [`stream`]: [`attach_stream`] turns a `Stream`'s items (a socket's lines, a channel)
//!   into messages, with its end signalled; [`Process::recv`] is cancel-safe in
//!   `tokio::select!`.
//! * [`agent`]: a process holding a state changed by closures (Elixir's `Agent`).
//! * Synchronous start: [`start`] spawns and waits for the child's [`Started::confirm`]
//!   (Erlang's `proc_lib:start`); [`spawn`] stays the asynchronous default.
//!
//! # Cargo features
//!
//! * `serde`: `Serialize`/`Deserialize` for [`ProcessId`]; `Serialize` for [`Pid`] (as its
//!   id: a typed pid is not made from data, as it could name a mailbox of another type) and
//!   for [`ExitReason`] (as its Erlang text, `{panic,<<"boom">>}`; terms have no serde form
//!   yet, so reasons do not deserialize); `Serialize` for [`ProcessInfo`] and the
//!   [`metrics`] snapshots.
//! * `metrics`: `metrics::export` publishes the runtime's counters through the `metrics`
//!   crate's facade, to whatever recorder the program installs; `metrics::spawn_exporter`
//!   does it periodically.
//!
//! # Tokio inside processes
//!
//! Processes run on mote's own scheduler threads, each of which has entered a tokio runtime,
//! so tokio sockets, timers and `tokio::spawn` work inside a process. See `docs/design.md`
//! for why processes are not tokio tasks.
//!
//! # Semantics
//!
//! mote follows the BEAM's rules for exit signals, links, monitors, the registry and
//! selective receive; each deliberate deviation is documented on the item concerned.

#![warn(missing_docs, missing_debug_implementations, rust_2018_idioms)]

// The map of the crate. `mote/src` has one folder per layer, and a layer uses only itself
// and the layers below it (`mote/tests/layers.rs` checks it, and that no two modules use
// each other), bottom to top:
//
//   otp/      the OTP behaviours: servers, supervisors, tasks, pools, agents, groups
//   process/  the public process core: pids, send, spawn, the `Process` handle, exit
//             signals, the registry, timers, introspection, the runtime's entry points
//   rt/       the internals: process table, mailboxes, scheduler, exit-signal rules,
//             timeouts, the current-process context
//   values/   plain values every layer passes around: ids, exit reasons, references
//
// A layer's modules are declared here (no `mod.rs` per layer) and the public API is
// re-exported below, so the public paths do not show the layers.

/// Plain values every layer passes around: process ids, exit reasons and the system
/// messages that carry them, monitor references, registered names, and Erlang's
/// vocabulary, the dynamic `Term`. Only data and its traits: this layer uses no other.
mod values {
    pub(crate) mod exit;
    pub(crate) mod monitor_ref;
    pub(crate) mod pid;
    pub(crate) mod posix;
    pub(crate) mod registered_name;
    #[cfg(feature = "serde")]
    pub(crate) mod serde_impls;
    pub mod term;
}

/// The internals, private to the crate: the process table and its slots, mailboxes, the
/// scheduler (which owns the runtime's globals: its threads and the tokio handle), the rules
/// of links, monitors and exit signals, timeouts, the runner that polls a process and the
/// current-process context. The lock-free and `unsafe` structures live here; the process
/// core calls their `unsafe` functions where its types uphold the contracts (a `Pid<M>`
/// names a mailbox of `M`).
mod rt {
    pub(crate) mod completion;
    pub(crate) mod crash_report;
    pub(crate) mod current;
    pub(crate) mod mailbox;
    pub(crate) mod metrics;
    pub(crate) mod outbox;
    pub(crate) mod poll_end;
    pub(crate) mod runner;
    pub(crate) mod scheduler;
    pub(crate) mod signals;
    pub(crate) mod sync;
    pub(crate) mod table;
    pub(crate) mod task;
    pub(crate) mod timeout_wheel;
    pub(crate) mod waker_id;
}

/// The public process core: what a program needs to run processes, built on `rt`. The
/// distribution crate sits on this layer: with the `dist` feature a send to a pid of
/// another node goes to the transport it installs (`dist`); links and monitors to such a
/// pid report `noproc` until remote signals exist.
mod process {
    #[cfg(feature = "dist")]
    pub mod dist;
    pub(crate) mod exit_signal;
    pub(crate) mod handle;
    pub(crate) mod info;
    pub mod metrics;
    pub(crate) mod registry;
    pub(crate) mod runtime;
    pub(crate) mod self_id;
    pub(crate) mod send;
    pub(crate) mod sleep;
    pub(crate) mod spawn;
    pub(crate) mod start;
    pub(crate) mod teardown;
    pub(crate) mod timer;
}

/// The OTP behaviours, built on the process core: each is a public module of the crate
/// (`mote::server`, `mote::supervisor`, ...), re-exported below.
mod otp {
    pub mod agent;
    pub mod pg;
    #[cfg(not(loom))] // its queues' crate does not build under `--cfg loom`
    pub mod pool;
    pub mod server;
    pub(crate) mod shutdown;
    pub mod stream;
    pub mod supervisor;
    pub mod task;
    pub mod testkit;
}

#[cfg(not(loom))]
pub use otp::pool;
pub use otp::stream::{attach_stream, AttachedStream};
pub use otp::{agent, pg, server, stream, supervisor, task, testkit};

/// Runs an `async fn` as a test in a fresh mote process, failing it if it panics, ends
/// abnormally or runs past its time limit (60 s, or `timeout = "10s"`). The function takes
/// no argument or its `Process<M>`; it may return `()` or a `Result<(), E>`. See
/// [`testkit`] for the assertions that go with it, and `mote/tests/testkit.rs` for a file of
/// such tests.
///
/// ```
/// use std::time::Duration;
/// use mote::{testkit, Process};
///
/// #[mote::test(timeout = "5s")]
/// async fn replies_arrive(mut p: Process<u32>) {
///     p.pid().send(1);
///     assert_eq!(testkit::assert_receive(&mut p, Duration::from_secs(1)).await, 1);
/// }
/// ```
pub use mote_macros::test;
#[cfg(feature = "dist")]
pub use process::dist;
pub use process::exit_signal::exit;
pub use process::handle::{Process, Recv, RecvMatching};
pub use process::info::{process_count, process_info, processes, ProcessInfo, Status};
pub use process::metrics;
pub use process::registry::{
    lookup, register, registered_name, send_named, unregister, whereis, RegistryError,
};
pub use process::runtime::{run, run_async, worker_threads, AlreadyStarted, Builder};
pub use process::self_id::self_id;
pub use process::send::{is_alive, TrySendError};
pub use process::sleep::{sleep, yield_now};
pub use process::spawn::{spawn, try_spawn, SpawnError, SpawnOptions};
pub use process::start::{start, Started};
pub use process::timer::{
    cancel_timer, cancel_timer_async, read_timer, send_after, send_after_named, start_timer,
    start_timer_named, TimerCancelled, TimerFired, TimerId, TimerRef,
};
pub use rt::signals::LinkError;
pub use values::exit::{CustomReason, Down, Exit, ExitReason, IntoExitReason, Signal};
pub use values::monitor_ref::MonitorRef;
pub use values::pid::{ParsePidError, Pid, ProcessId};
pub use values::registered_name::RegisteredName;
pub use values::term;
pub use values::term::{Atom, Term};
