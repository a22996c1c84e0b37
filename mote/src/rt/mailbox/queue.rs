//! The lock-free multi-producer, single-consumer queue under every mailbox.
//!
//! Messages live in blocks of slots, not in one allocation each: a block holds a run of
//! consecutive *positions*, and a message is written in place in its position's slot. A
//! mailbox that receives a few messages in its life gets one small block; a backlog gets
//! blocks of up to 256 slots, so a queued `u64` costs about 9.2 bytes (one allocation and
//! one cross-thread free per block, not a 32-byte box per message).
//!
//! * **Positions.** A producer claims the next position with one `fetch_add` on `tail`
//!   (`SeqCst`: it is the sender's half of the park protocol's Dekker pair with the
//!   receiver's [`Queue::is_empty`], see `Slot::park`). The consumer owns the head position
//!   (the head block and how many of its slots it has taken), so `is_empty` is
//!   `tail == head` and the length is `tail - head`.
//! * **Blocks.** A block covers the run of positions that follows the previous block's.
//!   The first has [`FIRST_CAP`] slots; the producer that links the next one picks its size
//!   ([`next_cap`]): doubled, up to a cap that depends on the message size ([`max_cap`]),
//!   while the consumer is behind; converging to [`SHORT_CAP`] while it keeps up, so that a
//!   busy receiver that is usually empty holds one small block. Blocks are linked in order
//!   through `next`, and back through `prev`. A producer finds its block from `hint`: forward (linking the next block with a
//!   CAS when it is past the last one; the loser appends its allocation further on, or
//!   frees it), or back through `prev` when `hint` has already moved past its block (its
//!   thread lost the processor between claiming and looking). A producer that walked
//!   forward moves `hint` to its block, so the next pushes find theirs at once.
//! * **Ready flags.** After writing its value the producer sets its slot's ready flag (a
//!   byte per slot, a plain Release store: a shared bitmap would need a locked `fetch_or`);
//!   the consumer reads a slot only once its flag is set (Acquire), and never passes an
//!   unready position.
//! * **Tags.** 0 for ordinary messages, a monitor reference for a `Down`, `PERMIT_TAG` for
//!   a bounded mailbox. A block allocates its tag array only when a tagged message lands in
//!   it, so an ordinary message pays nothing for its tag.
//! * **Freeing.** Only the consumer frees blocks, and only blocks it has popped past (it
//!   keeps the oldest one not freed in its head block). A producer may still be walking
//!   forward through such a block (it read `hint` long ago), so a block is freed only once
//!   (1) `hint` has moved past it (the producer that moves it, with a `SeqCst` CAS, then
//!   reads `tail` as T and stores T + 1 in the `released` of every block it moved past),
//!   and (2) the consumer has popped every position below T. A producer that read `hint`
//!   pointing at or before that block claimed its position before that CAS (both sides
//!   `SeqCst`), so its position is below T; it was popped, so its walk is over. A producer
//!   that walks back only passes blocks after its own position, which the consumer cannot
//!   have popped past.
//!
//! * **Shrinking when idle.** A burst of messages to a receiver that is not running doubles
//!   the blocks up to the full size, and the receiver would keep the last one (mostly
//!   popped) while it waits for the next burst: 2.3 KiB for `u64`s, for each of the `chain`
//!   benchmark's 10,000 relays. So a receiver about to wait with an empty queue and a head
//!   block larger than [`SHORT_CAP`] ([`Queue::shrink_idle`]) skips the positions left in
//!   it (a CAS of `tail` from its head position to the block's end, which fails if a
//!   producer claimed one meanwhile), links a short block after it, and moves `hint` to
//!   that block as a producer that walked forward would (the same `SeqCst` CAS and tail
//!   read, so the same release rule covers it); then it frees the big block as it frees
//!   any block popped past. A skipped position was never claimed, so no producer writes
//!   it.
//!
//! The queue's embedded part (24 bytes, in a process-table slot that never moves) is all
//! zeros when empty, which is how a fresh table page comes: `init` needs no allocation.
//!
//! Blocks are type-erased behind [`Header`] so the process table can hold mailboxes of
//! every message type; the caller always knows the real type `M`, because a mailbox only
//! ever holds `M`s for its process's `M`.

use std::alloc::{self, Layout};
use std::mem;
use std::ptr;

use crate::rt::sync::UnsafeCell;
use crate::rt::sync::{
    dekker_load_ptr, dekker_load_u64, AtomicPtr, AtomicU16, AtomicU64, AtomicU8, Ordering,
};

/// Slots in a queue's first block. Small, because most mailboxes hold a handful of messages
/// in their whole life. Under loom, 1 (and a cap of 2), so that two messages already cross
/// a block boundary.
#[cfg(not(loom))]
const FIRST_CAP: u32 = 4;
#[cfg(loom)]
const FIRST_CAP: u32 = 1;

/// The most slots in a block (a power of two, at least [`FIRST_CAP`]).
#[cfg(not(loom))]
const MAX_CAP: u32 = 256;
#[cfg(loom)]
const MAX_CAP: u32 = 2;

/// The value bytes a full-size block aims at: large messages get fewer slots per block, so
/// that a short burst of them does not allocate much more than it needs.
const BLOCK_VALUE_BYTES: usize = 2048;

/// The slots in the largest blocks of a queue of `M`s: a power of two between
/// [`FIRST_CAP`] and [`MAX_CAP`].
const fn max_cap<M>() -> u32 {
    let size = mem::size_of::<M>();
    if size == 0 || size * MAX_CAP as usize <= BLOCK_VALUE_BYTES {
        return MAX_CAP;
    }
    let mut cap = MAX_CAP;
    while cap > FIRST_CAP && size * cap as usize > BLOCK_VALUE_BYTES {
        cap /= 2;
    }
    cap
}

/// The size a short queue's blocks converge to: a receiver that keeps up with its senders
/// (the chain's and the ring's processes, a server) keeps one block of this many slots,
/// not one of the full size. Under loom, 1.
#[cfg(not(loom))]
const SHORT_CAP: u32 = 16;
#[cfg(loom)]
const SHORT_CAP: u32 = 1;

