//! Links, monitors and exit signals: the rules of Erlang's process relationships. (Signals
//! in Erlang's sense, between processes; [`Signal<M>`](crate::Signal) is the ready-made
//! message type that receives the ones turned into messages.)
//!
//! Each process's relationships live in an [`Extras`] record behind its slot's lock,
//! allocated only when a process first links, monitors, traps exits or takes a name, so a
//! plain process pays nothing for them. Only one slot lock is ever held at a time except in
//! [`link`]/[`unlink`], which lock two in index order, and no message is pushed while a lock
//! is held (a push may need the receiver's lock to wake a foreign waker).

#[cfg(feature = "dist")]
pub(crate) mod remote;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::rt::current;
use crate::rt::metrics;
use crate::rt::outbox;
use crate::rt::table::extras::{
    DeliverDown, DeliverExit, ExitListener, Extras, NameWatcher, Watcher,
};
use crate::rt::table::{Slot, TABLE};
use crate::values::exit::{Down, Exit, ExitReason};
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::ProcessId;
use crate::values::registered_name::RegisteredName;
use crate::values::term::Atom;

static NEXT_REF: AtomicU64 = AtomicU64::new(1);

pub(crate) fn new_ref() -> MonitorRef {
    MonitorRef(NEXT_REF.fetch_add(1, Ordering::Relaxed))
}

/// The `DeliverDown` of a process whose message type is `M`.
///
/// # Safety
/// The current incarnation of `slot`, if it is `serial`, has message type `M`.
pub(crate) unsafe fn deliver_down<M: From<Down> + Send + 'static>(
    slot: &Slot,
    serial: u32,
    down: Down,
) -> bool {
    let tag = down.monitor.0;
    // SAFETY: the caller's contract.
    unsafe { slot.send::<M>(serial, tag, M::from(down), current::pinned()) }.is_ok()
}

/// The `DeliverExit` of a process whose message type is `M`.
///
/// # Safety
/// The current incarnation of `slot`, if it is `serial`, has message type `M`.
pub(crate) unsafe fn deliver_exit<M: From<Exit> + Send + 'static>(
    slot: &Slot,
    serial: u32,
    exit: Exit,
) -> bool {
    // SAFETY: the caller's contract.
    unsafe { slot.send::<M>(serial, 0, M::from(exit), current::pinned()) }.is_ok()
}

