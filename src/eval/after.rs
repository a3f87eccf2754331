//! Evaluating every position one move after a given one, as the searches' move ordering
//! does: the pattern indices are computed once, from the side that will be to move after
//! the move, and each move's position is scored by updating only the digits of the squares
//! the move changes (the square played and the discs it flips), as Edax and Logistello
//! update their patterns move by move.

use super::pattern::{INSTANCE_COUNT, Transforms, instances, pow3};
use super::{INSTANCE_OFFSETS, Weights, bias_index, fast_eval, indices, legal, mobility_entry};
#[cfg(target_arch = "x86_64")]
use crate::board::avx2;
use crate::board::{Board, play_and_moves};
use std::sync::OnceLock;

/// 64-bit words holding the 16-bit indices of the instances, four to a word: an index never
/// reaches 2^16 (at most 3^10), so adding the words adds the indices.
const WORDS: usize = INSTANCE_COUNT.div_ceil(4);

/// What a disc on each square adds to the pattern indices: for each square, 3 to the power
/// of its digit in every instance it belongs to (0 elsewhere), and the set of those
/// instances.
#[repr(C, align(32))]
struct SquareTerms {
    digits: [[u64; WORDS]; 64],
    touched: [u64; 64],
}

/// The [`SquareTerms`] of the pattern set, built once.
fn square_terms() -> &'static SquareTerms {
    static CELL: OnceLock<SquareTerms> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut t = SquareTerms {
            digits: [[0; WORDS]; 64],
            touched: [0; 64],
        };
        for (k, inst) in instances().iter().enumerate() {
            for (digit, sq) in inst.squares.iter().enumerate() {
                t.digits[sq.index()][k / 4] |= (pow3(digit) as u64) << (16 * (k % 4));
                t.touched[sq.index()] |= 1 << k;
            }
        }
        t
    })
}

/// The evaluations of the positions one move after a position (see the module's
/// documentation); made by [`Weights::after`].
pub struct AfterMove<'a> {
    /// The weights of the children's phase, and its block of optional terms.
    block: &'a [i16],
    whole: &'a super::Terms,
    whole_block: &'a [i16],
    /// The position the moves are played from.
    player: u64,
    opponent: u64,
    /// Its pattern indices seen by `opponent`, the side to move after a move, packed.
    idx: [u64; WORDS],
    /// Their weights, and the sum of those.
    weight: [i16; INSTANCE_COUNT],
    sum: i32,
    terms: &'static SquareTerms,
    fast: bool,
}

impl Weights {
    /// Prepares the evaluation of the positions one move after `board`
    /// ([`AfterMove::evaluate`]).
    pub fn after(&self, board: &Board) -> AfterMove<'_> {
        let fast = fast_eval();
        let mut idx = [0u16; INSTANCE_COUNT];
        let (p, o) = (board.opponent, board.player);
        #[cfg(target_arch = "x86_64")]
        if fast {
            // SAFETY: the CPU has the features of the x86-64 path.
            unsafe { indices_x86(p, o, &mut idx) };
        } else {
            indices::<false>(p, o, &mut idx);
        }
        #[cfg(not(target_arch = "x86_64"))]
        indices::<false>(p, o, &mut idx);
        let phase = self.phase(board.empty_count().saturating_sub(1));
        let block = self.block(phase);
        let mut packed = [0u64; WORDS];
        let mut weight = [0i16; INSTANCE_COUNT];
        let mut sum = 0;
        for (k, &i) in idx.iter().enumerate() {
            packed[k / 4] |= (i as u64) << (16 * (k % 4));
            weight[k] = block[INSTANCE_OFFSETS[k] as usize + i as usize];
            sum += weight[k] as i32;
        }
        AfterMove {
            block,
            whole: self.terms(),
            whole_block: self.terms_block(phase),
            player: board.player,
            opponent: board.opponent,
            idx: packed,
            weight,
            sum,
            terms: square_terms(),
            fast,
        }
    }
}

/// [`indices`] compiled for x86-64 CPUs with BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn indices_x86(p: u64, o: u64, out: &mut [u16; INSTANCE_COUNT]) {
    indices::<true>(p, o, out)
}

