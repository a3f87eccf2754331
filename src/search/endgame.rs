//! The exact endgame solver: the final disc difference with perfect play.
//!
//! - 1 empty: only the flip count is needed.
//! - up to [`SHALLOW_EMPTIES`]: no move generation and no hash; the empties are tried in
//!   parity order (squares of regions with an odd number of empties first), at five empties
//!   fastest first; a stability cutoff from three empties.
//! - deeper: move generation, fastest-first ordering (the move of an earlier endgame search
//!   first, then fewest replies for the opponent; from 14 empties on also the evaluation of
//!   each move, from 18 a one-ply search), enhanced transposition cutoff (from 7 empties),
//!   the transposition table (below 12 empties a small table of the thread's own), a
//!   stability cutoff, and parallel splits (Young Brothers Wait). Up to 10 empties
//!   (no shared table, probcut or split there) the same search runs as one recursive
//!   function without the searcher's state, compiled like the small solver (portable, for
//!   x86-64 with AVX2, and with AVX-512 flips and mobility; see [`Simd`]): same order, same
//!   nodes, less overhead per node.
//!
//! Scores are fail-soft: below `alpha` an upper bound, above `beta` a lower bound.

use super::context::{NO_SELECTIVITY, Searcher};
use super::pvs::{Child, MoveList};
use super::shallow::{self, final_score, stability_cutoff};
use super::tt::{Entry, LocalTable, NO_MOVE, with_local};
use crate::board::odd_quadrant_mask;
use crate::board::{Board, Simd, stable_discs_until};
use std::ops::ControlFlow;

/// At or below this many empties the solver uses its no-hash, no-movegen code.
pub const SHALLOW_EMPTIES: u32 = 5;

/// From this many empties on, positions go through the shared transposition table; below,
/// through the thread's local table.
const HASH_EMPTIES: u32 = 12;

/// Up to this many empties (above [`SHALLOW_EMPTIES`]) the solver's nodes are searched by
/// one function with no searcher state (see the kernel's `solve_local`): below the shared
/// table, the probcut and the parallel splits.
const LOCAL_EMPTIES: u32 = 10;

// The searcher's own nodes (more than LOCAL_EMPTIES empties) always try the enhanced
// transposition cutoff.
const _: () = assert!(LOCAL_EMPTIES >= ETC_EMPTIES);

/// From this many empties on, the children are looked up in the tables before the search
/// (enhanced transposition cutoff; below [`HASH_EMPTIES`] in the thread's own table).
const ETC_EMPTIES: u32 = 7;

/// From this many empties on (below [`SEARCH_ORDER_EMPTIES`]), moves are also ordered by
/// the evaluation of the child. From 12: fewer nodes, more time (FFO #40-#59 on two threads:
/// 12.27 G nodes in 267 s, against 13.18 G in 248 s from 14).
const EVAL_ORDER_EMPTIES: u32 = 14;

/// Weight of that evaluation (per disc) against the mobility keys (16 per reply).
const EVAL_ORDER_WEIGHT: i32 = 4;

/// From this many empties on, moves are also ordered by a one-ply search of the child.
const SEARCH_ORDER_EMPTIES: u32 = 18;

/// Weight of that search's score (per disc) against the mobility keys (16 per reply).
const SEARCH_ORDER_WEIGHT: i32 = 6;

/// Bonus in the fastest-first key (16 per reply) of the best move stored by a midgame search
/// (probcut's shallow searches leave them in the table): a hint, not a first move. Taken
/// first, such moves cost more than they saved (FFO #50-#52 on one thread: 802 M nodes;
/// ignored 641 M, with this bonus 632 M); on FFO #40-#59 (two threads) 13.47 G nodes when
/// ignored, 12.25 G with this bonus, 12.34 G with 32.
const MIDGAME_MOVE_BONUS: i32 = 16;

/// From this many empties on, a selective endgame search tries probcut.
const PROBCUT_EMPTIES: u32 = 12;

/// From this many empties on, a node may be split between threads.
pub const SPLIT_EMPTIES: u32 = 14;

/// Corners.
const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Empties in quadrants holding an odd number of empties.
#[inline(always)]
pub(super) fn odd_quadrants(empties: u64) -> u64 {
    odd_quadrant_mask(empties) & empties
}

