//! Optional terms beside the classic patterns: tables indexed by one number computed from
//! the whole board (the side to move's disc count, both sides' potential mobility, both
//! sides' mobility, the parity of the quadrants' and the regions' empties), and larger
//! pattern families of ten squares (as the strongest pattern engines add: a corner
//! triangle, an edge with the block inside it, a corner's thick diagonal), each summed over
//! its symmetric images.
//!
//! Weights carry any set of them ([`Terms`], empty by default: the shipped weights have
//! none); the weights file names the ones it holds, and `train fit --terms` chooses them.
//! The whole-board numbers are the same for every symmetric image of a position; a
//! pattern's indices that a symmetry of its own squares exchanges are tied by the fit
//! ([`Term::ties`]), as the classic families' are.

use super::pattern::{BASE3, Transforms, canonical_map_of, images, pow3};
use crate::board::{Board, Square, neighbours, odd_quadrant_mask, potential_moves};
use anyhow::bail;
use std::sync::OnceLock;

/// Largest count kept apart in the two-sided tables; larger counts share its entry.
const COUNT_CAP: usize = 31;

/// Entries of a two-sided table: a count for each side, each 0 to [`COUNT_CAP`].
const PAIR_SPAN: usize = (COUNT_CAP + 1) * (COUNT_CAP + 1);

/// Entries of the parity-quadrants table: four counts of 0 to 4 quadrants.
const QUADRANT_SPAN: usize = 625;

/// The parity-quadrants index of a board with the empty squares `empty`, whose side to move
/// has the legal moves `mine` and the opponent `theirs`: of the quadrants with an odd number
/// of empties, how many only the side to move can play into, only the opponent, both,
/// neither (base 5, in that order).
#[inline(always)]
fn parity_quadrants(empty: u64, mine: u64, theirs: u64) -> usize {
    // One bit a quadrant (its first square's), as `odd_quadrant_mask` folds them.
    let odd = odd_quadrant_mask(empty) & QUADRANT_FIRSTS;
    let (m, t) = (quadrants_reached(mine), quadrants_reached(theirs));
    let count = |set: u64| set.count_ones() as usize;
    count(odd & m & !t)
        + 5 * count(odd & t & !m)
        + 25 * count(odd & m & t)
        + 125 * count(odd & !(m | t))
}

/// The first square of each quadrant (a1, e1, a5, e5).
const QUADRANT_FIRSTS: u64 = 0x0000_0011_0000_0011;

/// The quadrants holding a square of `set`, as the bits of their first squares: each
/// quadrant's rows folded into its first row, then its columns into its first square.
#[inline(always)]
fn quadrants_reached(set: u64) -> u64 {
    let rows = set | (set >> 8) | (set >> 16) | (set >> 24);
    (rows | (rows >> 1) | (rows >> 2) | (rows >> 3)) & QUADRANT_FIRSTS
}

/// Who can play into `region`: 0 neither, 1 the side to move alone (its legal moves
/// `mine`), 2 the opponent alone (`theirs`), 3 both.
#[inline(always)]
fn access(region: u64, mine: u64, theirs: u64) -> usize {
    usize::from(mine & region != 0) | usize::from(theirs & region != 0) << 1
}

/// Most empty squares at which [`Term::ParityRegions`] looks at the regions.
pub const REGION_EMPTIES: u32 = 24;

/// Entries of the parity-regions table: four counts of 0 to 3 regions.
const REGION_SPAN: usize = 256;

/// The parity-regions index of a board with the empty squares `empty` (see
/// [`parity_quadrants`]): of the regions of empty squares with an odd number of squares, how
/// many only the side to move can play into, only the opponent, both, neither (base 4, each
/// count at most 3); 0 with more than [`REGION_EMPTIES`] empty squares.
#[inline(always)]
fn parity_regions(empty: u64, mine: u64, theirs: u64) -> usize {
    if empty.count_ones() > REGION_EMPTIES {
        return 0;
    }
    let mut counts = [0usize; 4];
    let mut rest = empty;
    while rest != 0 {
        let mut r = rest & rest.wrapping_neg();
        loop {
            let grown = (r | neighbours(r)) & empty;
            if grown == r {
                break;
            }
            r = grown;
        }
        rest &= !r;
        if r.count_ones() & 1 == 1 {
            let c = &mut counts[access(r, mine, theirs)];
            *c = (*c + 1).min(3);
        }
    }
    counts[1] + 4 * counts[2] + 16 * counts[3] + 64 * counts[0]
}