/// The slots of the block that follows `last`, the last block: the queue doubles its
/// blocks while the consumer is behind (it has not started `last`), up to [`max_cap`]; a
/// consumer that keeps up (it is inside `last`) makes them converge to [`SHORT_CAP`], so
/// that an idle receiver of a long stream does not keep a large block.
#[inline]
fn next_cap<M>(last: &Header) -> u32 {
    let max = max_cap::<M>();
    let short = SHORT_CAP.min(max);
    let cap = last.cap();
    let doubled = (cap * 2).min(max);
    if last.taken() == 0 {
        doubled
    } else if cap < short {
        doubled.min(short)
    } else {
        (cap / 2).max(short)
    }
}

/// The header every block starts with; a ready flag per slot (a byte) follows it, then
/// the `cap` slots of `M`.
#[repr(C)]
pub(crate) struct Header {
    /// The next block, once some producer has linked it.
    next: AtomicPtr<Header>,
    /// The block before (null for the first): set before the block is published, then
    /// read-only. A producer whose position is before `hint`'s block walks back through it.
    prev: *mut Header,
    /// 0 until `hint` has moved past this block; then 1 + the tail read after it moved:
    /// the consumer may free the block once it has popped every position below that tail.
    released: AtomicU64,
    /// The block's tags, one per slot, allocated by the first tagged message (null: all 0).
    tags: AtomicPtr<UnsafeCell<u64>>,
    /// The first position in the block.
    start: u64,
    /// Consumer-only, meaningful in the head block: the oldest block not freed yet (null:
    /// this one). Blocks popped past wait here until they are released (see the module).
    oldest: UnsafeCell<*mut Header>,
    /// Under loom: written when the block is freed and read by every producer access, so
    /// that loom reports a producer touching a block the consumer may have freed.
    #[cfg(loom)]
    live: UnsafeCell<()>,
    /// The number of slots (at most [`MAX_CAP`], so 16 bits: see `ready_head`).
    cap: u16,
    /// The slots popped so far: written by the consumer alone, read by a producer deciding
    /// the size of the next block (see [`next_cap`]).
    taken: AtomicU16,
    /// The first ready flags, in the 4 bytes the 16-bit `cap` and `taken` leave before the
    /// header's end; the rest follow the header (see [`READY_OFFSET`]). So a first block of
    /// 4 zero-sized messages is 56 bytes, a 64-byte malloc chunk, where a header that ended
    /// before its flags made it 60, padded to 64, an 80-byte chunk: every process that has
    /// received a `()` and not run yet holds one (`million`'s send loop leaves hundreds of
    /// thousands). Under loom the flags all follow the header.
    #[cfg(not(loom))]
    ready_head: [AtomicU8; 4],
}

const _: () = assert!(MAX_CAP <= u16::MAX as u32);

impl Header {
    /// The number of slots.
    #[inline(always)]
    fn cap(&self) -> u32 {
        u32::from(self.cap)
    }

    /// The slots popped so far (see `taken`).
    #[inline(always)]
    fn taken(&self) -> u32 {
        u32::from(self.taken.load(Ordering::Relaxed))
    }

    /// Consumer only: `taken` slots are popped.
    #[inline(always)]
    fn set_taken(&self, taken: u32) {
        // At most the cap, which fits (asserted at `MAX_CAP`).
        self.taken.store(taken as u16, Ordering::Relaxed);
    }

    #[inline(always)]
    fn check_live(&self) {
        #[cfg(loom)]
        self.live.with(|_| ());
    }
}

/// Where a block's ready flags start: in the header's last 4 bytes (`ready_head`), the
/// rest following the header.
#[cfg(not(loom))]
const READY_OFFSET: usize = mem::offset_of!(Header, ready_head);
/// Under loom (whose atomics are larger) right after the header.
#[cfg(loom)]
const READY_OFFSET: usize = {
    let align = mem::align_of::<AtomicU8>();
    mem::size_of::<Header>().div_ceil(align) * align
};

/// Where the slots of a block of `cap` `M`s start: after the flags, aligned for `M`.
#[inline(always)]
fn slots_offset<M>(cap: u32) -> usize {
    let end = READY_OFFSET + cap as usize * mem::size_of::<AtomicU8>();
    end.next_multiple_of(mem::align_of::<M>())
}

/// The allocation of a block of `cap` `M`s: header, ready flags, slots.
fn block_layout<M>(cap: u32) -> Layout {
    let align = mem::align_of::<Header>()
        .max(mem::align_of::<AtomicU8>())
        .max(mem::align_of::<M>());
    let size = slots_offset::<M>(cap) + mem::size_of::<M>() * cap as usize;
    Layout::from_size_align(size, align)
        .expect("a block fits in memory")
        .pad_to_align()
}

/// The ready flag of slot `index` of `block`: 1 once its value is written.
///
/// A byte per slot rather than a bit: setting it is a plain release store, where a shared
/// bitmap needs a locked `fetch_or` (it cost a second locked instruction per send, 15% on
/// the ring).
///
/// # Safety
/// `block` is a live block with more than `index` slots.
#[inline(always)]
unsafe fn ready<'a>(block: *mut Header, index: u32) -> &'a AtomicU8 {
    // SAFETY: the flags follow the header (see `block_layout`), initialised at allocation.
    unsafe {
        &*block
            .cast::<u8>()
            .add(READY_OFFSET)
            .cast::<AtomicU8>()
            .add(index as usize)
    }
}

/// The slot `index` of a block of `M`s.
///
/// # Safety
/// `block` is a live block of `M`s with more than `index` slots.
#[inline(always)]
unsafe fn slot<M>(block: *mut Header, cap: u32, index: u32) -> *mut M {
    // SAFETY: within the block's allocation (see `block_layout`).
    unsafe {
        block
            .cast::<u8>()
            .add(slots_offset::<M>(cap))
            .cast::<M>()
            .add(index as usize)
    }
}

