//! The time a move may plan with on a GGS clock. Pure functions.
//!
//! GGS's main time is the one that decides (a player past it loses at best by the smallest
//! margin), so a game's budget is the main time the server shows, less a margin for the
//! network and the server's own timing ([`safe_time`]); the extension is kept as a reserve.
//!
//! The client searches one move at a time. In a synchro match (two games at once, each with
//! its own clock) both games often wait for the client together, and a game's clock runs
//! while the client thinks about the other game: each game then plans as if its clock were
//! shared by the games still running ([`plan_time`]).

use super::message::GgsClock;

/// The part of `main` seconds left on a GGS clock that a move may plan with: the network
/// and the server's own timing take a margin (a quarter of a second and 5%, at least); past
/// the main time, the extension is planned with in the same way.
pub fn safe_time(clock: &GgsClock) -> f64 {
    let left = if clock.main > 0.0 {
        clock.main
    } else {
        clock.main + clock.extension
    };
    let margin = 0.25 + 0.05 * left.max(0.0);
    (left - margin).max(0.01)
}

/// The seconds a game's move may plan with when `running` games of the client's (this one
/// included) are in play at once and may wait for its one search together: the safe time,
/// split between them.
pub fn plan_time(clock: &GgsClock, running: usize) -> f64 {
    (safe_time(clock) / running.max(1) as f64).max(0.01)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_time_less_a_margin_then_the_extension() {
        let c = GgsClock::new(60.0, 0.0, 30.0);
        assert!((safe_time(&c) - (60.0 - 0.25 - 3.0)).abs() < 1e-9);
        let past = GgsClock::new(-5.0, 0.0, 30.0);
        assert!((safe_time(&past) - (25.0 - 0.25 - 1.25)).abs() < 1e-9);
        let gone = GgsClock::new(-40.0, 0.0, 30.0);
        assert_eq!(safe_time(&gone), 0.01);
    }

    #[test]
    fn a_synchro_match_splits_each_clock_between_its_running_games() {
        let c = GgsClock::new(60.0, 0.0, 30.0);
        assert_eq!(plan_time(&c, 1), safe_time(&c));
        assert_eq!(plan_time(&c, 0), safe_time(&c));
        assert!((plan_time(&c, 2) - safe_time(&c) / 2.0).abs() < 1e-9);
        // Two games planning half each spend no more than one game with the whole clock.
        assert!(2.0 * plan_time(&c, 2) <= safe_time(&c) + 1e-9);
        assert_eq!(plan_time(&GgsClock::new(-40.0, 0.0, 0.0), 2), 0.01);
    }
}
