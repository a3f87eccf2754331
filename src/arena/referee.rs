//! One game between two engines, refereed: the referee keeps the board, checks every move,
//! plays forced passes itself, runs the clocks, and ends the game when it is over or when an
//! engine fails (the failing engine loses, and the record says why).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::TimeControl;
use super::client::{Client, EngineMove, GameSetup, MoveRequest};
use super::engine::EngineFailure;
use crate::board::{Color, Move, Position};
use crate::game::Game;
use crate::notation::{GgfGame, GgfMove};

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Termination {
    /// Neither side could move: the discs decide.
    Normal,
    /// The loser played a move that is not legal (the text is the move as given).
    IllegalMove(String),
    /// The loser passed while it had a legal move.
    IllegalPass,
    /// The loser resigned.
    Resigned,
    /// The loser's clock ran out (no answer within its time plus the grace).
    Timeout(String),
    /// The loser's process died.
    Crash(String),
    /// The loser broke its protocol (garbage, a refused command, an unreadable move).
    Protocol(String),
    /// The loser's engine could not be started.
    StartFailure(String),
}

impl Termination {
    /// A short tag for tables and logs: `normal`, `illegal move`, `illegal pass`, `resigned`,
    /// `timeout`, `crash`, `protocol error`, `start failure`.
    pub fn kind(&self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::IllegalMove(_) => "illegal move",
            Termination::IllegalPass => "illegal pass",
            Termination::Resigned => "resigned",
            Termination::Timeout(_) => "timeout",
            Termination::Crash(_) => "crash",
            Termination::Protocol(_) => "protocol error",
            Termination::StartFailure(_) => "start failure",
        }
    }

    /// Reads back the text [`Termination`]'s `Display` writes (`played the illegal move a1`,
    /// `lost on time (...)`, `crashed (...)`); `None` for any other text.
    pub fn parse(text: &str) -> Option<Termination> {
        let within = |prefix: &str| {
            text.strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(')'))
                .map(str::to_string)
        };
        let t = match text {
            "game over" => Termination::Normal,
            "passed while it had a legal move" => Termination::IllegalPass,
            "resigned" => Termination::Resigned,
            _ => {
                if let Some(mv) = text.strip_prefix("played the illegal move ") {
                    Termination::IllegalMove(mv.to_string())
                } else if let Some(s) = within("lost on time (") {
                    Termination::Timeout(s)
                } else if let Some(s) = within("crashed (") {
                    Termination::Crash(s)
                } else if let Some(s) = within("broke the protocol (") {
                    Termination::Protocol(s)
                } else if let Some(s) = within("could not start (") {
                    Termination::StartFailure(s)
                } else {
                    return None;
                }
            }
        };
        Some(t)
    }

    /// The termination for an engine failure.
    pub fn from_failure(f: EngineFailure) -> Termination {
        match f {
            EngineFailure::Start(s) => Termination::StartFailure(s),
            EngineFailure::Crashed(s) => Termination::Crash(s),
            EngineFailure::TimedOut {
                waiting_for,
                waited,
            } => Termination::Timeout(format!(
                "no answer to `{waiting_for}` within {:.2} s",
                waited.as_secs_f64()
            )),
            EngineFailure::Protocol(s) => Termination::Protocol(s),
        }
    }
}

impl fmt::Display for Termination {
    /// What happened, to follow the loser's name: `played the illegal move a1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Normal => f.write_str("game over"),
            Termination::IllegalMove(m) => write!(f, "played the illegal move {m}"),
            Termination::IllegalPass => f.write_str("passed while it had a legal move"),
            Termination::Resigned => f.write_str("resigned"),
            Termination::Timeout(s) => write!(f, "lost on time ({s})"),
            Termination::Crash(s) => write!(f, "crashed ({s})"),
            Termination::Protocol(s) => write!(f, "broke the protocol ({s})"),
            Termination::StartFailure(s) => write!(f, "could not start ({s})"),
        }
    }
}

