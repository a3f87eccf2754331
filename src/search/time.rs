//! Strength levels and time management: how long and how deep to search one move.
//!
//! - [`Level`]: a ladder of strengths 1..=60, each a midgame depth, a selectivity and the
//!   number of empties from which the endgame is solved (win/loss/draw, then exact), in the
//!   spirit of the levels of Edax and NTest.
//! - [`Clock`] and [`budget`]: a per-move budget from the time left, the increment, the moves
//!   to play in the period (byo-yomi) and the empties; a hard limit well inside the clock;
//!   an exact (or win/loss/draw) solve when its estimated cost fits.
//! - [`MovePlan`]: combines a level, a fixed depth, a fixed time per move and a clock into
//!   the [`Limits`] of one search.
//!
//! Playing instantly when there is a single legal move is the front-end's job (it does not
//! even need a search); [`single_reply`] tells it when.

use super::{Limits, Selectivity, Solve};
use crate::board::{Board, Move, Square};
pub use crate::time_control::seconds;
use std::time::Duration;

/// A strength level, 1 (weakest) to 60 (perfect play: solves every position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// What a [`Level`] searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelParams {
    /// Midgame depth in plies.
    pub depth: u32,
    /// Selectivity of the midgame search (0..=5, 5 = no probcut).
    pub selectivity: Selectivity,
    /// Solve exactly from this many empties down.
    pub exact_empties: u32,
    /// Solve win/loss/draw from this many empties down (at least `exact_empties`).
    pub wld_empties: u32,
}

impl Level {
    /// The weakest level.
    pub const MIN: u8 = 1;
    /// The strongest level: every position is solved exactly.
    pub const MAX: u8 = 60;
    /// The level used when nothing else is said: quick on two cores (a midgame depth of 14
    /// and an exact solve from 22 empties take a second or a few).
    pub const DEFAULT: Level = Level(14);

    /// The level `n`, clamped to `1..=60`.
    pub fn new(n: u32) -> Level {
        Level(n.clamp(Self::MIN as u32, Self::MAX as u32) as u8)
    }

    /// The level's number.
    pub fn value(self) -> u8 {
        self.0
    }

    /// Depth, selectivity and solve thresholds of this level.
    ///
    /// Depth is the level. Exact solves start at twice the level up to level 10 (20
    /// empties), then half a square per level up to level 30 (30 empties), then one per
    /// level up to 60; win/loss/draw solves start two empties earlier. Levels 1-4 search
    /// without probcut (too shallow for it to matter), 5-17 at 95%, 18 and up at 87%.
    pub fn params(self) -> LevelParams {
        let l = self.0 as u32;
        let exact = match l {
            0..=10 => 2 * l,
            11..=30 => 20 + (l - 10) / 2,
            _ => l,
        }
        .min(60);
        let selectivity = Selectivity::new(match l {
            0..=4 => 5,
            5..=17 => 2,
            _ => 1,
        });
        LevelParams {
            depth: l,
            selectivity,
            exact_empties: exact,
            wld_empties: (exact + 2).min(60),
        }
    }

    /// The limits of a search at this level on a board with `empties` empty squares (no
    /// time limit, no stop flag).
    pub fn limits(self, empties: u32) -> Limits {
        let p = self.params();
        let solve = if empties <= p.exact_empties {
            Some(Solve::Exact)
        } else if empties <= p.wld_empties {
            Some(Solve::Wld)
        } else {
            None
        };
        Limits {
            depth: if solve.is_some() { None } else { Some(p.depth) },
            solve,
            selectivity: p.selectivity,
            ..Limits::default()
        }
    }
}

