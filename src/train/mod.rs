//! The training pipeline of the evaluation: from game records to a weights file.
//!
//! - [`data`]: reads WTHOR files (the French Othello Federation's tournament database, and
//!   self-play games written in the same format), replays the games and labels their
//!   positions: exact solves for the late ones, the game's theoretical or final result for the
//!   rest. Writes and reads sample files.
//! - [`selfplay`]: games of the engine against itself from randomised openings.
//! - [`fit`]: per-phase ridge regression of the pattern weights by preconditioned conjugate
//!   gradients on both cores, reproducible.
//! - [`error`]: mean absolute error per phase on a held-out split.
//! - [`probcut`]: Multi-ProbCut regressions from pairs of shallow and deep searches.
//!
//! Every step is deterministic: the same inputs and seed give the same bytes.

use crate::board::{Board, Square};

pub mod data;
pub mod error;
pub mod fit;
pub mod probcut;
pub mod selfplay;

/// A small, fast, seedable random generator (SplitMix64), so that runs are reproducible
/// without a dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A position reached by random moves from the start, stopped at `empties` empty squares
/// (or earlier, when the game ends).
pub fn random_board(rng: &mut Rng, empties: u32) -> Board {
    let mut b = Board::start();
    while b.empty_count() > empties && !b.is_game_over() {
        b = match b.moves() {
            0 => b.passed(),
            m => {
                let sq = Square::new(random_bit(rng, m) as u8).expect("a square");
                b.play(sq).expect("a legal move")
            }
        };
    }
    b
}

/// A square picked uniformly from a non-empty bit set.
pub fn random_bit(rng: &mut Rng, set: u64) -> usize {
    let n = rng.below(set.count_ones() as u64);
    let mut m = set;
    for _ in 0..n {
        m &= m - 1;
    }
    m.trailing_zeros() as usize
}
