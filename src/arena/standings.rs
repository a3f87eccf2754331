//! The results of a match so far: each engine against the field and each pair, the clock
//! each used, and the SPRT's state.

use std::fmt;

use super::TimeControl;
use super::referee::GameRecord;
use super::stats::{Score, Sprt, SprtVerdict};
use crate::board::Color;

/// The results so far: each engine against the field and each pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// The engines' names, in the configuration's order.
    pub names: Vec<String>,
    /// Each engine's score against all its opponents.
    pub scores: Vec<Score>,
    /// `pairs[i][j]`: engine i's score against engine j.
    pub pairs: Vec<Vec<Score>>,
    /// Games each engine lost by forfeit (illegal move or pass, crash, timeout, ...).
    pub forfeits: Vec<u32>,
    /// Each engine's use of its clock in the timed games.
    pub clock_use: Vec<ClockUse>,
}

/// An engine's use of its clock over the timed games it played.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockUse {
    /// Timed games counted.
    pub games: u32,
    /// Seconds its moves took, in all those games.
    pub used: f64,
    /// Seconds its clocks held: each game's main time plus the increments of its moves.
    pub given: f64,
}

impl ClockUse {
    /// Counts the moves of one game that an engine played with the clock `tc` (the moves
    /// with a time: the opening's have none).
    fn add(&mut self, tc: TimeControl, moves: impl Iterator<Item = f64>) {
        let (mut n, mut used) = (0u32, 0.0);
        for t in moves {
            n += 1;
            used += t;
        }
        self.games += 1;
        self.used += used;
        self.given += tc.main.as_secs_f64() + n as f64 * tc.increment.as_secs_f64();
    }
}

impl Standings {
    /// Empty standings for these engines.
    pub fn new(names: Vec<String>) -> Standings {
        let n = names.len();
        Standings {
            names,
            scores: vec![Score::default(); n],
            pairs: vec![vec![Score::default(); n]; n],
            forfeits: vec![0; n],
            clock_use: vec![ClockUse::default(); n],
        }
    }

    /// Counts a finished game.
    pub fn add(&mut self, r: &GameRecord) {
        let b = r.black_points();
        let discs = r.black_discs;
        self.scores[r.black].add(b, discs);
        self.scores[r.white].add(1.0 - b, discs.map(|d| -d));
        self.pairs[r.black][r.white].add(b, discs);
        self.pairs[r.white][r.black].add(1.0 - b, discs.map(|d| -d));
        if let Some(loser) = r.forfeit {
            let i = if loser == Color::Black {
                r.black
            } else {
                r.white
            };
            self.forfeits[i] += 1;
        }
        for (color, engine) in [(Color::Black, r.black), (Color::White, r.white)] {
            if let Some(tc) = r.tc[color.index()] {
                let times = r.moves.iter().filter(|m| m.color == color);
                self.clock_use[engine].add(tc, times.filter_map(|m| m.time));
            }
        }
    }

    /// Each engine's use of its clock in the timed games, one line (empty when no game was
    /// timed): `clock used a game: A 7.9 s of 12.6 s (63%), B 8.1 s of 12.6 s (64%)`.
    pub fn clock_line(&self) -> String {
        let each: Vec<String> = self
            .names
            .iter()
            .zip(&self.clock_use)
            .filter(|(_, c)| c.games > 0 && c.given > 0.0)
            .map(|(name, c)| {
                let g = c.games as f64;
                format!(
                    "{name} {:.1} s of {:.1} s ({:.0}%)",
                    c.used / g,
                    c.given / g,
                    100.0 * c.used / c.given
                )
            })
            .collect();
        if each.is_empty() {
            String::new()
        } else {
            format!("clock used a game: {}\n", each.join(", "))
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.scores.iter().map(Score::games).sum::<u32>() / 2
    }

    /// The final table, best score first:
    ///
    /// ```text
    ///   # engine  games  wins draws losses  score   discs  forfeits  Elo [95%]
    ///   1 A          10     7     1      2  75.0%  +12.30         0  +191 [+35, +inf]
    /// ```
    ///
    /// Score is (wins + draws/2) / games; discs the average final disc difference of the
    /// games played to the end; Elo the difference to the opponents (the other engine in a
    /// match, the field in a round robin) with its 95% interval.
    pub fn table(&self) -> String {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            self.scores[b]
                .fraction()
                .total_cmp(&self.scores[a].fraction())
        });
        let w = self
            .names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut s = format!(
            "{:>3} {:<w$} {:>6} {:>5} {:>5} {:>6} {:>7} {:>7} {:>8}  Elo [95%]\n",
            "#", "engine", "games", "wins", "draws", "losses", "score", "discs", "forfeits"
        );
        for (rank, &i) in order.iter().enumerate() {
            let sc = &self.scores[i];
            let discs = sc
                .disc_average()
                .map_or_else(|| "-".to_string(), |d| format!("{d:+.2}"));
            s.push_str(&format!(
                "{:>3} {:<w$} {:>6} {:>5} {:>5} {:>6} {:>6.1}% {:>7} {:>8}  {}\n",
                rank + 1,
                self.names[i],
                sc.games(),
                sc.wins,
                sc.draws,
                sc.losses,
                100.0 * sc.fraction(),
                discs,
                self.forfeits[i],
                sc.elo()
            ));
        }
        s
    }
}

/// The SPRT's state at the end of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtResult {
    /// The test.
    pub test: Sprt,
    /// The log-likelihood ratio of the counted games.
    pub llr: f64,
    /// The verdict.
    pub verdict: SprtVerdict,
}

impl fmt::Display for SprtResult {
    /// `SPRT elo0=0 elo1=10: LLR 2.95 [-2.94, 2.94]: H1 accepted`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = self.test.bounds();
        let v = match self.verdict {
            SprtVerdict::Continue => "no verdict yet",
            SprtVerdict::H0 => "H0 accepted",
            SprtVerdict::H1 => "H1 accepted",
        };
        write!(
            f,
            "SPRT elo0={} elo1={}: LLR {:.2} [{:.2}, {:.2}]: {v}",
            self.test.elo0, self.test.elo1, self.llr, lo, hi
        )
    }
}
