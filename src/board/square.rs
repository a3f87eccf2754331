//! Squares of the 8x8 board and their algebraic names.

use std::fmt;
use std::str::FromStr;

/// One of the 64 squares. Index 0 is a1 (top-left), 7 is h1, 63 is h8: the index is
/// `8 * row + column`, with rows counted from the top as Othello notation does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

/// Why a square name could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SquareError(pub String);

impl fmt::Display for SquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad square {:?}: expected a column a-h and a row 1-8, like f5",
            self.0
        )
    }
}

impl std::error::Error for SquareError {}

impl Square {
    /// The square with index `index` (0..64), or `None` when out of range.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `column` (0 = a) and `row` (0 = row 1, the top), or `None` off the board.
    pub const fn from_coords(column: u8, row: u8) -> Option<Square> {
        if column < 8 && row < 8 {
            Some(Square(row * 8 + column))
        } else {
            None
        }
    }

    /// The index 0..64 (a1 = 0, h8 = 63).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The single-bit mask of this square.
    #[inline(always)]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// The column, 0 (a) to 7 (h).
    pub const fn column(self) -> u8 {
        self.0 & 7
    }

    /// The row, 0 (row 1, top) to 7 (row 8, bottom).
    pub const fn row(self) -> u8 {
        self.0 >> 3
    }

    /// The lowest square set in a non-empty mask.
    #[inline(always)]
    pub fn first_of(mask: u64) -> Square {
        debug_assert!(mask != 0);
        Square(mask.trailing_zeros() as u8)
    }

    /// Iterates over the squares set in `mask`, lowest index first.
    pub fn iter(mask: u64) -> Squares {
        Squares(mask)
    }

    /// All 64 squares, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }

    /// The name in lower case, like `f5`.
    pub fn name(self) -> String {
        self.to_string()
    }

    /// The name in upper case, like `F5`.
    pub fn name_upper(self) -> String {
        self.to_string().to_ascii_uppercase()
    }
}

/// Iterator over the squares of a bit mask.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let s = Square::first_of(self.0);
            self.0 &= self.0 - 1;
            Some(s)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.column()) as char,
            (b'1' + self.row()) as char
        )
    }
}

impl FromStr for Square {
    type Err = SquareError;

    /// Reads `f5` or `F5`.
    fn from_str(s: &str) -> Result<Square, SquareError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(SquareError(s.to_string()));
        }
        let c = b[0].to_ascii_lowercase();
        let r = b[1];
        if !(b'a'..=b'h').contains(&c) || !(b'1'..=b'8').contains(&r) {
            return Err(SquareError(s.to_string()));
        }
        Ok(Square((r - b'1') * 8 + (c - b'a')))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.name().parse::<Square>().unwrap(), sq);
            assert_eq!(sq.name_upper().parse::<Square>().unwrap(), sq);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h1".parse::<Square>().unwrap().index(), 7);
        assert_eq!("H8".parse::<Square>().unwrap().index(), 63);
    }

    #[test]
    fn bad_names_are_errors() {
        for bad in ["", "a", "a0", "a9", "i1", "11", "aa", "a10", "é1"] {
            let e = bad.parse::<Square>().unwrap_err();
            assert!(e.to_string().contains("bad square"), "{bad}");
        }
    }
}
