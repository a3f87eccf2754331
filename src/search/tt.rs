//! The transposition table: shared between threads, lockless.
//!
//! Each entry is two `AtomicU64`: the key XOR the data, and the data. A torn write (two
//! threads storing at once) makes the XOR check fail, so a reader never trusts a mixed entry.
//! Entries keep a lower and an upper bound on the score, the depth and selectivity they were
//! searched to, and the best move. Buckets of 4 entries fill one cache line; a new result
//! replaces the same position, else the shallowest or oldest entry.
//!
//! [`LocalTable`] is a small table of each thread's own for the small endgames below the
//! shared table's reach: no atomics, small enough to stay in the CPU's cache.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// No move stored.
pub const NO_MOVE: u8 = 64;

/// What the table knows about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The score is at least this.
    pub lower: i8,
    /// The score is at most this.
    pub upper: i8,
    /// Depth searched (empties for an exact solve).
    pub depth: u8,
    /// Selectivity level (higher is more exact; see the search).
    pub selectivity: u8,
    /// Best move found, or [`NO_MOVE`].
    pub best: u8,
    /// Search generation that wrote it.
    pub date: u8,
}

impl Entry {
    /// What this entry tells a search of `depth` at selectivity `level` in `(alpha, beta)`:
    /// `Break` with the score to return when its bounds settle the search, else `Continue`
    /// with the window narrowed by them (unchanged when it was searched less deep or less
    /// exactly).
    #[inline(always)]
    pub fn window(
        self,
        depth: u32,
        level: u8,
        alpha: i32,
        beta: i32,
    ) -> ControlFlow<i32, (i32, i32)> {
        if (self.depth as u32) < depth || self.selectivity < level {
            return ControlFlow::Continue((alpha, beta));
        }
        let (lo, hi) = (self.lower as i32, self.upper as i32);
        if lo >= beta || lo == hi {
            return ControlFlow::Break(lo);
        }
        if hi <= alpha {
            return ControlFlow::Break(hi);
        }
        ControlFlow::Continue((alpha.max(lo), beta.min(hi)))
    }

    /// An entry that knows nothing of the score yet (bounds -64 and 64).
    fn unbounded(depth: u8, selectivity: u8, best: u8, date: u8) -> Entry {
        Entry {
            lower: -64,
            upper: 64,
            depth,
            selectivity,
            best,
            date,
        }
    }

    fn pack(self) -> u64 {
        (self.lower as u8 as u64)
            | (self.upper as u8 as u64) << 8
            | (self.depth as u64) << 16
            | (self.selectivity as u64) << 24
            | (self.best as u64) << 32
            | (self.date as u64) << 40
    }

    fn unpack(d: u64) -> Entry {
        Entry {
            lower: d as u8 as i8,
            upper: (d >> 8) as u8 as i8,
            depth: (d >> 16) as u8,
            selectivity: (d >> 24) as u8,
            best: (d >> 32) as u8,
            date: (d >> 40) as u8,
        }
    }

    /// How much a result is worth keeping: deep and exact beats shallow.
    fn worth(self) -> u32 {
        self.depth as u32 * 8 + self.selectivity as u32
    }
}

const BUCKET: usize = 4;

/// Four entries (key XOR data, data) on one cache line.
#[repr(align(64))]
struct Bucket([[AtomicU64; 2]; BUCKET]);

/// Bits of an entry's data above [`Entry::pack`]'s fields: the table's epoch when it was
/// written.
const EPOCH_SHIFT: u32 = 48;

/// The last epoch before the table is really cleared and the count starts again at 1.
const LAST_EPOCH: u64 = (1 << (64 - EPOCH_SHIFT)) - 1;

/// The table's buckets, in memory obtained zeroed from the system, which maps zero pages on
/// first touch: a large table costs nothing until it is used. (`Vec` would write the zeros,
/// a fifth of a second for the default 256 MB at every start: with the 64-byte alignment
/// of a bucket the standard allocator zeroes by hand, so the memory is allocated with a
/// smaller alignment, which takes the system's zeroed path, and a bucket boundary is found
/// inside it.)
struct Buckets {
    /// The allocation.
    base: *mut u8,
    layout: std::alloc::Layout,
    /// The first bucket, 64-byte aligned, inside the allocation.
    first: *const Bucket,
    len: usize,
}

// SAFETY: the buckets are only reached through shared references to atomics.
unsafe impl Send for Buckets {}
// SAFETY: as above.
unsafe impl Sync for Buckets {}