impl Default for Level {
    fn default() -> Self {
        Level::DEFAULT
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One player's clock as the time manager reads it: what is left of it now, not the rule it
/// follows (that is a [`crate::time_control::TimeControl`]); the controller's game clock
/// produces it (`controller::GameClock::for_search`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Clock {
    /// Time left now (main time, or the current byo-yomi period).
    pub remaining: Duration,
    /// Time added after each move (NBoard/GGS increments).
    pub increment: Duration,
    /// Moves to play within `remaining` before the clock is refilled (Canadian byo-yomi
    /// stones); `None` when `remaining` must last the whole game.
    pub moves_to_go: Option<u32>,
    /// A byo-yomi period that follows the main time: its length and its stones.
    pub byo_yomi: Option<(Duration, u32)>,
}

/// The time plan of one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Time the move should take on average.
    pub target: Duration,
    /// Time it must never exceed (given to the search as its hard limit; the search starts
    /// no new iteration after half of it).
    pub hard: Duration,
    /// An endgame solve that is expected to fit within the budget.
    pub solve: Option<Solve>,
}

/// Estimated seconds of an exact solve of `empties` empties on one thread: about a second at
/// 20 empties, doubling with each empty (measured on this machine's kind of 2-core box;
/// pessimistic for easy positions).
pub fn exact_cost(empties: u32) -> f64 {
    1.2 * 2f64.powf(empties as f64 - 20.0)
}

/// Estimated seconds of a win/loss/draw solve: about a third of an exact one.
pub fn wld_cost(empties: u32) -> f64 {
    exact_cost(empties) / 3.0
}

/// Time kept back for each move still to play, for process, pipe and scheduling overhead.
const OVERHEAD: Duration = Duration::from_millis(30);

/// The mover's last moves that need no time of their own: from about 20-24 empties the
/// searches reach the end of the game, and the moves after that are played from the table
/// at once (in 28 games at 20 s + 0.2 s, both engines spent under 1% of their clock below
/// 24 empties).
const FREE_MOVES: f64 = 10.0;

/// The smallest hard limit given to a search.
const MIN_HARD: Duration = Duration::from_millis(5);

/// Plans one move: `clock` is the mover's clock, `empties` the empty squares, `threads` the
/// search threads (a second thread is counted as 0.6 of one for solve estimates).
///
/// The usable time is the remaining time less a reserve (5% of it, at most a second, plus a
/// per-move overhead for each move still to play). It is spread over the moves still to
/// play: the byo-yomi stones when
/// given, else the mover's remaining moves less the last [`FREE_MOVES`]. The hard
/// limit is 1.5 times that share (the search starts no iteration after half of it, and the
/// last one it starts often runs to the limit, so a move takes about the share on average),
/// and never more than a quarter of the usable time without byo-yomi (so one move can never
/// lose the game on time). An endgame solve expected to fit in a fifth of the usable time
/// (a seventh for win/loss/draw) may take up to half of it (two fifths), since it settles
/// the rest of the game. With byo-yomi after the main time, the share is at least what the
/// period allows per stone.
pub fn budget(clock: &Clock, empties: u32, threads: usize) -> Budget {
    let remaining = clock.remaining.as_secs_f64();
    // The overhead of every move still to play on this clock (pipes, scheduling: time the
    // controller counts but the search does not see) is kept back from the start.
    let moves_left = match clock.moves_to_go {
        Some(k) => k.max(1) as f64,
        None => (empties as f64 / 2.0).ceil().max(1.0),
    };
    let reserve = (remaining * 0.05).min(1.0) + OVERHEAD.as_secs_f64() * moves_left;
    let usable = (remaining - reserve).max(0.0);
    let (share, cap) = match clock.moves_to_go {
        Some(k) => {
            let k = k.max(1) as f64;
            (usable / k, usable / (k / 2.0).max(1.0))
        }
        None => {
            let my_moves = (empties as f64 / 2.0).ceil();
            let n = (my_moves - FREE_MOVES).max(1.0);
            (usable / n, usable * 0.25)
        }
    };
    let inc = clock.increment.as_secs_f64();
    let mut share = share + inc * 0.9;
    let mut cap = cap + inc * 0.9;
    if clock.moves_to_go.is_none()
        && let Some((period, stones)) = clock.byo_yomi
    {
        let per_stone = period.as_secs_f64() / stones.max(1) as f64 * 0.8;
        share = share.max(per_stone * 0.5);
        cap = cap.max(per_stone);
    }
    let mut hard_secs = (share * 1.5).min(cap).min(usable.max(0.0) + inc * 0.9);
    let mut target_secs = hard_secs / 1.5;
    // A solve settles the rest of the game (the moves after it are found in the table), so
    // it may take more than one move's share: up to half of the usable time for an exact
    // solve expected to need a fifth of it, two fifths for a win/loss/draw solve expected to
    // need a seventh.
    if clock.moves_to_go.is_none() {
        let speed = thread_speed(threads);
        let room = |cost: f64, part: f64, most: f64| {
            let c = cost / speed;
            (c <= usable * part).then(|| (c * 2.5).min(usable * most))
        };
        if let Some(h) =
            room(exact_cost(empties), 0.2, 0.5).or_else(|| room(wld_cost(empties), 1.0 / 7.0, 0.4))
            && h > hard_secs
        {
            hard_secs = h;
            target_secs = h / 2.5;
        }
    }
    let hard = seconds(hard_secs).max(MIN_HARD);
    Budget {
        target: seconds(target_secs),
        hard,
        solve: affordable_solve(empties, hard, threads),
    }
}

