//! Position evaluation: pattern tables per game phase plus a mobility term.
//!
//! [`Weights`] holds, for each phase, one table per pattern family (see [`pattern`]), a
//! mobility table and a bias for each parity of the empties, all in units of 1/[`SCALE`] disc. [`Weights::hand_set`] fills
//! them from a classic square-value heuristic; the trained weights (see `crate::train` and
//! [`file`](mod@file)) use the same layout and ship inside the crate. [`Weights::evaluate`] returns an
//! estimate of the final disc difference for the side to move, in whole discs;
//! [`Weights::after`] gives the same values for every position one move after a given one,
//! for less work (the searches' move ordering).

pub mod after;
pub mod file;
pub mod pattern;
pub mod terms;

pub use file::{load, save};

#[cfg(target_arch = "x86_64")]
use crate::board::avx2;
use crate::board::{Board, Square, fast_path_available, legal_moves};
use pattern::{
    FAMILIES, FAMILY_COUNT, INSTANCE_COUNT, Instance, Transforms, instances, table_size,
};
use std::sync::{Arc, OnceLock};
pub use terms::{Term, Terms};

/// Weight units per disc.
pub const SCALE: i32 = 64;

/// Number of game phases of the coarse grouping (`p` covers empties `4p+1 ..= 4p+4`): the
/// default weights' phases, and the phases of the ProbCut tables and the error reports.
pub const PHASES: usize = 15;

/// Empty squares per phase of the coarse grouping.
pub const EMPTIES_PER_PHASE: u32 = 4;

/// The number of phases of weights with `per_phase` empty squares to a phase (1 to 60):
/// phase `p` covers empties `per_phase * p + 1 ..= per_phase * (p + 1)`, the last one
/// whatever is left up to 60.
pub const fn phases_of(per_phase: u32) -> usize {
    60u32.div_ceil(per_phase) as usize
}

/// Mobility differences kept in the mobility table (-32..=32).
pub const MOBILITY_SPAN: usize = 65;

/// Features of one position: one per pattern instance, then the mobility entry, then the
/// bias entry.
pub const FEATURES: usize = pattern::INSTANCE_COUNT + 2;

/// Bias entries per phase: one for an even number of empties, one for an odd number (the
/// side to move has the parity then, worth about two discs late in the game).
pub const BIAS_SPAN: usize = 2;

/// The coarse phase ([`PHASES`]) of a position with `empties` empty squares.
#[inline(always)]
pub fn phase(empties: u32) -> usize {
    phase_in(empties, EMPTIES_PER_PHASE)
}

/// The phase of a position with `empties` empty squares in weights of `per_phase` empties
/// to a phase.
#[inline(always)]
pub fn phase_in(empties: u32, per_phase: u32) -> usize {
    ((empties.max(1) - 1) / per_phase).min(phases_of(per_phase) as u32 - 1) as usize
}

/// Where each part of a phase's weights starts inside the phase's block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Start of each family's table.
    pub offsets: [usize; FAMILY_COUNT],
    /// Start of the mobility table ([`MOBILITY_SPAN`] entries).
    pub mobility: usize,
    /// Start of the bias entries ([`BIAS_SPAN`]: even, odd empties).
    pub bias: usize,
    /// Entries per phase.
    pub size: usize,
}

/// The layout of a phase's block.
pub const LAYOUT: Layout = {
    let mut offsets = [0usize; FAMILY_COUNT];
    let mut total = 0;
    let mut f = 0;
    while f < FAMILY_COUNT {
        offsets[f] = total;
        total += table_size(f);
        f += 1;
    }
    Layout {
        offsets,
        mobility: total,
        bias: total + MOBILITY_SPAN,
        size: total + MOBILITY_SPAN + BIAS_SPAN,
    }
};

