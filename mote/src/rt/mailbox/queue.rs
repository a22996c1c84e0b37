//! The lock-free multi-producer, single-consumer queue under every mailbox.
//!
//! Messages live in blocks of slots, not in one allocation each: a block holds a run of
//! consecutive *positions*, and a message is written in place in its position's slot. A
//! mailbox that receives a few messages in its life gets one small block; a stream gets
//! blocks of up to 256 slots, so a queued `u64` costs about 8.3 bytes (one allocation and
//! one cross-thread free per block, not per message).
//!
//! * **Positions.** A producer claims the next position with one `fetch_add` on `tail`
//!   (`SeqCst`: it is the sender's half of the park protocol's Dekker pair with the
//!   receiver's [`Queue::is_empty`], see `Slot::park`). The consumer owns the head position
//!   (the head block and how many of its slots it has taken), so `is_empty` is
//!   `tail == head` and the length is `tail - head`.
//! * **Blocks.** Block `k` covers a fixed range of positions: the first blocks double from
//!   [`FIRST_CAP`] slots up to a cap that depends on the message size ([`max_cap`]), every
//!   later one has that cap. Blocks are linked in order through `next`. A producer finds its
//!   block by walking from `hint`; past the last block it allocates the next one and links
//!   it with a CAS (the loser appends its allocation further on, or frees it).
//! * **Ready bits.** After writing its value the producer sets its slot's bit in the block's
//!   ready bitmap (`fetch_or`, Release); the consumer reads a slot only once its bit is set
//!   (Acquire), and never passes an unready position.
//! * **Tags.** 0 for ordinary messages, a monitor reference for a `Down`, `PERMIT_TAG` for
//!   a bounded mailbox. A block allocates its tag array only when a tagged message lands in
//!   it, so an ordinary message pays nothing for its tag.
//! * **Freeing.** Only the consumer frees blocks, and only blocks it has popped past. A
//!   producer may still be walking through such a block (it read `hint` long ago), so a
//!   block is freed only once (1) `hint` has moved past it (the producer that moves it, with
//!   a `SeqCst` CAS, then reads `tail` as T and stores T + 1 in `released`), and (2) the
//!   consumer has popped every position below T. Every producer that read `hint` pointing at
//!   or before that block claimed its position before that CAS (both sides `SeqCst`), so
//!   its position is below T; it was popped, so its walk is over. `hint` moves past a block
//!   only once every slot of it is ready, so no producer that has yet to read `hint` needs
//!   that block.
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

use crate::rt::sync::{dekker_load_ptr, dekker_load_u64, AtomicPtr, AtomicU64, Ordering};
use crate::rt::sync::UnsafeCell;

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

/// The first position and the number of slots of block `index` in a queue of `M`s.
#[inline]
fn geometry<M>(index: u32) -> (u64, u32) {
    let max = max_cap::<M>();
    // The doubling blocks: FIRST_CAP << k for k below `growing`.
    let growing = max.trailing_zeros() - FIRST_CAP.trailing_zeros();
    if index < growing {
        let cap = FIRST_CAP << index;
        (u64::from(cap - FIRST_CAP), cap)
    } else {
        let grown = u64::from(FIRST_CAP) * ((1u64 << growing) - 1);
        (grown + u64::from(index - growing) * u64::from(max), max)
    }
}

/// The words of a block's ready bitmap.
#[inline]
fn ready_words(cap: u32) -> usize {
    (cap as usize).div_ceil(64)
}

/// The header every block starts with; the ready bitmap (`ready_words(cap)` words) follows
/// it, then the `cap` slots of `M`.
#[repr(C)]
pub(crate) struct Header {
    /// The next block, once some producer has linked it.
    next: AtomicPtr<Header>,
    /// 0 while `hint` may point here; then 1 + the tail read after `hint` moved on: the
    /// consumer may free the block once it has popped every position below that tail.
    released: AtomicU64,
    /// The block's tags, one per slot, allocated by the first tagged message (null: all 0).
    tags: AtomicPtr<UnsafeCell<u64>>,
    /// The block's number in the queue (its positions follow from it, see [`geometry`]).
    index: u32,
    /// Consumer-only: the slots popped so far.
    taken: UnsafeCell<u32>,
    /// Consumer-only, meaningful in the head block: the oldest block not freed yet (null:
    /// this one). Blocks popped past wait here until they are released (see the module).
    oldest: UnsafeCell<*mut Header>,
    /// Under loom: written when the block is freed and read by every producer access, so
    /// that loom reports a producer touching a block the consumer may have freed.
    #[cfg(loom)]
    live: UnsafeCell<()>,
}

