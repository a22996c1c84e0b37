//! One entry of the process table: the shared half of a process.
//!
//! Everything other processes touch lives here: the mailbox, the task's state (its cell), the
//! liveness flags, and (behind a lock, allocated only when used) links, monitors and name.
//! Slots are pooled: the table never frees one, it recycles it for a new process with a new
//! serial (the [`ProcessId::serial`] of its ids). That is what lets a [`Pid`](crate::Pid) be a plain id: reaching a slot
//! through a stale id is always memory-safe, and the serial check turns it into a no-op.
//!
//! Other modules reach the slot only through its methods: the state word's bits below are
//! private to this file.
//!
//! # The state word
//!
//! ```text
//!  63                         6    5      4       3       2      1       0
//! +----------------------------+-------+------+-------+------+-------+-------+
//! |         references         |BOUNDED| EXIT |FOREIGN|PARKED| DYING | ALIVE |
//! +----------------------------+-------+------+-------+------+-------+-------+
//! ```
//!
//! * A sender outside any process takes a *reference* (`fetch_add`) before pushing and gives
//!   it back after. While any reference is held the slot cannot be recycled, so the push, and
//!   the wake that may follow, touch live memory. The process holds one reference for its
//!   whole life, given back one epoch grace period after it ends. A sender inside a process
//!   needs no reference: its poll holds an epoch guard (see [`Slot::send`]).
//! * `PARKED` is set by the receiver when its mailbox is empty; a sender that sees it after
//!   pushing clears it and wakes the task. The receiver's `SeqCst` set-then-check of `tail`
//!   and the sender's `SeqCst` swap-then-check of the word form a Dekker pair: one of them
//!   always sees the other, so no wake-up is lost (checked by loom).
//! * `DYING` is set when the process ends; whoever drops the last reference afterwards
//!   claims it (clears it) and recycles the slot, dropping messages still queued.

use std::mem;
use std::ptr;
use std::task::Waker;

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use parking_lot::lock_api::RawMutex as _;
use parking_lot::RawMutex;

use super::extras::Extras;
use crate::rt::mailbox::queue::Queue;
use crate::rt::sync::{AtomicPtr, AtomicU32, AtomicU64, Ordering, UnsafeCell};
use crate::rt::task::{Runnable, Schedule, TaskBody, TaskCell};
use crate::values::pid::ProcessId;

const ALIVE: u64 = 1 << 0;
const DYING: u64 = 1 << 1;
const PARKED: u64 = 1 << 2;
const FOREIGN: u64 = 1 << 3;
const EXIT_PENDING: u64 = 1 << 4;
/// The mailbox is bounded (`Extras::bound` holds its permits).
const BOUNDED: u64 = 1 << 5;
/// The tag of a message that took a bounded-mailbox permit: receiving it gives the permit
/// back. Monitor references (the other nonzero tags) never reach this value.
pub(crate) const PERMIT_TAG: u64 = u64::MAX;
const REF: u64 = 1 << 6;
const REFS_MASK: u64 = !(REF - 1);
const POLL_ONE: u64 = 1 << 40;

/// How many messages one poll of a process may receive before it yields the thread.
const BUDGET: u16 = 512;

