//! What an idle process costs in memory: the heap it holds while it waits in `recv`, counted
//! by a global allocator that tracks live allocations by size, plus its table slot.
//!
//! The figures are exact byte counts (no timing), so the bounds below are regression
//! checks: a change that makes an idle process larger fails here. docs/design.md quotes the
//! same figures.
//!
//! A measurement counts only the allocations made while it runs that are still live at its
//! end (each allocation carries the number of the measurement it was made in), not the net
//! change of all live allocations. The tests share one process table, and a process's task
//! stays allocated after it ends until its slot is reused (`Slot::task`): the processes an
//! earlier test ended are recycled an epoch grace period late, so a measured spawn could reuse
//! one of their slots and free its task, and a net count at the task's size then read 0.6 to
//! 0.97 allocations per measured process instead of 1, depending on the order of the tests
//! and on how far the earlier test's recycling had got.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mote::Process;

/// Allocations up to this size are tracked one by one (larger ones are the table's pages
/// and the test's own vectors, paid per many processes).
const TRACKED: usize = 8192;

struct Counting;

/// Live allocations by requested size (the last entry: every larger one).
static LIVE: [AtomicI64; TRACKED + 1] = [const { AtomicI64::new(0) }; TRACKED + 1];
/// The measurement under way (0: none); allocations carry the one they were made in.
static MEASURING: AtomicU64 = AtomicU64::new(0);
/// Live allocations made during the measurement under way, by requested size.
static MEASURED: [AtomicI64; TRACKED + 1] = [const { AtomicI64::new(0) }; TRACKED + 1];

/// Room before each allocation for the number of the measurement it was made in: 16 bytes,
/// or the alignment if larger, so the caller's pointer keeps its alignment.
fn header(layout: Layout) -> usize {
    layout.align().max(16)
}

/// The layout asked of the system allocator for `layout`: the header in front.
fn outer(layout: Layout) -> Layout {
    let header = header(layout);
    Layout::from_size_align(layout.size() + header, header).expect("a valid layout")
}

