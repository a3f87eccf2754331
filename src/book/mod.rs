//! The opening book: positions with deep-search scores, looked up through any of the 8
//! symmetries, their values propagated by negamax through the book's tree.
//!
//! - [`Book`]: the store. Each position is kept once, under its canonical image
//!   ([`Board::canonical`]), with an [`Entry`]: the best move that leaves the book (its
//!   *leaf*) and that move's search score. A position's value is the best of its leaf and of
//!   its moves into the book (each worth minus the child's value).
//! - [`file`](mod@file): the book file (a binary format with a checksum, so that a truncated or damaged
//!   file is refused with a clear error, never half read).
//! - [`build`]: making a book by expanding the best lines with deep searches, and learning
//!   finished games into it.
//!
//! The shipped book (`book/outflank.book`) is compiled into the binary: [`Book::shipped`].

pub mod build;
pub mod file;

pub use build::{BuildConfig, Builder, Plan, leaf_entry};
pub use file::{load, save};

use crate::board::{Board, Move, Square, Symmetry};
use std::collections::HashMap;

/// No leaf: every move of the position leads into the book, or it has no move.
pub const NO_LEAF: u8 = 255;

/// What the book holds for one position (in its canonical orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position's value in discs for the side to move: the best of the leaf's score and
    /// of minus each book child's value.
    pub value: i8,
    /// The best move leading out of the book, as a square index of the canonical board, or
    /// [`NO_LEAF`].
    pub leaf: u8,
    /// The leaf's score in discs for the side to move (meaningless without a leaf).
    pub leaf_score: i8,
    /// Depth of the search that scored the leaf (60: to the end of the game).
    pub depth: u8,
    /// How many learned games went through the position.
    pub games: u32,
}

/// One move of a book position, as [`Book::moves`] lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move, in the orientation of the board asked about.
    pub mv: Move,
    /// Its score in discs for the side to move.
    pub score: i32,
    /// True when the move leads to a book position; false for the leaf.
    pub in_book: bool,
    /// Depth of the search behind the score.
    pub depth: u32,
    /// Learned games through the resulting position (0 for the leaf).
    pub games: u32,
}

/// The opening book.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Book {
    entries: HashMap<(u64, u64), Entry>,
}

/// The shipped book file.
static SHIPPED: &[u8] = include_bytes!("../../book/outflank.book");

impl Book {
    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// The book shipped with the engine.
    pub fn shipped() -> Book {
        file::read(SHIPPED).expect("the shipped book is checked by the tests")
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `board` (in any orientation), with the symmetry that takes `board` to
    /// the canonical orientation the entry is stored in.
    fn find(&self, board: &Board) -> Option<(&Entry, Symmetry)> {
        let (c, s) = board.canonical();
        self.entries.get(&(c.player, c.opponent)).map(|e| (e, s))
    }

    /// The entry of `board` (in any orientation), if the book holds it.
    pub fn get(&self, board: &Board) -> Option<&Entry> {
        self.find(board).map(|(e, _)| e)
    }

    /// True when the book holds `board` (in any orientation).
    pub fn contains(&self, board: &Board) -> bool {
        self.get(board).is_some()
    }

    /// Stores `entry` for `board` (in any orientation); the entry's leaf is a square of
    /// `board` as given, turned here into the canonical orientation.
    pub fn insert(&mut self, board: &Board, mut entry: Entry) {
        let (c, s) = board.canonical();
        if let Some(sq) = Square::new(entry.leaf) {
            entry.leaf = s.square(sq).index() as u8;
        }
        self.entries.insert((c.player, c.opponent), entry);
    }

    /// Adds one learned game to the count of `board`, if the book holds it.
    pub fn add_game(&mut self, board: &Board) {
        let (c, _) = board.canonical();
        if let Some(e) = self.entries.get_mut(&(c.player, c.opponent)) {
            e.games = e.games.saturating_add(1);
        }
    }

    /// Every position with its entry, canonical boards, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Board, &Entry)> {
        self.entries
            .iter()
            .map(|(&(p, o), e)| (Board::new(p, o), e))
    }