pub(crate) struct Slot {
    state: AtomicU64,
    pub(super) queue: Queue,
    /// The serial of the current incarnation; changes only while the slot is free.
    serial: AtomicU32,
    /// The run group of the incarnation, set by [`Slot::occupy`] before the incarnation is
    /// published (see [`Slot::run_group`]); while the
    /// slot is free and heads a chain in the table's shared free list, the next chain's
    /// first slot + 1 (0 = none), see [`Slot::next_chain`].
    ///
    /// The slot keeps neither its index (the table computes it from the slot's address,
    /// see `Table::index_of`) nor its task's size (its [`Kind`] knows it): 8 bytes less
    /// for every process (96 -> 88, 8 MB of the `million` benchmark's million).
    run_group: AtomicU32,
    /// Next free slot index + 1 while in the free list (0 = end); while occupied, the
    /// mailbox length last published by the owner.
    pub(super) next_free: AtomicU32,
    /// Owner-only: receives left in this poll (at most [`BUDGET`]: 2 bytes, so that the
    /// slot fits 88 bytes).
    budget: UnsafeCell<u16>,
    /// Messages received and polls, for introspection (written by the owner, read by all;
    /// each receive counts at once, which costs what counting it in a field of its own
    /// for the end of the poll did).
    work: AtomicU64,
    /// The task's cell (`rt::task`): its state word and the allocation of the current (or
    /// last) incarnation; wakers and runnables of the process are its address. It takes the
    /// place (and the 16 bytes) of the task's `Waker` that the slot kept before the state word
    /// moved here from the task's allocation. A dead incarnation's allocation stays until
    /// the slot is occupied again: the spawn that reuses the slot frees it on its own
    /// thread, where the allocator takes the memory back (and hands it to the new task)
    /// without the cross-thread free that made a million spawns 12% slower.
    task: TaskCell,
    /// The incarnation's [`Kind`]: how to drop its queued messages (it knows the message
    /// type, see [`drain`]) and its task's size. Null until the slot is first occupied;
    /// written only while no other thread can reach the incarnation (as the task), read
    /// by introspection at any time (hence atomic).
    kind: AtomicPtr<Kind>,
    /// Links, monitors, name and flags: allocated only for processes that use them. Guarded
    /// by `extras_lock` (see [`Slot::lock_extras`]).
    extras: std::cell::UnsafeCell<Option<Box<Extras>>>,
    /// The lock of `extras`, a byte apart from the pointer it guards: a
    /// `Mutex<Option<Box<_>>>` takes 16 bytes (the lock byte padded to the pointer's
    /// alignment), while this byte fits beside the 4-byte fields (every process pays for its
    /// slot: 112 -> 104 bytes).
    extras_lock: RawMutex,
}

// SAFETY: the `UnsafeCell` fields follow the access rules documented on them: `budget` is
// owner-only, `extras` is guarded by `extras_lock`; the task cell is `Sync` itself.
unsafe impl Sync for Slot {}
// SAFETY: as above; the slot owns nothing thread-bound.
unsafe impl Send for Slot {}

impl Slot {
    #[cfg_attr(not(loom), allow(dead_code))] // used to build slots in loom tests
    pub(crate) fn new() -> Self {
        Slot {
            state: AtomicU64::new(0),
            queue: Queue::new(),
            serial: AtomicU32::new(0),
            run_group: AtomicU32::new(0),
            next_free: AtomicU32::new(0),
            budget: UnsafeCell::new(0),
            work: AtomicU64::new(0),
            task: TaskCell::new(),
            kind: AtomicPtr::new(std::ptr::null_mut()),
            extras: std::cell::UnsafeCell::new(None),
            extras_lock: RawMutex::INIT,
        }
    }

