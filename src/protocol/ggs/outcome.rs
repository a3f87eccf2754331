//! Results as the client tells them. GGS gives a score from the side of the player listed
//! first in its `end` and `- match` lines ([N] reads it so; ggs.md marks it unconfirmed),
//! which is not the client's side nor Black's: [`seen_from`] turns it round, so that the
//! client's lines say every result from its own side ([`mine_text`], [`margin_text`]) and
//! the games file from Black's. Pure functions.

use super::message::{GameResult, ResultHow};

/// `r` as the server wrote it: `+46.00`, `-64.00 (on time)`, `aborted`, `bob left`.
pub fn ggf_result_text(r: &GameResult) -> String {
    match r {
        GameResult::Score { score, how } => format!("{score:+.2}{}", how_text(*how)),
        GameResult::Aborted => "aborted".into(),
        GameResult::Left(who) => format!("{who} left"),
        GameResult::Other(t) => t.clone(),
    }
}

fn how_text(how: ResultHow) -> &'static str {
    match how {
        ResultHow::Normal => "",
        ResultHow::Resigned => " (resigned)",
        ResultHow::Timeout => " (on time)",
        ResultHow::Left => " (left)",
    }
}

/// `r`, a result from the side of the player listed first, from the other player's side
/// when `other` (a score negated; other results as they are).
pub fn seen_from(r: &GameResult, other: bool) -> GameResult {
    match r {
        GameResult::Score { score, how } if other => GameResult::Score {
            score: if *score == 0.0 { 0.0 } else { -score },
            how: *how,
        },
        _ => r.clone(),
    }
}

/// A margin from the client's side: `won by 64`, `lost by 7.5`, `a draw`.
pub fn margin_text(mine: f64) -> String {
    if mine > 0.0 {
        format!("won by {mine}")
    } else if mine < 0.0 {
        format!("lost by {}", -mine)
    } else {
        "a draw".to_string()
    }
}

/// `r`, already from the client's side, in its words: `won by 64`, `lost by 1 (on time)`,
/// `aborted`.
pub fn mine_text(r: &GameResult) -> String {
    match r {
        GameResult::Score { score, how } => format!("{}{}", margin_text(*score), how_text(*how)),
        _ => ggf_result_text(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_told_from_the_clients_side() {
        let r = GameResult::parse("-64.00");
        assert_eq!(ggf_result_text(&r), "-64.00");
        assert_eq!(mine_text(&seen_from(&r, true)), "won by 64");
        assert_eq!(mine_text(&seen_from(&r, false)), "lost by 64");
        let t = GameResult::parse("+1.00:t");
        assert_eq!(mine_text(&seen_from(&t, true)), "lost by 1 (on time)");
        assert_eq!(ggf_result_text(&seen_from(&t, true)), "-1.00 (on time)");
        assert_eq!(mine_text(&GameResult::parse("0.00")), "a draw");
        assert_eq!(
            mine_text(&seen_from(&GameResult::parse("0.00"), true)),
            "a draw"
        );
        assert_eq!(mine_text(&GameResult::parse("+7.50")), "won by 7.5");
        assert_eq!(mine_text(&GameResult::parse("aborted")), "aborted");
        assert_eq!(mine_text(&GameResult::parse("bob left")), "bob left");
    }
}
