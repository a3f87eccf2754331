//! One game of the server: its mode, its seats and their tokens, the [`Controller`] that holds
//! the game, the engine's level and clock, and the rules of what a seat may do (a move only
//! when legal and the seat's turn, undo, resign). No I/O here: the registry
//! ([`super::registry`]) runs the engine's searches and keeps the games.

use super::clocks::Turn;
use super::messages::{Outcome, PerColor, State};
use crate::board::{ByColor, Color, Move};
use crate::controller::{Controller, Mover, Options, TimeControl};
use crate::game::Game;
use crate::notation::board_string;
use crate::search::Level;
use crate::time_control::seconds;

/// Who plays a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A person against the engine.
    Engine,
    /// Two people on one device: one seat plays both colours.
    Local,
    /// Two people, each in a browser of their own.
    Online,
}

impl Mode {
    /// The mode's name in the protocol.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Engine => "engine",
            Mode::Local => "local",
            Mode::Online => "online",
        }
    }

    /// The mode named `s`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "engine" => Some(Mode::Engine),
            "local" => Some(Mode::Local),
            "online" => Some(Mode::Online),
            _ => None,
        }
    }
}

/// A connection's seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// One colour.
    One(Color),
    /// Both colours (a `local` game).
    Both,
}

impl Seat {
    /// The seat's name in the protocol: `black`, `white` or `both`.
    pub fn name(self) -> &'static str {
        match self {
            Seat::One(c) => c.name(),
            Seat::Both => "both",
        }
    }

    /// True when the seat plays `color`.
    pub fn plays(self, color: Color) -> bool {
        match self {
            Seat::One(c) => c == color,
            Seat::Both => true,
        }
    }
}

/// The colour named `s` (`black`, `white`).
pub fn parse_color(s: &str) -> Option<Color> {
    match s {
        "black" => Some(Color::Black),
        "white" => Some(Color::White),
        _ => None,
    }
}

/// A move as the protocol writes it: `f5`, `pass`.
pub fn move_name(mv: Move) -> String {
    match mv {
        Move::Play(sq) => sq.to_string(),
        Move::Pass => "pass".to_string(),
    }
}

/// One game and its seats.
pub struct Room {
    /// The id: 32 hex digits.
    pub id: String,
    /// Who plays it.
    pub mode: Mode,
    /// When created (Unix seconds).
    pub created: u64,
    /// When finished (Unix seconds).
    pub finished: Option<u64>,
    /// The game, the clocks, the engine options.
    pub controller: Controller,
    /// Each colour's seat token (a `local` game's token is both colours').
    pub tokens: ByColor<Option<String>>,
    /// The engine's colour in an `engine` game.
    pub engine: Option<Color>,
    /// The engine's level.
    pub level: u32,
    /// The clocks: seconds for the game and added per move; the engine, when it plays, plays
    /// on its clock instead of a level unless [`Room::level_on_clock`].
    pub time: Option<(f64, f64)>,
    /// The engine plays at its level in a game with clocks: only the person has one.
    pub level_on_clock: bool,
    /// Whose clock runs since when (see [`super::clocks`]).
    pub turn: Option<Turn>,
    /// A loss on time (the colour whose clock ran out).
    pub timed_out: Option<Color>,
    /// Hints on.
    pub hints: bool,
    /// A resignation (the colour that resigned).
    pub resigned: Option<Color>,
    /// Each position's score from black's side, where known.
    pub evals: Vec<Option<f64>>,
    /// The search whose result is wanted (its sequence number).
    pub search: Option<u64>,
    /// True while the engine searches its move.
    pub thinking: bool,
    /// The connection whose analysis or hint runs.
    pub asker: Option<u64>,
    /// Numbers the searches.
    pub seq: u64,
}

/// A new game's engine level and clocks ([`Room::new`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    /// The engine's level.
    pub level: u32,
    /// Each player's clock: seconds for the game and per move.
    pub time: Option<(f64, f64)>,
    /// The engine plays at `level` though the game has clocks (only the person's runs).
    pub level_on_clock: bool,
}

