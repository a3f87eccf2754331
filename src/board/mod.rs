//! The board: two bitboards, moves and flips, passes, scores, hashing and symmetry.
//!
//! [`Board`] is relative to the side to move (`player` moves next, `opponent` waits); that is
//! what search wants. [`Position`] adds the colour of the side to move, which is what
//! notation and games need.

mod moves;
mod square;
pub mod stability;
mod symmetry;

use std::fmt;

#[cfg(target_arch = "x86_64")]
pub use moves::avx2;
#[cfg(target_arch = "x86_64")]
pub use moves::avx512;
pub use moves::{
    flips, flips_reference, legal_moves, legal_moves_reference, neighbours, odd_quadrant_mask,
    play_and_moves, potential_moves,
};
pub use square::{Square, SquareError, Squares};
pub use stability::{stable_discs, stable_discs_until};
pub use symmetry::{Symmetry, mirror_columns, transform, transpose};

/// True when this CPU has every feature the x86-64 fast paths are compiled for (POPCNT,
/// LZCNT, BMI1/2, AVX2), checked at run time, so that a binary built for the baseline never
/// runs an instruction the CPU lacks.
pub fn fast_path_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Which compiled version of the search kernels runs: portable, the x86-64 fast path
/// ([`fast_path_available`]), or that path with AVX-512 flips and move generation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Simd {
    /// Plain Rust, any CPU.
    Portable,
    /// POPCNT, LZCNT, BMI1/2 and AVX2.
    Avx2,
    /// The AVX2 path with AVX-512 F, VL and CD: mobility eight directions per instruction,
    /// flips with a leading-zero count for the rays running down, and the 256-bit code in
    /// masked forms that leave the upper halves of the 512-bit registers clean (so calls
    /// need no `vzeroupper` and spill less).
    Avx512,
}

impl Simd {
    /// The fastest version this CPU runs (checked at run time).
    pub fn detect() -> Simd {
        Simd::available().last().copied().unwrap_or(Simd::Portable)
    }

    /// Every version this CPU runs, the portable one first (for tests that compare them).
    pub fn available() -> Vec<Simd> {
        let mut v = vec![Simd::Portable];
        if fast_path_available() {
            v.push(Simd::Avx2);
            #[cfg(target_arch = "x86_64")]
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512cd")
            {
                v.push(Simd::Avx512);
            }
        }
        v
    }
}

/// A disc colour, also used for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// Black, who moves first.
    Black,
    /// White.
    White,
}

impl Color {
    /// The other colour.
    pub fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for black, 1 for white: the one place a colour becomes an array index (see
    /// [`ByColor`]).
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    /// `"black"` or `"white"`.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value for each colour, indexed by [`Color`]: `clocks[Color::White]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T>(pub [T; 2]);

impl<T> ByColor<T> {
    /// Black's value and White's.
    pub fn new(black: T, white: T) -> ByColor<T> {
        ByColor([black, white])
    }

    /// Each colour's value through `f`.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor(self.0.map(f))
    }
}

impl<T> std::ops::Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, c: Color) -> &T {
        &self.0[c.index()]
    }
}

impl<T> std::ops::IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, c: Color) -> &mut T {
        &mut self.0[c.index()]
    }
}

/// A move: a disc on a square, or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    /// Put a disc on this square.
    Play(Square),
    /// Pass (only legal when the side to move has no legal move and the game is not over).
    Pass,
}

impl fmt::Display for Move {
    /// A square in lower case (`f5`) or `PA` for a pass.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(s) => s.fmt(f),
            Move::Pass => f.write_str("PA"),
        }
    }
}

impl std::str::FromStr for Move {
    type Err = SquareError;

    /// Reads a square (`f5`, `F5`) or a pass (`PA`, `pass`, any case).
    fn from_str(s: &str) -> Result<Move, SquareError> {
        if s.eq_ignore_ascii_case("pa") || s.eq_ignore_ascii_case("pass") {
            Ok(Move::Pass)
        } else {
            s.parse().map(Move::Play)
        }
    }
}

/// The discs of the side to move (`player`) and of the other side (`opponent`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the side that moved last.
    pub opponent: u64,
}

/// Why a move could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The square is taken or outflanks nothing.
    Illegal(Square),
    /// A pass while the side to move has a legal move.
    PassWithMoves,
    /// A move after the game ended.
    GameOver,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Illegal(s) => write!(f, "illegal move {s}: it outflanks no disc"),
            MoveError::PassWithMoves => write!(f, "illegal pass: the side to move has a move"),
            MoveError::GameOver => write!(f, "illegal move: the game is over"),
        }
    }
}