/// How many of the terms are whole-board numbers (the first ones of [`Term::ALL`]).
const WHOLE_COUNT: usize = 5;

/// The start of a whole-board term's table that is not in a set.
const ABSENT: usize = usize::MAX;

/// One optional term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Term {
    /// The side to move's number of discs (0 to 64; the phase gives the opponent's).
    Discs,
    /// The number of empty squares next to an opponent disc, for each side.
    PotentialMobility,
    /// The number of legal moves of each side (beside the patterns' one-sided table of
    /// their difference).
    Mobility,
    /// The board's four 4x4 quadrants with an odd number of empties, counted apart by who
    /// can play there: the side to move alone, the opponent alone, both, neither (Edax's
    /// parity regions; whoever plays last in a region tends to keep it).
    ParityQuadrants,
    /// The regions of empty squares (connected in the 8 directions) with an odd number of
    /// squares, counted apart as [`Term::ParityQuadrants`] counts quadrants (each count up
    /// to 3), when at most [`REGION_EMPTIES`] squares are empty (one entry above that).
    ParityRegions,
    /// A corner's triangle: a1 b1 c1 d1 a2 b2 c2 a3 b3 a4 (four images).
    Triangle,
    /// An edge's corners and middle with the block inside: a1 c1 d1 e1 f1 h1 c2 d2 e2 f2
    /// (four images).
    EdgeBlock,
    /// A corner's main diagonal to d4 with the squares on both sides of it: a1 b1 a2 b2 c2
    /// b3 c3 d3 c4 d4 (four images).
    Cross,
}

/// A pattern term's images (each one's squares as a mask, the power of 3 of each of its
/// squares, 0 elsewhere, and the code of the symmetry that maps it back onto the base), its
/// base squares as a mask, and its ties.
struct Placed {
    images: Vec<(u64, [u32; 64], u8)>,
    base: u64,
    ties: Vec<u32>,
}

impl Term {
    /// Every term, in weights-file order.
    pub const ALL: [Term; 8] = [
        Term::Discs,
        Term::PotentialMobility,
        Term::Mobility,
        Term::ParityQuadrants,
        Term::ParityRegions,
        Term::Triangle,
        Term::EdgeBlock,
        Term::Cross,
    ];

