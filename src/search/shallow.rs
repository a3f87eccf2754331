//! The last few empties of the exact solver: no move list, no hash, empties tried in parity
//! order, the last one scored by its flip count alone.
//!
//! This is where most endgame nodes are, so it is compiled three times: portable; for
//! x86-64 CPUs with POPCNT, LZCNT, BMI and AVX2 (AVX2 flips, and the last flip count read
//! from a table indexed with `pext`; chosen at run time, see
//! [`crate::board::fast_path_available`]); and with AVX-512 flips and mobility where the CPU
//! has them (see [`Simd`]). The tests check that all give the same scores and node counts.

use crate::board::{Simd, odd_quadrant_mask};

/// Stability cutoff for the side to move (`p`): the opponent's stable discs bound the score
/// from above; returns that bound when it is at most `alpha`. Stable discs are counted only
/// when the opponent has enough discs for the bound to reach `alpha`, and only until there
/// are enough, by `stable` (a version of [`stable_discs_until`]).
#[inline(always)]
pub(super) fn stability_cutoff(
    p: u64,
    o: u64,
    alpha: i32,
    stable: impl FnOnce(u64, u64, u32) -> u64,
) -> Option<i32> {
    if alpha < 0 || 64 - 2 * (o.count_ones() as i32) > alpha {
        return None;
    }
    // The cut needs 64 - 2 * stable <= alpha, that is stable >= (65 - alpha) / 2.
    let enough = ((65 - alpha) / 2) as u32;
    let max = 64 - 2 * stable(o, p, enough).count_ones() as i32;
    (max <= alpha).then_some(max)
}

/// Final score of a full (or blocked) board: empties go to the winner.
#[inline(always)]
pub(super) fn final_score(p: u64, o: u64) -> i32 {
    crate::board::Board::new(p, o).final_score()
}

/// The squares around each square: a move needs an opponent disc among them.
static NEIGHBOURS: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (nc, nr) = (c + dc, r + dr);
                if (dc != 0 || dr != 0) && nc >= 0 && nc < 8 && nr >= 0 && nr < 8 {
                    t[sq] |= 1u64 << (nr * 8 + nc);
                }
                dc += 1;
            }
            dr += 1;
        }
        sq += 1;
    }
    t
};

/// The quadrant of each square, as a mask: a move there flips that quadrant's parity.
static QUADRANT: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let q = if sq % 8 < 4 { 0x0F0F_0F0F } else { 0xF0F0_F0F0 };
        t[sq] = if sq < 32 { q } else { q << 32 };
        sq += 1;
    }
    t
};

