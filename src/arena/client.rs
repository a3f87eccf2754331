//! What the referee needs from an engine, whatever its protocol: start a game, choose a move
//! within a deadline, leave. [`super::launch::start`] spawns an engine and speaks its protocol.

use std::time::{Duration, Instant};

use super::TimeControl;
use super::engine::{EngineFailure, EngineProcess};
use crate::board::{Color, Move, Position};
use crate::notation::GgfMove;

/// A move chosen by an engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EngineMove {
    /// A square or a pass, still to be checked by the referee.
    Move(Move),
    /// The engine gave up the game.
    Resign,
}

/// An engine's answer to a move request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reply {
    /// The move.
    pub mv: EngineMove,
    /// Its evaluation in discs from the mover's side, when the protocol gives one.
    pub eval: Option<f64>,
    /// Wall time from the request to the answer, measured by the referee.
    pub elapsed: Duration,
}

impl Reply {
    /// The reply of an engine that answered `asked` with `line` after `elapsed`: the move
    /// `mv` read from it, with its `eval`; a protocol failure when no move was read (the
    /// engine answered with something other than `wanted`).
    pub fn answered(
        mv: Option<Move>,
        eval: Option<f64>,
        elapsed: Duration,
        (asked, wanted): (&str, &str),
        line: &str,
    ) -> Result<Reply, EngineFailure> {
        let Some(mv) = mv else {
            return Err(EngineFailure::Protocol(format!(
                "answered `{asked}` with {:?}, not {wanted}",
                shorten(line.trim())
            )));
        };
        Ok(Reply {
            mv: EngineMove::Move(mv),
            eval,
            elapsed,
        })
    }
}

/// The start of a game, as told to both engines.
#[derive(Clone, Copy, Debug)]
pub struct GameSetup<'a> {
    /// The position before the opening moves.
    pub start: Position,
    /// The opening moves (passes included), played by neither engine.
    pub opening: &'a [GgfMove],
    /// The clock of each side, when the game is timed.
    pub tc: Option<TimeControl>,
    /// Black's name.
    pub black: &'a str,
    /// White's name.
    pub white: &'a str,
}

/// A request for a move: the game so far and the time the engine has.
#[derive(Clone, Copy, Debug)]
pub struct MoveRequest<'a> {
    /// The position before the first move.
    pub start: Position,
    /// Every move so far (the opening and the engines' moves), passes included.
    pub moves: &'a [GgfMove],
    /// The colour to move; the side to move has a legal move.
    pub color: Color,
    /// The time left on the engine's clock, when the game is timed.
    pub remaining: Option<Duration>,
    /// The time left on the other side's clock, when the game is timed (UGI sends both).
    pub other_remaining: Option<Duration>,
    /// The answer must arrive before this instant.
    pub deadline: Instant,
}

/// An engine process driven through its protocol.
pub trait Client: Send {
    /// Sets up a new game; the engine learns the opening moves here or with the next move
    /// request.
    fn new_game(&mut self, setup: &GameSetup<'_>) -> Result<(), EngineFailure>;

    /// Brings the engine up to date with `req.moves` and asks it for a move.
    fn genmove(&mut self, req: &MoveRequest<'_>) -> Result<Reply, EngineFailure>;

    /// The engine's process.
    fn process(&self) -> &EngineProcess;

    /// The engine's process, to stop it.
    fn process_mut(&mut self) -> &mut EngineProcess;

    /// True when the process is known to have died; such a client must be restarted.
    fn is_dead(&self) -> bool {
        self.process().is_dead()
    }

    /// Says goodbye (`quit`: all three protocols' word for it), then makes sure the
    /// process is gone.
    fn shutdown(&mut self) {
        self.process_mut()
            .shutdown(Some("quit"), Duration::from_millis(500));
    }

    /// Kills the process at once (for an engine that hung or broke its protocol).
    fn kill(&mut self) {
        self.process_mut().kill();
    }
}

/// At most 80 characters of an engine's output, for messages.
pub(crate) fn shorten(s: &str) -> String {
    if s.chars().count() <= 80 {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(77).collect();
        t.push_str("...");
        t
    }
}
