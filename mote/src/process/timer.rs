//! Timers, as Erlang's timer BIFs: [`send_after`] and [`start_timer`] (to a pid or, with the
//! `_named` forms, to a registered name), [`read_timer`], [`cancel_timer`] and
//! [`cancel_timer_async`].
//!
//! A pending timer is an entry in a timing wheel (the one behind mote's timeouts, sharded
//! per thread), not a task: a few dozen bytes until it fires. A timer to a pid also watches
//! its destination, as Erlang's do: when that process ends the timer is cancelled and its
//! wheel entry and message are dropped at once, so a million timers to processes that have
//! died cost nothing. A timer to a name watches nothing: the name is looked up when it
//! fires, and the message is dropped if nobody holds it then.
//!
//! Every timer moves once from pending to fired or to cancelled (by [`cancel_timer`] or by
//! its destination's exit); only the side that makes that move acts, so a timer that
//! reported time left to [`cancel_timer`] never delivers.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::process::registry::{self, RegistryError};
use crate::rt::signals;
use crate::rt::table::extras::ExitListener;
use crate::rt::timeout_wheel::{deadline_tick, pick, shard_count, Due, Key, Shard};
use crate::values::exit::ExitReason;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::{Pid, ProcessId};
use crate::values::term::Atom;

const PENDING: u8 = 0;
const FIRED: u8 = 1;
const CANCELLED: u8 = 2;

/// A timer started by [`send_after`] or [`start_timer`]: pass it to [`read_timer`] or
/// [`cancel_timer`]. Cloning it gives another handle on the same timer.
#[derive(Clone)]
pub struct TimerRef {
    cell: Arc<TimerCell>,
}

/// Names a timer inside the messages about it ([`TimerFired`], [`TimerCancelled`]): Erlang's
/// timer reference as data. Unique among the timers of one OS process.
///
/// ```
/// use std::collections::HashMap;
/// use std::time::Duration;
/// use mote::{TimerFired, TimerId};
/// mote::run(|mut p: mote::Process<TimerFired<()>>| async move {
///     // Which job each pending timeout belongs to.
///     let mut jobs: HashMap<TimerId, &str> = HashMap::new();
///     for (job, ms) in [("fast", 1), ("slow", 20)] {
///         let t = mote::start_timer(p.pid(), (), Duration::from_millis(ms));
///         jobs.insert(t.id(), job);
///     }
///     let first = p.recv().await;
///     assert_eq!(jobs[&first.timer], "fast");
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(u64);

/// The message a timer from [`start_timer`] delivers: Erlang's `{timeout, TimerRef, Msg}`.
///
/// ```
/// use std::time::Duration;
/// use mote::TimerFired;
/// mote::run(|mut p: mote::Process<TimerFired<&'static str>>| async move {
///     let t = mote::start_timer(p.pid(), "ring", Duration::from_millis(1));
///     let fired = p.recv().await;
///     assert_eq!((fired.timer, fired.message), (t.id(), "ring"));
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerFired<T> {
    /// The timer that fired ([`TimerRef::id`]).
    pub timer: TimerId,
    /// The message it was started with.
    pub message: T,
}

/// The answer of [`cancel_timer_async`]: Erlang's `{cancel_timer, TimerRef, Result}`.
///
/// ```
/// use std::time::Duration;
/// use mote::TimerCancelled;
/// mote::run(|mut p: mote::Process<TimerCancelled>| async move {
///     let sleeper = mote::spawn(|mut s: mote::Process<u8>| async move { s.recv().await; });
///     let t = mote::send_after(sleeper, 1, Duration::from_secs(10));
///     mote::cancel_timer_async(&t, p.pid());
///     let answer = p.recv().await;
///     assert_eq!(answer.timer, t.id());
///     assert!(answer.left.unwrap() <= Duration::from_secs(10));
///     sleeper.send(0);
/// })
/// .unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerCancelled {
    /// The timer that was cancelled.
    pub timer: TimerId,
    /// What [`cancel_timer`] would have answered: the time that was left, or `None` if the
    /// timer had already fired or been cancelled.
    pub left: Option<Duration>,
}

/// A timer's shared state: its life (an atomic, so reading it takes no lock) and, while
/// it is pending, what it will do and where it is parked.
struct TimerCell {
    id: TimerId,
    /// The pid it is for; `None` for a timer to a name.
    destination: Option<ProcessId>,
    state: AtomicU8,
    /// When it was started, and how long after that it fires: the time left is computed
    /// from these, so a delay too large for an `Instant` still has an answer.
    started: Instant,
    delay: Duration,
    pending: Mutex<Pending>,
}

