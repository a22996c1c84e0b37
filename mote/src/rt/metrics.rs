//! The runtime's event counters (processes spawned, exits by reason class, messages sent),
//! kept so that counting costs no locked instruction and no shared cache line.
//!
//! Each thread that counts leases a [`Shard`] of its own on its first event and writes
//! only to it, with a relaxed load and store (a plain `add` to memory on x86 and ARM): a
//! shard has one writer, so no read-modify-write is needed, and a reader summing the shards
//! sees each counter at some recent value. A shard is padded to its own cache lines, so two
//! busy threads never bounce a line between their cores (a single global `fetch_add` per
//! send was measured to cost more than the rest of the send; see `Slot::send`).
//!
//! A thread that ends gives its shard back to a free list with its counts in it (the sums
//! stay right), and a thread started later takes it over: the number of shards is the
//! largest number of threads that ever counted at once, not the number of threads ever
//! started. Events counted while a thread is being torn down, after its lease is gone,
//! go to one shared shard with atomic adds: rare, and still correct.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use crate::values::exit::ExitReason;

/// Exit reason classes, in the order of [`Counts::exits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitClass {
    /// `normal`.
    Normal = 0,
    /// `shutdown` or `{shutdown, _}`.
    Shutdown = 1,
    /// `killed` (or `kill`, a process that ended itself with it).
    Killed = 2,
    /// `{panic, _}`.
    Panic = 3,
    /// Anything else (`noproc`, `noconnection`, custom reasons).
    Other = 4,
}

impl ExitClass {
    pub(crate) fn of(reason: &ExitReason) -> ExitClass {
        match reason {
            ExitReason::Normal => ExitClass::Normal,
            ExitReason::Killed | ExitReason::Kill => ExitClass::Killed,
            ExitReason::Panic(_) => ExitClass::Panic,
            r if r.is_shutdown() => ExitClass::Shutdown,
            _ => ExitClass::Other,
        }
    }
}

const CLASSES: usize = 5;

/// One thread's counters. Aligned to 128 bytes (two cache lines, as adjacent-line
/// prefetchers pull pairs) so that no two shards share a line.
#[repr(align(128))]
#[derive(Default)]
struct Shard {
    spawned: AtomicU64,
    exits: [AtomicU64; CLASSES],
    sent: AtomicU64,
}

impl Shard {
    /// Adds one, as the shard's only writer (see the module docs).
    #[inline(always)]
    fn bump(counter: &AtomicU64) {
        counter.store(
            counter.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
    }
}

/// The sums of every shard.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) spawned: u64,
    pub(crate) exits: [u64; CLASSES],
    pub(crate) sent: u64,
}

/// Every shard ever made (leaked: a shard outlives the thread that leased it) and the ones
/// no thread holds now.
struct Shards {
    all: Vec<&'static Shard>,
    free: Vec<&'static Shard>,
}

static SHARDS: Mutex<Shards> = Mutex::new(Shards {
    all: Vec::new(),
    free: Vec::new(),
});

/// For events counted after this thread's lease ended (thread teardown): atomic adds.
static SHARED: Shard = Shard {
    spawned: AtomicU64::new(0),
    exits: [const { AtomicU64::new(0) }; CLASSES],
    sent: AtomicU64::new(0),
};

thread_local! {
    /// This thread's shard. A `const` thread local with no destructor, so reading it is a
    /// plain load from thread-local storage on every event.
    static SHARD: Cell<Option<&'static Shard>> = const { Cell::new(None) };
    /// Gives the shard back when the thread ends: touched only when the shard is leased.
    static LEASE: Lease = const { Lease(Cell::new(None)) };
}

struct Lease(Cell<Option<&'static Shard>>);

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(shard) = self.0.take() {
            SHARD.with(|s| s.set(None));
            SHARDS.lock().free.push(shard);
        }
    }
}