/// Allocates a block of `cap` `M`s from position `start`, after `prev`: nothing linked,
/// nothing ready.
fn alloc_block<M>(start: u64, cap: u32, prev: *mut Header) -> *mut Header {
    let layout = block_layout::<M>(cap);
    // SAFETY: the layout has a nonzero size (it holds a header).
    let block = unsafe { alloc::alloc(layout) }.cast::<Header>();
    if block.is_null() {
        alloc::handle_alloc_error(layout);
    }
    // SAFETY: freshly allocated with room for the header and the flags.
    unsafe {
        block.write(Header {
            next: AtomicPtr::new(ptr::null_mut()),
            prev,
            released: AtomicU64::new(0),
            tags: AtomicPtr::new(ptr::null_mut()),
            start,
            oldest: UnsafeCell::new(ptr::null_mut()),
            #[cfg(loom)]
            live: UnsafeCell::new(()),
            // At most `MAX_CAP`, which fits (asserted there).
            cap: cap as u16,
            taken: AtomicU16::new(0),
            #[cfg(not(loom))]
            ready_head: [const { AtomicU8::new(0) }; 4],
        });
        for index in 0..cap {
            ptr::from_ref(ready(block, index))
                .cast_mut()
                .write(AtomicU8::new(0));
        }
    }
    block
}

/// Frees a block whose values have all been taken (or were never written).
///
/// # Safety
/// `block` came from [`alloc_block::<M>`], and no other thread can reach it any more.
unsafe fn free_block<M>(block: *mut Header) {
    // SAFETY: the caller's contract.
    let header = unsafe { &*block };
    let cap = header.cap();
    let tags = header.tags.load(Ordering::Acquire);
    if !tags.is_null() {
        // SAFETY: allocated by `tag_array` as a boxed slice of `cap` cells.
        drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(tags, cap as usize)) });
    }
    // Under loom the memory stays allocated, so that a producer reaching it after this
    // (a broken protocol) is reported as a race on `live`, not as undefined behaviour.
    #[cfg(loom)]
    header.live.with_mut(|_| ());
    #[cfg(not(loom))]
    // SAFETY: the header and flags hold no heap data; the slots were moved out; the
    // layout is the allocation's.
    unsafe {
        alloc::dealloc(block.cast::<u8>(), block_layout::<M>(cap))
    };
}

pub(crate) struct Queue {
    /// The next position to claim.
    tail: AtomicU64,
    /// Where producers start looking for their block: the block of a recent push that
    /// walked forward (it only moves forward). Null until the first push of the
    /// incarnation.
    hint: AtomicPtr<Header>,
    /// The consumer's head block: written once by the producer that allocates the first
    /// block, then by the consumer alone.
    head: AtomicPtr<Header>,
}

// SAFETY: the consumer-only state (in the head block) is only touched by the single consumer
// (the contract of `pop`/`drain`); everything else is atomic; values are `M: Send` (enforced
// where they are sent).
unsafe impl Send for Queue {}
// SAFETY: as above: shared access from producers only goes through atomics, and a slot is
// written by the one producer that claimed its position.
unsafe impl Sync for Queue {}