    /// The term's name in weights files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Term::Discs => "discs",
            Term::PotentialMobility => "potential-mobility",
            Term::Mobility => "mobility-pair",
            Term::ParityQuadrants => "parity-quadrants",
            Term::ParityRegions => "parity-regions",
            Term::Triangle => "triangle",
            Term::EdgeBlock => "edge-block",
            Term::Cross => "cross",
        }
    }

    /// A pattern term's squares, least significant base-3 digit first, in increasing
    /// order (none for a whole-board number).
    pub fn squares(self) -> &'static [&'static str] {
        match self {
            Term::Discs
            | Term::PotentialMobility
            | Term::Mobility
            | Term::ParityQuadrants
            | Term::ParityRegions => &[],
            Term::Triangle => &["a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"],
            Term::EdgeBlock => &["a1", "c1", "d1", "e1", "f1", "h1", "c2", "d2", "e2", "f2"],
            Term::Cross => &["a1", "b1", "a2", "b2", "c2", "b3", "c3", "d3", "c4", "d4"],
        }
    }

    /// The size of the term's table.
    pub fn span(self) -> usize {
        match self {
            Term::Discs => 65,
            Term::PotentialMobility | Term::Mobility => PAIR_SPAN,
            Term::ParityQuadrants => QUADRANT_SPAN,
            Term::ParityRegions => REGION_SPAN,
            _ => pow3(self.squares().len()),
        }
    }

    /// A pattern term's images and ties, built once.
    fn placed(self) -> Option<&'static Placed> {
        static CELLS: [OnceLock<Placed>; Term::ALL.len()] =
            [const { OnceLock::new() }; Term::ALL.len()];
        if self.squares().is_empty() {
            return None;
        }
        // The variants are declared in the order of ALL.
        Some(CELLS[self as usize].get_or_init(|| {
            let base: Vec<Square> = self
                .squares()
                .iter()
                .map(|s| s.parse().expect("pattern squares are valid"))
                .collect();
            let images = images(&base)
                .into_iter()
                .map(|(sym, squares)| {
                    let mut pow = [0u32; 64];
                    for (d, sq) in squares.iter().enumerate() {
                        pow[sq.index()] = pow3(d) as u32;
                    }
                    let mask = squares.iter().fold(0, |m, q| m | q.bit());
                    (mask, pow, sym.inverse().code())
                })
                .collect();
            Placed {
                images,
                base: base.iter().fold(0, |m, q| m | q.bit()),
                ties: canonical_map_of(&base),
            }
        }))
    }

    /// For a pattern term, the index each index of its table is tied to (the smallest of
    /// its images under the symmetries of the pattern's own squares); none for a
    /// whole-board number.
    pub fn ties(self) -> Option<&'static [u32]> {
        self.placed().map(|p| &p.ties[..])
    }

    /// Calls `f` with the term's index (for a pattern, each image's index) for `board`,
    /// whose side to move has the legal moves `mine` and the opponent `theirs`.
    #[inline(always)]
    pub fn indices(self, board: &Board, mine: u64, theirs: u64, mut f: impl FnMut(usize)) {
        let pair = |a: u32, b: u32| {
            (a as usize).min(COUNT_CAP) * (COUNT_CAP + 1) + (b as usize).min(COUNT_CAP)
        };
        let (p, o) = (board.player, board.opponent);
        match self {
            Term::Discs => f(p.count_ones() as usize),
            Term::PotentialMobility => f(pair(
                potential_moves(p, o).count_ones(),
                potential_moves(o, p).count_ones(),
            )),
            Term::Mobility => f(pair(mine.count_ones(), theirs.count_ones())),
            Term::ParityQuadrants => f(parity_quadrants(!(p | o), mine, theirs)),
            Term::ParityRegions => f(parity_regions(!(p | o), mine, theirs)),
            _ => {
                for (mask, pow, _) in &self.placed().expect("a pattern").images {
                    f((digits(pow, p & mask) + 2 * digits(pow, o & mask)) as usize);
                }
            }
        }
    }

    /// The term named `name`.
    pub fn parse(name: &str) -> anyhow::Result<Term> {
        match Term::ALL.iter().find(|t| t.name() == name) {
            Some(&t) => Ok(t),
            None => bail!(
                "no evaluation term {name:?}: the terms are {}",
                Term::ALL.map(Term::name).join(", ")
            ),
        }
    }
}

/// A set of optional terms, in [`Term::ALL`] order, and where each one's table starts in a
/// phase's block of terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terms {
    list: Vec<(Term, usize)>,
    size: usize,
    /// Where each whole-board term's table starts, in [`Term::ALL`] order
    /// ([`ABSENT`] for a term not in the set), so that reading them is straight-line code.
    whole: [usize; WHOLE_COUNT],
    /// Every image of the pattern terms, in order.
    images: Vec<Image>,
}

/// One image of a pattern term of a set, ready to read.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Image {
    /// Where its term's table starts in a phase's block of terms.
    off: usize,
    /// Its squares.
    mask: u64,
    /// The power of 3 of each of its squares (its digit), 0 elsewhere.
    pow: [u32; 64],
    /// The code of the symmetry that maps it onto its term's base squares.
    inv: u8,
    /// The base squares (read with `pext` from the board under `inv`).
    base: u64,
}

impl Default for Terms {
    fn default() -> Terms {
        Terms::none()
    }
}

