//! The players' clocks of a game, kept by the server (the clients only show them): each
//! colour's time left lives in the controller's [`crate::controller::GameClock`] as it stood
//! when the running turn began, and the [`Turn`] says whose clock runs since when. A person's
//! move charges the time since their turn began, then adds the increment; the engine's
//! choice is charged by the controller as before. A clock that runs out ends the game on
//! time: the [`Referee`] (one tokio task for the whole server) wakes at the earliest
//! deadline, so that the game ends without waiting for a message.
//!
//! Rules (`docs/serve.md`): an `online` game's clocks start once both seats are taken; undo
//! keeps the time spent (the running clock is charged, without an increment, and the turn
//! starts again for the side then to move); a loss on time scores the empty squares to the
//! winner, and at least 33-31.

use super::registry::Registry;
use super::room::{Mode, Room};
use crate::board::Color;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The state's clocks: seconds left (null for an untimed colour) and the colour whose clock
/// runs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Clocks {
    /// Black's seconds left.
    pub black: Option<f64>,
    /// White's seconds left.
    pub white: Option<f64>,
    /// `"black"` or `"white"` while that clock runs; null when none does.
    pub running: Option<String>,
}

/// The running turn: whose clock runs, from when, at which ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The ply at which the turn began.
    pub ply: usize,
    /// The colour whose clock runs.
    pub color: Color,
    /// When the turn began.
    pub since: Instant,
}

/// `secs` to a tenth of a second, as the state shows it.
fn tenths(secs: f64) -> f64 {
    (secs.max(0.0) * 10.0).round() / 10.0
}

impl Room {
    /// True when the game has a clock.
    pub fn timed(&self) -> bool {
        self.time.is_some()
    }

    /// The seconds left on `color`'s clock at `now` (the running one's time taken off), if
    /// timed; never below zero.
    pub fn clock_left(&self, color: Color, now: Instant) -> Option<f64> {
        let banked = self.controller.clock().left(color)?;
        let spent = match self.turn {
            Some(t) if t.color == color => now.saturating_duration_since(t.since).as_secs_f64(),
            _ => 0.0,
        };
        Some((banked - spent).max(0.0))
    }

    /// The clocks as the state shows them at `now`; none when the game is untimed.
    pub fn clocks_at(&self, now: Instant) -> Option<Clocks> {
        if !self.timed() {
            return None;
        }
        Some(Clocks {
            black: self.clock_left(Color::Black, now).map(tenths),
            white: self.clock_left(Color::White, now).map(tenths),
            running: self.turn.map(|t| t.color.name().to_string()),
        })
    }

    /// The turn that should run now: none when untimed, over, or an `online` game waits for
    /// its second player.
    fn wanted_turn(&self) -> Option<(usize, Color)> {
        let waiting = self.mode == Mode::Online
            && (self.tokens[Color::Black].is_none() || self.tokens[Color::White].is_none());
        let to_move = self.game().to_move();
        // A colour without a clock (the engine at a level) has no turn to time.
        let clocked = self.controller.clock().left(to_move).is_some();
        if !self.timed() || self.is_over() || waiting || !clocked {
            return None;
        }
        Some((self.game().len(), to_move))
    }

    /// Charges the running clock the time of its turn so far (no increment: no move was
    /// made) and stops it.
    pub fn stop_clock(&mut self, now: Instant) {
        if let Some(t) = self.turn.take() {
            let spent = now.saturating_duration_since(t.since);
            self.controller.clock_mut().charge(t.color, spent, false);
        }
    }

    /// After `color` played (`is_move`: not a pass): the time of its turn is charged and the
    /// increment added; the next turn starts at the next [`Room::sync_turn`].
    pub fn charge_move(&mut self, color: Color, is_move: bool, now: Instant) {
        match self.turn.take() {
            Some(t) if t.color == color => {
                let spent = now.saturating_duration_since(t.since);
                self.controller.clock_mut().charge(color, spent, is_move);
            }
            other => self.turn = other,
        }
    }

    /// Starts, keeps or stops the running clock after a change, as the game now stands: a new
    /// turn starts at `now`; a turn that ended without a move (a resignation, the game over
    /// on time) is charged its time.
    pub fn sync_turn(&mut self, now: Instant) {
        let wanted = self.wanted_turn();
        if let Some(t) = self.turn {
            if wanted == Some((t.ply, t.color)) {
                return;
            }
            let same_ply = t.ply == self.game().len() && t.color == self.game().to_move();
            if same_ply {
                self.stop_clock(now);
            }
        }
        self.turn = wanted.map(|(ply, color)| Turn {
            ply,
            color,
            since: now,
        });
    }

    /// When the running clock runs out, if one runs.
    pub fn deadline(&self) -> Option<Instant> {
        let t = self.turn?;
        let left = self.controller.clock().left(t.color)?;
        Some(t.since + crate::time_control::seconds(left))
    }