/// Runs `f` on the extras of `id` if that process is alive (under its lock), creating the
/// record if the process has none yet: for changes that add a relationship or a flag.
pub(crate) fn with_live<R>(
    id: ProcessId,
    f: impl FnOnce(&'static Slot, &mut Extras) -> R,
) -> Option<R> {
    peek_live(id, |slot, extras| {
        f(slot, extras.get_or_insert_with(Box::default))
    })
}

/// Like [`with_live`], without creating a record for a process that has none (`f` sees
/// `None`): for reads and removals, which must not cost a plain process memory.
pub(crate) fn peek_live<R>(
    id: ProcessId,
    f: impl FnOnce(&'static Slot, &mut Option<Box<Extras>>) -> R,
) -> Option<R> {
    let slot = TABLE.lookup(id)?;
    let mut guard = slot.lock_extras();
    if !slot.is_alive(id.serial()) {
        return None;
    }
    Some(f(slot, &mut guard))
}

/// Asks the process to end with `reason` at its next poll; the first reason wins.
fn set_pending_exit(slot: &Slot, extras: &mut Extras, reason: ExitReason) {
    if extras.pending_exit.is_none() {
        extras.pending_exit = Some(reason);
        slot.mark_exit_pending();
        slot.wake_task();
    }
}

/// Sends an exit signal from `from` to `target` (Erlang's exit/2 when `via_link` is false,
/// a link's propagation when it is true), applying Erlang's rules:
///
/// * an untrappable `kill` (exit/2 only) ends the target with `killed`;
/// * a trapping target gets an [`Exit`] message instead;
/// * `normal` is ignored by a non-trapping target, unless it sent it to itself;
/// * any other reason ends the target with that reason.
///
/// A link signal is dropped if the link no longer exists (it was unlinked).
pub(crate) fn exit_signal(target: ProcessId, from: ProcessId, reason: ExitReason, via_link: bool) {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    #[cfg(feature = "dist")]
    if let Some(remote) = remote::reach(target) {
        return remote.exit(from, target, &reason, via_link);
    }
    let trapped = with_live(target, |slot, extras| {
        if via_link {
            let i = extras.links.iter().position(|&l| l == from)?;
            extras.links.swap_remove(i);
        }
        if !via_link && reason == ExitReason::Kill {
            set_pending_exit(slot, extras, ExitReason::Killed);
            return None;
        }
        if extras.trap_exit {
            return extras.deliver_exit.map(|deliver| (slot, deliver));
        }
        if reason.is_abnormal() || from == target {
            set_pending_exit(slot, extras, reason.clone());
        }
        None
    });
    if let Some(Some((slot, deliver))) = trapped {
        // SAFETY: `deliver` was installed by the process with its own message type, and the
        // serial check inside `send` rejects any later incarnation of the slot.
        unsafe { deliver(slot, target.serial(), Exit { from, reason }) };
    }
}

/// Ends `target` with `reason` at its next poll, whatever it traps (the runtime ending a
/// process, not a signal from another). Returns whether it was alive.
pub(crate) fn terminate(target: ProcessId, reason: ExitReason) -> bool {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    with_live(target, |slot, extras| {
        set_pending_exit(slot, extras, reason)
    })
    .is_some()
}

/// Errors of [`Process::link`](crate::Process::link).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The other process is not alive (Erlang's `noproc`).
    #[error("noproc: the process to link to is not alive")]
    NoProc,
}

/// Links `me` and `other`. If `other` is dead, a non-trapping `me` gets `NoProc`, a trapping
/// one an `Exit` message with reason `noproc` (Erlang's rule).
pub(crate) fn link(me: ProcessId, other: ProcessId) -> Result<(), LinkError> {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    if me == other {
        return Ok(());
    }
    #[cfg(feature = "dist")]
    if let Some(remote) = remote::reach(other) {
        // The other node answers a link to a dead process with a `noproc` exit signal
        // (Erlang's rule across nodes: the link call itself cannot know).
        let added = with_live(me, |_, s| {
            let new = !s.links.contains(&other);
            if new {
                s.links.push(other);
            }
            new
        });
        if added == Some(true) {
            remote.link(me, other);
        }
        return Ok(());
    }
    let my_slot = TABLE
        .lookup(me)
        .expect("the caller is a live local process");
    // A stale id of our own slot names a dead process; never lock our slot twice.
    let other_slot = TABLE.lookup(other).filter(|_| other.index() != me.index());
    let trapping = {
        let (mut mine, theirs) = match other_slot {
            Some(other_slot) if other.index() < me.index() => {
                let theirs = other_slot.lock_extras();
                (my_slot.lock_extras(), Some((other_slot, theirs)))
            }
            Some(other_slot) => {
                let mine = my_slot.lock_extras();
                (mine, Some((other_slot, other_slot.lock_extras())))
            }
            None => (my_slot.lock_extras(), None),
        };
        let my_extras = mine.get_or_insert_with(Box::default);
        match theirs {
            Some((other_slot, mut theirs)) if other_slot.is_alive(other.serial()) => {
                let their_extras = theirs.get_or_insert_with(Box::default);
                if !my_extras.links.contains(&other) {
                    my_extras.links.push(other);
                    their_extras.links.push(me);
                }
                return Ok(());
            }
            _ => my_extras
                .trap_exit
                .then_some(my_extras.deliver_exit)
                .flatten(),
        }
    };
    match trapping {
        Some(deliver) => {
            // SAFETY: installed by this process for its own message type.
            unsafe {
                deliver(
                    my_slot,
                    me.serial(),
                    Exit {
                        from: other,
                        reason: ExitReason::NoProc,
                    },
                )
            };
            Ok(())
        }
        None => Err(LinkError::NoProc),
    }
}

/// Removes the link between `me` and `other`, if any. Once this returns, an exit of either
/// does not reach the other through the link.
pub(crate) fn unlink(me: ProcessId, other: ProcessId) {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    let unlink = |id, from| {
        peek_live(id, |_, s| {
            if let Some(s) = s {
                s.links.retain(|&l| l != from)
            }
        })
    };
    unlink(me, other);
    #[cfg(feature = "dist")]
    if let Some(remote) = remote::reach(other) {
        return remote.unlink(me, other);
    }
    unlink(other, me);
}

/// Installs a monitor of `target` for `watcher` (a live process). A dead target delivers a
/// `Down` with reason `noproc` at once.
pub(crate) fn monitor(watcher: ProcessId, target: ProcessId, deliver: DeliverDown) -> MonitorRef {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    #[cfg(feature = "dist")]
    if let Some(remote) = remote::reach(target) {
        let r = new_ref();
        let added = with_live(watcher, |_, s| {
            s.watching.insert(r, target);
            s.remote_downs.push(crate::rt::table::extras::RemoteDown {
                monitor: r,
                deliver,
                by_name: None,
            });
        });
        if added.is_some() {
            remote.monitor(watcher, target, r);
        }
        return r;
    }
    let entry = Watcher::Process {
        pid: watcher,
        deliver,
    };
    install(watcher, Some(target), entry, deliver, None)
}

/// Installs a monitor by name for `watcher` (Erlang's `monitor(process, Name)`): of
/// `holder`, the process that holds `name` now (the registry, a layer above, looks it up),
/// which later holders of the name do not inherit. No holder delivers a `Down` with reason
/// `noproc` at once.
pub(crate) fn monitor_name(
    watcher: ProcessId,
    holder: Option<ProcessId>,
    name: Atom,
    deliver: DeliverDown,
) -> MonitorRef {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    let name = RegisteredName::local(name);
    let entry = Watcher::ByName(Box::new(NameWatcher {
        pid: watcher,
        deliver,
        name: name.clone(),
    }));
    install(watcher, holder, entry, deliver, Some(name))
}

/// The common part of [`monitor`] and [`monitor_name`]: `entry` goes to `target`'s
/// watchers; a target that is not alive (or none) gets the watcher a `noproc` `Down`.
fn install(
    watcher: ProcessId,
    target: Option<ProcessId>,
    entry: Watcher,
    deliver: DeliverDown,
    by_name: Option<RegisteredName>,
) -> MonitorRef {
    let r = new_ref();
    let pid = target.unwrap_or(ProcessId::NONE);
    let _ = with_live(watcher, |_, s| s.watching.insert(r, pid));
    let added = target.and_then(|target| with_live(target, |_, s| s.watchers.insert(r, entry)));
    if added.is_none() {
        let down = Down {
            monitor: r,
            pid,
            reason: ExitReason::NoProc,
            by_name: by_name.map(Box::new),
        };
        send_down(watcher, deliver, down);
    }
    r
}

/// Tells `listener` when `target` ends. Returns `None`, without telling it, if `target` is
/// not alive; else the reference [`unwatch`] takes.
pub(crate) fn watch(target: ProcessId, listener: Arc<dyn ExitListener>) -> Option<MonitorRef> {
    let r = new_ref();
    with_live(target, |_, s| {
        s.watchers.insert(r, Watcher::Listener(listener))
    })?;
    Some(r)
}

/// Removes a watch made by [`watch`]. Returns true if it had not fired.
pub(crate) fn unwatch(target: ProcessId, r: MonitorRef) -> bool {
    remove_watcher(target, r)
}

/// Removes a monitor. Returns true if it was still active: its `Down` had not been
/// delivered, and now never will be.
///
/// The watcher's `watching` entry decides, removed under the watcher's lock either here or
/// by [`send_down`], which queues the `Down` under that same lock: whoever removes it first
/// wins. The target's side is only cleaned up: the target may be ending at this moment, with
/// its `Down` on the way, and what it holds says nothing about whether that `Down` will
/// arrive.
pub(crate) fn demonitor(watcher: ProcessId, r: MonitorRef) -> bool {
    // Behind the messages this process has gathered for the target (see `rt::outbox`).
    outbox::flush();
    let target = peek_live(watcher, |_, s| {
        let s = s.as_mut()?;
        let target = s.watching.remove(r)?;
        #[cfg(feature = "dist")]
        s.remote_downs.retain(|d| d.monitor != r);
        Some(target)
    })
    .flatten();
    match target {
        #[cfg(feature = "dist")]
        Some(target) if remote::reach(target).is_some() => {
            if let Some(remote) = remote::reach(target) {
                remote.demonitor(watcher, target, r);
            }
            true
        }
        Some(target) => {
            remove_watcher(target, r);
            true
        }
        None => false,
    }
}

fn remove_watcher(target: ProcessId, r: MonitorRef) -> bool {
    peek_live(target, |_, s| {
        s.as_mut().is_some_and(|s| s.watchers.remove(r).is_some())
    })
    .unwrap_or(false)
}

/// Installs a monitor by `{name, node}` (a node other than this one) for `watcher`.
#[cfg(feature = "dist")]
pub(crate) fn monitor_remote_name(
    watcher: ProcessId,
    node: u32,
    name: Atom,
    deliver: DeliverDown,
) -> MonitorRef {
    let r = new_ref();
    let target = remote::by_name_target(node);
    let Some(remote) = remote::reach(target) else {
        // No distribution: the node cannot be reached.
        let down = Down {
            monitor: r,
            pid: target,
            reason: ExitReason::NoConnection,
            by_name: Some(Box::new(RegisteredName { name, node })),
        };
        let _ = with_live(watcher, |_, s| s.watching.insert(r, target));
        send_down(watcher, deliver, down);
        return r;
    };
    let added = with_live(watcher, |_, s| {
        s.watching.insert(r, target);
        s.remote_downs.push(crate::rt::table::extras::RemoteDown {
            monitor: r,
            deliver,
            by_name: Some(Box::new(RegisteredName {
                name: name.clone(),
                node,
            })),
        });
    });
    if added.is_some() {
        remote.monitor_name(watcher, node, &name, r);
    }
    r
}

/// Delivers the `Down` of a monitor `watcher` holds on a process of another node (the
/// distribution layer reports its end, or the loss of its node). Returns whether the
/// monitor was still active.
#[cfg(feature = "dist")]
pub(crate) fn remote_down(
    watcher: ProcessId,
    r: MonitorRef,
    target: ProcessId,
    reason: ExitReason,
) -> bool {
    let delivered = peek_live(watcher, |slot, s| {
        let s = s.as_mut()?;
        let i = s.remote_downs.iter().position(|d| d.monitor == r)?;
        let remote = s.remote_downs.swap_remove(i);
        s.watching.remove(r)?;
        let down = Down {
            monitor: r,
            pid: target,
            reason,
            by_name: remote.by_name,
        };
        // SAFETY: `deliver` was installed by the watcher for its own message type; `send`
        // checks the serial.
        unsafe { (remote.deliver)(slot, watcher.serial(), down) };
        Some(())
    });
    matches!(delivered, Some(Some(())))
}

/// Delivers a `Down` to a watcher, forgetting the watcher's record of the monitor.
///
/// Only if the watcher still holds the monitor, checked and delivered under the watcher's
/// lock: once `demonitor` has returned, no `Down` of that monitor can be queued any more
/// (Erlang's guarantee). Pushing under the lock is safe: a push never takes a slot lock.
fn send_down(watcher: ProcessId, deliver: DeliverDown, down: Down) {
    let r = down.monitor;
    let _ = peek_live(watcher, |slot, s| {
        if s.as_mut().and_then(|s| s.watching.remove(r)).is_none() {
            return;
        }
        // SAFETY: `deliver` was installed by the watcher for its own message type; `send`
        // checks the serial.
        unsafe { deliver(slot, watcher.serial(), down) };
    });
}

/// The end of a process: marks it dead, releases its name, and sends its exit signals
/// (links first, then monitors: the BEAM delivers EXIT before DOWN).
pub(crate) fn process_exited(slot: &'static Slot, id: ProcessId, reason: ExitReason) {
    let extras = {
        let mut guard = slot.lock_extras();
        slot.begin_exit();
        guard.take()
    };
    TABLE.live.fetch_sub(1, Ordering::Relaxed);
    metrics::count_exit(&reason);
    if let Some(mut extras) = extras {
        if let Some(bound) = extras.bound.take() {
            // Senders waiting for room (`send_async`) hold the semaphore: closing it ends
            // their wait, dropping it would not.
            bound.close();
        }
        if let Some(name) = extras.name.take() {
            (name.release)(&name.name, id);
        }
        for linked in extras.links.drain(..) {
            exit_signal(linked, id, reason.clone(), true);
        }
        for (r, watcher) in extras.watchers.drain() {
            match watcher {
                Watcher::Process { pid, deliver } => send_down(
                    pid,
                    deliver,
                    Down {
                        monitor: r,
                        pid: id,
                        reason: reason.clone(),
                        by_name: None,
                    },
                ),
                Watcher::ByName(w) => send_down(
                    w.pid,
                    w.deliver,
                    Down {
                        monitor: r,
                        pid: id,
                        reason: reason.clone(),
                        by_name: Some(Box::new(w.name)),
                    },
                ),
                Watcher::Hook(hook) => hook(&reason),
                Watcher::Listener(listener) => listener.exited(&reason),
            }
        }
        for (r, target) in extras.watching.drain() {
            #[cfg(feature = "dist")]
            if let Some(remote) = remote::reach(target) {
                remote.demonitor(id, target, r);
                continue;
            }
            remove_watcher(target, r);
        }
    }
    slot.end_exit();
}

/// Sets or clears exit trapping for `me`, installing the conversion of `Exit` messages.
pub(crate) fn set_trap_exit(me: ProcessId, on: bool, deliver: DeliverExit) -> bool {
    with_live(me, |_, s| {
        let was = s.trap_exit;
        s.trap_exit = on;
        s.deliver_exit = Some(deliver);
        was
    })
    .unwrap_or(false)
}

/// Takes the reason of a pending exit signal (the process is ending because of it).
pub(crate) fn take_pending_exit(slot: &Slot) -> ExitReason {
    slot.lock_extras()
        .as_mut()
        .and_then(|s| s.pending_exit.take())
        .unwrap_or(ExitReason::Killed)
}