impl Buckets {
    /// `n` (at least 1) empty buckets; `None` when the system has not that much memory to
    /// give.
    fn new(n: usize) -> Option<Buckets> {
        let align = std::mem::align_of::<Bucket>();
        let size = n
            .checked_mul(size_of::<Bucket>())
            .and_then(|x| x.checked_add(align))?;
        if available_memory().is_some_and(|m| size > m) {
            // It would not stay in memory, and mapping it would bring in the out-of-memory
            // killer.
            return None;
        }
        let layout = std::alloc::Layout::from_size_align(size, 16).ok()?;
        // SAFETY: the layout's size is not zero.
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        if base.is_null() {
            return None;
        }
        advise_huge_pages(base, size);
        touch(base, size);
        // At most `align - 16` bytes in, so `n` buckets fit in the `align` bytes added.
        let skip = base.align_offset(align);
        // SAFETY: `skip` < `align`, within the allocation.
        let first = unsafe { base.add(skip) }.cast::<Bucket>();
        Some(Buckets {
            base,
            layout,
            first,
            len: n,
        })
    }
}

/// Writes a zero into every 4 KiB page of a new allocation (`base`, `size` bytes), so that
/// the kernel maps (and, after an idle spell, compacts memory for) all of it now, when the
/// table is made, rather than during the first search, where it once cost a one-second
/// search 0.7 s and ten plies. Large tables are mapped by several threads at once.
fn touch(base: *mut u8, size: usize) {
    const PAGE: usize = 4096;
    let start = std::time::Instant::now();
    let pages = size.div_ceil(PAGE);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
        .min(pages.div_ceil(16 * 1024).max(1));
    let per = pages.div_ceil(threads);
    // An address as a number, so that the threads may share it.
    let addr = base as usize;
    std::thread::scope(|scope| {
        for t in 0..threads {
            scope.spawn(move || {
                for page in t * per..((t + 1) * per).min(pages) {
                    // SAFETY: `page * PAGE` < `size`, inside the allocation; the byte was
                    // zero (allocated zeroed) and stays zero; each thread writes its own
                    // pages, and nothing else refers to the memory yet.
                    unsafe { (addr as *mut u8).add(page * PAGE).write_volatile(0) };
                }
            });
        }
    });
    log::debug!(
        "hash table: {} MB mapped in {:.3} s ({threads} threads)",
        size >> 20,
        start.elapsed().as_secs_f64()
    );
}

/// The memory a new table may take, in bytes, where the system says: what Linux counts as
/// available (`MemAvailable`), within the memory limit of the process's control group;
/// elsewhere the machine's memory.
fn available_memory() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        let kib = |text: &str, key: &str| -> Option<usize> {
            let line = text.lines().find(|l| l.starts_with(key))?;
            line[key.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .ok()
                .map(|k| k.saturating_mul(1024))
        };
        let read = |p: &str| std::fs::read_to_string(p).ok();
        let mut avail = read("/proc/meminfo").and_then(|m| kib(&m, "MemAvailable:"));
        // cgroup v2: the limit less what the group already uses ("max": no limit).
        if let (Some(max), Some(cur)) = (
            read("/sys/fs/cgroup/memory.max").and_then(|m| m.trim().parse::<usize>().ok()),
            read("/sys/fs/cgroup/memory.current").and_then(|m| m.trim().parse::<usize>().ok()),
        ) {
            let room = max.saturating_sub(cur);
            avail = Some(avail.map_or(room, |a| a.min(room)));
        }
        if avail.is_some() {
            return avail;
        }
    }
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && page > 0 {
            return (pages as usize).checked_mul(page as usize);
        }
    }
    None
}

