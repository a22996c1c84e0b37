//! The process table: every local process's [`Slot`], found by index in O(1).
//!
//! Slots live in pages that are allocated on demand and never freed or moved, so a
//! `&'static Slot` is always valid: a stale [`ProcessId`](crate::ProcessId) reaches a slot
//! that is free or reused, and the slot's serial tells it so. Page `k` holds `256 << k`
//! slots; pages are allocated zeroed, so the operating system commits memory only for the
//! slots actually used. Free slots form a lock-free LIFO list (a tagged Treiber stack), so a
//! freshly freed, cache-warm slot is reused first.

pub(crate) mod extras;
pub(crate) mod foreign;
mod free_cache;
mod free_list;
#[cfg(test)]
mod loom_tests;
pub(crate) mod ref_list;
pub(crate) mod slot;

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::mem::size_of;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use free_cache::FreeCache;
use free_list::FreeList;

pub(crate) use slot::Slot;

use crate::values::pid::ProcessId;

const BASE_SHIFT: u32 = 8;
const BASE: usize = 1 << BASE_SHIFT;
const PAGES: usize = 20;

/// Room for `256 * (2^20 - 1)`, about 268 million processes (Erlang's limit is 2^27).
pub(crate) const MAX_PROCESSES: usize = BASE * ((1 << PAGES) - 1);

pub(crate) struct Table {
    /// Written once per page, read by every lookup and by [`Table::index_of`]: on cache
    /// lines of their own, apart from the counters every spawn and exit writes.
    pages: CachePadded<[AtomicPtr<Slot>; PAGES]>,
    /// 1 + the newest page published (0: none yet), where [`Table::index_of`] starts; as
    /// read-mostly as `pages`.
    newest: CachePadded<AtomicUsize>,
    /// Slots `0..fresh` have been handed out at least once.
    fresh: AtomicU32,
    /// Slots whose process has ended, to be reused first.
    free: FreeList,
    /// Processes alive now.
    pub(crate) live: AtomicUsize,
}

/// Zeroed memory for a table page, straight from the kernel on Linux: a fresh anonymous
/// mapping costs no resident memory until a slot on it is used. `alloc_zeroed` would
/// take the smaller pages (up to glibc's mmap threshold, 128 KiB) from the heap and clear
/// them there, which makes the first page's 22 KiB resident at once although a small
/// program uses a few of its 256 slots (measured: 4 of its 6 pages).
///
/// # Safety
///
/// `layout` has a nonzero size and an alignment of at most 4096.
unsafe fn zeroed_pages(layout: Layout) -> *mut u8 {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: an anonymous private mapping of a nonzero length, no fixed address.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                layout.size(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            alloc::handle_alloc_error(layout);
        }
        base.cast()
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        // SAFETY: the caller's layout has a nonzero size.
        let base = unsafe { alloc::alloc_zeroed(layout) };
        if base.is_null() {
            alloc::handle_alloc_error(layout);
        }
        base
    }
}

/// Frees what [`zeroed_pages`] gave for `layout`.
///
/// # Safety
///
/// `base` came from `zeroed_pages(layout)` and nothing refers to it any more.
unsafe fn free_pages(base: *mut u8, layout: Layout) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: the caller's contract: our own mapping of `layout.size()` bytes, unused.
        unsafe { libc::munmap(base.cast(), layout.size()) };
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        // SAFETY: the caller's contract: allocated with this layout, unused.
        unsafe { alloc::dealloc(base, layout) };
    }
}

#[cfg(not(loom))]
pub(crate) static TABLE: Table = Table::new();
/// Under loom the free list's atomics are loom's, which cannot be made in a `const`; the
/// loom models build their own parts and never touch the table.
#[cfg(loom)]
pub(crate) static TABLE: std::sync::LazyLock<Table> = std::sync::LazyLock::new(Table::new);

#[allow(clippy::declare_interior_mutable_const)]
const NULL_PAGE: AtomicPtr<Slot> = AtomicPtr::new(std::ptr::null_mut());

impl Table {
    #[cfg(not(loom))]
    const fn new() -> Self {
        Table {
            pages: CachePadded::new([NULL_PAGE; PAGES]),
            newest: CachePadded::new(AtomicUsize::new(0)),
            fresh: AtomicU32::new(0),
            free: FreeList::new(),
            live: AtomicUsize::new(0),
        }
    }

    #[cfg(loom)]
    fn new() -> Self {
        Table {
            pages: CachePadded::new([NULL_PAGE; PAGES]),
            newest: CachePadded::new(AtomicUsize::new(0)),
            fresh: AtomicU32::new(0),
            free: FreeList::new(),
            live: AtomicUsize::new(0),
        }
    }

    fn locate(index: u32) -> (usize, usize) {
        let shifted = index as usize + BASE;
        let page = (usize::BITS - 1 - shifted.leading_zeros() - BASE_SHIFT) as usize;
        (page, shifted - (BASE << page))
    }

