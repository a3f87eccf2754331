//! The server's side of GGS in types: lines framed into messages, messages parsed, and the
//! lines a client sends. Pure functions, no I/O.
//!
//! **Framing** ([`Framer`]): the server ends lines with CR LF (a lone CR or LF is taken as
//! well) and may send BEL characters, which are dropped. A message is a header line plus the
//! continuation lines that start with `|` (the `|` is removed); it ends at the line `READY`,
//! or at a line without `|` that begins the next message (GGS sometimes leaves out the
//! READY). Blank lines are skipped. A line longer than [`MAX_LINE`] is dropped and marks the
//! message it falls in as damaged, so that a cut board is never read as a whole one. The
//! login prompts end a message at once (nothing follows them before the client answers).
//!
//! **Parsing** ([`Message::parse`]): a message of a known kind that does not read is an
//! error ([`ParseError`]); a message of a kind not modelled here is [`Message::Other`].
//! Boards are read in the verbose `client -` form, leniently: lines are recognised by their
//! shape rather than their place, the clock lines are split at `(` (a name of 8 characters
//! leaves no space before it), the colour marks `*`/`X` (black) and `O` (white) say who is
//! who, and a `join` with moves has the start position, the moves, then the current one.
//!
//! **Clocks** ([`GgsClock`]) read both the request form `15:00//02:00` and the board form
//! `00:56,1:0//02:00,1:0`; **game types** ([`GameType`]) read `8`, `s8r20`, `8b`, `8k`, ...
//! and say whether Outflank plays them ([`GameType::playable`]).
//!
//! **Outgoing lines** are in [`outgoing`], one function each, without the line ending (the
//! client adds `\n` and sends the line and its newline in one write).

mod board;
mod frame;
pub mod outgoing;
mod values;

pub use board::BoardMessage;
pub use frame::{Framer, MAX_MESSAGE_LINES, RawMessage, not_text};
pub use values::{
    GameId, GameResult, GameType, GgsClock, MatchInfo, MoveRecord, Player, PlayerClock, Rated,
    Request, ResultHow, format_time, parse_time,
};

use std::fmt;

use crate::board::Move;
use board::parse_board;
use values::rating;

/// The longest line taken, in bytes (the stdin reader's cap, [`crate::protocol::MAX_LINE`]);
/// longer lines are dropped and damage their message.
pub use crate::protocol::MAX_LINE;

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// A line of it was too long, or it had too many lines.
    Damaged,
    /// A field is missing.
    Missing(&'static str),
    /// A field does not read.
    Bad {
        /// Which field.
        what: &'static str,
        /// Its text (shortened).
        text: String,
    },
    /// The board of a `join` or `update` does not read.
    Board(String),
    /// A move of a `join`'s list is not legal where it stands.
    IllegalMove {
        /// Its number in the list.
        number: u32,
        /// The move.
        mv: Move,
    },
}

/// At most 40 characters of `s`, for error messages.
fn excerpt(s: &str) -> String {
    crate::excerpt::excerpt(s, 40).into_owned()
}

