//! Timeouts on waits that usually end well before them: a call's reply, a receive, a task's
//! value; and, on a wheel of their own ([`Shard`] is generic over what it fires), the public
//! timers of `process::timer` (`send_after`, `start_timer`). `sleep` is a tokio timer.
//!
//! `tokio::time::timeout` was a third of a `server::call` round trip (about 280 ns of
//! 820 ns, measured with `mote-bench run --workload call` with and without one). A call's
//! timeout almost never fires, so what matters is arming and disarming it. Here that is an
//! insert and a remove in a [`Wheel`] behind an uncontended lock (each thread uses its own
//! shard), plus one clock read ([`clock`]; from the time-stamp counter when the thread read
//! the clock a few tens of microseconds before). A tokio task per shard sleeps until the
//! earliest tick that may be due and wakes the waiters whose time has come; it is told about
//! a new entry only when that entry is due before the tick it sleeps until, which for
//! timeouts of one length is almost never.
//!
//! Resolution is a millisecond, as for tokio's timers. A timeout never fires early; it may
//! fire up to about a millisecond late (a quarter more when armed from the counter), plus
//! the time the driver's tokio thread takes to run.

mod clock;
mod wheel;

pub(crate) use clock::deadline_tick;
pub(crate) use wheel::Key;

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use parking_lot::Mutex;
use pin_project_lite::pin_project;
use tokio::sync::Notify;

use wheel::Wheel;

use crate::rt::waker_id::WakerId;

/// What a wheel holds: something to do when its tick comes.
pub(crate) trait Due: Send + 'static {
    /// Called once, with no lock held, when the entry's tick has passed.
    fn fire(self);
}

impl Due for Waker {
    fn fire(self) {
        self.wake();
    }
}

/// Runs `future` until it ends or `duration` passes ([`Duration::MAX`]: no limit).
pub(crate) fn timeout<F: Future>(duration: Duration, future: F) -> Timeout<F> {
    Timeout {
        future,
        duration,
        state: State::Unarmed,
    }
}

/// The time ran out before the future ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elapsed;

pin_project! {
    /// The future of [`timeout`].
    pub(crate) struct Timeout<F> {
        #[pin]
        future: F,
        duration: Duration,
        state: State,
    }

    impl<F> PinnedDrop for Timeout<F> {
        fn drop(this: Pin<&mut Self>) {
            if let State::Armed(armed) = *this.project().state {
                armed.release();
            }
        }
    }
}

enum State {
    /// Not polled yet: the clock starts at the first poll.
    Unarmed,
    Armed(Armed),
    /// No limit, or the limit passed.
    Idle,
}

/// A wheel entry that wakes this timeout's waiter, and the tick the timeout is due at.
///
/// The entry may be due earlier than the timeout (one reused from an earlier timeout of the
/// same waiter, see [`Spare`]): when it fires first, the waiter finds its own tick not yet
/// passed and arms a fresh entry.
#[derive(Clone, Copy)]
struct Armed {
    entry: Spare,
    /// The first tick at which this timeout has run out.
    due: u64,
}

/// A wheel entry left armed by a timeout that ended first, kept for the next timeout of the
/// same waker on this thread (one per thread).
///
/// A caller that makes call after call arms a timeout for each; inserting and removing an
/// entry (a lock, an insert, a lock, a remove, a waker clone and drop) was about a sixth of
/// a one-caller `server::call` round trip. An entry due no later than the new timeout, not
/// yet due, and waking the same task serves the new timeout as it is: if it fires first,
/// the waiter is woken once early and arms an entry for its own tick then. Another task's
/// timeout leaves the spare where it is (so callers taking turns on a thread pay what they
/// paid before: one insert, one remove). A spare nobody takes is removed when another takes
/// its place (or its thread ends); until then it may wake its task once, spuriously, which
/// a future always tolerates.
#[derive(Clone, Copy)]
struct Spare {
    shard: &'static Shard<Waker>,
    key: Key,
    /// The entry's tick.
    tick: u64,
    /// Who the entry's waker wakes (the entry holds a clone of that waker).
    wakes: WakerId,
}