/// The inverse-symmetry codes of each family's instances, `[family] -> (count, codes)`,
/// as [`pattern::instances`] lists them (a test checks it).
const PLAN: [(usize, [u8; 8]); FAMILY_COUNT] = [
    (4, [0, 1, 2, 3, 0, 0, 0, 0]),
    (8, [0, 1, 2, 3, 4, 6, 5, 7]),
    (4, [0, 2, 4, 6, 0, 0, 0, 0]),
    (4, [0, 2, 4, 6, 0, 0, 0, 0]),
    (4, [0, 2, 4, 6, 0, 0, 0, 0]),
    (4, [0, 2, 4, 6, 0, 0, 0, 0]),
    (2, [0, 1, 0, 0, 0, 0, 0, 0]),
    (4, [0, 1, 2, 3, 0, 0, 0, 0]),
    (4, [0, 1, 2, 3, 0, 0, 0, 0]),
    (4, [0, 1, 2, 3, 0, 0, 0, 0]),
    (4, [0, 1, 2, 3, 0, 0, 0, 0]),
];

/// Start of each instance's table inside a phase's block, in instance order.
const INSTANCE_OFFSETS: [u32; INSTANCE_COUNT] = {
    let mut out = [0u32; INSTANCE_COUNT];
    let mut k = 0;
    let mut f = 0;
    while f < PLAN.len() {
        let mut i = 0;
        while i < PLAN[f].0 {
            out[k] = LAYOUT.offsets[f] as u32;
            k += 1;
            i += 1;
        }
        f += 1;
    }
    assert!(k == INSTANCE_COUNT);
    out
};

/// The index of the mobility entry for a board (relative to the phase block).
#[inline(always)]
fn mobility_index(p: u64, o: u64) -> usize {
    mobility_entry(legal_moves(p, o), legal_moves(o, p))
}

/// The index of the mobility entry for the moves of both sides.
#[inline(always)]
fn mobility_entry(mine: u64, theirs: u64) -> usize {
    let mob = mine.count_ones() as i32 - theirs.count_ones() as i32;
    LAYOUT.mobility + (mob + 32).clamp(0, MOBILITY_SPAN as i32 - 1) as usize
}

/// The base-3 index of the instance of family `F` read from the boards' images under the
/// symmetry `s` (see [`pattern`]); `FAST` reads it with `pext` (only in code compiled for
/// BMI2).
#[inline(always)]
fn instance_index<const F: usize, const FAST: bool>(
    tp: &Transforms,
    to: &Transforms,
    s: usize,
) -> usize {
    let gather = |x: u64| {
        #[cfg(target_arch = "x86_64")]
        if FAST {
            // SAFETY: FAST is only set in code compiled for BMI2.
            return unsafe { pattern::gather_pext(F, x) };
        }
        pattern::gather(F, x)
    };
    // The masks only tell the compiler that a gather has at most 10 bits.
    pattern::BASE3[gather(tp.0[s]) & 1023] as usize
        + 2 * pattern::BASE3[gather(to.0[s]) & 1023] as usize
}

/// The legal moves of `p` against `o`; `FAST` takes the AVX2 move generator (only in code
/// compiled for AVX2).
#[inline(always)]
fn legal<const FAST: bool>(p: u64, o: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if FAST {
        // SAFETY: FAST is only set in code compiled for AVX2.
        return unsafe { avx2::legal_moves(p, o) };
    }
    legal_moves(p, o)
}

/// The entries of the instances of family `F`, summed; `FAST` as for [`instance_index`].
#[inline(always)]
fn family_sum<const F: usize, const FAST: bool>(
    w: &[i16],
    tp: &Transforms,
    to: &Transforms,
) -> i32 {
    let (n, syms) = PLAN[F];
    let t = &w[LAYOUT.offsets[F]..LAYOUT.offsets[F] + table_size(F)];
    let mut sum = 0;
    for &s in &syms[..n] {
        let i = instance_index::<F, FAST>(tp, to, s as usize);
        // The discs of the two sides are disjoint, so the index is inside the table: the
        // `min` only spares a bounds check.
        sum += t[i.min(table_size(F) - 1)] as i32;
    }
    sum
}

