//! Both players' clocks of a game, as every front-end keeps them: a time control per colour
//! (main time, increment, extension, Canadian byo-yomi), the time left, charged after each
//! move or set from what the other side reports (GTP's `time_left`, a GGS board), and read by
//! the time manager as a [`Clock`].

use crate::board::{ByColor, Color};
use crate::search::Clock;
use crate::time_control::{LONGEST, TimeControl, seconds};
use std::time::Duration;

/// The clock at the start of a game under `control`: the main time and the extension, or
/// the first byo-yomi period when there is no main time.
fn initial(control: &TimeControl) -> Left {
    match control.byo_yomi {
        Some((period, stones)) if control.main.is_zero() && stones > 0 => Left {
            secs: period.as_secs_f64(),
            stones,
        },
        _ => Left {
            secs: control.main.as_secs_f64() + control.extension.as_secs_f64(),
            stones: 0,
        },
    }
}

/// One colour's clock: the seconds left, and the moves left in the byo-yomi period (0 in
/// main time).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Left {
    secs: f64,
    stones: u32,
}

/// Both colours' clocks. A colour without a time control is untimed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameClock {
    control: ByColor<Option<TimeControl>>,
    left: ByColor<Left>,
}

impl GameClock {
    /// No clock for either colour.
    pub fn untimed() -> GameClock {
        GameClock::default()
    }

    /// The same time control for both colours (none: untimed), both clocks full.
    pub fn new(control: Option<TimeControl>) -> GameClock {
        GameClock::per_color(control, control)
    }

    /// A time control for each colour, both clocks full.
    pub fn per_color(black: Option<TimeControl>, white: Option<TimeControl>) -> GameClock {
        let mut clock = GameClock {
            control: ByColor::new(black, white),
            left: ByColor::default(),
        };
        clock.restart();
        clock
    }

    /// The clocks a move request reports, as UCI and UGI send them with each `go`: a colour
    /// with a time left is timed, that time its main time to last the game, with its
    /// increment (none: 0); a colour without one is untimed.
    pub fn reported(
        left: ByColor<Option<Duration>>,
        increment: ByColor<Option<Duration>>,
    ) -> GameClock {
        let mut clock = GameClock::untimed();
        for c in [Color::Black, Color::White] {
            if let Some(left) = left[c] {
                let control = TimeControl {
                    main: left,
                    increment: increment[c].unwrap_or_default(),
                    ..TimeControl::default()
                };
                clock.control[c] = Some(control);
                clock.left[c] = initial(&control);
            }
        }
        clock
    }

    /// Both clocks full again (a new game).
    pub fn restart(&mut self) {
        for c in [Color::Black, Color::White] {
            self.left[c] = self.control[c].as_ref().map(initial).unwrap_or_default();
        }
    }

    /// Sets `color`'s time control (none: untimed); its clock keeps what it shows.
    pub fn set_control(&mut self, color: Color, control: Option<TimeControl>) {
        self.control[color] = control;
    }

    /// Sets what is left on `color`'s clock: `secs`, with `stones` moves to play in them
    /// (0: the main time, to last the game). A colour without a time control gets one, the
    /// time left taken as the whole game's.
    pub fn set_left(&mut self, color: Color, secs: f64, stones: u32) {
        if self.control[color].is_none() {
            self.control[color] = Some(TimeControl::sudden_death(seconds(secs)));
        }
        self.left[color] = Left { secs, stones };
    }

    /// The seconds left on `color`'s clock, if it is timed.
    pub fn left(&self, color: Color) -> Option<f64> {
        self.control[color].map(|_| self.left[color].secs)
    }

    /// Charges `elapsed` to `color`'s clock. A move (not a pass) also counts for the
    /// increment and the byo-yomi stones. The main time spent moves on to the byo-yomi
    /// period; without one, the clock stops at zero.
    pub fn charge(&mut self, color: Color, elapsed: Duration, is_move: bool) {
        let Some(control) = self.control[color] else {
            return;
        };
        let left = &mut self.left[color];
        left.secs -= elapsed.as_secs_f64();
        if left.stones > 0 {
            if is_move {
                left.stones -= 1;
            }
            if left.stones == 0 {
                // The period's moves are made: a fresh period (an overrun is the
                // controller's to judge).
                if let Some((period, stones)) = control.byo_yomi {
                    *left = Left {
                        secs: period.as_secs_f64(),
                        stones,
                    };
                }
            }
            return;
        }
        match control.byo_yomi {
            Some((period, stones)) if left.secs <= 0.0 && stones > 0 => {
                *left = Left {
                    secs: period.as_secs_f64(),
                    stones,
                };
            }
            _ => {
                left.secs = left.secs.max(0.0);
                if is_move {
                    left.secs += control.increment.as_secs_f64();
                }
            }
        }
    }