impl Terms {
    /// No terms: the patterns, mobility and bias alone.
    pub fn none() -> Terms {
        Terms {
            list: Vec::new(),
            size: 0,
            whole: [ABSENT; WHOLE_COUNT],
            images: Vec::new(),
        }
    }

    /// The set of `terms` (in any order, repeats ignored).
    pub fn new(terms: &[Term]) -> Terms {
        let mut out = Terms::none();
        for t in Term::ALL {
            if terms.contains(&t) {
                let off = out.size;
                out.list.push((t, off));
                out.size += t.span();
                match t.placed() {
                    None => out.whole[t as usize] = off,
                    Some(pl) => {
                        out.images
                            .extend(pl.images.iter().map(|&(mask, pow, inv)| Image {
                                off,
                                mask,
                                pow,
                                inv,
                                base: pl.base,
                            }))
                    }
                }
            }
        }
        out
    }

    /// The set named by a comma-separated list (`discs,potential-mobility`; empty or
    /// `none` for no terms).
    pub fn parse(s: &str) -> anyhow::Result<Terms> {
        if s.is_empty() || s == "none" {
            return Ok(Terms::none());
        }
        let terms = s
            .split(',')
            .map(|n| Term::parse(n.trim()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Terms::new(&terms))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The terms, in order.
    pub fn iter(&self) -> impl Iterator<Item = Term> + '_ {
        self.list.iter().map(|&(t, _)| t)
    }

    /// Where each term's table starts in a phase's block of terms, in order.
    pub fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        self.list.iter().map(|&(_, off)| off)
    }

    /// Entries of a phase's block of terms.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Calls `f` with the entries of `board` in a phase's block of terms, as
    /// [`Term::indices`] gives them.
    #[inline(always)]
    pub fn entries(&self, board: &Board, mine: u64, theirs: u64, mut f: impl FnMut(usize)) {
        for &(t, off) in &self.list {
            t.indices(board, mine, theirs, |i| f(off + i));
        }
    }

    /// The sum of the entries of `board` in the block of terms `w` (the patterns read
    /// square by square).
    #[inline(always)]
    pub fn units(&self, w: &[i16], board: &Board, mine: u64, theirs: u64) -> i32 {
        let mut sum = 0;
        self.entries(board, mine, theirs, |i| sum += w[i] as i32);
        sum
    }

    /// [`Terms::units`] with the symmetric images of the two sides' discs at hand (`tp`,
    /// `to`): with `FAST` (only in code compiled for BMI2) each pattern image is read with
    /// two `pext`, as the classic families are.
    #[inline(always)]
    pub fn units_with<const FAST: bool>(
        &self,
        w: &[i16],
        board: &Board,
        (mine, theirs): (u64, u64),
        tp: &Transforms,
        to: &Transforms,
    ) -> i32 {
        self.whole_units(w, board, mine, theirs) + self.pattern_units_with::<FAST>(w, board, tp, to)
    }

    /// The sum of the entries of the pattern terms' images of `board` in the block of terms
    /// `w`, read as [`Terms::units_with`] reads them.
    #[inline(always)]
    pub fn pattern_units_with<const FAST: bool>(
        &self,
        w: &[i16],
        board: &Board,
        tp: &Transforms,
        to: &Transforms,
    ) -> i32 {
        let mut sum = 0;
        #[cfg(target_arch = "x86_64")]
        if FAST {
            for im in &self.images {
                let (p, o) = (tp.0[im.inv as usize], to.0[im.inv as usize]);
                // SAFETY: FAST is only set in code compiled for BMI2.
                let (bp, bo) = unsafe {
                    (
                        std::arch::x86_64::_pext_u64(p, im.base),
                        std::arch::x86_64::_pext_u64(o, im.base),
                    )
                };
                let i = BASE3[bp as usize & 1023] as usize + 2 * BASE3[bo as usize & 1023] as usize;
                sum += w[im.off + i] as i32;
            }
            return sum;
        }
        let _ = (tp, to);
        let (p, o) = (board.player, board.opponent);
        for im in &self.images {
            let i = digits(&im.pow, p & im.mask) + 2 * digits(&im.pow, o & im.mask);
            sum += w[im.off + i as usize] as i32;
        }
        sum
    }

