//! Move generation on bitboards: mobility, flips, and a simple reference for tests.
//!
//! Everything here works on a pair of bitboards `(p, o)`: the discs of the side to move and
//! of its opponent. Bit 0 is a1, bit 7 is h1, bit 63 is h8.

/// All squares but columns a and h: the mask that stops horizontal wrap-around.
const NOT_EDGE_COLUMNS: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// One fill step for one direction pair, four steps deep by doubling (Edax's method).
#[inline(always)]
fn moves_in_direction(p: u64, o: u64, shift: u32) -> u64 {
    let s2 = shift * 2;
    let mut fl = o & (p << shift);
    let mut fr = o & (p >> shift);
    fl |= o & (fl << shift);
    fr |= o & (fr >> shift);
    let pl = o & (o << shift);
    let pr = o & (o >> shift);
    fl |= pl & (fl << s2);
    fr |= pr & (fr >> s2);
    fl |= pl & (fl << s2);
    fr |= pr & (fr >> s2);
    (fl << shift) | (fr >> shift)
}

/// The legal moves of the side to move: empty squares that outflank at least one line.
/// Branch-free.
#[inline(always)]
pub fn legal_moves(p: u64, o: u64) -> u64 {
    let om = o & NOT_EDGE_COLUMNS;
    let m = moves_in_direction(p, om, 1)
        | moves_in_direction(p, o, 8)
        | moves_in_direction(p, om, 7)
        | moves_in_direction(p, om, 9);
    m & !(p | o)
}

/// Rays from each square: `RAYS[d][sq]` is the set of squares strictly beyond `sq` in
/// direction `d`. Directions 0..4 go towards higher indices (E, S, SW, SE), 4..8 towards
/// lower ones (W, N, NE, NW).
static RAYS: [[u64; 64]; 8] = make_rays();

const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (0, 1),
    (-1, 1),
    (1, 1),
    (-1, 0),
    (0, -1),
    (1, -1),
    (-1, -1),
];

const fn make_rays() -> [[u64; 64]; 8] {
    let mut rays = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (dx, dy) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 64 {
            let mut x = (sq % 8) as i32 + dx;
            let mut y = (sq / 8) as i32 + dy;
            let mut m = 0u64;
            while x >= 0 && x < 8 && y >= 0 && y < 8 {
                m |= 1u64 << (y * 8 + x);
                x += dx;
                y += dy;
            }
            rays[d][sq] = m;
            sq += 1;
        }
        d += 1;
    }
    rays
}

/// Flips along a ray that runs towards higher bit indices.
#[inline(always)]
fn flips_up(p: u64, o: u64, ray: u64) -> u64 {
    let x = !o & ray;
    let first = x & x.wrapping_neg();
    let f = first.wrapping_sub(1) & ray;
    f & 0u64.wrapping_sub(((first & p) != 0) as u64)
}

/// Flips along a ray that runs towards lower bit indices.
#[inline(always)]
fn flips_down(p: u64, o: u64, ray: u64) -> u64 {
    let x = (!o & ray) | 1;
    let first = (1u64 << 63) >> x.leading_zeros();
    let f = ray & !((first << 1).wrapping_sub(1));
    f & 0u64.wrapping_sub(((first & p & ray) != 0) as u64)
}

/// The discs flipped when the side to move plays on the empty square `sq` (0..64).
/// Zero when the move is illegal.
#[inline(always)]
pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
    flips_up(p, o, RAYS[0][sq])
        | flips_up(p, o, RAYS[1][sq])
        | flips_up(p, o, RAYS[2][sq])
        | flips_up(p, o, RAYS[3][sq])
        | flips_down(p, o, RAYS[4][sq])
        | flips_down(p, o, RAYS[5][sq])
        | flips_down(p, o, RAYS[6][sq])
        | flips_down(p, o, RAYS[7][sq])
}

