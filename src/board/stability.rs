//! Stable discs: discs that can never be flipped, whatever is played.

/// Column a, column h, row 1, row 8 and their union.
const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0x0000_0000_0000_00FF;
const ROW_8: u64 = 0xFF00_0000_0000_0000;
const EDGE: u64 = COL_A | COL_H | ROW_1 | ROW_8;

/// The 15 diagonals (a1-h8 direction) and 15 anti-diagonals (h1-a8 direction) as masks.
static DIAGONALS: [[u64; 15]; 2] = make_diagonals();

const fn make_diagonals() -> [[u64; 15]; 2] {
    let mut d = [[0u64; 15]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = (sq % 8, sq / 8);
        d[0][7 + c - r] |= 1u64 << sq;
        d[1][c + r] |= 1u64 << sq;
        sq += 1;
    }
    d
}

/// Squares on lines that are completely filled, for each of the four axes:
/// (horizontal, vertical, diagonal, anti-diagonal).
#[inline]
fn full_lines(filled: u64) -> (u64, u64, u64, u64) {
    let mut h = 0;
    for r in 0..8 {
        let row = ROW_1 << (8 * r);
        if filled & row == row {
            h |= row;
        }
    }
    let mut v = filled;
    v &= v >> 8;
    v &= v >> 16;
    v &= v >> 32;
    v &= ROW_1;
    v = v.wrapping_mul(COL_A);
    let mut d = 0;
    let mut a = 0;
    for (&m, &n) in DIAGONALS[0].iter().zip(&DIAGONALS[1]) {
        if filled & m == m {
            d |= m;
        }
        if filled & n == n {
            a |= n;
        }
    }
    (h, v, d, a)
}

/// The discs of `p` that can never be flipped (a safe under-estimate): a disc is stable when,
/// along each of the four axes, its line is full, or it touches the board's edge, or a stable
/// disc of its own colour.
pub fn stable_discs(p: u64, o: u64) -> u64 {
    let (fh, fv, fd, fa) = full_lines(p | o);
    let h_ok = fh | COL_A | COL_H;
    let v_ok = fv | ROW_1 | ROW_8;
    let d_ok = fd | EDGE;
    let a_ok = fa | EDGE;
    let mut stable = 0u64;
    loop {
        let h = h_ok | ((stable << 1) & !COL_A) | ((stable >> 1) & !COL_H);
        let v = v_ok | (stable << 8) | (stable >> 8);
        let d = d_ok | ((stable << 9) & !COL_A) | ((stable >> 9) & !COL_H);
        let a = a_ok | ((stable << 7) & !COL_H) | ((stable >> 7) & !COL_A);
        let next = p & h & v & d & a;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::legal_moves;

    #[test]
    fn corner_is_stable_and_centre_is_not() {
        assert_eq!(stable_discs(1, 1 << 9), 1);
        assert_eq!(stable_discs(1 << 27, 1 << 28), 0);
        // A full first row of one colour is stable.
        assert_eq!(stable_discs(0xFF, 0xFF00) & 0xFF, 0xFF);
    }

    #[test]
    fn stable_discs_never_flip() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..5000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let a = s;
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let filled = a | s; // dense boards
            let p = filled & s;
            let o = filled & !s;
            let st = stable_discs(p, o);
            // No move of the opponent, from this position, flips a stable disc.
            let m = legal_moves(o, p);
            for sq in 0..64 {
                if m >> sq & 1 != 0 {
                    assert_eq!(crate::board::flips(o, p, sq) & st, 0);
                }
            }
        }
    }
}
