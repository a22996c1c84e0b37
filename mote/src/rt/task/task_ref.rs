//! [`TaskRef`]: a reference to a task kept as the task pointer alone, for the process table.

use std::ptr::NonNull;
use std::task::Waker;

use super::raw::Header;
use super::waker::{drop_ref, wake_by_ref, WAKER_VTABLE};

/// One reference to a task, that wakes it as its [`Waker`]s do: 8 bytes where a `Waker` takes
/// 16 (its vtable pointer is the same static for every task, see "One waker vtable" in the
/// module docs of `rt::task`). The process table keeps one per slot.
pub(crate) struct TaskRef {
    ptr: NonNull<Header>,
}

// SAFETY: a task reference only touches the task's header (atomics and a `'static` table of
// functions) and hands runnables (which are `Send`) to the scheduler, from any thread, as
// the task's `Waker`s (which are `Send + Sync`) do.
unsafe impl Send for TaskRef {}
// SAFETY: as above; `wake_by_ref` and `will_wake` take `&self` and are what a shared
// `Waker` allows.
unsafe impl Sync for TaskRef {}

impl TaskRef {
    /// Takes over a reference to the task at `ptr`.
    ///
    /// # Safety
    /// The caller holds a reference to that task and gives it up.
    pub(super) unsafe fn from_header(ptr: NonNull<Header>) -> Self {
        TaskRef { ptr }
    }

    /// Wakes the task, as `Waker::wake_by_ref` of its wakers does.
    #[inline]
    pub(crate) fn wake_by_ref(&self) {
        // SAFETY: our reference keeps the task live.
        unsafe { wake_by_ref(self.ptr.as_ptr() as *const ()) }
    }

    /// The kind of the task's process (see [`TaskKind`](super::TaskKind)), from the vtable
    /// of its header.
    #[inline]
    pub(crate) fn kind(&self) -> &'static (dyn std::any::Any + Send + Sync) {
        // SAFETY: our reference keeps the task, and so its header, live.
        unsafe { self.ptr.as_ref() }.vtable.kind
    }

    /// Whether `waker` is one of this task's wakers.
    #[inline]
    pub(crate) fn will_wake(&self, waker: &Waker) -> bool {
        std::ptr::eq(waker.data(), self.ptr.as_ptr() as *const ())
            && std::ptr::eq(waker.vtable(), &WAKER_VTABLE)
    }
}

impl Drop for TaskRef {
    fn drop(&mut self) {
        // SAFETY: our reference, given up.
        unsafe { drop_ref(self.ptr.as_ptr() as *const ()) }
    }
}

/// For the tests of code that keeps a [`TaskRef`]: a task whose wakes wake `waker` (each
/// wake runs the task at once, and its poll wakes `waker`).
#[cfg(test)]
pub(crate) fn waking<K: super::TaskKind>(waker: Waker) -> TaskRef {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use super::{spawn_kind, Runnable, Schedule};

    struct WakeWhenPolled {
        waker: Waker,
        polled: bool,
    }
    impl Future for WakeWhenPolled {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            let this = self.get_mut();
            // The first poll (below) only makes the task idle.
            if std::mem::replace(&mut this.polled, true) {
                this.waker.wake_by_ref();
            }
            Poll::Pending
        }
    }
    struct RunAtOnce;
    impl Schedule for RunAtOnce {
        fn schedule(runnable: Runnable, _: bool) {
            runnable.run();
        }
    }
    let runnable = spawn_kind::<_, RunAtOnce, K>(WakeWhenPolled {
        waker,
        polled: false,
    });
    let task = runnable.task_ref();
    runnable.run();
    task
}