/// Generates, with the given function attributes, the function that lists the moves of a
/// position with their resulting boards and fastest-first keys, and the solver of the
/// positions below the shared table's reach built on it.
macro_rules! deep_kernel {
    ($(#[$attr:meta])*) => {
        /// Pushes on `list` the moves in `moves` of the position (`p` to move, `o` the
        /// opponent), each with its fastest-first key, resulting board and that board's moves.
        /// The key: fewer replies for the opponent first (corner replies count three
        /// times), fewer potential replies, then moves into odd regions and corners; the
        /// hash move `first` gets `i32::MAX` instead.
        $(#[$attr])*
        pub(super) fn children(
            p: u64,
            o: u64,
            moves: u64,
            odd: u64,
            first: u8,
            list: &mut MoveList,
        ) {
            use super::CORNERS;
            use crate::board::{Board, potential_moves};
            let mut m = moves;
            while m != 0 {
                let sq = m.trailing_zeros() as usize;
                m &= m - 1;
                let (np, no, r) = play_and_moves(p, o, sq);
                let child = Board::new(np, no);
                if sq as u8 == first {
                    list.push(Child { key: i32::MAX, sq: sq as u8, board: child, moves: r });
                    continue;
                }
                let mob = (r.count_ones() * 16 + (r & CORNERS).count_ones() * 32) as i32;
                let potential = potential_moves(child.player, child.opponent).count_ones() as i32;
                let parity = ((odd >> sq) & 1) as i32;
                let key = -mob - potential * 2 + parity * 4 + ((CORNERS >> sq) & 1) as i32 * 8;
                list.push(Child { key, sq: sq as u8, board: child, moves: r });
            }
        }

        /// Exact score in `(alpha, beta)`, fail-soft, of a position with `e` empties
        /// (`empties`; more than [`SHALLOW_EMPTIES`], at most [`LOCAL_EMPTIES`]) and the
        /// legal moves `moves`, searched as [`Searcher::end_deep`] searches it (same order,
        /// same table use, same node count) without the searcher's bookkeeping: through the
        /// thread's own table `t` (entries of search number `search`, results stored with
        /// selectivity `level`); counts its nodes into `nodes`.
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        pub(super) fn solve_local(
            p: u64,
            o: u64,
            alpha: i32,
            beta: i32,
            empties: u64,
            moves: u64,
            e: u32,
            t: &LocalTable,
            search: u32,
            level: u8,
            nodes: &mut u64,
        ) -> i32 {
            use super::{ETC_EMPTIES, SHALLOW_EMPTIES, odd_quadrants};
            use super::{final_score, from_table, refutes};
            use crate::board::Board;
            use crate::search::pvs::{Best, pvs_score, select};
            use std::ops::ControlFlow;
            *nodes += 1;
            if moves == 0 {
                let replies = legal_moves(o, p);
                if replies == 0 {
                    return final_score(p, o);
                }
                return -solve_local(o, p, -beta, -alpha, empties, replies, e, t, search, level, nodes);
            }
            if let Some(max) = stability_cut(p, o, alpha) {
                return max;
            }
            let hash = Board::new(p, o).hash();
            // The thread's table holds endgame results only: no midgame move to hint at.
            let (alpha, beta, tt_move, _) =
                match from_table(t.probe(hash, search), e, level, alpha, beta) {
                    ControlFlow::Break(v) => return v,
                    ControlFlow::Continue(x) => x,
                };
            let mut list = MoveList::new();
            children(p, o, moves, odd_quadrants(empties), tt_move, &mut list);
            let list = list.as_mut_slice();
            if e >= ETC_EMPTIES {
                for c in list.iter() {
                    if let Some(v) = refutes(t.probe(c.board.hash(), search), e, level, beta) {
                        t.store(hash, search, e as u8, level, alpha, beta, v, c.sq);
                        return v;
                    }
                }
            }
            let mut best = Best::new(alpha);
            for i in 0..list.len() {
                let c = select(list, i);
                let (cp, co) = (c.board.player, c.board.opponent);
                let ce = empties ^ (1u64 << c.sq);
                let child = |lo: i32, hi: i32| {
                    if e - 1 <= SHALLOW_EMPTIES {
                        solve_sorted(cp, co, lo, hi, ce, c.moves, nodes)
                    } else {
                        solve_local(cp, co, lo, hi, ce, c.moves, e - 1, t, search, level, nodes)
                    }
                };
                if best.update(pvs_score(i, best.alpha, beta, child), c.sq, beta) {
                    break;
                }
            }
            t.store(hash, search, e as u8, level, alpha, beta, best.score, best.mv);
            best.score
        }
    };
}

mod portable {
    use super::{Child, LocalTable, MoveList};
    use crate::board::{legal_moves, play_and_moves};
    use crate::search::shallow::portable::{solve_sorted, stability_cut};
    deep_kernel!();
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Child, LocalTable, MoveList};
    use crate::board::avx2::{legal_moves, play_and_moves};
    use crate::search::shallow::x86::{solve_sorted, stability_cut};
    deep_kernel!(#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]);
}

/// The x86-64 kernel with AVX-512 flips and mobility (see [`Simd::Avx512`]).
#[cfg(target_arch = "x86_64")]
mod x86_512 {
    use super::{Child, LocalTable, MoveList};
    use crate::board::avx512::{legal_moves, play_and_moves};
    use crate::search::shallow::x86_512::{solve_sorted, stability_cut};
    deep_kernel!(#[target_feature(
        enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd"
    )]);
}