/// The raw evaluation of `board` with the weights `w` of its phase and the block `tw` of
/// its optional `terms` (see [`Weights::evaluate_units`]); `FAST` selects `pext` and the
/// AVX2 move generator.
#[inline(always)]
fn units<const FAST: bool>(w: &[i16], terms: &Terms, tw: &[i16], board: &Board) -> i32 {
    let (p, o) = (board.player, board.opponent);
    let (tp, to) = (Transforms::new(p), Transforms::new(o));
    let (mine, theirs) = (legal::<FAST>(p, o), legal::<FAST>(o, p));
    let mobility = mobility_entry(mine, theirs);
    let whole = if terms.is_empty() {
        0
    } else {
        terms.units_with::<FAST>(tw, board, (mine, theirs), &tp, &to)
    };
    whole
        + w[bias_index(board)] as i32
        + family_sum::<0, FAST>(w, &tp, &to)
        + family_sum::<1, FAST>(w, &tp, &to)
        + family_sum::<2, FAST>(w, &tp, &to)
        + family_sum::<3, FAST>(w, &tp, &to)
        + family_sum::<4, FAST>(w, &tp, &to)
        + family_sum::<5, FAST>(w, &tp, &to)
        + family_sum::<6, FAST>(w, &tp, &to)
        + family_sum::<7, FAST>(w, &tp, &to)
        + family_sum::<8, FAST>(w, &tp, &to)
        + family_sum::<9, FAST>(w, &tp, &to)
        + family_sum::<10, FAST>(w, &tp, &to)
        + w[mobility] as i32
}

/// [`units`] compiled for x86-64 CPUs with BMI2 and AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn units_x86(w: &[i16], terms: &Terms, tw: &[i16], board: &Board) -> i32 {
    units::<true>(w, terms, tw, board)
}

/// Whether the evaluation takes its x86-64 path (decided once).
fn fast_eval() -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(fast_path_available)
}

/// Writes the base-3 index of every pattern instance of the board (`p` to move, `o` the
/// opponent) into `out`, in [`pattern::instances`] order; `FAST` reads the patterns with
/// `pext` (only in code compiled for BMI2).
#[inline(always)]
fn indices<const FAST: bool>(p: u64, o: u64, out: &mut [u16; INSTANCE_COUNT]) {
    let (tp, to) = (Transforms::new(p), Transforms::new(o));
    let mut k = 0;
    macro_rules! family {
        ($($f:literal)*) => {$(
            let (n, syms) = PLAN[$f];
            for &s in &syms[..n] {
                out[k] = instance_index::<$f, FAST>(&tp, &to, s as usize) as u16;
                k += 1;
            }
        )*};
    }
    family!(0 1 2 3 4 5 6 7 8 9 10);
}

/// Writes the feature indices of `board` (relative to the start of its phase's block) into
/// `out`: one per pattern instance (family offset plus pattern index), then the mobility
/// entry, then the bias entry. The evaluation is the sum of these entries.
pub fn features(board: &Board, out: &mut [u32; FEATURES]) {
    let (p, o) = (board.player, board.opponent);
    let mut idx = [0u16; INSTANCE_COUNT];
    indices::<false>(p, o, &mut idx);
    for (k, (&i, &off)) in idx.iter().zip(&INSTANCE_OFFSETS).enumerate() {
        out[k] = off + i as u32;
    }
    out[INSTANCE_COUNT] = mobility_index(p, o) as u32;
    out[INSTANCE_COUNT + 1] = bias_index(board) as u32;
}

/// The feature indices of `board` in weights with the optional `terms`, into `out`
/// (cleared first): those of [`features`], then one per term, counted from the end of the
/// phase's block ([`LAYOUT`]`.size`), as if the block of terms followed it.
pub fn features_with(board: &Board, terms: &Terms, out: &mut Vec<u32>) {
    let mut f = [0u32; FEATURES];
    features(board, &mut f);
    out.clear();
    out.extend_from_slice(&f);
    let (p, o) = (board.player, board.opponent);
    let (mine, theirs) = (legal_moves(p, o), legal_moves(o, p));
    terms.entries(board, mine, theirs, |i| out.push((LAYOUT.size + i) as u32));
}

/// The index of the bias entry for a board (relative to the phase block).
#[inline(always)]
fn bias_index(board: &Board) -> usize {
    LAYOUT.bias + (board.empty_count() & 1) as usize
}

