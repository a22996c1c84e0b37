//! Runtime and per-process metrics: a snapshot API, and (with the `metrics` feature) an
//! export through the [`metrics`](https://docs.rs/metrics) crate's facade.
//!
//! [`snapshot`] reads the runtime's counters: processes spawned and ended (by reason class),
//! messages sent, and per scheduler thread its busy time, tasks run and run-queue length.
//! [`processes`] and [`process`] read each process's own counters: messages received, polls
//! (mote's "reductions"), mailbox length and a memory estimate. Both return plain data
//! (serializable with the `serde` feature); a dashboard or a test compares two snapshots
//! to get rates.
//!
//! Counting is cheap enough to be always on: every thread counts into a shard of its own
//! with a plain load and store (no locked instruction, no cache line shared between threads),
//! a worker's busy time is measured only when it falls asleep and wakes (no clock read per
//! task), and a process's counters are the ones [`process_info`](crate::process_info)
//! already keeps. A snapshot sums the shards: reading is the costly side, as it should be.
//!
//! ```
//! use mote::{metrics, Process};
//!
//! mote::run(|mut p: Process<u32>| async move {
//!     let before = metrics::snapshot();
//!     for i in 0..10 {
//!         p.pid().send(i);
//!         p.recv().await;
//!     }
//!     let after = metrics::snapshot();
//!     assert!(after.messages_sent - before.messages_sent >= 10);
//!     assert!(after.processes >= 1 && !after.workers.is_empty());
//!     // A process's receives are published when its poll ends: let this one end.
//!     mote::yield_now().await;
//!     assert!(metrics::process(p.id()).unwrap().messages_received >= 10);
//! })
//! .unwrap();
//! ```

use std::time::Duration;

use crate::process::info::{self, Status};
use crate::rt::metrics as counters;
use crate::rt::scheduler::global;
use crate::rt::table::TABLE;
use crate::values::pid::ProcessId;
use crate::values::term::Atom;

/// The runtime's counters at one moment (see the [module docs](self)).
///
/// Counters (`spawned`, `exited`, `messages_sent`, `wakeups`, a worker's `busy_ns`,
/// `tasks_run`, `sleeps`, `steals` and `spins`) only grow; compare two snapshots for rates. Lengths (`processes`, the run queues) are
/// what they were when read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct RuntimeMetrics {
    /// Nanoseconds since the runtime started (0 if it has not).
    pub uptime_ns: u64,
    /// Live processes.
    pub processes: usize,
    /// Processes spawned since the runtime started.
    pub spawned: u64,
    /// Processes ended, by the class of their exit reason.
    pub exited: ExitCounts,
    /// Messages queued by [`Pid::send`](crate::Pid::send) and its bounded variants (calls,
    /// casts and replies of servers included; the `Down` and `Exit` messages of links and
    /// monitors are signals and not counted). Sends to dead processes are not counted.
    pub messages_sent: u64,
    /// One entry per scheduler thread, in thread order (`mote-worker-0` first).
    pub workers: Vec<WorkerMetrics>,
    /// Processes woken from outside the scheduler threads (by timers, IO, other threads),
    /// waiting in the shared queue for a worker to take them.
    pub global_queue: usize,
    /// Wake-ups sent to the scheduler threads that were asleep or about to fall asleep, for
    /// work they should take: each takes the sleepers' lock and, when a thread was really
    /// waiting, a system call in the thread that sends it (see `sleeps` for the threads' side;
    /// the rules are in `docs/design.md`, "Idle threads").
    pub wakeups: u64,
}

impl RuntimeMetrics {
    /// Processes waiting to run: every worker's queue and the shared one.
    ///
    /// ```
    /// let m = mote::metrics::snapshot();
    /// assert_eq!(m.run_queue(), m.global_queue + m.workers.iter().map(|w| w.run_queue).sum::<usize>());
    /// ```
    pub fn run_queue(&self) -> usize {
        self.global_queue + self.workers.iter().map(|w| w.run_queue).sum::<usize>()
    }
}