/// A finished (or abandoned) game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The game's number in the schedule, from 1.
    pub number: usize,
    /// Index of the black engine in the match's engine list.
    pub black: usize,
    /// Index of the white engine.
    pub white: usize,
    /// Black's name.
    pub black_name: String,
    /// White's name.
    pub white_name: String,
    /// The opening as a transcript (empty for the start position).
    pub opening: String,
    /// The position before the opening.
    pub start: Position,
    /// Every move played, the opening's included, with each engine move's evaluation (when
    /// its protocol gives one) and the time it took.
    pub moves: Vec<GgfMove>,
    /// The clocks black and white had.
    pub tc: [Option<TimeControl>; 2],
    /// The loser when an engine forfeited; `None` for a game played to the end.
    pub forfeit: Option<Color>,
    /// How the game ended.
    pub termination: Termination,
    /// Black's final disc difference (tournament convention) for a game played to the end.
    pub black_discs: Option<i32>,
    /// Black's discs and white's discs on the final board.
    pub disc_counts: (u32, u32),
    /// True when the match stopped (SPRT verdict) before the game ended; such a game
    /// counts for nothing.
    pub aborted: bool,
}

impl GameRecord {
    /// The record of the scheduled game `spec` from `start`, with `moves` played and `end`
    /// the position they reach: not yet decided (no result, no forfeit).
    pub fn of(spec: &GameSpec, start: Position, moves: Vec<GgfMove>, end: &Position) -> GameRecord {
        GameRecord {
            number: spec.number,
            black: spec.black,
            white: spec.white,
            black_name: spec.black_name.clone(),
            white_name: spec.white_name.clone(),
            opening: spec.opening_text.clone(),
            start,
            moves,
            tc: spec.tc,
            forfeit: None,
            termination: Termination::Normal,
            black_discs: None,
            disc_counts: (end.black().count_ones(), end.white().count_ones()),
            aborted: false,
        }
    }

    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        match (self.forfeit, self.black_discs) {
            (Some(loser), _) => Some(loser.opposite()),
            (None, Some(d)) if d > 0 => Some(Color::Black),
            (None, Some(d)) if d < 0 => Some(Color::White),
            _ => None,
        }
    }

    /// Points of black: 1, 0.5 or 0.
    pub fn black_points(&self) -> f64 {
        match self.winner() {
            Some(Color::Black) => 1.0,
            Some(Color::White) => 0.0,
            None => 0.5,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`, black's result first.
    pub fn result_code(&self) -> &'static str {
        match self.winner() {
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// The name of the engine playing `c`.
    pub fn name(&self, c: Color) -> &str {
        match c {
            Color::Black => &self.black_name,
            Color::White => &self.white_name,
        }
    }

    /// One line: `Game 3 (A vs B, opening f5d6c3d3c4f4c5b3): 1-0 {A wins 40-24, +16}`,
    /// or for a forfeit `0-1 {A played the illegal move a1}`.
    pub fn summary(&self) -> String {
        let opening = if self.opening.is_empty() {
            "start position".to_string()
        } else {
            format!("opening {}", self.opening)
        };
        let why = match (self.forfeit, self.black_discs) {
            (Some(loser), _) => format!("{} {}", self.name(loser), self.termination),
            (None, Some(d)) => {
                let (b, w) = self.disc_counts;
                match self.winner() {
                    Some(c) => format!("{} wins {b}-{w}, {:+}", self.name(c), d.abs()),
                    None => format!("draw {b}-{w}"),
                }
            }
            (None, None) => "unfinished".to_string(),
        };
        format!(
            "Game {} ({} vs {}, {opening}): {} {{{why}}}",
            self.number,
            self.black_name,
            self.white_name,
            self.result_code()
        )
    }

    /// The game as a GGF record: players, clock, start, every move with evaluation and
    /// time, `RE` (black's net discs; a forfeit as ±64 with `:t` for time, `:r` otherwise)
    /// and, for a forfeit, the reason in `CO`.
    pub fn to_ggf(&self, date: Option<String>) -> GgfGame {
        let result = match (self.forfeit, self.black_discs) {
            (Some(loser), _) => {
                let margin = if loser == Color::Black { -64 } else { 64 };
                let flag = match self.termination {
                    Termination::Timeout(_) => "t",
                    _ => "r",
                };
                format!("{margin:+}.00:{flag}")
            }
            (None, Some(d)) => format!("{d:+}.00"),
            (None, None) => "?".to_string(),
        };
        let comment = self
            .forfeit
            .map(|loser| format!("{} {}", self.name(loser), self.termination));
        GgfGame {
            place: Some("outflank match".to_string()),
            date,
            black: Some(self.black_name.clone()),
            white: Some(self.white_name.clone()),
            result: Some(result),
            time: (self.tc[0] == self.tc[1]).then_some(self.tc[0]).flatten(),
            time_black: (self.tc[0] != self.tc[1]).then_some(self.tc[0]).flatten(),
            time_white: (self.tc[0] != self.tc[1]).then_some(self.tc[1]).flatten(),
            comment,
            start: self.start,
            moves: self.moves.clone(),
            ..GgfGame::default()
        }
    }

    /// Reads back a game that [`GameRecord::to_ggf`] wrote for the scheduled game `spec`:
    /// players, moves, result and forfeit reason come from the record, the opening and the
    /// clocks from `spec`, the final disc counts from replaying the moves. Says why when the
    /// record does not fit `spec` (other players, start or opening), has no result, or
    /// contradicts itself (a margin its moves do not reach, an unreadable forfeit reason).
    pub fn from_ggf(g: &GgfGame, spec: &GameSpec) -> Result<GameRecord, String> {
        let names = (g.black.as_deref(), g.white.as_deref());
        if names
            != (
                Some(spec.black_name.as_str()),
                Some(spec.white_name.as_str()),
            )
        {
            return Err(format!(
                "its players are {} and {}, not {} and {}",
                names.0.unwrap_or("?"),
                names.1.unwrap_or("?"),
                spec.black_name,
                spec.white_name
            ));
        }
        let opening = GgfGame::from_game(&spec.opening).moves;
        let same_opening = g.start == spec.opening.start()
            && g.moves.len() >= opening.len()
            && g.moves
                .iter()
                .zip(&opening)
                .all(|(a, b)| (a.color, a.mv) == (b.color, b.mv));
        if !same_opening {
            return Err(format!(
                "it does not start with the scheduled opening {:?}",
                spec.opening_text
            ));
        }
        let result = g.result.as_deref().unwrap_or("?");
        let (margin, flags) = result.split_once(':').unwrap_or((result, ""));
        let margin = margin
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|m| m.fract() == 0.0 && m.abs() <= 64.0)
            .ok_or_else(|| format!("its result RE[{result}] is not a finished game's"))?;
        let game = g.to_game();
        let mut record = GameRecord::of(spec, g.start, g.moves.clone(), &game.position());
        if flags.is_empty() {
            if game.result() != Some(margin as i32) {
                return Err(format!(
                    "its result RE[{result}] is not where its moves end ({})",
                    game.result()
                        .map_or_else(|| "unfinished".to_string(), |r| format!("{r:+}"))
                ));
            }
            record.black_discs = Some(margin as i32);
            return Ok(record);
        }
        let loser = if margin < 0.0 {
            Color::Black
        } else {
            Color::White
        };
        let comment = g.comment.as_deref().unwrap_or("");
        let termination = comment
            .strip_prefix(record.name(loser))
            .and_then(|rest| rest.strip_prefix(' '))
            .and_then(Termination::parse)
            .filter(|t| matches!(t, Termination::Timeout(_)) == flags.contains('t'))
            .ok_or_else(|| {
                format!("its forfeit RE[{result}] has no reason that fits it (CO[{comment}])")
            })?;
        record.forfeit = Some(loser);
        record.termination = termination;
        Ok(record)
    }
}

/// What [`play_game`] needs to know besides the engines.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The game's number, from 1.
    pub number: usize,
    /// Black's index in the engine list.
    pub black: usize,
    /// White's index.
    pub white: usize,
    /// Black's name.
    pub black_name: String,
    /// White's name.
    pub white_name: String,
    /// The opening: start position and moves.
    pub opening: Game,
    /// The opening as a transcript, for the record.
    pub opening_text: String,
    /// Black's and white's clocks, where timed.
    pub tc: [Option<TimeControl>; 2],
    /// Time allowed beyond the clock before an engine loses on time.
    pub grace: Duration,
    /// Time allowed for a move when the game is not timed.
    pub move_timeout: Duration,
}

/// An engine's side of a game: a running client, or why it could not be started.
pub type Seat<'a> = Result<&'a mut dyn Client, EngineFailure>;

/// Plays one game. `seats` are black's and white's engines. `stop` abandons the game
/// between moves when it becomes true.
pub fn play_game(spec: &GameSpec, seats: [Seat<'_>; 2], stop: &AtomicBool) -> GameRecord {
    let mut game = spec.opening.clone();
    let mut moves = GgfGame::from_game(&game).moves;
    let mut record = GameRecord::of(spec, game.start(), Vec::new(), &game.position());
    let finish = |record: &mut GameRecord, game: &Game, moves: Vec<GgfMove>| {
        let pos = game.position();
        record.disc_counts = (pos.black().count_ones(), pos.white().count_ones());
        record.moves = moves;
    };
    let [black_seat, white_seat] = seats;
    let clients: [&mut dyn Client; 2] = match (black_seat, white_seat) {
        (Ok(b), Ok(w)) => [b, w],
        (b, w) => {
            let (loser, failure) = match (b, w) {
                (Err(e), _) => (Color::Black, e),
                (_, Err(e)) => (Color::White, e),
                _ => unreachable!("one seat failed"),
            };
            record.forfeit = Some(loser);
            record.termination = Termination::from_failure(failure);
            finish(&mut record, &game, moves);
            return record;
        }
    };
    for (i, color) in [Color::Black, Color::White].into_iter().enumerate() {
        let setup = GameSetup {
            start: game.start(),
            opening: &moves,
            tc: spec.tc[i],
            black: &spec.black_name,
            white: &spec.white_name,
        };
        if let Err(e) = clients[i].new_game(&setup) {
            record.forfeit = Some(color);
            record.termination = Termination::from_failure(e);
            finish(&mut record, &game, moves);
            return record;
        }
    }
    let mut remaining = spec.tc.map(|t| t.map(|t| t.main));
    loop {
        if game.is_over() {
            let score = game.position().black_final_score();
            record.black_discs = Some(score);
            break;
        }
        if stop.load(Ordering::Relaxed) {
            record.aborted = true;
            break;
        }
        let pos = game.position();
        let color = pos.to_move;
        if pos.board.must_pass() {
            game.play(Move::Pass).expect("a forced pass is legal");
            moves.push(GgfMove {
                color,
                mv: Move::Pass,
                eval: None,
                time: None,
            });
            continue;
        }
        let i = color.index();
        let allowed = match remaining[i] {
            Some(left) => left + spec.grace,
            None => spec.move_timeout,
        };
        let req = MoveRequest {
            start: game.start(),
            moves: &moves,
            color,
            remaining: remaining[i],
            other_remaining: remaining[1 - i],
            deadline: Instant::now() + allowed,
        };
        let reply = match clients[i].genmove(&req) {
            Ok(r) => r,
            Err(e) => {
                record.forfeit = Some(color);
                record.termination = Termination::from_failure(e);
                break;
            }
        };
        if let Some(left) = remaining[i] {
            if reply.elapsed > left + spec.grace {
                record.forfeit = Some(color);
                record.termination = Termination::Timeout(format!(
                    "answered after {:.2} s with {:.2} s left",
                    reply.elapsed.as_secs_f64(),
                    left.as_secs_f64()
                ));
                break;
            }
            let inc = spec.tc[i].map_or(Duration::ZERO, |t| t.increment);
            remaining[i] = Some(left.saturating_sub(reply.elapsed) + inc);
        }
        let mv = match reply.mv {
            EngineMove::Resign => {
                record.forfeit = Some(color);
                record.termination = Termination::Resigned;
                break;
            }
            EngineMove::Move(Move::Pass) => {
                record.forfeit = Some(color);
                record.termination = Termination::IllegalPass;
                break;
            }
            EngineMove::Move(m) => m,
        };
        if game.play(mv).is_err() {
            record.forfeit = Some(color);
            record.termination = Termination::IllegalMove(mv.to_string());
            break;
        }
        let secs = (reply.elapsed.as_secs_f64() * 1000.0).round() / 1000.0;
        moves.push(GgfMove {
            color,
            mv,
            eval: reply.eval,
            time: Some(secs),
        });
    }
    finish(&mut record, &game, moves);
    record
}
