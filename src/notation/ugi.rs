//! The texts of UGI (`../shared/docs/protocols.md`): its Othello FEN and its moves.
//!
//! The FEN: eight rows separated by `/`, **row 1 (a1..h1) first**, files a to h within a row,
//! `x` black, `o` white, a digit 1-8 for a run of empty squares; then one space and the side
//! to move, `x` or `o`. The start position is `8/8/8/3ox3/3xo3/8/8/8 x`. The side to move is
//! read from the FEN, never from the disc count. Upper-case letters are read too; the writer
//! writes lower case.
//!
//! A move: a square in lower case (`f5`), or `0000` for a pass.

use std::fmt;

use super::{ImpossibleBoard, check_plausible};
use crate::board::{Color, Move, Position, Square};

/// A move as UGI writes it: `f5`, or `0000` for a pass.
pub fn ugi_move(mv: Move) -> String {
    match mv {
        Move::Play(sq) => sq.name(),
        Move::Pass => "0000".to_string(),
    }
}

/// Reads a UGI move: a square (either case), or `0000` for a pass; `None` for anything else
/// (`pass` included: UGI has one word for it).
pub fn parse_ugi_move(s: &str) -> Option<Move> {
    if s == "0000" {
        return Some(Move::Pass);
    }
    match s.parse::<Move>() {
        Ok(Move::Play(sq)) => Some(Move::Play(sq)),
        _ => None,
    }
}

/// Why a FEN cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// No side to move after the board (or more than one field after it).
    Fields(usize),
    /// Not eight rows.
    Rows(usize),
    /// A row does not cover exactly eight squares (row number 1-8, squares covered).
    RowLength(usize, usize),
    /// A character that is neither `x`, `o` nor a digit 1-8 (row number 1-8).
    BadChar(usize, char),
    /// A side to move that is neither `x` nor `o`.
    BadSide(String),
    /// The board cannot arise in a game.
    Impossible(ImpossibleBoard),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FEN: ")?;
        match self {
            FenError::Fields(n) => write!(
                f,
                "expected the board and the side to move (x or o), found {n} field(s)"
            ),
            FenError::Rows(n) => write!(f, "expected 8 rows separated by '/', found {n}"),
            FenError::RowLength(r, n) => write!(f, "row {r} covers {n} squares, not 8"),
            FenError::BadChar(r, c) => write!(
                f,
                "row {r}: {c:?} is not a square (x black, o white, 1-8 empty squares)"
            ),
            FenError::BadSide(s) => write!(f, "the side to move is {s:?}, not x or o"),
            FenError::Impossible(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FenError {}

/// Reads a FEN: the board (row 1 first) and the side to move, separated by whitespace.
pub fn parse_fen(s: &str) -> Result<Position, FenError> {
    let fields: Vec<&str> = s.split_whitespace().collect();
    let [board, side] = fields[..] else {
        return Err(FenError::Fields(fields.len()));
    };
    let to_move = match side {
        "x" | "X" => Color::Black,
        "o" | "O" => Color::White,
        _ => return Err(FenError::BadSide(side.chars().take(16).collect())),
    };
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 8 {
        return Err(FenError::Rows(rows.len()));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (r, row) in rows.iter().enumerate() {
        let mut file = 0usize;
        for c in row.chars() {
            match c {
                '1'..='8' => file += c as usize - '0' as usize,
                'x' | 'X' | 'o' | 'O' => {
                    if file < 8 {
                        let bit = 1u64 << (r * 8 + file);
                        if c.eq_ignore_ascii_case(&'x') {
                            black |= bit;
                        } else {
                            white |= bit;
                        }
                    }
                    file += 1;
                }
                _ => return Err(FenError::BadChar(r + 1, c)),
            }
            if file > 8 {
                return Err(FenError::RowLength(r + 1, file));
            }
        }
        if file != 8 {
            return Err(FenError::RowLength(r + 1, file));
        }
    }
    let pos = Position::from_colors(black, white, to_move);
    check_plausible(&pos).map_err(FenError::Impossible)?;
    Ok(pos)
}

/// Writes `pos` as a FEN, lower case, row 1 first.
pub fn fen(pos: &Position) -> String {
    let mut out = String::with_capacity(80);
    let squares: Vec<Square> = Square::all().collect();
    for (row, rank) in squares.chunks(8).enumerate() {
        if row > 0 {
            out.push('/');
        }
        let mut run = 0u8;
        for &sq in rank {
            let c = match pos.at(sq) {
                Some(Color::Black) => 'x',
                Some(Color::White) => 'o',
                None => {
                    run += 1;
                    continue;
                }
            };
            if run > 0 {
                out.push((b'0' + run) as char);
                run = 0;
            }
            out.push(c);
        }
        if run > 0 {
            out.push((b'0' + run) as char);
        }
    }
    out.push(' ');
    out.push(match pos.to_move {
        Color::Black => 'x',
        Color::White => 'o',
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves() {
        assert_eq!(ugi_move(Move::Pass), "0000");
        assert_eq!(ugi_move("f5".parse().unwrap()), "f5");
        assert_eq!(parse_ugi_move("0000"), Some(Move::Pass));
        assert_eq!(parse_ugi_move("F5"), "f5".parse().ok());
        assert_eq!(parse_ugi_move("pass"), None);
        assert_eq!(parse_ugi_move("z9"), None);
    }

    #[test]
    fn start_position() {
        let start = "8/8/8/3ox3/3xo3/8/8/8 x";
        assert_eq!(fen(&Position::start()), start);
        assert_eq!(parse_fen(start).unwrap(), Position::start());
        assert_eq!(
            parse_fen("8/8/8/3OX3/3XO3/8/8/8 X").unwrap(),
            Position::start()
        );
    }

    #[test]
    fn round_trips_along_a_game_with_either_side_to_move() {
        let mut pos = Position::start();
        for mv in ["f5", "d6", "c3", "d3", "c4"] {
            pos = pos.play(mv.parse::<Move>().unwrap()).unwrap();
            assert_eq!(parse_fen(&fen(&pos)).unwrap(), pos, "{}", fen(&pos));
        }
        // After f5 (e5 black now): row 5 holds d5 and e5, f5 black.
        let after_f5 = Position::start().play("f5".parse().unwrap()).unwrap();
        assert_eq!(fen(&after_f5), "8/8/8/3ox3/3xxx2/8/8/8 o");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let cases = [
            ("8/8/8/3ox3/3xo3/8/8/8", "field"),
            ("8/8/8/3ox3/3xo3/8/8 x", "8 rows"),
            ("8/8/8/3ox3/3xo4/8/8/8 x", "row 5 covers 9"),
            ("8/8/8/3ox3/3xo2/8/8/8 x", "row 5 covers 7"),
            ("8/8/8/3ox3/3xq3/8/8/8 x", "row 5: 'q'"),
            ("8/8/8/3ox3/3xo3/8/8/8 b", "not x or o"),
            ("8/8/8/8/8/8/8/8 x", "FEN"),
            ("9/8/8/3ox3/3xo3/8/8/8 x", "row 1: '9'"),
        ];
        for (s, want) in cases {
            let e = parse_fen(s).unwrap_err().to_string();
            assert!(e.contains(want), "{s}: {e}");
        }
    }
}