/// The position after the side to move (`p`) plays the legal move `sq`, with the side to move
/// first as [`crate::board::Board`] holds it, and that side's legal moves.
#[inline(always)]
pub fn play_and_moves(p: u64, o: u64, sq: usize) -> (u64, u64, u64) {
    let f = flips(p, o, sq);
    let (np, no) = (o ^ f, p ^ f ^ (1u64 << sq));
    (np, no, legal_moves(np, no))
}

/// The x86-64 AVX2 versions of [`flips`] and [`legal_moves`]: four directions per vector
/// instruction.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::make_rays;
    use std::arch::x86_64::*;

    /// Ray masks of one square for four directions, aligned for a vector load.
    #[repr(C, align(32))]
    pub(super) struct Lanes(pub(super) [[u64; 4]; 64]);

    const fn lanes(first: usize) -> Lanes {
        let rays = make_rays();
        let mut t = [[0u64; 4]; 64];
        let mut sq = 0;
        while sq < 64 {
            let mut k = 0;
            while k < 4 {
                t[sq][k] = rays[first + k][sq];
                k += 1;
            }
            sq += 1;
        }
        Lanes(t)
    }

    /// Rays towards higher indices (E, S, SW, SE) and towards lower ones (W, N, NE, NW).
    pub(super) static UP: Lanes = lanes(0);
    pub(super) static DOWN: Lanes = lanes(4);

    /// The discs flipped by a move of `p` on the empty square `sq`; zero when illegal.
    ///
    /// Rays running up: the first square that is not an opponent disc is the lowest set bit
    /// of `!o & ray`. Rays running down: the highest set bit, found by smearing `!o & ray`
    /// downwards along the direction (shifts of 1, 2 and 4 steps) so that the ray squares at
    /// or below it are set; the flips are the ray squares above it.
    ///
    /// # Safety
    ///
    /// Outside code compiled with AVX2 this may only be called when the CPU has AVX2
    /// (`is_x86_feature_detected!("avx2")`, or [`crate::board::fast_path_available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        or_lanes(flip_lanes(pp, oo, sq))
    }

    /// The discs of [`flips`] in four lanes, one per pair of opposite directions, from `p`
    /// and `o` broadcast to every lane: their OR is the flips.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn flip_lanes(pp: __m256i, oo: __m256i, sq: usize) -> __m256i {
        let zero = _mm256_setzero_si256();
        // SAFETY: `sq` < 64 is checked by the indexing; the tables are 32-byte aligned rows.
        let (up, down) = unsafe {
            (
                _mm256_load_si256(UP.0[sq].as_ptr().cast()),
                _mm256_load_si256(DOWN.0[sq].as_ptr().cast()),
            )
        };
        // Up: lowest non-opponent square on each ray.
        let x = _mm256_andnot_si256(oo, up);
        let first = _mm256_and_si256(x, _mm256_sub_epi64(zero, x));
        let f_up = _mm256_and_si256(_mm256_add_epi64(first, _mm256_set1_epi64x(-1)), up);
        let miss = _mm256_cmpeq_epi64(_mm256_and_si256(first, pp), zero);
        let f_up = _mm256_andnot_si256(miss, f_up);
        // Down (W, N, NE, NW: shifts 1, 8, 7, 9): highest non-opponent square on each ray.
        let s1 = _mm256_set_epi64x(9, 7, 8, 1);
        let s2 = _mm256_set_epi64x(18, 14, 16, 2);
        let s4 = _mm256_set_epi64x(36, 28, 32, 4);
        let x = _mm256_andnot_si256(oo, down);
        let mut y = _mm256_or_si256(x, _mm256_srlv_epi64(x, s1));
        y = _mm256_or_si256(y, _mm256_srlv_epi64(y, s2));
        y = _mm256_or_si256(y, _mm256_srlv_epi64(y, s4));
        let below = _mm256_and_si256(y, down);
        let top = _mm256_andnot_si256(_mm256_srlv_epi64(below, s1), below);
        let f_down = _mm256_andnot_si256(y, down);
        let miss = _mm256_cmpeq_epi64(_mm256_and_si256(top, pp), zero);
        let f_down = _mm256_andnot_si256(miss, f_down);
        _mm256_or_si256(f_up, f_down)
    }

    /// [`super::play_and_moves`] with these [`flips`] and [`legal_moves`].
    ///
    /// # Safety
    ///
    /// As [`flips`].
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn play_and_moves(p: u64, o: u64, sq: usize) -> (u64, u64, u64) {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        // The flips in every lane, and the new board, without leaving the vector registers:
        // the child's moves wait on fewer steps.
        let f = flip_lanes(pp, oo, sq);
        let f = _mm256_or_si256(f, _mm256_permute2x128_si256::<0x01>(f, f));
        let f = _mm256_or_si256(f, _mm256_shuffle_epi32::<0x4E>(f));
        let bit = 1u64 << sq;
        let np = _mm256_xor_si256(oo, f);
        let no = _mm256_xor_si256(pp, _mm256_or_si256(f, _mm256_set1_epi64x(bit as i64)));
        let flipped = _mm_cvtsi128_si64(_mm256_castsi256_si128(f)) as u64;
        (o ^ flipped, p ^ flipped ^ bit, moves_of(np, no))
    }

    /// The OR of the four 64-bit lanes of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn or_lanes(v: __m256i) -> u64 {
        let half = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        _mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half))) as u64
    }

    /// The legal moves of the side to move, as [`super::legal_moves`], with four directions
    /// per vector instruction (E-W, N-S, NE-SW and NW-SE in the four lanes, both senses).
    ///
    /// # Safety
    ///
    /// As [`flips`]: only where the CPU has AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn legal_moves(p: u64, o: u64) -> u64 {
        moves_of(_mm256_set1_epi64x(p as i64), _mm256_set1_epi64x(o as i64))
    }

    /// [`legal_moves`] of `p` and `o` broadcast to every lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn moves_of(pp: __m256i, board_o: __m256i) -> u64 {
        let edge = super::NOT_EDGE_COLUMNS as i64;
        let oo = _mm256_and_si256(board_o, _mm256_set_epi64x(edge, edge, -1, edge));
        let s1 = _mm256_set_epi64x(9, 7, 8, 1);
        let s2 = _mm256_set_epi64x(18, 14, 16, 2);
        let mut fl = _mm256_and_si256(oo, _mm256_sllv_epi64(pp, s1));
        let mut fr = _mm256_and_si256(oo, _mm256_srlv_epi64(pp, s1));
        fl = _mm256_or_si256(fl, _mm256_and_si256(oo, _mm256_sllv_epi64(fl, s1)));
        fr = _mm256_or_si256(fr, _mm256_and_si256(oo, _mm256_srlv_epi64(fr, s1)));
        let pl = _mm256_and_si256(oo, _mm256_sllv_epi64(oo, s1));
        let pr = _mm256_and_si256(oo, _mm256_srlv_epi64(oo, s1));
        fl = _mm256_or_si256(fl, _mm256_and_si256(pl, _mm256_sllv_epi64(fl, s2)));
        fr = _mm256_or_si256(fr, _mm256_and_si256(pr, _mm256_srlv_epi64(fr, s2)));
        fl = _mm256_or_si256(fl, _mm256_and_si256(pl, _mm256_sllv_epi64(fl, s2)));
        fr = _mm256_or_si256(fr, _mm256_and_si256(pr, _mm256_srlv_epi64(fr, s2)));
        let empty = _mm256_or_si256(pp, board_o);
        or_lanes(_mm256_andnot_si256(
            empty,
            _mm256_or_si256(_mm256_sllv_epi64(fl, s1), _mm256_srlv_epi64(fr, s1)),
        ))
    }
}

