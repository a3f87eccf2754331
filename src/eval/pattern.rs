//! The pattern set: groups of squares whose joint content is scored by a table.
//!
//! Each pattern family (edge, corner block, diagonal, ...) is written once as a list of
//! squares, its *base* instance; its other instances are the distinct images of the base under
//! the 8 board symmetries. All the instances of a family share one weight table, indexed by the
//! base-3 code of their squares: digit `k` (worth `3^k`) is the content of the family's `k`-th
//! square, 0 empty, 1 the side to move's disc, 2 the opponent's.
//!
//! The base squares are listed in an order that a few shifts and masks can gather from a
//! bitboard ([`gather`]), and an instance is read by gathering the base squares of the board
//! seen through the inverse of the instance's symmetry: so one evaluation computes the 8
//! symmetric images of the board once ([`Transforms`]) and then two gathers and two lookups in
//! [`BASE3`] per instance. [`index`] is the slow square-by-square reference of the same code.
//!
//! Some symmetries map a family's base onto itself (a row reversed, a corner block transposed):
//! the evaluation is the same for every symmetric image of a position only if the table gives
//! the same weight to an index and its images under those symmetries, which
//! [`canonical_map`] describes and the trainer enforces.

use crate::board::{Square, Symmetry, mirror_columns, transpose};
use std::sync::OnceLock;

/// A pattern family: a name and its squares in digit order.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// Short name, used in weight files.
    pub name: &'static str,
    /// The squares of the base instance, least significant base-3 digit first.
    pub squares: &'static [&'static str],
}

/// Number of pattern families.
pub const FAMILY_COUNT: usize = 11;

/// The pattern families, in weight-file order (Logistello's and Edax's classic set).
pub const FAMILIES: [Family; FAMILY_COUNT] = [
    Family {
        name: "corner3x3",
        squares: &["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"],
    },
    Family {
        name: "corner2x5",
        squares: &["a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"],
    },
    Family {
        name: "edge2x",
        squares: &["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "b2", "g2"],
    },
    Family {
        name: "row2",
        squares: &["a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"],
    },
    Family {
        name: "row3",
        squares: &["a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3"],
    },
    Family {
        name: "row4",
        squares: &["a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"],
    },
    Family {
        name: "diag8",
        squares: &["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"],
    },
    Family {
        name: "diag7",
        squares: &["b1", "c2", "d3", "e4", "f5", "g6", "h7"],
    },
    Family {
        name: "diag6",
        squares: &["c1", "d2", "e3", "f4", "g5", "h6"],
    },
    Family {
        name: "diag5",
        squares: &["d1", "e2", "f3", "g4", "h5"],
    },
    Family {
        name: "diag4",
        squares: &["e1", "f2", "g3", "h4"],
    },
];

/// Gathers the base squares of family `f` from a bitboard: bit `k` of the result is the
/// family's `k`-th square. Must agree with [`FAMILIES`] (a test checks it).
#[inline(always)]
pub fn gather(f: usize, x: u64) -> usize {
    const DIAG8: u64 = 0x8040_2010_0804_0201;
    const MAGIC: u64 = 0x0101_0101_0101_0101;
    let v = match f {
        0 => (x & 7) | ((x >> 5) & 0x38) | ((x >> 10) & 0x1C0),
        1 => (x & 0x1F) | ((x >> 3) & 0x3E0),
        2 => (x & 0xFF) | ((x >> 1) & 0x100) | ((x >> 5) & 0x200),
        3 => (x >> 8) & 0xFF,
        4 => (x >> 16) & 0xFF,
        5 => (x >> 24) & 0xFF,
        6 => (x & DIAG8).wrapping_mul(MAGIC) >> 56,
        7 => (x & (DIAG8 << 1) & 0xFEFE_FEFE_FEFE_FEFE).wrapping_mul(MAGIC) >> 57,
        8 => (x & (DIAG8 << 2) & 0xFCFC_FCFC_FCFC_FCFC).wrapping_mul(MAGIC) >> 58,
        9 => (x & (DIAG8 << 3) & 0xF8F8_F8F8_F8F8_F8F8).wrapping_mul(MAGIC) >> 59,
        _ => (x & (DIAG8 << 4) & 0xF0F0_F0F0_F0F0_F0F0).wrapping_mul(MAGIC) >> 60,
    };
    v as usize
}

/// The squares of each family's base instance, for [`gather_pext`].
#[cfg(target_arch = "x86_64")]
const GATHER_MASKS: [u64; FAMILY_COUNT] = {
    const DIAG8: u64 = 0x8040_2010_0804_0201;
    [
        0x07_0707,
        0x1F1F,
        0x42FF,
        0xFF00,
        0xFF_0000,
        0xFF00_0000,
        DIAG8,
        (DIAG8 << 1) & 0xFEFE_FEFE_FEFE_FEFE,
        (DIAG8 << 2) & 0xFCFC_FCFC_FCFC_FCFC,
        (DIAG8 << 3) & 0xF8F8_F8F8_F8F8_F8F8,
        (DIAG8 << 4) & 0xF0F0_F0F0_F0F0_F0F0,
    ]
};

/// [`gather`] with one `pext`: each family lists its squares in increasing order, which is
/// the order `pext` packs them in (a test compares the two).
///
/// # Safety
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "bmi2")]
pub unsafe fn gather_pext(f: usize, x: u64) -> usize {
    std::arch::x86_64::_pext_u64(x, GATHER_MASKS[f]) as usize
}