/// Ended processes, by exit reason class.
///
/// ```
/// use mote::{metrics, ExitReason, Process};
/// mote::run(|_p: Process<()>| async move {
///     let before = metrics::snapshot().exited;
///     let pid = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
///     mote::exit(pid, ExitReason::Kill);
///     while mote::is_alive(pid) { mote::yield_now().await }
///     assert!(metrics::snapshot().exited.killed > before.killed);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ExitCounts {
    /// `normal`.
    pub normal: u64,
    /// `shutdown` and `{shutdown, _}` (a supervisor stopping its children).
    pub shutdown: u64,
    /// `killed`: an untrappable kill.
    pub killed: u64,
    /// A panic.
    pub panic: u64,
    /// Any other reason (`noproc`, `noconnection`, custom reasons).
    pub other: u64,
}

impl ExitCounts {
    /// All ended processes.
    ///
    /// ```
    /// let e = mote::metrics::snapshot().exited;
    /// assert_eq!(e.total(), e.normal + e.shutdown + e.killed + e.panic + e.other);
    /// ```
    pub fn total(&self) -> u64 {
        self.normal + self.shutdown + self.killed + self.panic + self.other
    }

    /// Abnormal ends: everything but `normal` and `shutdown` (what a supervisor restarts a
    /// transient child for).
    ///
    /// ```
    /// let e = mote::metrics::snapshot().exited;
    /// assert_eq!(e.abnormal(), e.killed + e.panic + e.other);
    /// ```
    pub fn abnormal(&self) -> u64 {
        self.killed + self.panic + self.other
    }
}

/// One scheduler thread's figures.
///
/// ```
/// mote::run(|_p: mote::Process<()>| async {
///     let workers = mote::metrics::snapshot().workers;
///     assert_eq!(workers.len(), mote::worker_threads());
///     // This process runs on them. A run is counted when it ends, by the thread that ran
///     // it, so the count may show a moment after the run.
///     let mut counted = false;
///     for _ in 0..10_000 {
///         mote::yield_now().await;
///         if mote::metrics::snapshot().workers.iter().any(|w| w.tasks_run > 0) {
///             counted = true;
///             break;
///         }
///     }
///     assert!(counted);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct WorkerMetrics {
    /// Nanoseconds the thread was awake (running processes or looking for them) since it
    /// started; divide the growth by the elapsed time for its utilisation.
    pub busy_ns: u64,
    /// Process polls it ran (counted as each ends).
    pub tasks_run: u64,
    /// Processes in its queue now (other threads may steal them).
    pub run_queue: usize,
    /// Times it fell asleep for want of work (each wake-up from that costs a system call
    /// in the thread that wakes it, and tens of microseconds).
    pub sleeps: u64,
    /// Times it took work from another thread's queue (each steal moves up to half of it):
    /// how much the threads balance their load, and what it costs in moved cache lines.
    pub steals: u64,
    /// Times it ran out of work and spun, looking at every queue for a few microseconds,
    /// before stealing or falling asleep.
    pub spins: u64,
}

/// One process's counters (see [`process_info`](crate::process_info) for its links and
/// monitors too).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ProcessMetrics {
    /// The process.
    pub id: ProcessId,
    /// Its registered name.
    pub name: Option<Atom>,
    /// What it is doing.
    pub status: Status,
    /// Messages waiting in its mailbox, as last published (see
    /// [`ProcessInfo::mailbox_len`](crate::ProcessInfo::mailbox_len)).
    pub mailbox_len: u64,
    /// Messages it has received: its work done, with `polls`. A process publishes its
    /// receives when a poll ends (it waits or yields), not one by one.
    pub messages_received: u64,
    /// Times it has been polled (wrapping at 2^24).
    pub polls: u64,
    /// Approximate bytes it uses (see [`ProcessInfo::memory`](crate::ProcessInfo::memory)).
    pub memory: usize,
}