/// Pushes on `list` the moves of a position with their boards and fastest-first keys, the
/// hash move `first` first (see the kernel); `simd` selects the compiled version and must be
/// one that [`Simd::available`] lists.
#[inline]
fn children(b: &Board, moves: u64, odd: u64, first: u8, list: &mut MoveList, simd: Simd) {
    let (p, o) = (b.player, b.opponent);
    with_kernel!(simd, k => k::children(p, o, moves, odd, first, list))
}

/// What the table's entry `en` (if any) tells an endgame search of `e` empties at
/// selectivity `level` in `(alpha, beta)`: `Break` with the score to return, else `Continue`
/// with the window narrowed by the entry's bounds, the move of an earlier endgame search (to
/// search first) and the move of a midgame search (a hint), each [`NO_MOVE`] when none.
#[inline(always)]
fn from_table(
    en: Option<Entry>,
    e: u32,
    level: u8,
    alpha: i32,
    beta: i32,
) -> ControlFlow<i32, (i32, i32, u8, u8)> {
    let Some(en) = en else {
        return ControlFlow::Continue((alpha, beta, NO_MOVE, NO_MOVE));
    };
    let (alpha, beta) = en.window(e, level, alpha, beta)?;
    // An endgame search stores its empties as its depth; less is a midgame search.
    ControlFlow::Continue(if en.depth as u32 >= e {
        (alpha, beta, en.best, NO_MOVE)
    } else {
        (alpha, beta, NO_MOVE, en.best)
    })
}

/// Enhanced transposition cutoff: the score (at least `beta`) that a child's table entry
/// `en` proves for a node of `e` empties searched at selectivity `level`, if it does.
#[inline(always)]
fn refutes(en: Option<Entry>, e: u32, level: u8, beta: i32) -> Option<i32> {
    let en = en?;
    let v = -(en.upper as i32);
    (en.depth as u32 + 1 >= e && en.selectivity >= level && v >= beta).then_some(v)
}

/// The kernel's `solve_local` for `b` (with `e` empties and the legal moves `moves`); `simd`
/// selects the compiled version and must be one that [`Simd::available`] lists.
#[inline]
#[allow(clippy::too_many_arguments)]
fn solve_local(
    b: Board,
    moves: u64,
    alpha: i32,
    beta: i32,
    e: u32,
    t: &LocalTable,
    search: u32,
    level: u8,
    nodes: &mut u64,
    simd: Simd,
) -> i32 {
    let (p, o, empties) = (b.player, b.opponent, b.empties());
    with_kernel!(simd, k => k::solve_local(p, o, alpha, beta, empties, moves, e, t, search, level, nodes))
}