/// `BASE3[x]`: the number whose base-3 digit `k` is bit `k` of `x` (10 bits).
pub static BASE3: [u16; 1024] = {
    let mut t = [0u16; 1024];
    let mut x = 0;
    while x < 1024 {
        let mut v = 0u32;
        let mut p = 1u32;
        let mut k = 0;
        while k < 10 {
            if x & (1 << k) != 0 {
                v += p;
            }
            p *= 3;
            k += 1;
        }
        t[x] = v as u16;
        x += 1;
    }
    t
};

/// The 8 symmetric images of a bitboard, indexed by [`Symmetry::code`] (equal to
/// `crate::board::transform(x, s)`).
#[derive(Clone, Copy, Debug)]
pub struct Transforms(pub [u64; 8]);

impl Transforms {
    /// The images of `x`.
    #[inline(always)]
    pub fn new(x: u64) -> Transforms {
        let m = mirror_columns(x);
        let t = transpose(x);
        let mt = mirror_columns(t);
        Transforms([
            x,
            m,
            x.swap_bytes(),
            m.swap_bytes(),
            t,
            mt,
            t.swap_bytes(),
            mt.swap_bytes(),
        ])
    }
}

/// One placed instance of a family.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Index into [`FAMILIES`].
    pub family: usize,
    /// The symmetry that maps the base instance onto this one.
    pub symmetry: Symmetry,
    /// Code of the inverse symmetry: the instance is read by [`gather`] on the board's image
    /// under it.
    pub inverse: u8,
    /// Its squares, in the family's digit order.
    pub squares: Vec<Square>,
}

/// 3 to the power `n`.
pub const fn pow3(n: usize) -> usize {
    let mut r = 1;
    let mut i = 0;
    while i < n {
        r *= 3;
        i += 1;
    }
    r
}

/// Size of each family's table (3 to the number of its squares).
pub const fn table_size(family: usize) -> usize {
    pow3(FAMILIES[family].squares.len())
}

/// The base squares of family `f`.
pub fn base_squares(f: usize) -> Vec<Square> {
    FAMILIES[f]
        .squares
        .iter()
        .map(|s| s.parse().expect("pattern squares are valid"))
        .collect()
}

/// All pattern instances on the board, family by family.
pub fn instances() -> &'static [Instance] {
    static CELL: OnceLock<Vec<Instance>> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut all: Vec<Instance> = Vec::new();
        for f in 0..FAMILY_COUNT {
            for (s, squares) in images(&base_squares(f)) {
                all.push(Instance {
                    family: f,
                    symmetry: s,
                    inverse: s.inverse().code(),
                    squares,
                });
            }
        }
        all
    })
}

/// The distinct images of a list of squares under the 8 symmetries (as sets of squares),
/// each with the first symmetry that gives it and its squares in the list's order.
pub fn images(base: &[Square]) -> Vec<(Symmetry, Vec<Square>)> {
    let mut seen: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    for s in Symmetry::ALL {
        let sq: Vec<Square> = base.iter().map(|&q| s.square(q)).collect();
        let mask = sq.iter().fold(0u64, |m, q| m | q.bit());
        if !seen.contains(&mask) {
            seen.push(mask);
            out.push((s, sq));
        }
    }
    out
}

/// Number of pattern instances (46).
pub const INSTANCE_COUNT: usize = 46;

/// The base-3 index of an instance on a board (relative to the side to move), square by
/// square: the reference for the fast path.
pub fn index(inst: &Instance, player: u64, opponent: u64) -> usize {
    let mut idx = 0;
    for &sq in inst.squares.iter().rev() {
        idx = idx * 3
            + ((player >> sq.index()) & 1) as usize
            + 2 * ((opponent >> sq.index()) & 1) as usize;
    }
    idx
}