/// The runtime's counters now. Does not start the runtime: before it has started, the
/// counters are zero and `workers` is empty.
///
/// ```
/// mote::run(|_p: mote::Process<()>| async {
///     let m = mote::metrics::snapshot();
///     assert!(m.spawned >= 1 && m.processes >= 1);
/// })
/// .unwrap();
/// ```
pub fn snapshot() -> RuntimeMetrics {
    let counts = counters::counts();
    let (uptime, workers, global_queue, wakeups) = match global::running() {
        Some(scheduler) => {
            let (uptime, workers) = scheduler.worker_stats();
            let workers = workers
                .into_iter()
                .map(|w| WorkerMetrics {
                    busy_ns: nanos(w.busy),
                    tasks_run: w.tasks,
                    run_queue: w.queued,
                    sleeps: w.sleeps,
                    steals: w.steals,
                    spins: w.spins,
                })
                .collect();
            (uptime, workers, scheduler.injected(), scheduler.wakeups())
        }
        None => (Duration::ZERO, Vec::new(), 0, 0),
    };
    let [normal, shutdown, killed, panic, other] = counts.exits;
    RuntimeMetrics {
        uptime_ns: nanos(uptime),
        processes: TABLE.live.load(std::sync::atomic::Ordering::Relaxed),
        spawned: counts.spawned,
        exited: ExitCounts {
            normal,
            shutdown,
            killed,
            panic,
            other,
        },
        messages_sent: counts.sent,
        workers,
        global_queue,
        wakeups,
    }
}

/// The counters of every live process, in table order. Reads each process's entry (and
/// takes the lock of those with links, monitors or a name): for a dashboard or a periodic
/// report, not for a hot loop.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     assert!(mote::metrics::processes().iter().any(|m| m.id == p.id()));
/// })
/// .unwrap();
/// ```
pub fn processes() -> Vec<ProcessMetrics> {
    info::processes().into_iter().filter_map(process).collect()
}

