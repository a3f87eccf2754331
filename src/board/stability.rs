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
#[inline(always)]
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

/// `TERNARY[bits]`: the base-3 digits of a line's squares, 1 for each set bit (a line's
/// index is `TERNARY[p] + 2 * TERNARY[o]`).
static TERNARY: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut bits = 0;
    while bits < 256 {
        let (mut v, mut place, mut i) = (0u16, 1u16, 0);
        while i < 8 {
            if bits >> i & 1 != 0 {
                v += place;
            }
            place *= 3;
            i += 1;
        }
        t[bits] = v;
        bits += 1;
    }
    t
};

/// The discs a move at `x` of the side owning `me` flips along a line of 8 squares.
const fn line_flips(me: u8, other: u8, x: u32) -> u8 {
    let mut f = 0u8;
    let mut dir = 0;
    while dir < 2 {
        let mut run = 0u8;
        let mut i = x as i32;
        loop {
            i += if dir == 0 { 1 } else { -1 };
            if i < 0 || i >= 8 || other >> i & 1 == 0 {
                break;
            }
            run |= 1 << i;
        }
        if i >= 0 && i < 8 && me >> i & 1 != 0 {
            f |= run;
        }
        dir += 1;
    }
    f
}

/// `EDGE_STABLE[TERNARY[p] + 2 * TERNARY[o]]`: the discs of a line of 8 squares (an edge)
/// whose colour never changes, whatever is played on the line by either side in any order
/// (any empty square may be filled by either colour: its move may flip along other lines).
/// Filled lines first, each from the lines with one more disc.
static EDGE_STABLE: [u8; 6561] = {
    let mut t = [0u8; 6561];
    let mut filled = 9;
    while filled > 0 {
        filled -= 1;
        let mut p = 0usize;
        while p < 256 {
            let mut o = 0usize;
            while o < 256 {
                if p & o == 0 && (p | o).count_ones() == filled {
                    let (pb, ob) = (p as u8, o as u8);
                    let mut stable = pb | ob;
                    let mut x = 0;
                    while x < 8 {
                        if (pb | ob) >> x & 1 == 0 {
                            let bit = 1u8 << x;
                            let f = line_flips(pb, ob, x);
                            let (np, no) = (pb | bit | f, ob & !f);
                            stable &= !f
                                & t[TERNARY[np as usize] as usize
                                    + 2 * TERNARY[no as usize] as usize];
                            let f = line_flips(ob, pb, x);
                            let (np, no) = (pb & !f, ob | bit | f);
                            stable &= !f
                                & t[TERNARY[np as usize] as usize
                                    + 2 * TERNARY[no as usize] as usize];
                        }
                        x += 1;
                    }
                    t[TERNARY[p] as usize + 2 * TERNARY[o] as usize] = stable;
                }
                o += 1;
            }
            p += 1;
        }
    }
    t
};

/// `COLUMN[bits]`: bit i of `bits` moved to row i of column a.
static COLUMN: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut i = 0;
        while i < 8 {
            if bits >> i & 1 != 0 {
                t[bits] |= 1u64 << (8 * i);
            }
            i += 1;
        }
        bits += 1;
    }
    t
};

