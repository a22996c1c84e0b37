//! [`Process`]: what a running process holds to receive its messages and manage its
//! relationships.

mod receive;

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::time::Duration;

pub use receive::{Recv, RecvMatching};

use crate::process::registry::RegistryError;
use crate::rt::signals::{self, LinkError};
use crate::rt::table::Slot;
use crate::values::exit::{Down, Exit, ExitReason};
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::{Pid, ProcessId};

/// The running process's own handle: its mailbox and its relationships.
///
/// Every process function receives one (`|p: Process<M>| async move { ... }`). It is the only
/// way to receive from the mailbox, so it is not `Clone`, and receiving takes `&mut self`.
///
/// # System messages
///
/// Monitors deliver [`Down`] and trapped exit signals deliver [`Exit`] into the same mailbox
/// as the process's own messages, in the order they happen, converted into `M` with `From`.
/// So [`monitor`](Process::monitor) needs `M: From<Down>` and
/// [`trap_exit`](Process::trap_exit) needs `M: From<Exit>`; one `match` handles everything.
/// Use [`Signal<T>`](crate::Signal) as `M` for the ready-made enum, or your own:
///
/// ```
/// use mote::{Down, Exit, Process};
///
/// #[derive(Debug)]
/// enum Msg { Work(u32), Down(Down), Exit(Exit) }
/// impl From<Down> for Msg { fn from(d: Down) -> Self { Msg::Down(d) } }
/// impl From<Exit> for Msg { fn from(e: Exit) -> Self { Msg::Exit(e) } }
///
/// mote::run(|mut p: Process<Msg>| async move {
///     let worker = mote::spawn(|_w: Process<()>| async {});
///     p.monitor(worker);
///     p.pid().send(Msg::Work(1));
///     let mut seen = 0;
///     while seen < 2 {
///         match p.recv().await {
///             Msg::Work(n) => { assert_eq!(n, 1); seen += 1 }
///             Msg::Down(d) => { assert_eq!(d.pid, worker.id()); seen += 1 }
///             Msg::Exit(_) => unreachable!("not trapping exits"),
///         }
///     }
/// })
/// .unwrap();
/// ```
pub struct Process<M> {
    slot: &'static Slot,
    /// Messages taken off the queue but skipped by a selective receive, oldest first, with
    /// their tags (a monitor reference for `Down`s, else 0).
    /// Boxed so an idle process pays one pointer for it, not an empty `VecDeque` (32 bytes).
    #[allow(clippy::box_collection)]
    saved: Option<Box<VecDeque<(u64, M)>>>,
    _message: PhantomData<fn() -> M>,
}