impl Queue {
    /// An empty queue (all zeros, as [`init`](Queue::init) leaves it).
    #[cfg_attr(not(loom), allow(dead_code))] // used to build slots in loom tests
    pub(crate) fn new() -> Self {
        Queue {
            tail: AtomicU64::new(0),
            hint: AtomicPtr::new(ptr::null_mut()),
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Makes the queue empty, holding no block. Called with no producer or consumer active,
    /// on a queue that holds no block (fresh, or drained).
    pub(crate) fn init(&self) {
        self.tail.store(0, Ordering::Relaxed);
        self.hint.store(ptr::null_mut(), Ordering::Relaxed);
        self.head.store(ptr::null_mut(), Ordering::Release);
    }

    /// Appends a message. Any number of threads may push at once; a push never fails.
    ///
    /// # Safety
    /// Every message in this queue is an `M`.
    // The runtime sends through `push_from` (`Slot::send_from`); the tests push values.
    #[cfg(test)]
    #[inline]
    pub(crate) unsafe fn push<M>(&self, tag: u64, value: M) {
        // SAFETY: the caller's contract; `value`, moved into the queue, is forgotten.
        unsafe { self.push_from::<M>(tag, &raw const value) };
        mem::forget(value);
    }

    /// [`Queue::push`] of the `M` at `value`, moved out of it: read only once its position's
    /// cell is found, so that a sender's message goes from where it lies straight into the
    /// cell (see `Slot::send_from`).
    ///
    /// # Safety
    /// As for [`Queue::push`]; `value` points at an initialised `M`, which the caller gives
    /// up (it must not use or drop it afterwards).
    #[inline]
    pub(crate) unsafe fn push_from<M>(&self, tag: u64, value: *const M) {
        let position = self.tail.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller's contract.
        let block = unsafe { self.find_block::<M>(position) };
        // SAFETY: `find_block` returns the live block holding `position`: it cannot be
        // freed before this position is ready.
        let header = unsafe { &*block };
        header.check_live();
        let (start, cap) = (header.start, header.cap());
        let index = (position - start) as u32;
        // SAFETY: this producer alone claimed `position`, so it alone writes its slot.
        unsafe { ptr::copy_nonoverlapping(value, slot::<M>(block, cap, index), 1) };
        if tag != 0 {
            let tags = tag_array(header, cap);
            // SAFETY: as above: this position's cell is ours to write.
            unsafe { (*tags.add(index as usize)).with_mut(|t| *t = tag) };
        }
        // SAFETY: `index` is below the cap.
        unsafe { ready(block, index) }.store(1, Ordering::Release);
    }

    /// Appends `count` untagged messages, moved out of `values`, with one claim of
    /// consecutive positions: what `count` pushes do, with one contended read-modify-write
    /// of `tail` instead of `count` (see `rt::outbox`). The values become visible one by
    /// one, in order.
    ///
    /// Each position is handled as a push of its own would handle it: its block is found
    /// from `hint` only while the position is claimed and not ready, so the freeing rule
    /// (see the module docs) covers every block the batch touches.
    ///
    /// # Safety
    /// Every message in this queue is an `M`; `values` points at `count` initialised `M`s,
    /// which the caller gives up (they are moved, not copied).
    pub(crate) unsafe fn push_many<M>(&self, values: *const M, count: u32) {
        let first = self.tail.fetch_add(u64::from(count), Ordering::SeqCst);
        let mut done = 0;
        while done < count {
            let position = first + u64::from(done);
            // SAFETY: the caller's contract; `position` is ours and not ready.
            let block = unsafe { self.find_block::<M>(position) };
            // SAFETY: as in `push`: live while `position` is not ready.
            let header = unsafe { &*block };
            header.check_live();
            let (start, cap) = (header.start, header.cap());
            let index = (position - start) as u32;
            let here = (cap - index).min(count - done);
            for k in 0..here {
                // SAFETY: positions `position + k` are ours and in this block (below its
                // cap); the value is moved out of the caller's array, read once.
                unsafe {
                    let value = ptr::read(values.add((done + k) as usize));
                    slot::<M>(block, cap, index + k).write(value);
                    ready(block, index + k).store(1, Ordering::Release);
                }
            }
            done += here;
        }
    }

    /// The block holding `position`, allocating blocks as needed. Moves `hint` on to that
    /// block when it is past it, releasing the blocks it moved past.
    ///
    /// # Safety
    /// Every block of this queue holds `M`s; `position` was claimed by this thread and is
    /// not ready yet.
    unsafe fn find_block<M>(&self, position: u64) -> *mut Header {
        // The producer's half of the Dekker pair with the CAS that moves `hint` and the
        // tail read after it (see the module docs): a SeqCst load.
        let mut hint = dekker_load_ptr(&self.hint);
        if hint.is_null() {
            hint = self.install_first::<M>();
        }
        let mut block = hint;
        // SAFETY: `hint` stays allocated until our position is ready: if it starts after
        // our position, the consumer cannot pop past it; if not, it was released (if at
        // all) with a tail above our position (see the module docs).
        let mut header = unsafe { &*block };
        header.check_live();
        let (mut start, mut cap) = (header.start, header.cap());
        // Behind `hint` (its mover overtook us): walk back. Every block on the way starts
        // after our position, so the consumer cannot have popped past it.
        while position < start {
            block = header.prev;
            // SAFETY: as above; the first block starts at 0, so `prev` is not null here.
            header = unsafe { &*block };
            header.check_live();
            (start, cap) = (header.start, header.cap());
        }
        if position - start < u64::from(cap) {
            return block;
        }
        // Ahead of `hint`: walk forward, linking blocks as needed.
        while position - start >= u64::from(cap) {
            let mut next = header.next.load(Ordering::Acquire);
            if next.is_null() {
                next = grow::<M>(header, block);
            }
            block = next;
            // SAFETY: after `hint`'s block, so live while our position is not ready.
            header = unsafe { &*block };
            header.check_live();
            (start, cap) = (header.start, header.cap());
        }
        // Move `hint` to our block, so that the next pushes find theirs at once.
        // SAFETY: the blocks from the old `hint` to ours are live (see above).
        unsafe { self.move_hint(hint, block) };
        block
    }

    /// Moves `hint` from `from` on to the later block `to`, unless someone moved it since,
    /// and marks the blocks moved past as freeable once the consumer has popped past the
    /// tail read after the move: every producer that read the old `hint` claimed its
    /// position before the CAS, so below that tail.
    ///
    /// # Safety
    /// The blocks from `from` up to `to` are live.
    #[inline]
    unsafe fn move_hint(&self, from: *mut Header, to: *mut Header) {
        if self
            .hint
            .compare_exchange(from, to, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let released = dekker_load_u64(&self.tail) + 1;
        let mut passed = from;
        while passed != to {
            // SAFETY: between `from` and `to`: live (the caller's contract).
            let header = unsafe { &*passed };
            header.check_live();
            let next = header.next.load(Ordering::Acquire);
            header.released.store(released, Ordering::Release);
            passed = next;
        }
    }

    /// Allocates the queue's first block and publishes it; returns `hint` (that block, or
    /// where another producer's `hint` is by now).
    #[cold]
    fn install_first<M>(&self) -> *mut Header {
        let fresh = alloc_block::<M>(0, FIRST_CAP, ptr::null_mut());
        match self
            .hint
            .compare_exchange(ptr::null_mut(), fresh, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {
                // The consumer finds the first block here (it cannot use `hint`, which may
                // move on before the consumer looks).
                self.head.store(fresh, Ordering::Release);
                fresh
            }
            Err(winner) => {
                // SAFETY: never published.
                unsafe { free_unpublished::<M>(fresh) };
                winner
            }
        }
    }

    /// Consumer only, with the queue found empty (the receiver is about to wait): if its
    /// head block is larger than a short one, gives it up for a short one, so that a
    /// receiver waiting between bursts does not hold a full-size block (see the module
    /// docs). Does nothing when a push is under way.
    ///
    /// # Safety
    /// Only the single consumer calls this, and every message is an `M`.
    #[inline]
    pub(crate) unsafe fn shrink_idle<M>(&self) {
        let block = self.head.load(Ordering::Acquire);
        if block.is_null() {
            return;
        }
        // SAFETY: the head block is live (see `pop`).
        if unsafe { &*block }.cap() > SHORT_CAP.min(max_cap::<M>()) {
            // SAFETY: the caller's contract; `block` is the head block.
            unsafe { self.shrink_head::<M>(block) };
        }
    }

    /// [`shrink_idle`](Queue::shrink_idle)'s work: skip the head block's unused positions,
    /// link a short block after it, move `hint` there, and move the head on to it.
    ///
    /// # Safety
    /// Consumer only; `block` is the head block; every message is an `M`.
    #[cold]
    unsafe fn shrink_head<M>(&self, block: *mut Header) {
        // SAFETY: the head block is live.
        let header = unsafe { &*block };
        let taken = header.taken();
        let end = header.start + u64::from(header.cap());
        if taken < header.cap() {
            // Skip the unused positions, only if no producer has claimed the next one
            // (then its message is on the way: not idle). SeqCst like every claim.
            let position = header.start + u64::from(taken);
            if self
                .tail
                .compare_exchange(position, end, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                return;
            }
            // Consumer-only counter: the skipped positions count as popped (never read:
            // no producer claimed them, so none writes them).
            header.set_taken(header.cap());
        }
        if !header.next.load(Ordering::Acquire).is_null() {
            // A producer linked the next block (it claimed `end`): the next pop moves on
            // to it and frees this one.
            return;
        }
        let short = SHORT_CAP.min(max_cap::<M>());
        let fresh = alloc_block::<M>(end, short, block);
        if header
            .next
            .compare_exchange(ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: never published.
            unsafe { free_unpublished::<M>(fresh) };
            return;
        }
        // Move `hint` to the fresh block as a producer that walked forward does
        // (`move_hint`, releasing the blocks it moves past). `hint` is at or before the head block (the fresh block was just linked after it;
        // a producer may have moved it there already, and then released the rest itself).
        let hint = dekker_load_ptr(&self.hint);
        // SAFETY: `hint` is live: no block at or after it was released.
        if unsafe { &*hint }.start < end {
            // SAFETY: the blocks from `hint` to the fresh one are live (not released).
            unsafe { self.move_hint(hint, fresh) };
        }
        // SAFETY: consumer only; `fresh` is the head block's next block.
        unsafe { self.advance_head::<M>(block, fresh) };
    }

    /// Takes the oldest message, with its tag.
    ///
    /// `None` means empty, or a push in progress whose value is not ready yet
    /// ([`Queue::is_empty`] tells the two apart).
    ///
    /// # Safety
    /// Only the single consumer calls this, and every message is an `M`.
    // Always: left to LLVM, it stopped inlining this into the runner's poll once that poll
    // became a `TaskBody::poll` (the task cell in the slot), and the call, which returns
    // its `Option<(u64, M)>` through the stack, cost `pingpong` 1.07-1.11x (see
    // docs/design.md, "The process task").
    #[inline(always)]
    pub(crate) unsafe fn pop<M>(&self) -> Option<(u64, M)> {
        let mut block = self.head.load(Ordering::Acquire);
        if block.is_null() {
            return None;
        }
        // SAFETY: the head block is live: only this consumer frees blocks, never the head.
        let mut header = unsafe { &*block };
        let mut cap = header.cap();
        let mut taken = header.taken();
        if taken == cap {
            let next = header.next.load(Ordering::Acquire);
            if next.is_null() {
                return None;
            }
            // SAFETY: linked blocks are live until the consumer frees them.
            unsafe { self.advance_head::<M>(block, next) };
            block = next;
            // SAFETY: as above.
            header = unsafe { &*block };
            cap = header.cap();
            taken = 0;
        }
        // SAFETY: `taken` is below the cap.
        if unsafe { ready(block, taken) }.load(Ordering::Acquire) == 0 {
            return None;
        }
        // SAFETY: the slot is ready (Acquire above pairs with its producer's Release) and
        // not taken yet; after this it counts as taken and is never read again.
        let value = unsafe { slot::<M>(block, cap, taken).read() };
        let tags = header.tags.load(Ordering::Acquire);
        let tag = if tags.is_null() {
            0
        } else {
            // SAFETY: the array has `cap` cells; this one was written (if at all) before its
            // ready flag.
            unsafe { (*tags.add(taken as usize)).with(|t| *t) }
        };
        header.set_taken(taken + 1);
        // Blocks popped past wait for their release; try again now that the head moved,
        // so that a receiver that keeps up holds one block, not two or three.
        // SAFETY: consumer-only field of the head block.
        if !header.oldest.with(|o| unsafe { *o }).is_null() {
            // SAFETY: consumer only; `block` is the head block.
            unsafe { self.reclaim::<M>(block, header.start + u64::from(taken) + 1) };
        }
        Some((tag, value))
    }

    /// Moves the head from the popped-out block `from` to `to`, and frees what it may.
    ///
    /// # Safety
    /// Consumer only; `to` is `from`'s next block.
    #[cold]
    unsafe fn advance_head<M>(&self, from: *mut Header, to: *mut Header) {
        // SAFETY: consumer-only fields of live blocks.
        let oldest = unsafe { &*from }.oldest.with(|o| unsafe { *o });
        let oldest = if oldest.is_null() { from } else { oldest };
        // SAFETY: as above.
        unsafe { &*to }.oldest.with_mut(|o| unsafe { *o = oldest });
        self.head.store(to, Ordering::Relaxed);
        // SAFETY: consumer only; `to` is the head block now.
        unsafe { self.reclaim::<M>(to, (*to).start) };
    }

    /// Frees the blocks popped past (from the oldest kept in `head`'s header) that are
    /// released at or below `position`, the head position.
    ///
    /// # Safety
    /// Consumer only; `head` is the head block.
    unsafe fn reclaim<M>(&self, head: *mut Header, position: u64) {
        // SAFETY: consumer-only field of the live head block.
        let mut oldest = unsafe { &*head }.oldest.with(|o| unsafe { *o });
        while !oldest.is_null() && oldest != head {
            // SAFETY: blocks between the oldest kept and the head are live.
            let header = unsafe { &*oldest };
            let released = header.released.load(Ordering::Acquire);
            // Every position below `released - 1` popped: no producer can still be in it.
            if released == 0 || position + 1 < released {
                break;
            }
            let next = header.next.load(Ordering::Relaxed);
            // SAFETY: released and popped past: nobody can reach it (see the module docs).
            unsafe { free_block::<M>(oldest) };
            oldest = next;
        }
        let oldest = if oldest == head {
            ptr::null_mut()
        } else {
            oldest
        };
        // SAFETY: consumer-only field.
        unsafe { &*head }
            .oldest
            .with_mut(|o| unsafe { *o = oldest });
    }

    /// The consumer's position: how many messages it has popped.
    ///
    /// # Safety
    /// Only the single consumer calls this.
    #[inline]
    unsafe fn head_position(&self) -> u64 {
        let block = self.head.load(Ordering::Acquire);
        if block.is_null() {
            return 0;
        }
        // SAFETY: the head block is live (see `pop`).
        let header = unsafe { &*block };
        header.start + u64::from(header.taken())
    }

    /// True when nothing has been pushed since the consumer's last pop: a push that is half
    /// done (position claimed, value not ready) counts as non-empty. The read of `tail` is
    /// the receiver's half of the park protocol's Dekker pair (see `Slot::park`).
    ///
    /// # Safety
    /// Only the single consumer calls this.
    pub(crate) unsafe fn is_empty(&self) -> bool {
        // SAFETY: the caller's contract.
        let head = unsafe { self.head_position() };
        dekker_load_u64(&self.tail) == head
    }

    /// The number of queued messages (pushes in progress included).
    ///
    /// # Safety
    /// Only the single consumer calls this.
    pub(crate) unsafe fn len(&self) -> usize {
        // SAFETY: the caller's contract.
        let head = unsafe { self.head_position() };
        let len = self.tail.load(Ordering::Acquire) - head;
        usize::try_from(len).unwrap_or(usize::MAX)
    }

    /// Drops every message queued now, waiting for the pushes in progress (position
    /// claimed, value not ready yet) to finish, so that every push whose claim came before
    /// this call's last read of `tail` is dropped too.
    ///
    /// # Safety
    /// Only the single consumer calls this, and every message is an `M`.
    pub(crate) unsafe fn drop_queued<M>(&self) -> usize {
        let mut dropped = 0;
        let mut spins = 0u32;
        loop {
            // SAFETY: the caller's contract.
            while let Some(message) = unsafe { self.pop::<M>() } {
                drop(message);
                dropped += 1;
            }
            // SAFETY: as above.
            if unsafe { self.is_empty() } {
                return dropped;
            }
            // A sender between its claim and its ready flag: it finishes in a few
            // instructions unless its thread lost the processor.
            spins += 1;
            crate::rt::sync::wait_step(spins);
        }
    }

    /// Drops every queued message, frees every block, and returns the queue to its initial
    /// state.
    ///
    /// # Safety
    /// No producer or consumer is active, and every message is an `M`.
    pub(crate) unsafe fn drain<M>(&self) -> usize {
        // SAFETY: exclusive access (the caller's contract) makes us the consumer; with no
        // producer, no push is in progress.
        let dropped = unsafe { self.drop_queued::<M>() };
        let head = self.head.load(Ordering::Acquire);
        if !head.is_null() {
            // SAFETY: exclusive access; consumer-only field of the live head block.
            let oldest = unsafe { &*head }.oldest.with(|o| unsafe { *o });
            let mut block = if oldest.is_null() { head } else { oldest };
            while !block.is_null() {
                // SAFETY: every block from the oldest on is live, and nobody else can
                // reach it; every value in it was popped (or never written).
                let next = unsafe { &*block }.next.load(Ordering::Acquire);
                // SAFETY: as above.
                unsafe { free_block::<M>(block) };
                block = next;
            }
        }
        self.init();
        dropped
    }
}

/// Links a new block after `header` (the last block as far as we know), or, if another
/// producer linked one first, appends ours further on (or frees it). Returns `header`'s
/// next block.
#[cold]
fn grow<M>(header: &Header, block: *mut Header) -> *mut Header {
    let fresh = alloc_block::<M>(
        header.start + u64::from(header.cap()),
        next_cap::<M>(header),
        block,
    );
    match header
        .next
        .compare_exchange(ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire)
    {
        Ok(_) => fresh,
        Err(winner) => {
            // SAFETY: `winner` is after our hint's block, so live (see the module docs).
            unsafe { append_spare(winner, fresh) };
            winner
        }
    }
}

/// Links `fresh` (allocated, never published) after the last block reachable from
/// `block`, moved to the positions that follow that block.
///
/// # Safety
/// `block` is live and after the walking producer's hint; `fresh` is unpublished.
unsafe fn append_spare(mut block: *mut Header, fresh: *mut Header) {
    loop {
        // SAFETY: the caller's contract (and each next block is after it).
        let header = unsafe { &*block };
        header.check_live();
        // SAFETY: unpublished: ours alone; the CAS below publishes the new place.
        unsafe {
            (*fresh).start = header.start + u64::from(header.cap());
            (*fresh).prev = block;
        }
        match header.next.compare_exchange(
            ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => return,
            Err(next) => block = next,
        }
    }
}

/// Frees a block no other thread has seen (for real, under loom too).
///
/// # Safety
/// `block` came from [`alloc_block::<M>`] and was never published.
unsafe fn free_unpublished<M>(block: *mut Header) {
    // SAFETY: the caller's contract: ours alone, nothing written in it.
    unsafe {
        let cap = (*block).cap();
        for index in 0..cap {
            ptr::drop_in_place(ptr::from_ref(ready(block, index)).cast_mut());
        }
        ptr::drop_in_place(block);
        alloc::dealloc(block.cast::<u8>(), block_layout::<M>(cap));
    }
}

/// The tag array of a block with `cap` slots, allocated by the first tagged message.
#[cold]
fn tag_array(header: &Header, cap: u32) -> *mut UnsafeCell<u64> {
    let tags = header.tags.load(Ordering::Acquire);
    if !tags.is_null() {
        return tags;
    }
    let fresh: Box<[UnsafeCell<u64>]> = (0..cap).map(|_| UnsafeCell::new(0)).collect();
    let fresh = Box::into_raw(fresh).cast::<UnsafeCell<u64>>();
    match header
        .tags
        .compare_exchange(ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire)
    {
        Ok(_) => fresh,
        Err(winner) => {
            // SAFETY: never published: ours alone, a boxed slice of `cap` cells.
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(fresh, cap as usize)) });
            winner
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    #[test]
    fn the_embedded_part_and_the_header_stay_small() {
        // The queue lives in every process-table slot; the header is paid per block.
        assert_eq!(mem::size_of::<Queue>(), 24);
        assert_eq!(mem::size_of::<Header>(), 56);
        // The first ready flags fill the header's last 4 bytes.
        assert_eq!(READY_OFFSET, 52);
        // A first block of `()`s is the header alone (a 64-byte malloc chunk), one of
        // `u64`s 88 bytes (a 96-byte chunk).
        assert_eq!(block_layout::<()>(FIRST_CAP).size(), 56);
        assert_eq!(block_layout::<u64>(FIRST_CAP).size(), 88);
        // A full block of `u64`s: about 9.2 bytes per message (the flags end at 308, the
        // values start at 312).
        assert_eq!(block_layout::<u64>(max_cap::<u64>()).size(), 312 + 256 * 8);
    }

    /// The caps of the blocks from the head block on.
    fn caps(queue: &Queue) -> Vec<u32> {
        let mut caps = Vec::new();
        let mut block = queue.head.load(Ordering::Acquire);
        while !block.is_null() {
            // SAFETY: single-threaded; the blocks from the head on are live.
            let header = unsafe { &*block };
            caps.push(header.cap());
            block = header.next.load(Ordering::Acquire);
        }
        caps
    }

    #[test]
    fn a_backlog_doubles_the_blocks_and_a_receiver_that_keeps_up_keeps_small_ones() {
        assert_eq!(max_cap::<u64>(), 256);
        assert_eq!(max_cap::<[u64; 8]>(), 32);
        assert_eq!(max_cap::<[u8; 5000]>(), FIRST_CAP);
        let queue = Queue::new();
        for i in 0..1000u64 {
            // SAFETY: every message is a `u64`.
            unsafe { queue.push(0, i) };
        }
        assert_eq!(caps(&queue), [4, 8, 16, 32, 64, 128, 256, 256, 256]);
        // SAFETY: single-threaded consumer, `u64` messages.
        unsafe {
            assert_eq!(queue.drain::<u64>(), 1000);
            for i in 0..1000u64 {
                queue.push(0, i);
                assert_eq!(queue.pop::<u64>(), Some((0, i)));
            }
        }
        // One block of the short size, the ones popped past freed.
        assert_eq!(caps(&queue), [SHORT_CAP]);
        // SAFETY: exclusive access.
        assert_eq!(unsafe { queue.drain::<u64>() }, 0);
    }

    /// The bytes of the blocks a queue holds (from the oldest not freed on).
    fn held_bytes<M>(queue: &Queue) -> usize {
        let head = queue.head.load(Ordering::Acquire);
        if head.is_null() {
            return 0;
        }
        // SAFETY: single-threaded; the blocks from the oldest kept on are live.
        let mut block = unsafe { &*head }.oldest.with(|o| unsafe { *o });
        if block.is_null() {
            block = head;
        }
        let mut bytes = 0;
        while !block.is_null() {
            // SAFETY: as above.
            let header = unsafe { &*block };
            bytes += block_layout::<M>(header.cap()).size();
            block = header.next.load(Ordering::Acquire);
        }
        bytes
    }

    #[test]
    fn a_receiver_idle_after_a_burst_keeps_a_short_block() {
        // Bursts the receiver drains only after each (one poll of a relaying sender), of
        // sizes that end inside a block and at a block's end.
        let queue = Queue::new();
        let mut next = 0u64;
        for burst in [500u64, 300, 1000, 16, 3, 700] {
            for i in 0..burst {
                // SAFETY: every message is a `u64`.
                unsafe { queue.push(0, next + i) };
            }
            // SAFETY: single-threaded consumer, `u64` messages.
            unsafe {
                for i in 0..burst {
                    assert_eq!(queue.pop::<u64>(), Some((0, next + i)));
                }
                assert_eq!(queue.pop::<u64>(), None);
                // About to wait for the next burst.
                queue.shrink_idle::<u64>();
                assert!(queue.is_empty());
                assert_eq!(queue.len(), 0);
            }
            next += burst;
            // It keeps one short block (200 bytes), not the 256-slot block the burst
            // ended in (2360 bytes).
            let held = held_bytes::<u64>(&queue);
            assert!(held <= 200, "{held} bytes held by an idle receiver");
        }
        // SAFETY: exclusive access.
        assert_eq!(unsafe { queue.drain::<u64>() }, 0);
    }

    /// A shrink with a push under way (position claimed, value not ready) changes nothing.
    #[test]
    fn a_shrink_leaves_a_claimed_position_alone() {
        let queue = Queue::new();
        for i in 0..300u64 {
            // SAFETY: every message is a `u64`.
            unsafe { queue.push(0, i) };
        }
        // SAFETY: single-threaded consumer, `u64` messages.
        unsafe {
            for i in 0..300u64 {
                assert_eq!(queue.pop::<u64>(), Some((0, i)));
            }
            // A producer has claimed the next position but not written it yet.
            queue.tail.fetch_add(1, Ordering::SeqCst);
            let before = caps(&queue);
            queue.shrink_idle::<u64>();
            assert_eq!(caps(&queue), before);
            // It writes it now, where the claim put it.
            let block = queue.find_block::<u64>(300);
            let header = &*block;
            let index = (300 - header.start) as u32;
            slot::<u64>(block, header.cap(), index).write(300);
            ready(block, index).store(1, Ordering::Release);
            assert_eq!(queue.pop::<u64>(), Some((0, 300)));
            queue.shrink_idle::<u64>();
            assert_eq!(caps(&queue), [SHORT_CAP]);
            queue.push(0, 301u64);
            assert_eq!(queue.pop::<u64>(), Some((0, 301)));
            assert_eq!(queue.drain::<u64>(), 0);
        }
    }

    /// A message that counts its drops.
    struct Counted(Arc<AtomicUsize>, u64);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn round_trip<M: PartialEq + std::fmt::Debug>(make: impl Fn(u64) -> M, n: u64) {
        let queue = Queue::new();
        for round in 0..2 {
            for i in 0..n {
                // SAFETY: every message is an `M`.
                unsafe { queue.push::<M>(if i % 7 == 3 { i + 1 } else { 0 }, make(i)) };
            }
            // SAFETY: single-threaded: we are the consumer; the messages are `M`s.
            unsafe {
                assert_eq!(queue.len(), n as usize);
                assert_eq!(queue.len().min(3), 3.min(n as usize));
                for i in 0..n {
                    let tag = if i % 7 == 3 { i + 1 } else { 0 };
                    assert_eq!(queue.pop::<M>(), Some((tag, make(i))), "round {round}");
                }
                assert_eq!(queue.pop::<M>(), None);
                assert!(queue.is_empty());
                assert_eq!(queue.drain::<M>(), 0);
            }
        }
    }

    /// Batches of every length up to 70, between single pushes, of values that own heap
    /// memory: each moved in once (miri reports a double drop or a leak), in order, across
    /// the block boundaries of a growing queue.
    #[test]
    fn batches_and_single_pushes_pop_in_order() {
        let queue = Queue::new();
        let mut next = 0u64;
        let mut expected = Vec::new();
        let rounds = if cfg!(miri) { 24 } else { 70 };
        for len in 1..=rounds {
            let batch: Vec<String> = (0..len).map(|k| (next + k).to_string()).collect();
            expected.extend(batch.iter().cloned());
            next += len;
            let batch = std::mem::ManuallyDrop::new(batch);
            // SAFETY: every message is a `String`; the batch's values are given up (the
            // vector's buffer is freed below without dropping them).
            unsafe { queue.push_many::<String>(batch.as_ptr(), len as u32) };
            let mut batch = std::mem::ManuallyDrop::into_inner(batch);
            // SAFETY: the values were moved into the queue.
            unsafe { batch.set_len(0) };
            // SAFETY: every message is a `String`.
            unsafe { queue.push::<String>(0, next.to_string()) };
            expected.push(next.to_string());
            next += 1;
            if len % 5 == 0 {
                // Pop some on the way, so that blocks are freed behind the batches.
                for want in expected.drain(..expected.len() / 2) {
                    // SAFETY: single-threaded: we are the consumer.
                    assert_eq!(unsafe { queue.pop::<String>() }, Some((0, want)));
                }
            }
        }
        for want in expected {
            // SAFETY: as above.
            assert_eq!(unsafe { queue.pop::<String>() }, Some((0, want)));
        }
        // SAFETY: as above.
        unsafe {
            assert!(queue.is_empty());
            assert_eq!(queue.drain::<String>(), 0);
        }
    }

    #[test]
    fn pops_in_order_with_tags_across_blocks() {
        let n = if cfg!(miri) { 300 } else { 3000 };
        round_trip(|i| i, n);
        round_trip(|_| (), n);
        round_trip(|i| i as u8, n);
        round_trip(|i| [i; 9], n);
        #[derive(Debug, PartialEq)]
        #[repr(align(64))]
        struct Aligned(u64);
        round_trip(Aligned, n);
        round_trip(|i| i.to_string(), n);
    }

    #[test]
    fn drain_drops_what_is_queued_and_frees_every_block() {
        let drops = Arc::new(AtomicUsize::new(0));
        let queue = Queue::new();
        for i in 0..1000 {
            // SAFETY: every message is a `Counted`.
            unsafe { queue.push(0, Counted(Arc::clone(&drops), i)) };
        }
        for i in 0..400 {
            // SAFETY: single-threaded consumer.
            let (_, m) = unsafe { queue.pop::<Counted>() }.unwrap();
            assert_eq!(m.1, i);
        }
        assert_eq!(drops.load(Ordering::Relaxed), 400);
        // SAFETY: exclusive access.
        assert_eq!(unsafe { queue.drain::<Counted>() }, 600);
        assert_eq!(drops.load(Ordering::Relaxed), 1000);
        // SAFETY: the queue is empty again, and reusable.
        unsafe {
            assert!(queue.is_empty());
            queue.push(0, Counted(Arc::clone(&drops), 0));
            assert_eq!(queue.drain::<Counted>(), 1);
        }
    }

    /// Many producers at once, the consumer popping while they push: every message arrives
    /// once and each producer's in order (under miri: no race, no leak, no use after free).
    #[test]
    fn producers_racing_the_consumer() {
        let (producers, each) = if cfg!(miri) { (4, 60) } else { (8, 20_000) };
        let queue = Arc::new(Queue::new());
        let threads: Vec<_> = (0..producers)
            .map(|p| {
                let queue = Arc::clone(&queue);
                std::thread::spawn(move || {
                    for i in 0..each {
                        // SAFETY: every message is a `(u64, u64)`.
                        unsafe { queue.push::<(u64, u64)>(p + 1, (p, i)) };
                    }
                })
            })
            .collect();
        let mut next = vec![0; producers as usize];
        let mut got = 0;
        while got < producers * each {
            // SAFETY: this thread is the only consumer.
            match unsafe { queue.pop::<(u64, u64)>() } {
                Some((tag, (p, i))) => {
                    assert_eq!(tag, p + 1);
                    assert_eq!(next[p as usize], i, "producer {p} out of order");
                    next[p as usize] += 1;
                    got += 1;
                }
                None => {
                    // As a receiver about to wait does (a no-op while a push is under
                    // way): the producers race the shrink's skip, link and `hint` move.
                    // SAFETY: this thread is the only consumer.
                    unsafe { queue.shrink_idle::<(u64, u64)>() };
                    std::thread::yield_now();
                }
            }
        }
        for t in threads {
            t.join().unwrap();
        }
        // SAFETY: every producer is joined.
        assert_eq!(unsafe { queue.drain::<(u64, u64)>() }, 0);
    }
}