impl Counting {
    /// Counts an allocation just made by the system at `base` and writes its header.
    ///
    /// # Safety
    /// `base` is null or an allocation of `outer(layout)`.
    unsafe fn made(base: *mut u8, layout: Layout) -> *mut u8 {
        if base.is_null() {
            return base;
        }
        let size = layout.size().min(TRACKED);
        LIVE[size].fetch_add(1, Ordering::Relaxed);
        let measuring = MEASURING.load(Ordering::Relaxed);
        if measuring != 0 {
            MEASURED[size].fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the header is at least 16 bytes, 16-aligned: the tag's 8 bytes right
        // before the caller's pointer are inside it and aligned.
        unsafe {
            let ptr = base.add(header(layout));
            ptr.cast::<u64>().sub(1).write(measuring);
            ptr
        }
    }
}

// SAFETY: forwards to the system allocator, each allocation `header` bytes larger and the
// caller's pointer that far in; the counters are plain atomics. `realloc` is the trait's
// default (allocate, copy, free), which goes through these.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: `outer` has a non-zero size; `made` gets what it was made for.
        unsafe { Self::made(System.alloc(outer(layout)), layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe { Self::made(System.alloc_zeroed(outer(layout)), layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let size = layout.size().min(TRACKED);
        LIVE[size].fetch_sub(1, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout (the caller's contract): its
        // header is in front of it, and the system allocation starts there.
        unsafe {
            let made_in = ptr.cast::<u64>().sub(1).read();
            if made_in != 0 && made_in == MEASURING.load(Ordering::Relaxed) {
                MEASURED[size].fetch_sub(1, Ordering::Relaxed);
            }
            System.dealloc(ptr.sub(header(layout)), outer(layout));
        }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Starts a measurement: from now on, [`measured`] counts the allocations made from here
/// that are still live.
fn start_measuring() {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    for count in &MEASURED {
        count.store(0, Ordering::Relaxed);
    }
    MEASURING.store(NEXT.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
}

/// The allocations made since [`start_measuring`] that are still live, by requested size.
fn measured() -> Vec<i64> {
    MEASURED.iter().map(|c| c.load(Ordering::Relaxed)).collect()
}

/// The bytes glibc's malloc takes for a request of `size`: 8 bytes of header, rounded up
/// to 16, at least 32.
fn chunk(size: usize) -> usize {
    (size + 8).next_multiple_of(16).max(32)
}

/// Spawns `n` processes that each tell main they started and then wait in `recv` (and if
/// `WOKEN`, sends each a message that ends it and waits until the ended processes are
/// recycled); returns the live small allocations they hold, as (requested size, count per
/// process) pairs, and the malloc chunk bytes per process.
fn idle_heap<M: Send + Default + 'static, const WOKEN: bool>(n: usize) -> (Vec<(usize, f64)>, f64) {
    mote::run(move |mut main: Process<()>| async move {
        let done = main.pid();
        // Warm up: the first spawns allocate the runtime's own structures.
        let warm: Vec<_> = (0..n)
            .map(|_| {
                mote::spawn(move |mut p: Process<M>| async move {
                    done.send(());
                    p.recv().await;
                })
            })
            .collect();
        for _ in 0..n {
            main.recv().await;
        }
        start_measuring();
        let pids: Vec<_> = (0..n)
            .map(|_| {
                mote::spawn(move |mut p: Process<M>| async move {
                    done.send(());
                    p.recv().await;
                    if WOKEN {
                        done.send(());
                    }
                })
            })
            .collect();
        for _ in 0..n {
            main.recv().await;
        }
        if WOKEN {
            for pid in &pids {
                pid.send(M::default());
            }
            for _ in 0..n {
                main.recv().await;
            }
            // An ended process gives its mailbox block back when its slot is recycled, an
            // epoch grace period after it ended: wait for that (the idle workers' flushes
            // move the epoch on), but not forever, so that a process that keeps more than its
            // task fails the bound below rather than hanging here. Down to the bound's 1%
            // (less 0.5% of slack): a `()` mailbox's block is 56 bytes, the task's size, so
            // blocks not yet given back count as tasks (at 5%, 1.5-4.7% of them were left,
            // and the test failed about one run in two).
            let deadline = Instant::now() + Duration::from_secs(20);
            while measured().iter().sum::<i64>() > (n + n / 200) as i64 && Instant::now() < deadline
            {
                mote::sleep(Duration::from_millis(1)).await;
            }
        }
        let held = measured();
        let mut sizes = Vec::new();
        let mut bytes = 0.0;
        for (size, &count) in held.iter().enumerate().take(TRACKED) {
            let added = count as f64 / n as f64;
            if added.abs() >= 0.05 {
                sizes.push((size, added));
                bytes += added * chunk(size) as f64;
            }
        }
        drop((warm, pids));
        (sizes, bytes)
    })
    .unwrap()
}

/// The tests count every allocation of the program: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn an_idle_process_holds_one_small_task_allocation() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (sizes, bytes) = idle_heap::<u64, false>(20_000);
    eprintln!("an idle process's heap, (size, allocations per process): {sizes:?}: {bytes:.1} B");
    // One allocation, the task: its 8-byte header and the runner, which adds nothing to the
    // future (56 bytes, a 64-byte chunk; 80 when the task's state word and the runner's
    // slot pointer were in it, 96 when processes were async-task tasks).
    assert_eq!(sizes.len(), 1, "{sizes:?}");
    assert!((sizes[0].1 - 1.0).abs() < 0.01, "{sizes:?}");
    assert!(bytes <= 64.5, "{bytes} bytes of heap per idle process");
    // Woken once, ended, recycled: the mailbox block goes with the recycling; the task
    // stays until the slot is reused (see `Slot::task`).
    let (sizes, bytes) = idle_heap::<(), true>(100_000);
    eprintln!("after one message, (size, allocations per process): {sizes:?}: {bytes:.1} B");
    assert_eq!(sizes.len(), 1, "{sizes:?}");
    assert!((sizes[0].1 - 1.0).abs() < 0.01, "{sizes:?}");
    assert!(bytes <= 64.5, "{bytes} bytes of heap per ended process");
}

/// The whole of an idle process, as introspection reports it: its table slot (88 bytes; 96
/// before it stopped keeping its index and task size) and its task (56 bytes for
/// `million`'s closure: the task's 8-byte header and a 48-byte future; 72 with the state
/// word and the runner's slot pointer in it, 88 with async-task's 32-byte header). The heap
/// test above pins the task's allocation; this pins the slot.
#[test]
fn an_idle_process_is_its_slot_and_its_task() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let memory = mote::run(|main: Process<()>| async move {
        let done = main.pid();
        // The `million` benchmark's process.
        let idle = mote::spawn(move |mut idle: Process<()>| async move {
            idle.recv().await;
            done.send(());
        });
        let memory = mote::process_info(idle.id()).expect("alive").memory;
        idle.send(());
        memory
    })
    .unwrap();
    assert!(memory <= 88 + 56, "{memory} bytes for an idle process");
}
