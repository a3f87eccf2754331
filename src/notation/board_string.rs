//! Board strings: the 64 squares a1, b1, ... h8 (row-major, top row first) then the side to
//! move, as Edax, Egaroucid and the FFO files write them:
//! `---------------------------OX------XO--------------------------- X`.
//!
//! Read leniently: `X x B b *` are black, `O o W w 0` white, `- . _` empty, and whitespace
//! anywhere is skipped. Written exactly: `X`, `O`, `-`, a space, then `X` or `O`.

use std::fmt;

use super::{ImpossibleBoard, check_plausible};
use crate::board::{Color, Position, Square};

/// Why a board string could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardStringError {
    /// Not 64 squares.
    Length {
        /// The number of squares found.
        found: usize,
    },
    /// 64 squares but nothing after them.
    MissingSide,
    /// A character that is neither a disc nor an empty square.
    BadChar {
        /// The character.
        ch: char,
        /// Its place among the squares, 0 for a1.
        index: usize,
    },
    /// The side to move is not `X` or `O` (or one of their synonyms).
    BadSide(char),
    /// Far more characters than 64 squares and a side.
    TooLong {
        /// The number of non-space characters found.
        found: usize,
    },
    /// The squares cannot arise in a game.
    Impossible(ImpossibleBoard),
}

impl BoardStringError {
    /// The message without the leading `board string: `.
    pub(crate) fn detail(&self) -> String {
        match self {
            BoardStringError::Length { found } => format!("expected 64 squares, found {found}"),
            BoardStringError::MissingSide => {
                "missing the side to move (X or O) after the 64 squares".to_string()
            }
            BoardStringError::BadChar { ch, index } => {
                let place = match u8::try_from(*index).ok().and_then(Square::new) {
                    Some(s) => format!("square {s}"),
                    None => format!("square number {}", index + 1),
                };
                format!(
                    "unexpected character {ch:?} for {place} (black X x B b *, white O o W w 0, empty - . _)"
                )
            }
            BoardStringError::BadSide(c) => {
                format!("bad side to move {c:?} (expected X or O)")
            }
            BoardStringError::TooLong { found } => {
                format!("expected 64 squares and the side to move, found {found} characters")
            }
            BoardStringError::Impossible(e) => e.to_string(),
        }
    }
}

impl fmt::Display for BoardStringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "board string: {}", self.detail())
    }
}

impl std::error::Error for BoardStringError {}

/// What a square character means: `Some(Some(colour))` for a disc, `Some(None)` for an empty
/// square, `None` for a character that is not a square.
pub(crate) fn square_char(c: char) -> Option<Option<Color>> {
    match c {
        'X' | 'x' | 'B' | 'b' | '*' => Some(Some(Color::Black)),
        'O' | 'o' | 'W' | 'w' | '0' => Some(Some(Color::White)),
        '-' | '.' | '_' => Some(None),
        _ => None,
    }
}

/// Reads a board string without checking that the board can arise in a game (any
/// arrangement of discs is accepted; the bitboards never overlap).
pub fn parse_board_string_unchecked(s: &str) -> Result<Position, BoardStringError> {
    let t = s.trim();
    let chars: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
    let n = chars.len();
    // The side is explicit when it stands alone after a space: then everything before it is
    // squares, however many there are, and the count in the error is right.
    let explicit_side = t
        .rsplit(char::is_whitespace)
        .next()
        .is_some_and(|last| last.chars().count() == 1 && last.len() < t.len());
    let (squares, side) = match chars.split_last() {
        Some((&side, squares)) if explicit_side || n == 65 => (squares, Some(side)),
        _ => (chars.as_slice(), None),
    };
    if let Some((index, &ch)) = squares
        .iter()
        .enumerate()
        .find(|&(_, &c)| square_char(c).is_none())
    {
        return Err(BoardStringError::BadChar { ch, index });
    }
    if side.is_none() && n > 65 {
        return Err(BoardStringError::TooLong { found: n });
    }
    if squares.len() != 64 {
        return Err(BoardStringError::Length {
            found: squares.len(),
        });
    }
    let to_move = match side {
        None => return Err(BoardStringError::MissingSide),
        Some(c) => match square_char(c) {
            Some(Some(color)) => color,
            _ => return Err(BoardStringError::BadSide(c)),
        },
    };
    let (mut black, mut white) = (0u64, 0u64);
    for (sq, &c) in Square::all().zip(squares) {
        match square_char(c) {
            Some(Some(Color::Black)) => black |= sq.bit(),
            Some(Some(Color::White)) => white |= sq.bit(),
            _ => {}
        }
    }
    Ok(Position::from_colors(black, white, to_move))
}