/// Column a of `x` as a line: row i to bit i.
#[inline(always)]
fn column_a(x: u64) -> usize {
    ((x & COL_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}

/// The stable discs of either colour on a line, from the two sides' discs on it.
#[inline(always)]
fn edge_line(p: usize, o: usize) -> u8 {
    EDGE_STABLE[TERNARY[p] as usize + 2 * TERNARY[o] as usize]
}

/// The discs on the four edges whose colour never changes (see [`EDGE_STABLE`]): a disc on
/// an edge can only be flipped along that edge.
#[inline(always)]
fn stable_edges(p: u64, o: u64) -> u64 {
    let row1 = edge_line(p as usize & 0xFF, o as usize & 0xFF) as u64;
    let row8 = (edge_line((p >> 56) as usize, (o >> 56) as usize) as u64) << 56;
    let col_a = COLUMN[edge_line(column_a(p), column_a(o)) as usize];
    let col_h = COLUMN[edge_line(column_a(p >> 7), column_a(o >> 7)) as usize] << 7;
    row1 | row8 | col_a | col_h
}

/// The discs of `p` that can never be flipped (a safe under-estimate): on the edges, the
/// discs no sequence of moves along the edge can flip; inside, a disc is stable when, along
/// each of the four axes, its line is full or it touches a stable disc of its own colour.
pub fn stable_discs(p: u64, o: u64) -> u64 {
    stable_discs_until(p, o, 65)
}

/// The stable discs of `p` as [`stable_discs`] finds them, or a part of them once it holds
/// at least `enough` discs (the search stops there: enough for a stability cutoff).
#[inline]
pub fn stable_discs_until(p: u64, o: u64, enough: u32) -> u64 {
    stable_until(p, o, enough)
}

/// [`stable_discs_until`] compiled with the POPCNT instruction (its stopping test counts the
/// stable discs found so far on every pass).
#[cfg(target_arch = "x86_64")]
pub mod x86 {
    /// As [`super::stable_discs_until`].
    ///
    /// # Safety
    ///
    /// Outside code compiled with POPCNT this may only be called when the CPU has it (as
    /// every CPU does that [`crate::board::fast_path_available`] accepts).
    #[target_feature(enable = "popcnt")]
    pub fn stable_discs_until(p: u64, o: u64, enough: u32) -> u64 {
        super::stable_until(p, o, enough)
    }
}

/// The body of [`stable_discs_until`], inlined into each compiled version.
#[inline(always)]
fn stable_until(p: u64, o: u64, enough: u32) -> u64 {
    let (fh, fv, fd, fa) = full_lines(p | o);
    let inner = p & !EDGE;
    let mut stable = (stable_edges(p, o) & p) | (inner & fh & fv & fd & fa);
    loop {
        if stable.count_ones() >= enough {
            return stable;
        }
        let h = fh | ((stable << 1) & !COL_A) | ((stable >> 1) & !COL_H);
        let v = fv | (stable << 8) | (stable >> 8);
        let d = fd | ((stable << 9) & !COL_A) | ((stable >> 9) & !COL_H);
        let a = fa | ((stable << 7) & !COL_H) | ((stable >> 7) & !COL_A);
        let next = stable | (inner & h & v & d & a);
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
        let mut rng = crate::rng::Rng::new(0x2545_F491_4F6C_DD1D);
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
    fn filled_edge_segments_are_stable() {
        // Row 1: a1 empty, b1 and d1-h1 for one side, c1 for the other. Nothing can flip
        // c1 (its neighbours are filled and d1 is stable); b1 falls to a move on a1.
        let (x, y) = (0xFAu64, 0x04u64);
        assert_eq!(stable_discs(y, x) & 0xFF, 0x04);
        assert_eq!(stable_discs(x, y) & 0xFF, 0xF8);
    }

    /// Along random games, a disc found stable keeps its colour to the end.
    #[test]
    fn stable_discs_keep_their_colour() {
        use crate::rng::{Rng, random_bit, random_board};
        let mut rng = Rng::new(0x6A09_E667_F3BC_C908);
        for _ in 0..3000 {
            let target = rng.below(45) as u32;
            let mut b = random_board(&mut rng, target);
            // `mine` and `theirs`: the discs found stable of the side to move at the start
            // and of the other side.
            let (mut mine, mut theirs, mut swapped) = (0u64, 0u64, false);
            loop {
                let (a, c) = if swapped {
                    (b.opponent, b.player)
                } else {
                    (b.player, b.opponent)
                };
                assert_eq!(mine & !a, 0, "{b:?}");
                assert_eq!(theirs & !c, 0, "{b:?}");
                mine |= stable_discs(a, c);
                theirs |= stable_discs(c, a);
                if b.is_game_over() {
                    break;
                }
                b = match b.moves() {
                    0 => b.passed(),
                    m => {
                        let sq = crate::board::Square::new(random_bit(&mut rng, m) as u8);
                        b.play(sq.expect("a square")).expect("a legal move")
                    }
                };
                swapped = !swapped;
            }
        }
    }

    /// Stopping early gives part of the stable discs, at least `enough` of them, or all of
    /// them when there are fewer; the POPCNT version gives the same discs.
    #[test]
    fn stopping_early_finds_enough_stable_discs() {
        use crate::rng::{Rng, random_board};
        let mut rng = Rng::new(0xBB67_AE85_84CA_A73B);
        for _ in 0..3000 {
            let target = rng.below(30) as u32;
            let b = random_board(&mut rng, target);
            let all = stable_discs(b.player, b.opponent);
            for enough in 0..=65 {
                let part = stable_discs_until(b.player, b.opponent, enough);
                #[cfg(target_arch = "x86_64")]
                if crate::board::fast_path_available() {
                    // SAFETY: the CPU has POPCNT.
                    let fast = unsafe { x86::stable_discs_until(b.player, b.opponent, enough) };
                    assert_eq!(fast, part, "{b:?}");
                }
                assert_eq!(part & !all, 0, "{b:?}");
                if all.count_ones() < enough {
                    assert_eq!(part, all, "{b:?}");
                } else {
                    assert!(part.count_ones() >= enough, "{b:?}");
                }
            }
        }
    }

    #[test]
    fn stable_discs_never_flip() {
        let mut rng = crate::rng::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..5000 {
            let (a, s) = (rng.next_u64(), rng.next_u64());
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