    /// The slot whose task cell `cell` is.
    ///
    /// # Safety
    /// `cell` is the `task` field of a slot that lives for `'static` (a table slot; or a
    /// test's, kept past every use).
    #[inline]
    pub(crate) unsafe fn of_task(cell: &TaskCell) -> &'static Slot {
        let offset = mem::offset_of!(Slot, task);
        // SAFETY: the caller's promise: stepping back from the field by its offset stays in
        // the slot that contains it.
        unsafe { &*ptr::from_ref(cell).byte_sub(offset).cast::<Slot>() }
    }

    /// The serial of the incarnation the slot holds (or held last, or will hold next).
    #[inline]
    pub(crate) fn serial(&self) -> u32 {
        self.serial.load(Ordering::Relaxed)
    }

    /// This slot's index in the process table (0 for a slot the tests build outside it).
    #[inline]
    pub(crate) fn index(&self) -> u32 {
        #[cfg(not(loom))]
        return super::TABLE.index_of(self).unwrap_or(0);
        #[cfg(loom)]
        0
    }

    /// The id of the incarnation the slot holds (for its owner, or under the extras lock
    /// with the process seen alive: otherwise the slot may be recycled meanwhile).
    #[inline]
    pub(crate) fn id(&self) -> ProcessId {
        ProcessId::local(self.index(), self.serial())
    }

    /// Whether the incarnation `serial` is alive here.
    #[inline]
    pub(crate) fn is_alive(&self, serial: u32) -> bool {
        let state = self.state.load(Ordering::Acquire);
        state & ALIVE != 0 && self.serial() == serial
    }

    /// The id of the process the slot holds, if one is alive (a snapshot, for listings).
    ///
    /// The serial is read before the state. A serial changes only after its incarnation's
    /// `ALIVE` was cleared (`try_recycle` publishes it with Release), so an `ALIVE` read
    /// after the serial (Acquire) belongs to that serial's incarnation or a later one. If
    /// the slot is recycled between the two reads, the id is the ended process's: stale,
    /// and refused by every later check. Read the other way round, the id of a process
    /// born after the state was read could be paired with what was read of the one before
    /// it (see [`Slot::live_id_in_group`]).
    pub(crate) fn live_id(&self) -> Option<ProcessId> {
        let serial = self.serial.load(Ordering::Acquire);
        (self.state.load(Ordering::Acquire) & ALIVE != 0)
            .then(|| ProcessId::local(self.index(), serial))
    }

    /// The id of the process the slot holds, if one is alive and of run `group` (for a run
    /// ending, which ends the processes it finds with `shutdown`).
    ///
    /// The id is never that of a process of another group: the group is read after the
    /// `ALIVE` that [`Slot::live_id`] saw (Acquire), and `occupy` writes it before that
    /// `ALIVE` (Release); so it is the group of the id's incarnation, or, if that one has
    /// ended since, of a later state of the slot, when the id is stale and ending it does
    /// nothing.
    pub(crate) fn live_id_in_group(&self, group: u32) -> Option<ProcessId> {
        let id = self.live_id()?;
        (self.run_group() == group).then_some(id)
    }

    /// The slot's links, monitors, flags and name, locked. The lock is the one that orders
    /// relationship changes against the process's exit (see `rt::signals`).
    #[inline]
    pub(crate) fn lock_extras(&self) -> ExtrasGuard<'_> {
        self.extras_lock.lock();
        ExtrasGuard {
            slot: self,
            _not_send: PhantomData,
        }
    }

    /// While the slot is free and heads a chain of the table's shared free list: the link
    /// to the next chain. A free slot belongs to no run group, so it lends this word.
    pub(super) fn next_chain(&self) -> &AtomicU32 {
        &self.run_group
    }

    /// The size of the incarnation's task (of the last one, for a free slot; 0 before the
    /// first).
    pub(crate) fn task_bytes(&self) -> usize {
        let kind = self.kind.load(Ordering::Acquire);
        // SAFETY: a non-null kind is a `&'static Kind` (see `occupy`).
        unsafe { kind.as_ref() }.map_or(0, |kind| kind.task_bytes)
    }

    /// The `mote::run` whose processes this incarnation belongs to (inherited from its
    /// spawner; 0: none), so that a run ending can end the processes it left. For a slot
    /// read from outside, a snapshot: check the id is still alive before acting on it.
    pub(crate) fn run_group(&self) -> u32 {
        self.run_group.load(Ordering::Relaxed)
    }

    /// Marks the mailbox bounded: senders that wait for room look up its permits in the
    /// extras. Set at spawn, before the process can run.
    pub(crate) fn mark_bounded(&self) {
        self.state.fetch_or(BOUNDED, Ordering::Release);
    }

    /// Whether the mailbox is bounded (checked before locking the extras for its permits).
    #[inline]
    pub(crate) fn is_bounded(&self) -> bool {
        self.state.load(Ordering::Acquire) & BOUNDED != 0
    }

    /// Records that an exit signal must end the process at its next poll. The caller holds
    /// the extras lock, where the reason waits (`Extras::pending_exit`), and then wakes the
    /// task.
    pub(crate) fn mark_exit_pending(&self) {
        self.state.fetch_or(EXIT_PENDING, Ordering::AcqRel);
    }

    /// Whether an exit signal is ending the process.
    #[inline]
    pub(crate) fn is_exit_pending(&self) -> bool {
        self.state.load(Ordering::Acquire) & EXIT_PENDING != 0
    }

    /// Whether the process is parked in a receive with an empty mailbox (a snapshot).
    pub(crate) fn is_waiting(&self) -> bool {
        self.state.load(Ordering::Acquire) & (PARKED | FOREIGN) != 0
    }

    /// Makes the slot hold a new process of `run_group` running `body` (scheduled by `S`),
    /// and returns its first runnable (not yet scheduled). The slot is free: nobody else can
    /// reach this incarnation until `ALIVE` is published (a stale waker of the slot's task
    /// may wake it as soon as the task cell holds it: a spurious first wake, see
    /// [`TaskCell`]).
    ///
    /// # Safety
    /// The slot was just taken from the free list (or is fresh and initialised), it outlives
    /// every runnable and waker of its task (table slots are never freed), and `kind.drain`
    /// drops the messages of the process's message type `M`.
    pub(crate) unsafe fn occupy<B: TaskBody, S: Schedule>(
        &self,
        body: B,
        kind: &'static Kind,
        run_group: u32,
    ) -> Runnable {
        // Published with the state's Release below.
        self.kind
            .store(ptr::from_ref(kind).cast_mut(), Ordering::Relaxed);
        // SAFETY: the slot outlives its task's runnables and wakers (the caller's promise),
        // and its last incarnation is over: a slot is recycled only after its process
        // completed, and after the epoch pin that every run holds (see
        // `rt::scheduler::worker`) has moved past its end.
        let runnable = unsafe { self.task.spawn::<B, S>(body) };
        self.work.store(0, Ordering::Relaxed);
        self.next_free.store(0, Ordering::Relaxed);
        // Before ALIVE: a run ending reads the id (Acquire) and then the group, and must
        // never see this process beside the group of the slot's last incarnation (it would
        // end it with `shutdown` if that run is the one ending).
        self.run_group.store(run_group, Ordering::Relaxed);
        self.budget.with_mut(|b| {
            // SAFETY: the slot is free; the owner-to-be has not started.
            unsafe { *b = 0 };
        });
        // The process's own reference, and ALIVE, published with Release so that a sender
        // that sees ALIVE (Acquire) also sees the kind and serial.
        self.state.fetch_add(ALIVE | REF, Ordering::Release);
        runnable
    }

    /// Queues `value` for the incarnation `serial`, waking the receiver if it is parked.
    /// Returns the message back if that incarnation is gone (sending to a dead process is a
    /// no-op for the caller). Once queued: whether the incarnation had not yet begun its exit
    /// when the push was done ([`Sent`]), read from the load that decides the wake-up.
    ///
    /// Two paths keep the slot from being recycled under the push:
    /// * inside a process (`pinned`), the caller holds an epoch guard for the whole poll, and
    ///   a dead process's slot is recycled only after every such guard taken while it was
    ///   alive is gone; so plain loads of the state suffice, and the push costs one atomic
    ///   swap (a locked instruction per message was measured to cost more than the rest of
    ///   the send together, so this path does not count the message: the receiver publishes
    ///   its queue length instead, see `publish_len`);
    /// * anywhere else, the sender takes a reference for the duration of the push.
    ///
    /// # Safety
    /// If `serial` names the current incarnation, that process's message type is `M`. With
    /// `pinned`, the calling thread holds a `crossbeam_epoch` guard.
    #[inline(always)]
    pub(crate) unsafe fn send<M>(
        &self,
        serial: u32,
        tag: u64,
        value: M,
        pinned: bool,
    ) -> Result<Sent, M> {
        // SAFETY: the caller's contract; a `value` the send took is forgotten, not dropped.
        match unsafe { self.send_from::<M>(serial, tag, &raw const value, pinned) } {
            Some(sent) => {
                mem::forget(value);
                Ok(sent)
            }
            None => Err(value),
        }
    }

    /// [`Slot::send`] of the `M` at `value`: moved out of it if the send took it (`Some`),
    /// left there otherwise (`None`: the process is gone, the caller still owns it).
    ///
    /// Taking the message by pointer keeps it where the sender put it until it is copied
    /// into its mailbox cell: with `Result<Sent, M>` built inside the send, the message was
    /// first loaded into registers and the send's stack ahead of the checks (the result's
    /// `Ok` lives in a spare value of the message's own tag), a load of a value its caller
    /// had just written in pieces, which cost `ring` about 8% (a stalled store-to-load
    /// forward per hop).
    ///
    /// # Safety
    /// As for [`Slot::send`]; `value` points at an initialised `M`, which the caller must
    /// neither use nor drop after `Some`.
    #[inline(always)]
    pub(crate) unsafe fn send_from<M>(
        &self,
        serial: u32,
        tag: u64,
        value: *const M,
        pinned: bool,
    ) -> Option<Sent> {
        if pinned {
            if !self.is_alive(serial) {
                return None;
            }
            // SAFETY: the incarnation is alive and its type is `M` (the contract); the epoch
            // guard keeps it from being recycled until we are done.
            unsafe { self.queue.push_from::<M>(tag, value) };
            return Some(self.notify());
        }
        let state = self.state.fetch_add(REF, Ordering::Acquire);
        if state & ALIVE == 0 || self.serial() != serial {
            self.release(REF);
            return None;
        }
        // SAFETY: the incarnation is alive and its type is `M` (the contract).
        unsafe { self.queue.push_from::<M>(tag, value) };
        let sent = self.notify();
        self.release(REF);
        Some(sent)
    }

    /// [`Slot::send`] of `count` messages from a process's poll (the pinned path), moved
    /// out of `values` with one claim of positions (see `Queue::push_many`). False if the
    /// incarnation is gone: the values were not taken, the caller still owns them.
    ///
    /// # Safety
    /// As for [`Slot::send`] with `pinned`; `values` points at `count` initialised `M`s,
    /// which the caller gives up when this returns true.
    pub(crate) unsafe fn send_many<M>(&self, serial: u32, values: *const M, count: u32) -> bool {
        if !self.is_alive(serial) {
            return false;
        }
        // SAFETY: alive and of type `M` (the contract), kept from recycling by the epoch
        // guard of the poll; the values are the caller's to give.
        unsafe { self.queue.push_many::<M>(values, count) };
        self.notify();
        true
    }

    /// Called with a reference held, after a push: wakes the receiver if it parked. The same
    /// load says whether the process had begun its exit (see [`Sent`]).
    #[inline]
    fn notify(&self) -> Sent {
        let state = crate::rt::sync::dekker_load_u64(&self.state);
        if state & (PARKED | FOREIGN) != 0 {
            self.unpark();
        }
        Sent {
            before_exit: state & ALIVE != 0,
            was_waiting: state & (PARKED | FOREIGN) != 0,
        }
    }

    #[cold]
    fn unpark(&self) {
        let state = self.state.fetch_and(!(PARKED | FOREIGN), Ordering::SeqCst);
        if state & PARKED != 0 {
            self.wake_task();
        }
        if state & FOREIGN != 0 {
            if let Some(waker) = super::foreign::take(self.index()) {
                waker.wake();
            }
        }
    }

    /// Whether `waker` wakes this process's task (owner-only).
    pub(crate) fn is_task_waker(&self, waker: &Waker) -> bool {
        self.task.is_waker(waker)
    }

    /// Wakes the process's task: a compare-exchange on the slot's own line, no call through
    /// a waker's vtable.
    ///
    /// Callers hold a reference, or the extras lock while `ALIVE` is set: either keeps the
    /// incarnation they mean from being replaced (a wake of a later one would be spurious,
    /// which is harmless, see [`TaskCell`]).
    #[inline]
    pub(crate) fn wake_task(&self) {
        self.task.wake();
    }

    /// Drops `amount` of references. Recycles the slot if this was the last reference of a
    /// dead process.
    #[inline]
    pub(crate) fn release(&self, amount: u64) {
        let state = self.state.fetch_sub(amount, Ordering::AcqRel);
        if state & REFS_MASK == REF && state & DYING != 0 {
            self.try_recycle();
        }
    }

    #[cold]
    fn try_recycle(&self) {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            if state & DYING == 0 || state & REFS_MASK != 0 {
                return;
            }
            match self.state.compare_exchange(
                state,
                state & !DYING,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => state = actual,
            }
        }
        // SAFETY: we won DYING: the incarnation is over, no reference is held, and nobody
        // else can touch its mailbox or kind.
        unsafe { self.vacate() };
        // Keep only the transient references of stale senders; they will fail the ALIVE
        // check and release without side effects.
        self.state.fetch_and(REFS_MASK, Ordering::AcqRel);
        self.serial.fetch_add(1, Ordering::Release);
        #[cfg(not(loom))]
        crate::rt::table::TABLE.recycle(self);
    }

    /// Ends the incarnation's hold on the slot: drops its queued messages (its task's
    /// allocation stays until the slot is occupied again, see the `task` field).
    /// Recycling does this; the tests do it alone, without handing the slot back to the
    /// table.
    ///
    /// # Safety
    /// The slot is occupied, and no sender or receiver is active.
    pub(crate) unsafe fn vacate(&self) {
        // SAFETY: a non-null kind is a `&'static Kind` (see `occupy`).
        if let Some(kind) = unsafe { self.kind.load(Ordering::Acquire).as_ref() } {
            // SAFETY: exclusive access (the caller's contract); `drain` matches the queued
            // messages' type.
            crate::rt::mailbox::leftovers::as_leftovers(|| unsafe {
                (kind.drain)(self, Drain::Final)
            });
        }
    }

    /// Owner-only, as the process ends: drops the messages queued now, waiting out pushes in
    /// progress, while the process's exit reason is still known to their destructors (a
    /// call's reply slot reports it). Called again after `begin_exit`, for the messages that
    /// raced it (see `Sent`); what a sender adds after that goes when the slot is
    /// recycled.
    ///
    /// # Safety
    /// Called by the process's own task, which receives no more.
    pub(crate) unsafe fn drop_queued(&self) {
        // SAFETY: a non-null kind is a `&'static Kind` (see `occupy`).
        if let Some(kind) = unsafe { self.kind.load(Ordering::Acquire).as_ref() } {
            // SAFETY: set at `occupy`, before the task ran; we are the queue's consumer (the
            // contract).
            unsafe { (kind.drain)(self, Drain::Queued) };
        }
    }

    /// Tests only: drops the process's own reference at once (`end_exit` defers it by an
    /// epoch grace period, which loom cannot model).
    #[cfg(all(test, loom))]
    pub(crate) fn release_own_reference(&self) {
        self.release(REF);
    }

    /// Marks the process dead (no sender will push any more) and drops its own reference.
    /// The caller holds the extras lock, so link and monitor requests see it dead.
    pub(crate) fn begin_exit(&self) {
        // ALIVE is set and DYING clear: one xor flips both. SeqCst: the Dekker pair with a
        // sender's push and its load of the state after it (see `Sent`).
        self.state.fetch_xor(ALIVE | DYING, Ordering::SeqCst);
    }

    /// Drops the process's own reference once no epoch-pinned sender can still be pushing:
    /// the slot is recycled after the current grace period.
    pub(crate) fn end_exit(&'static self) {
        let guard = crossbeam_epoch::pin();
        guard.defer(move || self.release(REF));
    }

    // ---- owner-only half: called from the process's own task ----

    /// Starts a poll of the task: a fresh receive budget.
    #[inline]
    pub(crate) fn begin_poll(&self) {
        self.budget.with_mut(|b| {
            // SAFETY: owner-only field, and we are the owner's task.
            unsafe { *b = BUDGET };
        });
        self.bump_work(POLL_ONE);
    }

    /// `work` packs received messages (low 40 bits) and polls (high 24 bits, wrapping).
    /// Only the owner writes it, so a plain load and store suffice.
    #[inline]
    fn bump_work(&self, delta: u64) {
        let work = self.work.load(Ordering::Relaxed);
        self.work.store(work.wrapping_add(delta), Ordering::Relaxed);
    }

    /// Messages received and polls so far.
    pub(crate) fn work_counts(&self) -> (u64, u64) {
        let work = self.work.load(Ordering::Relaxed);
        (work & (POLL_ONE - 1), work >> 40)
    }

    /// Takes the next message.
    ///
    /// # Safety
    /// Called only by the process that owns this slot, whose message type is `M`.
    // Always: left to LLVM, a receive with a large message type (a server's `Envelope`)
    // called it, and the `Option<(u64, M)>` it wrote to the stack in 8- and 16-byte pieces
    // was read back in 16-byte loads that straddled them: a stalled store-to-load forward,
    // the hottest instruction of a server's loop (8% of `call`'s time; docs/design.md, "Values
    // that move through the stack").
    #[inline(always)]
    pub(crate) unsafe fn pop<M>(&self) -> Option<(u64, M)> {
        // SAFETY: owner-only (the contract).
        let message = unsafe { self.queue.pop::<M>() }?;
        self.bump_work(1);
        if message.0 == PERMIT_TAG {
            self.return_permit();
        }
        Some(message)
    }

    #[cold]
    fn return_permit(&self) {
        if let Some(bound) = self.lock_extras().as_ref().and_then(|s| s.bound.as_ref()) {
            bound.add_permits(1);
        }
    }

    /// Consumes one unit of receive budget; false when the poll must yield.
    #[inline]
    pub(crate) fn take_budget(&self) -> bool {
        self.budget.with_mut(|b| {
            // SAFETY: owner-only field.
            let b = unsafe { &mut *b };
            if *b == 0 {
                false
            } else {
                *b -= 1;
                true
            }
        })
    }

    /// Owner-only, with the mailbox found empty before parking: gives up a large head
    /// block for a short one, so that a process waiting between bursts of messages holds
    /// little (see `Queue::shrink_idle`).
    ///
    /// Out of line: a call per wait costs less than what the check would add to every
    /// receive's code (inlined, it made `million`'s receives measurably slower).
    ///
    /// # Safety
    /// Called only by the process that owns this slot, whose message type is `M`.
    #[inline(never)]
    pub(crate) unsafe fn shrink_idle<M>(&self) {
        // SAFETY: owner-only (the contract): we are the queue's consumer.
        unsafe { self.queue.shrink_idle::<M>() };
    }

    /// Parks the receiver: after this, the next push wakes `waker`'s task. Returns false if
    /// a message arrived meanwhile (the caller must pop again instead of sleeping).
    ///
    /// # Safety
    /// Owner-only. `foreign` is true when `waker` is not the task's own waker; it must then
    /// already be stored with `table::foreign::store`.
    pub(crate) unsafe fn park(&self, foreign: bool) -> bool {
        let flag = if foreign { FOREIGN } else { PARKED };
        self.state.fetch_or(flag, Ordering::SeqCst);
        // SAFETY: owner-only.
        if unsafe { self.queue.is_empty() } {
            return true;
        }
        // A message is (being) pushed: undo, unless its sender already took the flag.
        self.state.fetch_and(!flag, Ordering::SeqCst);
        false
    }

    /// The number of queued messages, pushes in progress included (owner-only).
    ///
    /// # Safety
    /// Called only by the process that owns this slot.
    pub(crate) unsafe fn mailbox_len(&self) -> usize {
        // SAFETY: owner-only (the contract): we are the queue's consumer.
        unsafe { self.queue.len() }
    }

    /// The queue length the owner last published (see `publish_len`).
    pub(crate) fn queued(&self) -> u64 {
        self.next_free.load(Ordering::Relaxed) as u64
    }

    /// Owner-only: records the current queue length for introspection (up to `u32::MAX`).
    /// `next_free` is only meaningful while the slot is free, so an occupied slot lends it
    /// for this.
    pub(crate) fn publish_len(&self, extra: usize) {
        // SAFETY: owner-only: we are the queue's consumer.
        let len = unsafe { self.queue.len() } + extra;
        self.next_free
            .store(len.min(u32::MAX as usize) as u32, Ordering::Relaxed);
    }
}

