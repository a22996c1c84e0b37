//! Spawning processes: [`spawn`] and the [`SpawnOptions`] builder.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::process::handle::Process;
use crate::rt::current;
use crate::rt::metrics;
use crate::rt::runner::Runner;
use crate::rt::scheduler::{schedule, schedule_spawned, ProcessSchedule};
use crate::rt::signals;
use crate::rt::table::extras::{DeliverDown, ExitHook, ExitListener, Watcher};
use crate::rt::table::slot::{drain, Kind};
use crate::rt::table::TABLE;
use crate::values::exit::{Down, ExitReason, IntoExitReason};
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::{Pid, ProcessId};

/// The [`Kind`] of the processes with messages `M` and future `Fut`: one `'static` constant
/// per pair, so that a slot points at it instead of keeping the drop function and the task
/// size apart.
struct KindOf<M, Fut>(std::marker::PhantomData<(fn(M), Fut)>);

impl<M: Send + 'static, Fut: Future> KindOf<M, Fut> {
    const KIND: &'static Kind = &Kind {
        drain: drain::<M>,
        task_bytes: crate::rt::task::task_bytes::<Runner<Fut>>(),
    };
}

/// Spawns a process running `f` and returns its address at once, without waiting for it to
/// start (like Erlang's `spawn`, and as cheap as we can make it: one task allocation and a
/// recycled table slot).
///
/// `f` receives the new process's [`Process`] handle. What its future returns becomes the
/// exit reason: `()` is `normal` (see [`IntoExitReason`]). A panic ends this process alone,
/// with reason [`ExitReason::Panic`].
///
/// # Panics
/// If the process table is full (about 268 million live processes); [`try_spawn`] reports
/// that as an error instead.
///
/// ```
/// use mote::Process;
/// mote::run(|mut p: Process<u64>| async move {
///     let parent = p.pid();
///     let child = mote::spawn(move |mut c: Process<u64>| async move {
///         let n = c.recv().await;
///         parent.send(n * 2);
///     });
///     child.send(21);
///     assert_eq!(p.recv().await, 42);
/// })
/// .unwrap();
/// ```
pub fn spawn<M, F, Fut>(f: F) -> Pid<M>
where
    M: Send + 'static,
    F: FnOnce(Process<M>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoExitReason,
{
    SpawnOptions::new().spawn(f)
}

/// Like [`spawn`], but reports a full process table as an error.
///
/// ```
/// let pid = mote::try_spawn(|_p: mote::Process<()>| async {}).unwrap();
/// # let _ = pid;
/// ```
pub fn try_spawn<M, F, Fut>(f: F) -> Result<Pid<M>, SpawnError>
where
    M: Send + 'static,
    F: FnOnce(Process<M>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: IntoExitReason,
{
    SpawnOptions::new().try_spawn(f)
}

/// Why a process could not be spawned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SpawnError {
    /// Every entry of the process table is in use.
    #[error("the process table is full ({0} processes)")]
    TableFull(usize),
    /// [`SpawnOptions::linked`] was asked for outside a process: there is no caller to link.
    #[error("a linked spawn needs a calling process; this code runs outside any process")]
    NotInProcess,
    /// [`SpawnOptions::name`]: the name is held by this live process; nothing was started
    /// (Erlang's `{error, {already_started, Pid}}`).
    #[error("the name is already registered to {0}")]
    NameTaken(ProcessId),
    /// [`SpawnOptions::name`]: the name cannot be registered (too long for an atom, or
    /// `undefined`); nothing was started.
    #[error("the name cannot be registered")]
    BadName,
}

/// Options for spawning a process.
///
/// ```
/// use mote::{Process, SpawnOptions};
/// mote::run(|_p: Process<()>| async move {
///     // A mailbox of at most 16 messages for senders that use `send_async`/`try_send`.
///     let pid = SpawnOptions::new().mailbox_bound(16).spawn(|mut c: Process<u32>| async move {
///         while c.recv().await != 0 {}
///     });
///     for i in (0..100).rev() {
///         pid.send_async(i).await;
///     }
/// })
/// .unwrap();
/// ```
#[derive(Default)]
pub struct SpawnOptions {
    link: Option<ProcessId>,
    monitor: Option<(ProcessId, MonitorRef, DeliverDown)>,
    on_exit: Option<ExitHook>,
    listener: Option<(MonitorRef, Arc<dyn ExitListener>)>,
    link_caller: bool,
    bound: Option<usize>,
    name: Option<String>,
    /// The run group (see `Slot::run_group`); `None`: the spawner's.
    run_group: Option<u32>,
    /// Whether the new process runs next on the spawning thread (see
    /// [`SpawnOptions::run_next`]) rather than at the back of the queue.
    run_next: bool,
}

impl std::fmt::Debug for SpawnOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpawnOptions")
            .field("link", &self.link)
            .field("bound", &self.bound)
            .finish_non_exhaustive()
    }
}

impl SpawnOptions {
    /// Default options: unlinked, unbounded mailbox.
    pub fn new() -> Self {
        SpawnOptions::default()
    }