    /// The sum of the entries of the whole-board terms of `board` (whose side to move has
    /// the legal moves `mine`, the opponent `theirs`) in the block of terms `w`.
    #[inline(always)]
    pub fn whole_units(&self, w: &[i16], board: &Board, mine: u64, theirs: u64) -> i32 {
        let mut sum = 0;
        // Each term in turn, in straight-line code: the branches on absent terms are the same
        // at every evaluation (a loop over `Term::ALL` is not unrolled, and costs 25 ns).
        macro_rules! read {
            ($($t:expr)*) => {$(
                let off = self.whole[$t as usize];
                if off != ABSENT {
                    $t.indices(board, mine, theirs, |i| sum += w[off + i] as i32);
                }
            )*};
        }
        read!(Term::Discs Term::PotentialMobility Term::Mobility Term::ParityQuadrants Term::ParityRegions);
        sum
    }

    /// Whether the set has pattern terms.
    pub fn has_patterns(&self) -> bool {
        !self.images.is_empty()
    }
}

/// The sum of the digits `pow` of the squares of `set`.
#[inline(always)]
fn digits(pow: &[u32; 64], mut set: u64) -> u32 {
    let mut i = 0;
    while set != 0 {
        i += pow[set.trailing_zeros() as usize];
        set &= set - 1;
    }
    i
}

