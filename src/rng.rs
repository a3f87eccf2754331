//! The one random generator of the crate (SplitMix64): seedable, so that self-play,
//! training and match schedules are reproducible, and seeded from the clock where variety is
//! wanted (the book moves a front-end picks).

use crate::board::{Board, Square};

/// A small, fast, seedable random generator (SplitMix64), so that runs are reproducible
/// without a dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// A generator whose state is `state` as given (no mixing with a constant): the
    /// sequence of plain SplitMix64 from `state`.
    pub fn from_state(state: u64) -> Rng {
        Rng(state)
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

    /// Shuffles `v` (Fisher-Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A position reached by random moves from the start, stopped at `empties` empty squares
/// (or earlier, when the game ends).
pub fn random_board(rng: &mut Rng, empties: u32) -> Board {
    random_walk(rng, Board::start(), empties)
}

/// The position reached by random moves from `from` (passes played where needed), stopped
/// at `empties` empty squares (or earlier, when the game ends).
pub fn random_walk(rng: &mut Rng, from: Board, empties: u32) -> Board {
    let mut b = from;
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

/// A seed that differs from run to run (the time and the process id), for the book's random
/// picks.
pub fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ ((std::process::id() as u64) << 32)
}