impl Searcher<'_> {
    /// Exact score of `b` in the window `(alpha, beta)`, fail-soft.
    pub fn end(&mut self, b: Board, alpha: i32, beta: i32) -> i32 {
        self.end_moves(b, b.moves(), alpha, beta)
    }

    /// [`Searcher::end`] of a board whose legal moves (`moves`) are known.
    pub(super) fn end_moves(&mut self, b: Board, moves: u64, alpha: i32, beta: i32) -> i32 {
        let e = b.empty_count();
        if e <= SHALLOW_EMPTIES {
            if e == 0 {
                self.visit();
                return b.final_score();
            }
            let mut nodes = 0;
            let v = shallow::solve(
                b.player,
                b.opponent,
                alpha,
                beta,
                b.empties(),
                moves,
                &mut nodes,
                self.sh.simd,
            );
            self.add_nodes(nodes);
            return v;
        }
        if e <= LOCAL_EMPTIES {
            let mut nodes = 0;
            let v = with_local(|t| {
                solve_local(
                    b,
                    moves,
                    alpha,
                    beta,
                    e,
                    t,
                    self.sh.search,
                    self.level,
                    &mut nodes,
                    self.sh.simd,
                )
            });
            self.add_nodes(nodes);
            return v;
        }
        self.end_deep(b, moves, alpha, beta, e)
    }

    /// Larger endgames: move list with fastest-first ordering, hash, stability, splits.
    fn end_deep(&mut self, b: Board, moves: u64, alpha: i32, beta: i32, e: u32) -> i32 {
        if self.visit() {
            return 0;
        }
        if moves == 0 {
            let replies = b.opponent_moves();
            if replies == 0 {
                return b.final_score();
            }
            return -self.end_deep(b.passed(), replies, -beta, -alpha, e);
        }
        // Stability cutoff: the opponent's stable discs bound our score from above.
        if let Some(max) = stability_cutoff(b.player, b.opponent, alpha, stable_discs_until) {
            return max;
        }
        if self.level < NO_SELECTIVITY && e >= PROBCUT_EMPTIES {
            if let Some(v) = self.end_probcut(b, alpha, beta, e) {
                return v;
            }
            if self.stopped {
                return 0;
            }
        }
        let hash = b.hash();
        let (alpha, beta, tt_move, hint) =
            match from_table(self.probe_table(hash, e), e, self.level, alpha, beta) {
                ControlFlow::Break(v) => return v,
                ControlFlow::Continue(x) => x,
            };
        let mut list = MoveList::new();
        let odd = odd_quadrants(b.empties());
        children(&b, moves, odd, tt_move, &mut list, self.sh.simd);
        let list = list.as_mut_slice();
        if let Some(x) = list.iter_mut().find(|x| x.sq == hint) {
            x.key += MIDGAME_MOVE_BONUS;
        }
        // Enhanced transposition cutoff: a child already known to refute the window. Done
        // before the ordering, which may cost a search per move. (Nodes here have more than
        // LOCAL_EMPTIES, so at least ETC_EMPTIES, empties.)
        if e > HASH_EMPTIES {
            // The children's entries are in the shared table: start all their loads
            // before waiting on the first.
            for c in list.iter() {
                self.sh.tt.prefetch(c.board.hash());
            }
        }
        for c in list.iter() {
            let en = self.probe_table(c.board.hash(), e - 1);
            if let Some(v) = refutes(en, e, self.level, beta) {
                self.store_table(hash, e, alpha, beta, v, c.sq);
                return v;
            }
        }
        if e >= SEARCH_ORDER_EMPTIES {
            for x in list.iter_mut().filter(|x| x.sq != tt_move) {
                x.key -= self.mid(x.board, -64, 64, 1) * SEARCH_ORDER_WEIGHT;
            }
        } else if e >= EVAL_ORDER_EMPTIES {
            let after = self.sh.eval.after(&b);
            for x in list.iter_mut().filter(|x| x.sq != tt_move) {
                x.key -= after.evaluate_with_moves(&x.board, x.moves) * EVAL_ORDER_WEIGHT;
            }
        }
        let (best, best_move) =
            self.search_moves(list, alpha, beta, e >= SPLIT_EMPTIES, |s, c, a, bt| {
                s.end_moves(c.board, c.moves, a, bt)
            });
        if self.stopped {
            return 0;
        }
        self.store_table(hash, e, alpha, beta, best, best_move);
        best
    }

    /// The table entry of a position with `e` empties: in the shared table from
    /// [`HASH_EMPTIES`] on, below in the thread's own.
    #[inline]
    fn probe_table(&self, hash: u64, e: u32) -> Option<Entry> {
        if e >= HASH_EMPTIES {
            self.sh.tt.probe(hash)
        } else {
            with_local(|t| t.probe(hash, self.sh.search))
        }
    }

    /// Stores a result of a position with `e` empties in the table that
    /// [`Searcher::probe_table`] reads.
    #[inline]
    fn store_table(&self, hash: u64, e: u32, alpha: i32, beta: i32, score: i32, best: u8) {
        if e >= HASH_EMPTIES {
            self.sh
                .tt
                .store(hash, e as u8, self.level, alpha, beta, score, best);
        } else {
            let search = self.sh.search;
            let level = self.level;
            with_local(|t| t.store(hash, search, e as u8, level, alpha, beta, score, best));
        }
    }

    /// Probcut in a selective endgame search: a shallow midgame search predicts that the
    /// exact score falls outside the window. Returns the bound to return, if any.
    fn end_probcut(&mut self, b: Board, alpha: i32, beta: i32, e: u32) -> Option<i32> {
        let shallow = (e as i32 / 4).max(1) & !1;
        let sigma = self.sh.probcut.end_sigma(e, shallow);
        self.probcut_test(b, alpha, beta, shallow, sigma)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::rng::{Rng, random_board};

    #[test]
    fn odd_quadrants_hold_the_empties_of_odd_quadrants() {
        const QUADRANTS: [u64; 4] = [
            0x0000_0000_0F0F_0F0F,
            0x0000_0000_F0F0_F0F0,
            0x0F0F_0F0F_0000_0000,
            0xF0F0_F0F0_0000_0000,
        ];
        let mut rng = Rng::new(0x0123_4567_89AB_CDEF);
        for i in 0..10_000 {
            // Sparse and dense sets of empties.
            let empties = match i % 3 {
                0 => rng.next_u64(),
                1 => rng.next_u64() & rng.next_u64() & rng.next_u64(),
                _ => rng.next_u64() | rng.next_u64(),
            };
            let mask: u64 = QUADRANTS
                .iter()
                .filter(|&&q| (empties & q).count_ones() % 2 == 1)
                .fold(0, |m, &q| m | q);
            assert_eq!(odd_quadrant_mask(empties), mask, "{empties:x}");
            assert_eq!(odd_quadrants(empties), mask & empties);
        }
    }

    /// The kernel's `solve_local` on a board: the score and the node count, in a search of
    /// its own number (so that no earlier entry of the thread's table is used).
    fn local_board(b: &Board, alpha: i32, beta: i32, simd: Simd, search: u32) -> (i32, u64) {
        let mut nodes = 0;
        let e = b.empty_count();
        let v = with_local(|t| {
            solve_local(
                *b,
                b.moves(),
                alpha,
                beta,
                e,
                t,
                search,
                NO_SELECTIVITY,
                &mut nodes,
                simd,
            )
        });
        (v, nodes)
    }

    /// The solver below the shared table against plain alpha-beta, in windows on both sides
    /// of the score and around it; every compiled version gives the same scores and node
    /// counts.
    #[test]
    fn local_solver_matches_reference_and_paths_agree() {
        let mut rng = Rng::new(0x6A09_E667_F3BC_C908);
        let mut search = 0x00AB_0000;
        let mut tried = 0;
        while tried < 120 {
            let target = SHALLOW_EMPTIES + 1 + rng.below(4) as u32;
            let b = random_board(&mut rng, target);
            if b.empty_count() <= SHALLOW_EMPTIES {
                continue;
            }
            tried += 1;
            let exact = crate::search::reference_score(b, -64, 64);
            for (alpha, beta) in [(-64, 64), (exact - 1, exact + 1), (-1, 0), (0, 1), (8, 9)] {
                search += 1;
                let (v, n) = local_board(&b, alpha, beta, Simd::Portable, search);
                if v <= alpha {
                    assert!(exact <= v, "{b:?} ({alpha}, {beta}): {v} vs {exact}");
                } else if v >= beta {
                    assert!(exact >= v, "{b:?} ({alpha}, {beta}): {v} vs {exact}");
                } else {
                    assert_eq!(v, exact, "{b:?} ({alpha}, {beta})");
                }
                for simd in Simd::available() {
                    search += 1;
                    let fast = local_board(&b, alpha, beta, simd, search);
                    assert_eq!(fast, (v, n), "{b:?} {simd:?}");
                }
            }
        }
    }

    #[test]
    fn fast_and_portable_children_agree() {
        if Simd::available().len() == 1 {
            eprintln!("no x86-64 fast path on this CPU: nothing to compare");
            return;
        }
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for _ in 0..500 {
            let target = 4 + rng.below(50) as u32;
            let b = random_board(&mut rng, target);
            let odd = odd_quadrants(b.empties());
            let first = Square::iter(b.moves())
                .next()
                .map_or(NO_MOVE, |s| s.index() as u8);
            let mut l1 = MoveList::new();
            children(&b, b.moves(), odd, first, &mut l1, Simd::Portable);
            let l1 = l1.as_mut_slice();
            assert_eq!(l1.len(), b.moves().count_ones() as usize);
            for simd in Simd::available() {
                let mut l2 = MoveList::new();
                children(&b, b.moves(), odd, first, &mut l2, simd);
                assert_eq!(l1, l2.as_mut_slice(), "{simd:?}");
            }
            for c in l1.iter() {
                let s = Square::new(c.sq).unwrap();
                assert_eq!(Some(c.board), b.play(s).ok());
                assert_eq!(c.moves, c.board.moves());
            }
        }
    }
}
