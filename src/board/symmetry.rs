//! The 8 symmetries of the square board (rotations and reflections).

use super::Square;

/// One of the 8 symmetries of the board. It is applied as: transpose (swap row and column)
/// if bit 2 is set, then mirror the rows (top <-> bottom) if bit 1, then mirror the columns
/// (left <-> right) if bit 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 8 symmetries, the identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The symmetry with code 0..8 (see the type's docs), or `None`.
    pub const fn from_code(code: u8) -> Option<Symmetry> {
        if code < 8 { Some(Symmetry(code)) } else { None }
    }

    /// The code 0..8.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Where square `sq` goes.
    pub fn square(self, sq: Square) -> Square {
        let (mut c, mut r) = (sq.column(), sq.row());
        if self.0 & 4 != 0 {
            std::mem::swap(&mut c, &mut r);
        }
        if self.0 & 2 != 0 {
            r = 7 - r;
        }
        if self.0 & 1 != 0 {
            c = 7 - c;
        }
        Square::from_coords(c, r).expect("stays on the board")
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        Symmetry::ALL
            .into_iter()
            .find(|t| Square::all().all(|sq| t.square(self.square(sq)) == sq))
            .expect("the group is closed")
    }
}

/// Mirrors columns (a <-> h) of a bitboard.
#[inline(always)]
pub fn mirror_columns(x: u64) -> u64 {
    let k1 = 0x5555_5555_5555_5555u64;
    let k2 = 0x3333_3333_3333_3333u64;
    let k4 = 0x0F0F_0F0F_0F0F_0F0Fu64;
    let x = ((x >> 1) & k1) | ((x & k1) << 1);
    let x = ((x >> 2) & k2) | ((x & k2) << 2);
    ((x >> 4) & k4) | ((x & k4) << 4)
}

/// Swaps rows and columns of a bitboard (reflection in the a1-h8 diagonal).
#[inline(always)]
pub fn transpose(x: u64) -> u64 {
    let k1 = 0x5500_5500_5500_5500u64;
    let k2 = 0x3333_0000_3333_0000u64;
    let k4 = 0x0F0F_0F0F_0000_0000u64;
    let mut x = x;
    let t = k4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = k2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = k1 & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    x
}

/// Applies symmetry `s` to a bitboard.
pub fn transform(x: u64, s: Symmetry) -> u64 {
    let mut x = x;
    if s.0 & 4 != 0 {
        x = transpose(x);
    }
    if s.0 & 2 != 0 {
        x = x.swap_bytes();
    }
    if s.0 & 1 != 0 {
        x = mirror_columns(x);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitboard_transform_matches_square_transform() {
        for s in Symmetry::ALL {
            for sq in Square::all() {
                assert_eq!(transform(sq.bit(), s), s.square(sq).bit(), "{s:?} {sq}");
            }
        }
    }

    #[test]
    fn inverses() {
        for s in Symmetry::ALL {
            let i = s.inverse();
            let x = 0x0123_4567_89AB_CDEFu64;
            assert_eq!(transform(transform(x, s), i), x);
        }
    }
}
