//! The midgame search: depth-limited principal variation search with the transposition
//! table, Multi-ProbCut and move ordering by shallow searches. When the depth reaches the
//! end of the game it hands over to the exact solver.

use super::context::{NO_SELECTIVITY, PROBCUT_T, Searcher};
use super::probcut::{PROBCUT_MIN_DEPTH, ProbcutParams};
use super::pvs::{Child, MoveList};
use super::tt::NO_MOVE;
use crate::board::{Board, flips, legal_moves};
use std::ops::ControlFlow;

/// From this depth on, a node may be split between threads.
pub const SPLIT_DEPTH: i32 = 5;

/// From this depth on, a node looks each of its children up in the table before it orders
/// them, and stops when one is known to refute it (enhanced transposition cutoff).
pub const ETC_DEPTH: i32 = 6;

/// Move ordering searches each move in the node's window widened by this many discs on each
/// side: a move far outside it needs only a bound to be placed.
const SORT_MARGIN: i32 = 3;

/// The weight of a move's replies (the opponent's mobility, corners counted twice) in its
/// ordering key, in 64ths of a disc each.
const MOBILITY_WEIGHT: i32 = 32;

/// Corners, for move ordering.
const CORNERS: u64 = 0x8100_0000_0000_0081;

impl Searcher<'_> {
    /// Score of `b` searched `depth` plies deep in `(alpha, beta)`, fail-soft, in discs for the
    /// side to move.
    pub fn mid(&mut self, b: Board, alpha: i32, beta: i32, depth: i32) -> i32 {
        // A leaf needs no moves.
        let moves = if depth > 0 { b.moves() } else { 0 };
        self.mid_moves(b, moves, alpha, beta, depth)
    }

    /// [`Searcher::mid`] of a board whose legal moves (`moves`) are known; they are not read
    /// when `depth <= 0`.
    fn mid_moves(&mut self, b: Board, moves: u64, alpha: i32, beta: i32, depth: i32) -> i32 {
        let e = b.empty_count() as i32;
        if depth >= e {
            return self.end_moves(b, moves, alpha, beta);
        }
        if self.visit() {
            return 0;
        }
        if depth <= 0 {
            return self.sh.eval.evaluate(&b);
        }
        if moves == 0 {
            let replies = b.opponent_moves();
            if replies == 0 {
                return b.final_score();
            }
            return -self.mid_moves(b.passed(), replies, -beta, -alpha, depth);
        }
        if depth == 1 {
            return self.mid_last_ply(b, moves, beta);
        }
        let hash = b.hash();
        let mut tt_move = NO_MOVE;
        let (mut alpha, mut beta) = (alpha, beta);
        if let Some(en) = self.sh.tt.probe(hash) {
            match en.window(depth as u32, self.level, alpha, beta) {
                ControlFlow::Break(v) => return v,
                ControlFlow::Continue(w) => (alpha, beta) = w,
            }
            tt_move = en.best;
        }
        if self.level < NO_SELECTIVITY && depth >= PROBCUT_MIN_DEPTH {
            if let Some(v) = self.probcut(b, alpha, beta, depth) {
                return v;
            }
            if self.stopped {
                return 0;
            }
        }
        let mut list = MoveList::new();
        if let Some(v) = self.order_moves(b, moves, tt_move, depth, (alpha, beta), &mut list) {
            return v;
        }
        let (best, best_move) = self.search_moves(
            list.as_mut_slice(),
            alpha,
            beta,
            depth >= SPLIT_DEPTH,
            move |s, c, a, bt| s.mid_moves(c.board, c.moves, a, bt, depth - 1),
        );
        if self.stopped {
            return 0;
        }
        self.sh
            .tt
            .store(hash, depth as u8, self.level, alpha, beta, best, best_move);
        best
    }

    /// Depth 1: the best evaluation among the children.
    fn mid_last_ply(&mut self, b: Board, moves: u64, beta: i32) -> i32 {
        let mut nodes = 0;
        let v = self.sh.eval.after(&b).best(moves, beta, &mut nodes);
        self.nodes += nodes;
        v
    }

    /// Pushes on `list` the moves of `b` and their keys (higher first): the hash move, then
    /// by a shallow search (or the evaluation) in the node's window `(alpha, beta)` widened by
    /// [`SORT_MARGIN`], less the opponent's mobility. From [`ETC_DEPTH`] on, returns instead
    /// a score of at least `beta` when the table shows that a move reaches it (searched at
    /// least `depth - 1` deep, at least as exactly).
    fn order_moves(
        &mut self,
        b: Board,
        moves: u64,
        tt_move: u8,
        depth: i32,
        (alpha, beta): (i32, i32),
        list: &mut MoveList,
    ) -> Option<i32> {
        let etc = depth >= ETC_DEPTH;
        let sort_depth = match depth {
            ..=5 => 0,
            6..=9 => 1,
            10..=13 => 2,
            _ => 3,
        };
        let (lo, hi) = (
            (-beta - SORT_MARGIN).max(-64),
            (-alpha + SORT_MARGIN).min(64),
        );
        let after = (sort_depth == 0).then(|| self.sh.eval.after(&b));
        let mut m = moves;
        while m != 0 {
            let sq = m.trailing_zeros() as usize;
            m &= m - 1;
            let f = flips(b.player, b.opponent, sq);
            let child = Board::new(b.opponent ^ f, b.player ^ f ^ (1u64 << sq));
            if etc
                && let Some(en) = self.sh.tt.probe(child.hash())
                && let ControlFlow::Break(v) =
                    en.window((depth - 1) as u32, self.level, -beta, -alpha)
                && -v >= beta
            {
                return Some(-v);
            }
            let replies = legal_moves(child.player, child.opponent);
            let key = if sq as u8 == tt_move {
                i32::MAX
            } else {
                let mob = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                let v = if let Some(after) = &after {
                    -after.evaluate_with_moves(&child, replies)
                } else {
                    -self.mid(child, lo, hi, sort_depth - 1)
                };
                v * 64 - mob * MOBILITY_WEIGHT
            };
            list.push(Child {
                key,
                sq: sq as u8,
                board: child,
                moves: replies,
            });
        }
        None
    }

    /// Multi-ProbCut: a shallow search predicts that the deep one would fall outside the
    /// window. Returns the bound to return, if any.
    fn probcut(&mut self, b: Board, alpha: i32, beta: i32, depth: i32) -> Option<i32> {
        let shallow = ProbcutParams::shallow_depth(depth);
        let sigma = self.sh.probcut.sigma(b.empty_count(), depth, shallow);
        self.probcut_test(b, alpha, beta, shallow, sigma)
    }

    /// The test of probcut, shared by the midgame and the selective endgame: a search of
    /// `shallow` plies predicts the deep score as `a * shallow + b` with deviation `sigma`;
    /// when that lies `t` deviations (set by the selectivity level) beyond the window, the
    /// bound to return.
    pub fn probcut_test(
        &mut self,
        b: Board,
        alpha: i32,
        beta: i32,
        shallow: i32,
        sigma: f64,
    ) -> Option<i32> {
        let pc = self.sh.probcut;
        let t = PROBCUT_T[self.level as usize];
        let hi = ((beta as f64 + t * sigma - pc.b) / pc.a).ceil() as i32;
        if hi < 64 {
            let v = self.mid(b, hi - 1, hi, shallow);
            if self.stopped {
                return None;
            }
            if v >= hi {
                return Some(beta);
            }
        }
        let lo = ((alpha as f64 - t * sigma - pc.b) / pc.a).floor() as i32;
        if lo > -64 {
            let v = self.mid(b, lo, lo + 1, shallow);
            if self.stopped {
                return None;
            }
            if v <= lo {
                return Some(alpha);
            }
        }
        None
    }
}