impl std::error::Error for MoveError {}

impl Board {
    /// The standard start position, black to move: white d4 e5, black d5 e4.
    pub const fn start() -> Board {
        Board {
            player: (1 << 28) | (1 << 35),
            opponent: (1 << 27) | (1 << 36),
        }
    }

    /// A board from the two bitboards; they must not overlap.
    pub const fn new(player: u64, opponent: u64) -> Board {
        Board { player, opponent }
    }

    /// Empty squares.
    #[inline(always)]
    pub const fn empties(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// Number of empty squares.
    #[inline(always)]
    pub const fn empty_count(&self) -> u32 {
        self.empties().count_ones()
    }

    /// Legal moves of the side to move, as a mask.
    #[inline(always)]
    pub fn moves(&self) -> u64 {
        legal_moves(self.player, self.opponent)
    }

    /// Legal moves of the side that waits, as a mask.
    #[inline(always)]
    pub fn opponent_moves(&self) -> u64 {
        legal_moves(self.opponent, self.player)
    }

    /// Discs flipped by the side to move playing `sq` (0 when illegal).
    #[inline(always)]
    pub fn flips(&self, sq: Square) -> u64 {
        flips(self.player, self.opponent, sq.index())
    }

    /// The board after the side to move plays `sq`, which flips `flipped` (from
    /// [`Board::flips`]); the sides swap. No legality check.
    #[inline(always)]
    pub const fn play_flips(&self, sq: Square, flipped: u64) -> Board {
        Board {
            player: self.opponent ^ flipped,
            opponent: self.player ^ flipped ^ sq.bit(),
        }
    }

    /// The board after a pass: the sides swap.
    #[inline(always)]
    pub const fn passed(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// Plays `sq` for the side to move, or says why it is illegal.
    pub fn play(&self, sq: Square) -> Result<Board, MoveError> {
        let f = if self.empties() & sq.bit() != 0 {
            self.flips(sq)
        } else {
            0
        };
        if f == 0 {
            Err(MoveError::Illegal(sq))
        } else {
            Ok(self.play_flips(sq, f))
        }
    }

    /// Plays a move (a square or a pass), checking the rules.
    pub fn play_move(&self, mv: Move) -> Result<Board, MoveError> {
        if self.is_game_over() {
            return Err(MoveError::GameOver);
        }
        match mv {
            Move::Play(sq) => self.play(sq),
            Move::Pass if self.moves() == 0 => Ok(self.passed()),
            Move::Pass => Err(MoveError::PassWithMoves),
        }
    }

    /// True when the side to move has no move but the other side has: a pass is forced.
    pub fn must_pass(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() != 0
    }

    /// True when neither side can move.
    pub fn is_game_over(&self) -> bool {
        self.moves() == 0 && self.opponent_moves() == 0
    }

    /// Discs of the side to move.
    pub const fn player_count(&self) -> u32 {
        self.player.count_ones()
    }

    /// Discs of the waiting side.
    pub const fn opponent_count(&self) -> u32 {
        self.opponent.count_ones()
    }

    /// The final score of a finished game from the side to move's view, in tournament
    /// convention: empty squares go to the winner, a draw stays 0.
    pub const fn final_score(&self) -> i32 {
        let p = self.player_count() as i32;
        let o = self.opponent_count() as i32;
        let e = 64 - p - o;
        if p > o {
            p - o + e
        } else if p < o {
            p - o - e
        } else {
            0
        }
    }

    /// A 64-bit hash of the position (side to move included, since the board is relative).
    #[inline(always)]
    pub const fn hash(&self) -> u64 {
        let a = self.player.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let b = self.opponent.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let h = a ^ b.rotate_left(31);
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
    }

    /// The board seen through symmetry `s`.
    pub fn transformed(&self, s: Symmetry) -> Board {
        Board {
            player: transform(self.player, s),
            opponent: transform(self.opponent, s),
        }
    }

    /// The smallest of the 8 symmetric images (by `(player, opponent)`), with the symmetry
    /// that produces it: a key that all symmetric positions share.
    pub fn canonical(&self) -> (Board, Symmetry) {
        Symmetry::ALL
            .iter()
            .map(|&s| (self.transformed(s), s))
            .min_by_key(|(b, _)| (b.player, b.opponent))
            .expect("eight symmetries")
    }

    /// True when the two bitboards do not overlap.
    pub const fn is_valid(&self) -> bool {
        self.player & self.opponent == 0
    }
}

/// A board with the colour of the side to move: what notation reads and writes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// The discs, relative to the side to move.
    pub board: Board,
    /// The colour of the side to move.
    pub to_move: Color,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The standard start position, black to move.
    pub const fn start() -> Position {
        Position {
            board: Board::start(),
            to_move: Color::Black,
        }
    }

    /// A position from black's and white's discs and the side to move.
    pub const fn from_colors(black: u64, white: u64, to_move: Color) -> Position {
        let board = match to_move {
            Color::Black => Board::new(black, white),
            Color::White => Board::new(white, black),
        };
        Position { board, to_move }
    }

    /// Black's discs.
    pub const fn black(&self) -> u64 {
        match self.to_move {
            Color::Black => self.board.player,
            Color::White => self.board.opponent,
        }
    }

    /// White's discs.
    pub const fn white(&self) -> u64 {
        match self.to_move {
            Color::Black => self.board.opponent,
            Color::White => self.board.player,
        }
    }

    /// The colour on a square, if any.
    pub fn at(&self, sq: Square) -> Option<Color> {
        if self.black() & sq.bit() != 0 {
            Some(Color::Black)
        } else if self.white() & sq.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Plays a move, checking the rules; the side to move changes.
    pub fn play(&self, mv: Move) -> Result<Position, MoveError> {
        Ok(Position {
            board: self.board.play_move(mv)?,
            to_move: self.to_move.opposite(),
        })
    }

    /// Legal moves of the side to move, as squares; `[Move::Pass]` when a pass is forced, and
    /// empty when the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        let m = self.board.moves();
        if m != 0 {
            Square::iter(m).map(Move::Play).collect()
        } else if self.board.opponent_moves() != 0 {
            vec![Move::Pass]
        } else {
            Vec::new()
        }
    }

    /// Disc difference for black at the end in tournament convention (empties to the
    /// winner); meaningful once the game is over.
    pub const fn black_final_score(&self) -> i32 {
        let s = self.board.final_score();
        match self.to_move {
            Color::Black => s,
            Color::White => -s,
        }
    }

    /// The position seen through symmetry `s`.
    pub fn transformed(&self, s: Symmetry) -> Position {
        Position {
            board: self.board.transformed(s),
            to_move: self.to_move,
        }
    }
}

impl fmt::Display for Position {
    /// A readable diagram with coordinates: `X` black, `O` white, `.` empty, `*` a legal move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let moves = self.board.moves();
        writeln!(f, "  a b c d e f g h")?;
        for row in 0..8u8 {
            write!(f, "{}", row + 1)?;
            for col in 0..8u8 {
                let sq = Square::from_coords(col, row).expect("on board");
                let c = match self.at(sq) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None if moves & sq.bit() != 0 => '*',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f, " {}", row + 1)?;
        }
        write!(f, "  a b c d e f g h")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position() {
        let b = Board::start();
        assert_eq!(b.moves().count_ones(), 4);
        let p = Position::start();
        assert_eq!(p.at("d4".parse().unwrap()), Some(Color::White));
        assert_eq!(p.at("e5".parse().unwrap()), Some(Color::White));
        assert_eq!(p.at("d5".parse().unwrap()), Some(Color::Black));
        assert_eq!(p.at("e4".parse().unwrap()), Some(Color::Black));
        let names: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["d3", "c4", "f5", "e6"]);
    }

    #[test]
    fn play_and_errors() {
        let p = Position::start();
        let q = p.play("f5".parse().unwrap()).unwrap();
        assert_eq!(q.to_move, Color::White);
        assert_eq!(q.black().count_ones(), 4);
        assert_eq!(q.white().count_ones(), 1);
        assert_eq!(
            p.play("a1".parse().unwrap()),
            Err(MoveError::Illegal("a1".parse().unwrap()))
        );
        assert_eq!(p.play(Move::Pass), Err(MoveError::PassWithMoves));
        assert_eq!(
            p.play("d4".parse().unwrap()),
            Err(MoveError::Illegal("d4".parse().unwrap()))
        );
    }

    #[test]
    fn final_score_gives_empties_to_winner() {
        // 40 - 20 with 4 empties: +24.
        let b = Board::new((1u64 << 40) - 1, ((1u64 << 20) - 1) << 40);
        assert_eq!(b.final_score(), 24);
        assert_eq!(b.passed().final_score(), -24);
        let d = Board::new(u64::MAX >> 32, u64::MAX << 32);
        assert_eq!(d.final_score(), 0);
    }
}