/// Reads a board string: 64 squares a1..h8, optional whitespace, then the side to move.
/// The board must be one that can arise in a game (see [`check_plausible`]).
pub fn parse_board_string(s: &str) -> Result<Position, BoardStringError> {
    let pos = parse_board_string_unchecked(s)?;
    check_plausible(&pos).map_err(BoardStringError::Impossible)?;
    Ok(pos)
}

/// The 64 squares of `pos`, a1 first, with the given characters for black, white and empty.
pub(crate) fn squares_string(pos: &Position, black: char, white: char, empty: char) -> String {
    Square::all()
        .map(|sq| match pos.at(sq) {
            Some(Color::Black) => black,
            Some(Color::White) => white,
            None => empty,
        })
        .collect()
}

/// Writes a board string: `X` black, `O` white, `-` empty, a space, then `X` or `O` for the
/// side to move.
pub fn board_string(pos: &Position) -> String {
    let mut s = squares_string(pos, 'X', 'O', '-');
    s.push(' ');
    s.push(match pos.to_move {
        Color::Black => 'X',
        Color::White => 'O',
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "---------------------------OX------XO--------------------------- X";

    #[test]
    fn start_round_trip() {
        assert_eq!(board_string(&Position::start()), START);
        assert_eq!(parse_board_string(START).unwrap(), Position::start());
    }

    #[test]
    fn lenient_reading() {
        let spaced = "-------- -------- -------- ---0x--- ---*W--- -------- -------- --------\n*";
        assert_eq!(parse_board_string(spaced).unwrap(), Position::start());
        let glued = START.replace(' ', "");
        assert_eq!(parse_board_string(&glued).unwrap(), Position::start());
        let dots = START.replace('-', ".").replace(" X", "b");
        assert_eq!(parse_board_string(&dots).unwrap(), Position::start());
        let white = START.replace(" X", " 0");
        assert_eq!(parse_board_string(&white).unwrap().to_move, Color::White);
    }

    #[test]
    fn errors() {
        let short = format!("{} X", &START[1..64]);
        assert_eq!(
            parse_board_string(&short).unwrap_err().to_string(),
            "board string: expected 64 squares, found 63"
        );
        assert_eq!(
            parse_board_string(&START[..64]).unwrap_err(),
            BoardStringError::MissingSide
        );
        let bad = START.replacen('-', "z", 1);
        assert_eq!(
            parse_board_string(&bad).unwrap_err().to_string(),
            "board string: unexpected character 'z' for square a1 (black X x B b *, white O o W w 0, empty - . _)"
        );
        let side = START.replace(" X", " Q");
        assert_eq!(
            parse_board_string(&side).unwrap_err(),
            BoardStringError::BadSide('Q')
        );
        let empty = format!("{} X", "-".repeat(64));
        let e = parse_board_string(&empty).unwrap_err().to_string();
        assert!(e.starts_with("board string: impossible board: "), "{e}");
        assert!(parse_board_string_unchecked(&empty).is_ok());
        assert!(parse_board_string("").is_err());
        assert!(parse_board_string(&"-".repeat(100)).is_err());
        assert!(parse_board_string("é").is_err());
    }
}
