//! Stable discs: discs that can never be flipped, whatever is played.

/// Column a, column h, row 1, row 8 and their union.
const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = 0x8080_8080_8080_8080;
const ROW_1: u64 = 0x0000_0000_0000_00FF;
const ROW_8: u64 = 0xFF00_0000_0000_0000;
const EDGE: u64 = COL_A | COL_H | ROW_1 | ROW_8;

/// Columns a-b, a-d, g-h, e-h and rows 1-2, 1-4, 7-8, 5-8: the squares from which one, two
/// or four steps in a direction leave the board.
const COLS_AB: u64 = COL_A | (COL_A << 1);
const COLS_AD: u64 = COLS_AB | (COLS_AB << 2);
const COLS_GH: u64 = COL_H | (COL_H >> 1);
const COLS_EH: u64 = COLS_GH | (COLS_GH >> 2);
const ROWS_12: u64 = ROW_1 | (ROW_1 << 8);
const ROWS_14: u64 = ROWS_12 | (ROWS_12 << 16);
const ROWS_78: u64 = ROW_8 | (ROW_8 >> 8);
const ROWS_58: u64 = ROWS_78 | (ROWS_78 >> 16);

/// The squares of `filled` whose whole line along a diagonal direction is filled: `shift` is
/// the step up the board (9: towards h8, 7: towards a8), `up` and `down` the squares from
/// which 1, 2 and 4 steps up (down) leave the line. Each pass doubles the reach of the
/// run of filled squares seen from a square; a square is on a full line when the runs up and
/// down both reach the board's edge.
#[inline(always)]
fn full_diagonal(filled: u64, shift: u32, up: [u64; 3], down: [u64; 3]) -> u64 {
    let mut u = filled & ((filled >> shift) | up[0]);
    u &= (u >> (2 * shift)) | up[1];
    u &= (u >> (4 * shift)) | up[2];
    let mut d = filled & ((filled << shift) | down[0]);
    d &= (d << (2 * shift)) | down[1];
    d &= (d << (4 * shift)) | down[2];
    u & d
}

/// Squares on lines that are completely filled, for each of the four axes:
/// (horizontal, vertical, diagonal, anti-diagonal).
#[inline]
fn full_lines(filled: u64) -> (u64, u64, u64, u64) {
    let mut h = filled;
    h &= h >> 1;
    h &= h >> 2;
    h &= h >> 4;
    let h = (h & COL_A).wrapping_mul(0xFF);
    let mut v = filled;
    v &= v >> 8;
    v &= v >> 16;
    v &= v >> 32;
    v &= ROW_1;
    v = v.wrapping_mul(COL_A);
    let d = full_diagonal(
        filled,
        9,
        [COL_H | ROW_8, COLS_GH | ROWS_78, COLS_EH | ROWS_58],
        [COL_A | ROW_1, COLS_AB | ROWS_12, COLS_AD | ROWS_14],
    );
    let a = full_diagonal(
        filled,
        7,
        [COL_A | ROW_8, COLS_AB | ROWS_78, COLS_AD | ROWS_58],
        [COL_H | ROW_1, COLS_GH | ROWS_12, COLS_EH | ROWS_14],
    );
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

    /// Full lines found square by square.
    fn full_lines_reference(filled: u64) -> (u64, u64, u64, u64) {
        let mut lines = [0u64; 4];
        for sq in 0..64i32 {
            for (k, (dc, dr)) in [(1, 0), (0, 1), (1, 1), (-1, 1)].into_iter().enumerate() {
                let (c, r) = (sq % 8, sq / 8);
                let mut full = true;
                for dir in [1, -1] {
                    let (mut x, mut y) = (c, r);
                    while (0..8).contains(&x) && (0..8).contains(&y) {
                        full &= filled >> (y * 8 + x) & 1 != 0;
                        x += dc * dir;
                        y += dr * dir;
                    }
                }
                if full {
                    lines[k] |= 1u64 << sq;
                }
            }
        }
        (lines[0], lines[1], lines[2], lines[3])
    }

    #[test]
    fn full_lines_match_reference() {
        let mut rng = crate::train::Rng::new(0x2545_F491_4F6C_DD1D);
        for i in 0..20_000 {
            let s = rng.next_u64();
            // Mostly full boards, with a few holes (none on some).
            let holes = (s >> 7) & (s >> 23) & (s >> 41) & if i % 4 == 0 { 0 } else { !0 };
            let filled = !holes;
            assert_eq!(
                full_lines(filled),
                full_lines_reference(filled),
                "{filled:x}"
            );
            assert_eq!(full_lines(s), full_lines_reference(s), "{s:x}");
        }
    }

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