/// All the weights of the evaluation: one block per phase, laid out as [`LAYOUT`], and for
/// each phase a block of the optional terms it has ([`Terms`], none by default); the
/// phases are [`EMPTIES_PER_PHASE`] empties wide by default, or as narrow as one number of
/// empties ([`Weights::zero_with`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    data: Vec<i16>,
    /// The optional terms, and their blocks, one per phase.
    terms: Terms,
    extra: Vec<i16>,
    /// Empty squares per phase.
    per_phase: u32,
    /// The phase of each number of empties, 0 to 64.
    phase_of: [u8; 65],
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
    /// All-zero weights of [`PHASES`] phases.
    pub fn zero() -> Weights {
        Weights::zero_with(EMPTIES_PER_PHASE)
    }

    /// All-zero weights of `per_phase` empties to a phase (1 to 60; 1 gives one phase per
    /// number of empties, as in Edax).
    pub fn zero_with(per_phase: u32) -> Weights {
        Weights::zero_with_terms(per_phase, Terms::none())
    }

    /// All-zero weights of `per_phase` empties to a phase with the optional `terms`.
    pub fn zero_with_terms(per_phase: u32, terms: Terms) -> Weights {
        assert!(
            (1..=60).contains(&per_phase),
            "{per_phase} empties per phase"
        );
        let mut phase_of = [0u8; 65];
        for (e, p) in phase_of.iter_mut().enumerate() {
            *p = phase_in(e as u32, per_phase) as u8;
        }
        Weights {
            data: vec![0; phases_of(per_phase) * LAYOUT.size],
            extra: vec![0; phases_of(per_phase) * terms.size()],
            terms,
            per_phase,
            phase_of,
        }
    }

    /// The optional terms of these weights.
    pub fn terms(&self) -> &Terms {
        &self.terms
    }

    /// The block of optional terms of phase `p` (empty when there are none).
    pub fn terms_block(&self, p: usize) -> &[i16] {
        let n = self.terms.size();
        &self.extra[p * n..(p + 1) * n]
    }

    /// The block of optional terms of phase `p`, to change it.
    pub fn terms_block_mut(&mut self, p: usize) -> &mut [i16] {
        let n = self.terms.size();
        &mut self.extra[p * n..(p + 1) * n]
    }

    /// The number of phases.
    pub fn phases(&self) -> usize {
        phases_of(self.per_phase)
    }

    /// Empty squares per phase.
    pub fn empties_per_phase(&self) -> u32 {
        self.per_phase
    }

    /// The phase of a position with `empties` empty squares.
    #[inline(always)]
    pub fn phase(&self, empties: u32) -> usize {
        self.phase_of[empties.min(64) as usize] as usize
    }

    /// The weights of phase `p` ([`LAYOUT`] gives the parts).
    pub fn block(&self, p: usize) -> &[i16] {
        &self.data[p * LAYOUT.size..(p + 1) * LAYOUT.size]
    }

    /// The weights of phase `p`, to change them.
    pub fn block_mut(&mut self, p: usize) -> &mut [i16] {
        &mut self.data[p * LAYOUT.size..(p + 1) * LAYOUT.size]
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
                for d in digits.iter_mut() {
                    *d = x % 3;
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
                for p in 0..PHASES {
                    w.block_mut(p)[LAYOUT.offsets[f] + idx] = units;
                }
            }
        }
        for p in 0..PHASES {
            // Mobility matters most in the midgame.
            let per_move = if p >= 3 { 0.35 } else { 0.15 };
            let b = w.block_mut(p);
            for k in 0..MOBILITY_SPAN {
                b[LAYOUT.mobility + k] =
                    ((k as f64 - 32.0) * per_move * SCALE as f64).round() as i16;
            }
        }
        w
    }

    /// The raw evaluation in weight units (1/[`SCALE`] disc) for the side to move.
    #[inline]
    pub fn evaluate_units(&self, board: &Board) -> i32 {
        let ph = self.phase(board.empty_count());
        let (w, tw) = (self.block(ph), self.terms_block(ph));
        #[cfg(target_arch = "x86_64")]
        if fast_eval() {
            // SAFETY: the CPU has the features of the x86-64 path.
            return unsafe { units_x86(w, &self.terms, tw, board) };
        }
        units::<false>(w, &self.terms, tw, board)
    }

    /// [`Weights::evaluate_units`] on the portable path, whatever the CPU (for tests and
    /// benchmarks).
    pub fn evaluate_units_portable(&self, board: &Board) -> i32 {
        let ph = self.phase(board.empty_count());
        units::<false>(self.block(ph), &self.terms, self.terms_block(ph), board)
    }

    /// The estimated final disc difference for the side to move, in whole discs, kept
    /// inside -63..=63 so that it never claims a certain result.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        discs(self.evaluate_units(board))
    }

    /// The slow reference evaluation (square by square), for tests.
    pub fn evaluate_units_reference(&self, board: &Board) -> i32 {
        let (p, o) = (board.player, board.opponent);
        let ph = self.phase(board.empty_count());
        let w = self.block(ph);
        let mut sum = w[bias_index(board)] as i32;
        for inst in instances() {
            sum += w[LAYOUT.offsets[inst.family] + pattern::index(inst, p, o)] as i32;
        }
        let (mine, theirs) = (
            crate::board::legal_moves_reference(p, o),
            crate::board::legal_moves_reference(o, p),
        );
        sum += self.terms.units(self.terms_block(ph), board, mine, theirs);
        sum + w[mobility_index(p, o)] as i32
    }
}