/// What a pending timer holds; emptied by whoever moves it out of pending.
#[derive(Default)]
struct Pending {
    /// Delivers the message.
    deliver: Option<Box<dyn FnOnce() + Send>>,
    /// Its wheel entry; `None` for a timer too far away to ever fire.
    entry: Option<(&'static Shard<Fire>, Key)>,
    /// The watch on its destination pid; `None` for a timer to a name.
    watch: Option<(ProcessId, MonitorRef)>,
}

/// A wheel entry: fires its timer when its tick comes.
struct Fire(Arc<TimerCell>);

impl Due for Fire {
    fn fire(self) {
        let cell = self.0;
        if let Some(pending) = cell.finish(FIRED) {
            // The entry is leaving the wheel now: nothing to remove.
            if let Some((target, r)) = pending.watch {
                signals::unwatch(target, r);
            }
            if let Some(deliver) = pending.deliver {
                deliver();
            }
        }
    }
}

impl ExitListener for TimerCell {
    /// The destination ended: the timer ends with it (Erlang cancels a timer to a pid when
    /// that process exits).
    fn exited(&self, _reason: &ExitReason) {
        if let Some(pending) = self.finish(CANCELLED) {
            // The watch has just fired: nothing to remove there.
            if let Some((shard, key)) = pending.entry {
                shard.cancel(key);
            }
        }
    }
}

impl TimerCell {
    /// Moves the timer from pending to `to`; if this call made the move, returns what it
    /// held, for the caller to act on (with no lock held).
    fn finish(&self, to: u8) -> Option<Pending> {
        self.state
            .compare_exchange(PENDING, to, Ordering::AcqRel, Ordering::Acquire)
            .ok()?;
        Some(std::mem::take(&mut *self.pending.lock()))
    }

    fn left(&self) -> Duration {
        self.delay.saturating_sub(self.started.elapsed())
    }

    /// Ends the timer now if its destination has ended. The exit listener does that too,
    /// but a moment after the process stops being alive (listeners run after the exit's
    /// lock is released): this makes `read_timer` and `cancel_timer` agree with
    /// `is_alive` at once.
    fn settle(&self) {
        if let Some(target) = self.destination {
            if self.state.load(Ordering::Acquire) == PENDING && !crate::is_alive(target) {
                self.exited(&ExitReason::NoProc);
            }
        }
    }
}

/// The wheels timers wait on, one per shard of threads.
fn shards() -> &'static [Shard<Fire>] {
    static SHARDS: OnceLock<Box<[Shard<Fire>]>> = OnceLock::new();
    SHARDS.get_or_init(|| (0..shard_count()).map(|_| Shard::new()).collect())
}

/// Starts a timer that runs `deliver` after `delay`, unless cancelled first or, for a timer
/// to a pid (`destination`), that process ends first.
fn start(
    id: TimerId,
    destination: Option<ProcessId>,
    delay: Duration,
    deliver: Box<dyn FnOnce() + Send>,
) -> TimerRef {
    let cell = Arc::new(TimerCell {
        id,
        destination,
        state: AtomicU8::new(PENDING),
        started: Instant::now(),
        delay,
        pending: Mutex::new(Pending::default()),
    });
    let timer = TimerRef { cell };
    let cell = &timer.cell;
    // Everything is set up under the timer's lock, so an exit or a tick that comes in the
    // middle waits for it, then finds the watch and the entry to remove.
    let mut pending = cell.pending.lock();
    if let Some(target) = destination {
        let listener: Arc<dyn ExitListener> = cell.clone();
        match signals::watch(target, listener) {
            Some(r) => pending.watch = Some((target, r)),
            None => {
                // A timer to a process that is not alive is cancelled at once (Erlang).
                cell.state.store(CANCELLED, Ordering::Release);
                drop(pending);
                return timer;
            }
        }
    }
    pending.deliver = Some(deliver);
    let Some(tick) = deadline_tick(delay) else {
        // Too far away to ever fire: stays pending, with no wheel entry.
        drop(pending);
        return timer;
    };
    let shard = pick(shards());
    match shard.arm(tick, Fire(cell.clone())) {
        Ok(key) => {
            pending.entry = Some((shard, key));
            drop(pending);
        }
        Err(due_now) => {
            drop(pending);
            due_now.fire();
        }
    }
    timer
}