impl AfterMove<'_> {
    /// [`Weights::evaluate`] of `child`, a position one move after the prepared one: the
    /// same value, for less work.
    #[inline(always)]
    pub fn evaluate(&self, child: &Board) -> i32 {
        super::discs(self.evaluate_units(child, None))
    }

    /// [`AfterMove::evaluate`] of a `child` whose side to move has the legal moves `moves`.
    #[inline(always)]
    pub fn evaluate_with_moves(&self, child: &Board, moves: u64) -> i32 {
        super::discs(self.evaluate_units(child, Some(moves)))
    }

    /// The best value of a move for the side to move in the prepared position: the highest
    /// of its children's evaluations negated, over the legal moves `moves`, in square order,
    /// stopping at the first that reaches `beta` (a search's last ply). Counts the children
    /// evaluated into `nodes`.
    #[inline]
    pub fn best(&self, moves: u64, beta: i32, nodes: &mut u64) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if self.fast {
            // SAFETY: `fast` is only set when the CPU has the x86-64 path's features.
            return unsafe { self.best_x86(moves, beta, nodes) };
        }
        self.best_of::<false>(moves, beta, nodes)
    }

    /// [`AfterMove::best_of`] compiled for x86-64 CPUs with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn best_x86(&self, moves: u64, beta: i32, nodes: &mut u64) -> i32 {
        self.best_of::<true>(moves, beta, nodes)
    }

    /// [`AfterMove::best`]; `FAST` takes the AVX2 flips and move generator.
    #[inline(always)]
    fn best_of<const FAST: bool>(&self, moves: u64, beta: i32, nodes: &mut u64) -> i32 {
        let mut best = -65;
        let mut m = moves;
        while m != 0 {
            let sq = m.trailing_zeros() as usize;
            m &= m - 1;
            let (p, o) = (self.player, self.opponent);
            let (np, no, replies) = {
                #[cfg(target_arch = "x86_64")]
                if FAST {
                    // SAFETY: FAST is only set in code compiled for AVX2.
                    unsafe { avx2::play_and_moves(p, o, sq) }
                } else {
                    play_and_moves(p, o, sq)
                }
                #[cfg(not(target_arch = "x86_64"))]
                play_and_moves(p, o, sq)
            };
            *nodes += 1;
            let v = -super::discs(self.units::<FAST>(&Board::new(np, no), Some(replies)));
            if v > best {
                best = v;
                if v >= beta {
                    break;
                }
            }
        }
        best
    }

    /// [`Weights::evaluate_units`] of `child` (see [`AfterMove::evaluate`]), with the legal
    /// moves of its side to move if known.
    #[inline]
    pub fn evaluate_units(&self, child: &Board, moves: Option<u64>) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if self.fast {
            // SAFETY: `fast` is only set when the CPU has the x86-64 path's features.
            return unsafe { self.units_x86(child, moves) };
        }
        self.units::<false>(child, moves)
    }

    /// [`AfterMove::units`] compiled for x86-64 CPUs with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn units_x86(&self, child: &Board, moves: Option<u64>) -> i32 {
        self.units::<true>(child, moves)
    }

    /// [`AfterMove::evaluate_units`]; `FAST` takes the AVX2 move generator.
    #[inline(always)]
    fn units<const FAST: bool>(&self, child: &Board, moves: Option<u64>) -> i32 {
        // The discs flipped turn from the child's side to move's (digit 1) to the other
        // side's (digit 2): one more; the square played from empty to the other side's:
        // two more.
        let flipped = self.opponent & !child.player;
        let played = child.opponent & !(self.player | flipped);
        debug_assert_eq!(played.count_ones(), 1, "not a child position");
        let t = self.terms;
        let sq = played.trailing_zeros() as usize;
        let mut idx = self.idx;
        let mut touched = t.touched[sq];
        for (i, &d) in idx.iter_mut().zip(&t.digits[sq]) {
            *i += 2 * d;
        }
        let mut f = flipped;
        while f != 0 {
            let sq = f.trailing_zeros() as usize;
            f &= f - 1;
            touched |= t.touched[sq];
            for (i, &d) in idx.iter_mut().zip(&t.digits[sq]) {
                *i += d;
            }
        }
        let mine = moves.unwrap_or_else(|| legal::<FAST>(child.player, child.opponent));
        let theirs = legal::<FAST>(child.opponent, child.player);
        let w = self.block;
        let mut sum =
            self.sum + w[bias_index(child)] as i32 + w[mobility_entry(mine, theirs)] as i32;
        if !self.whole.is_empty() {
            // The optional terms: whole-board numbers read off the child, and the pattern
            // terms' images with `pext` from the child's symmetric images (faster here than
            // updating their indices square by square as the classic patterns' are).
            sum += self
                .whole
                .whole_units(self.whole_block, child, mine, theirs);
            if self.whole.has_patterns() {
                let (tp, to) = (
                    Transforms::new(child.player),
                    Transforms::new(child.opponent),
                );
                sum += self
                    .whole
                    .pattern_units_with::<FAST>(self.whole_block, child, &tp, &to);
            }
        }
        while touched != 0 {
            let k = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            let i = (idx[k / 4] >> (16 * (k % 4))) as u16;
            sum += w[INSTANCE_OFFSETS[k] as usize + i as usize] as i32 - self.weight[k] as i32;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::shipped_weights;
    use crate::rng::{Rng, random_board};

    #[test]
    fn every_child_matches_the_full_evaluation() {
        let w = shipped_weights();
        let hand = Weights::hand_set();
        // One phase per number of empties: the children's block is not the parent's; and
        // with every optional term.
        let fine = crate::eval::tests::random_weights(1, 3);
        let whole = crate::eval::tests::random_weights_with(
            1,
            super::super::Terms::new(&super::super::Term::ALL),
            5,
        );
        let mut rng = Rng::new(0x5851_F42D_4C95_7F2D);
        let mut children = 0;
        for _ in 0..400 {
            let target = 1 + rng.below(59) as u32;
            let b = random_board(&mut rng, target);
            for weights in [&*w, &hand, &fine, &whole] {
                let after = weights.after(&b);
                for sq in crate::board::Square::iter(b.moves()) {
                    let c = b.play(sq).expect("a legal move");
                    let units = weights.evaluate_units(&c);
                    assert_eq!(after.evaluate_units(&c, None), units, "{b:?} {sq}");
                    assert_eq!(after.evaluate_units(&c, Some(c.moves())), units);
                    assert_eq!(after.evaluate(&c), weights.evaluate(&c));
                    assert_eq!(
                        after.evaluate_with_moves(&c, c.moves()),
                        weights.evaluate(&c)
                    );
                    children += 1;
                }
            }
        }
        assert!(children > 3000, "{children}");
    }

    #[test]
    fn best_is_the_best_child_up_to_beta() {
        let w = shipped_weights();
        let mut rng = Rng::new(0x1405_7B7E_F767_814F);
        for _ in 0..300 {
            let target = 1 + rng.below(59) as u32;
            let b = random_board(&mut rng, target);
            let moves = b.moves();
            if moves == 0 {
                continue;
            }
            let values: Vec<i32> = crate::board::Square::iter(moves)
                .map(|sq| -w.evaluate(&b.play(sq).expect("a legal move")))
                .collect();
            let max = *values.iter().max().expect("a move");
            for beta in [-64, max - 1, max, max + 1, 65] {
                let mut nodes = 0;
                let v = w.after(&b).best(moves, beta, &mut nodes);
                // Square order, stopping at the first value that reaches beta.
                let stop = values.iter().position(|&x| x >= beta);
                let seen = &values[..stop.map_or(values.len(), |i| i + 1)];
                assert_eq!(v, *seen.iter().max().expect("a move"), "{b:?} {beta}");
                assert_eq!(nodes, seen.len() as u64);
            }
        }
    }

    #[test]
    fn every_square_lists_its_patterns() {
        let t = square_terms();
        let total: u32 = t.touched.iter().map(|m| m.count_ones()).sum();
        let digits: usize = instances().iter().map(|i| i.squares.len()).sum();
        assert_eq!(total as usize, digits);
    }
}
