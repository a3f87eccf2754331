//! The review panel (docs/serve.md, `review`) as a person uses it: a game loaded with the
//! Load dialog, reviewed with the Review button at the analysis's depth; the table is checked
//! against `outflank analyze GAME --game --depth D` run as a process (one thread and the
//! default table, as the server's), and a click on a row shows the position of its move.

use super::{
    Client, Driver, Locator, LogOnPanic, ONE_AT_A_TIME, Server, assert_drawn, click, common, fill,
    wait_for,
};
use outflank::game::Game;
use outflank::notation::transcript;
use serde_json::Value;
use std::time::{Duration, Instant};

/// A whole game of legal moves chosen by a fixed pseudo-random sequence (passes included).
fn a_game(mut seed: u64) -> Game {
    let mut g = Game::default();
    while !g.is_over() {
        let moves = g.position().legal_moves();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        g.play(moves[(seed >> 33) as usize % moves.len()]).unwrap();
    }
    g
}

/// The review table's rows, each `[ply, move, score, best, best_score, loss]` as the
/// page's data attributes hold them (an unknown score empty), with its marking class and
/// the text of its loss cell.
const ROWS_JS: &str = r#"
return Array.from(document.querySelectorAll('#review-body tr.rv')).map((tr) => [
  [tr.dataset.ply, tr.dataset.move, tr.dataset.score, tr.dataset.best, tr.dataset.bestScore,
   tr.dataset.loss],
  ['best', 'inaccuracy', 'mistake', 'blunder', 'unknown'].find((c) => tr.classList.contains(c)),
  tr.cells[5].textContent,
]);
"#;

/// A row as the table holds it: the fields, the mark, the loss shown.
type Row = (Vec<String>, String, String);

async fn rows(c: &Client) -> Vec<Row> {
    let v = c.execute(ROWS_JS, vec![]).await.unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let fields = r[0]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect();
            let mark = r[1].as_str().unwrap_or("").to_string();
            (fields, mark, r[2].as_str().unwrap_or("").to_string())
        })
        .collect()
}

/// `outflank analyze GAME --game --depth D --json`: each move's fields as the table's.
fn cli_rows(game: &str, depth: u32) -> Vec<Vec<String>> {
    let out = common::ok(common::outflank(&[
        "analyze",
        game,
        "--game",
        "--json",
        "--threads",
        "1",
        "--depth",
        &depth.to_string(),
    ]));
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            ["ply", "move", "score", "best", "best_score", "loss"]
                .iter()
                .map(|f| text(&v[*f]))
                .collect()
        })
        .collect()
}

/// The mark of a loss: `inaccuracy` 1-3 discs, `mistake` 4-9, `blunder` 10 or more.
fn mark(loss: &str) -> &'static str {
    match loss.parse::<i64>() {
        Err(_) => "unknown",
        Ok(l) if l >= 10 => "blunder",
        Ok(l) if l >= 4 => "mistake",
        Ok(l) if l >= 1 => "inaccuracy",
        Ok(_) => "best",
    }
}

#[tokio::test]
#[cfg_attr(
    outflank_no_chromium,
    ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver), missing when the tests were built"
)]
async fn the_review_of_a_loaded_game_shows_the_numbers_of_analyze_game() {
    const DEPTH: u32 = 4;
    browser_test!("review", |server, driver| {
        let c = driver.browser("review").await;
        let game = a_game(42);
        let text = transcript(&game);
        c.goto(&format!("{}/", server.url)).await.unwrap();
        // `/` opens the new-game dialog: closed, then the game loaded.
        click(&c, "#new-cancel").await;
        click(&c, "#open-load").await;
        fill(&c, "#load-text", &text).await;
        click(&c, "#load-submit").await;
        let plies = game.len() as i64;
        wait_for(&c, "the loaded game", |s| s.you == "both" && s.ply == plies).await;

        fill(&c, "#depth", &DEPTH.to_string()).await;
        click(&c, "#review").await;
        let reviewed = game
            .moves()
            .iter()
            .filter(|m| **m != outflank::Move::Pass)
            .count();
        let t = Instant::now();
        let table = loop {
            let r = rows(&c).await;
            if r.len() == reviewed {
                break r;
            }
            assert!(
                t.elapsed() < super::PATIENCE,
                "the review's {reviewed} rows: {r:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let cli = cli_rows(&text, DEPTH);
        let page: Vec<Vec<String>> = table.iter().map(|r| r.0.clone()).collect();
        assert_eq!(page, cli, "the page's review and `outflank analyze --game`");
        for (fields, marked, shown) in &table {
            assert_eq!(marked, mark(&fields[5]), "the mark of {fields:?}");
            assert_eq!(shown, &fields[5], "the loss shown for {fields:?}");
        }
        assert!(
            table.iter().any(|r| r.1 != "best"),
            "random moves lose somewhere"
        );

        // A click on the worst move's row shows the position it was played from.
        let worst = table
            .iter()
            .max_by_key(|r| r.0[5].parse::<i64>().unwrap_or(0))
            .unwrap();
        let ply: usize = worst.0[0].parse().unwrap();
        click(&c, &format!("#review-body tr.rv[data-ply=\"{ply}\"]")).await;
        let s = wait_for(&c, "the position of the clicked move", |s| {
            s.view == ply as i64 - 1
        })
        .await;
        assert_drawn(
            &s,
            &game.positions()[ply - 1],
            false,
            "the reviewed move's position",
        );
        // The board scores the move played and the best one, as the row says.
        let score_of = |square: &str| {
            s.squares
                .iter()
                .find(|q| q.0 == square)
                .and_then(|q| q.3)
                .map(|x| x.to_string())
        };
        let scored: Vec<&str> = s
            .squares
            .iter()
            .filter(|q| q.3.is_some())
            .map(|q| q.0.as_str())
            .collect();
        assert_eq!(
            scored.len(),
            2,
            "the played and the best move scored: {scored:?}"
        );
        assert_eq!(score_of(&worst.0[1]), Some(worst.0[2].clone()), "{worst:?}");
        assert_eq!(score_of(&worst.0[3]), Some(worst.0[4].clone()), "{worst:?}");
        let best = c
            .find(Locator::Css(&format!(".sq[data-sq=\"{}\"]", worst.0[3])))
            .await
            .unwrap();
        assert_eq!(best.attr("data-hint").await.unwrap().as_deref(), Some("1"));
        let current = c
            .find_all(Locator::Css("#review-body tr.rv.current"))
            .await
            .unwrap();
        assert_eq!(current.len(), 1, "the row of the position shown is marked");
        assert_eq!(
            current[0].attr("data-ply").await.unwrap().as_deref(),
            Some(ply.to_string().as_str())
        );
        c.close().await.unwrap();
    });
}
