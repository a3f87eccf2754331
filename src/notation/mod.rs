//! Reading and writing the formats Othello programs exchange.
//!
//! One module per format, each with a parser, a writer and a typed error whose message says
//! in one line what is wrong:
//!
//! - [`board_string`](mod@board_string): 64 squares and the side to move (Edax, Egaroucid, FFO).
//! - [`transcript`](mod@transcript): moves concatenated, `f5d6c3...`, with an optional `BOARD;` prefix.
//! - [`ugi`](mod@ugi): UGI's Othello FEN, `8/8/8/3ox3/3xo3/8/8/8 x` (row 1 first), and its
//!   moves (`0000` a pass).
//! - [`obf`]: FFO test lines, `BOARD SIDE; MOVE:SCORE; ...`.
//! - [`ggf`]: the game format of GGS and NBoard, `(;GM[Othello]...;)`.
//! - [`wthor`]: the French federation's binary game database (`.wtb`, `WTHOR.JOU`,
//!   `WTHOR.TRN`).
//!
//! [`parse_position`] reads whichever of board string, transcript or GGF it is given: it is
//! what the command line uses for a position argument. No parser here panics, whatever its
//! input.

#![warn(missing_docs)]

pub mod board_string;
pub mod ggf;
pub mod obf;
pub mod transcript;
pub mod ugi;
pub mod wthor;

use std::fmt;

use crate::board::{Position, Square, neighbours};
use crate::game::Game;

pub(crate) use board_string::square_char;
pub use board_string::{BoardStringError, board_string, parse_board_string};
pub use ggf::{
    GgfError, GgfGame, GgfMove, ggf_clock, ggf_date, ggf_date_now, parse_ggf, parse_ggf_clock,
    parse_ggf_games,
};
pub(crate) use ggf::{parse_duration, split_move_value};
pub use obf::{
    ObfEntry, ObfError, obf_line, parse_obf, parse_obf_line, parse_obf_numbered, write_obf,
};
pub use transcript::{TranscriptError, move_list, parse_transcript, transcript};
pub use ugi::{FenError, fen, parse_fen, parse_ugi_move, ugi_move};
pub use wthor::{
    WthorError, WthorFile, WthorGame, WthorHeader, parse_jou, parse_trn, parse_wtb, write_wtb,
};

/// The four centre squares d4, e4, d5, e5: occupied from the start, so in every position of
/// a game.
const CENTRE: u64 = (1 << 27) | (1 << 28) | (1 << 35) | (1 << 36);

/// Why a board cannot arise in a game of Othello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImpossibleBoard {
    /// A square holds a disc of each colour.
    Overlap(Square),
    /// A centre square (d4, e4, d5, e5) is empty; they are filled from the start.
    EmptyCentre(Square),
    /// A disc is cut off from the centre: every disc is played next to one already there,
    /// so the discs form one connected group.
    Disconnected(Square),
}

impl fmt::Display for ImpossibleBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImpossibleBoard::Overlap(s) => {
                write!(
                    f,
                    "impossible board: {s} holds both a black and a white disc"
                )
            }
            ImpossibleBoard::EmptyCentre(s) => write!(
                f,
                "impossible board: centre square {s} is empty (d4, e4, d5 and e5 are never empty)"
            ),
            ImpossibleBoard::Disconnected(s) => write!(
                f,
                "impossible board: the disc on {s} is not connected to the centre"
            ),
        }
    }
}

impl std::error::Error for ImpossibleBoard {}

/// Checks that a position could arise in a game: no square holds two discs, the four centre
/// squares are occupied, and every disc is connected (through neighbouring discs, diagonals
/// included) to the centre. The side to move is not checked: any side can be to move.
pub fn check_plausible(pos: &Position) -> Result<(), ImpossibleBoard> {
    let black = pos.black();
    let white = pos.white();
    if let Some(s) = Square::iter(black & white).next() {
        return Err(ImpossibleBoard::Overlap(s));
    }
    let occupied = black | white;
    if let Some(s) = Square::iter(CENTRE & !occupied).next() {
        return Err(ImpossibleBoard::EmptyCentre(s));
    }
    let mut reached = CENTRE;
    loop {
        let next = (reached | neighbours(reached)) & occupied;
        if next == reached {
            break;
        }
        reached = next;
    }
    match Square::iter(occupied & !reached).next() {
        Some(s) => Err(ImpossibleBoard::Disconnected(s)),
        None => Ok(()),
    }
}