    /// The leaf of `board` in `board`'s own orientation: the move and its score.
    pub fn leaf(&self, board: &Board) -> Option<(Square, i32)> {
        let (e, s) = self.find(board)?;
        Self::entry_leaf(e, s)
    }

    /// The leaf of entry `e`, in the orientation that symmetry `s` takes to the entry's.
    fn entry_leaf(e: &Entry, s: Symmetry) -> Option<(Square, i32)> {
        let sq = Square::new(e.leaf)?;
        Some((s.inverse().square(sq), e.leaf_score as i32))
    }

    /// The moves of `board` that the book scores, best first (on equal scores, moves into the
    /// book first, then by square): each move into a book position, and the leaf. `None` when
    /// the book does not hold `board`.
    pub fn moves(&self, board: &Board) -> Option<Vec<BookMove>> {
        let (entry, s) = self.find(board)?;
        let mut out = Vec::new();
        for sq in Square::iter(board.moves()) {
            let child = board.play(sq).expect("a legal move");
            if let Some(c) = self.get(&child) {
                out.push(BookMove {
                    mv: Move::Play(sq),
                    score: -(c.value as i32),
                    in_book: true,
                    depth: c.depth as u32,
                    games: c.games,
                });
            }
        }
        if let Some((sq, score)) = Self::entry_leaf(entry, s) {
            // A leaf that has since entered the book is listed by its child instead.
            if !out.iter().any(|m| m.mv == Move::Play(sq)) {
                out.push(BookMove {
                    mv: Move::Play(sq),
                    score,
                    in_book: false,
                    depth: entry.depth as u32,
                    games: 0,
                });
            }
        }
        out.sort_by_key(|m| (-m.score, !m.in_book, square_order(m.mv)));
        Some(out)
    }

    /// The book's best line from `board`: its best move, then the best reply in the book, and
    /// so on while the positions are in the book (at most `max` moves).
    pub fn line(&self, board: &Board, max: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut b = *board;
        while line.len() < max {
            let Some(best) = self.moves(&b).and_then(|m| m.first().copied()) else {
                break;
            };
            line.push(best.mv);
            let Ok(next) = b.play_move(best.mv) else {
                break;
            };
            b = next;
            if !best.in_book {
                break;
            }
        }
        line
    }

    /// Book move `m` of `board` followed by the book's best line after it (at most `max`
    /// moves in all); a leaf alone.
    pub fn line_after(&self, board: &Board, m: &BookMove, max: usize) -> Vec<Move> {
        let mut line = vec![m.mv];
        if m.in_book && max > 1 {
            let next = board.play_move(m.mv).expect("a book move is legal");
            line.extend(self.line(&next, max - 1));
        }
        line
    }

