//! Match statistics: scores, Elo difference with a 95% interval, and the sequential
//! probability ratio test (SPRT) that stops a match once it has an answer.
//!
//! Elo is the logistic model: a score fraction `s` (wins plus half the draws, per game)
//! means a difference of `-400 log10(1/s - 1)`. The 95% interval is Wilson's score interval
//! for `s` with the per-game score's variance (so draws narrow it), each end converted to Elo
//! the same way. Unlike the plain `s ± 1.96 sd`, it stays sensible for a clean sweep: 4-0
//! gives `[+7, +inf]`, not `[+inf, +inf]`.

use std::fmt;

/// Wins, draws and losses of one side, and its disc differences.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Sum of the final disc differences (tournament convention) of games played to the
    /// end; forfeits are left out.
    pub disc_sum: i64,
    /// Number of games played to the end (the games counted in `disc_sum`).
    pub finished: u32,
}

impl Score {
    /// Adds one game: `points` 1, 0.5 or 0, and the disc difference when the game was
    /// played to the end.
    pub fn add(&mut self, points: f64, discs: Option<i32>) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
        if let Some(d) = discs {
            self.disc_sum += i64::from(d);
            self.finished += 1;
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Score fraction, 0 to 1 (0.5 before any game).
    pub fn fraction(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
        }
    }

    /// Average disc difference of the games played to the end.
    pub fn disc_average(&self) -> Option<f64> {
        (self.finished > 0).then(|| self.disc_sum as f64 / f64::from(self.finished))
    }

    /// Variance of one game's score (0, 0.5 or 1) around the mean.
    pub fn variance(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return 0.0;
        }
        let s = self.fraction();
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
    }

    /// Elo difference with its 95% interval.
    pub fn elo(&self) -> Elo {
        let n = f64::from(self.games());
        let s = self.fraction();
        if n == 0.0 {
            return Elo {
                diff: 0.0,
                low: f64::NEG_INFINITY,
                high: f64::INFINITY,
            };
        }
        let z2 = Z95 * Z95;
        let centre = (s + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (self.variance() / n + z2 / (4.0 * n * n)).sqrt();
        Elo {
            diff: elo_from_score(s),
            low: elo_from_score(snap(centre - half)),
            high: elo_from_score(snap(centre + half)),
        }
    }

    /// The same games seen from the other side.
    pub fn mirrored(&self) -> Score {
        Score {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
            disc_sum: -self.disc_sum,
            finished: self.finished,
        }
    }
}

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Rounds a score within rounding error of 0 or 1 to it (Wilson's interval reaches 1
/// exactly for a clean sweep).
fn snap(s: f64) -> f64 {
    if s < 1e-9 {
        0.0
    } else if s > 1.0 - 1e-9 {
        1.0
    } else {
        s
    }
}

/// Elo difference for a score fraction (logistic model); infinite at 0 and 1.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// Expected score fraction for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elo {
    /// The estimate.
    pub diff: f64,
    /// Low end of the 95% interval.
    pub low: f64,
    /// High end of the 95% interval.
    pub high: f64,
}

/// An Elo value with a sign, rounded: `+35`, `-12`, `+inf`.
fn signed(e: f64) -> String {
    if e.is_infinite() {
        if e > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        let r = e.round();
        if r == 0.0 {
            "0".to_string()
        } else {
            format!("{r:+}")
        }
    }
}

impl fmt::Display for Elo {
    /// `+35 [+12, +60]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}, {}]",
            signed(self.diff),
            signed(self.low),
            signed(self.high)
        )
    }
}

/// The outcome of an SPRT so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// Not enough evidence yet.
    Continue,
    /// H0 accepted: the difference is at most elo0.
    H0,
    /// H1 accepted: the difference is at least elo1.
    H1,
}