/// The x86-64 AVX-512 versions of [`flips`] and [`legal_moves`]. The moves: the eight
/// directions in the eight lanes of one vector, shifted by rotations (a vector of per-lane
/// counts) and masked so that nothing wraps around the board.
#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use std::arch::x86_64::*;

    /// Row 1, row 8.
    const ROW_1: i64 = 0xFF;
    const ROW_8: i64 = 0xFF << 56;

    /// The discs flipped by a move of `p` on the empty square `sq`, as [`super::flips`]:
    /// the AVX2 version's four lanes per direction sense, with AVX-512 (VL, CD) for the
    /// rays running down: the nearest square that is not an opponent disc is the highest
    /// set bit of `!o & ray`, found with a leading-zero count instead of a smear; the
    /// flips are the ray squares above it, and count when that square is the player's.
    ///
    /// # Safety
    ///
    /// Outside code compiled with these features this may only be called when the CPU has
    /// AVX-512 F, VL and CD (see [`crate::board::Simd::detect`]).
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512cd")]
    pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        super::avx2::or_lanes(flip_lanes(pp, oo, sq))
    }

    /// The flips of [`flips`] before the lanes are merged: their OR is the flips.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512cd")]
    fn flip_lanes(pp: __m256i, oo: __m256i, sq: usize) -> __m256i {
        use super::avx2::{DOWN, UP};
        let ones = _mm256_set1_epi64x(-1);
        // SAFETY: `sq` < 64 is checked by the indexing; the tables are 32-byte aligned rows.
        let (up, down) = unsafe {
            (
                _mm256_load_si256(UP.0[sq].as_ptr().cast()),
                _mm256_load_si256(DOWN.0[sq].as_ptr().cast()),
            )
        };
        // Up: the lowest non-opponent square on each ray, and the ray squares below it.
        let x = _mm256_andnot_si256(oo, up);
        let first = _mm256_and_si256(x, _mm256_sub_epi64(_mm256_setzero_si256(), x));
        let f_up = _mm256_maskz_and_epi64(
            _mm256_test_epi64_mask(first, pp),
            _mm256_add_epi64(first, ones),
            up,
        );
        // Down: the highest one (none: a count of 64, and shifts by 64 give zero), and the
        // ray squares above it.
        let lz = _mm256_lzcnt_epi64(_mm256_andnot_si256(oo, down));
        let top = _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MIN), lz);
        let f_down = _mm256_maskz_andnot_epi64(
            _mm256_test_epi64_mask(top, pp),
            _mm256_srlv_epi64(ones, lz),
            down,
        );
        _mm256_or_si256(f_up, f_down)
    }

    /// The position after `p` plays the legal move `sq` (the side to move first, as
    /// [`crate::board::Board`] holds it) and that side's legal moves: [`flips`] and
    /// [`legal_moves`] without taking the flips out of the vector registers in between.
    ///
    /// # Safety
    ///
    /// As [`flips`].
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512cd")]
    pub fn play_and_moves(p: u64, o: u64, sq: usize) -> (u64, u64, u64) {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        let f = flip_lanes(pp, oo, sq);
        // Every lane gets the OR of the four.
        let f = _mm256_or_si256(f, _mm256_permute4x64_epi64::<0x4E>(f));
        let f = _mm256_or_si256(f, _mm256_shuffle_epi32::<0x4E>(f));
        let flipped = _mm_cvtsi128_si64(_mm256_castsi256_si128(f)) as u64;
        let (np, no) = (o ^ flipped, p ^ flipped ^ (1u64 << sq));
        let vp = _mm256_xor_si256(oo, f);
        let vo = _mm256_xor_si256(_mm256_set1_epi64x((p | 1u64 << sq) as i64), f);
        let moves = moves_of(_mm512_broadcast_i64x4(vp), _mm512_broadcast_i64x4(vo));
        (np, no, moves & !(np | no))
    }

    /// The legal moves of the side to move, as [`super::legal_moves`].
    ///
    /// Lanes 0-3 run towards higher squares (steps 1, 8, 7, 9: rotations left), lanes 4-7
    /// towards lower ones (the same steps as rotations right, that is left by 64 - step). A
    /// rotation brings the squares that leave the board back in at the other end: in a lane
    /// running up they land on row 1 (column a for the step of 1), where no run going up can
    /// be, so the opponent's discs there are masked off for that lane, as are the moves
    /// found there; the same with row 8 for lanes running down. The usual column masks stop
    /// the horizontal and diagonal runs at the board's side.
    ///
    /// # Safety
    ///
    /// Outside code compiled with AVX-512 this may only be called when the CPU has AVX-512 F
    /// (see [`crate::board::Simd::detect`]).
    #[inline]
    #[target_feature(enable = "avx2,avx512f")]
    pub fn legal_moves(p: u64, o: u64) -> u64 {
        moves_of(_mm512_set1_epi64(p as i64), _mm512_set1_epi64(o as i64)) & !(p | o)
    }

    /// [`legal_moves`] of the boards in every lane of `pp` and `oo`, occupied squares
    /// included.
    #[inline]
    #[target_feature(enable = "avx2,avx512f")]
    fn moves_of(pp: __m512i, oo: __m512i) -> u64 {
        const EDGE: i64 = super::NOT_EDGE_COLUMNS as i64;
        let (r1, r8) = (!ROW_1, !ROW_8);
        let o_mask = _mm512_set_epi64(
            EDGE & r8,
            EDGE & r8,
            r8,
            EDGE,
            EDGE & r1,
            EDGE & r1,
            r1,
            EDGE,
        );
        let move_mask = _mm512_set_epi64(r8, r8, r8, -1, r1, r1, r1, -1);
        let s1 = _mm512_set_epi64(55, 57, 56, 63, 9, 7, 8, 1);
        let s2 = _mm512_set_epi64(46, 50, 48, 62, 18, 14, 16, 2);
        let oo = _mm512_and_si512(oo, o_mask);
        // f | (a & b): ternary-logic table 0xF8 (f the first operand).
        let mut f = _mm512_and_si512(oo, _mm512_rolv_epi64(pp, s1));
        f = _mm512_ternarylogic_epi64::<0xF8>(f, oo, _mm512_rolv_epi64(f, s1));
        let pairs = _mm512_and_si512(oo, _mm512_rolv_epi64(oo, s1));
        f = _mm512_ternarylogic_epi64::<0xF8>(f, pairs, _mm512_rolv_epi64(f, s2));
        f = _mm512_ternarylogic_epi64::<0xF8>(f, pairs, _mm512_rolv_epi64(f, s2));
        let m = _mm512_and_si512(_mm512_rolv_epi64(f, s1), move_mask);
        _mm512_reduce_or_epi64(m) as u64
    }
}