    /// The slot at `index`, if its page exists.
    #[inline]
    pub(crate) fn get(&self, index: u32) -> Option<&'static Slot> {
        let (page, offset) = Self::locate(index);
        let base = self.pages.get(page)?.load(Ordering::Acquire);
        if base.is_null() {
            return None;
        }
        // SAFETY: pages are never freed; `offset` is within page `page` by construction of
        // `locate`; a zeroed `Slot` is a valid free slot (see `new_page`).
        Some(unsafe { &*base.add(offset) })
    }

    /// The slot of a local process id (alive or not: callers check the serial).
    #[inline]
    pub(crate) fn lookup(&self, id: ProcessId) -> Option<&'static Slot> {
        if !id.is_local() {
            return None;
        }
        self.get(id.index())
    }

    /// Takes a free slot, recycling one if possible (this thread's cache of free slots
    /// first, see `free_cache`).
    pub(crate) fn alloc(&'static self) -> Option<&'static Slot> {
        let index = with_cache(self, |cache| cache.pop(self));
        match index {
            Some(index) => Some(self.listed(index)),
            None => self.alloc_fresh(),
        }
    }

    /// Slot `index`, which is on a free list (so its page exists).
    fn listed(&self, index: u32) -> &'static Slot {
        self.get(index)
            .expect("free-list entries name allocated pages")
    }

    fn alloc_fresh(&self) -> Option<&'static Slot> {
        let index = self.fresh.fetch_add(1, Ordering::Relaxed);
        if index as usize >= MAX_PROCESSES {
            self.fresh.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        let (page, _) = Self::locate(index);
        if self.pages[page].load(Ordering::Acquire).is_null() {
            self.new_page(page);
        }
        let slot = self.get(index).expect("page just ensured");
        slot.queue.init();
        Some(slot)
    }

    #[cold]
    fn new_page(&self, page: usize) {
        let layout = Layout::array::<Slot>(BASE << page).expect("page size fits in memory");
        const { assert!(std::mem::align_of::<Slot>() <= 4096) };
        // SAFETY: the layout has a nonzero size and a `Slot`'s alignment, at most 4096
        // (asserted above). An all-zero `Slot` is a valid free slot:
        // atomics at 0, null queue pointers (initialised before first use), `None` options
        // (`Option<fn>` and `Option<Box<_>>` are guaranteed to use the null niche), an
        // uninitialised `MaybeUninit` waker, and parking_lot's unlocked raw mutex state, which
        // is 0 (asserted by the `zeroed_mutex_is_unlocked` test).
        let base = unsafe { zeroed_pages(layout) }.cast::<Slot>();
        if self.pages[page]
            .compare_exchange(
                std::ptr::null_mut(),
                base,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
        {
            // SAFETY: we allocated `base` with `layout` just above and lost the race to
            // publish it, so nobody else has seen it.
            unsafe { free_pages(base.cast(), layout) };
        }
        self.newest.fetch_max(page + 1, Ordering::Release);
    }

    /// Returns a slot whose process has ended and whose references are all gone.
    pub(crate) fn recycle(&'static self, slot: &Slot) {
        let index = self.index_of(slot).expect("a slot of this table");
        foreign::forget(index);
        with_cache(self, |cache| cache.push(self, index));
    }

    /// The index of `slot`, if it is one of this table's, found from its address: a slot
    /// does not store it (4 bytes per process). The pages are searched from the newest,
    /// which holds about half the slots, down; the page pointers are read-mostly (see
    /// `pages`), so the search costs a few cached loads.
    pub(crate) fn index_of(&self, slot: &Slot) -> Option<u32> {
        let address = ptr::from_ref(slot).addr();
        let find = |page: usize| {
            let base = self.pages[page].load(Ordering::Acquire);
            if base.is_null() {
                return None;
            }
            let offset = address.wrapping_sub(base.addr()) / size_of::<Slot>();
            // The index of the page's first slot, plus the offset.
            (offset < BASE << page).then(|| ((BASE << page) - BASE + offset) as u32)
        };
        let newest = self.newest.load(Ordering::Acquire);
        // The pages above only for a slot of a page whose publisher has not raised
        // `newest` yet (another thread's slot on it reached us first).
        (0..newest).rev().chain(newest..PAGES).find_map(find)
    }

    /// Every slot ever handed out, in index order.
    pub(crate) fn slots(&self) -> impl Iterator<Item = &'static Slot> + '_ {
        let fresh = self.fresh.load(Ordering::Acquire).min(MAX_PROCESSES as u32);
        (0..fresh).filter_map(move |i| self.get(i))
    }
}

thread_local! {
    /// This thread's cache of the process table's free slots.
    static CACHE: CacheOfThread = const { CacheOfThread(Cell::new(None)) };
}