impl<M: Send + 'static> Process<M> {
    pub(crate) fn new(slot: &'static Slot) -> Self {
        Process {
            slot,
            saved: None,
            _message: PhantomData,
        }
    }

    /// This process's id.
    pub fn id(&self) -> ProcessId {
        self.slot.id()
    }

    /// This process's address, to give to others.
    pub fn pid(&self) -> Pid<M> {
        // SAFETY: this `Process<M>` is the process's own handle, made at spawn with its
        // mailbox type.
        unsafe { Pid::from_id(self.id()) }
    }

    /// Receives the next message, waiting for one if the mailbox is empty.
    ///
    /// Each receive uses one unit of the process's budget; when a poll has used it all, the
    /// process yields to others once (fairness: a process that always has messages cannot
    /// monopolise a thread).
    ///
    /// # Cancel safety
    ///
    /// Cancel-safe: a message leaves the mailbox only in the poll that returns it, so a
    /// `recv` dropped before it is ready (another `tokio::select!` branch won, a timeout
    /// ran out) loses nothing; the message is the next one received. The same holds for
    /// [`recv_matching`](Self::recv_matching) (what it skipped stays queued, in order) and
    /// the timeout variants. See [`mote::stream`](crate::stream) for `select!` over a
    /// stream and the mailbox, or [`attach_stream`](crate::attach_stream) to have a stream's
    /// items sent as messages instead.
    ///
    /// ```
    /// mote::run(|mut p: mote::Process<&'static str>| async move {
    ///     p.pid().send("hi");
    ///     assert_eq!(p.recv().await, "hi");
    /// })
    /// .unwrap();
    /// ```
    pub fn recv(&mut self) -> Recv<'_, M> {
        Recv::new(self)
    }

    /// Receives the next message if one is queued, without waiting (Erlang's `after 0`).
    ///
    /// ```
    /// mote::run(|mut p: mote::Process<u8>| async move {
    ///     assert_eq!(p.try_recv(), None);
    ///     p.pid().send(1);
    ///     assert_eq!(p.try_recv(), Some(1));
    /// })
    /// .unwrap();
    /// ```
    pub fn try_recv(&mut self) -> Option<M> {
        if let Some((_, m)) = self.saved.as_mut().and_then(|s| s.pop_front()) {
            return Some(m);
        }
        // SAFETY: we are the owner of this slot and its messages are `M`.
        unsafe { self.slot.pop::<M>() }.map(|(_, m)| m)
    }

    /// Receives the next message, or `None` if none arrives within `timeout`. A zero timeout
    /// only looks at what is already queued.
    ///
    /// ```
    /// use std::time::Duration;
    /// mote::run(|mut p: mote::Process<u8>| async move {
    ///     assert_eq!(p.recv_timeout(Duration::from_millis(5)).await, None);
    /// })
    /// .unwrap();
    /// ```
    pub async fn recv_timeout(&mut self, timeout: Duration) -> Option<M> {
        if timeout.is_zero() {
            return self.try_recv();
        }
        crate::rt::timeout_wheel::timeout(timeout, self.recv())
            .await
            .ok()
    }

    /// Selective receive: the first message, oldest first, that `matches` accepts. The
    /// messages it skips stay in the mailbox in their order (Erlang's `receive` with patterns).
    ///
    /// ```
    /// mote::run(|mut p: mote::Process<char>| async move {
    ///     for c in ['a', 'b', 'c'] { p.pid().send(c) }
    ///     assert_eq!(p.recv_matching(|&c| c == 'c').await, 'c');
    ///     assert_eq!(p.recv().await, 'a');
    ///     assert_eq!(p.recv().await, 'b');
    /// })
    /// .unwrap();
    /// ```
    pub fn recv_matching<F: FnMut(&M) -> bool>(&mut self, matches: F) -> RecvMatching<'_, M, F> {
        RecvMatching::new(self, matches)
    }

    /// Selective receive with a timeout: `None` if no matching message arrives in time. A zero
    /// timeout only looks at what is already queued; the skipped messages stay, in order.
    ///
    /// ```
    /// use std::time::Duration;
    /// mote::run(|mut p: mote::Process<char>| async move {
    ///     p.pid().send('y');
    ///     assert_eq!(p.recv_matching_timeout(|&c| c == 'z', Duration::ZERO).await, None);
    ///     assert_eq!(p.try_recv(), Some('y'));
    /// })
    /// .unwrap();
    /// ```
    pub async fn recv_matching_timeout<F: FnMut(&M) -> bool>(
        &mut self,
        mut matches: F,
        timeout: Duration,
    ) -> Option<M> {
        if timeout.is_zero() {
            self.drain_queue();
            let saved = self.saved.as_mut()?;
            let i = saved.iter().position(|(_, m)| matches(m))?;
            return saved.remove(i).map(|(_, m)| m);
        }
        crate::rt::timeout_wheel::timeout(timeout, self.recv_matching(matches))
            .await
            .ok()
    }

    /// Moves everything queued into the saved list, keeping order.
    fn drain_queue(&mut self) {
        // SAFETY: we are the owner of this slot and its messages are `M`.
        while let Some(entry) = unsafe { self.slot.pop::<M>() } {
            self.saved
                .get_or_insert_with(Default::default)
                .push_back(entry);
        }
    }

    /// The number of messages waiting in the mailbox (approximate while senders are active).
    ///
    /// ```
    /// mote::run(|p: mote::Process<u8>| async move {
    ///     p.pid().send(1);
    ///     p.pid().send(2);
    ///     assert_eq!(p.mailbox_len(), 2);
    /// })
    /// .unwrap();
    /// ```
    pub fn mailbox_len(&self) -> usize {
        // SAFETY: we are the owner, the queue's only consumer.
        let queued = unsafe { self.slot.mailbox_len() };
        queued + self.saved.as_ref().map_or(0, |s| s.len())
    }

    /// Frees the receive buffer (messages a selective receive skipped) if it is empty, else
    /// shrinks it to its contents: what a hibernating server can give back.
    pub(crate) fn release_spare_memory(&mut self) {
        match self.saved.as_mut() {
            Some(saved) if saved.is_empty() => self.saved = None,
            Some(saved) => saved.shrink_to_fit(),
            None => {}
        }
    }

    /// Whether an exit signal this process does not trap is ending it (it ends at its next
    /// await): code that would run on the way out (a server's `terminate`) must not.
    pub(crate) fn is_exit_pending(&self) -> bool {
        self.slot.is_exit_pending()
    }

    pub(crate) fn publish_len(&self) {
        self.slot
            .publish_len(self.saved.as_ref().map_or(0, |s| s.len()));
    }

    /// Links this process to another: when either ends abnormally, the other ends too with
    /// the same reason, unless it traps exits (then it gets an [`Exit`] message).
    ///
    /// Linking to a dead process fails with [`LinkError::NoProc`], unless this process traps
    /// exits: then it succeeds and an `Exit` with reason `noproc` arrives (as on the BEAM).
    ///
    /// Linking to oneself does nothing and succeeds (Erlang's `link(self())` is `true`).
    ///
    /// ```
    /// use mote::{LinkError, Process};
    /// mote::run(|p: Process<()>| async move {
    ///     let done = mote::spawn(|_c: Process<()>| async {});
    ///     while mote::is_alive(done) {
    ///         mote::sleep(std::time::Duration::from_millis(1)).await;
    ///     }
    ///     assert_eq!(p.link(done), Err(LinkError::NoProc));
    /// })
    /// .unwrap();
    /// ```
    pub fn link(&self, other: impl Into<ProcessId>) -> Result<(), LinkError> {
        signals::link(self.id(), other.into())
    }

    /// Removes a link, if there is one. Afterwards neither process's exit affects the other
    /// through it.
    ///
    /// ```
    /// use mote::Process;
    /// mote::run(|p: Process<()>| async move {
    ///     let child = p.spawn_link(|mut c: Process<()>| async move { c.recv().await });
    ///     p.unlink(child);
    ///     mote::exit(child, mote::ExitReason::custom("boom"));
    /// })
    /// .unwrap();
    /// ```
    pub fn unlink(&self, other: impl Into<ProcessId>) {
        signals::unlink(self.id(), other.into())
    }

    /// Ends this process now with `reason` (Erlang's `exit/1`). Its destructors run, its
    /// links and monitors see `reason`.
    ///
    /// It unwinds the process's stack like a panic (without the panic message), so it needs
    /// the default `panic = "unwind"`.
    ///
    /// ```
    /// use mote::{ExitReason, Process};
    /// let r = mote::run(|p: Process<()>| async move {
    ///     p.exit(ExitReason::custom("bye"));
    /// });
    /// assert_eq!(r, Err(ExitReason::custom("bye")));
    /// ```
    pub fn exit(&self, reason: ExitReason) -> ! {
        std::panic::resume_unwind(Box::new(crate::rt::runner::ExitNow(reason)))
    }
}