/// Reference implementation of [`flips`]: walks each of the 8 directions square by square.
/// Slow and obvious; the fast versions are tested against it.
pub fn flips_reference(p: u64, o: u64, sq: usize) -> u64 {
    if (p | o) >> sq & 1 != 0 {
        return 0;
    }
    let mut all = 0;
    for (dx, dy) in DIRECTIONS {
        let mut x = (sq % 8) as i32 + dx;
        let mut y = (sq / 8) as i32 + dy;
        let mut line = 0u64;
        while (0..8).contains(&x) && (0..8).contains(&y) {
            let b = 1u64 << (y * 8 + x);
            if o & b != 0 {
                line |= b;
            } else {
                if p & b != 0 {
                    all |= line;
                }
                break;
            }
            x += dx;
            y += dy;
        }
    }
    all
}

/// Reference implementation of [`legal_moves`]: every empty square with a non-zero
/// [`flips_reference`].
pub fn legal_moves_reference(p: u64, o: u64) -> u64 {
    (0..64)
        .filter(|&sq| flips_reference(p, o, sq) != 0)
        .fold(0, |m, sq| m | 1u64 << sq)
}

/// Squares adjacent (in the 8 directions) to any square of `x`.
#[inline(always)]
pub fn neighbours(x: u64) -> u64 {
    let h = ((x >> 1) & 0x7F7F_7F7F_7F7F_7F7F) | ((x << 1) & 0xFEFE_FEFE_FEFE_FEFE);
    let hx = x | h;
    h | (hx << 8) | (hx >> 8)
}