impl std::fmt::Display for Terms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Term::name).collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Symmetry, legal_moves};
    use crate::rng::{Rng, random_board};

    #[test]
    fn names_parse_back_and_sets_keep_one_order() {
        for t in Term::ALL {
            assert_eq!(Term::parse(t.name()).unwrap(), t);
        }
        assert!(Term::parse("parity").is_err());
        let a = Terms::parse("mobility-pair,discs").unwrap();
        let b = Terms::new(&[Term::Discs, Term::Mobility, Term::Discs]);
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "discs,mobility-pair");
        assert_eq!(a.size(), 65 + PAIR_SPAN);
        assert_eq!(Terms::parse("none").unwrap(), Terms::none());
        assert_eq!(Terms::none().to_string(), "none");
        assert!(Terms::parse("discs,nonsense").is_err());
        assert_eq!(Term::Triangle.span(), 59049);
        for t in [Term::Triangle, Term::EdgeBlock, Term::Cross] {
            // Each is symmetric under one reflection: four images, and ties.
            let base: Vec<Square> = t.squares().iter().map(|q| q.parse().unwrap()).collect();
            assert_eq!(images(&base).len(), 4, "{t:?}");
            // In increasing order: the order `pext` packs them in.
            assert!(
                base.windows(2).all(|w| w[0].index() < w[1].index()),
                "{t:?}"
            );
            let ties = t.ties().unwrap();
            assert!(
                ties.iter().enumerate().any(|(i, &c)| c as usize != i),
                "{t:?}"
            );
        }
        assert!(Term::Discs.ties().is_none());
        // The cache of pattern images is indexed by the variant's number: ALL's order.
        for (i, t) in Term::ALL.iter().enumerate() {
            assert_eq!(*t as usize, i, "{t:?}");
        }
    }

    #[test]
    fn parity_quadrants_count_odd_quadrants_by_who_can_play_there() {
        let b = Board::start();
        let (m, t) = (
            legal_moves(b.player, b.opponent),
            legal_moves(b.opponent, b.player),
        );
        // 15 empties in each quadrant; black (to move) can play d3 c4 (a1-d4) and e6 f5
        // (e5-h8), white e3 f4 (e1-h4) and c5 d6 (a5-d8).
        assert_eq!(parity_quadrants(!(b.player | b.opponent), m, t), 2 + 2 * 5);
        // Fill a square of the a1-d4 quadrant: even there, the rest as before.
        let a1: Square = "a1".parse().unwrap();
        let empty = !(b.player | b.opponent) & !a1.bit();
        assert_eq!(parity_quadrants(empty, m, t), 1 + 2 * 5);
        // Nobody can play: every odd quadrant counts as neither's.
        assert_eq!(parity_quadrants(!(b.player | b.opponent), 0, 0), 4 * 125);
        assert!(4 * 125 < Term::ParityQuadrants.span());
    }

    #[test]
    fn parity_regions_count_odd_regions_by_who_can_play_there() {
        let sq = |s: &str| s.parse::<Square>().unwrap().bit();
        // Three regions: a1 alone (odd), h8 g8 (even), a8 b8 c8 (odd, with c8 touching b7's
        // diagonal neighbour only through b8).
        let empty = sq("a1") | sq("h8") | sq("g8") | sq("a8") | sq("b8") | sq("c8");
        // The side to move can play a1, the opponent c8.
        assert_eq!(parity_regions(empty, sq("a1"), sq("c8")), 1 + 4);
        // Both can play in the a8 region, nobody at a1.
        assert_eq!(parity_regions(empty, sq("b8"), sq("a8")), 16 + 64);
        // Squares touching diagonally are one region: a1 b2 is even, so none is odd.
        assert_eq!(parity_regions(sq("a1") | sq("b2"), sq("a1"), 0), 0);
        // Counts stop at 3: five single odd squares apart, all the side to move's.
        let five = sq("a1") | sq("c1") | sq("e1") | sq("g1") | sq("a3");
        assert_eq!(parity_regions(five, five, 0), 3);
        // Above the limit of empties, one entry.
        assert_eq!(parity_regions(!0 >> 8, !0, !0), 0);
        assert!(3 + 4 * 3 + 16 * 3 + 64 * 3 < Term::ParityRegions.span());
    }

    /// The number of entries of term `t`: one, or one per image of a pattern.
    fn count(t: Term) -> usize {
        if t.squares().is_empty() { 1 } else { 4 }
    }

    #[test]
    fn indices_stay_in_their_tables_and_agree_under_symmetry() {
        let all = Terms::new(&Term::ALL);
        let mut rng = Rng::new(77);
        let entries = |b: &Board| {
            let (m, t) = (
                legal_moves(b.player, b.opponent),
                legal_moves(b.opponent, b.player),
            );
            let mut v = Vec::new();
            all.entries(b, m, t, |i| v.push(i));
            v
        };
        // The entries with the patterns' indices tied, each term's sorted.
        let tied = |v: &[usize]| {
            let mut out = Vec::new();
            let mut at = 0;
            for (t, off) in all.iter().zip(all.offsets()) {
                let mut part: Vec<usize> = v[at..at + count(t)]
                    .iter()
                    .map(|&i| t.ties().map_or(i, |ties| off + ties[i - off] as usize))
                    .collect();
                part.sort();
                out.extend(part);
                at += count(t);
            }
            out
        };
        for _ in 0..300 {
            let target = 1 + rng.below(59) as u32;
            let b = random_board(&mut rng, target);
            let here = entries(&b);
            assert_eq!(here.len(), all.iter().map(count).sum::<usize>());
            let mut at = 0;
            for (t, off) in all.iter().zip(all.offsets()) {
                for &i in &here[at..at + count(t)] {
                    assert!(i >= off && i < off + t.span(), "{t:?} {i}");
                }
                at += count(t);
            }
            assert_eq!(here[0], b.player.count_ones() as usize);
            let canonical = tied(&here);
            for s in Symmetry::ALL {
                assert_eq!(tied(&entries(&b.transformed(s))), canonical, "{s:?}");
            }
            // Each pattern image's index, square by square.
            let mut reference = Vec::new();
            for (t, off) in all.iter().zip(all.offsets()) {
                let base: Vec<Square> = t.squares().iter().map(|q| q.parse().unwrap()).collect();
                if base.is_empty() {
                    continue;
                }
                for (_, squares) in images(&base) {
                    let i = squares.iter().rev().fold(0, |a, q| {
                        a * 3
                            + (b.player >> q.index() & 1) as usize
                            + 2 * (b.opponent >> q.index() & 1) as usize
                    });
                    reference.push(off + i);
                }
            }
            assert_eq!(&here[5..], &reference[..]);
        }
    }
}