/// Generates the recursive solver with the given function attributes.
macro_rules! shallow_kernel {
    ($(#[$attr:meta])*) => {
        /// Exact score in `(alpha, beta)`, fail-soft, of the position with `empties` left;
        /// counts its nodes into `nodes`. `parity` is [`odd_quadrant_mask`] of `empties`,
        /// kept up to date move by move; `cand` the squares that may be moves (`empties`,
        /// or the legal moves when known).
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        pub(super) fn solve(
            p: u64,
            o: u64,
            alpha: i32,
            beta: i32,
            empties: u64,
            parity: u64,
            cand: u64,
            nodes: &mut u64,
        ) -> i32 {
            use super::{NEIGHBOURS, QUADRANT};
            use crate::search::shallow::final_score;
            *nodes += 1;
            if empties & (empties - 1) == 0 {
                return last_empty(p, o, empties.trailing_zeros() as usize);
            }
            let n = empties.count_ones();
            if n == 2 {
                return two_empties(p, o, beta, empties, nodes);
            }
            // Three or more empties from here on.
            if let Some(max) = stability_cut(p, o, alpha) {
                return max;
            }
            let odd = parity & cand;
            let mut best = -65;
            let mut a = alpha;
            for set in [odd, cand & !odd] {
                let mut m = set;
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if o & NEIGHBOURS[sq] == 0 {
                        continue;
                    }
                    let f = flips(p, o, sq);
                    if f == 0 {
                        continue;
                    }
                    let bit = 1u64 << sq;
                    let v = if n == 3 {
                        // The child has two empties: no need to find that out again.
                        *nodes += 1;
                        -two_empties(o ^ f, p ^ f ^ bit, -a, empties ^ bit, nodes)
                    } else {
                        let np = parity ^ QUADRANT[sq];
                        -solve(o ^ f, p ^ f ^ bit, -beta, -a, empties ^ bit, np, empties ^ bit, nodes)
                    };
                    if v > best {
                        best = v;
                        if v >= beta {
                            return v;
                        }
                        if v > a {
                            a = v;
                        }
                    }
                }
            }
            if best == -65 {
                // No move: pass, or the game is over.
                if has_move(o, p, empties) {
                    return -solve(o, p, -beta, -alpha, empties, parity, empties, nodes);
                }
                return final_score(p, o);
            }
            best
        }

        /// Like [`solve`], for five or more empties, given the legal moves: the moves are
        /// tried fastest first (fewest replies for the opponent, then odd regions first),
        /// each searched with [`solve`].
        $(#[$attr])*
        pub(in crate::search) fn solve_sorted(
            p: u64,
            o: u64,
            alpha: i32,
            beta: i32,
            empties: u64,
            moves: u64,
            nodes: &mut u64,
        ) -> i32 {
            use super::{QUADRANT, odd_quadrant_mask};
            use crate::board::Board;
            use crate::search::shallow::final_score;
            use crate::search::pvs::{Child, MoveList, select};
            *nodes += 1;
            if let Some(max) = stability_cut(p, o, alpha) {
                return max;
            }
            let parity = odd_quadrant_mask(empties);
            let odd = parity & empties;
            // Keys: fewest replies first, then moves into odd regions; on a tie the order of
            // the squares.
            let mut list = MoveList::new();
            let mut m = moves;
            while m != 0 {
                let sq = m.trailing_zeros();
                m &= m - 1;
                let (np, no, r) = play_and_moves(p, o, sq as usize);
                let key = -((r.count_ones() * 2 + (((odd >> sq) & 1) ^ 1) as u32) as i32);
                list.push(Child { key, sq: sq as u8, board: Board::new(np, no), moves: r });
            }
            let list = list.as_mut_slice();
            if list.is_empty() {
                let replies = legal_moves(o, p);
                if replies != 0 {
                    return -solve_sorted(o, p, -beta, -alpha, empties, replies, nodes);
                }
                return final_score(p, o);
            }
            let mut best = -65;
            let mut a = alpha;
            for i in 0..list.len() {
                let c = select(list, i);
                let q = parity ^ QUADRANT[c.sq as usize];
                let (np, no) = (c.board.player, c.board.opponent);
                let v = -solve(np, no, -beta, -a, empties ^ (1u64 << c.sq), q, c.moves, nodes);
                if v > best {
                    best = v;
                    if v >= beta {
                        return v;
                    }
                    if v > a {
                        a = v;
                    }
                }
            }
            best
        }

        /// [`crate::search::shallow::stability_cutoff`] with this version's stability test.
        $(#[$attr])*
        #[inline]
        pub(in crate::search) fn stability_cut(p: u64, o: u64, alpha: i32) -> Option<i32> {
            let stable = |a, b, n| stable_discs_until(a, b, n);
            crate::search::shallow::stability_cutoff(p, o, alpha, stable)
        }

        /// Score when exactly one square `sq` is empty.
        $(#[$attr])*
        #[inline]
        fn last_empty(p: u64, o: u64, sq: usize) -> i32 {
            let pc = p.count_ones() as i32;
            let f = last_flip_count(p, o, sq);
            if f > 0 {
                return 2 * (pc + f + 1) - 64;
            }
            let f2 = last_flip_count(o, p, sq);
            if f2 > 0 {
                return 2 * (pc - f2) - 64;
            }
            let diff = 2 * pc - 63;
            if diff > 0 { diff + 1 } else { diff - 1 }
        }

        /// True when the side to move (`p`) has a move on one of `empties`.
        $(#[$attr])*
        #[inline]
        fn has_move(p: u64, o: u64, empties: u64) -> bool {
            let mut e = empties;
            while e != 0 {
                let sq = e.trailing_zeros() as usize;
                e &= e - 1;
                if flips(p, o, sq) != 0 {
                    return true;
                }
            }
            false
        }

        /// Exact score with two empties: each move leads to a last-empty score.
        $(#[$attr])*
        fn two_empties(p: u64, o: u64, beta: i32, empties: u64, nodes: &mut u64) -> i32 {
            use crate::search::shallow::final_score;
            let x1 = empties.trailing_zeros() as usize;
            let x2 = 63 - empties.leading_zeros() as usize;
            let mut best = -65;
            let f = flips(p, o, x1);
            if f != 0 {
                *nodes += 1;
                best = -last_empty(o ^ f, p ^ f ^ (1u64 << x1), x2);
                if best >= beta {
                    return best;
                }
            }
            let f = flips(p, o, x2);
            if f != 0 {
                *nodes += 1;
                best = best.max(-last_empty(o ^ f, p ^ f ^ (1u64 << x2), x1));
            }
            if best > -65 {
                return best;
            }
            // Pass: the opponent picks the move worst for us.
            let mut worst = 65;
            let f = flips(o, p, x1);
            if f != 0 {
                *nodes += 1;
                worst = last_empty(p ^ f, o ^ f ^ (1u64 << x1), x2);
            }
            let f = flips(o, p, x2);
            if f != 0 {
                *nodes += 1;
                worst = worst.min(last_empty(p ^ f, o ^ f ^ (1u64 << x2), x1));
            }
            if worst < 65 { worst } else { final_score(p, o) }
        }
    };
}

pub(super) mod portable {
    use crate::board::{flips, legal_moves, play_and_moves, stable_discs_until};

    /// How many discs a move of `p` on `sq` flips.
    #[inline(always)]
    fn last_flip_count(p: u64, o: u64, sq: usize) -> i32 {
        flips(p, o, sq).count_ones() as i32
    }

    shallow_kernel!();
}

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    use super::{LINE_FLIPS, LINES};
    use crate::board::avx2::{flips, legal_moves, play_and_moves};
    use crate::board::stability::x86::stable_discs_until;
    use std::arch::x86_64::_pext_u64;

    /// How many discs a move of `p` on `sq` flips, when `sq` is the only empty square: the
    /// discs of `p` on each of the four lines through `sq`, gathered with `pext`, index a
    /// table of flip counts (the other squares of the line are all the opponent's).
    #[inline]
    #[target_feature(enable = "bmi2")]
    pub(super) fn last_flip_count(p: u64, _o: u64, sq: usize) -> i32 {
        let mut n = 0;
        for &(mask, pos) in &LINES[sq] {
            n += LINE_FLIPS[pos as usize][_pext_u64(p, mask) as usize];
        }
        n as i32
    }

    shallow_kernel!(#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]);
}

/// The x86-64 kernel with AVX-512 flips and mobility (see [`Simd::Avx512`]).
#[cfg(target_arch = "x86_64")]
pub(super) mod x86_512 {
    use super::x86::last_flip_count;
    use crate::board::avx512::{flips, legal_moves, play_and_moves};
    use crate::board::stability::x86::stable_discs_until;

    shallow_kernel!(#[target_feature(
        enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd"
    )]);
}

/// The four lines through each square (row, column, both diagonals), each as its squares
/// and the place of the square among them (counted from the lowest square).
#[cfg(target_arch = "x86_64")]
static LINES: [[(u64, u8); 4]; 64] = {
    let mut t = [[(0u64, 0u8); 4]; 64];
    let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut k = 0;
        while k < 4 {
            let (dc, dr) = dirs[k];
            // Walk back to the start of the line, then along it.
            let (mut x, mut y) = (c, r);
            while x - dc >= 0 && x - dc < 8 && y - dr >= 0 && y - dr < 8 {
                x -= dc;
                y -= dr;
            }
            let mut mask = 0u64;
            while x >= 0 && x < 8 && y >= 0 && y < 8 {
                mask |= 1u64 << (y * 8 + x);
                x += dc;
                y += dr;
            }
            let below = mask & ((1u64 << sq) - 1);
            t[sq][k] = (mask, below.count_ones() as u8);
            k += 1;
        }
        sq += 1;
    }
    t
};

/// `LINE_FLIPS[pos][discs]`: how many discs a move at place `pos` of a line flips when the
/// player's discs on the line are `discs` (bit i for place i) and the line's other squares are
/// the opponent's. Places beyond the line's end read as the opponent's discs with no
/// player's disc behind them, so they never flip.
#[cfg(target_arch = "x86_64")]
static LINE_FLIPS: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut pos = 0;
    while pos < 8 {
        let mut discs = 0;
        while discs < 256 {
            let mut n = 0;
            // Upwards.
            let mut i = pos + 1;
            while i < 8 && discs >> i & 1 == 0 {
                i += 1;
            }
            if i < 8 {
                n += i - pos - 1;
            }
            // Downwards.
            let mut i = pos as i32 - 1;
            while i >= 0 && discs >> i & 1 == 0 {
                i -= 1;
            }
            if i >= 0 {
                n += pos - i as usize - 1;
            }
            t[pos][discs] = n as u8;
            discs += 1;
        }
        pos += 1;
    }
    t
};

/// From this many empties on, the small solver orders its moves fastest first.
const SORTED_EMPTIES: u32 = 5;

/// Exact score of a small endgame (`empties` as a mask, at least one; `moves` the legal
/// moves of `p`) in `(alpha, beta)`, fail-soft; adds its nodes to `nodes`. `simd` selects the
/// compiled version and must be one that [`Simd::available`] lists.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    p: u64,
    o: u64,
    alpha: i32,
    beta: i32,
    empties: u64,
    moves: u64,
    nodes: &mut u64,
    simd: Simd,
) -> i32 {
    let sorted = empties.count_ones() >= SORTED_EMPTIES;
    with_kernel!(simd, k => if sorted {
        k::solve_sorted(p, o, alpha, beta, empties, moves, nodes)
    } else {
        let parity = odd_quadrant_mask(empties);
        k::solve(p, o, alpha, beta, empties, parity, moves, nodes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::fast_path_available;
    use crate::rng::{Rng, random_board};

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn last_flip_count_matches_flips() {
        if !fast_path_available() {
            eprintln!("no x86-64 fast path on this CPU: nothing to compare");
            return;
        }
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for i in 0..20_000 {
            let sq = i % 64;
            let p = rng.next_u64() & !(1u64 << sq);
            let o = !p & !(1u64 << sq);
            for (a, b) in [(p, o), (o, p)] {
                // SAFETY: the fast path (with BMI2) is available.
                let n = unsafe { x86::last_flip_count(a, b, sq) };
                assert_eq!(
                    n,
                    crate::board::flips(a, b, sq).count_ones() as i32,
                    "{a:x} {sq}"
                );
            }
        }
    }

    #[test]
    fn a_move_flips_its_quadrants_parity() {
        let mut rng = Rng::new(0x1F2E_3D4C_5B6A_7988);
        for i in 0..5_000 {
            let empties = rng.next_u64() | 1u64 << (i % 64);
            let sq = i % 64;
            let after = odd_quadrant_mask(empties ^ 1u64 << sq);
            assert_eq!(after, odd_quadrant_mask(empties) ^ QUADRANT[sq]);
        }
    }

    /// [`solve`] on a board: the score and the node count.
    fn solve_board(b: &crate::board::Board, alpha: i32, beta: i32, simd: Simd) -> (i32, u64) {
        let mut n = 0;
        let (p, o) = (b.player, b.opponent);
        let v = solve(p, o, alpha, beta, b.empties(), b.moves(), &mut n, simd);
        (v, n)
    }

    /// The small solver against plain alpha-beta, in windows on both sides of the score and
    /// around it: an exact score inside the window, a true bound outside it.
    #[test]
    fn matches_reference_in_every_window() {
        let mut rng = Rng::new(0x5DEE_CE66_D1CE_4E5B);
        for _ in 0..400 {
            let target = 3 + rng.below(5) as u32;
            let b = random_board(&mut rng, target);
            if b.empty_count() == 0 {
                continue;
            }
            let exact = crate::search::reference_score(b, -64, 64);
            for simd in Simd::available() {
                for (alpha, beta) in [(-64, 64), (exact - 1, exact + 1), (-1, 0), (0, 1), (8, 9)] {
                    let (v, _) = solve_board(&b, alpha, beta, simd);
                    if v <= alpha {
                        assert!(exact <= v, "{b:?} ({alpha}, {beta}): {v} vs {exact}");
                    } else if v >= beta {
                        assert!(exact >= v, "{b:?} ({alpha}, {beta}): {v} vs {exact}");
                    } else {
                        assert_eq!(v, exact, "{b:?} ({alpha}, {beta})");
                    }
                }
            }
        }
    }

    #[test]
    fn fast_and_portable_agree() {
        if Simd::available().len() == 1 {
            eprintln!("no x86-64 fast path on this CPU: nothing to compare");
            return;
        }
        let mut rng = Rng::new(0x0DDB_1A5E_5BAD_5EED);
        for _ in 0..300 {
            let target = 1 + rng.below(7) as u32;
            let b = random_board(&mut rng, target);
            if b.empty_count() == 0 {
                continue;
            }
            for (alpha, beta) in [(-64, 64), (-1, 0), (3, 4), (-10, -9)] {
                let portable = solve_board(&b, alpha, beta, Simd::Portable);
                for simd in Simd::available() {
                    assert_eq!(solve_board(&b, alpha, beta, simd), portable, "{simd:?}");
                }
            }
        }
    }
}