/// A thread's [`FreeCache`], with the table it caches (the process table; tests use tables
/// of their own, one per thread at a time), given back to that table when the thread ends.
struct CacheOfThread(Cell<Option<(&'static Table, FreeCache)>>);

impl Drop for CacheOfThread {
    fn drop(&mut self) {
        if let Some((table, mut cache)) = self.0.take() {
            cache.flush(table);
        }
    }
}

/// Runs `f` on this thread's cache for `table`. A thread that switches tables (tests only)
/// gives the old one's slots back first; a thread whose cache is already gone (a slot
/// recycled by another thread-local's destructor) uses an empty one and gives it back.
fn with_cache<R>(table: &'static Table, f: impl FnOnce(&mut FreeCache) -> R) -> R {
    let mut f = Some(f);
    let run = |cell: &CacheOfThread| {
        let mut cache = match cell.0.take() {
            Some((owner, cache)) if std::ptr::eq(owner, table) => cache,
            Some((owner, mut cache)) => {
                cache.flush(owner);
                FreeCache::default()
            }
            None => FreeCache::default(),
        };
        let out = (f.take().expect("run once"))(&mut cache);
        cell.0.set(Some((table, cache)));
        out
    };
    match CACHE.try_with(run) {
        Ok(out) => out,
        Err(_) => {
            let mut cache = FreeCache::default();
            let out = (f.take().expect("not run: the cache is gone"))(&mut cache);
            cache.flush(table);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_maps_indices_to_pages() {
        assert_eq!(Table::locate(0), (0, 0));
        assert_eq!(Table::locate(255), (0, 255));
        assert_eq!(Table::locate(256), (1, 0));
        assert_eq!(Table::locate(767), (1, 511));
        assert_eq!(Table::locate(768), (2, 0));
    }

    /// Threads take slots at once across page boundaries, give them back from other
    /// threads, take them again: every slot handed out once at a time, and recycled slots
    /// reused before fresh ones, except for what the other takers hold in their caches
    /// (at most a chain each). (Also run under miri: the pages are raw allocations.)
    #[test]
    #[cfg(not(loom))]
    fn slots_are_handed_out_once_and_reused() {
        static TABLE_UNDER_TEST: Table = Table::new();
        let table = &TABLE_UNDER_TEST;
        let per_thread = if cfg!(miri) { 150 } else { 600 };
        let take = |n: usize| {
            let threads: Vec<_> = (0..3)
                .map(|_| {
                    std::thread::spawn(move || {
                        (0..n)
                            .map(|_| table.index_of(table.alloc().expect("room")).unwrap())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut all: Vec<u32> = threads
                .into_iter()
                .flat_map(|t| t.join().unwrap())
                .collect();
            all.sort_unstable();
            all
        };
        let first = take(per_thread);
        let n = first.len();
        assert_eq!(first, (0..n as u32).collect::<Vec<_>>(), "each slot once");
        assert!(n > BASE, "more than one page used");
        let give_back = |indices: &[u32]| {
            let returners: Vec<_> = indices
                .chunks(indices.len().div_ceil(3))
                .map(|chunk| {
                    let chunk = chunk.to_vec();
                    std::thread::spawn(move || {
                        for i in chunk {
                            table.recycle(table.get(i).unwrap());
                        }
                    })
                })
                .collect();
            returners.into_iter().for_each(|t| t.join().unwrap());
        };
        give_back(&first);
        let second = take(per_thread);
        let mut distinct = second.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), second.len(), "each slot once");
        let fresh = second.iter().filter(|&&i| i as usize >= n).count();
        assert!(
            fresh <= 2 * 64,
            "{fresh} fresh slots while recycled ones were free"
        );
        // One thread alone takes every recycled slot before a fresh one.
        give_back(&second);
        let count = second.len();
        let again = std::thread::spawn(move || {
            (0..count)
                .map(|_| table.index_of(table.alloc().expect("room")).unwrap())
                .collect::<Vec<_>>()
        });
        let mut again = again.join().unwrap();
        again.sort_unstable();
        assert_eq!(again, second, "the recycled slots, before any fresh one");
    }

    /// A slot's index comes from its address: every slot handed out, across pages, maps
    /// back to the index it was found at; a slot from elsewhere maps to none.
    #[test]
    #[cfg(not(loom))]
    fn index_of_finds_every_slot_from_its_address() {
        static TABLE_UNDER_TEST: Table = Table::new();
        let table = &TABLE_UNDER_TEST;
        let n = if cfg!(miri) { 800 } else { 5000 };
        for _ in 0..n {
            table.alloc().expect("room");
        }
        for index in 0..n as u32 {
            let slot = table.get(index).expect("handed out");
            assert_eq!(table.index_of(slot), Some(index));
        }
        assert_eq!(table.index_of(&Slot::new()), None);
    }

    #[test]
    fn a_slot_stays_small() {
        // Every live process pays for one slot; docs/design.md quotes this size. (88 since
        // the slot keeps neither its index nor its task's size; 96 before. 1 byte of it is
        // padding.)
        assert_eq!(std::mem::size_of::<Slot>(), 88);
    }

    #[test]
    fn zeroed_mutex_is_unlocked() {
        use parking_lot::lock_api::RawMutex as _;
        // `new_page` relies on this: a zeroed parking_lot raw mutex must be a valid,
        // unlocked one.
        let zeroed: parking_lot::RawMutex =
            // SAFETY: this is the claim under test; the check below would catch a lie before
            // anything else used the value.
            unsafe { std::mem::zeroed() };
        assert!(zeroed.try_lock());
        assert!(!zeroed.try_lock());
        // SAFETY: locked just above.
        unsafe { zeroed.unlock() };
    }
}
