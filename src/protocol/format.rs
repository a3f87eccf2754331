//! The texts for people that several front-ends print: a colour's name, how a search was
//! run, a score, a percentage (each protocol's own formats stay in its file).

use crate::board::{Color, Move};
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

/// A share in percent with one decimal: `95.7%`.
pub fn percent_text(percent: f64) -> String {
    format!("{percent:.1}%")
}

/// Moves that are equally good, as one word: `e1`, `e1/f8`.
pub fn alternatives_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// A duration in seconds with two decimals (`1.25`), as NBoard prints times.
pub fn seconds_text(d: std::time::Duration) -> String {
    format!("{:.2}", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percents_and_alternatives() {
        assert_eq!(percent_text(100.0), "100.0%");
        assert_eq!(percent_text(200.0 / 3.0), "66.7%");
        let m = |s: &str| s.parse::<Move>().unwrap();
        assert_eq!(alternatives_text(&[m("e1")]), "e1");
        assert_eq!(alternatives_text(&[m("e1"), m("f8")]), "e1/f8");
        assert_eq!(alternatives_text(&[]), "");
    }
}
