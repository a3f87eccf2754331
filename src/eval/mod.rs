//! Position evaluation: pattern tables per game phase plus a mobility term.
//!
//! [`Weights`] holds one table per pattern family (see [`pattern`]) and per phase, a mobility
//! table and a bias. [`Weights::hand_set`] fills them from a classic square-value heuristic;
//! trained weights replace them with the same layout. [`Weights::evaluate`] returns an
//! estimate of the final disc difference for the side to move, in whole discs.

pub mod pattern;

use crate::board::{Board, Square, legal_moves};
use pattern::{FAMILIES, Instance, index, instances, table_size};

/// The weights used when none are given: the shipped ones.
pub fn default_weights() -> Weights {
    Weights::hand_set()
}

/// Weight units per disc.
pub const SCALE: i32 = 64;

/// Number of game phases; phase `p` covers empties `4p+1 ..= 4p+4`.
pub const PHASES: usize = 15;

/// Mobility differences kept in the mobility table (-32..=32).
const MOBILITY_SPAN: usize = 65;

/// The phase of a position with `empties` empty squares.
#[inline(always)]
pub fn phase(empties: u32) -> usize {
    ((empties.max(1) - 1) / 4).min(PHASES as u32 - 1) as usize
}

/// All the weights of the evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// `tables[phase][offset[family] + index]`.
    pub tables: Vec<Vec<i16>>,
    /// Start of each family's table inside a phase's table.
    pub offsets: Vec<usize>,
    /// `mobility[phase][moves(player) - moves(opponent) + 32]`.
    pub mobility: Vec<[i16; MOBILITY_SPAN]>,
    /// A constant per phase (the side to move's advantage).
    pub bias: Vec<i16>,
}

/// Offsets of each family's table and the total size of one phase's tables.
fn layout() -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(FAMILIES.len());
    let mut total = 0;
    for f in 0..FAMILIES.len() {
        offsets.push(total);
        total += table_size(f);
    }
    (offsets, total)
}

/// Classic square values in discs, for the hand-set weights (a1 quadrant; the board is
/// symmetric).
const SQUARE_VALUES: [[f64; 4]; 4] = [
    [5.0, -1.5, 1.0, 0.5],
    [-1.5, -3.0, -0.5, -0.25],
    [1.0, -0.5, 0.25, 0.1],
    [0.5, -0.25, 0.1, 0.0],
];

fn square_value(sq: Square) -> f64 {
    let c = sq.column().min(7 - sq.column()) as usize;
    let r = sq.row().min(7 - sq.row()) as usize;
    SQUARE_VALUES[r][c]
}

/// The corner next to an X- or C-square, if `sq` is one.
fn guarded_corner(sq: Square) -> Option<Square> {
    let c = sq.column().min(7 - sq.column());
    let r = sq.row().min(7 - sq.row());
    if (c, r) == (1, 1) || (c, r) == (1, 0) || (c, r) == (0, 1) {
        let cc = if sq.column() < 4 { 0 } else { 7 };
        let cr = if sq.row() < 4 { 0 } else { 7 };
        Square::from_coords(cc, cr)
    } else {
        None
    }
}

impl Weights {
    /// All-zero weights in the standard layout.
    pub fn zero() -> Weights {
        let (offsets, total) = layout();
        Weights {
            tables: vec![vec![0; total]; PHASES],
            offsets,
            mobility: vec![[0; MOBILITY_SPAN]; PHASES],
            bias: vec![0; PHASES],
        }
    }

    /// A sensible hand-set evaluation: square values (X- and C-squares bad only while their
    /// corner is empty) spread over the patterns that cover each square, and mobility.
    pub fn hand_set() -> Weights {
        let mut w = Weights::zero();
        let inst = instances();
        let mut coverage = [0u32; 64];
        for i in inst {
            for s in &i.squares {
                coverage[s.index()] += 1;
            }
        }
        // Every instance of a family is a symmetric image of the first, so the first one
        // defines the table.
        for (f, _) in FAMILIES.iter().enumerate() {
            let first: &Instance = inst.iter().find(|i| i.family == f).expect("instance");
            let n = first.squares.len();
            for idx in 0..table_size(f) {
                let mut digits = vec![0usize; n];
                let mut x = idx;
                for d in (0..n).rev() {
                    digits[d] = x % 3;
                    x /= 3;
                }
                let occupied = |sq: Square| {
                    first
                        .squares
                        .iter()
                        .position(|&q| q == sq)
                        .is_some_and(|k| digits[k] != 0)
                };
                let mut v = 0.0;
                for (k, &sq) in first.squares.iter().enumerate() {
                    let sign = match digits[k] {
                        1 => 1.0,
                        2 => -1.0,
                        _ => continue,
                    };
                    let mut value = square_value(sq);
                    if guarded_corner(sq).is_some_and(occupied) {
                        value = 0.3;
                    }
                    v += sign * value / coverage[sq.index()] as f64;
                }
                let units = (v * SCALE as f64).round() as i16;
                for t in &mut w.tables {
                    t[w.offsets[f] + idx] = units;
                }
            }
        }
        for (p, m) in w.mobility.iter_mut().enumerate() {
            // Mobility matters most in the midgame.
            let per_move = if p >= 3 { 0.35 } else { 0.15 };
            for (k, v) in m.iter_mut().enumerate() {
                *v = ((k as f64 - 32.0) * per_move * SCALE as f64).round() as i16;
            }
        }
        w
    }

    /// The raw evaluation in weight units (1/[`SCALE`] disc) for the side to move.
    pub fn evaluate_units(&self, board: &Board) -> i32 {
        let (p, o) = (board.player, board.opponent);
        let ph = phase(board.empty_count());
        let t = &self.tables[ph];
        let mut sum = self.bias[ph] as i32;
        for inst in instances() {
            sum += t[self.offsets[inst.family] + index(inst, p, o)] as i32;
        }
        let mob = legal_moves(p, o).count_ones() as i32 - legal_moves(o, p).count_ones() as i32;
        sum + self.mobility[ph][(mob + 32).clamp(0, 64) as usize] as i32
    }

    /// The estimated final disc difference for the side to move, in whole discs, kept
    /// inside -63..=63 so that it never claims a certain result.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        let u = self.evaluate_units(board);
        let d = if u >= 0 {
            (u + SCALE / 2) / SCALE
        } else {
            -((-u + SCALE / 2) / SCALE)
        };
        d.clamp(-63, 63)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Symmetry;

    #[test]
    fn start_is_balanced_and_symmetric() {
        let w = Weights::hand_set();
        let b = Board::start();
        assert_eq!(w.evaluate(&b), 0);
        let after = b.play("f5".parse().unwrap()).unwrap();
        let v = w.evaluate_units(&after);
        for s in Symmetry::ALL {
            assert_eq!(w.evaluate_units(&after.transformed(s)), v);
        }
    }

    #[test]
    fn corner_is_good() {
        let w = Weights::hand_set();
        // Side to move owns a1, opponent owns h8 region edge.
        let b = Board::new(1 | (1 << 27), (1 << 28) | (1 << 36));
        assert!(w.evaluate(&b) > 0);
    }
}
