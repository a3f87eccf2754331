//! The terminal game's texts: the disc letters, the players, the board and its status,
//! the time left, a finished game's result both ways people
//! count it, why a move was refused.

use crate::board::{Color, Move, MoveError, Position};
use crate::book::BookMove;
use crate::controller::{Choice, GameClock, PlayedBy, Player, Seats, Source};
use crate::game::Game;
use crate::notation::move_list;
use crate::protocol::NAME;
use crate::protocol::format::{score_text, search_text, title};
use crate::search::Info;
use std::time::Duration;

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

/// `Black (X, you)`, `White (O, Outflank)`; `Black (X)` when people play both sides.
pub(super) fn who_text(c: Color, seats: &Seats) -> String {
    let name = match (seats.player(c), seats.same()) {
        (Player::Engine, _) => NAME,
        (Player::Human, false) => "you",
        (Player::Human, true) => return format!("{} ({})", title(c), disc(c)),
    };
    format!("{} ({}, {name})", title(c), disc(c))
}

/// `Black (X, you) against White (O, Outflank)`.
pub(super) fn sides_text(seats: &Seats) -> String {
    format!(
        "{} against {}",
        who_text(Color::Black, seats),
        who_text(Color::White, seats)
    )
}

/// The prompt: `Black (X, you) to move> `, or `> ` once the game is over.
pub(super) fn prompt_text(pos: &Position, seats: &Seats) -> String {
    if pos.board.is_game_over() {
        "> ".to_string()
    } else {
        format!("{} to move> ", who_text(pos.to_move, seats))
    }
}

/// The board, then the disc counts and the last move (not a pass) with its mover.
pub(super) fn board_text(game: &Game) -> String {
    let pos = game.position();
    let black = pos.black().count_ones();
    let white = pos.white().count_ones();
    let mut text = format!("{pos}\nBlack X {black}, White O {white}");
    let last = game
        .moves()
        .iter()
        .zip(game.positions())
        .rev()
        .find(|(m, _)| **m != Move::Pass);
    if let Some((mv, before)) = last {
        text.push_str(&format!("; last move {mv} by {}", title(before.to_move)));
    }
    text
}

/// The time left on `c`'s clock (`4:05 left`), when the game is timed.
pub(super) fn left_text(clock: &GameClock, c: Color) -> Option<String> {
    let t = clock.left(c)?.max(0.0).floor() as u64;
    Some(format!("{}:{:02} left", t / 60, t % 60))
}

/// The name a saved game gives a colour's player: `human`, the engine's name, or both.
pub(super) fn played_by_text(by: PlayedBy) -> String {
    match by {
        PlayedBy::Both => format!("human and {NAME}"),
        PlayedBy::Human => "human".to_string(),
        PlayedBy::Engine => NAME.to_string(),
    }
}

/// Where the engine's move comes from: `+2 from the book`, `the only move`, or the
/// search's score, depth and time.
pub(super) fn choice_note(choice: &Choice) -> String {
    match &choice.source {
        Source::Book(m) => format!("{:+} from the book", m.score),
        Source::Only => "the only move".to_string(),
        Source::Search(info) => match info.best() {
            Some(l) => format!(
                "{}, {}, {:.2} s",
                score_text(l.score, info.solve),
                search_text(info),
                choice.elapsed.as_secs_f64()
            ),
            None => "no search result".to_string(),
        },
    }
}

/// The book's best moves for a hint, one line each with the book's line after it.
pub(super) fn book_hints_text(hints: &[(BookMove, Vec<Move>)]) -> String {
    let lines: Vec<String> = hints
        .iter()
        .enumerate()
        .map(|(i, (m, line))| {
            format!(
                "  {}. {} {:+} (book)  {}",
                i + 1,
                m.mv,
                m.score,
                move_list(line)
            )
        })
        .collect();
    lines.join("\n")
}

/// An analysis's scored moves, one line each, then its depth and time.
pub(super) fn analysis_text(info: &Info) -> String {
    let mut lines: Vec<String> = info
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            format!(
                "  {}. {} {}  {}",
                i + 1,
                l.mv,
                score_text(l.score, info.solve),
                move_list(&l.pv)
            )
        })
        .collect();
    lines.push(format!(
        "({}, {:.2} s)",
        search_text(info),
        info.elapsed.as_secs_f64()
    ));
    lines.join("\n")
}

/// A long think's line for an iteration (after its first second): where it stands.
pub(super) fn thinking_text(info: &Info) -> Option<String> {
    if info.elapsed < Duration::from_secs(1) {
        return None;
    }
    let best = info.best()?;
    let pv = &best.pv[..best.pv.len().min(10)];
    Some(format!(
        "  ({NAME} thinks, {}: {} {}, {:.1} s)",
        search_text(info),
        score_text(best.score, info.solve),
        move_list(pv),
        info.elapsed.as_secs_f64()
    ))
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
