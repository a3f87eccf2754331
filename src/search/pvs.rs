//! The move loop shared by the midgame and endgame searches: principal variation search
//! over an ordered move list, with Young Brothers Wait splits across threads.

use super::context::Searcher;
use super::tt::NO_MOVE;
use crate::board::Board;
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering::Relaxed};

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

/// Takes out the move with the highest key among `list[i..]` (the earlier place on a tie):
/// returns it and moves `list[i]` to its place, so that `list[i + 1..]` holds the moves not
/// taken yet. Selection instead of a sort: most nodes need only their first move or two.
#[inline(always)]
pub fn select(list: &mut [Child], i: usize) -> Child {
    // Each key is packed above its place (8 bits: a list holds at most 64 moves; stored as
    // 255 - place so that the lower place wins a tie), so that the maximum is found without
    // a branch per move.
    let mut top = i64::MIN;
    for (j, c) in list.iter().enumerate().skip(i) {
        top = top.max((c.key as i64) << 8 | (255 - j) as i64);
    }
    // The move is read before anything is written over it: reading it back after a
    // swap made the processor wait for the swap's stores.
    let j = 255 - (top & 0xFF) as usize;
    let c = list[j];
    list[j] = list[i];
    c
}

/// The best score and move found so far at a node, and the node's alpha raised by them.
#[derive(Clone, Copy, Debug)]
pub struct Best {
    /// Best score so far (-65 before the first move).
    pub score: i32,
    /// Its move ([`NO_MOVE`] before the first move).
    pub mv: u8,
    /// The window's lower end: the node's alpha or the best score above it.
    pub alpha: i32,
}

impl Best {
    /// Nothing searched yet at a node with lower window end `alpha`.
    #[inline(always)]
    pub fn new(alpha: i32) -> Best {
        Best {
            score: -65,
            mv: NO_MOVE,
            alpha,
        }
    }

    /// Takes the score `v` of the move `sq`; true when it reaches `beta` (a cutoff: the
    /// node's other moves need not be searched).
    #[inline(always)]
    pub fn update(&mut self, v: i32, sq: u8, beta: i32) -> bool {
        if v > self.score {
            self.score = v;
            self.mv = sq;
            if v > self.alpha {
                self.alpha = v;
                return v >= beta;
            }
        }
        false
    }
}

/// The score of the `i`-th move searched at a node whose window is `(a, beta)` by now
/// (principal variation search): the first move in that window; the others in a null window
/// first, then again in the window when they fail high inside it. `search` searches the
/// move's position in a window (from the opponent's side).
#[inline(always)]
pub fn pvs_score(i: usize, a: i32, beta: i32, mut search: impl FnMut(i32, i32) -> i32) -> i32 {
    if i == 0 {
        return -search(-beta, -a);
    }
    let v = -search(-a - 1, -a);
    if v > a && v < beta {
        -search(-beta, -a)
    } else {
        v
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
        let mut best = Best::new(alpha);
        for i in 0..list.len() {
            if i > 0 && may_split && self.sh.threads > 1 && list.len() - i >= 2 {
                let rest = &mut list[i..];
                rest.sort_by_key(|x| -x.key);
                return self.split(rest, best.alpha, beta, (best.score, best.mv), &child);
            }
            let c = select(list, i);
            let v = pvs_score(i, best.alpha, beta, |lo, hi| child(self, &c, lo, hi));
            if self.stopped {
                return (0, NO_MOVE);
            }
            if best.update(v, c.sq, beta) {
                break;
            }
        }
        (best.score, best.mv)
    }

    /// Searches `rest` in parallel (the eldest brother is done): one worker per thread, each
    /// taking the next move in the list's order (not a half of the list each: the moves
    /// likeliest to cut come first, as on one thread) and searching it with the best alpha
    /// known when it starts; a cutoff stops the siblings.
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
        let next = AtomicUsize::new(0);
        let parent: &Searcher<'_> = self;
        let workers = self.sh.threads.min(rest.len());
        (0..workers).into_par_iter().for_each(|_| {
            let mut s = parent.child(&cut);
            loop {
                if cut.load(Relaxed) {
                    break;
                }
                let Some(c) = rest.get(next.fetch_add(1, Relaxed)) else {
                    break;
                };
                let a = shared_alpha.load(Relaxed);
                let mut v = -child(&mut s, c, -a - 1, -a);
                if !s.stopped && v > a && v < beta {
                    v = -child(&mut s, c, -beta, -a);
                }
                if s.stopped {
                    break;
                }
                let mut r = result.lock().unwrap_or_else(|e| e.into_inner());
                if v > r.0 {
                    *r = (v, c.sq);
                }
                drop(r);
                shared_alpha.fetch_max(v, Relaxed);
                if v >= beta {
                    cut.store(true, Relaxed);
                }
            }
            s.flush();
        });
        if self.sh.aborted() || self.split_stops.iter().any(|f| f.load(Relaxed)) {
            self.stopped = true;
            return (0, NO_MOVE);
        }
        result.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}