    /// Ends the game on time when the running clock has run out at `now`; true when it did.
    pub fn check_time(&mut self, now: Instant) -> bool {
        match (self.turn, self.deadline()) {
            (Some(t), Some(d)) if now >= d && !self.is_over() => {
                self.stop_clock(now);
                self.timed_out = Some(t.color);
                true
            }
            _ => false,
        }
    }
}

/// The score of a loss on time by `loser` with `black` and `white` discs on the board: the
/// empty squares go to the winner, who gets at least 33 (33-31).
pub fn time_loss_score(loser: Color, black: u32, white: u32) -> (u32, u32) {
    let empties = 64u32.saturating_sub(black + white);
    let (mut win, mut lose) = match loser {
        Color::Black => (white + empties, black),
        Color::White => (black + empties, white),
    };
    if win < 33 {
        (win, lose) = (33, 31);
    }
    match loser {
        Color::Black => (lose, win),
        Color::White => (win, lose),
    }
}

/// The deadlines of the games whose clock runs, earliest first, and the waker of the task
/// that waits for them.
#[derive(Default)]
pub struct Referee {
    deadlines: Mutex<Deadlines>,
    wake: Notify,
}

#[derive(Default)]
struct Deadlines {
    by_game: HashMap<String, Instant>,
    order: BTreeSet<(Instant, String)>,
}

impl Referee {
    fn deadlines(&self) -> std::sync::MutexGuard<'_, Deadlines> {
        self.deadlines.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets game `id`'s deadline (none: its clock stopped).
    pub fn set(&self, id: &str, deadline: Option<Instant>) {
        let mut d = self.deadlines();
        let old = match deadline {
            Some(at) => d.by_game.insert(id.to_string(), at),
            None => d.by_game.remove(id),
        };
        if old == deadline {
            return;
        }
        if let Some(old) = old {
            d.order.remove(&(old, id.to_string()));
        }
        if let Some(at) = deadline {
            d.order.insert((at, id.to_string()));
        }
        drop(d);
        self.wake.notify_one();
    }

    /// The earliest deadline.
    pub fn next(&self) -> Option<Instant> {
        self.deadlines().order.first().map(|(at, _)| *at)
    }

    /// Takes out the games whose deadline is at or before `now`.
    pub fn due(&self, now: Instant) -> Vec<String> {
        let mut d = self.deadlines();
        let mut ids = Vec::new();
        while let Some((at, _)) = d.order.first() {
            if *at > now {
                break;
            }
            if let Some((_, id)) = d.order.pop_first() {
                d.by_game.remove(&id);
                ids.push(id);
            }
        }
        ids
    }

    /// The games whose clock runs.
    pub fn len(&self) -> usize {
        self.deadlines().by_game.len()
    }

