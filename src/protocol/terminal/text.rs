//! The terminal game's texts: the disc letters, a finished game's result both ways people
//! count it, why a move was refused.

use crate::board::{Color, Move, MoveError, Position};
use crate::notation::move_list;
use crate::protocol::format::title;

/// The disc letter of a colour on the board drawing.
pub(super) fn disc(c: Color) -> char {
    match c {
        Color::Black => 'X',
        Color::White => 'O',
    }
}

/// The result of a finished game, both ways people count it: `Black wins 40-22, 42-22 with
/// the empty squares (+20)`, or `Draw, 32-32`.
pub fn result_text(pos: &Position) -> String {
    let black = pos.black().count_ones() as i32;
    let white = pos.white().count_ones() as i32;
    let empty = 64 - black - white;
    let score = pos.black_final_score();
    if score == 0 {
        return if empty == 0 {
            format!("Draw, {black}-{white}")
        } else {
            format!("Draw, {black}-{white}, 32-32 with the {empty} empty squares shared")
        };
    }
    let (winner, w, l) = if score > 0 {
        ("Black", black, white)
    } else {
        ("White", white, black)
    };
    if empty == 0 {
        format!("{winner} wins {w}-{l} (+{})", score.abs())
    } else {
        format!(
            "{winner} wins {w}-{l}, {}-{l} with the {empty} empty square{} (+{})",
            w + empty,
            if empty == 1 { "" } else { "s" },
            score.abs()
        )
    }
}

/// Why `mv` was refused in `pos`, with the legal moves.
pub(super) fn move_error_text(pos: &Position, mv: Move, e: &MoveError) -> String {
    let legal = move_list(&pos.legal_moves());
    match e {
        MoveError::GameOver => "the game is over (new starts another)".to_string(),
        MoveError::PassWithMoves => {
            format!("{} has a move and cannot pass: {legal}", title(pos.to_move))
        }
        _ => format!(
            "{mv} is not a legal move for {}: {legal}",
            title(pos.to_move)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::format::score_text;
    use crate::search::Solve;

    #[test]
    fn results_both_ways() {
        let full = Position::from_colors(u64::MAX >> 24, !(u64::MAX >> 24), Color::Black);
        assert_eq!(result_text(&full), "Black wins 40-24 (+16)");
        let empties = Position::from_colors(0xff, 0xff00, Color::White);
        assert_eq!(
            result_text(&empties),
            "Draw, 8-8, 32-32 with the 48 empty squares shared"
        );
        let full_draw = Position::from_colors(u64::MAX >> 32, !(u64::MAX >> 32), Color::Black);
        assert_eq!(result_text(&full_draw), "Draw, 32-32");
        let some = Position::from_colors(0xff, 0xf00, Color::White);
        assert_eq!(
            result_text(&some),
            "Black wins 8-4, 60-4 with the 52 empty squares (+56)"
        );
        assert_eq!(score_text(-3, None), "-3");
        assert_eq!(score_text(2, Some(Solve::Wld)), "win");
        assert_eq!(score_text(0, Some(Solve::Exact)), "+0");
    }
}