/// This thread's [`Spare`]; removed from its wheel when the thread ends.
struct SpareCell(Cell<Option<Spare>>);

impl Drop for SpareCell {
    fn drop(&mut self) {
        if let Some(spare) = self.0.take() {
            spare.shard.cancel(spare.key);
        }
    }
}

thread_local! {
    static SPARE: SpareCell = const { SpareCell(Cell::new(None)) };
}

impl Armed {
    /// The timeout ended (its future did, or it was dropped): keep the entry as this
    /// thread's spare, removing the one it replaces.
    #[inline]
    fn release(self) {
        let replaced = SPARE
            .try_with(|spare| spare.0.replace(Some(self.entry)))
            // The thread is ending: nothing will reuse it.
            .unwrap_or(Some(self.entry));
        if let Some(old) = replaced {
            old.shard.cancel(old.key);
        }
    }

    /// Arms a timeout due at `due` (an absolute tick; `now` is the last tick that has
    /// passed): with this thread's spare entry if it fits, else a new one. `None` if `due`
    /// has passed.
    #[inline]
    fn arm(due: u64, now: u64, waker: &Waker) -> Option<Armed> {
        if let Some(spare) = SPARE.try_with(|s| s.0.take()).ok().flatten() {
            // Not yet due by a clock read taken after the driver's last one could have
            // fired it, so it is still in the wheel; due no later than this timeout.
            if spare.wakes != WakerId::of(waker) {
                // Another task's: left for it (it may be about to arm again), or for the
                // next release on this thread to remove.
                let _ = SPARE.try_with(|s| s.0.set(Some(spare)));
            } else if spare.tick > now && spare.tick <= due {
                return Some(Armed { entry: spare, due });
            } else {
                spare.shard.cancel(spare.key);
            }
        }
        let shard = Shard::current();
        let key = shard.arm_waker(due, waker)?;
        Some(Armed {
            entry: Spare {
                shard,
                key,
                tick: due,
                wakes: WakerId::of(waker),
            },
            due,
        })
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(out) = this.future.poll(cx) {
            if let State::Armed(armed) = std::mem::replace(this.state, State::Idle) {
                armed.release();
            }
            return Poll::Ready(Ok(out));
        }
        match this.state {
            // Zero: only whether the future is ready now, as a zero `recv_timeout` does.
            State::Unarmed if this.duration.is_zero() => {
                *this.state = State::Idle;
                Poll::Ready(Err(Elapsed))
            }
            State::Unarmed => {
                let Some((due, now)) = clock::deadline_and_now(*this.duration) else {
                    *this.state = State::Idle;
                    return Poll::Pending;
                };
                match Armed::arm(due, now, cx.waker()) {
                    Some(armed) => {
                        *this.state = State::Armed(armed);
                        Poll::Pending
                    }
                    None => {
                        *this.state = State::Idle;
                        Poll::Ready(Err(Elapsed))
                    }
                }
            }
            State::Armed(armed) => {
                if armed.entry.shard.still_armed(armed.entry.key, cx.waker()) {
                    armed.entry.wakes = WakerId::of(cx.waker());
                    return Poll::Pending;
                }
                // The entry fired: a reused one may have been due before this timeout.
                let due = armed.due;
                let now = clock::now_tick();
                match (now < due)
                    .then(|| Armed::arm(due, now, cx.waker()))
                    .flatten()
                {
                    Some(rearmed) => {
                        *this.state = State::Armed(rearmed);
                        Poll::Pending
                    }
                    None => {
                        *this.state = State::Idle;
                        Poll::Ready(Err(Elapsed))
                    }
                }
            }
            // Either no limit, or it passed and the caller polls again: wait for the future.
            State::Idle => Poll::Pending,
        }
    }
}

