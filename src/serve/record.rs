//! What the store keeps of a game ([`Record`]): enough to rebuild its [`Room`] after a
//! restart, the moves with who played each, the clocks and the seats' tokens.

use super::room::{Mode, Room, Strength, move_name, parse_color};
use crate::board::{Color, Move};
use crate::controller::{Mover, Options};
use crate::game::Game;
use crate::notation::board_string;
use crate::notation::board_string::parse_board_string_unchecked;
use serde::{Deserialize, Serialize};

/// A game as the store keeps it (JSON in its row).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// The id.
    pub id: String,
    /// `engine`, `local`, `online`.
    pub mode: String,
    /// When created (Unix seconds).
    pub created: u64,
    /// When finished.
    pub finished: Option<u64>,
    /// The start position as a board string.
    pub start: String,
    /// The moves, passes as `pass`.
    pub moves: Vec<String>,
    /// Who played each move: `G` given, `E` the engine, `O` a person.
    pub movers: String,
    /// Black's and White's tokens.
    pub tokens: [Option<String>; 2],
    /// The engine's colour.
    pub engine: Option<String>,
    /// The engine's level.
    pub level: u32,
    /// The engine plays at its level though the game has clocks (only the person's runs).
    #[serde(default)]
    pub level_on_clock: bool,
    /// The clocks (seconds, increment).
    pub time: Option<(f64, f64)>,
    /// Seconds left on each colour's clock when written (the running one's time taken off).
    pub clocks: [Option<f64>; 2],
    /// The colour that lost on time.
    #[serde(default)]
    pub timed_out: Option<String>,
    /// Hints on.
    pub hints: bool,
    /// The colour that resigned.
    pub resigned: Option<String>,
    /// Each position's score from black's side.
    pub evals: Vec<Option<f64>>,
}

impl Record {
    /// The record of `room`.
    pub fn of(room: &Room) -> Record {
        let game = room.game();
        let now = std::time::Instant::now();
        Record {
            id: room.id.clone(),
            mode: room.mode.name().to_string(),
            created: room.created,
            finished: room.finished,
            start: board_string(&game.start()),
            moves: game.moves().iter().map(|&m| move_name(m)).collect(),
            movers: room
                .controller
                .movers()
                .map(|m| match m {
                    Mover::Given => 'G',
                    Mover::Engine => 'E',
                    Mover::Other => 'O',
                })
                .collect(),
            tokens: [
                room.tokens[Color::Black].clone(),
                room.tokens[Color::White].clone(),
            ],
            engine: room.engine.map(|c| c.name().to_string()),
            level: room.level,
            level_on_clock: room.level_on_clock,
            time: room.time,
            clocks: [
                room.clock_left(Color::Black, now),
                room.clock_left(Color::White, now),
            ],
            timed_out: room.timed_out.map(|c| c.name().to_string()),
            hints: room.hints,
            resigned: room.resigned.map(|c| c.name().to_string()),
            evals: room.evals.clone(),
        }
    }

    /// The room this record keeps, with the engine options `options`; an error names what
    /// does not read.
    pub fn room(&self, options: Options) -> Result<Room, String> {
        let mode = Mode::parse(&self.mode).ok_or_else(|| format!("mode {:?}", self.mode))?;
        let start = parse_board_string_unchecked(&self.start).map_err(|e| e.to_string())?;
        let color = |c: &Option<String>| match c {
            None => Ok(None),
            Some(s) => parse_color(s)
                .map(Some)
                .ok_or_else(|| format!("colour {s:?}")),
        };
        let engine = color(&self.engine)?;
        let mut room = Room::new(
            self.id.clone(),
            mode,
            self.created,
            options,
            Game::new(start),
            engine,
            Strength {
                level: self.level,
                time: self.time,
                level_on_clock: self.level_on_clock,
            },
            self.hints,
        );
        let mut movers = self.movers.chars();
        for text in &self.moves {
            let mv: Move = text.parse().map_err(|_| format!("move {text:?}"))?;
            let mover = match movers.next() {
                Some('G') => Mover::Given,
                Some('E') => Mover::Engine,
                _ => Mover::Other,
            };
            room.controller
                .play(mv, mover)
                .map_err(|e| format!("move {text}: {e}"))?;
        }
        for (c, left) in [Color::Black, Color::White].into_iter().zip(self.clocks) {
            if let Some(secs) = left {
                room.controller.clock_mut().set_left(c, secs, 0);
            }
        }
        room.tokens = crate::board::ByColor::new(self.tokens[0].clone(), self.tokens[1].clone());
        room.resigned = color(&self.resigned)?;
        room.timed_out = color(&self.timed_out)?;
        room.finished = self.finished;
        room.evals = self.evals.clone();
        room.sync_evals();
        Ok(room)
    }
}
