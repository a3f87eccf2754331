//! The texts for people that several front-ends print: a colour's name, how a search was
//! run, a score (each protocol's own formats stay in its file).

use crate::board::Color;
use crate::search::{Info, Selectivity, Solve};

/// `Black` or `White`.
pub fn title(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// How a search was run, for people: `depth 14 at 95%`, `solved exactly`, ...
pub fn search_text(info: &Info) -> String {
    match info.solve {
        Some(Solve::Exact) => "solved exactly".to_string(),
        Some(Solve::Wld) => "solved win/loss/draw".to_string(),
        None if info.selectivity < Selectivity::NONE => {
            format!("depth {} at {}", info.depth, info.selectivity)
        }
        None => format!("depth {}", info.depth),
    }
}

/// A score for people: discs for the side to move (`+2`), or `win`/`draw`/`loss` after a
/// win/loss/draw solve.
pub fn score_text(score: i32, solve: Option<Solve>) -> String {
    match (solve, score.signum()) {
        (Some(Solve::Wld), 1) => "win".to_string(),
        (Some(Solve::Wld), 0) => "draw".to_string(),
        (Some(Solve::Wld), _) => "loss".to_string(),
        _ => format!("{score:+}"),
    }
}