impl Room {
    /// A new game of `mode` from `game`, with the engine options `options` (the level and
    /// clock set here).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: String,
        mode: Mode,
        created: u64,
        mut options: Options,
        game: Game,
        engine: Option<Color>,
        strength: Strength,
        hints: bool,
    ) -> Room {
        let Strength {
            level,
            time,
            level_on_clock,
        } = strength;
        let level_on_clock = level_on_clock && engine.is_some() && time.is_some();
        let engine_clock = time.is_some() && !level_on_clock;
        options.plan.level = (!engine_clock).then(|| Level::new(level));
        options.plan.depth = None;
        options.plan.move_time = None;
        let mut controller = Controller::new(options);
        if let Some(control) = time.map(time_control) {
            for color in [Color::Black, Color::White] {
                // The engine at a level has no clock: only the person's runs.
                if !(level_on_clock && engine == Some(color)) {
                    controller.clock_mut().set_control(color, Some(control));
                }
            }
        }
        controller.set_game(Game::new(game.start()));
        for &mv in game.moves() {
            // The moves were read from a game: each is legal.
            let _ = controller.play(mv, Mover::Given);
        }
        let mut room = Room {
            id,
            mode,
            created,
            finished: None,
            controller,
            tokens: ByColor::default(),
            engine,
            level,
            time,
            level_on_clock,
            turn: None,
            timed_out: None,
            hints,
            resigned: None,
            evals: Vec::new(),
            search: None,
            thinking: false,
            asker: None,
            seq: 0,
        };
        room.sync_evals();
        room
    }

    /// The clock each player has, when the game has clocks.
    pub fn time_control(&self) -> Option<TimeControl> {
        self.time.map(time_control)
    }

    /// The game.
    pub fn game(&self) -> &Game {
        self.controller.game()
    }

    /// The seat `token` holds.
    pub fn seat_of(&self, token: &str) -> Option<Seat> {
        let holds = |c: Color| self.tokens[c].as_deref() == Some(token);
        match (holds(Color::Black), holds(Color::White)) {
            (true, true) => Some(Seat::Both),
            (true, false) => Some(Seat::One(Color::Black)),
            (false, true) => Some(Seat::One(Color::White)),
            (false, false) => None,
        }
    }

    /// True once the game is over (played out, resigned or lost on time).
    pub fn is_over(&self) -> bool {
        self.resigned.is_some() || self.timed_out.is_some() || self.game().is_over()
    }

    /// True when the engine is to move now.
    pub fn engine_to_move(&self) -> bool {
        !self.is_over() && self.engine == Some(self.game().to_move())
    }

    /// Keeps one eval a position: none for new ones, the taken-back ones dropped.
    pub fn sync_evals(&mut self) {
        self.evals.resize(self.game().len() + 1, None);
    }

    /// Notes the score of the position at `ply` for its side to move.
    pub fn note_eval(&mut self, ply: usize, score: i32) {
        self.sync_evals();
        let Some(pos) = self.game().positions().get(ply) else {
            return;
        };
        let black = match pos.to_move {
            Color::Black => score,
            Color::White => -score,
        };
        self.evals[ply] = Some(black as f64);
    }

    /// Marks the game finished at `now` when it is over and not marked yet.
    pub fn mark_finished(&mut self, now: u64) {
        if self.is_over() && self.finished.is_none() {
            self.finished = Some(now);
        }
    }

    /// Plays `text` (`f5`, `pass`) for `seat`: refused (and nothing changes) unless the game
    /// goes on, it is the seat's turn and the move is legal.
    pub fn play(&mut self, seat: Seat, text: &str) -> Result<(), String> {
        if self.is_over() {
            return Err("the game is over".into());
        }
        let to_move = self.game().to_move();
        if !seat.plays(to_move) || self.engine == Some(to_move) {
            return Err(format!("not your turn: {to_move} is to move"));
        }
        let mv: Move = text.trim().parse().map_err(|_| {
            format!(
                "{:?} is not a move (a square such as f5, or pass)",
                short(text)
            )
        })?;
        self.controller
            .play(mv, Mover::Other)
            .map_err(|e| e.to_string())?;
        self.charge_move(to_move, mv != Move::Pass, std::time::Instant::now());
        self.sync_evals();
        Ok(())
    }

    /// Takes back the sender's last move and what followed (`engine` and `local` games).
    pub fn undo(&mut self, seat: Seat) -> Result<(), String> {
        if self.mode == Mode::Online {
            return Err("no undo in an online game".into());
        }
        if self.resigned.is_some() {
            return Err("the game is over: resigned".into());
        }
        if self.timed_out.is_some() {
            return Err("the game is over: lost on time".into());
        }
        let taken = match self.mode {
            Mode::Local => self.controller.take_back(|_| true),
            _ => self.controller.take_back(|c| seat.plays(c)),
        };
        if !taken {
            return Err("no move of yours to take back".into());
        }
        // The time spent stays spent; the turn starts again for the side now to move.
        self.stop_clock(std::time::Instant::now());
        self.finished = None;
        self.sync_evals();
        Ok(())
    }

    /// The seat's colour resigns (a `local` seat: the side to move).
    pub fn resign(&mut self, seat: Seat) -> Result<(), String> {
        if self.is_over() {
            return Err("the game is over".into());
        }
        self.resigned = Some(match seat {
            Seat::One(c) => c,
            Seat::Both => self.game().to_move(),
        });
        Ok(())
    }

    /// The result once over.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.game().position();
        let (mut black, mut white) = (pos.black().count_ones(), pos.white().count_ones());
        let (winner, reason) = match (self.resigned, self.timed_out) {
            (Some(c), _) => (Some(c.opposite()), "resign"),
            (None, Some(c)) => {
                (black, white) = super::clocks::time_loss_score(c, black, white);
                (Some(c.opposite()), "time")
            }
            (None, None) if pos.board.is_game_over() => {
                let empties = 64 - black - white;
                match black.cmp(&white) {
                    std::cmp::Ordering::Greater => black += empties,
                    std::cmp::Ordering::Less => white += empties,
                    std::cmp::Ordering::Equal => {
                        black += empties / 2;
                        white += empties / 2;
                    }
                }
                let winner = match black.cmp(&white) {
                    std::cmp::Ordering::Greater => Some(Color::Black),
                    std::cmp::Ordering::Less => Some(Color::White),
                    std::cmp::Ordering::Equal => None,
                };
                (winner, "end")
            }
            (None, None) => return None,
        };
        Some(Outcome {
            black,
            white,
            winner: winner.map(|c| c.name().to_string()),
            reason: reason.to_string(),
            score: format!("{black}-{white}"),
        })
    }

    /// Who plays `color`, as `viewer` sees it.
    pub fn player(&self, color: Color, viewer: Option<Seat>) -> String {
        if self.engine == Some(color) {
            return match self.time {
                Some((main, inc)) if !self.level_on_clock => {
                    format!("Outflank ({main}s + {inc}s)")
                }
                _ => format!("Outflank level {}", self.level),
            };
        }
        if viewer.is_some_and(|s| s.plays(color)) {
            return "you".into();
        }
        match (self.mode, &self.tokens[color]) {
            (Mode::Online, None) => "waiting".into(),
            (Mode::Online, Some(_)) => "opponent".into(),
            _ => "player".into(),
        }
    }

    /// The state as `viewer` sees it.
    pub fn state(&self, viewer: Option<Seat>) -> State {
        let pos = self.game().position();
        let mut board = board_string(&pos);
        board.truncate(64);
        let legal = if self.is_over() {
            Vec::new()
        } else {
            pos.legal_moves().into_iter().map(move_name).collect()
        };
        let clocks = self.clocks_at(std::time::Instant::now());
        State {
            id: self.id.clone(),
            mode: self.mode.name().to_string(),
            you: viewer.map(|s| s.name().to_string()),
            board,
            to_move: pos.to_move.name().to_string(),
            legal,
            moves: self.game().moves().iter().map(|&m| move_name(m)).collect(),
            ply: self.game().len(),
            discs: PerColor {
                black: pos.black().count_ones(),
                white: pos.white().count_ones(),
            },
            clocks,
            players: PerColor {
                black: self.player(Color::Black, viewer),
                white: self.player(Color::White, viewer),
            },
            seats: PerColor {
                black: self.tokens[Color::Black].is_some(),
                white: self.tokens[Color::White].is_some(),
            },
            result: self.outcome(),
            thinking: self.thinking,
            hints: self.hints,
            evals: self.evals.clone(),
        }
    }
}

/// At most 20 characters of `text`, for an error message.
fn short(text: &str) -> String {
    text.chars().take(20).collect()
}

/// A game's clock from its seconds for the game and per move.
fn time_control((main, increment): (f64, f64)) -> TimeControl {
    TimeControl {
        main: seconds(main),
        increment: seconds(increment),
        ..TimeControl::default()
    }
}