impl Header {
    #[inline(always)]
    fn check_live(&self) {
        #[cfg(loom)]
        self.live.with(|_| ());
    }
}

/// Where a block of `M`s keeps its ready bitmap and its slots.
struct Shape {
    layout: Layout,
    slots: usize,
}

#[inline]
fn shape<M>(cap: u32) -> Shape {
    let (layout, _) = Layout::new::<Header>()
        .extend(Layout::array::<AtomicU64>(ready_words(cap)).expect("small"))
        .expect("small");
    let (layout, slots) = layout
        .extend(Layout::array::<M>(cap as usize).expect("block fits in memory"))
        .expect("block fits in memory");
    Shape {
        layout: layout.pad_to_align(),
        slots,
    }
}

/// The ready word `word` of `block`.
///
/// # Safety
/// `block` is a live block and `word` is below `ready_words` of its cap.
#[inline(always)]
unsafe fn ready<'a>(block: *mut Header, word: usize) -> &'a AtomicU64 {
    // SAFETY: the bitmap follows the header (see `shape`), initialised at allocation.
    unsafe {
        &*block
            .cast::<u8>()
            .add(mem::size_of::<Header>())
            .cast::<AtomicU64>()
            .add(word)
    }
}

/// The slot `index` of a block of `M`s.
///
/// # Safety
/// `block` is a live block of `M`s with more than `index` slots.
#[inline(always)]
unsafe fn slot<M>(block: *mut Header, cap: u32, index: u32) -> *mut M {
    // SAFETY: within the block's allocation (see `shape`).
    unsafe {
        block
            .cast::<u8>()
            .add(shape::<M>(cap).slots)
            .cast::<M>()
            .add(index as usize)
    }
}