impl<M: From<Down> + Send + 'static> Process<M> {
    /// Watches another process: when it ends (or if it is already gone), a [`Down`] with the
    /// returned reference arrives in this mailbox. Each call creates a separate monitor.
    ///
    /// A process may monitor itself, as on the BEAM: it gets a reference, and no `Down` ever
    /// arrives (there is nobody left to receive it); [`demonitor`](Process::demonitor)
    /// removes it like any other.
    ///
    /// ```
    /// use mote::{Down, ExitReason, Process};
    /// mote::run(|mut p: Process<Down>| async move {
    ///     let child = mote::spawn(|mut c: Process<()>| async move {
    ///         c.recv().await;
    ///         ExitReason::custom("boom")
    ///     });
    ///     let r = p.monitor(child);
    ///     child.send(()); // ends only once monitored: else the Down would say `noproc`
    ///     let down = p.recv().await;
    ///     assert_eq!((down.monitor, down.reason), (r, ExitReason::custom("boom")));
    /// })
    /// .unwrap();
    /// ```
    pub fn monitor(&self, target: impl Into<ProcessId>) -> MonitorRef {
        signals::monitor(self.id(), target.into(), signals::deliver_down::<M>)
    }

    /// Watches the process registered as `name` (Erlang's `monitor(process, Name)`): when
    /// it ends, a [`Down`] arrives whose [`by_name`](Down::by_name) names `name` (and whose
    /// `pid` is that process). If nobody holds the name, the `Down` comes at once, with
    /// reason `noproc` and `pid` [`ProcessId::NONE`]. The monitor is on the process that
    /// holds the name now: a later holder of the name is not watched.
    ///
    /// A name longer than an atom may be is an error ([`RegistryError::NameTooLong`]).
    /// `undefined`, which nobody can hold, gives the `noproc` `Down` at once (as Erlang's
    /// `monitor(process, undefined)` does).
    ///
    /// ```
    /// use mote::{Down, ExitReason, Process};
    /// mote::run(|mut p: Process<Down>| async move {
    ///     let r = p.monitor_name("nobody").unwrap();
    ///     let down = p.recv().await;
    ///     assert_eq!((down.monitor, down.reason), (r, ExitReason::NoProc));
    ///     assert_eq!(down.by_name.unwrap().name, "nobody");
    /// })
    /// .unwrap();
    /// ```
    pub fn monitor_name(&self, name: &str) -> Result<MonitorRef, RegistryError> {
        let name = crate::values::term::Atom::new(name)
            .map_err(|e| RegistryError::NameTooLong { chars: e.chars })?;
        let holder = crate::process::registry::whereis(&name);
        Ok(signals::monitor_name(
            self.id(),
            holder,
            name,
            signals::deliver_down::<M>,
        ))
    }

    /// Removes a monitor (Erlang's `demonitor/1`). A `Down` already delivered stays in the
    /// mailbox (use [`demonitor_flush`](Process::demonitor_flush) to drop it). Once it has
    /// returned, no `Down` of this monitor is placed in the mailbox any more.
    ///
    /// Always returns `true`, as Erlang's `demonitor/1` does, whatever the state of the
    /// monitor (active, already fired, or not a monitor of this process). To learn whether
    /// the monitor was still active, call [`demonitor_info`](Process::demonitor_info)
    /// instead (Erlang's `demonitor(Ref, [info])`). Earlier versions of mote answered like
    /// `demonitor_info` here: code that used the answer must move to `demonitor_info`.
    ///
    /// ```
    /// use mote::{Down, Process};
    /// mote::run(|p: Process<Down>| async move {
    ///     let child = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
    ///     let r = p.monitor(child);
    ///     assert!(p.demonitor(r));
    ///     assert!(p.demonitor(r)); // already removed: still true, as in Erlang
    ///     child.send(());
    /// })
    /// .unwrap();
    /// ```
    pub fn demonitor(&self, monitor: MonitorRef) -> bool {
        signals::demonitor(self.id(), monitor);
        true
    }

    /// Removes a monitor and says whether it was still active (Erlang's
    /// `demonitor(Ref, [info])`): true if its `Down` had not been delivered, and now never
    /// will be, even if the target is ending at this moment. False means its `Down` is
    /// already in this mailbox (or was received), or `monitor` is not a monitor of this
    /// process.
    ///
    /// ```
    /// use mote::{Down, Process};
    /// mote::run(|p: Process<Down>| async move {
    ///     let child = mote::spawn(|mut c: Process<()>| async move { c.recv().await });
    ///     let r = p.monitor(child);
    ///     assert!(p.demonitor_info(r));
    ///     assert!(!p.demonitor_info(r)); // no longer a monitor
    ///     child.send(());
    /// })
    /// .unwrap();
    /// ```
    pub fn demonitor_info(&self, monitor: MonitorRef) -> bool {
        signals::demonitor(self.id(), monitor)
    }

    /// Removes a monitor and any `Down` it already delivered to the mailbox
    /// (Erlang's `demonitor(Ref, [flush])`). Returns true if the monitor was still active.
    ///
    /// Deviation: Erlang's `demonitor(Ref, [flush])` always returns `true`; this answers
    /// like `demonitor(Ref, [flush, info])`, which carries the same information and more.
    ///
    /// ```
    /// use mote::{Down, Process};
    /// mote::run(|mut p: Process<Down>| async move {
    ///     let child = mote::spawn(|_c: Process<()>| async {});
    ///     let r = p.monitor(child);
    ///     while mote::is_alive(child) { mote::sleep(std::time::Duration::from_millis(1)).await }
    ///     mote::sleep(std::time::Duration::from_millis(5)).await;
    ///     p.demonitor_flush(r);
    ///     assert_eq!(p.try_recv(), None);
    /// })
    /// .unwrap();
    /// ```
    pub fn demonitor_flush(&mut self, monitor: MonitorRef) -> bool {
        let active = signals::demonitor(self.id(), monitor);
        self.drain_queue();
        if let Some(saved) = self.saved.as_mut() {
            saved.retain(|(tag, _)| *tag != monitor.0);
        }
        active
    }
}

