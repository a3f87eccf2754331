//! The move loop shared by the midgame and endgame searches: principal variation search
//! over an ordered move list, with Young Brothers Wait splits across threads.

use super::context::Searcher;
use super::tt::NO_MOVE;
use crate::board::Board;
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::Relaxed};

/// A move of a node's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child {
    /// Ordering key: higher first.
    pub key: i32,
    /// The move's square.
    pub sq: u8,
    /// The board after the move (the opponent to move).
    pub board: Board,
    /// The legal moves of `board`.
    pub moves: u64,
}

/// A node's moves, on the stack: room for any position's moves (at most one per empty
/// square), left uninitialised until pushed so that a node pays only for its own moves.
pub struct MoveList {
    items: [MaybeUninit<Child>; 64],
    len: usize,
}

impl Default for MoveList {
    #[inline(always)]
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            items: [const { MaybeUninit::uninit() }; 64],
            len: 0,
        }
    }

    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, c: Child) {
        self.items[self.len].write(c);
        self.len += 1;
    }

    /// The moves pushed so far.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Child] {
        // SAFETY: the first `len` items were written by `push`, and `MaybeUninit<Child>`
        // has the layout of `Child`.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast(), self.len) }
    }
}

impl Searcher<'_> {
    /// Searches the moves of a node, highest key first, with PVS in `(alpha, beta)`: each
    /// next move is picked from `list` when its turn comes (a cut usually comes on the first
    /// move, so most nodes never sort the rest); the first move with the full window, the
    /// others with a null window and a re-search when they fail high. `child` searches one
    /// resulting position in a window. When `may_split` and more than one thread exists, the
    /// moves after the first are searched in parallel. Returns the fail-soft best score and
    /// its move.
    pub fn search_moves<F>(
        &mut self,
        list: &mut [Child],
        alpha: i32,
        beta: i32,
        may_split: bool,
        child: F,
    ) -> (i32, u8)
    where
        F: for<'s> Fn(&mut Searcher<'s>, &Child, i32, i32) -> i32 + Sync,
    {
        let mut best = -65;
        let mut best_move = NO_MOVE;
        let mut a = alpha;
        for i in 0..list.len() {
            if i > 0 && may_split && self.sh.threads > 1 && list.len() - i >= 2 {
                let rest = &mut list[i..];
                rest.sort_by_key(|x| -x.key);
                return self.split(rest, a, beta, (best, best_move), &child);
            }
            // Selection instead of a sort: most nodes need only their first move or two.
            // Each key is packed above its place (8 bits: a list holds at most 64 moves;
            // stored as 255 - place so that the lower place wins a tie), so that the
            // maximum is found without a branch per move.
            let mut top = i64::MIN;
            for (j, c) in list.iter().enumerate().skip(i) {
                top = top.max((c.key as i64) << 8 | (255 - j) as i64);
            }
            list.swap(i, 255 - (top & 0xFF) as usize);
            let c = list[i];
            let v = if i == 0 {
                -child(self, &c, -beta, -a)
            } else {
                let mut v = -child(self, &c, -a - 1, -a);
                if v > a && v < beta && !self.stopped {
                    v = -child(self, &c, -beta, -a);
                }
                v
            };
            if self.stopped {
                return (0, NO_MOVE);
            }
            if v > best {
                best = v;
                best_move = c.sq;
                if v > a {
                    a = v;
                    if a >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_move)
    }

    /// Searches `rest` in parallel (the eldest brother is done): each helper uses the best
    /// alpha known when it starts; a cutoff stops the siblings.
    fn split<F>(
        &mut self,
        rest: &[Child],
        alpha: i32,
        beta: i32,
        found: (i32, u8),
        child: &F,
    ) -> (i32, u8)
    where
        F: for<'s> Fn(&mut Searcher<'s>, &Child, i32, i32) -> i32 + Sync,
    {
        let cut = AtomicBool::new(false);
        let shared_alpha = AtomicI32::new(alpha);
        let result = Mutex::new(found);
        let parent: &Searcher<'_> = self;
        rest.par_iter().for_each(|c| {
            if cut.load(Relaxed) {
                return;
            }
            let mut s = parent.child(&cut);
            let a = shared_alpha.load(Relaxed);
            let mut v = -child(&mut s, c, -a - 1, -a);
            if !s.stopped && v > a && v < beta {
                v = -child(&mut s, c, -beta, -a);
            }
            s.flush();
            if s.stopped {
                return;
            }
            let mut r = result.lock().unwrap_or_else(|e| e.into_inner());
            if v > r.0 {
                *r = (v, c.sq);
            }
            shared_alpha.fetch_max(v, Relaxed);
            if v >= beta {
                cut.store(true, Relaxed);
            }
        });
        if self.sh.aborted() || self.split_stops.iter().any(|f| f.load(Relaxed)) {
            self.stopped = true;
            return (0, NO_MOVE);
        }
        result.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}
