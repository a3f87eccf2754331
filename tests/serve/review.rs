//! The review of `docs/serve.md` (`{"type": "review", "depth": D}`) through the real binary,
//! each move's numbers checked against `outflank analyze GAME --game --depth D` run as a
//! process with the server's `--hash` (4, as [`super::start`] gives it).

use super::{Lcg, Socket, hello, next, next_of, play_out_against_engine, post, send, start};
use serde_json::{Value, json};
use std::process::Command;

/// The fields of a reviewed move that the server and the command share.
const FIELDS: [&str; 7] = [
    "ply",
    "player",
    "move",
    "score",
    "best",
    "best_score",
    "loss",
];

/// Each reviewed move's shared fields.
fn fields(moves: &[Value]) -> Vec<Value> {
    moves
        .iter()
        .map(|m| {
            FIELDS
                .iter()
                .map(|f| (f.to_string(), m[*f].clone()))
                .collect::<serde_json::Map<_, _>>()
                .into()
        })
        .collect()
}

/// `outflank analyze GAME --game --depth D --json`, one thread and the server's table: each
/// move's line.
fn cli_review(game: &str, depth: u32) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["analyze", game, "--game", "--json", "--threads", "1"])
        .args(["--hash", "4", "--depth", &depth.to_string()])
        .output()
        .expect("outflank analyze runs");
    assert!(
        out.status.success(),
        "outflank analyze --game: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    fields(&lines)
}

/// The game of a state as a transcript (passes left out; the moves say where they are).
fn transcript(state: &Value) -> String {
    state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .filter(|m| *m != "pass")
        .collect()
}

/// Asks `ws` for a review at `depth`; its moves, once done, after checking the progress
/// messages that come first.
fn review(ws: &mut Socket, depth: u32) -> Vec<Value> {
    send(ws, json!({"type": "review", "depth": depth}));
    let mut done = 0;
    loop {
        let m = next(ws);
        match m["type"].as_str() {
            Some("reviewing") => {
                let now = m["done"].as_u64().unwrap();
                assert_eq!(now, done + 1, "one position at a time: {m}");
                assert!(now < m["total"].as_u64().unwrap(), "{m}");
                done = now;
            }
            Some("review") => {
                assert_eq!(m["depth"], depth, "{m}");
                let moves = m["moves"].as_array().unwrap().clone();
                assert_eq!(
                    moves.len() as u64,
                    done + 1,
                    "the progress counted every move"
                );
                return moves;
            }
            Some("state") => {}
            _ => panic!("a review's messages, got {m}"),
        }
    }
}

#[test]
fn a_review_of_a_game_and_of_a_loaded_game_gives_the_numbers_of_analyze_game() {
    let server = start(&super::temp_db("review"), &[]);
    // A game against level 1 to its end; a spectator asks for the review.
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "engine", "color": "black", "level": 1}),
    );
    let id = created["id"].as_str().unwrap();
    let (mut ws, state) = hello(&server, id, created["token"].as_str());
    let end = play_out_against_engine(&mut ws, state, "black", &mut Lcg(7));
    let game = transcript(&end);
    let (mut watcher, _) = hello(&server, id, None);
    const DEPTH: u32 = 5;
    let served = fields(&review(&mut watcher, DEPTH));
    let played = end["moves"].as_array().unwrap();
    let passes = played.iter().filter(|m| *m == "pass").count();
    assert_eq!(
        served.len(),
        played.len() - passes,
        "every move but the passes"
    );
    assert!(
        served.iter().any(|m| m["loss"].as_i64().unwrap() > 0),
        "random moves lose discs somewhere: {served:?}"
    );
    let cli = cli_review(&game, DEPTH);
    assert_eq!(served.len(), cli.len());
    for (s, c) in served.iter().zip(&cli) {
        assert_eq!(
            s, c,
            "the server's review and `outflank analyze {game} --game`"
        );
    }

    // The same game loaded into the page (a `local` game), reviewed at another depth by its
    // seat while it is still the loaded game.
    let loaded = post(&server, "/api/load", json!({"text": game}));
    let (mut ws, state) = hello(
        &server,
        loaded["id"].as_str().unwrap(),
        loaded["token"].as_str(),
    );
    assert_eq!(state["mode"], "local");
    assert_eq!(state["moves"], end["moves"]);
    let served = fields(&review(&mut ws, 3));
    assert_eq!(served, cli_review(&game, 3));
}

#[test]
fn a_bad_depth_and_an_online_game_under_way_are_refused() {
    let server = start(&super::temp_db("review-refused"), &[]);
    let created = post(&server, "/api/games", json!({"mode": "local"}));
    let id = created["id"].as_str().unwrap();
    let (mut ws, _) = hello(&server, id, created["token"].as_str());
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    let state = next_of(&mut ws, "state");
    for bad in [json!(0), json!(21), json!(-1), json!("8"), json!(null)] {
        send(&mut ws, json!({"type": "review", "depth": bad}));
        let e = next(&mut ws);
        assert_eq!(e["type"], "error", "depth {bad}: {e}");
    }
    // Nothing changed: the game is as it was, and a good depth is answered.
    let (_, now) = hello(&server, id, created["token"].as_str());
    assert_eq!(now["moves"], state["moves"]);
    let moves = review(&mut ws, 2);
    assert_eq!(fields(&moves), cli_review("f5", 2));
    // An online game under way: no review (as no analysis) until it ends.
    let online = post(&server, "/api/games", json!({"mode": "online"}));
    let (mut ws, _) = hello(
        &server,
        online["id"].as_str().unwrap(),
        online["token"].as_str(),
    );
    send(&mut ws, json!({"type": "review", "depth": 4}));
    let e = next_of(&mut ws, "error");
    assert!(e["message"].as_str().unwrap().contains("review"), "{e}");
}
