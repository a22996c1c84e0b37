//! Reply slots kept for the next call on the same thread, instead of an allocation and a
//! free per call.
//!
//! A call's slot is shared by the caller's [`Waiter`] and the server's reply handle, so it
//! lives in an `Arc`. The reply handle lets go of it when it replies, before the caller takes
//! the reply; so when the caller is done, its `Waiter` is usually the only owner left, and
//! the slot can serve the caller's next call as it is (emptied, its waker kept: see
//! [`Waiter::emptied`]). A caller making
//! call after call then allocates nothing: `malloc`, `free` and `Arc`'s `drop_slow` were
//! about 5% of a one-caller `server::call` round trip.
//!
//! One slot is kept per thread, for one outcome type: the thread's next call of that type
//! takes it. A call of another type allocates as before, and its slot replaces the kept one
//! when it is done (so a thread alternating two types pays what it paid before). A slot
//! another owner still holds (a reply handle kept in a server's state, a watch) is never
//! kept: the waiter must be the only owner, and an acquire fence orders every other owner's
//! last use of the slot before the reset.

use std::any::TypeId;
use std::cell::Cell;
use std::sync::Arc;

use super::{Completion, Waiter};

/// A kept slot: an `Arc<Completion<T>>` turned into a raw pointer, with its `T` and how to
/// free it (who the waker it still holds wakes is in the slot: `Completion::registered`).
struct Kept {
    of: TypeId,
    slot: *const (),
    /// Frees `slot` as the `Arc<Completion<T>>` it came from.
    free: unsafe fn(*const ()),
}

/// This thread's kept slot; freed when the thread ends.
struct KeptCell(Cell<Option<Kept>>);

impl Drop for KeptCell {
    fn drop(&mut self) {
        if let Some(kept) = self.0.take() {
            // SAFETY: `kept` came from `keep`, which turned an `Arc` of `kept.of`'s
            // completion into `slot` and recorded `free` for that type; taken out of the
            // cell, it is freed once.
            unsafe { (kept.free)(kept.slot) };
        }
    }
}

thread_local! {
    static KEPT: KeptCell = const { KeptCell(Cell::new(None)) };
}

/// Frees a kept slot of outcome type `T`.
///
/// # Safety
/// `slot` came from `Arc::<Completion<T>>::into_raw`, and is freed once.
unsafe fn free<T>(slot: *const ()) {
    // SAFETY: the caller's promise.
    drop(unsafe { Arc::from_raw(slot.cast::<Completion<T>>()) });
}

impl<T: 'static> Waiter<T> {
    /// A waiter on this thread's kept slot if it is of this type, else on a fresh one.
    #[inline]
    pub(crate) fn reused() -> Self {
        let of = TypeId::of::<Completion<T>>();
        let kept = KEPT
            .try_with(|k| {
                let kept = k.0.take()?;
                if kept.of == of {
                    return Some(kept.slot);
                }
                // Another type's: left for it.
                k.0.set(Some(kept));
                None
            })
            .ok()
            .flatten();
        match kept {
            // SAFETY: kept by `keep` as an `Arc<Completion<T>>` (its type id is this `T`'s),
            // taken out of the cell, so ours alone.
            Some(slot) => Waiter(unsafe { Arc::from_raw(slot.cast::<Completion<T>>()) }),
            None => Waiter::new(),
        }
    }

    /// The waiter is done with its slot (it took the outcome or gave up): keeps the slot for
    /// this thread's next [`Waiter::reused`] if nobody else holds it, else lets go of it.
    #[inline]
    pub(crate) fn recycle(self) {
        let Some(Waiter(slot)) = self.emptied() else {
            return;
        };
        let raw = Arc::into_raw(slot).cast::<()>();
        let replaced = KEPT.try_with(|k| {
            k.0.replace(Some(Kept {
                of: TypeId::of::<Completion<T>>(),
                slot: raw,
                free: free::<T>,
            }))
        });
        match replaced {
            Ok(None) => {}
            // SAFETY: as in `KeptCell::drop`: taken out of the cell, freed once.
            Ok(Some(old)) => unsafe { (old.free)(old.slot) },
            // The thread is ending: nothing will reuse it.
            // SAFETY: `raw` came from `Arc::<Completion<T>>::into_raw` just above, and went
            // nowhere else.
            Err(_) => unsafe { free::<T>(raw) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::{Context, Poll, Waker};

    fn kept_ptr() -> Option<*const ()> {
        KEPT.with(|k| {
            let kept = k.0.take();
            let ptr = kept.as_ref().map(|k| k.slot);
            k.0.set(kept);
            ptr
        })
    }

    /// A slot whose only owner is the waiter is reused, empty, by the next call of its type;
    /// one another owner still holds is not.
    #[test]
    fn a_slot_only_the_waiter_holds_is_reused_empty() {
        let mut first = Waiter::<u32>::reused();
        let addr = Arc::as_ptr(first.completion());
        let producer = Arc::clone(first.completion());
        assert!(producer.complete(1).is_ok());
        drop(producer);
        let cx = &mut Context::from_waker(Waker::noop());
        assert_eq!(first.poll_take(cx), Poll::Ready(Ok(1)));
        first.recycle();
        assert_eq!(kept_ptr(), Some(addr.cast()));

        // Reused, and empty: it waits, then takes a new outcome.
        let mut second = Waiter::<u32>::reused();
        assert_eq!(Arc::as_ptr(second.completion()), addr);
        assert_eq!(kept_ptr(), None);
        assert!(second.poll_take(cx).is_pending());
        assert!(!second.is_done() && !second.is_ready());
        let held = Arc::clone(second.completion());
        assert!(held.complete(2).is_ok());
        assert_eq!(second.poll_take(cx), Poll::Ready(Ok(2)));
        // Another owner holds it: not kept (`held` may still read it).
        second.recycle();
        assert_eq!(kept_ptr(), None);
        assert!(held.is_done());
    }

    /// A slot of another type is left in place; one of the same type replaces it.
    #[test]
    fn other_types_allocate_and_replace_the_kept_slot() {
        let first = Waiter::<u32>::reused();
        let addr = Arc::as_ptr(first.completion()).cast::<()>();
        first.recycle();
        let other = Waiter::<String>::reused();
        assert_eq!(kept_ptr(), Some(addr), "a u32 slot is no String slot");
        let other_addr = Arc::as_ptr(other.completion()).cast::<()>();
        other.recycle();
        assert_eq!(kept_ptr(), Some(other_addr));
        // Given up with a waker stored, and an outcome that came after: dropped on reset.
        let mut w = Waiter::<String>::reused();
        let cx = &mut Context::from_waker(Waker::noop());
        assert!(w.poll_take(cx).is_pending());
        let producer = Arc::clone(w.completion());
        assert_eq!(w.close(), None);
        assert_eq!(producer.complete("late".into()), Err("late".into()));
        drop(producer);
        w.recycle();
        let again = Waiter::<String>::reused();
        assert!(!again.is_done() && !again.is_ready());
    }
}
