//! The pattern set: groups of squares whose joint content is scored by a table.
//!
//! Each pattern family (edge, corner block, diagonal, ...) is written once as a list of squares;
//! its instances are the distinct images of that list under the 8 board symmetries. All the
//! instances of a family share one weight table, indexed by the base-3 code of their squares
//! (0 empty, 1 the side to move's disc, 2 the opponent's), first square most significant.

use crate::board::{Square, Symmetry};
use std::sync::OnceLock;

/// A pattern family: a name and its squares in the orientation written here.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// Short name, used in weight files.
    pub name: &'static str,
    /// The squares of the base instance, most significant base-3 digit first.
    pub squares: &'static [&'static str],
}

/// The pattern families, in weight-file order (Logistello's and Edax's classic set).
pub const FAMILIES: [Family; 11] = [
    Family {
        name: "corner3x3",
        squares: &["a1", "b1", "a2", "b2", "c1", "a3", "c2", "b3", "c3"],
    },
    Family {
        name: "corner2x5",
        squares: &["a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"],
    },
    Family {
        name: "edge2x",
        squares: &["b2", "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "g2"],
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

/// One placed instance of a family.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Index into [`FAMILIES`].
    pub family: usize,
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
pub fn table_size(family: usize) -> usize {
    pow3(FAMILIES[family].squares.len())
}

/// All pattern instances on the board, family by family.
pub fn instances() -> &'static [Instance] {
    static CELL: OnceLock<Vec<Instance>> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut all: Vec<Instance> = Vec::new();
        for (f, fam) in FAMILIES.iter().enumerate() {
            let base: Vec<Square> = fam
                .squares
                .iter()
                .map(|s| s.parse().expect("pattern squares are valid"))
                .collect();
            let mut seen: Vec<u64> = Vec::new();
            for s in Symmetry::ALL {
                let sq: Vec<Square> = base.iter().map(|&q| s.square(q)).collect();
                let mask = sq.iter().fold(0u64, |m, q| m | q.bit());
                if !seen.contains(&mask) {
                    seen.push(mask);
                    all.push(Instance {
                        family: f,
                        squares: sq,
                    });
                }
            }
        }
        all
    })
}

/// The base-3 index of an instance on a board (relative to the side to move).
#[inline]
pub fn index(inst: &Instance, player: u64, opponent: u64) -> usize {
    let mut idx = 0;
    for &sq in &inst.squares {
        idx = idx * 3
            + ((player >> sq.index()) & 1) as usize
            + 2 * ((opponent >> sq.index()) & 1) as usize;
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_counts() {
        let counts: Vec<usize> = (0..FAMILIES.len())
            .map(|f| instances().iter().filter(|i| i.family == f).count())
            .collect();
        assert_eq!(counts, [4, 8, 4, 4, 4, 4, 2, 4, 4, 4, 4]);
    }
}
