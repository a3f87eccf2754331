//! How good a fixed-depth search is against exact scores: the move it chooses and the score
//! it gives, judged against an OBF line that scores the position's moves exactly (Edax's hard
//! sets score every legal move), and the tally over a set of positions.
//!
//! For each position, the search chooses a move and gives it a score. Its move is the best
//! when the line scores it as high as the best move; it is in the top `k` when fewer than `k`
//! of the line's moves score better (moves tied with the `k`-th count). Its error is the
//! search score minus the best exact score; its loss is the best exact score minus the exact
//! score of the chosen move. A move the line does not score (a line that scores only some
//! moves) counts as neither best nor in a top `k`, and has no loss.

use crate::board::Move;
use crate::notation::ObfEntry;
use crate::search::{Engine, Info, Limits, Selectivity};
use std::fmt;
use std::time::Duration;

/// The error bounds, in discs, of the "within k" rates.
pub const WITHIN: [i32; 3] = [3, 6, 9];

/// The sizes of the "top k" rates (top 1 is the best move rate).
pub const TOP: [usize; 2] = [2, 3];

/// Why a position cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccuracyError {
    /// The line scores no move.
    NoScores,
    /// The line scores a move twice.
    ScoredTwice(Move),
    /// The search gave no move (the game is over).
    NoMove,
}

impl fmt::Display for AccuracyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccuracyError::NoScores => write!(f, "no scored moves (MOVE:SCORE) to judge against"),
            AccuracyError::ScoredTwice(m) => write!(f, "move {m} is scored twice"),
            AccuracyError::NoMove => write!(f, "the game is over: no move to choose"),
        }
    }
}

impl std::error::Error for AccuracyError {}

/// Checks that a line's scores can judge a search: at least one move, none twice.
pub fn check_scores(scores: &[(Move, i32)]) -> Result<(), AccuracyError> {
    if scores.is_empty() {
        return Err(AccuracyError::NoScores);
    }
    for (i, &(m, _)) in scores.iter().enumerate() {
        if scores[..i].iter().any(|&(n, _)| n == m) {
            return Err(AccuracyError::ScoredTwice(m));
        }
    }
    Ok(())
}

/// A search's move and score judged against the exact scores of the position's moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The move the search chose.
    pub chosen: Move,
    /// The search's score of it, in discs for the side to move.
    pub score: i32,
    /// The exact score of the chosen move, when the line scores it.
    pub chosen_exact: Option<i32>,
    /// The best exact score of the line.
    pub best: i32,
    /// The moves that reach it, in the order of the line.
    pub best_moves: Vec<Move>,
    /// The chosen move's rank: 1 + the number of moves the line scores higher (tied moves
    /// share a rank); `None` when the line does not score it.
    pub rank: Option<usize>,
    /// Depth of the search's last iteration (the empties when it solved exactly).
    pub depth: u32,
    /// True when the search reached the end of the game (an exact solve).
    pub solved: bool,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
}

impl Judgement {
    /// Judges `chosen` with its search score `score` against `scores` (checked by
    /// [`check_scores`]); the depth, nodes and time are zero until set.
    pub fn new(
        scores: &[(Move, i32)],
        chosen: Move,
        score: i32,
    ) -> Result<Judgement, AccuracyError> {
        check_scores(scores)?;
        let best = scores.iter().map(|s| s.1).max().expect("checked: a score");
        let best_moves = scores.iter().filter(|s| s.1 == best).map(|s| s.0).collect();
        let chosen_exact = scores.iter().find(|s| s.0 == chosen).map(|s| s.1);
        let rank = chosen_exact.map(|c| 1 + scores.iter().filter(|s| s.1 > c).count());
        Ok(Judgement {
            chosen,
            score,
            chosen_exact,
            best,
            best_moves,
            rank,
            depth: 0,
            solved: false,
            nodes: 0,
            time: Duration::ZERO,
        })
    }

    /// Judges a search's result (its best line, depth, nodes and time) against `scores`.
    pub fn of_search(scores: &[(Move, i32)], info: &Info) -> Result<Judgement, AccuracyError> {
        check_scores(scores)?;
        let line = info.best().ok_or(AccuracyError::NoMove)?;
        let mut j = Judgement::new(scores, line.mv, line.score)?;
        j.depth = info.depth;
        j.solved = info.solve.is_some();
        j.nodes = info.nodes;
        j.time = info.elapsed;
        Ok(j)
    }

    /// True when the chosen move scores as high as the best.
    pub fn is_best(&self) -> bool {
        self.rank == Some(1)
    }

    /// True when fewer than `k` of the line's moves score higher than the chosen move.
    pub fn in_top(&self, k: usize) -> bool {
        self.rank.is_some_and(|r| r <= k)
    }