/// Weight units in whole discs, rounded to the nearest and kept inside -63..=63 (see
/// [`Weights::evaluate`]).
#[inline(always)]
fn discs(u: i32) -> i32 {
    let d = if u >= 0 {
        (u + SCALE / 2) / SCALE
    } else {
        -((-u + SCALE / 2) / SCALE)
    };
    d.clamp(-63, 63)
}

/// The shipped weights file (see [`file`](mod@file) for the format).
static SHIPPED: &[u8] = include_bytes!("../../weights/eval.ofw");

/// The weights that ship inside the crate, decoded once (the hand-set ones in a build whose
/// weights file is empty).
pub fn shipped_weights() -> Arc<Weights> {
    static CELL: OnceLock<Arc<Weights>> = OnceLock::new();
    CELL.get_or_init(|| {
        Arc::new(if SHIPPED.is_empty() {
            Weights::hand_set()
        } else {
            file::decode(SHIPPED).expect("the shipped weights decode")
        })
    })
    .clone()
}

/// The weights of the weights file at `path`, else (no path) the shipped ones.
pub fn load_or_shipped(path: Option<&std::path::Path>) -> anyhow::Result<Arc<Weights>> {
    Ok(match path {
        Some(p) => Arc::new(file::load(p)?),
        None => shipped_weights(),
    })
}

