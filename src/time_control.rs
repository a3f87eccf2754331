//! A time control: the rule a game's clock follows (main time, increment, extension,
//! Canadian byo-yomi), the one vocabulary of clocks every layer speaks.
//!
//! The rule is not the clock: the time left during a game is the controller's
//! (`controller::GameClock`), and the time manager reads it as a `search::Clock`. The text
//! forms of a rule live with their formats: the match runner's `60` / `60+1` here
//! ([`TimeControl::parse`] and `Display`), GGF's `TI[...]` in `notation::ggf`
//! (`parse_ggf_clock`, `ggf_clock`), GGS's clock as the GGS client's wire type
//! (`protocol::ggs::GgsClock`), which converts to and from this one. Seconds that a
//! protocol or a file sends become a [`Duration`] through [`seconds`].
//!
//! This module depends on the standard library only, so that every layer may use it.

use std::fmt;
use std::time::Duration;

/// The longest time [`seconds`] gives: a billion seconds (about 32 years).
pub const LONGEST: Duration = Duration::from_secs(1_000_000_000);

/// A duration from seconds that may be anything a protocol or a file sent: negative, NaN or
/// infinite give zero, and more than a billion seconds (about 32 years, [`LONGEST`]) is cut
/// to that.
pub fn seconds(s: f64) -> Duration {
    if s.is_finite() && s > 0.0 {
        Duration::from_secs_f64(s.min(1e9))
    } else {
        Duration::ZERO
    }
}

/// A time control: the main time, an increment per move, an extension and a Canadian
/// byo-yomi. A part a protocol does not have is zero (or `None`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Main thinking time for the whole game.
    pub main: Duration,
    /// Added after each move (NBoard, GGS, UGI, the match runner and the terminal game).
    pub increment: Duration,
    /// Added to the main time once: GGS's and NBoard's extension (the clock manager spends it
    /// like main time; it is there as a safety margin).
    pub extension: Duration,
    /// Canadian byo-yomi after the main time (GTP): a period of this length for this many
    /// moves (stones), refilled after them.
    pub byo_yomi: Option<(Duration, u32)>,
}

impl TimeControl {
    /// A game's whole time of `main`, nothing else.
    pub fn sudden_death(main: Duration) -> TimeControl {
        TimeControl {
            main,
            ..TimeControl::default()
        }
    }

    /// Reads the match runner's form: `60` (seconds for the game) or `60+1` (plus one second
    /// a move); decimals allowed, the main time positive.
    pub fn parse(s: &str) -> Result<TimeControl, String> {
        let secs = |t: &str| -> Result<Duration, String> {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| format!("time control {s:?}: {t:?} is not a number of seconds"))?;
            Duration::try_from_secs_f64(v)
                .map_err(|_| format!("time control {s:?}: {t:?} is not a valid duration"))
        };
        let (main, increment) = match s.split_once('+') {
            Some((b, i)) => (secs(b)?, secs(i)?),
            None => (secs(s)?, Duration::ZERO),
        };
        if main.is_zero() {
            return Err(format!(
                "time control {s:?}: the main time must be positive"
            ));
        }
        Ok(TimeControl {
            main,
            increment,
            ..TimeControl::default()
        })
    }
}

impl fmt::Display for TimeControl {
    /// The match runner's form, `60` or `60+1`: the main time and the increment (that form
    /// has no extension and no byo-yomi; they are not written).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.main.as_secs_f64())?;
        if !self.increment.is_zero() {
            write!(f, "+{}", self.increment.as_secs_f64())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_from_anything() {
        assert_eq!(seconds(1.5), Duration::from_millis(1500));
        assert_eq!(seconds(-1.0), Duration::ZERO);
        assert_eq!(seconds(f64::NAN), Duration::ZERO);
        assert_eq!(seconds(f64::INFINITY), Duration::ZERO);
        assert_eq!(seconds(1e300), LONGEST);
    }

    #[test]
    fn the_match_runners_form() {
        let t = TimeControl::parse("60+1").unwrap();
        assert_eq!(t.main, Duration::from_secs(60));
        assert_eq!(t.increment, Duration::from_secs(1));
        assert_eq!((t.extension, t.byo_yomi), (Duration::ZERO, None));
        assert_eq!(t.to_string(), "60+1");
        assert_eq!(TimeControl::parse("0.5").unwrap().to_string(), "0.5");
        assert_eq!(
            TimeControl::parse(" 90 + 2.5 ").unwrap(),
            TimeControl {
                main: Duration::from_secs(90),
                increment: Duration::from_millis(2500),
                ..TimeControl::default()
            }
        );
        for bad in ["0", "a+1", "-3", "", "60+x", "1e300"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            TimeControl::sudden_death(Duration::from_secs(5)).to_string(),
            "5"
        );
    }
}
