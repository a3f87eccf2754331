//! The JSON of `docs/serve.md`: what the page sends (HTTP bodies, WebSocket messages) and
//! what the server answers, as serde types.

use serde::{Deserialize, Serialize};

/// A message from the page on the WebSocket.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ClientMessage {
    /// Who the connection is: a seat's token, or none for a spectator.
    Hello {
        /// The seat's token.
        #[serde(default)]
        token: Option<String>,
    },
    /// A move: a square (`f5`) or `pass`.
    Move {
        /// The move as text.
        #[serde(rename = "move")]
        mv: String,
    },
    /// Back to the sender's previous move (`engine` and `local`).
    Undo,
    /// Scores every legal move at this depth (1-20).
    Analyze {
        /// The depth.
        depth: u32,
    },
    /// The engine's best move (`engine` with hints on).
    Hint,
    /// Scores every move played so far against the best one at this depth (1-20); see
    /// [`super::review`].
    Review {
        /// The depth.
        depth: u32,
    },
    /// The sender's colour resigns.
    Resign,
}

/// A scored move of an analysis.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ScoredMove {
    /// The move (`f5`, `pass`).
    #[serde(rename = "move")]
    pub mv: String,
    /// Its score in discs for the side to move.
    pub score: i32,
}

/// A message from the server on the WebSocket.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ServerMessage {
    /// The whole game, after hello and after every change.
    State(Box<State>),
    /// An analysis's or a hint's result, best first.
    Analysis {
        /// The ply of the position analysed.
        ply: usize,
        /// The depth searched.
        depth: u32,
        /// The scored moves, best first.
        moves: Vec<ScoredMove>,
    },
    /// A refused message; the game is unchanged.
    Error {
        /// Why.
        message: String,
    },
}

impl ServerMessage {
    /// An error message.
    pub fn error(message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error {
            message: message.into(),
        }
    }

    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|_| r#"{"type":"error","message":"internal"}"#.into())
    }
}

/// A value for each colour, as the state writes it: `{"black": .., "white": ..}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct PerColor<T> {
    /// Black's.
    pub black: T,
    /// White's.
    pub white: T,
}

/// How a game ended.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Outcome {
    /// Black's discs (empties to the winner when played to the end).
    pub black: u32,
    /// White's discs.
    pub white: u32,
    /// `"black"`, `"white"`, or null for a draw.
    pub winner: Option<String>,
    /// `"end"`, `"resign"` or `"time"`.
    pub reason: String,
    /// `"36-28"`.
    pub score: String,
}

/// The whole game as a connection sees it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct State {
    /// The game's id.
    pub id: String,
    /// `engine`, `local` or `online`.
    pub mode: String,
    /// The connection's seat: `black`, `white`, `both`, or null (a spectator).
    pub you: Option<String>,
    /// 64 squares a1..h8: `X` black, `O` white, `-` empty.
    pub board: String,
    /// The side to move.
    pub to_move: String,
    /// The legal moves; `["pass"]` for a forced pass, `[]` once over.
    pub legal: Vec<String>,
    /// The moves played, passes as `pass`.
    pub moves: Vec<String>,
    /// The number of moves played.
    pub ply: usize,
    /// The discs of each colour.
    pub discs: PerColor<u32>,
    /// Seconds left on each clock and the one running; null when untimed.
    pub clocks: Option<super::clocks::Clocks>,
    /// Who plays each colour.
    pub players: PerColor<String>,
    /// Whether a person holds each seat.
    pub seats: PerColor<bool>,
    /// The result, once over.
    pub result: Option<Outcome>,
    /// True while the engine searches its move.
    pub thinking: bool,
    /// Whether hints are on.
    pub hints: bool,
    /// For each ply, the position's score from black's side when the engine played or an
    /// analysis scored it.
    pub evals: Vec<Option<f64>>,
}

/// `POST /api/games`.
#[derive(Clone, Debug, Deserialize, Default)]
#[serde(default)]
pub struct CreateRequest {
    /// `engine`, `local` or `online`.
    pub mode: String,
    /// The creator's colour.
    pub color: Option<String>,
    /// The engine's level (1-60).
    pub level: Option<u32>,
    /// Each player's clock, seconds (0: none); the engine plays on its clock.
    pub time: Option<f64>,
    /// Seconds added to a clock after each move of its colour.
    pub increment: Option<f64>,
    /// Hints on.
    pub hints: Option<bool>,
    /// A start position: board string, transcript or GGF.
    pub start: Option<String>,
}

/// `POST /api/load`.
#[derive(Clone, Debug, Deserialize)]
pub struct LoadRequest {
    /// A GGF game or a transcript.
    pub text: String,
}

/// The answer to a creation, a join or a load: the seat taken.
#[derive(Clone, Debug, Serialize)]
pub struct Seated {
    /// The game's id (absent for a join).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The seat's token.
    pub token: String,
    /// The seat's colour: `black`, `white` or `both`.
    pub color: String,
}

/// One game of `GET /api/games`.
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    /// Its id.
    pub id: String,
    /// Its mode.
    pub mode: String,
    /// Black's player.
    pub black: String,
    /// White's player.
    pub white: String,
    /// Its result as `36-28`, or null.
    pub result: Option<String>,
    /// Moves played.
    pub moves: usize,
    /// When created (Unix seconds).
    pub created: u64,
    /// When finished (Unix seconds), or null.
    pub finished: Option<u64>,
}