/// The locked extras of a slot (see [`Slot::lock_extras`]); unlocks when dropped.
pub(crate) struct ExtrasGuard<'a> {
    slot: &'a Slot,
    /// Unlocked on the thread that locked, as a `parking_lot::MutexGuard` is.
    _not_send: PhantomData<*const ()>,
}

impl Deref for ExtrasGuard<'_> {
    type Target = Option<Box<Extras>>;

    #[inline]
    fn deref(&self) -> &Self::Target {
        // SAFETY: the guard holds `extras_lock`, which guards `extras`.
        unsafe { &*self.slot.extras.get() }
    }
}

impl DerefMut for ExtrasGuard<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        // SAFETY: as in `deref`; `&mut self` makes this the only borrow through the guard.
        unsafe { &mut *self.slot.extras.get() }
    }
}

impl Drop for ExtrasGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the guard was made by `lock_extras`, which locked; this is its one unlock.
        unsafe { self.slot.extras_lock.unlock() };
    }
}

/// A message queued by [`Slot::send`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    /// Whether the process had not begun its exit when the message went in (the serial
    /// cannot have changed: the sender's guard or reference keeps the slot). False means the
    /// message may have come too late to be drained while the process ended: its owner
    /// waits out pushes in progress after `begin_exit` and drops what it finds (see
    /// `drop_queued`), but a push after that waits in the queue until the slot is recycled,
    /// which may be long. Of the sender's push-then-load and the owner's
    /// `begin_exit`-then-drain, at least one sees the other (both sequentially consistent),
    /// so a message is either found by the owner's last drain or its sender learns here
    /// that the process is gone.
    pub(crate) before_exit: bool,
    /// Whether the process was parked waiting for mail (this send woke it).
    pub(crate) was_waiting: bool,
}