impl<M: From<Exit> + Send + 'static> Process<M> {
    /// Traps exits (or stops trapping): exit signals from links and from
    /// [`exit`](crate::exit) arrive as [`Exit`] messages instead of ending this process.
    /// Only an untrappable kill still ends it. Returns the previous setting.
    ///
    /// ```
    /// use mote::{Exit, ExitReason, Process};
    /// mote::run(|mut p: Process<Exit>| async move {
    ///     assert!(!p.trap_exit(true));
    ///     mote::exit(p.pid(), ExitReason::custom("boom"));
    ///     assert_eq!(p.recv().await.reason, ExitReason::custom("boom"));
    /// })
    /// .unwrap();
    /// ```
    pub fn trap_exit(&self, on: bool) -> bool {
        signals::set_trap_exit(self.id(), on, signals::deliver_exit::<M>)
    }
}

impl<M> std::fmt::Debug for Process<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process")
            .field("id", &self.slot.id())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::Process;

    #[test]
    fn release_spare_memory_frees_an_empty_receive_buffer_and_keeps_a_full_one() {
        crate::run(|mut p: Process<u8>| async move {
            for n in [1, 2, 3] {
                p.pid().send(n);
            }
            assert_eq!(p.recv_matching(|&n| n == 3).await, 3);
            assert!(p.saved.as_ref().is_some_and(|s| s.len() == 2));
            p.release_spare_memory();
            assert!(p.saved.is_some(), "kept: it holds the skipped messages");
            assert_eq!((p.recv().await, p.recv().await), (1, 2));
            assert!(p.saved.is_some());
            p.release_spare_memory();
            assert!(p.saved.is_none(), "freed once empty");
        })
        .unwrap();
    }
}
