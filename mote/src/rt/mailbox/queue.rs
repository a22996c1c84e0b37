//! The lock-free multi-producer, single-consumer queue under every mailbox.
//!
//! Dmitry Vyukov's non-intrusive MPSC queue: a push is one atomic swap of `tail` plus one
//! store; a pop touches only consumer-owned state plus one load. The consumer keeps the last
//! popped node as the new "dummy" head and frees the previous one, so a node is freed one
//! pop later. The first dummy is a stub embedded in the queue itself, which is why the queue
//! must not move once initialised: it lives in a process-table slot that never moves.
//!
//! Nodes are type-erased behind [`Link`] so the process table can hold mailboxes of every
//! message type; the caller always knows the real type `M`, because a mailbox only ever holds
//! `Node<M>` for its process's `M`.

use std::mem::ManuallyDrop;
use std::ptr;

use crate::rt::sync::{AtomicPtr, Ordering, UnsafeCell};

/// The type-erased header every node starts with.
#[repr(C)]
pub(crate) struct Link {
    next: AtomicPtr<Link>,
}

impl Link {
    fn new() -> Self {
        Link {
            next: AtomicPtr::new(ptr::null_mut()),
        }
    }
}

/// One queued message. `tag` is 0 for an ordinary message and a monitor reference for a
/// `Down`, so that `demonitor` with flush can find it without knowing `M`'s shape.
#[repr(C)]
pub(crate) struct Node<M> {
    link: Link,
    tag: u64,
    value: ManuallyDrop<M>,
}

impl<M> Node<M> {
    pub(crate) fn boxed(tag: u64, value: M) -> *mut Link {
        let node = Box::new(Node {
            link: Link::new(),
            tag,
            value: ManuallyDrop::new(value),
        });
        Box::into_raw(node).cast::<Link>()
    }

    /// Frees a node that was never queued and gives its message back.
    ///
    /// # Safety
    /// `link` came from [`Node::<M>::boxed`] and was never pushed.
    pub(crate) unsafe fn unbox(link: *mut Link) -> M {
        // SAFETY: per the contract, `link` is a live `Node<M>` owned by the caller.
        let mut node = unsafe { Box::from_raw(link.cast::<Node<M>>()) };
        // SAFETY: the value was never taken out of this node, and the node is freed right
        // after without touching it again.
        unsafe { ManuallyDrop::take(&mut node.value) }
    }
}

pub(crate) struct Queue {
    /// Consumer-only: the current dummy node.
    head: UnsafeCell<*mut Link>,
    /// The most recently pushed node; producers swap it.
    tail: AtomicPtr<Link>,
    stub: Link,
}

// SAFETY: `head` is only touched by the single consumer (the contract of `pop`/`drain`),
// everything else is atomic; nodes hold `M: Send` values (enforced where they are created).
unsafe impl Send for Queue {}
// SAFETY: as above: shared access from producers only goes through atomics.
unsafe impl Sync for Queue {}

impl Queue {
    /// A queue that must be [`init`](Queue::init)ialised in place before use.
    #[cfg_attr(not(loom), allow(dead_code))] // used to build slots in loom tests
    pub(crate) fn new() -> Self {
        Queue {
            head: UnsafeCell::new(ptr::null_mut()),
            tail: AtomicPtr::new(ptr::null_mut()),
            stub: Link::new(),
        }
    }

    fn stub(&self) -> *mut Link {
        &self.stub as *const Link as *mut Link
    }

    /// Points head and tail at the embedded stub. Called once the queue is at its final
    /// address, with no producer or consumer active.
    pub(crate) fn init(&self) {
        let stub = self.stub();
        self.stub.next.store(ptr::null_mut(), Ordering::Relaxed);
        self.head.with_mut(|head| {
            // SAFETY: no consumer is active during init (the caller's contract).
            unsafe { *head = stub }
        });
        self.tail.store(stub, Ordering::Release);
    }