    /// The search score minus the best exact score.
    pub fn error(&self) -> i32 {
        self.score - self.best
    }

    /// True when the search score is at most `k` discs from the best exact score.
    pub fn within(&self, k: i32) -> bool {
        self.error().abs() <= k
    }

    /// Discs the chosen move gives away: the best exact score minus its own; `None` when the
    /// line does not score it.
    pub fn loss(&self) -> Option<i32> {
        self.chosen_exact.map(|c| self.best - c)
    }
}

/// Searches `entry`'s position to `depth` at `selectivity` from a cleared hash table and
/// judges the result against the line's scores.
pub fn measure(
    engine: &Engine,
    entry: &ObfEntry,
    depth: u32,
    selectivity: Selectivity,
) -> Result<Judgement, AccuracyError> {
    check_scores(&entry.scores)?;
    let limits = Limits {
        depth: Some(depth),
        selectivity,
        ..Limits::default()
    };
    engine.clear_hash();
    let info = engine.search(entry.position.board, &limits, &mut |_| {});
    Judgement::of_search(&entry.scores, &info)
}

/// The judgements of a set of positions added up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Positions judged.
    pub positions: usize,
    /// Positions where the chosen move is a best one.
    pub best: usize,
    /// Positions where it is in the top k, for each k of [`TOP`].
    pub top: [usize; TOP.len()],
    /// Positions where the score is within k discs, for each k of [`WITHIN`].
    pub within: [usize; WITHIN.len()],
    /// Sum of the absolute errors.
    pub abs_error: i64,
    /// Sum of the signed errors.
    pub signed_error: i64,
    /// Sum of the losses of the chosen moves the lines score.
    pub loss: i64,
    /// Chosen moves the lines do not score (no loss, not best).
    pub unscored: usize,
    /// Nodes in all.
    pub nodes: u64,
    /// Time in all.
    pub time: Duration,
}

impl Tally {
    /// Adds one position's judgement.
    pub fn add(&mut self, j: &Judgement) {
        self.positions += 1;
        self.best += usize::from(j.is_best());
        for (n, &k) in self.top.iter_mut().zip(&TOP) {
            *n += usize::from(j.in_top(k));
        }
        for (n, &k) in self.within.iter_mut().zip(&WITHIN) {
            *n += usize::from(j.within(k));
        }
        self.abs_error += i64::from(j.error().abs());
        self.signed_error += i64::from(j.error());
        match j.loss() {
            Some(l) => self.loss += i64::from(l),
            None => self.unscored += 1,
        }
        self.nodes += j.nodes;
        self.time += j.time;
    }

    /// `count` as a percentage of the positions (0 when there are none).
    pub fn percent(&self, count: usize) -> f64 {
        100.0 * count as f64 / self.positions.max(1) as f64
    }

    /// Mean absolute error, in discs.
    pub fn mae(&self) -> f64 {
        self.abs_error as f64 / self.positions.max(1) as f64
    }

    /// Mean signed error (search minus exact), in discs: above 0 when the search is
    /// optimistic for the side to move.
    pub fn mean_error(&self) -> f64 {
        self.signed_error as f64 / self.positions.max(1) as f64
    }