impl ParseError {
    fn bad(what: &'static str, text: &str) -> ParseError {
        ParseError::Bad {
            what,
            text: excerpt(text),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Damaged => f.write_str("GGS message damaged (a line too long or too many)"),
            ParseError::Missing(what) => write!(f, "GGS message: missing {what}"),
            ParseError::Bad { what, text } => write!(f, "GGS message: bad {what} {text:?}"),
            ParseError::Board(e) => write!(f, "GGS board: {e}"),
            ParseError::IllegalMove { number, mv } => {
                write!(f, "GGS board: move {number} ({mv}) is illegal")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// One message from the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `: Enter login (yours, or one you'd like to use).`
    LoginPrompt,
    /// `: Enter your password.`
    PasswordPrompt,
    /// `: + /os 1`: the Othello service is up.
    ServiceUp,
    /// `: - /os 1`: the Othello service is down.
    ServiceDown,
    /// Any other line from the central server (`: ...`): right after the password it means
    /// the login failed. The text after `: `.
    Server(String),
    /// `ERR ...`: an error from the central server. The text after `ERR`.
    Error(String),
    /// A match request offered (`added`, `/os: + .19 ...`) or withdrawn (`/os: - .19 ...`).
    Request {
        /// True for `+`, false for `-`.
        added: bool,
        /// The request.
        request: Request,
    },
    /// `/os: + match ...`: a match starts.
    MatchStart(MatchInfo),
    /// `/os: - match ... <result>`: a match ends.
    MatchEnd {
        /// The match.
        info: MatchInfo,
        /// Its result.
        result: GameResult,
    },
    /// `/os: end .2.0 ( a vs. b ) +46.00`: a game of a (synchro) match ends.
    GameEnd {
        /// The game.
        id: GameId,
        /// The two names in the server's order.
        players: [String; 2],
        /// The result.
        result: GameResult,
    },
    /// `/os: join ...` or `/os: update ...`.
    Board(Box<BoardMessage>),
    /// `/os: error .5 illegal move`.
    GameError {
        /// The game, when the message names one.
        id: Option<GameId>,
        /// The error's text.
        text: String,
    },
    /// `/os: timeout .5 name` or `/os: fatal-timeout .5 name`.
    Timeout {
        /// The game.
        id: GameId,
        /// Who ran out of time.
        name: String,
        /// `fatal-timeout`.
        fatal: bool,
    },
    /// `/os: rating_update .21` and its `|name old @ sd delta -> new @ sd` lines.
    RatingUpdate {
        /// The match.
        id: GameId,
        /// The lines as they came.
        lines: Vec<String>,
    },
    /// A tell from a user: `name: text`.
    Tell {
        /// Who tells.
        from: String,
        /// What.
        text: String,
    },
    /// Anything else: the header line (the message's other lines are dropped).
    Other(String),
}

impl Message {
    /// Reads a framed message (see the module's doc for what is an error and what is
    /// [`Message::Other`]).
    pub fn parse(raw: &RawMessage) -> Result<Message, ParseError> {
        if raw.damaged {
            return Err(ParseError::Damaged);
        }
        let h = raw.header.trim();
        if h.starts_with(": Enter login") {
            return Ok(Message::LoginPrompt);
        }
        if h.starts_with(": Enter your password") {
            return Ok(Message::PasswordPrompt);
        }
        if let Some(rest) = h.strip_prefix(':') {
            let rest = rest.trim();
            let words: Vec<&str> = rest.split_whitespace().collect();
            return Ok(match words.as_slice() {
                ["+", "/os", ..] => Message::ServiceUp,
                ["-", "/os", ..] => Message::ServiceDown,
                _ => Message::Server(rest.to_string()),
            });
        }
        if let Some(rest) = h.strip_prefix("ERR") {
            return Ok(Message::Error(rest.trim().to_string()));
        }
        if let Some(rest) = h.strip_prefix("/os:") {
            return parse_os(rest.trim(), raw);
        }
        if let Some((from, text)) = h.split_once(": ")
            && !from.is_empty()
            && from.len() <= 16
            && !from.contains(char::is_whitespace)
            && from.chars().all(|c| c.is_ascii_graphic())
        {
            return Ok(Message::Tell {
                from: from.to_string(),
                text: text.trim().to_string(),
            });
        }
        Ok(Message::Other(raw.header.clone()))
    }
}

/// Reads the `/os:` messages (`rest` is the header after `/os:`).
fn parse_os(rest: &str, raw: &RawMessage) -> Result<Message, ParseError> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        [sign @ ("+" | "-"), "match", fields @ ..] => {
            let added = *sign == "+";
            if fields.len() < 7 {
                return Err(ParseError::Missing("match fields"));
            }
            let info = MatchInfo {
                id: fields[0].parse()?,
                players: [
                    Player {
                        rating: rating(fields[1])?,
                        name: fields[2].to_string(),
                    },
                    Player {
                        rating: rating(fields[3])?,
                        name: fields[4].to_string(),
                    },
                ],
                game_type: fields[5].parse()?,
                rated: fields[6].parse()?,
            };
            if added {
                Ok(Message::MatchStart(info))
            } else {
                let result = GameResult::parse(&fields[7..].join(" "));
                Ok(Message::MatchEnd { info, result })
            }
        }
        [sign @ ("+" | "-"), fields @ ..] => {
            let request = parse_request(fields)?;
            Ok(Message::Request {
                added: *sign == "+",
                request,
            })
        }
        ["join" | "update", ..] => parse_board(&words, raw).map(|b| Message::Board(Box::new(b))),
        ["end", id, ..] => {
            let id: GameId = id.parse()?;
            let open = rest.find('(').ok_or(ParseError::Missing("players"))?;
            let close = rest
                .rfind(')')
                .filter(|&c| c > open)
                .ok_or(ParseError::Missing("players"))?;
            let names: Vec<&str> = rest[open + 1..close]
                .split_whitespace()
                .filter(|w| *w != "vs." && *w != "vs")
                .collect();
            let [a, b] = names.as_slice() else {
                return Err(ParseError::bad("players", &rest[open..=close]));
            };
            Ok(Message::GameEnd {
                id,
                players: [a.to_string(), b.to_string()],
                result: GameResult::parse(&rest[close + 1..]),
            })
        }
        ["error", first, ..] => {
            let (id, text) = match first.parse::<GameId>() {
                Ok(id) => (Some(id), words[2..].join(" ")),
                Err(_) => (None, words[1..].join(" ")),
            };
            Ok(Message::GameError { id, text })
        }
        [kind @ ("timeout" | "fatal-timeout"), id, name, ..] => Ok(Message::Timeout {
            id: id.parse()?,
            name: name.to_string(),
            fatal: *kind == "fatal-timeout",
        }),
        ["rating_update", id, ..] => Ok(Message::RatingUpdate {
            id: id.parse()?,
            lines: raw.lines.clone(),
        }),
        _ => Ok(Message::Other(raw.header.clone())),
    }
}

/// Reads a request's fields (after the `+`/`-`): id, rating, name, clock, type, flag, and
/// optionally the challengee's rating, name and clock.
fn parse_request(f: &[&str]) -> Result<Request, ParseError> {
    if f.len() < 6 {
        return Err(ParseError::Missing("request fields"));
    }
    let challengee = match f.get(6..8) {
        Some([r, name]) if *name != "*" => Some(Player {
            rating: rating(r)?,
            name: name.to_string(),
        }),
        _ => None,
    };
    Ok(Request {
        id: f[0].parse()?,
        challenger: Player {
            rating: rating(f[1])?,
            name: f[2].to_string(),
        },
        challenger_clock: f[3].parse()?,
        game_type: f[4].parse()?,
        rated: f[5].parse()?,
        challengee,
        challengee_clock: f.get(8).map(|c| c.parse()).transpose()?,
    })
}

#[cfg(test)]
mod tests;