/// One wheel, its lock, and the driver task that fires its entries.
pub(crate) struct Shard<T> {
    inner: Mutex<Inner<T>>,
    /// Wakes the driver when an entry is due before the tick it sleeps until.
    earlier: Notify,
}

struct Inner<T> {
    /// Made on first use, so shards no thread uses cost nothing.
    wheel: Option<Wheel<T>>,
    /// The tick the driver sleeps until (`u64::MAX`: until told).
    planned: u64,
}

static SHARDS: OnceLock<Box<[Shard<Waker>]>> = OnceLock::new();
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MY_SHARD: Cell<usize> = const { Cell::new(usize::MAX) };
}

impl Shard<Waker> {
    /// This thread's shard: threads take shards in turn, so with one shard per thread
    /// (twice as many as cores) the lock is rarely contended.
    fn current() -> &'static Shard<Waker> {
        pick(SHARDS.get_or_init(|| (0..shard_count()).map(|_| Shard::new()).collect()))
    }

    /// Adds a waiter due at `tick`; `None` if that tick has already passed.
    fn arm_waker(&'static self, tick: u64, waker: &Waker) -> Option<Key> {
        self.arm(tick, waker.clone()).ok()
    }

    /// Whether `key` has not fired; if so, its waker becomes `waker`.
    fn still_armed(&self, key: Key, waker: &Waker) -> bool {
        let mut inner = self.inner.lock();
        match inner.wheel.as_mut().and_then(|w| w.get_mut(key)) {
            Some(stored) => {
                if !stored.will_wake(waker) {
                    stored.clone_from(waker);
                }
                true
            }
            None => false,
        }
    }
}

/// Twice as many shards as cores (at least 2, at most 64).
pub(crate) fn shard_count() -> usize {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    (2 * n).clamp(2, 64)
}

