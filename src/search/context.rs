//! What a search thread carries: shared tables and limits, its node count, its stop flags.

use super::probcut::ProbcutParams;
use super::tt::TranspositionTable;
use crate::eval::Weights;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Nodes between two looks at the clock and the stop flags.
const CHECK_EVERY: u64 = 1024;

/// Highest selectivity level: no probcut.
pub const NO_SELECTIVITY: u8 = 5;

/// Probcut confidence (in standard deviations) for each selectivity level.
pub const PROBCUT_T: [f64; 6] = [1.1, 1.5, 2.0, 2.6, 3.3, 99.0];

/// The confidence of each selectivity level in percent, as engines print it.
pub const SELECTIVITY_PERCENT: [u8; 6] = [73, 87, 95, 98, 99, 100];

/// Everything the threads of one search share.
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// The evaluation.
    pub eval: &'a Weights,
    /// Probcut regression parameters.
    pub probcut: &'a ProbcutParams,
    /// Raised when the whole search must end (limit reached or the user's stop).
    pub abort: AtomicBool,
    /// The caller's stop flag.
    pub user_stop: Option<&'a AtomicBool>,
    /// Hard time limit.
    pub deadline: Option<Instant>,
    /// Node limit.
    pub node_limit: u64,
    /// Nodes counted so far by all threads (updated in chunks).
    pub nodes: AtomicU64,
    /// Threads available for parallel search.
    pub threads: usize,
    /// The version of the search kernels this CPU runs.
    pub simd: crate::board::Simd,
    /// A number for this search, different from the searches before it (for the threads'
    /// local tables).
    pub search: u32,
}

impl Shared<'_> {
    /// True once the search must end.
    #[inline(always)]
    pub fn aborted(&self) -> bool {
        self.abort.load(Relaxed)
    }
}

/// One thread's view of a search.
pub struct Searcher<'a> {
    /// The shared part.
    pub sh: &'a Shared<'a>,
    /// Nodes this thread searched.
    pub nodes: u64,
    /// The part of `nodes` already added to the shared count.
    reported: u64,
    /// Node count at which to look at the limits next.
    next_check: u64,
    /// Selectivity level of this search (0..=5).
    pub level: u8,
    /// Flags of the parallel splits this thread works under: raised when a sibling cut off.
    pub split_stops: Vec<&'a AtomicBool>,
    /// Set when this thread saw a stop: its current results mean nothing.
    pub stopped: bool,
}

impl<'a> Searcher<'a> {
    /// A searcher for the main thread.
    pub fn new(sh: &'a Shared<'a>, level: u8) -> Searcher<'a> {
        Searcher {
            sh,
            nodes: 0,
            reported: 0,
            next_check: CHECK_EVERY,
            level,
            split_stops: Vec::new(),
            stopped: false,
        }
    }

    /// A searcher for a helper thread under a split guarded by `flag`.
    pub fn child<'b>(&self, flag: &'b AtomicBool) -> Searcher<'b>
    where
        'a: 'b,
    {
        let mut stops: Vec<&'b AtomicBool> = self.split_stops.clone();
        stops.push(flag);
        Searcher {
            sh: self.sh,
            nodes: 0,
            reported: 0,
            next_check: CHECK_EVERY,
            level: self.level,
            split_stops: stops,
            stopped: false,
        }
    }

    /// Counts a node; every so often looks at the limits and the stop flags. Returns true
    /// when the search must unwind.
    #[inline(always)]
    pub fn visit(&mut self) -> bool {
        self.add_nodes(1);
        self.stopped
    }

    /// Counts `n` nodes searched elsewhere (by the small-endgame solver); every so often
    /// looks at the limits.
    #[inline(always)]
    pub fn add_nodes(&mut self, n: u64) {
        self.nodes += n;
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            self.check();
        }
    }

    #[cold]
    fn check(&mut self) {
        let fresh = self.nodes - self.reported;
        self.reported = self.nodes;
        let total = self.sh.nodes.fetch_add(fresh, Relaxed) + fresh;
        if self.sh.user_stop.is_some_and(|f| f.load(Relaxed))
            || total >= self.sh.node_limit
            || self.sh.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.sh.abort.store(true, Relaxed);
        }
        if self.sh.aborted() || self.split_stops.iter().any(|f| f.load(Relaxed)) {
            self.stopped = true;
        }
    }

    /// Adds this thread's remaining node count to the shared total.
    pub fn flush(&mut self) {
        self.sh.nodes.fetch_add(self.nodes - self.reported, Relaxed);
        self.reported = self.nodes;
    }
}