/// The counters of one process, or `None` if it is not alive.
///
/// ```
/// mote::run(|mut p: mote::Process<u8>| async move {
///     p.pid().send(1);
///     p.recv().await;
///     mote::yield_now().await; // publishes this poll's receives
///     let m = mote::metrics::process(p.id()).unwrap();
///     assert!(m.messages_received >= 1 && m.memory > 0);
/// })
/// .unwrap();
/// ```
pub fn process(id: ProcessId) -> Option<ProcessMetrics> {
    let info = info::snapshot(id, false)?;
    Some(ProcessMetrics {
        id: info.id,
        name: info.name,
        status: info.status,
        mailbox_len: info.mailbox_len,
        messages_received: info.messages_received,
        polls: info.polls,
        memory: info.memory,
    })
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

#[cfg(feature = "metrics")]
pub use export::{export, export_snapshot, spawn_exporter};

/// The `metrics` feature: the snapshot published through the `metrics` facade.
#[cfg(feature = "metrics")]
mod export {
    use std::sync::Once;
    use std::time::Duration;

    use crate::process::handle::Process;
    use crate::process::metrics::{snapshot, RuntimeMetrics};
    use crate::process::spawn::SpawnOptions;
    use crate::values::pid::Pid;

    /// Publishes [`snapshot()`](super::snapshot) to the `metrics` recorder installed in
    /// this program (a Prometheus exporter, statsd, ...): see [`export_snapshot`] for the
    /// names. With no recorder installed it does nothing, cheaply.
    ///
    /// ```
    /// mote::run(|_p: mote::Process<()>| async { mote::metrics::export() }).unwrap();
    /// ```
    pub fn export() {
        export_snapshot(&snapshot());
    }

    /// Publishes `m` to the installed `metrics` recorder:
    ///
    /// | name | kind | labels |
    /// | --- | --- | --- |
    /// | `mote_uptime_seconds` | gauge | |
    /// | `mote_processes` | gauge | |
    /// | `mote_processes_spawned_total` | counter | |
    /// | `mote_processes_exited_total` | counter | `reason`: normal, shutdown, killed, panic, other |
    /// | `mote_messages_sent_total` | counter | |
    /// | `mote_worker_busy_microseconds_total` | counter | `worker`: 0, 1, ... |
    /// | `mote_worker_tasks_total` | counter | `worker` |
    /// | `mote_worker_sleeps_total` | counter | `worker` |
    /// | `mote_worker_steals_total` | counter | `worker` |
    /// | `mote_worker_spins_total` | counter | `worker` |
    /// | `mote_wakeups_total` | counter | |
    /// | `mote_run_queue_length` | gauge | `worker`, or `global` for the shared queue |
    ///
    /// Counters are set to their absolute values (mote keeps the totals), so exporting
    /// twice counts nothing twice.
    ///
    /// ```
    /// let m = mote::metrics::snapshot();
    /// mote::metrics::export_snapshot(&m);
    /// ```
    pub fn export_snapshot(m: &RuntimeMetrics) {
        describe();
        ::metrics::gauge!("mote_uptime_seconds").set(m.uptime_ns as f64 / 1e9);
        ::metrics::gauge!("mote_processes").set(m.processes as f64);
        ::metrics::counter!("mote_processes_spawned_total").absolute(m.spawned);
        let e = &m.exited;
        for (reason, n) in [
            ("normal", e.normal),
            ("shutdown", e.shutdown),
            ("killed", e.killed),
            ("panic", e.panic),
            ("other", e.other),
        ] {
            ::metrics::counter!("mote_processes_exited_total", "reason" => reason).absolute(n);
        }
        ::metrics::counter!("mote_messages_sent_total").absolute(m.messages_sent);
        for (i, w) in m.workers.iter().enumerate() {
            let worker = i.to_string();
            ::metrics::counter!("mote_worker_busy_microseconds_total", "worker" => worker.clone())
                .absolute(w.busy_ns / 1000);
            ::metrics::counter!("mote_worker_tasks_total", "worker" => worker.clone())
                .absolute(w.tasks_run);
            ::metrics::counter!("mote_worker_sleeps_total", "worker" => worker.clone())
                .absolute(w.sleeps);
            ::metrics::counter!("mote_worker_steals_total", "worker" => worker.clone())
                .absolute(w.steals);
            ::metrics::counter!("mote_worker_spins_total", "worker" => worker.clone())
                .absolute(w.spins);
            ::metrics::gauge!("mote_run_queue_length", "worker" => worker).set(w.run_queue as f64);
        }
        ::metrics::gauge!("mote_run_queue_length", "worker" => "global").set(m.global_queue as f64);
        ::metrics::counter!("mote_wakeups_total").absolute(m.wakeups);
    }

    /// Spawns a process that calls [`export`] every `every` (at least a millisecond), until
    /// it is killed. Returns its pid, to link or supervise it.
    ///
    /// ```
    /// use std::time::Duration;
    /// mote::run(|_p: mote::Process<()>| async {
    ///     let exporter = mote::metrics::spawn_exporter(Duration::from_secs(10));
    ///     assert!(mote::is_alive(exporter));
    ///     mote::exit(exporter, mote::ExitReason::Kill);
    /// })
    /// .unwrap();
    /// ```
    pub fn spawn_exporter(every: Duration) -> Pid<()> {
        let every = every.max(Duration::from_millis(1));
        SpawnOptions::new().spawn(move |_p: Process<()>| exporting(every))
    }

    /// The exporter's life: it ends only when killed.
    async fn exporting(every: Duration) {
        loop {
            export();
            crate::process::sleep::sleep(every).await;
        }
    }

    /// The help texts, given to the recorder once.
    fn describe() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            use ::metrics::{describe_counter, describe_gauge, Unit};
            describe_gauge!(
                "mote_uptime_seconds",
                Unit::Seconds,
                "Time since the mote runtime started"
            );
            describe_gauge!("mote_processes", Unit::Count, "Live mote processes");
            describe_counter!(
                "mote_processes_spawned_total",
                Unit::Count,
                "Processes spawned"
            );
            describe_counter!(
                "mote_processes_exited_total",
                Unit::Count,
                "Processes ended, by exit reason class"
            );
            describe_counter!(
                "mote_messages_sent_total",
                Unit::Count,
                "Messages queued by sends"
            );
            describe_counter!(
                "mote_worker_busy_microseconds_total",
                Unit::Microseconds,
                "Time a scheduler thread was awake"
            );
            describe_counter!(
                "mote_worker_tasks_total",
                Unit::Count,
                "Process polls a scheduler thread ran"
            );
            describe_counter!(
                "mote_worker_sleeps_total",
                Unit::Count,
                "Times a scheduler thread fell asleep for want of work"
            );
            describe_counter!(
                "mote_worker_steals_total",
                Unit::Count,
                "Times a scheduler thread took work from another thread's queue"
            );
            describe_counter!(
                "mote_worker_spins_total",
                Unit::Count,
                "Times a scheduler thread spun looking for work before stealing or sleeping"
            );
            describe_counter!(
                "mote_wakeups_total",
                Unit::Count,
                "Wake-ups sent to sleeping scheduler threads"
            );
            describe_gauge!(
                "mote_run_queue_length",
                Unit::Count,
                "Processes waiting to run, per scheduler thread and in the shared queue"
            );
        });
    }
}