    /// Queues the new process to run next on the spawning thread (its LIFO slot) instead of
    /// at the back of the queue, as `tokio::spawn` does. For fork/join helpers
    /// ([`mote::task`](crate::task)), whose spawner awaits right after spawning: the last
    /// one spawned runs at once on the spawner's thread while idle threads steal the ones
    /// before it. Processes keep Erlang's order (back of the queue). A spawner that keeps
    /// running is no problem: the next spawn moves this one to the queue, and one left in
    /// the slot behind a long poll is moved to an idle thread by the watchdog.
    pub(crate) fn run_next(mut self) -> Self {
        self.run_next = true;
        self
    }

    /// Gives the process a bounded mailbox of `capacity` messages (at least 1):
    /// [`Pid::send_async`] waits while it is full and [`Pid::try_send`] fails. Plain
    /// [`Pid::send`] never waits or fails and is not limited, so system messages and
    /// replies are never lost.
    pub fn mailbox_bound(mut self, capacity: usize) -> Self {
        self.bound = Some(capacity.max(1));
        self
    }

    /// Links the new process to the calling process, atomically (the child cannot end
    /// before the link exists), as [`Process::spawn_link`] does.
    ///
    /// Spawning with this option outside a process is an error: [`try_spawn`] reports
    /// [`SpawnError::NotInProcess`] (and [`spawn`] panics).
    ///
    /// ```
    /// use mote::{Exit, Process, SpawnOptions};
    /// mote::run(|mut p: Process<Exit>| async move {
    ///     p.trap_exit(true);
    ///     let child = SpawnOptions::new().linked().spawn(|_c: Process<()>| async {});
    ///     assert_eq!(p.recv().await.from, child.id());
    /// })
    /// .unwrap();
    /// ```
    pub fn linked(mut self) -> Self {
        self.link_caller = true;
        self
    }

    /// Registers the new process under `name` before it runs (see [`register`](crate::register)),
    /// so that it is found by name from its first instruction; the name is released when it
    /// ends. A name held by a live process fails the spawn with [`SpawnError::NameTaken`]
    /// and starts nothing ([`spawn`](Self::spawn) panics).
    ///
    /// ```
    /// use mote::{Process, SpawnError, SpawnOptions};
    /// mote::run(|_p: Process<()>| async move {
    ///     let logger = SpawnOptions::new().name("logger").spawn(|mut c: Process<String>| async move {
    ///         c.recv().await;
    ///     });
    ///     assert_eq!(mote::whereis("logger"), Some(logger.id()));
    ///     let again = SpawnOptions::new().name("logger").try_spawn(|_c: Process<String>| async {});
    ///     assert_eq!(again, Err(SpawnError::NameTaken(logger.id())));
    /// })
    /// .unwrap();
    /// ```
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Tells `listener` of the new process's exit; the watch exists before the process can
    /// run, and `r` removes it (`signals::unwatch`).
    pub(crate) fn watched_by(mut self, r: MonitorRef, listener: Arc<dyn ExitListener>) -> Self {
        self.listener = Some((r, listener));
        self
    }

    /// Puts the process in run group `group` instead of its spawner's (the root of a run).
    pub(crate) fn run_group(mut self, group: u32) -> Self {
        self.run_group = Some(group);
        self
    }

    pub(crate) fn link(mut self, parent: ProcessId) -> Self {
        self.link = Some(parent);
        self
    }

    pub(crate) fn monitored_by(
        mut self,
        watcher: ProcessId,
        r: MonitorRef,
        deliver: DeliverDown,
    ) -> Self {
        self.monitor = Some((watcher, r, deliver));
        self
    }

    pub(crate) fn on_exit(mut self, hook: impl FnOnce(&ExitReason) + Send + 'static) -> Self {
        self.on_exit = Some(Box::new(hook));
        self
    }

    /// Spawns the process (see [`spawn`]).
    ///
    /// # Panics
    /// If the process table is full.
    pub fn spawn<M, F, Fut>(self, f: F) -> Pid<M>
    where
        M: Send + 'static,
        F: FnOnce(Process<M>) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: IntoExitReason,
    {
        match self.try_spawn(f) {
            Ok(pid) => pid,
            Err(e) => panic!("mote::spawn: {e}"),
        }
    }