/// Asks the kernel to back the part of an allocation (`base`, `size` bytes) that holds whole
/// 2 MiB pages with huge pages, before anything touches it: a probe of a large table then
/// rarely misses the processor's address translation cache. On the eleventh session's Zen 3,
/// FFO #51 took 10.5 s instead of 11.4-11.7 s, the deep nodes' share of the time falling from
/// 9.3% to 7.5% (see docs/benchmarks.md). Only a hint: nothing changes where transparent huge
/// pages are off, and the table works the same either way.
#[cfg(target_os = "linux")]
fn advise_huge_pages(base: *mut u8, size: usize) {
    const HUGE: usize = 2 << 20;
    let start = base.align_offset(HUGE);
    let len = size.saturating_sub(start) & !(HUGE - 1);
    if len == 0 {
        return;
    }
    // SAFETY: the range lies inside the allocation, which stays mapped while the advice is
    // given; the advice changes no contents.
    let r = unsafe { libc::madvise(base.add(start).cast(), len, libc::MADV_HUGEPAGE) };
    if r != 0 {
        log::debug!(
            "no huge pages for the table: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Elsewhere the table uses the system's ordinary pages.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_base: *mut u8, _size: usize) {}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];

    fn deref(&self) -> &[Bucket] {
        // SAFETY: `first` is aligned for `Bucket` and followed by `len` buckets inside the
        // allocation, which lives as long as `self`; all-zero bytes are a valid `Bucket`
        // (atomics holding 0: an empty slot), and every later write goes through the atomics.
        unsafe { std::slice::from_raw_parts(self.first, self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.base, self.layout) }
    }
}

/// A lockless, shared transposition table.
///
/// Every entry carries the table's epoch (1 to 65,535; a zeroed slot has 0): only
/// entries of the current epoch are found or kept, so clearing the table is a new epoch
/// rather than a pass over all its memory (a quarter of a gigabyte by default, tens of
/// milliseconds for each position of a file that `solve` goes through).
pub struct TranspositionTable {
    slots: Buckets,
    mask: usize,
    date: AtomicU64,
    epoch: AtomicU64,
}

/// A table that cannot be had: the system refused that much memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableTooLarge {
    /// The size asked for, in megabytes.
    pub mb: usize,
}

impl std::fmt::Display for TableTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot have a {} MB hash table: the system refused the memory",
            self.mb
        )
    }
}

impl std::error::Error for TableTooLarge {}

impl TranspositionTable {
    /// A table of about `mb` megabytes (rounded down to a power of two number of buckets; at
    /// least one bucket). Aborts, as a failed allocation does, when the system refuses the
    /// memory; [`TranspositionTable::try_new`] reports it instead.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).unwrap_or_else(|e| {
            log::error!("{e}");
            std::process::abort()
        })
    }

    /// A table of about `mb` megabytes, or the error when the system refuses the memory or
    /// has less available. Every page is mapped here, before any clock starts, so that
    /// the first search does not pay for it.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, TableTooLarge> {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let buckets = (bytes / (16 * BUCKET)).max(1);
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        Ok(TranspositionTable {
            slots: Buckets::new(buckets).ok_or(TableTooLarge { mb })?,
            mask: buckets - 1,
            date: AtomicU64::new(0),
            epoch: AtomicU64::new(1),
        })
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        self.slots.len() * size_of::<Bucket>() / (1024 * 1024)
    }

    /// Forgets everything: starts a new epoch (the memory is zeroed only when the epochs run
    /// out, once in 65,535 clears).
    pub fn clear(&self) {
        let next = self.epoch.load(Relaxed) + 1;
        if next > LAST_EPOCH {
            for s in self.slots.iter().flat_map(|b| &b.0) {
                s[0].store(0, Relaxed);
                s[1].store(0, Relaxed);
            }
            self.epoch.store(1, Relaxed);
        } else {
            self.epoch.store(next, Relaxed);
        }
        self.date.store(0, Relaxed);
    }

    /// Starts a new search generation (older entries become easier to replace).
    pub fn new_search(&self) {
        self.date.fetch_add(1, Relaxed);
    }

    fn bucket(&self, hash: u64) -> &[[AtomicU64; 2]; BUCKET] {
        &self.slots[(hash as usize) & self.mask].0
    }

    /// Starts loading the bucket of `hash` into the cache, so that a [`Self::probe`] soon
    /// after finds it there (a no-op off x86-64).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p: *const [[AtomicU64; 2]; BUCKET] = self.bucket(hash);
            // SAFETY: a prefetch only hints the cache; the address is a valid bucket.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// The entry for `hash`, if any.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<Entry> {
        let epoch = self.epoch.load(Relaxed);
        for s in self.bucket(hash) {
            let d = s[1].load(Relaxed);
            if s[0].load(Relaxed) ^ d == hash && d >> EPOCH_SHIFT == epoch {
                return Some(Entry::unpack(d));
            }
        }
        None
    }

    /// Stores a search result for `hash`: `score` searched in the window `(alpha, beta)`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        hash: u64,
        depth: u8,
        selectivity: u8,
        alpha: i32,
        beta: i32,
        score: i32,
        best: u8,
    ) {
        let date = self.date.load(Relaxed) as u8;
        let epoch = self.epoch.load(Relaxed);
        let bucket = self.bucket(hash);
        let mut victim = 0;
        let mut victim_worth = u32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let d = s[1].load(Relaxed);
            let current = d >> EPOCH_SHIFT == epoch;
            if s[0].load(Relaxed) ^ d == hash && current {
                let old = Entry::unpack(d);
                let mut e = if old.depth == depth && old.selectivity == selectivity {
                    old
                } else if old.worth() > depth as u32 * 8 + selectivity as u32 {
                    // Keep a deeper result.
                    return;
                } else {
                    // The move stays: a shallower or more selective search's best move is
                    // still the best first guess for the deeper one.
                    Entry::unbounded(depth, selectivity, old.best, date)
                };
                Self::merge(&mut e, alpha, beta, score, best, date);
                let nd = e.pack() | epoch << EPOCH_SHIFT;
                s[0].store(hash ^ nd, Relaxed);
                s[1].store(nd, Relaxed);
                return;
            }
            let worth = if !current {
                0
            } else {
                let e = Entry::unpack(d);
                let age = date.wrapping_sub(e.date) as u32;
                (e.worth() + 1).saturating_sub(age * 16)
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let mut e = Entry::unbounded(depth, selectivity, NO_MOVE, date);
        Self::merge(&mut e, alpha, beta, score, best, date);
        let nd = e.pack() | epoch << EPOCH_SHIFT;
        bucket[victim][0].store(hash ^ nd, Relaxed);
        bucket[victim][1].store(nd, Relaxed);
    }

    fn merge(e: &mut Entry, alpha: i32, beta: i32, score: i32, best: u8, date: u8) {
        let s = score.clamp(-64, 64) as i8;
        if score < beta {
            e.upper = e.upper.min(s);
        }
        if score > alpha {
            e.lower = e.lower.max(s);
        }
        if e.lower > e.upper {
            // Bounds from different searches disagree: trust the new one.
            if score < beta {
                e.lower = -64;
            } else {
                e.upper = 64;
            }
        }
        if best != NO_MOVE && (score > alpha || e.best == NO_MOVE) {
            e.best = best;
        }
        e.date = date;
    }
}