/// The type-erased [`drain`] of a process's message type.
pub(crate) type DrainFn = unsafe fn(&Slot, Drain);

/// What a slot knows of its incarnation's types, shared by every process of the same
/// message and future types (a `'static` constant per pair, see `process::spawn`), so that
/// the slot keeps one pointer for both.
pub(crate) struct Kind {
    /// Drops the queued messages: [`drain`] for the message type.
    pub(crate) drain: DrainFn,
    /// The size of the task allocation, for introspection.
    pub(crate) task_bytes: usize,
}

/// Which messages [`drain`] drops.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drain {
    /// Those queued now: the owner, as its process ends (senders may still push).
    Queued,
    /// All, returning the queue to its initial state: the slot is being recycled.
    Final,
}

/// Drops the queued messages of a process whose message type is `M`.
///
/// # Safety
/// The slot's messages are `M`s. With [`Drain::Final`], no other thread touches the
/// slot's queue; with [`Drain::Queued`], the caller is its consumer.
pub(crate) unsafe fn drain<M>(slot: &Slot, which: Drain) {
    // SAFETY: the caller's contract.
    unsafe {
        match which {
            Drain::Queued => drop(slot.queue.drop_queued::<M>()),
            Drain::Final => drop(slot.queue.drain::<M>()),
        }
    }
}