/// Allocates block `index` for `M`s: nothing linked, nothing ready.
fn alloc_block<M>(index: u32) -> *mut Header {
    let (_, cap) = geometry::<M>(index);
    let shape = shape::<M>(cap);
    // SAFETY: the layout has a nonzero size (it holds a header).
    let block = unsafe { alloc::alloc(shape.layout) }.cast::<Header>();
    if block.is_null() {
        alloc::handle_alloc_error(shape.layout);
    }
    // SAFETY: freshly allocated with room for the header and the bitmap.
    unsafe {
        block.write(Header {
            next: AtomicPtr::new(ptr::null_mut()),
            released: AtomicU64::new(0),
            tags: AtomicPtr::new(ptr::null_mut()),
            index,
            taken: UnsafeCell::new(0),
            oldest: UnsafeCell::new(ptr::null_mut()),
            #[cfg(loom)]
            live: UnsafeCell::new(()),
        });
        for word in 0..ready_words(cap) {
            ptr::from_ref(ready(block, word)).cast_mut().write(AtomicU64::new(0));
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
    let (_, cap) = geometry::<M>(header.index);
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
    // SAFETY: the header and bitmap hold no heap data; the slots were moved out; the
    // layout is the allocation's.
    unsafe {
        alloc::dealloc(block.cast::<u8>(), shape::<M>(cap).layout)
    };
}

pub(crate) struct Queue {
    /// The next position to claim.
    tail: AtomicU64,
    /// Where producers start looking for their block: a block whose positions start at or
    /// before every position not yet written (see the module docs). Null until the first
    /// push of the incarnation.
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
    #[inline]
    pub(crate) unsafe fn push<M>(&self, tag: u64, value: M) {
        let position = self.tail.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller's contract.
        let block = unsafe { self.find_block::<M>(position) };
        // SAFETY: `find_block` returns the live block holding `position`: it cannot be
        // freed before this position is ready.
        let header = unsafe { &*block };
        header.check_live();
        let (start, cap) = geometry::<M>(header.index);
        let index = (position - start) as u32;
        // SAFETY: this producer alone claimed `position`, so it alone writes its slot.
        unsafe { slot::<M>(block, cap, index).write(value) };
        if tag != 0 {
            let tags = tag_array(header, cap);
            // SAFETY: as above: this position's cell is ours to write.
            unsafe { (*tags.add(index as usize)).with_mut(|t| *t = tag) };
        }
        // SAFETY: `index` is below the cap.
        unsafe { ready(block, index as usize / 64) }
            .fetch_or(1 << (index % 64), Ordering::Release);
    }

    /// The block holding `position`, allocating blocks as needed; moves `hint` past the
    /// full blocks it walks through.
    ///
    /// # Safety
    /// Every block of this queue holds `M`s; `position` was claimed by this thread and is
    /// not ready yet.
    unsafe fn find_block<M>(&self, position: u64) -> *mut Header {
        // The producer's half of the Dekker pair with the CAS that moves `hint` and the
        // tail read after it (see the module docs): a SeqCst load.
        let mut block = dekker_load_ptr(&self.hint);
        if block.is_null() {
            block = self.install_first::<M>();
        }
        let mut advance = true;
        loop {
            // SAFETY: `block` is at or after the `hint` read above, so it is not freed
            // before our position is ready (see the module docs).
            let header = unsafe { &*block };
            header.check_live();
            let (start, cap) = geometry::<M>(header.index);
            debug_assert!(position >= start, "hint moved past an unready position");
            if position - start < u64::from(cap) {
                return block;
            }
            let mut next = header.next.load(Ordering::Acquire);
            if next.is_null() {
                next = grow::<M>(header);
            }
            // Move `hint` on only past a full block (no producer still needs it) and only
            // from the block we started at or moved it to (the first blocks of the walk).
            // SAFETY: `block` is live (above), with `cap` slots.
            if advance && unsafe { is_full(block, cap) } {
                if self
                    .hint
                    .compare_exchange(block, next, Ordering::SeqCst, Ordering::Relaxed)
                    .is_ok()
                {
                    let tail = dekker_load_u64(&self.tail);
                    header.released.store(tail + 1, Ordering::Release);
                } else {
                    advance = false;
                }
            } else {
                advance = false;
            }
            block = next;
        }
    }

    /// Allocates the queue's first block and publishes it, or returns the one another
    /// producer published first.
    #[cold]
    fn install_first<M>(&self) -> *mut Header {
        let fresh = alloc_block::<M>(0);
        match self.hint.compare_exchange(
            ptr::null_mut(),
            fresh,
            Ordering::SeqCst,
            Ordering::SeqCst,
        ) {
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

    /// Takes the oldest message, with its tag.
    ///
    /// `None` means empty, or a push in progress whose value is not ready yet
    /// ([`Queue::is_empty`] tells the two apart).
    ///
    /// # Safety
    /// Only the single consumer calls this, and every message is an `M`.
    #[inline]
    pub(crate) unsafe fn pop<M>(&self) -> Option<(u64, M)> {
        let mut block = self.head.load(Ordering::Acquire);
        if block.is_null() {
            return None;
        }
        // SAFETY: the head block is live: only this consumer frees blocks, never the head.
        let mut header = unsafe { &*block };
        let (_, mut cap) = geometry::<M>(header.index);
        // SAFETY: consumer-only field.
        let mut taken = header.taken.with(|t| unsafe { *t });
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
            cap = geometry::<M>(header.index).1;
            taken = 0;
        }
        // SAFETY: `taken` is below the cap.
        let word = unsafe { ready(block, taken as usize / 64) }.load(Ordering::Acquire);
        if word & (1 << (taken % 64)) == 0 {
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
            // ready bit.
            unsafe { (*tags.add(taken as usize)).with(|t| *t) }
        };
        // SAFETY: consumer-only field.
        header.taken.with_mut(|t| unsafe { *t = taken + 1 });
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
        let mut oldest = if oldest.is_null() { from } else { oldest };
        self.head.store(to, Ordering::Relaxed);
        // SAFETY: as above; `to` is fresh: nothing popped.
        let start = geometry::<M>(unsafe { &*to }.index).0;
        while oldest != to {
            // SAFETY: blocks between `oldest` and the head are live.
            let header = unsafe { &*oldest };
            let released = header.released.load(Ordering::Acquire);
            // Every position below `released - 1` popped: no producer can still be in it.
            if released == 0 || start + 1 < released {
                break;
            }
            let next = header.next.load(Ordering::Relaxed);
            // SAFETY: released and popped past: nobody can reach it (see the module docs).
            unsafe { free_block::<M>(oldest) };
            oldest = next;
        }
        let oldest = if oldest == to {
            ptr::null_mut()
        } else {
            oldest
        };
        // SAFETY: consumer-only field.
        unsafe { &*to }.oldest.with_mut(|o| unsafe { *o = oldest });
    }

    /// The consumer's position: how many messages it has popped.
    ///
    /// # Safety
    /// Only the single consumer calls this.
    #[inline]
    unsafe fn head_position<M>(&self) -> u64 {
        let block = self.head.load(Ordering::Acquire);
        if block.is_null() {
            return 0;
        }
        // SAFETY: the head block is live (see `pop`); `taken` is consumer-only.
        let header = unsafe { &*block };
        geometry::<M>(header.index).0 + u64::from(header.taken.with(|t| unsafe { *t }))
    }

    /// True when nothing has been pushed since the consumer's last pop: a push that is half
    /// done (position claimed, value not ready) counts as non-empty. The read of `tail` is
    /// the receiver's half of the park protocol's Dekker pair (see `Slot::park`).
    ///
    /// # Safety
    /// Only the single consumer calls this, and every message is an `M`.
    pub(crate) unsafe fn is_empty<M>(&self) -> bool {
        // SAFETY: the caller's contract.
        let head = unsafe { self.head_position::<M>() };
        dekker_load_u64(&self.tail) == head
    }

    /// The number of queued messages (pushes in progress included), counting at most
    /// `cap`.
    ///
    /// # Safety
    /// Only the single consumer calls this, and every message is an `M`.
    pub(crate) unsafe fn len_upto<M>(&self, cap: usize) -> usize {
        // SAFETY: the caller's contract.
        let head = unsafe { self.head_position::<M>() };
        let len = self.tail.load(Ordering::Acquire) - head;
        usize::try_from(len).unwrap_or(usize::MAX).min(cap)
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
            if unsafe { self.is_empty::<M>() } {
                return dropped;
            }
            // A sender between its claim and its ready bit: it finishes in a few
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

/// Whether every slot of `block` is ready.
///
/// # Safety
/// `block` is live, with `cap` slots.
unsafe fn is_full(block: *mut Header, cap: u32) -> bool {
    (0..ready_words(cap)).all(|word| {
        let bits = cap as usize - word * 64;
        let full = if bits >= 64 { u64::MAX } else { (1 << bits) - 1 };
        // SAFETY: `word` is below the bitmap's length.
        unsafe { ready(block, word) }.load(Ordering::Acquire) == full
    })
}

/// Links a new block after `header` (the last block as far as we know), or, if another
/// producer linked one first, appends ours further on (or frees it). Returns `header`'s
/// next block.
#[cold]
fn grow<M>(header: &Header) -> *mut Header {
    let fresh = alloc_block::<M>(header.index + 1);
    match header.next.compare_exchange(
        ptr::null_mut(),
        fresh,
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        Ok(_) => fresh,
        Err(winner) => {
            // SAFETY: `winner` is after our hint's block, so live (see the module docs).
            unsafe { append_spare::<M>(winner, fresh) };
            winner
        }
    }
}

/// Links `fresh` (allocated, never published) after the last block reachable from
/// `block`, renumbered to fit there, if its size fits there; frees it otherwise.
///
/// # Safety
/// `block` is live and after the walking producer's hint; `fresh` is unpublished.
unsafe fn append_spare<M>(mut block: *mut Header, fresh: *mut Header) {
    // SAFETY: unpublished: ours alone.
    let fresh_cap = geometry::<M>(unsafe { &*fresh }.index).1;
    loop {
        // SAFETY: the caller's contract (and each next block is after it).
        let header = unsafe { &*block };
        header.check_live();
        let index = header.index + 1;
        if geometry::<M>(index).1 != fresh_cap {
            // SAFETY: never published.
            unsafe { free_unpublished::<M>(fresh) };
            return;
        }
        // SAFETY: unpublished: ours alone; the CAS below publishes the new number.
        unsafe { (*fresh).index = index };
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
        let (_, cap) = geometry::<M>((*block).index);
        for word in 0..ready_words(cap) {
            ptr::drop_in_place(ptr::from_ref(ready(block, word)).cast_mut());
        }
        ptr::drop_in_place(block);
        alloc::dealloc(block.cast::<u8>(), shape::<M>(cap).layout);
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
    match header.tags.compare_exchange(
        ptr::null_mut(),
        fresh,
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        Ok(_) => fresh,
        Err(winner) => {
            // SAFETY: never published: ours alone, a boxed slice of `cap` cells.
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(fresh, cap as usize)) });
            winner
        }
    }
}