/// Potential mobility: empty squares next to an opponent disc.
#[inline(always)]
pub fn potential_moves(p: u64, o: u64) -> u64 {
    neighbours(o) & !(p | o)
}

/// The quadrants holding an odd number of `empties`, as one mask of whole quadrants.
#[inline(always)]
pub fn odd_quadrant_mask(empties: u64) -> u64 {
    // Each quadrant's rows folded into its first row, then its columns into its first
    // square: bits 0, 4, 32 and 36 hold the parities of the four quadrants.
    let rows = empties ^ (empties >> 8) ^ (empties >> 16) ^ (empties >> 24);
    let squares = rows ^ (rows >> 1) ^ (rows >> 2) ^ (rows >> 3);
    // Each of those bits times 0x0F0F_0F0F covers its quadrant; no two products overlap.
    (squares & 0x0000_0011_0000_0011).wrapping_mul(0x0F0F_0F0F)
}

#[cfg(test)]
mod tests {
    use super::*;

    const START_P: u64 = (1 << 28) | (1 << 35); // e4 and d5: black
    const START_O: u64 = (1 << 27) | (1 << 36); // d4 and e5: white

    #[test]
    fn start_moves() {
        let m = legal_moves(START_P, START_O);
        // d3, c4, f5, e6
        let expect = (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44);
        assert_eq!(m, expect);
        assert_eq!(legal_moves_reference(START_P, START_O), expect);
    }