/// Why [`parse_position`] could not read its input.
#[derive(Clone, Debug, PartialEq)]
pub enum PositionError {
    /// The input looked like a GGF game but is not a valid one.
    Ggf {
        /// The input (shortened when long).
        input: String,
        /// What is wrong with it as GGF.
        error: GgfError,
    },
    /// The input is neither a board string nor a transcript (nor an OBF line).
    Unreadable {
        /// The input (shortened when long).
        input: String,
        /// Why it is not a board string.
        board: BoardStringError,
        /// Why it is not a transcript.
        transcript: TranscriptError,
        /// Why it is not an OBF line, when it looked like one (it has a `:`).
        obf: Option<ObfError>,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Ggf { input, error } => {
                write!(f, "cannot read position {input:?}: {error}")
            }
            PositionError::Unreadable {
                input,
                board,
                transcript,
                obf,
            } => {
                write!(
                    f,
                    "cannot read position {input:?}: not a board string ({}), not a transcript ({})",
                    board.detail(),
                    transcript.detail()
                )?;
                if let Some(o) = obf {
                    write!(f, ", not an OBF line ({})", o.detail())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// The input for an error message: at most 60 characters.
fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX - 3).collect();
        t.push_str("...");
        t
    }
}

/// True when `s` starts like a GGF game: `(;`, or a game number and a space before it
/// (`1 (;`).
pub(crate) fn looks_like_ggf(s: &str) -> bool {
    let t = s.trim_start();
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() != t.len() {
        let after = rest.trim_start();
        after.len() != rest.len() && after.starts_with("(;")
    } else {
        t.starts_with("(;")
    }
}

/// The text without the byte-order mark that some editors (Notepad) write at the start of a
/// UTF-8 file, so that a file saved that way reads as the same text.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads a position given in any of the usual text forms, as a game (so the moves that led
/// to it, when given, are kept):
///
/// - `start` (any case) or an empty string: the start position;
/// - a GGF game, `(;GM[Othello]...;)`, optionally after a game number (`1 (;...`);
/// - a board string, 64 squares then the side to move;
/// - a transcript, `f5d6c3...`, optionally after `BOARD;`;
/// - an OBF line (`BOARD SIDE; MOVE:SCORE; ...`): its position.
///
/// The shape decides GGF; otherwise the other forms are tried in turn and the error tells why
/// each failed.
pub fn parse_position(s: &str) -> Result<Game, PositionError> {
    let t = without_bom(s).trim();
    if t.is_empty() || t.eq_ignore_ascii_case("start") {
        return Ok(Game::default());
    }
    if looks_like_ggf(t) {
        return parse_ggf(t)
            .map(|g| g.to_game())
            .map_err(|error| PositionError::Ggf {
                input: shorten(t),
                error,
            });
    }
    let board = match parse_board_string(t) {
        Ok(p) => return Ok(Game::new(p)),
        Err(e) => e,
    };
    let transcript = match parse_transcript(t) {
        Ok(g) => return Ok(g),
        Err(e) => e,
    };
    let obf = if t.contains(':') {
        match parse_obf_line(t) {
            Ok(Some(entry)) => return Ok(Game::new(entry.position)),
            Ok(None) => None,
            Err(e) => Some(e),
        }
    } else {
        None
    };
    Err(PositionError::Unreadable {
        input: shorten(t),
        board,
        transcript,
        obf,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Color, Move};

    #[test]
    fn start_is_plausible_and_bad_boards_are_not() {
        assert_eq!(check_plausible(&Position::start()), Ok(()));
        let empty = Position::from_colors(0, 0, Color::Black);
        assert!(matches!(
            check_plausible(&empty),
            Err(ImpossibleBoard::EmptyCentre(_))
        ));
        let overlap = Position::from_colors(CENTRE, 1 << 27, Color::Black);
        assert!(matches!(
            check_plausible(&overlap),
            Err(ImpossibleBoard::Overlap(_))
        ));
        let island = Position::from_colors(CENTRE | 1, 0, Color::White);
        let e = check_plausible(&island).unwrap_err();
        assert_eq!(
            e.to_string(),
            "impossible board: the disc on a1 is not connected to the centre"
        );
        let chain = Position::from_colors(CENTRE | (1 << 18) | (1 << 9) | 1, 0, Color::White);
        assert_eq!(check_plausible(&chain), Ok(()));
    }

    #[test]
    fn parse_position_forms() {
        assert_eq!(parse_position("").unwrap(), Game::default());
        assert_eq!(parse_position(" START ").unwrap(), Game::default());
        let g = parse_position("f5d6").unwrap();
        assert_eq!(g.len(), 2);
        let b = parse_position(&board_string(&Position::start())).unwrap();
        assert_eq!(b, Game::default());
        let ggf = "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[F5];)";
        let g = parse_position(ggf).unwrap();
        assert_eq!(g.moves(), &[Move::Play("f5".parse().unwrap())]);
        assert_eq!(parse_position(&format!("1 {ggf}")).unwrap(), g);
        let with_board = format!("{};f5", board_string(&Position::start()));
        assert_eq!(parse_position(&with_board).unwrap().len(), 1);
        let obf = "---------------------------OX------XO--------------------------- X; F5:+0;";
        assert_eq!(parse_position(obf).unwrap(), Game::default());
    }

    #[test]
    fn parse_position_errors_say_what_was_tried() {
        let e = parse_position("xyz").unwrap_err().to_string();
        assert!(
            e.starts_with("cannot read position \"xyz\": not a board string ("),
            "{e}"
        );
        assert!(e.contains("not a transcript ("), "{e}");
        let e = parse_position("(;GM[Othello]").unwrap_err().to_string();
        assert!(e.contains("GGF"), "{e}");
        let long = "z".repeat(200);
        let e = parse_position(&long).unwrap_err().to_string();
        assert!(e.len() < 400, "{e}");
    }
}