    /// Picks a move for `board` among the book moves scored at most `margin` discs below
    /// the best (0: only the best), `pick` choosing an index below the count it is given;
    /// `None` when the book does not hold `board`.
    pub fn choose(
        &self,
        board: &Board,
        margin: i32,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<BookMove> {
        let moves = self.moves(board)?;
        let best = moves.first()?.score;
        let near = moves
            .iter()
            .take_while(|m| m.score >= best - margin.max(0))
            .count();
        Some(moves[pick(near).min(near - 1)])
    }

    /// The value of `board` from its entry's leaf and its book children's values (as they
    /// are stored now): the score of its best book move ([`Book::moves`]; a leaf that has
    /// since entered the book counts by its child), or the stored value when it has none.
    /// `None` when the book does not hold `board`.
    fn fresh_value(&self, board: &Board) -> Option<i32> {
        let moves = self.moves(board)?;
        Some(match moves.first() {
            Some(best) => best.score,
            None => self.get(board)?.value as i32,
        })
    }

    /// Recomputes every value by negamax, from the fullest boards (children always have more
    /// discs than their parent) back to the emptiest.
    pub fn propagate(&mut self) {
        let mut keys: Vec<(u64, u64)> = self.entries.keys().copied().collect();
        keys.sort_by_key(|&(p, o)| (std::cmp::Reverse((p | o).count_ones()), p, o));
        for (p, o) in keys {
            let b = Board::new(p, o);
            if let Some(v) = self.fresh_value(&b) {
                let v = v.clamp(-64, 64) as i8;
                self.entries.get_mut(&(p, o)).expect("listed").value = v;
            }
        }
    }
}

/// A move's place in the square order (a pass last).
fn square_order(mv: Move) -> usize {
    match mv {
        Move::Play(sq) => sq.index(),
        Move::Pass => 64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    fn entry(leaf: Option<Square>, score: i8) -> Entry {
        Entry {
            value: score,
            leaf: leaf.map_or(NO_LEAF, |s| s.index() as u8),
            leaf_score: score,
            depth: 10,
            games: 0,
        }
    }

    #[test]
    fn lookup_works_through_every_symmetry() {
        let start = Board::start();
        let b = start.play(sq("f5")).unwrap();
        let mut book = Book::new();
        book.insert(&b, entry(Some(sq("d6")), -1));
        for s in Symmetry::ALL {
            let t = b.transformed(s);
            assert!(book.contains(&t));
            let (leaf, score) = book.leaf(&t).unwrap();
            assert_eq!(leaf, s.square(sq("d6")), "{s:?}");
            assert_eq!(score, -1);
            assert!(t.play(leaf).is_ok());
        }
        assert!(!book.contains(&start));
    }

    #[test]
    fn values_propagate_by_negamax() {
        let start = Board::start();
        let mut book = Book::new();
        // The start: leaf f5 at +1 (say). Its child after d3 (a symmetric image of f5) is in
        // the book with a leaf worth +3 to white, so d3 is worth -3 to black.
        book.insert(&start, entry(Some(sq("f5")), 1));
        let d3 = start.play(sq("d3")).unwrap();
        book.insert(&d3, entry(Some(sq("c3")), 3));
        book.propagate();
        // Every first move is the same position up to symmetry, so all four are in the book
        // and the leaf (f5) is listed as a book move.
        let moves = book.moves(&start).unwrap();
        assert_eq!(moves.len(), 4);
        assert!(moves.iter().all(|m| m.in_book && m.score == -3));
        assert_eq!(book.get(&start).unwrap().value, -3);
        assert_eq!(book.line(&start, 5).len(), 2);
        // A better leaf at the child lowers the start's value further.
        book.insert(&d3, entry(Some(sq("c3")), 6));
        book.propagate();
        assert_eq!(book.get(&start).unwrap().value, -6);
    }

    #[test]
    fn choose_picks_only_among_the_best() {
        let start = Board::start();
        let mut book = Book::new();
        book.insert(&start, entry(Some(sq("f5")), 0));
        let d3 = start.play(sq("d3")).unwrap();
        book.insert(&d3, entry(Some(sq("c5")), 0));
        book.propagate();
        let mut seen = std::collections::HashSet::new();
        for i in 0..8 {
            let m = book.choose(&start, 0, |n| i % n).unwrap();
            assert_eq!(m.score, 0);
            seen.insert(m.mv);
        }
        assert_eq!(seen.len(), 4, "all four first moves tie");
        assert!(book.choose(&d3.play(sq("c5")).unwrap(), 0, |_| 0).is_none());
        // After d3 the book knows c5 (its leaf, 0) and, once added, e3 at -2.
        let e3 = d3.play(sq("e3")).unwrap();
        book.insert(&e3, entry(Some(sq("f2")), 2));
        book.propagate();
        let count = |margin| {
            let mut n = 0;
            book.choose(&d3, margin, |k| {
                n = k;
                0
            });
            n
        };
        assert_eq!(count(0), 1);
        assert_eq!(count(1), 1);
        assert_eq!(count(2), 2);
        assert_eq!(
            book.choose(&d3, 2, |k| k - 1).unwrap().mv,
            Move::Play(sq("e3"))
        );
    }
}