    #[test]
    fn flips_match_reference_on_a_pseudo_random_sample() {
        let mut rng = crate::rng::Rng::new(0x1234_5678_9ABC_DEF0);
        for _ in 0..20_000 {
            let (a, s) = (rng.next_u64(), rng.next_u64());
            let p = a & s;
            let o = a & !s;
            for sq in 0..64 {
                if (p | o) >> sq & 1 == 0 {
                    assert_eq!(
                        flips(p, o, sq),
                        flips_reference(p, o, sq),
                        "{p:x} {o:x} {sq}"
                    );
                }
            }
            assert_eq!(legal_moves(p, o), legal_moves_reference(p, o));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_flips_match_reference() {
        if !is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: nothing to compare");
            return;
        }
        // SAFETY: AVX2 was detected above.
        assert_flips_match_reference(0x0F1E_2D3C_4B5A_6978, |p, o, sq| unsafe {
            avx2::flips(p, o, sq)
        });
    }

    /// `flips` against the reference on every empty square of 30,000 random boards (from
    /// `seed`), and on rays of opponent discs running to the board's edge (nothing to
    /// outflank with) or ending on the player's discs at the edge.
    fn assert_flips_match_reference(seed: u64, flips: impl Fn(u64, u64, usize) -> u64) {
        for (p, o) in random_boards(seed, 30_000) {
            for sq in 0..64 {
                if (p | o) >> sq & 1 == 0 {
                    assert_eq!(
                        flips(p, o, sq),
                        flips_reference(p, o, sq),
                        "{p:x} {o:x} {sq}"
                    );
                }
            }
        }
        for sq in 0..64 {
            let bit = 1u64 << sq;
            for (p, o) in [
                (0, !bit),
                (CORNERS_AND_EDGES & !bit, !CORNERS_AND_EDGES & !bit),
            ] {
                assert_eq!(
                    flips(p, o, sq),
                    flips_reference(p, o, sq),
                    "{p:x} {o:x} {sq}"
                );
            }
        }
    }

    /// `n` random pairs of disjoint bitboards from `seed`, in turn dense, medium and sparse.
    fn random_boards(seed: u64, n: usize) -> impl Iterator<Item = (u64, u64)> {
        let mut rng = crate::rng::Rng::new(seed);
        let mut next = move || rng.next_u64();
        (0..n).map(move |i| {
            let (a, b, c) = (next(), next(), next());
            let occupied = match i % 3 {
                0 => a | b,
                1 => a,
                _ => a & b,
            };
            (occupied & c, occupied & !c)
        })
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_legal_moves_match_reference() {
        if !is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: nothing to compare");
            return;
        }
        for (p, o) in random_boards(0x1357_9BDF_0246_8ACE, 30_000) {
            // SAFETY: AVX2 was detected above.
            let fast = unsafe { avx2::legal_moves(p, o) };
            assert_eq!(fast, legal_moves_reference(p, o), "{p:x} {o:x}");
            assert_eq!(fast, legal_moves(p, o), "{p:x} {o:x}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_flips_match_reference() {
        if crate::board::Simd::detect() != crate::board::Simd::Avx512 {
            eprintln!("no AVX-512 on this CPU: nothing to compare");
            return;
        }
        // SAFETY: the CPU has AVX-512 F, VL and CD (Simd::detect).
        assert_flips_match_reference(0x3C6E_F372_FE94_F82B, |p, o, sq| unsafe {
            avx512::flips(p, o, sq)
        });
    }

    /// Every version of `play_and_moves` gives the flipped position and its legal moves.
    #[test]
    fn play_and_moves_versions_agree() {
        use crate::board::Simd;
        for (p, o) in random_boards(0x510E_527F_ADE6_82D1, 20_000) {
            let mut m = legal_moves_reference(p, o);
            while m != 0 {
                let sq = m.trailing_zeros() as usize;
                m &= m - 1;
                let f = flips_reference(p, o, sq);
                let (np, no) = (o ^ f, p ^ f ^ (1u64 << sq));
                let want = (np, no, legal_moves_reference(np, no));
                assert_eq!(play_and_moves(p, o, sq), want, "{p:x} {o:x} {sq}");
                #[cfg(target_arch = "x86_64")]
                for simd in Simd::available() {
                    // SAFETY: the CPU runs every version `available` lists.
                    let got = unsafe {
                        match simd {
                            Simd::Avx512 => avx512::play_and_moves(p, o, sq),
                            Simd::Avx2 => avx2::play_and_moves(p, o, sq),
                            Simd::Portable => play_and_moves(p, o, sq),
                        }
                    };
                    assert_eq!(got, want, "{simd:?} {p:x} {o:x} {sq}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_legal_moves_match_reference() {
        if !is_x86_feature_detected!("avx512f") {
            eprintln!("no AVX-512 on this CPU: nothing to compare");
            return;
        }
        for (p, o) in random_boards(0x2468_ACE0_1357_9BDF, 30_000) {
            // SAFETY: AVX-512 F was detected above.
            let fast = unsafe { avx512::legal_moves(p, o) };
            assert_eq!(fast, legal_moves_reference(p, o), "{p:x} {o:x}");
        }
        // Full rows and edges: every lane's wrap-around at once.
        for (p, o) in [
            (0xFF, 0xFF00),
            (0xFF00_0000_0000_0000, 0x00FF_0000_0000_0000),
        ] {
            for (p, o) in [
                (p, o),
                (o, p),
                (p | o, 0),
                (0x8100_0000_0000_0081, 0x7E81_8181_8181_817E),
            ] {
                // SAFETY: as above.
                assert_eq!(
                    unsafe { avx512::legal_moves(p, o) },
                    legal_moves_reference(p, o)
                );
            }
        }
    }

    /// The squares of the board's edges.
    const CORNERS_AND_EDGES: u64 = 0xFF81_8181_8181_81FF;

    #[test]
    fn neighbours_do_not_wrap() {
        assert_eq!(neighbours(1), 0x302);
        assert_eq!(neighbours(1 << 7), 0xC040);
        assert_eq!(neighbours(1 << 63), 0x40C0_0000_0000_0000);
    }
}