/// Sends `message` to `pid` after `delay` (Erlang's `erlang:send_after/3`).
///
/// If `pid` is not alive, or ends before the timer fires, the timer is cancelled and the
/// message dropped (as in Erlang): [`read_timer`] and [`cancel_timer`] then answer `None`.
///
/// A delay whose end the clock cannot represent (`Duration::MAX`, say, or anything beyond
/// about 584 million years) never fires and takes no wheel entry, while [`read_timer`] and
/// [`cancel_timer`] answer as for any pending timer, with the time left of `delay`.
/// Deviation: Erlang refuses such a time with `badarg`.
///
/// ```
/// use std::time::Duration;
/// mote::run(|mut p: mote::Process<&'static str>| async move {
///     mote::send_after(p.pid(), "tick", Duration::from_millis(10));
///     assert_eq!(p.recv().await, "tick");
///
///     let never = mote::send_after(p.pid(), "never", Duration::MAX);
///     assert!(mote::read_timer(&never).unwrap() > Duration::from_secs(1 << 40));
///     assert!(mote::cancel_timer(&never).is_some());
/// })
/// .unwrap();
/// ```
pub fn send_after<M: Send + 'static>(pid: Pid<M>, message: M, delay: Duration) -> TimerRef {
    start(
        new_id(),
        Some(pid.id()),
        delay,
        Box::new(move || pid.send(message)),
    )
}

/// Sends `message` to the process registered as `name` after `delay`
/// (`erlang:send_after/3` with an atom). The name is looked up when the timer fires; if
/// nobody holds it then, or its holder's mailbox does not take `M`, the message is dropped.
/// Fails at once only for a name longer than an atom can be (255 characters); `undefined`
/// is accepted, as Erlang accepts it, and never delivers.
///
/// ```
/// use std::time::Duration;
/// mote::run(|mut p: mote::Process<u8>| async move {
///     let t = mote::send_after_named("later", 7u8, Duration::from_millis(20)).unwrap();
///     mote::register("later", p.pid()).unwrap(); // registered after the timer started
///     assert_eq!(p.recv().await, 7);
///     assert_eq!(mote::read_timer(&t), None);
/// })
/// .unwrap();
/// ```
pub fn send_after_named<M: Send + 'static>(
    name: &str,
    message: M,
    delay: Duration,
) -> Result<TimerRef, RegistryError> {
    let name = timer_name(name)?;
    Ok(start(
        new_id(),
        None,
        delay,
        Box::new(move || {
            let _ = registry::send_named(&name, message);
        }),
    ))
}

/// Sends [`TimerFired`] `{ timer, message }` to `pid` after `delay`, where `timer` is this
/// timer's [`TimerRef::id`] (Erlang's `erlang:start_timer/3`, whose message is
/// `{timeout, TimerRef, Msg}`): a process running several timers tells them apart.
///
/// The mailbox takes any type that can be made from a `TimerFired<T>`, so a process with an
/// enum mailbox adds one variant. Otherwise as [`send_after`].
///
/// ```
/// use std::time::Duration;
/// use mote::TimerFired;
///
/// enum Msg { Timer(TimerFired<u32>), Work }
/// impl From<TimerFired<u32>> for Msg {
///     fn from(t: TimerFired<u32>) -> Self { Msg::Timer(t) }
/// }
///
/// mote::run(|mut p: mote::Process<Msg>| async move {
///     let a = mote::start_timer(p.pid(), 1u32, Duration::from_millis(5));
///     p.pid().send(Msg::Work);
///     assert!(matches!(p.recv().await, Msg::Work));
///     match p.recv().await {
///         Msg::Timer(t) => assert_eq!((t.timer, t.message), (a.id(), 1)),
///         Msg::Work => unreachable!(),
///     }
/// })
/// .unwrap();
/// ```
pub fn start_timer<M, T>(pid: Pid<M>, message: T, delay: Duration) -> TimerRef
where
    M: From<TimerFired<T>> + Send + 'static,
    T: Send + 'static,
{
    start_with_id(Some(pid.id()), delay, move |timer| {
        pid.send(M::from(TimerFired { timer, message }))
    })
}