    /// Spawns the process, reporting a full process table as an error.
    pub fn try_spawn<M, F, Fut>(mut self, f: F) -> Result<Pid<M>, SpawnError>
    where
        M: Send + 'static,
        F: FnOnce(Process<M>) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: IntoExitReason,
    {
        crate::rt::scheduler::global::ensure_started();
        let run_next = self.run_next;
        if self.link_caller {
            let caller = current::current().ok_or(SpawnError::NotInProcess)?;
            self.link = Some(caller);
        }
        if let Some(name) = &self.name {
            crate::process::registry::name_atom(name).map_err(|_| SpawnError::BadName)?;
        }
        let slot = TABLE
            .alloc()
            .ok_or(SpawnError::TableFull(crate::rt::table::MAX_PROCESSES))?;
        // SAFETY: spawned into the slot's task cell just below.
        let task = unsafe { Runner::new(f(Process::new(slot))) };
        let run_group = self.run_group.unwrap_or_else(current::run_group);
        // SAFETY: the slot came from the free list, table slots are never freed, and the
        // kind's `drain::<M>` matches the mailbox type of the `Process<M>` the task owns.
        let runnable =
            unsafe { slot.occupy::<_, ProcessSchedule>(task, KindOf::<M, Fut>::KIND, run_group) };
        TABLE.live.fetch_add(1, Ordering::Relaxed);
        metrics::count_spawn();
        let id = slot.id();
        if let Some(name) = self.name.take() {
            // Before any link or monitor exists: a refused name ends the new process
            // unseen, before it ever runs.
            // SAFETY: `id` is the process just spawned with a `Process<M>`.
            let pid = unsafe { Pid::<M>::from_id(id) };
            if let Err(e) = crate::process::registry::register(&name, pid) {
                signals::exit_signal(id, ProcessId::NONE, ExitReason::Kill, false);
                schedule(runnable, true);
                return Err(match e {
                    crate::process::registry::RegistryError::NameTaken { owner, .. } => {
                        SpawnError::NameTaken(owner)
                    }
                    _ => SpawnError::BadName,
                });
            }
        }
        if self.link.is_some()
            || self.monitor.is_some()
            || self.on_exit.is_some()
            || self.listener.is_some()
            || self.bound.is_some()
        {
            self.relate(id);
        }
        // The child has not run yet: every relationship above exists before it can end.
        // A new process goes to the back of the queue, like Erlang's (a task: see `run_next`).
        if run_next {
            schedule(runnable, false);
        } else {
            schedule_spawned(runnable);
        }
        // A spawning loop must not hold back the recycling of the processes it started.
        current::repin();
        // SAFETY: `id` is the process just spawned with a `Process<M>`.
        Ok(unsafe { Pid::from_id(id) })
    }

    fn relate(self, child: ProcessId) {
        // The parent's and watcher's halves first (they are running callers, so alive), then
        // the child's half under one lock; the child has not run yet.
        let link = self
            .link
            .filter(|&parent| signals::with_live(parent, |_, s| s.links.push(child)).is_some());
        if let Some((watcher, r, _)) = self.monitor {
            let _ = signals::with_live(watcher, |_, s| s.watching.insert(r, child));
        }
        let _ = signals::with_live(child, |slot, s| {
            if let Some(parent) = link {
                s.links.push(parent);
            }
            if let Some((watcher, r, deliver)) = self.monitor {
                s.watchers.insert(
                    r,
                    Watcher::Process {
                        pid: watcher,
                        deliver,
                    },
                );
            }
            if let Some(hook) = self.on_exit {
                s.watchers.insert(signals::new_ref(), Watcher::Hook(hook));
            }
            if let Some((r, listener)) = self.listener {
                s.watchers.insert(r, Watcher::Listener(listener));
            }
            if let Some(capacity) = self.bound {
                s.bound = Some(Arc::new(tokio::sync::Semaphore::new(capacity)));
                slot.mark_bounded();
            }
        });
    }
}

// `Process`'s spawning methods live here, beside `SpawnOptions`: the handle module does not
// depend on spawning, only spawning on the handle.
impl<M: Send + 'static> Process<M> {
    /// Spawns a process linked to this one, atomically: the child cannot end before the link
    /// exists.
    ///
    /// ```
    /// use mote::{Exit, Process};
    /// mote::run(|mut p: Process<Exit>| async move {
    ///     p.trap_exit(true);
    ///     let child = p.spawn_link(|_c: Process<()>| async {});
    ///     let exit = p.recv().await;
    ///     assert_eq!((exit.from, exit.reason), (child.id(), mote::ExitReason::Normal));
    /// })
    /// .unwrap();
    /// ```
    pub fn spawn_link<C, F, Fut>(&self, f: F) -> Pid<C>
    where
        C: Send + 'static,
        F: FnOnce(Process<C>) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: IntoExitReason,
    {
        SpawnOptions::new().link(self.id()).spawn(f)
    }
}

impl<M: From<Down> + Send + 'static> Process<M> {
    /// Spawns a process and monitors it, atomically.
    ///
    /// ```
    /// use mote::{Down, Process};
    /// mote::run(|mut p: Process<Down>| async move {
    ///     async fn crash() { panic!("boom") }
    ///     let (child, r) = p.spawn_monitor(|_c: Process<()>| crash());
    ///     let down = p.recv().await;
    ///     assert_eq!((down.pid, down.monitor), (child.id(), r));
    ///     assert_eq!(down.reason, mote::ExitReason::Panic("boom".into()));
    /// })
    /// .unwrap();
    /// ```
    pub fn spawn_monitor<C, F, Fut>(&self, f: F) -> (Pid<C>, MonitorRef)
    where
        C: Send + 'static,
        F: FnOnce(Process<C>) -> Fut,
        Fut: Future + Send + 'static,
        Fut::Output: IntoExitReason,
    {
        let r = signals::new_ref();
        let pid = SpawnOptions::new()
            .monitored_by(self.id(), r, signals::deliver_down::<M>)
            .spawn(f);
        (pid, r)
    }
}