/// The weights used when none are given: the shipped ones. (Other weights reach an engine
/// through [`crate::search::Engine::set_eval`]; there is no process-wide setting.)
pub fn default_weights() -> Weights {
    (*shipped_weights()).clone()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::board::Symmetry;

    #[test]
    fn plan_matches_instances() {
        for f in 0..FAMILY_COUNT {
            let codes: Vec<u8> = instances()
                .iter()
                .filter(|i| i.family == f)
                .map(|i| i.inverse)
                .collect();
            assert_eq!(&PLAN[f].1[..PLAN[f].0], &codes[..], "{}", FAMILIES[f].name);
        }
    }

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

    /// Boards along a pseudo-random game.
    pub(crate) fn sample_boards() -> Vec<Board> {
        let mut out = Vec::new();
        let mut r = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20 {
            let mut b = Board::start();
            loop {
                let m = b.moves();
                if m == 0 {
                    if b.opponent_moves() == 0 {
                        break;
                    }
                    b = b.passed();
                    continue;
                }
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                let n = (r % m.count_ones() as u64) as u32;
                let mut mm = m;
                for _ in 0..n {
                    mm &= mm - 1;
                }
                let sq = Square::new(mm.trailing_zeros() as u8).unwrap();
                b = b.play(sq).unwrap();
                out.push(b);
            }
        }
        out
    }

    /// The fast, portable and reference evaluations and the sum of the features' entries
    /// agree on `boards`.
    fn paths_agree(w: &Weights, boards: impl Iterator<Item = Board>) {
        for b in boards {
            let v = w.evaluate_units(&b);
            assert_eq!(v, w.evaluate_units_reference(&b));
            assert_eq!(v, w.evaluate_units_portable(&b));
            let mut f = Vec::new();
            features_with(&b, w.terms(), &mut f);
            let ph = w.phase(b.empty_count());
            let (blk, tblk) = (w.block(ph), w.terms_block(ph));
            let entry = |i: u32| {
                let i = i as usize;
                if i < LAYOUT.size {
                    blk[i]
                } else {
                    tblk[i - LAYOUT.size]
                }
            };
            assert_eq!(f.iter().map(|&i| entry(i) as i32).sum::<i32>(), v);
        }
    }

    #[test]
    fn fast_matches_reference_and_features() {
        paths_agree(&shipped_weights(), sample_boards().into_iter());
    }

    /// Weights of `per_phase` empties to a phase filled with pseudo-random values (their
    /// symmetric entries not tied).
    pub(crate) fn random_weights(per_phase: u32, seed: u64) -> Weights {
        random_weights_with(per_phase, Terms::none(), seed)
    }

    /// [`random_weights`] with the optional `terms`, their tables random too.
    pub(crate) fn random_weights_with(per_phase: u32, terms: Terms, seed: u64) -> Weights {
        let mut w = Weights::zero_with_terms(per_phase, terms);
        let mut rng = crate::rng::Rng::new(seed);
        for p in 0..w.phases() {
            for v in w.block_mut(p) {
                *v = rng.below(401) as i16 - 200;
            }
            for v in w.terms_block_mut(p) {
                *v = rng.below(401) as i16 - 200;
            }
        }
        w
    }

    #[test]
    fn one_phase_per_number_of_empties_takes_its_own_block() {
        let mut w = Weights::zero_with(1);
        assert_eq!((w.phases(), w.empties_per_phase()), (60, 1));
        for p in 0..60 {
            let b = w.block_mut(p);
            b[LAYOUT.bias] = 64 * p as i16;
            b[LAYOUT.bias + 1] = 64 * p as i16;
        }
        for b in sample_boards() {
            let e = b.empty_count();
            let expected = e.max(1) as i32 - 1;
            assert_eq!(w.evaluate(&b), expected, "{e} empties");
            assert_eq!(w.evaluate_units_portable(&b), 64 * expected);
            assert_eq!(w.evaluate_units_reference(&b), 64 * expected);
        }
        // The coarse grouping: four numbers of empties share a block.
        let mut w = Weights::zero();
        for p in 0..PHASES {
            w.block_mut(p)[LAYOUT.bias] = 64 * p as i16;
            w.block_mut(p)[LAYOUT.bias + 1] = 64 * p as i16;
        }
        for (e, p) in [(1, 0), (4, 0), (5, 1), (56, 13), (57, 14), (60, 14)] {
            assert_eq!(w.phase(e), p);
            assert_eq!(phase(e), p);
        }
    }

    #[test]
    fn random_weights_of_any_grouping_match_the_reference() {
        for per in [1, 2, 4, 7] {
            let w = random_weights(per, 11 + per as u64);
            assert_eq!(w.phases(), 60usize.div_ceil(per as usize));
            paths_agree(&w, sample_boards().into_iter().step_by(3));
        }
    }

    #[test]
    fn whole_board_terms_count_on_every_path() {
        for (k, terms) in [
            vec![Term::Discs],
            vec![Term::PotentialMobility],
            vec![Term::Mobility],
            Term::ALL.to_vec(),
        ]
        .into_iter()
        .enumerate()
        {
            let w = random_weights_with(1 + 3 * k as u32, Terms::new(&terms), 40 + k as u64);
            paths_agree(&w, sample_boards().into_iter().step_by(2));
            // The terms change the value: the same weights without them differ somewhere.
            let mut plain = Weights::zero_with(w.empties_per_phase());
            for p in 0..w.phases() {
                plain.block_mut(p).copy_from_slice(w.block(p));
            }
            assert!(
                sample_boards()
                    .iter()
                    .any(|b| plain.evaluate_units(b) != w.evaluate_units(b)),
                "{terms:?}"
            );
        }
        // The disc term alone: its entry for the side to move's disc count.
        let mut w = Weights::zero_with_terms(4, Terms::new(&[Term::Discs]));
        for p in 0..w.phases() {
            for (n, v) in w.terms_block_mut(p).iter_mut().enumerate() {
                *v = 64 * n as i16;
            }
        }
        for b in sample_boards().iter().step_by(5) {
            assert_eq!(w.evaluate(b), b.player.count_ones() as i32);
        }
    }

    #[test]
    fn shipped_weights_are_symmetric() {
        let w = shipped_weights();
        for b in sample_boards().into_iter().step_by(7) {
            let v = w.evaluate_units(&b);
            for s in Symmetry::ALL {
                assert_eq!(w.evaluate_units(&b.transformed(s)), v, "{s:?}");
            }
        }
    }
}