/// A sequential probability ratio test of H0: Elo difference = `elo0` against H1: Elo
/// difference = `elo1`, with error rates `alpha` (accepting H1 when H0 holds) and `beta`.
///
/// The log-likelihood ratio is the generalised SPRT's normal approximation,
/// `n (s1 - s0) (2 m - s0 - s1) / (2 v)`, with `m` and `v` the mean and variance of the
/// per-game score and `s0`, `s1` the expected scores of the two hypotheses. To keep the
/// variance away from 0 in the first games, half a win, half a draw and half a loss are
/// added to the counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference of H0.
    pub elo0: f64,
    /// Elo difference of H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    pub beta: f64,
}

impl Sprt {
    /// The test with 5% error rates both ways.
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }

    /// The log-likelihood ratio of the results so far (from the first engine's side).
    pub fn llr(&self, score: &Score) -> f64 {
        let w = f64::from(score.wins) + 0.5;
        let d = f64::from(score.draws) + 0.5;
        let l = f64::from(score.losses) + 0.5;
        let n = w + d + l;
        let m = (w + 0.5 * d) / n;
        let v = (w * (1.0 - m).powi(2) + d * (0.5 - m).powi(2) + l * m.powi(2)) / n;
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        let games = f64::from(score.games());
        games * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v)
    }

    /// The lower and upper stopping bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The verdict for the results so far.
    pub fn verdict(&self, score: &Score) -> SprtVerdict {
        let llr = self.llr(score);
        let (low, high) = self.bounds();
        if llr >= high {
            SprtVerdict::H1
        } else if llr <= low {
            SprtVerdict::H0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(w: u32, d: u32, l: u32) -> Score {
        Score {
            wins: w,
            draws: d,
            losses: l,
            ..Score::default()
        }
    }

    #[test]
    fn elo_and_interval() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert!((score_from_elo(elo_from_score(0.3)) - 0.3).abs() < 1e-12);
        let e = score(60, 20, 20).elo();
        assert!(e.low < e.diff && e.diff < e.high, "{e:?}");
        assert!((e.diff - 147.19).abs() < 0.1, "{e:?}");
        let all = score(10, 0, 0).elo();
        assert_eq!(all.diff, f64::INFINITY);
        assert!(all.low > 100.0 && all.high == f64::INFINITY, "{all:?}");
        let sweep = score(4, 0, 0).elo();
        assert_eq!(sweep.to_string(), "+inf [+7, +inf]");
        assert_eq!(score(5, 0, 5).elo().diff, 0.0);
        let none = Score::default().elo();
        assert_eq!(none.to_string(), "0 [-inf, +inf]");
        let even = score(50, 0, 50).elo();
        assert!(
            (even.high - 67.7).abs() < 0.5 && (even.low + 67.7).abs() < 0.5,
            "{even:?}"
        );
    }

    #[test]
    fn scores_count_and_mirror() {
        let mut s = Score::default();
        s.add(1.0, Some(10));
        s.add(0.5, Some(0));
        s.add(0.0, None);
        assert_eq!((s.wins, s.draws, s.losses, s.games()), (1, 1, 1, 3));
        assert_eq!(s.disc_average(), Some(5.0));
        assert_eq!(s.fraction(), 0.5);
        let m = s.mirrored();
        assert_eq!((m.wins, m.losses, m.disc_sum), (1, 1, -10));
    }

    #[test]
    fn sprt_decides_clear_cases() {
        let t = Sprt::new(0.0, 50.0);
        let (lo, hi) = t.bounds();
        assert!((hi - 2.944).abs() < 0.01 && (lo + 2.944).abs() < 0.01);
        assert_eq!(t.verdict(&score(1, 0, 0)), SprtVerdict::Continue);
        assert_eq!(t.verdict(&score(40, 0, 0)), SprtVerdict::H1);
        assert_eq!(t.verdict(&score(0, 0, 40)), SprtVerdict::H0);
        assert_eq!(t.verdict(&score(10, 5, 10)), SprtVerdict::Continue);
        assert_eq!(t.verdict(&score(300, 0, 300)), SprtVerdict::H0);
    }
}
