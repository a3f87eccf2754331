//! GTP's texts: moves (`F5`, `pass`), final scores (`B+12`), the boards of `showboard` and
//! `gogui-rules_board`, and the GoGui graphics of an analysis.

use crate::board::{Color, Move, Position, Square};
use crate::protocol::format::{score_text as value_text, search_text, title};
use crate::search::Info;
use std::fmt::Write as _;

/// A move as GTP answers it: `F5`, or `pass`.
pub fn gtp_move(mv: Move) -> String {
    match mv {
        Move::Play(s) => s.name_upper(),
        Move::Pass => "pass".to_string(),
    }
}

/// The score of a finished game as GTP writes it: `B+12`, `W+4` or `0`.
pub fn final_score_text(black_score: i32) -> String {
    match black_score {
        0 => "0".to_string(),
        s if s > 0 => format!("B+{s}"),
        s => format!("W+{}", -s),
    }
}

/// A readable board for `showboard` (no blank lines: they would end the reply).
pub fn board_text(pos: &Position) -> String {
    let mut s = pos.to_string();
    let black = pos.black().count_ones();
    let white = pos.white().count_ones();
    let _ = write!(s, "\nX black {black}, O white {white}; ");
    if pos.board.is_game_over() {
        s.push_str("game over");
    } else {
        let _ = write!(s, "{} to move", pos.to_move);
    }
    s
}

/// The board for `gogui-rules_board`: 8 rows of `X`, `O` and `.`, row 8 first, since GoGui
/// draws its first line at the top and numbers rows from the bottom; so the squares GoGui
/// names are the squares Outflank names.
pub fn gogui_board(pos: &Position) -> String {
    let mut rows = Vec::with_capacity(8);
    for row in (0..8u8).rev() {
        let cells: Vec<&str> = (0..8u8)
            .map(|col| {
                let sq = Square::from_coords(col, row).expect("on the board");
                match pos.at(sq) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                }
            })
            .collect();
        rows.push(cells.join(" "));
    }
    rows.join("\n")
}

/// The GoGui graphics (`gfx`) of an analysis: `LABEL` pairs (every scored move) or a `VAR`
/// line (the best line, each move after its colour, passes as `PASS`), then a `TEXT` line
/// for the status bar. `to_move` is the colour of the analysed position's side to move.
pub fn analysis_gfx(best_line: bool, to_move: Color, info: &Info) -> String {
    let Some(best) = info.best() else {
        return "TEXT no result".to_string();
    };
    let summary = format!(
        "TEXT {}: {} {} ({})",
        title(to_move),
        gtp_move(best.mv),
        value_text(best.score, info.solve),
        search_text(info)
    );
    let mut first = String::new();
    if best_line {
        first.push_str("VAR");
        let mut color = to_move;
        for &mv in &best.pv {
            let c = if color == Color::Black { 'b' } else { 'w' };
            let _ = write!(first, " {c} {}", gtp_move(mv).to_ascii_uppercase());
            color = color.opposite();
        }
    } else {
        first.push_str("LABEL");
        for l in &info.lines {
            let score = value_text(l.score, info.solve);
            let _ = write!(first, " {} {score}", gtp_move(l.mv));
        }
    }
    format!("{first}\n{summary}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(final_score_text(0), "0");
        assert_eq!(final_score_text(12), "B+12");
        assert_eq!(final_score_text(-4), "W+4");
        assert_eq!(gtp_move(Move::Pass), "pass");
        assert_eq!(gtp_move(Move::Play("f5".parse().unwrap())), "F5");
        let board = gogui_board(&Position::start());
        let rows: Vec<&str> = board.lines().collect();
        assert_eq!(rows.len(), 8);
        // Row 5 (second from the bottom line... fourth line) holds d5 black and e5 white.
        assert_eq!(rows[3], ". . . X O . . .");
        assert_eq!(rows[4], ". . . O X . . .");
        assert!(!board_text(&Position::start()).contains("\n\n"));
    }
}