/// This thread's shard of `shards`: threads take shards in turn, so with one shard per
/// thread (twice as many as cores) a shard's lock is rarely contended.
pub(crate) fn pick<T>(shards: &'static [Shard<T>]) -> &'static Shard<T> {
    let mut mine = MY_SHARD.with(Cell::get);
    if mine == usize::MAX {
        mine = NEXT_SHARD.fetch_add(1, Ordering::Relaxed);
        MY_SHARD.with(|m| m.set(mine));
    }
    &shards[mine % shards.len()]
}

impl<T: Due> Shard<T> {
    /// An empty shard; its wheel and driver start at the first entry.
    pub(crate) const fn new() -> Self {
        Shard {
            inner: Mutex::new(Inner {
                wheel: None,
                planned: u64::MAX,
            }),
            earlier: Notify::const_new(),
        }
    }

    /// Adds `entry`, due at `tick`; gives it back if that tick has already passed.
    pub(crate) fn arm(&'static self, tick: u64, entry: T) -> Result<Key, T> {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        let wheel = match &mut inner.wheel {
            Some(wheel) => wheel,
            none => {
                let wheel = none.insert(Wheel::new(clock::now_tick()));
                crate::rt::scheduler::global::tokio_handle().spawn(self.drive());
                wheel
            }
        };
        let key = wheel.insert(tick, entry)?;
        let earlier = tick < inner.planned;
        if earlier {
            inner.planned = tick;
        }
        drop(guard);
        if earlier {
            self.earlier.notify_one();
        }
        Ok(key)
    }

    /// Removes the entry `key`, if it has not fired.
    pub(crate) fn cancel(&self, key: Key) {
        let removed = self.inner.lock().wheel.as_mut().and_then(|w| w.remove(key));
        // Dropped outside the lock: a waker's drop may run arbitrary code.
        drop(removed);
    }

    /// The number of entries waiting (for tests: a timer that ended must leave none).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().wheel.as_ref().map_or(0, Wheel::len)
    }

    /// The driver: fires the entries that are due, sleeps until the next tick that may be.
    async fn drive(&'static self) {
        let mut due = Vec::new();
        loop {
            let next = {
                let mut inner = self.inner.lock();
                let wheel = inner.wheel.as_mut().expect("driven after the first arm");
                wheel.advance(clock::now_tick(), |entry| due.push(entry));
                let next = wheel.next_tick();
                inner.planned = next.unwrap_or(u64::MAX);
                next
            };
            due.drain(..).for_each(Due::fire);
            let earlier = self.earlier.notified();
            match next.and_then(clock::instant_of) {
                Some(at) => {
                    let sleep = tokio::time::sleep_until(at.into());
                    futures_util::future::select(std::pin::pin!(sleep), std::pin::pin!(earlier))
                        .await;
                }
                None => earlier.await,
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn fires_after_its_deadline_and_not_before() {
        crate::run(|_p: crate::Process<()>| async move {
            for ms in [0u64, 1, 5, 20, 300] {
                let start = Instant::now();
                let never = std::future::pending::<()>();
                assert_eq!(
                    timeout(Duration::from_millis(ms), never).await,
                    Err(Elapsed)
                );
                assert!(start.elapsed() >= Duration::from_millis(ms));
            }
        })
        .unwrap();
    }

    /// The shard and key a polled, pending timeout is armed with.
    fn armed<F>(t: Pin<&mut Timeout<F>>) -> Option<(&'static Shard<Waker>, Key)> {
        match t.project().state {
            State::Armed(armed) => Some((armed.entry.shard, armed.entry.key)),
            _ => None,
        }
    }

    fn is_in_wheel(shard: &Shard<Waker>, key: Key) -> bool {
        let mut inner = shard.inner.lock();
        inner.wheel.as_mut().and_then(|w| w.get_mut(key)).is_some()
    }

    /// This thread's spare entry, taken out (so that the next test starts without one).
    fn take_spare() -> Option<(&'static Shard<Waker>, Key)> {
        SPARE.with(|s| s.0.take()).map(|s| (s.shard, s.key))
    }

    /// A timeout that ends first leaves its entry as the thread's spare, which the next
    /// timeout of the same waker takes as it is; another waker's timeout removes it.
    #[test]
    fn ending_first_or_being_dropped_leaves_one_spare_that_the_same_waker_reuses() {
        if let Some((shard, key)) = take_spare() {
            shard.cancel(key);
        }
        let mut cx = Context::from_waker(Waker::noop());
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let mut t = std::pin::pin!(timeout(Duration::from_secs(5), rx));
        assert!(t.as_mut().poll(&mut cx).is_pending());
        let (shard, key) = armed(t.as_mut()).expect("armed at the first pending poll");
        assert!(is_in_wheel(shard, key));
        tx.send(7).unwrap();
        assert!(matches!(t.as_mut().poll(&mut cx), Poll::Ready(Ok(Ok(7)))));
        assert!(is_in_wheel(shard, key), "kept as the spare");

        // The same waker, a later deadline: the spare serves it.
        let mut dropped = Box::pin(timeout(
            Duration::from_secs(6),
            std::future::pending::<()>(),
        ));
        assert!(dropped.as_mut().poll(&mut cx).is_pending());
        assert_eq!(armed(dropped.as_mut()).map(|(_, k)| k), Some(key));
        drop(dropped);
        assert!(is_in_wheel(shard, key), "kept as the spare again");

        // An earlier deadline cannot use it: it is removed, a new entry is armed.
        let mut early = Box::pin(timeout(
            Duration::from_secs(1),
            std::future::pending::<()>(),
        ));
        assert!(early.as_mut().poll(&mut cx).is_pending());
        let (_, early_key) = armed(early.as_mut()).unwrap();
        assert_ne!(early_key, key);
        assert!(!is_in_wheel(shard, key));
        drop(early);

        // Another waker cannot use the spare either.
        struct Other;
        impl std::task::Wake for Other {
            fn wake(self: std::sync::Arc<Self>) {}
        }
        let other = Waker::from(std::sync::Arc::new(Other));
        let mut t = Box::pin(timeout(
            Duration::from_secs(5),
            std::future::pending::<()>(),
        ));
        assert!(t
            .as_mut()
            .poll(&mut Context::from_waker(&other))
            .is_pending());
        let (shard, other_key) = armed(t.as_mut()).unwrap();
        assert_ne!(other_key, early_key);
        // Left for its own waker, until another release takes its place.
        assert!(is_in_wheel(shard, early_key));
        drop(t);
        assert!(!is_in_wheel(shard, early_key));
        let (shard, spare) = take_spare().unwrap();
        assert_eq!(spare, other_key);
        shard.cancel(spare);
        assert!(!is_in_wheel(shard, spare));
    }

    /// A timeout served by a reused entry due before its own deadline is woken then, and
    /// neither ends early nor loses its limit: it ends at its own deadline.
    #[test]
    fn a_reused_entry_due_early_neither_ends_the_timeout_early_nor_loses_it() {
        let local = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        local.block_on(async {
            let mut first = std::pin::pin!(timeout(
                Duration::from_millis(30),
                tokio::time::sleep(Duration::from_millis(1))
            ));
            std::future::poll_fn(|cx| Poll::Ready(first.as_mut().poll(cx).is_pending())).await;
            let (_, key) = armed(first.as_mut()).unwrap();
            assert_eq!(first.await, Ok(()));
            let start = Instant::now();
            let mut second = std::pin::pin!(timeout(
                Duration::from_millis(300),
                std::future::pending::<()>()
            ));
            std::future::poll_fn(|cx| Poll::Ready(second.as_mut().poll(cx).is_pending())).await;
            assert_eq!(
                armed(second.as_mut()).unwrap().1,
                key,
                "the entry is reused"
            );
            assert_eq!(second.await, Err(Elapsed));
            assert!(start.elapsed() >= Duration::from_millis(300));
        });
        if let Some((shard, key)) = take_spare() {
            shard.cancel(key);
        }
    }

    #[test]
    fn an_earlier_deadline_wakes_a_driver_asleep_on_a_later_one() {
        // On the test thread, so both timeouts use its shard (a process might move).
        let local = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        local.block_on(async {
            // The driver first plans to sleep about 900 ms.
            let mut late = std::pin::pin!(timeout(
                Duration::from_millis(900),
                std::future::pending::<()>()
            ));
            std::future::poll_fn(|cx| Poll::Ready(late.as_mut().poll(cx).is_pending())).await;
            let (shard, _) = armed(late.as_mut()).unwrap();
            tokio::time::sleep(Duration::from_millis(5)).await;
            let start = Instant::now();
            let mut early = std::pin::pin!(timeout(
                Duration::from_millis(10),
                std::future::pending::<()>()
            ));
            std::future::poll_fn(|cx| Poll::Ready(early.as_mut().poll(cx).is_pending())).await;
            assert!(std::ptr::eq(armed(early.as_mut()).unwrap().0, shard));
            assert_eq!(early.await, Err(Elapsed));
            // Fired at its own deadline, not at the later one the driver slept towards.
            assert!(start.elapsed() < Duration::from_millis(850));
        });
    }

    #[test]
    fn no_limit_never_arms() {
        crate::run(|_p: crate::Process<()>| async move {
            let r = timeout(Duration::MAX, crate::sleep(Duration::from_millis(2))).await;
            assert_eq!(r, Ok(()));
        })
        .unwrap();
        // Every duration whose deadline does not fit in the wheel's ticks is no limit (these
        // once wrapped around to a tick in the past and fired at once).
        let mut cx = Context::from_waker(Waker::noop());
        for huge in [
            Duration::from_millis(u64::MAX),
            Duration::from_secs(u64::MAX / 1000 + 1),
            Duration::from_secs(u64::MAX),
            Duration::MAX,
        ] {
            let mut t = std::pin::pin!(timeout(huge, std::future::pending::<()>()));
            assert!(t.as_mut().poll(&mut cx).is_pending(), "{huge:?}");
            assert!(armed(t.as_mut()).is_none(), "{huge:?}");
        }
    }
}