/// How many threads' worth of speed `threads` search threads give (a second thread counts
/// 0.6).
fn thread_speed(threads: usize) -> f64 {
    1.0 + 0.6 * (threads.max(1) - 1) as f64
}

/// What limits apply to the moves an engine chooses: a level, a fixed depth, a fixed time
/// per move, and the clock of the game when there is one. Every limit that is set applies.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MovePlan {
    /// Strength level; with no level, no depth and no time per move, a clock alone decides
    /// (full strength within the time), and without a clock [`Level::DEFAULT`] applies.
    pub level: Option<Level>,
    /// Fixed midgame depth (overrides the level's depth; the level's solve thresholds are
    /// kept, or those of the level equal to the depth when no level is set).
    pub depth: Option<u32>,
    /// Fixed time per move.
    pub move_time: Option<Duration>,
}

impl MovePlan {
    /// The limits of a search for a move on `board` with the mover's `clock` (if the game
    /// is timed) and `threads` search threads. No stop flag is set.
    ///
    /// The time limit is the smaller of the time per move and the clock's hard limit. A
    /// level (or depth) decides depth and solves; a solve it asks for is downgraded
    /// (exact to win/loss/draw to a depth-limited search) when its estimated cost does not
    /// fit the time. With a time limit and no level, the search runs at full strength (87%
    /// probcut confidence, selectivity 1) and solves whatever fits.
    pub fn limits(&self, board: &Board, clock: Option<&Clock>, threads: usize) -> Limits {
        let empties = board.empty_count();
        let mut time = self.move_time;
        if let Some(c) = clock {
            let hard = budget(c, empties, threads).hard;
            time = Some(time.map_or(hard, |t| t.min(hard)));
        }
        let level = match (self.level, self.depth) {
            (Some(l), _) => Some(l),
            (None, Some(d)) => Some(Level::new(d)),
            (None, None) if time.is_none() => Some(Level::DEFAULT),
            (None, None) => None,
        };
        let depth = self
            .depth
            .or(level.map(|l| l.params().depth))
            .map(|d| d.max(1));
        let mut limits = match level {
            Some(l) => l.limits(empties),
            // The clock alone decides: cut at 87% (selectivity 1), which beat 95% by +60 Elo
            // [+18, +102] at 10 s + 0.1 s a game (docs/match.md, try 3).
            None => Limits {
                selectivity: Selectivity::new(1),
                ..Limits::default()
            },
        };
        if limits.solve.is_none() {
            limits.depth = depth;
        }
        if let Some(t) = time {
            limits.time = Some(t);
            let affordable = affordable_solve(empties, t, threads);
            limits.solve = match level {
                None => affordable,
                Some(_) => weaker(limits.solve, affordable),
            };
            if limits.solve.is_none() {
                limits.depth = depth;
            }
        }
        limits
    }
}