/// Entries of a [`LocalTable`] (16 bytes each: 256 KiB).
const LOCAL_ENTRIES: usize = 1 << 14;

/// A thread's own direct-mapped table: each position overwrites its slot. An entry holds the
/// bounds, depth, selectivity and best move like the shared table, and the number of the
/// search that stored it: only entries of the current search are returned, so a table never
/// needs clearing.
pub struct LocalTable {
    slots: [Cell<[u64; 2]>; LOCAL_ENTRIES],
}

impl LocalTable {
    const fn new() -> LocalTable {
        LocalTable {
            slots: [const { Cell::new([0, 0]) }; LOCAL_ENTRIES],
        }
    }

    /// The entry for `hash` stored during search number `search`, if any.
    #[inline]
    pub fn probe(&self, hash: u64, search: u32) -> Option<Entry> {
        let [key, d] = self.slots[hash as usize & (LOCAL_ENTRIES - 1)].get();
        (key == hash && (d >> 40) as u32 == search & 0xFF_FFFF).then(|| Entry::unpack(d))
    }

    /// Stores a search result for `hash` (as [`TranspositionTable::store`]) in search number
    /// `search`, replacing whatever the slot held.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        hash: u64,
        search: u32,
        depth: u8,
        selectivity: u8,
        alpha: i32,
        beta: i32,
        score: i32,
        best: u8,
    ) {
        let mut e = Entry::unbounded(depth, selectivity, NO_MOVE, 0);
        TranspositionTable::merge(&mut e, alpha, beta, score, best, 0);
        let d = (e.pack() & 0xFF_FFFF_FFFF) | ((search & 0xFF_FFFF) as u64) << 40;
        self.slots[hash as usize & (LOCAL_ENTRIES - 1)].set([hash, d]);
    }
}

thread_local! {
    static LOCAL: LocalTable = const { LocalTable::new() };
}