    /// Appends a node. Any number of threads may push at once.
    ///
    /// The swap is `SeqCst` because the mailbox's park protocol pairs it with the consumer's
    /// `SeqCst` read of `tail` (see `Slot::park`).
    ///
    /// # Safety
    /// `node` came from [`Node::boxed`] for this queue's message type and is not queued yet.
    pub(crate) unsafe fn push(&self, node: *mut Link) {
        let prev = self.tail.swap(node, Ordering::SeqCst);
        // SAFETY: `prev` stays allocated until its `next` is set: the consumer never moves
        // past (and so never frees) a node whose `next` is null.
        unsafe { (*prev).next.store(node, Ordering::Release) };
    }

    /// Takes the oldest message, with its tag.
    ///
    /// `None` means empty, or a push in progress whose link is not visible yet
    /// ([`Queue::is_empty`] tells the two apart).
    ///
    /// # Safety
    /// Only the single consumer calls this, and every queued node is a `Node<M>`.
    pub(crate) unsafe fn pop<M>(&self) -> Option<(u64, M)> {
        self.head.with_mut(|head| {
            // SAFETY: consumer-only access to `head` (the caller's contract).
            let dummy = unsafe { *head };
            // SAFETY: the dummy is live: it is either the stub or a node we have not freed.
            let next = unsafe { (*dummy).next.load(Ordering::Acquire) };
            if next.is_null() {
                return None;
            }
            // SAFETY: as above.
            unsafe { *head = next };
            let node = next.cast::<Node<M>>();
            // SAFETY: `next` is a fully linked `Node<M>` (Acquire above pairs with the push's
            // Release); its value has not been taken: it becomes the dummy now, and a dummy's
            // value is never read again.
            let message = unsafe { ((*node).tag, ManuallyDrop::take(&mut (*node).value)) };
            if dummy != self.stub() {
                // SAFETY: the old dummy is a `Node<M>` whose value was taken when it became
                // the dummy; no producer can reach it (its `next` is set). `ManuallyDrop`
                // keeps the moved-out value from being dropped twice.
                drop(unsafe { Box::from_raw(dummy.cast::<Node<M>>()) });
            }
            Some(message)
        })
    }

    /// True when nothing has been pushed since the consumer's last pop: a push that is half
    /// done (tail swapped, link not yet visible) counts as non-empty. The read of `tail` is
    /// the receiver's half of the park protocol's Dekker pair (see `Slot::park`).
    ///
    /// # Safety
    /// Only the single consumer calls this.
    pub(crate) unsafe fn is_empty(&self) -> bool {
        // SAFETY: consumer-only access to `head`.
        let head = self.head.with(|head| unsafe { *head });
        crate::rt::sync::dekker_load_ptr(&self.tail) == head
    }

    /// The number of queued messages, counting at most `cap`.
    ///
    /// # Safety
    /// Only the single consumer calls this.
    pub(crate) unsafe fn len_upto(&self, cap: usize) -> usize {
        // SAFETY: consumer-only access to `head`; every node reachable from it stays
        // allocated until the consumer pops past it.
        let mut node = self.head.with(|head| unsafe { *head });
        let mut len = 0;
        while len < cap {
            // SAFETY: as above.
            let next = unsafe { (*node).next.load(Ordering::Acquire) };
            if next.is_null() {
                break;
            }
            node = next;
            len += 1;
        }
        len
    }

    /// Drops every message queued now, waiting for the pushes in progress (tail swapped,
    /// link not yet visible) to finish, so that every push whose swap came before this call's
    /// last read of `tail` is dropped too.
    ///
    /// # Safety
    /// Only the single consumer calls this, and every queued node is a `Node<M>`.
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
            // A sender between its swap and its link: it finishes in a few instructions
            // unless its thread lost the processor.
            spins += 1;
            crate::rt::sync::wait_step(spins);
        }
    }

    /// Drops every queued message and returns the queue to its initial state.
    ///
    /// # Safety
    /// No producer or consumer is active, and every queued node is a `Node<M>`.
    pub(crate) unsafe fn drain<M>(&self) -> usize {
        // SAFETY: exclusive access (the caller's contract) makes us the consumer; with no
        // producer, no push is in progress.
        let dropped = unsafe { self.drop_queued::<M>() };
        // SAFETY: exclusive access; the last dummy (if not the stub) is a `Node<M>` whose
        // value was taken.
        self.head.with_mut(|head| unsafe {
            if *head != self.stub() {
                drop(Box::from_raw((*head).cast::<Node<M>>()));
            }
        });
        self.init();
        dropped
    }
}