/// The less complete of two solves (none < win/loss/draw < exact).
fn weaker(a: Option<Solve>, b: Option<Solve>) -> Option<Solve> {
    let rank = |s: Option<Solve>| match s {
        None => 0,
        Some(Solve::Wld) => 1,
        Some(Solve::Exact) => 2,
    };
    if rank(a) <= rank(b) { a } else { b }
}

/// The most complete solve whose estimated cost fits in 60% of `time` (a solve is one long
/// iteration: it must finish to be of use).
fn affordable_solve(empties: u32, time: Duration, threads: usize) -> Option<Solve> {
    let speed = thread_speed(threads);
    let fits = |cost: f64| cost / speed <= time.as_secs_f64() * 0.6;
    if fits(exact_cost(empties)) {
        Some(Solve::Exact)
    } else if fits(wld_cost(empties)) {
        Some(Solve::Wld)
    } else {
        None
    }
}

/// The move to play at once, without a search, when the side to move has a single legal
/// move (or must pass). `None` when there is a choice or the game is over.
pub fn single_reply(board: &Board) -> Option<Move> {
    let moves = board.moves();
    if moves == 0 {
        return board.must_pass().then_some(Move::Pass);
    }
    (moves.count_ones() == 1).then(|| Move::Play(Square::first_of(moves)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn level_ladder_is_monotonic() {
        let mut last = Level::new(1).params();
        assert_eq!(last.exact_empties, 2);
        for n in 2..=60 {
            let p = Level::new(n).params();
            assert!(p.depth > last.depth);
            assert!(p.exact_empties >= last.exact_empties);
            assert!(p.wld_empties >= p.exact_empties);
            assert!(p.selectivity <= Selectivity::NONE);
            last = p;
        }
        assert_eq!(Level::new(60).params().exact_empties, 60);
        assert_eq!(Level::new(0), Level::new(1));
        assert_eq!(Level::new(99), Level::new(60));
        assert_eq!(Level::new(10).params().exact_empties, 20);
    }

    #[test]
    fn level_limits_switch_to_solves() {
        let l = Level::new(10);
        assert_eq!(l.limits(40).depth, Some(10));
        assert_eq!(l.limits(40).solve, None);
        assert_eq!(l.limits(22).solve, Some(Solve::Wld));
        assert_eq!(l.limits(20).solve, Some(Solve::Exact));
        assert_eq!(l.limits(20).depth, None);
    }

    #[test]
    fn budget_stays_inside_the_clock() {
        for remaining in [0.0, 0.05, 0.5, 2.0, 10.0, 60.0, 900.0] {
            for empties in [1, 10, 20, 30, 44, 60] {
                let c = Clock {
                    remaining: secs(remaining),
                    ..Clock::default()
                };
                let b = budget(&c, empties, 1);
                assert!(b.hard >= b.target);
                // A quarter of the clock at most, half for a solve that settles the game.
                let part = if b.solve.is_some() { 0.5 } else { 0.25 };
                assert!(
                    b.hard.as_secs_f64() <= (remaining * part).max(MIN_HARD.as_secs_f64()),
                    "{remaining} {empties} {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_minute_a_game_spends_about_three_seconds_a_move() {
        let c = Clock {
            remaining: secs(60.0),
            ..Clock::default()
        };
        let b = budget(&c, 56, 1);
        assert!(b.target > secs(2.5) && b.target < secs(4.0), "{b:?}");
        assert_eq!(b.solve, None);
        let late = Clock {
            remaining: secs(30.0),
            ..Clock::default()
        };
        assert_eq!(budget(&late, 16, 1).solve, Some(Solve::Exact));
        // Thirteen seconds at 20 empties: the exact solve (about a second) may take up to
        // three, more than the move's share.
        let end = Clock {
            remaining: secs(13.0),
            ..Clock::default()
        };
        let b = budget(&end, 20, 1);
        assert_eq!(b.solve, Some(Solve::Exact));
        assert!(b.hard >= secs(2.9) && b.hard <= secs(6.5), "{b:?}");
        // At 22 empties the exact solve does not fit, the win/loss/draw one does.
        assert_eq!(budget(&end, 22, 1).solve, Some(Solve::Wld));
    }

    #[test]
    fn byo_yomi_and_increment() {
        let c = Clock {
            remaining: secs(10.0),
            moves_to_go: Some(5),
            ..Clock::default()
        };
        let b = budget(&c, 40, 1);
        assert!(b.hard <= secs(4.0) && b.hard >= secs(2.0), "{b:?}");
        let inc = Clock {
            remaining: secs(1.0),
            increment: secs(2.0),
            ..Clock::default()
        };
        assert!(budget(&inc, 40, 1).hard >= secs(1.5));
        let main_then_byo = Clock {
            remaining: secs(0.0),
            byo_yomi: Some((secs(10.0), 1)),
            ..Clock::default()
        };
        assert!(budget(&main_then_byo, 40, 1).hard >= secs(0.005));
    }

    #[test]
    fn plans() {
        let start = Board::start();
        let none = MovePlan::default();
        let l = none.limits(&start, None, 1);
        assert_eq!(l.depth, Some(Level::DEFAULT.params().depth));
        assert_eq!(l.time, None);
        let depth = MovePlan {
            depth: Some(3),
            ..MovePlan::default()
        };
        assert_eq!(depth.limits(&start, None, 1).depth, Some(3));
        let clock = Clock {
            remaining: secs(60.0),
            ..Clock::default()
        };
        let timed = none.limits(&start, Some(&clock), 1);
        assert_eq!(timed.depth, None);
        assert!(timed.time.is_some());
        // The clock alone decides: 87% probcut (try 3 of docs/match.md).
        assert_eq!(timed.selectivity, Selectivity::new(1));
        assert_eq!(timed.selectivity.percent(), 87);
        // A level keeps its own selectivity.
        let level = MovePlan {
            level: Some(Level::new(10)),
            ..MovePlan::default()
        };
        let leveled = level.limits(&start, Some(&clock), 1);
        assert_eq!(leveled.selectivity, Level::new(10).params().selectivity);
        let per_move = MovePlan {
            move_time: Some(secs(1.0)),
            ..MovePlan::default()
        };
        let l = per_move.limits(&start, Some(&clock), 1);
        assert_eq!(l.time, Some(secs(1.0)));
    }

    #[test]
    fn single_replies() {
        assert_eq!(single_reply(&Board::start()), None);
        // Black to move with one move: a1 empty, b1 white, c1 black, nothing else to flip.
        let b = Board::new(1 << 2, 1 << 1);
        assert_eq!(single_reply(&b), Some(Move::Play(Square::new(0).unwrap())));
        let pass = b.passed();
        assert_eq!(pass.moves().count_ones(), 1);
        let over = Board::new(1, 0);
        assert_eq!(single_reply(&over), None);
        let must_pass = Board::new(1 << 1, 1);
        assert!(must_pass.must_pass());
        assert_eq!(single_reply(&must_pass), Some(Move::Pass));
    }

    #[test]
    fn seconds_from_anything() {
        assert_eq!(seconds(f64::NAN), Duration::ZERO);
        assert_eq!(seconds(-1.0), Duration::ZERO);
        assert_eq!(seconds(f64::INFINITY), Duration::ZERO);
        assert_eq!(seconds(1e300), Duration::from_secs(1_000_000_000));
        assert_eq!(seconds(1.5), Duration::from_millis(1500));
        let huge = Clock {
            remaining: seconds(1e300),
            increment: seconds(1e300),
            moves_to_go: Some(u32::MAX),
            byo_yomi: Some((seconds(1e300), 0)),
        };
        let b = budget(&huge, 60, 64);
        assert!(b.hard >= b.target);
    }
}