/// [`start_timer`] to a registered name, looked up when the timer fires (as
/// [`send_after_named`]).
///
/// ```
/// use std::time::Duration;
/// use mote::TimerFired;
/// mote::run(|mut p: mote::Process<TimerFired<u8>>| async move {
///     mote::register("clock", p.pid()).unwrap();
///     let t = mote::start_timer_named::<TimerFired<u8>, u8>("clock", 3, Duration::from_millis(1)).unwrap();
///     assert_eq!(p.recv().await, mote::TimerFired { timer: t.id(), message: 3 });
/// })
/// .unwrap();
/// ```
pub fn start_timer_named<M, T>(
    name: &str,
    message: T,
    delay: Duration,
) -> Result<TimerRef, RegistryError>
where
    M: From<TimerFired<T>> + Send + 'static,
    T: Send + 'static,
{
    let name = timer_name(name)?;
    Ok(start_with_id(None, delay, move |timer| {
        let _ = registry::send_named::<M>(&name, M::from(TimerFired { timer, message }));
    }))
}

/// The atom a timer's destination name is: any atom, unlike a name to register.
fn timer_name(name: &str) -> Result<Atom, RegistryError> {
    Atom::new(name).map_err(|e| RegistryError::NameTooLong { chars: e.chars })
}

/// [`start`] for a delivery that needs the timer's id.
fn start_with_id(
    destination: Option<ProcessId>,
    delay: Duration,
    deliver: impl FnOnce(TimerId) + Send + 'static,
) -> TimerRef {
    let id = new_id();
    start(id, destination, delay, Box::new(move || deliver(id)))
}

fn new_id() -> TimerId {
    TimerId(signals::new_ref().0)
}

impl TimerRef {
    /// The id the timer's messages carry ([`TimerFired::timer`], [`TimerCancelled::timer`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// mote::run(|p: mote::Process<u8>| async move {
    ///     let a = mote::send_after(p.pid(), 1, Duration::from_secs(1));
    ///     let b = mote::send_after(p.pid(), 2, Duration::from_secs(1));
    ///     assert_ne!(a.id(), b.id());
    ///     assert_eq!(a.id(), a.clone().id());
    /// })
    /// .unwrap();
    /// ```
    pub fn id(&self) -> TimerId {
        self.cell.id
    }
}

impl fmt::Debug for TimerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.cell.state.load(Ordering::Acquire) {
            PENDING => "pending",
            FIRED => "fired",
            _ => "cancelled",
        };
        f.debug_struct("TimerRef")
            .field("id", &self.cell.id)
            .field("state", &state)
            .finish()
    }
}

/// Cancels a timer (Erlang's `erlang:cancel_timer/1`). Returns the time that was left, or
/// `None` if it had already fired, was cancelled, or its destination process has ended: a
/// message already delivered stays in the mailbox.
///
/// Cancelling is synchronous and cheap, so Erlang's `{async, true}` option is not needed
/// for speed; for its `{info, true}` answer as a message use [`cancel_timer_async`], and
/// for `{info, false}` ignore the result.
///
/// ```
/// use std::time::Duration;
/// mote::run(|p: mote::Process<u8>| async move {
///     let t = mote::send_after(p.pid(), 1, Duration::from_secs(10));
///     let left = mote::cancel_timer(&t).unwrap();
///     assert!(left <= Duration::from_secs(10));
///     assert_eq!(mote::cancel_timer(&t), None);
/// })
/// .unwrap();
/// ```
pub fn cancel_timer(timer: &TimerRef) -> Option<Duration> {
    let left = timer.cell.left();
    timer.cell.settle();
    let pending = timer.cell.finish(CANCELLED)?;
    if let Some((shard, key)) = pending.entry {
        shard.cancel(key);
    }
    if let Some((target, r)) = pending.watch {
        signals::unwatch(target, r);
    }
    // The message is dropped here, with no lock held.
    drop(pending.deliver);
    Some(left)
}

