//! NBoard's texts: moves (`F5`, `PA`), principal variations (`F5d6C3`), evaluations, the
//! depth field of `search` lines, the `===` line of `go`, the `book` lines of a hint.

use crate::board::Move;
use crate::book::BookMove;
use crate::controller::{Choice, Source};
use crate::protocol::format::seconds_text;
use crate::search::{Info, Selectivity, Solve};
use std::time::Duration;

/// A `book` line of a hint: the move with the book's line after it, its value, the games
/// through it, and its depth (`100%` when solved).
pub fn book_line(m: &BookMove, pv: &[Move]) -> String {
    let depth = if m.depth >= 60 {
        "100%".to_string()
    } else {
        m.depth.to_string()
    };
    format!(
        "book {} {} {} {depth}",
        pv_text(pv),
        eval_text(m.score),
        m.games
    )
}

/// A principal variation as NBoard reads it: squares without separators, the side to move's
/// moves in upper case and the other side's in lower case, passes as `PA`.
pub fn pv_text(pv: &[Move]) -> String {
    let mut s = String::new();
    for (i, mv) in pv.iter().enumerate() {
        match mv {
            Move::Pass => s.push_str("PA"),
            Move::Play(sq) if i % 2 == 0 => s.push_str(&sq.name_upper()),
            Move::Play(sq) => s.push_str(&sq.name()),
        }
    }
    s
}

/// The DEPTH field of a `search` line for a board with `empties` empty squares: the
/// midgame depth as a bare integer, `100%` for an exact solve, `100%W` for a win/loss/draw
/// solve, and the confidence (`87%`) for a selective search to the end of the game (which
/// NBoard shows as a probable solve).
pub fn depth_text(info: &Info, empties: u32) -> String {
    match info.solve {
        Some(Solve::Exact) => "100%".to_string(),
        Some(Solve::Wld) => "100%W".to_string(),
        None if info.depth >= empties && info.depth > 0 && info.selectivity < Selectivity::NONE => {
            info.selectivity.to_string()
        }
        None => info.depth.to_string(),
    }
}

/// An evaluation in discs with two decimals.
pub fn eval_text(score: i32) -> String {
    format!("{:.2}", score as f64)
}

/// The `=== MV/EVAL/TIME` answer of `go`.
pub fn move_line(choice: &Choice) -> String {
    format!(
        "=== {}/{}/{}",
        nboard_move_word(choice.mv),
        eval_text(choice.score.unwrap_or(0)),
        seconds_text(match choice.source {
            Source::Book(_) => Duration::ZERO,
            _ => choice.elapsed,
        })
    )
}

/// A move as NBoard writes it: `F5`, or `PA`.
pub fn nboard_move_word(mv: Move) -> String {
    match mv {
        Move::Pass => "PA".to_string(),
        Move::Play(s) => s.name_upper(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        let pv: Vec<Move> = ["f5", "d6", "pa", "c3"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(pv_text(&pv), "F5d6PAc3");
        let mut info = Info {
            depth: 12,
            selectivity: Selectivity::new(2),
            ..Info::default()
        };
        assert_eq!(depth_text(&info, 30), "12");
        info.depth = 30;
        assert_eq!(depth_text(&info, 30), "95%");
        info.solve = Some(Solve::Exact);
        assert_eq!(depth_text(&info, 30), "100%");
        info.solve = Some(Solve::Wld);
        assert_eq!(depth_text(&info, 30), "100%W");
        assert_eq!(eval_text(-3), "-3.00");
    }
}