/// Runs `f` on the calling thread's [`LocalTable`].
#[inline]
pub fn with_local<R>(f: impl FnOnce(&LocalTable) -> R) -> R {
    LOCAL.with(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let t = TranspositionTable::new(1);
        let h = 0xDEAD_BEEF_1234_5678;
        assert!(t.probe(h).is_none());
        t.store(h, 10, 5, -3, 4, 2, 19);
        let e = t.probe(h).unwrap();
        assert_eq!((e.lower, e.upper, e.depth, e.best), (2, 2, 10, 19));
        // A fail-high adds a lower bound at the same depth.
        t.store(h, 10, 5, 4, 5, 6, 20);
        let e = t.probe(h).unwrap();
        assert_eq!((e.lower, e.upper), (6, 64));
        t.clear();
        assert!(t.probe(h).is_none());
    }

    /// Clearing starts a new epoch: nothing stored before it is found or merged into, a
    /// full bucket of old entries takes new ones, and when the epochs run out the memory is
    /// zeroed and the count starts again.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_new_table_is_resident() {
        // Every page is mapped when the table is made, not on the first search's probes.
        let t = TranspositionTable::try_new(64).unwrap();
        let page = 4096;
        let base = t.slots.first as usize / page * page;
        let end = t.slots.first as usize + t.slots.len * size_of::<Bucket>();
        let pages = (end - base).div_ceil(page);
        let mut resident = vec![0u8; pages];
        // SAFETY: the range lies within the table's allocation (rounded down to its page);
        // mincore only reads the mapping and writes `pages` bytes into `resident`.
        let r = unsafe { libc::mincore(base as *mut _, end - base, resident.as_mut_ptr()) };
        assert_eq!(r, 0);
        let missing = resident.iter().filter(|&&b| b & 1 == 0).count();
        assert_eq!(missing, 0, "{missing} of {pages} pages not resident");
    }

    #[test]
    fn clear_forgets_through_epochs() {
        let t = TranspositionTable::new(1);
        let h = 0x0F1E_2D3C_4B5A_6978;
        t.store(h, 20, 5, -64, 64, 10, 3);
        t.clear();
        assert!(t.probe(h).is_none());
        // A result after the clear is not merged with the forgotten one.
        t.store(h, 20, 5, -64, 12, 12, 4);
        let e = t.probe(h).unwrap();
        assert_eq!((e.lower, e.upper, e.best), (12, 64, 4));
        // Fill the bucket of `h` with deep entries, then clear: shallow ones still get in.
        let same_bucket = |i: u64| h ^ ((i + 1) << 40);
        for i in 0..BUCKET as u64 {
            t.store(same_bucket(i), 60, 5, -64, 64, 0, 1);
        }
        t.clear();
        for i in 0..BUCKET as u64 {
            t.store(same_bucket(i + 10), 1, 0, -64, 64, 2, 1);
        }
        for i in 0..BUCKET as u64 {
            assert!(t.probe(same_bucket(i)).is_none());
            assert_eq!(t.probe(same_bucket(i + 10)).map(|e| e.lower), Some(2));
        }
        // The last epoch, then a real clear.
        t.epoch.store(LAST_EPOCH, Relaxed);
        t.store(h, 20, 5, -64, 64, 6, 3);
        assert_eq!(t.probe(h).map(|e| e.lower), Some(6));
        t.clear();
        assert_eq!(t.epoch.load(Relaxed), 1);
        assert!(t.probe(h).is_none());
        assert!(
            t.slots
                .iter()
                .flat_map(|b| &b.0)
                .all(|s| s[1].load(Relaxed) == 0)
        );
        t.store(h, 20, 5, -64, 64, 8, 3);
        assert_eq!(t.probe(h).map(|e| e.lower), Some(8));
    }

    #[test]
    fn local_table_keeps_entries_of_one_search() {
        let h = 0x0123_4567_89AB_CDEF;
        with_local(|t| {
            assert!(t.probe(h, 7).is_none());
            t.store(h, 7, 8, 5, -3, 4, 2, 19);
            let e = t.probe(h, 7).unwrap();
            assert_eq!((e.lower, e.upper, e.depth, e.best), (2, 2, 8, 19));
            // Another search does not see it.
            assert!(t.probe(h, 8).is_none());
            // Nor does another position in the same slot.
            assert!(t.probe(h ^ (1 << 40), 7).is_none());
            // A fail low is an upper bound.
            t.store(h, 9, 8, 5, 10, 11, 6, 20);
            let e = t.probe(h, 9).unwrap();
            assert_eq!((e.lower, e.upper), (-64, 6));
        });
    }
}