/// Adds one to the `counter` of this thread's shard (as its only writer), or of the shared
/// one (atomically) if this thread cannot lease a shard.
#[inline(always)]
fn count(counter: impl Fn(&Shard) -> &AtomicU64) {
    match SHARD.with(Cell::get) {
        Some(shard) => Shard::bump(counter(shard)),
        None => lease_or_share(counter),
    }
}

#[cold]
#[inline(never)]
fn lease_or_share(counter: impl Fn(&Shard) -> &AtomicU64) {
    // A thread whose `LEASE` is already destroyed (an event counted by another thread-local's
    // destructor) cannot lease again: it counts on the shared shard.
    let leased = LEASE.try_with(|lease| {
        let shard = {
            let mut shards = SHARDS.lock();
            match shards.free.pop() {
                Some(shard) => shard,
                None => {
                    let shard: &'static Shard = Box::leak(Box::default());
                    shards.all.push(shard);
                    shard
                }
            }
        };
        // Taken from the free list under the lock, so the previous holder's last writes
        // are visible before ours.
        lease.0.set(Some(shard));
        SHARD.with(|s| s.set(Some(shard)));
        shard
    });
    match leased {
        Ok(shard) => Shard::bump(counter(shard)),
        Err(_) => {
            counter(&SHARED).fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Counts a spawned process.
#[inline]
pub(crate) fn count_spawn() {
    count(|s| &s.spawned);
}

/// Counts an ended process by its reason's class.
#[inline]
pub(crate) fn count_exit(reason: &ExitReason) {
    let class = ExitClass::of(reason) as usize;
    count(|s| &s.exits[class]);
}

/// Counts a message queued by a send.
#[inline]
pub(crate) fn count_send() {
    count(|s| &s.sent);
}

/// The counts so far, summed over every shard.
pub(crate) fn counts() -> Counts {
    let mut counts = Counts::default();
    let mut add = |s: &Shard| {
        counts.spawned += s.spawned.load(Ordering::Relaxed);
        for (sum, n) in counts.exits.iter_mut().zip(&s.exits) {
            *sum += n.load(Ordering::Relaxed);
        }
        counts.sent += s.sent.load(Ordering::Relaxed);
    };
    for shard in SHARDS.lock().all.iter() {
        add(shard);
    }
    add(&SHARED);
    counts
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn exit_classes() {
        assert_eq!(ExitClass::of(&ExitReason::Normal), ExitClass::Normal);
        assert_eq!(ExitClass::of(&ExitReason::Shutdown), ExitClass::Shutdown);
        assert_eq!(
            ExitClass::of(&ExitReason::shutdown_with(1)),
            ExitClass::Shutdown
        );
        assert_eq!(ExitClass::of(&ExitReason::Killed), ExitClass::Killed);
        assert_eq!(
            ExitClass::of(&ExitReason::Panic("x".into())),
            ExitClass::Panic
        );
        assert_eq!(ExitClass::of(&ExitReason::NoProc), ExitClass::Other);
        assert_eq!(ExitClass::of(&ExitReason::custom("bad")), ExitClass::Other);
    }

    #[test]
    fn threads_that_end_leave_their_counts() {
        let before = counts();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..1000 {
                        count_send();
                    }
                    count_spawn();
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let after = counts();
        // Other tests of this binary may count at the same time: at least ours.
        assert!(after.sent - before.sent >= 4000);
        assert!(after.spawned - before.spawned >= 4);
    }

    #[test]
    fn an_ended_threads_shard_is_free_for_the_next() {
        // Another test's new thread may lease the freed shard before we look, so try a few
        // times: a shard that is never given back fails every try.
        let given_back = (0..20).any(|_| {
            let shard = std::thread::spawn(|| {
                count_send();
                SHARD.with(Cell::get).map(|s| s as *const Shard as usize)
            })
            .join()
            .unwrap()
            .expect("a thread that counted holds a shard");
            SHARDS
                .lock()
                .free
                .iter()
                .any(|s| *s as *const Shard as usize == shard)
        });
        assert!(given_back);
    }

    #[test]
    fn a_shard_fills_its_own_cache_lines() {
        assert_eq!(std::mem::align_of::<Shard>(), 128);
    }
}
