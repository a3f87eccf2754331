//! Transcripts: the moves of a game concatenated, `f5d6c3d3c4f4...`.
//!
//! Read leniently: either case, whitespace between moves, passes implied (when the side to
//! move has no move and its opponent has, the pass is played before the next move) or
//! explicit (`PA`, `pa`, `pass`), and an optional `BOARD;` prefix (a board string then `;`)
//! for a game that does not start from the standard position.
//!
//! Written in lower case with the passes left out, except a final one (which no later move
//! would imply); with the `BOARD;` prefix only when the start is not the standard one.

use std::fmt;

use super::board_string::{BoardStringError, board_string, parse_board_string};
use crate::board::{Color, Move, MoveError, Position};
use crate::game::Game;

/// Why a transcript could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranscriptError {
    /// The board before the `;` is not a valid board string.
    Board(BoardStringError),
    /// Text that is not a move.
    BadMove {
        /// The move's number in the transcript, 1 for the first.
        number: usize,
        /// The text found there.
        text: String,
    },
    /// A move that is not legal where it is played.
    Illegal {
        /// The move's number in the transcript, 1 for the first.
        number: usize,
        /// The move.
        mv: Move,
        /// The colour to move.
        color: Color,
        /// Why it is illegal.
        error: MoveError,
    },
}

impl TranscriptError {
    /// The message without the leading `transcript: `.
    pub(crate) fn detail(&self) -> String {
        match self {
            TranscriptError::Board(e) => format!("bad start board: {}", e.detail()),
            TranscriptError::BadMove { number, text } => {
                format!("unknown move {text:?} at move {number}")
            }
            TranscriptError::Illegal {
                number,
                mv,
                color,
                error,
            } => format!("move {number} is {mv} ({color} to move): {error}"),
        }
    }
}

impl fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "transcript: {}", self.detail())
    }
}

impl std::error::Error for TranscriptError {}

/// Splits a run of moves into tokens of two characters (four for `pass`), skipping
/// whitespace. Each item is the token's text; a lone last character is a token of one.
fn tokens(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let len = if rest
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("pass"))
        {
            4
        } else {
            rest.char_indices().nth(2).map_or(rest.len(), |(i, _)| i)
        };
        let (tok, tail) = rest.split_at(len);
        rest = tail;
        Some(tok)
    })
}

/// Plays the moves of `moves` (a transcript without a board prefix) on `game`, applying the
/// implicit passes. Moves are numbered from 1 in errors.
pub(crate) fn play_moves(game: &mut Game, moves: &str) -> Result<(), TranscriptError> {
    for (i, tok) in tokens(moves).enumerate() {
        let number = i + 1;
        let mv: Move = tok.parse().map_err(|_| TranscriptError::BadMove {
            number,
            text: tok.to_string(),
        })?;
        let pos = game.position();
        let result = match mv {
            Move::Play(_) if pos.board.must_pass() => game.play_as(pos.to_move.opposite(), mv),
            _ => game.play(mv),
        };
        result.map_err(|error| TranscriptError::Illegal {
            number,
            mv,
            color: game.to_move(),
            error,
        })?;
    }
    Ok(())
}

/// Reads a transcript into a game. An empty transcript is the start position with no move.
pub fn parse_transcript(s: &str) -> Result<Game, TranscriptError> {
    let (start, moves) = match s.split_once(';') {
        Some((board, moves)) => (
            parse_board_string(board).map_err(TranscriptError::Board)?,
            moves,
        ),
        None => (Position::start(), s),
    };
    let mut game = Game::new(start);
    play_moves(&mut game, moves)?;
    Ok(game)
}

/// Writes a game as a transcript: lower-case moves, passes left out but for a final one,
/// prefixed by `BOARD;` when the game does not start from the standard position.
pub fn transcript(game: &Game) -> String {
    let mut s = String::new();
    if game.start() != Position::start() {
        s.push_str(&board_string(&game.start()));
        s.push(';');
    }
    let moves = game.moves();
    for (i, mv) in moves.iter().enumerate() {
        match mv {
            Move::Play(sq) => s.push_str(&sq.name()),
            Move::Pass if i + 1 == moves.len() => s.push_str("pa"),
            Move::Pass => {}
        }
    }
    s
}

/// Moves as text for people to read (a principal variation, a book line): lower-case
/// squares and `PA` for passes, separated by spaces.
pub fn move_list(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cases_spaces_and_passes() {
        let g = parse_transcript("F5 d6\tC3").unwrap();
        assert_eq!(transcript(&g), "f5d6c3");
        assert_eq!(parse_transcript("").unwrap(), Game::default());
    }

    #[test]
    fn errors_name_move_and_number() {
        let e = parse_transcript("f5d6z9").unwrap_err();
        assert_eq!(e.to_string(), "transcript: unknown move \"z9\" at move 3");
        let e = parse_transcript("f5a1").unwrap_err().to_string();
        assert!(
            e.starts_with("transcript: move 2 is a1 (white to move): illegal"),
            "{e}"
        );
        let e = parse_transcript("f5pa").unwrap_err().to_string();
        assert!(e.contains("move 2 is PA"), "{e}");
        assert!(parse_transcript("f5d").is_err());
        assert!(parse_transcript("f5é9").is_err());
        assert!(parse_transcript("x;f5").is_err());
    }

    #[test]
    fn board_prefix() {
        let start = Position::start()
            .play(Move::Play("f5".parse().unwrap()))
            .unwrap();
        let mut g = Game::new(start);
        g.play(Move::Play("d6".parse().unwrap())).unwrap();
        let t = transcript(&g);
        assert_eq!(
            t,
            "---------------------------OX------XXX-------------------------- O;d6"
        );
        assert_eq!(parse_transcript(&t).unwrap(), g);
    }
}