    /// Mean loss of the chosen moves the lines score, in discs.
    pub fn mean_loss(&self) -> f64 {
        self.loss as f64 / (self.positions - self.unscored).max(1) as f64
    }

    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64().max(1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    /// The first line of Edax's hard-20 set.
    fn hard1() -> Vec<(Move, i32)> {
        [
            ("e1", 0),
            ("f8", -2),
            ("h6", -6),
            ("f1", -6),
            ("g8", -6),
            ("a7", -6),
            ("g1", -8),
            ("b7", -10),
            ("g7", -20),
        ]
        .iter()
        .map(|&(m, s)| (mv(m), s))
        .collect()
    }

    #[test]
    fn best_top_and_ties() {
        let s = hard1();
        let j = Judgement::new(&s, mv("e1"), 2).unwrap();
        assert!(j.is_best() && j.in_top(2) && j.in_top(3));
        assert_eq!((j.best, j.best_moves.clone()), (0, vec![mv("e1")]));
        assert_eq!((j.error(), j.loss()), (2, Some(0)));
        let j = Judgement::new(&s, mv("f8"), -2).unwrap();
        assert!(!j.is_best() && j.in_top(2) && j.in_top(3));
        assert_eq!((j.rank, j.loss(), j.error()), (Some(2), Some(2), -2));
        // Four moves tie for third: each is in the top 3, none in the top 2.
        for m in ["h6", "f1", "g8", "a7"] {
            let j = Judgement::new(&s, mv(m), -3).unwrap();
            assert!(!j.in_top(2) && j.in_top(3), "{m}");
            assert_eq!(j.loss(), Some(6));
        }
        let j = Judgement::new(&s, mv("g1"), -8).unwrap();
        assert_eq!(j.rank, Some(7));
        assert!(!j.in_top(3));
        // Two best moves: either is best; the next is third.
        let tied = [(mv("e1"), 4), (mv("f8"), 4), (mv("h6"), 0)];
        let j = Judgement::new(&tied, mv("f8"), 4).unwrap();
        assert!(j.is_best());
        assert_eq!(j.best_moves, vec![mv("e1"), mv("f8")]);
        let j = Judgement::new(&tied, mv("h6"), 4).unwrap();
        assert_eq!(j.rank, Some(3));
        assert!(!j.in_top(2) && j.in_top(3));
    }

    #[test]
    fn within_bounds_are_inclusive() {
        let s = hard1();
        for (score, within) in [
            (3, [true, true, true]),
            (-4, [false, true, true]),
            (6, [false, true, true]),
            (-7, [false, false, true]),
            (9, [false, false, true]),
            (-10, [false, false, false]),
        ] {
            let j = Judgement::new(&s, mv("e1"), score).unwrap();
            assert_eq!(WITHIN.map(|k| j.within(k)), within, "{score}");
        }
    }

    #[test]
    fn unscored_moves_and_bad_lines() {
        // FFO lines score only some moves.
        let s = [(mv("g8"), 18), (mv("h1"), 12)];
        let j = Judgement::new(&s, mv("a2"), 10).unwrap();
        assert_eq!((j.rank, j.loss(), j.error()), (None, None, -8));
        assert!(!j.is_best() && !j.in_top(3));
        assert_eq!(
            Judgement::new(&[], mv("a2"), 0),
            Err(AccuracyError::NoScores)
        );
        let twice = [(mv("g8"), 18), (mv("g8"), 12)];
        assert_eq!(
            check_scores(&twice),
            Err(AccuracyError::ScoredTwice(mv("g8")))
        );
        assert_eq!(
            Judgement::of_search(&s, &Info::default()),
            Err(AccuracyError::NoMove)
        );
        assert!(
            AccuracyError::NoScores
                .to_string()
                .contains("no scored moves")
        );
    }

    #[test]
    fn tally_adds_up() {
        let s = hard1();
        let mut t = Tally::default();
        assert_eq!((t.mae(), t.percent(t.best), t.mean_loss()), (0.0, 0.0, 0.0));
        let mut j = Judgement::new(&s, mv("e1"), 2).unwrap();
        j.nodes = 1000;
        j.time = Duration::from_millis(500);
        t.add(&j);
        let mut j = Judgement::new(&s, mv("f8"), -8).unwrap();
        j.nodes = 3000;
        j.time = Duration::from_millis(1500);
        t.add(&j);
        let j = Judgement::new(&s, mv("a7"), -1).unwrap();
        t.add(&j);
        let j = Judgement::new(&[(mv("e1"), 0)], mv("g7"), -20).unwrap();
        t.add(&j);
        assert_eq!(t.positions, 4);
        assert_eq!((t.best, t.top), (1, [2, 3]));
        assert_eq!(t.within, [2, 2, 3]);
        assert_eq!(
            (t.abs_error, t.signed_error),
            (2 + 8 + 1 + 20, 2 - 8 - 1 - 20)
        );
        assert_eq!((t.loss, t.unscored), (8, 1));
        assert_eq!(t.percent(t.best), 25.0);
        assert_eq!(t.mae(), 31.0 / 4.0);
        assert_eq!(t.mean_error(), -27.0 / 4.0);
        assert_eq!(t.mean_loss(), 8.0 / 3.0);
        assert_eq!((t.nodes, t.time), (4000, Duration::from_secs(2)));
        assert_eq!(t.nps(), 2000.0);
    }

    #[test]
    fn an_exact_search_is_always_right() {
        // FFO #1 with its moves scored (14 empties): a search as deep as the empties solves
        // it, so its move is best and its score the best exact one.
        let line = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6; A2:+6; A3:+4; B1:-4; A4:-22; G2:-24;";
        let entry = crate::notation::parse_obf_line(line).unwrap().unwrap();
        let engine = Engine::new(crate::search::EngineConfig {
            threads: 1,
            hash_mb: 4,
        });
        let j = measure(&engine, &entry, 14, Limits::default().selectivity).unwrap();
        assert!(j.is_best() && j.solved, "{j:?}");
        assert_eq!(
            (j.chosen, j.score, j.error(), j.loss()),
            (mv("g8"), 18, 0, Some(0))
        );
        assert_eq!(j.depth, 14);
        assert!(j.nodes > 0);
    }
}