/// For each family, `map[idx]` is the smallest index among the images of `idx` under the
/// symmetries that map the family's base squares onto themselves: indices with the same
/// canonical index must share a weight for the evaluation to be symmetric.
pub fn canonical_map() -> &'static [Vec<u32>; FAMILY_COUNT] {
    static CELL: OnceLock<[Vec<u32>; FAMILY_COUNT]> = OnceLock::new();
    CELL.get_or_init(|| std::array::from_fn(|f| canonical_map_of(&base_squares(f))))
}

/// `map[idx]` for the base-3 indices of the squares `base` (digit `k` the content of
/// `base[k]`): the smallest index among the images of `idx` under the symmetries that map
/// the set of squares onto itself, as [`canonical_map`] for a family.
pub fn canonical_map_of(base: &[Square]) -> Vec<u32> {
    let n = base.len();
    let mask = base.iter().fold(0u64, |m, q| m | q.bit());
    // Digit permutations of the self-symmetries (identity included).
    let perms: Vec<Vec<usize>> = Symmetry::ALL
        .iter()
        .filter_map(|&s| {
            let img: Vec<Square> = base.iter().map(|&q| s.square(q)).collect();
            let m = img.iter().fold(0u64, |m, q| m | q.bit());
            (m == mask).then(|| {
                img.iter()
                    .map(|q| base.iter().position(|b| b == q).expect("same set"))
                    .collect()
            })
        })
        .collect();
    let size = pow3(n);
    let mut map = vec![0u32; size];
    let mut digits = vec![0usize; n];
    for (idx, slot) in map.iter_mut().enumerate() {
        let mut x = idx;
        for d in digits.iter_mut() {
            *d = x % 3;
            x /= 3;
        }
        let mut best = idx;
        let mut image = vec![0usize; n];
        for perm in &perms {
            // The square of digit k moves to the square of digit perm[k].
            for (k, &d) in digits.iter().enumerate() {
                image[perm[k]] = d;
            }
            let v = image.iter().rev().fold(0, |a, &d| a * 3 + d);
            best = best.min(v);
        }
        *slot = best as u32;
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::transform;

    #[test]
    fn instance_counts() {
        let counts: Vec<usize> = (0..FAMILY_COUNT)
            .map(|f| instances().iter().filter(|i| i.family == f).count())
            .collect();
        assert_eq!(counts, [4, 8, 4, 4, 4, 4, 2, 4, 4, 4, 4]);
        assert_eq!(instances().len(), INSTANCE_COUNT);
    }

    #[test]
    fn gather_matches_squares() {
        for (f, fam) in FAMILIES.iter().enumerate() {
            for (k, sq) in base_squares(f).iter().enumerate() {
                assert_eq!(gather(f, sq.bit()), 1 << k, "{} {sq}", fam.name);
            }
            assert_eq!(gather(f, !0), (1 << base_squares(f).len()) - 1);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn gather_pext_matches_gather() {
        if !crate::board::fast_path_available() {
            eprintln!("no BMI2 on this CPU: nothing to compare");
            return;
        }
        let mut rng = crate::rng::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..10_000 {
            let x = rng.next_u64();
            for f in 0..FAMILY_COUNT {
                // SAFETY: the CPU has BMI2.
                assert_eq!(unsafe { gather_pext(f, x) }, gather(f, x), "{f} {x:x}");
            }
        }
    }

    #[test]
    fn transforms_match_board() {
        let x = 0x0123_4567_89AB_CDEFu64;
        let t = Transforms::new(x);
        for s in Symmetry::ALL {
            assert_eq!(t.0[s.code() as usize], transform(x, s));
        }
    }

    #[test]
    fn fast_index_matches_reference() {
        let mut r = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let p = r & 0x5A5A_F00F_3C3C_A5A5;
            let o = !p & r.rotate_left(17);
            let (tp, to) = (Transforms::new(p), Transforms::new(o));
            for inst in instances() {
                let i = inst.inverse as usize;
                let fast = BASE3[gather(inst.family, tp.0[i])] as usize
                    + 2 * BASE3[gather(inst.family, to.0[i])] as usize;
                assert_eq!(fast, index(inst, p, o));
            }
        }
    }

    #[test]
    fn canonical_map_is_idempotent() {
        let m = canonical_map();
        for (f, map) in m.iter().enumerate() {
            assert_eq!(map.len(), table_size(f));
            for (i, &c) in map.iter().enumerate() {
                assert!(c as usize <= i);
                assert_eq!(map[c as usize], c);
            }
        }
        // A row and its reverse share a weight.
        assert_eq!(m[3][1], m[3][pow3(7)]);
    }
}
