//! Sending: [`Pid::send`] and the bounded-mailbox variants.

use std::mem;

use crate::rt::current;
use crate::rt::metrics;
use crate::rt::outbox;
use crate::rt::signals;
use crate::rt::table::slot::PERMIT_TAG;
use crate::rt::table::{Slot, TABLE};
use crate::values::pid::{Pid, ProcessId};

/// Why [`Pid::try_send`] could not queue a message; the message comes back.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrySendError<M> {
    /// The process's bounded mailbox is full.
    #[error("the mailbox is full")]
    Full(M),
    /// The process is not alive.
    #[error("the process is not alive")]
    Dead(M),
}

impl<M: Send + 'static> Pid<M> {
    /// Sends a message. Never blocks and never fails: sending to a process that has ended
    /// drops the message silently, as in Erlang. The message is moved, never copied; share
    /// big immutable data through `Arc`.
    ///
    /// Messages from one sender to one receiver arrive in the order they were sent.
    ///
    /// ```
    /// use std::sync::Arc;
    /// mote::run(|mut p: mote::Process<Arc<Vec<u64>>>| async move {
    ///     let big = Arc::new((0..1_000_000).collect::<Vec<u64>>());
    ///     p.pid().send(Arc::clone(&big)); // a pointer moves, not a million numbers
    ///     assert!(Arc::ptr_eq(&p.recv().await, &big));
    /// })
    /// .unwrap();
    /// ```
    ///
    /// A process's run of sends to one busy receiver may be queued a batch at a time, at
    /// the latest when its poll ends (the sender's next `await` that waits): ordering is
    /// kept, delivery may come later than the send returned (**deviation** from the BEAM,
    /// which would have preempted a sender that long; see the module docs of `rt::outbox`
    /// in the source and docs/design.md).
    #[inline]
    pub fn send(&self, message: M) {
        // Checked before the message is touched, so that a send with no target (a round
        // trip, a relay to a waiting process) moves it once, straight into the mailbox.
        if outbox::has_target() {
            return self.send_gathering(message);
        }
        self.send_now(message);
    }

    /// [`Pid::send`] with no target in this thread's outbox: queued at once, the message
    /// read from where the caller put it (see [`Pid::deliver_from`]). Out of line, as the
    /// whole send was before the outbox.
    #[inline(never)]
    fn send_now(&self, message: M) {
        // SAFETY: `message` is initialised; taken, it is forgotten, else dropped here.
        match unsafe { self.deliver_from::<true>(&raw const message, 0) } {
            Some(_) => mem::forget(message),
            None => drop(message),
        }
    }

    /// [`Pid::send`] while this thread's outbox has a target (only a process's poll primes
    /// one, so the thread is pinned): gathered if this is it, else queued now.
    #[inline(never)]
    fn send_gathering(&self, message: M) {
        let id = self.id();
        let Some(slot) = TABLE.lookup(id) else {
            let _ = self.deliver::<true>(message, 0);
            return;
        };
        let message = if outbox::is_target(slot) {
            match outbox::gather(slot, id.serial(), message) {
                None => return,
                Some(message) => message,
            }
        } else {
            message
        };
        // SAFETY: as in `send_now`.
        match unsafe { Self::queue::<true>(slot, id, 0, &raw const message, true) } {
            Some(_) => mem::forget(message),
            None => drop(message),
        }
    }

    /// [`Pid::send`] that gives the message back if the process is not alive; once queued,
    /// whether the process had not yet begun to exit (a pid of another node always takes the
    /// message: `true`). False means the message may sit unread until the process's slot is
    /// recycled (see `Sent`): a sender waiting for an answer treats the process as gone.
    #[inline]
    pub(crate) fn send_or_return(&self, message: M) -> Result<bool, M> {
        self.deliver::<false>(message, 0)
    }

    /// Queues `message`, or gives it back if the process is not alive; with `GATHER`, a
    /// process's poll may leave it in its thread's outbox for now (see `rt::outbox`).
    #[inline]
    fn deliver<const GATHER: bool>(&self, message: M, tag: u64) -> Result<bool, M> {
        // SAFETY: `message` is initialised; taken, it is forgotten, else given back.
        match unsafe { self.deliver_from::<GATHER>(&raw const message, tag) } {
            Some(before_exit) => {
                mem::forget(message);
                Ok(before_exit)
            }
            None => Err(message),
        }
    }

    /// [`Pid::deliver`] of the message at `message`, moved out of it if the process takes it
    /// (`Some`, with whether it had not yet begun to exit), left there if not (`None`).
    ///
    /// By pointer all the way to the mailbox cell (`Slot::send_from`): a send that moved the
    /// message by value from function to function, even inlined, copied it to its own stack
    /// ahead of its checks, a load of a value its caller had just written in pieces (a
    /// stalled store-to-load forward per message): `ring` ran 8% slower with it.
    ///
    /// # Safety
    /// `message` points at an initialised `M`, which the caller neither uses nor drops
    /// after `Some`.
    #[inline(always)]
    unsafe fn deliver_from<const GATHER: bool>(&self, message: *const M, tag: u64) -> Option<bool> {
        let id = self.id();
        match TABLE.lookup(id) {
            Some(slot) => {
                let pinned = current::pinned();
                if pinned && !GATHER {
                    outbox::flush();
                }
                // SAFETY: the caller's contract.
                unsafe { Self::queue::<GATHER>(slot, id, tag, message, pinned) }
            }
            #[cfg(feature = "dist")]
            None if !id.is_local() => {
                // SAFETY: the caller's contract: the message is ours to take.
                crate::process::dist::send(id, unsafe { message.read() });
                Some(true)
            }
            None => None,
        }
    }

    /// Queues the message at `message` in `slot`'s mailbox now (`None`: the process is gone,
    /// the message left where it is). With `GATHER`, a send from a process's poll to a
    /// receiver that was not waiting makes it the outbox's target.
    ///
    /// # Safety
    /// As for [`Pid::deliver_from`].
    #[inline(always)]
    unsafe fn queue<const GATHER: bool>(
        slot: &'static Slot,
        id: ProcessId,
        tag: u64,
        message: *const M,
        pinned: bool,
    ) -> Option<bool> {
        // SAFETY: a `Pid<M>` is only made for a process whose mailbox takes `M` (by `spawn`
        // or a type-checked registry lookup), and `send_from` checks the serial, so a reused
        // slot of another type is never written to. `pinned()`: see `Slot::send`. The
        // message: the caller's contract.
        let sent = unsafe { slot.send_from::<M>(id.serial(), tag, message, pinned) };
        if pinned {
            if GATHER && matches!(sent, Some(sent) if !sent.was_waiting) {
                outbox::prime::<M>(slot, id.serial());
            }
            // A long sending poll must not hold back recycling.
            current::repin_after_sends(1);
        }
        let sent = sent?;
        metrics::count_send();
        Some(sent.before_exit)
    }

    /// Sends without waiting, failing if the process's bounded mailbox is full or the
    /// process is dead. For an unbounded mailbox it fails only on a dead process.
    ///
    /// ```
    /// use mote::{Process, SpawnOptions, TrySendError};
    /// mote::run(|_p: Process<()>| async move {
    ///     let pid = SpawnOptions::new().mailbox_bound(1).spawn(|mut c: Process<u8>| async move {
    ///         mote::sleep(std::time::Duration::from_millis(50)).await;
    ///         c.recv().await;
    ///     });
    ///     assert_eq!(pid.try_send(1), Ok(()));
    ///     assert_eq!(pid.try_send(2), Err(TrySendError::Full(2)));
    /// })
    /// .unwrap();
    /// ```
    pub fn try_send(&self, message: M) -> Result<(), TrySendError<M>> {
        let Some(bound) = self.bound() else {
            return self
                .deliver::<false>(message, 0)
                .map(drop)
                .map_err(TrySendError::Dead);
        };
        match bound.try_acquire() {
            Ok(permit) => permit.forget(),
            // Closed: the process ended after `bound` was read.
            Err(tokio::sync::TryAcquireError::Closed) => return Err(TrySendError::Dead(message)),
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                return Err(TrySendError::Full(message))
            }
        }
        // The tag makes the receive give the permit back; a dead process keeps it (gone).
        self.deliver::<false>(message, PERMIT_TAG)
            .map(drop)
            .map_err(TrySendError::Dead)
    }

    /// Sends, waiting while the process's bounded mailbox is full (backpressure). For an
    /// unbounded mailbox, or a dead process, it returns at once, like [`send`](Pid::send);
    /// if the process ends while the sender waits, it returns then, the message dropped.
    ///
    /// To a process of another node (with distribution), it waits while the connection to
    /// that node is busy (more queued than the socket takes, past the transport's limit,
    /// see [`Transport::busy`](crate::dist::Transport::busy)), then sends: a process
    /// streaming to another node this way holds its memory to that limit, as Erlang
    /// suspends a sender on a busy distribution port. [`send`](Pid::send) never waits
    /// (**deviation:** Erlang's `!` suspends there too; a synchronous send cannot).
    ///
    /// ```
    /// mote::run(|mut p: mote::Process<u8>| async move {
    ///     p.pid().send_async(1).await;
    ///     assert_eq!(p.recv().await, 1);
    /// })
    /// .unwrap();
    /// ```
    pub async fn send_async(&self, message: M) {
        #[cfg(feature = "dist")]
        if !self.id().is_local() {
            crate::process::dist::writable(self.id().node()).await;
            return self.send(message);
        }
        let Some(bound) = self.bound() else {
            return self.send(message);
        };
        let acquired = bound.acquire().await.map(|permit| permit.forget()).is_ok();
        if acquired {
            let _ = self.deliver::<false>(message, PERMIT_TAG);
        }
    }

    fn bound(&self) -> Option<std::sync::Arc<tokio::sync::Semaphore>> {
        let slot = TABLE.lookup(self.id())?;
        if !slot.is_bounded() {
            return None;
        }
        signals::peek_live(self.id(), |_, s| s.as_ref()?.bound.clone()).flatten()
    }
}

/// Whether the process is alive.
///
/// ```
/// mote::run(|p: mote::Process<()>| async move {
///     assert!(mote::is_alive(p.pid()));
/// })
/// .unwrap();
/// ```
pub fn is_alive(pid: impl Into<ProcessId>) -> bool {
    let id = pid.into();
    TABLE
        .lookup(id)
        .is_some_and(|slot| slot.is_alive(id.serial()))
}