    /// `color`'s clock as the time manager reads it; `None` when the colour is untimed, or
    /// its time control gives no limit (GTP's byo-yomi time with no stones, no time at all).
    pub fn for_search(&self, color: Color) -> Option<Clock> {
        let control = self.control[color]?;
        let unlimited = match control.byo_yomi {
            Some((t, 0)) => !t.is_zero(),
            Some((t, _)) => control.main.is_zero() && t.is_zero(),
            None => {
                control.main.is_zero() && control.increment.is_zero() && control.extension.is_zero()
            }
        };
        if unlimited {
            return None;
        }
        let left = self.left[color];
        let remaining = seconds(left.secs);
        Some(if left.stones > 0 {
            Clock {
                remaining,
                moves_to_go: Some(left.stones),
                ..Clock::default()
            }
        } else {
            Clock {
                remaining,
                increment: control.increment.min(LONGEST),
                byo_yomi: control
                    .byo_yomi
                    .filter(|&(t, s)| !t.is_zero() && s > 0)
                    .map(|(t, s)| (t.min(LONGEST), s)),
                ..Clock::default()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn main_time_and_increment() {
        let mut c = GameClock::new(Some(TimeControl {
            main: secs(60.0),
            increment: secs(2.0),
            ..TimeControl::default()
        }));
        c.charge(Color::Black, secs(10.0), true);
        assert_eq!(c.left(Color::Black), Some(52.0));
        assert_eq!(c.left(Color::White), Some(60.0));
        c.charge(Color::Black, secs(5.0), false);
        assert_eq!(c.left(Color::Black), Some(47.0));
        c.charge(Color::Black, secs(100.0), true);
        assert_eq!(
            c.left(Color::Black),
            Some(2.0),
            "stops at zero, then the increment"
        );
        let s = c.for_search(Color::White).unwrap();
        assert_eq!(s.remaining, secs(60.0));
        assert_eq!(s.increment, secs(2.0));
        c.restart();
        assert_eq!(c.left(Color::Black), Some(60.0));
    }

    #[test]
    fn byo_yomi_periods() {
        let mut c = GameClock::new(Some(TimeControl {
            main: secs(10.0),
            byo_yomi: Some((secs(30.0), 2)),
            ..TimeControl::default()
        }));
        c.charge(Color::White, secs(11.0), true);
        assert_eq!(c.for_search(Color::White).unwrap().moves_to_go, Some(2));
        c.charge(Color::White, secs(5.0), true);
        assert_eq!(c.left(Color::White), Some(25.0));
        assert_eq!(c.for_search(Color::White).unwrap().moves_to_go, Some(1));
        c.charge(Color::White, secs(5.0), true);
        assert_eq!(c.left(Color::White), Some(30.0), "a fresh period");
        let first = GameClock::new(Some(TimeControl {
            byo_yomi: Some((secs(30.0), 5)),
            ..TimeControl::default()
        }));
        assert_eq!(first.for_search(Color::Black).unwrap().moves_to_go, Some(5));
    }

    #[test]
    fn a_reported_clock_times_only_the_colours_it_names() {
        let ms = Duration::from_millis;
        let clock = GameClock::reported(
            ByColor::new(Some(ms(60_000)), None),
            ByColor::new(Some(ms(500)), Some(ms(100))),
        );
        assert_eq!(clock.left(Color::Black), Some(60.0));
        assert_eq!(clock.left(Color::White), None);
        let control = clock.control[Color::Black].unwrap();
        assert_eq!((control.main, control.increment), (secs(60.0), secs(0.5)));
        assert!(clock.for_search(Color::Black).is_some());
        assert!(clock.for_search(Color::White).is_none());
    }

    #[test]
    fn untimed_and_unlimited() {
        let mut c = GameClock::untimed();
        assert_eq!(c.for_search(Color::Black), None);
        c.charge(Color::Black, secs(5.0), true);
        assert_eq!(c.left(Color::Black), None);
        c.set_left(Color::Black, 40.0, 0);
        assert_eq!(c.for_search(Color::Black).unwrap().remaining, secs(40.0));
        assert_eq!(c.for_search(Color::White), None);
        let gtp_unlimited = GameClock::new(Some(TimeControl {
            main: secs(0.0),
            byo_yomi: Some((secs(1.0), 0)),
            ..TimeControl::default()
        }));
        assert_eq!(gtp_unlimited.for_search(Color::Black), None);
    }
}