/// Cancels a timer and sends the answer to `reply_to` as a [`TimerCancelled`] message
/// (Erlang's `erlang:cancel_timer(Ref, [{async, true}, {info, true}])`, whose answer is
/// `{cancel_timer, Ref, Result}`). The timer's own message never arrives after that answer.
///
/// ```
/// use std::time::Duration;
/// use mote::TimerCancelled;
///
/// enum Msg { Tick, Cancelled(TimerCancelled) }
/// impl From<TimerCancelled> for Msg {
///     fn from(c: TimerCancelled) -> Self { Msg::Cancelled(c) }
/// }
///
/// mote::run(|mut p: mote::Process<Msg>| async move {
///     let t = mote::send_after(p.pid(), Msg::Tick, Duration::from_secs(10));
///     mote::cancel_timer_async(&t, p.pid());
///     match p.recv().await {
///         Msg::Cancelled(c) => {
///             assert_eq!(c.timer, t.id());
///             assert!(c.left.is_some());
///         }
///         Msg::Tick => unreachable!(),
///     }
/// })
/// .unwrap();
/// ```
pub fn cancel_timer_async<M>(timer: &TimerRef, reply_to: Pid<M>)
where
    M: From<TimerCancelled> + Send + 'static,
{
    let left = cancel_timer(timer);
    reply_to.send(M::from(TimerCancelled {
        timer: timer.id(),
        left,
    }));
}

/// The time left before a timer fires, or `None` if it has fired, was cancelled, or its
/// destination process has ended (Erlang's `erlang:read_timer/1`).
///
/// ```
/// use std::time::Duration;
/// mote::run(|p: mote::Process<u8>| async move {
///     let t = mote::send_after(p.pid(), 1, Duration::from_secs(10));
///     assert!(mote::read_timer(&t).is_some());
///     mote::cancel_timer(&t);
///     assert!(mote::read_timer(&t).is_none());
/// })
/// .unwrap();
/// ```
pub fn read_timer(timer: &TimerRef) -> Option<Duration> {
    let left = timer.cell.left();
    timer.cell.settle();
    (timer.cell.state.load(Ordering::Acquire) == PENDING).then_some(left)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Process;

    /// Entries waiting in all the timer wheels.
    fn wheel_entries() -> usize {
        shards().iter().map(Shard::len).sum()
    }

    /// A timer whose destination has ended holds nothing: no wheel entry, no message, no
    /// watch; the wheels are back to what they held before.
    #[test]
    fn timers_to_dead_processes_cost_nothing() {
        crate::run(|_p: Process<()>| async move {
            const N: usize = 100_000;
            let before = wheel_entries();
            let mut pids = Vec::with_capacity(N);
            let timers: Vec<TimerRef> = (0..N)
                .map(|_| {
                    let pid = crate::spawn(|mut q: Process<u8>| async move {
                        q.recv().await;
                    });
                    pids.push(pid);
                    send_after(pid, 0, Duration::from_secs(3600))
                })
                .collect();
            // (Other tests of this binary may add or remove a few timers meanwhile.)
            assert!(wheel_entries() + 100 >= before + N);
            for pid in &pids {
                pid.send(1);
            }
            while pids.iter().any(|p| crate::is_alive(*p)) {
                crate::sleep(Duration::from_millis(1)).await;
            }
            // The exit listeners run just after a process stops being alive; give the last
            // ones a moment (without reading the timers, which would settle them).
            let settled = std::time::Instant::now();
            while timers
                .iter()
                .any(|t| t.cell.state.load(Ordering::Acquire) == PENDING)
            {
                assert!(
                    settled.elapsed() < Duration::from_secs(10),
                    "timers left pending"
                );
                crate::sleep(Duration::from_millis(1)).await;
            }
            for t in &timers {
                assert_eq!(t.cell.state.load(Ordering::Acquire), CANCELLED);
                let pending = t.cell.pending.lock();
                assert!(pending.entry.is_none() && pending.deliver.is_none());
                assert!(pending.watch.is_none());
            }
            // Other tests of this binary may hold a few timers of their own.
            assert!(wheel_entries() < before + 100, "{} left", wheel_entries());
        })
        .unwrap();
    }

    /// A fired timer leaves no watch in its (still living) destination.
    #[test]
    fn a_fired_timer_unwatches_its_destination() {
        crate::run(|mut p: Process<u8>| async move {
            let id = p.id();
            let watchers = || {
                signals::peek_live(id, |_, s| s.as_ref().map_or(0, |s| s.watchers.len()))
                    .expect("alive")
            };
            let before = watchers();
            let pending = send_after(p.pid(), 2, Duration::from_secs(3600));
            assert_eq!(watchers(), before + 1);
            cancel_timer(&pending);
            assert_eq!(watchers(), before);
            let t = send_after(p.pid(), 1, Duration::from_millis(1));
            assert_eq!(p.recv().await, 1);
            assert_eq!(read_timer(&t), None);
            assert_eq!(watchers(), before);
            assert!(t.cell.pending.lock().watch.is_none());
        })
        .unwrap();
    }
}
