//! Whole-board terms beside the patterns: each a table indexed by one number computed from
//! the whole board (the side to move's disc count, both sides' potential mobility, both
//! sides' mobility), as the strongest pattern engines add to their patterns.
//!
//! Weights carry any set of them ([`Terms`], empty by default: the shipped weights have
//! none); the weights file names the ones it holds, and `train fit --terms` chooses them.
//! Every term is the same for every symmetric image of a position, so it needs no ties.

use crate::board::{Board, potential_moves};
use anyhow::bail;

/// Largest count kept apart in the two-sided tables; larger counts share its entry.
const COUNT_CAP: usize = 31;

/// Entries of a two-sided table: a count for each side, each 0 to [`COUNT_CAP`].
const PAIR_SPAN: usize = (COUNT_CAP + 1) * (COUNT_CAP + 1);

/// One whole-board term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Term {
    /// The side to move's number of discs (0 to 64; the phase gives the opponent's).
    Discs,
    /// The number of empty squares next to an opponent disc, for each side.
    PotentialMobility,
    /// The number of legal moves of each side (beside the patterns' one-sided table of
    /// their difference).
    Mobility,
}

impl Term {
    /// Every term, in weights-file order.
    pub const ALL: [Term; 3] = [Term::Discs, Term::PotentialMobility, Term::Mobility];

    /// The term's name in weights files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Term::Discs => "discs",
            Term::PotentialMobility => "potential-mobility",
            Term::Mobility => "mobility-pair",
        }
    }

    /// The size of the term's table.
    pub const fn span(self) -> usize {
        match self {
            Term::Discs => 65,
            Term::PotentialMobility | Term::Mobility => PAIR_SPAN,
        }
    }

    /// The term's index for `board`, whose side to move has the legal moves `mine` and the
    /// opponent `theirs`.
    #[inline(always)]
    pub fn index(self, board: &Board, mine: u64, theirs: u64) -> usize {
        let pair = |a: u32, b: u32| {
            (a as usize).min(COUNT_CAP) * (COUNT_CAP + 1) + (b as usize).min(COUNT_CAP)
        };
        let (p, o) = (board.player, board.opponent);
        match self {
            Term::Discs => p.count_ones() as usize,
            Term::PotentialMobility => pair(
                potential_moves(p, o).count_ones(),
                potential_moves(o, p).count_ones(),
            ),
            Term::Mobility => pair(mine.count_ones(), theirs.count_ones()),
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

/// A set of whole-board terms, in [`Term::ALL`] order, and where each one's table starts in
/// a phase's block of terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    list: Vec<(Term, usize)>,
    size: usize,
}

impl Terms {
    /// No terms: the patterns, mobility and bias alone.
    pub fn none() -> Terms {
        Terms::default()
    }

    /// The set of `terms` (in any order, repeats ignored).
    pub fn new(terms: &[Term]) -> Terms {
        let mut list = Vec::new();
        let mut size = 0;
        for t in Term::ALL {
            if terms.contains(&t) {
                list.push((t, size));
                size += t.span();
            }
        }
        Terms { list, size }
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

    /// The entries of `board` in a phase's block of terms, one per term, as for
    /// [`Term::index`].
    #[inline(always)]
    pub fn entries(
        &self,
        board: &Board,
        mine: u64,
        theirs: u64,
    ) -> impl Iterator<Item = usize> + '_ {
        let b = *board;
        self.list
            .iter()
            .map(move |&(t, off)| off + t.index(&b, mine, theirs))
    }

    /// The sum of the entries of `board` in the block of terms `w`.
    #[inline(always)]
    pub fn units(&self, w: &[i16], board: &Board, mine: u64, theirs: u64) -> i32 {
        self.entries(board, mine, theirs).map(|i| w[i] as i32).sum()
    }
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
    }

    #[test]
    fn indices_stay_in_their_tables_and_agree_under_symmetry() {
        let all = Terms::new(&Term::ALL);
        let mut rng = Rng::new(77);
        for _ in 0..300 {
            let target = 1 + rng.below(59) as u32;
            let b = random_board(&mut rng, target);
            let idx = |b: &Board| {
                let (m, t) = (
                    legal_moves(b.player, b.opponent),
                    legal_moves(b.opponent, b.player),
                );
                all.entries(b, m, t).collect::<Vec<_>>()
            };
            let here = idx(&b);
            for (k, (&i, t)) in here.iter().zip(all.iter()).enumerate() {
                let off = all.list[k].1;
                assert!(i >= off && i < off + t.span(), "{t:?} {i}");
            }
            assert_eq!(here[0], b.player.count_ones() as usize);
            for s in Symmetry::ALL {
                assert_eq!(idx(&b.transformed(s)), here, "{s:?}");
            }
        }
    }
}