    /// True when no clock runs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Runs the referee for `registry` until the server stops: at each deadline, the game's
/// clock is checked, and a game whose clock ran out ends on time.
pub async fn referee(registry: Arc<Registry>) {
    loop {
        let next = registry.referee.next();
        let sleep = async {
            match next {
                // A little late rather than early: the clock is read at the deadline.
                Some(at) => tokio::time::sleep_until((at + Duration::from_millis(1)).into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = sleep => {}
            _ = registry.referee.wake.notified() => continue,
        }
        for id in registry.referee.due(Instant::now()) {
            registry.on_time(&id);
        }
    }
}

/// How often the running clocks are written: a server killed without warning loses at most
/// this much of a running turn.
pub const SAVE_EVERY: Duration = Duration::from_secs(5);

/// Writes the games whose clock runs every [`SAVE_EVERY`] until the server stops.
pub async fn keeper(registry: Arc<Registry>) {
    let mut tick = tokio::time::interval(SAVE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is at once.
    tick.tick().await;
    loop {
        tick.tick().await;
        let registry = registry.clone();
        if let Err(e) = tokio::task::spawn_blocking(move || registry.save_clocks()).await {
            log::warn!("writing the running clocks failed: {e}");
        }
    }
}

impl Registry {
    /// Keeps game `room`'s clock after a change: its turn, and its deadline with the referee.
    pub(super) fn keep_time(&self, room: &mut Room) {
        room.sync_turn(Instant::now());
        self.referee.set(&room.id, room.deadline());
    }

    /// Game `id`'s deadline came: the game ends on time when its clock ran out (its
    /// connections told), else its deadline is set again.
    pub fn on_time(&self, id: &str) {
        let Some(live) = self.live(id) else { return };
        let mut room = live.room();
        self.flag_fall(&live, &mut room);
        self.referee.set(&room.id, room.deadline());
    }

    /// Ends the game on time when its running clock ran out (the change told to every
    /// connection); true when it did.
    pub(super) fn flag_fall(&self, live: &super::registry::Live, room: &mut Room) -> bool {
        if room.check_time(Instant::now()) {
            self.changed(live, room);
            true
        } else {
            false
        }
    }

    /// Writes every game whose clock runs with its clocks as they stand (the server stops:
    /// a restart resumes them with the time left now).
    pub fn save_clocks(&self) {
        for live in self.lives() {
            let room = live.room();
            if room.turn.is_some() {
                self.save(&room);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::ByColor;
    use crate::controller::{Mover, Options};
    use crate::game::Game;
    use crate::serve::room::Strength;

    fn room(mode: Mode, time: Option<(f64, f64)>) -> Room {
        let mut r = Room::new(
            "id".into(),
            mode,
            0,
            Options::default(),
            Game::default(),
            None,
            Strength {
                level: 10,
                time,
                level_on_clock: false,
            },
            false,
        );
        r.tokens = ByColor::new(Some("b".into()), Some("w".into()));
        r
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn a_move_charges_its_turn_and_adds_the_increment_then_the_clock_runs_out() {
        let mut r = room(Mode::Local, Some((10.0, 2.0)));
        let t0 = Instant::now();
        r.sync_turn(t0);
        assert_eq!(r.turn.map(|t| t.color), Some(Color::Black));
        assert_eq!(r.clock_left(Color::Black, t0 + secs(3)), Some(7.0));
        assert_eq!(r.clock_left(Color::White, t0 + secs(3)), Some(10.0));
        r.controller
            .play("f5".parse().unwrap(), Mover::Other)
            .unwrap();
        r.charge_move(Color::Black, true, t0 + secs(3));
        r.sync_turn(t0 + secs(3));
        assert_eq!(r.clock_left(Color::Black, t0 + secs(5)), Some(9.0));
        assert_eq!(r.turn.map(|t| t.color), Some(Color::White));
        assert_eq!(r.deadline(), Some(t0 + secs(13)));
        assert!(!r.check_time(t0 + secs(12)));
        assert!(r.check_time(t0 + secs(13)));
        assert!(r.is_over());
        assert!(!r.check_time(t0 + secs(14)), "once");
        let o = r.outcome().unwrap();
        assert_eq!((o.reason.as_str(), o.score.as_str()), ("time", "63-1"));
        assert_eq!(o.winner.as_deref(), Some("black"));
        r.sync_turn(t0 + secs(14));
        assert_eq!(r.turn, None, "no clock runs once over");
        let c = r.clocks_at(t0 + secs(20)).unwrap();
        assert_eq!((c.black, c.white, c.running), (Some(9.0), Some(0.0), None));
    }

    #[test]
    fn an_online_clock_waits_for_both_seats_and_an_untimed_game_has_none() {
        let mut r = room(Mode::Online, Some((60.0, 0.0)));
        r.tokens[Color::White] = None;
        r.sync_turn(Instant::now());
        assert_eq!(r.turn, None);
        assert_eq!(r.clocks_at(Instant::now()).unwrap().running, None);
        r.tokens[Color::White] = Some("w".into());
        r.sync_turn(Instant::now());
        assert_eq!(r.turn.map(|t| t.color), Some(Color::Black));
        let mut untimed = room(Mode::Local, None);
        untimed.sync_turn(Instant::now());
        assert_eq!(
            (untimed.turn, untimed.clocks_at(Instant::now())),
            (None, None)
        );
    }

    #[test]
    fn a_turn_that_ends_without_a_move_is_charged_without_increment() {
        let mut r = room(Mode::Local, Some((10.0, 5.0)));
        let t0 = Instant::now();
        r.sync_turn(t0);
        r.resigned = Some(Color::Black);
        r.sync_turn(t0 + secs(4));
        assert_eq!(r.turn, None);
        assert_eq!(r.clock_left(Color::Black, t0 + secs(9)), Some(6.0));
    }

    #[test]
    fn a_loss_on_time_scores_the_empties_to_the_winner_at_least_33_31() {
        assert_eq!(time_loss_score(Color::Black, 10, 20), (10, 54));
        assert_eq!(time_loss_score(Color::White, 10, 20), (44, 20));
        assert_eq!(time_loss_score(Color::White, 2, 2), (62, 2));
        assert_eq!(time_loss_score(Color::Black, 40, 24), (31, 33));
        assert_eq!(time_loss_score(Color::White, 20, 44), (33, 31));
    }

    #[test]
    fn the_referee_gives_the_due_games_earliest_first() {
        let r = Referee::default();
        let t = Instant::now();
        r.set("a", Some(t + Duration::from_secs(5)));
        r.set("b", Some(t + Duration::from_secs(1)));
        r.set("c", Some(t + Duration::from_secs(3)));
        assert_eq!(r.next(), Some(t + Duration::from_secs(1)));
        r.set("b", Some(t + Duration::from_secs(9)));
        r.set("c", None);
        assert_eq!(r.len(), 2);
        assert_eq!(r.due(t + Duration::from_secs(6)), vec!["a".to_string()]);
        assert_eq!(r.next(), Some(t + Duration::from_secs(9)));
        assert!(r.due(t + Duration::from_secs(8)).is_empty());
        assert_eq!(r.due(t + Duration::from_secs(9)), vec!["b".to_string()]);
        assert!(r.is_empty());
    }
}
