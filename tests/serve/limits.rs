//! The server's limits through the real binary (docs/serve.md, Limits), each set small by its
//! flag: over it, the right status with a JSON error, and nothing changed.

use super::*;

/// The status of a WebSocket upgrade to game `id` refused, or the socket.
fn try_connect(server: &Server, id: &str) -> Result<Socket, u16> {
    match tungstenite::connect(format!("ws://{}/ws/{id}", server.addr)) {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("an answer to the upgrade: {e}"),
    }
}

fn assert_json_error(status: u16, want: u16, text: &str) {
    assert_eq!(status, want, "{text}");
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(v["error"].is_string(), "{text}");
}

#[test]
fn creations_a_minute_from_one_address_are_limited() {
    let server = start(&temp_db("limit-creations"), &["--max-creations", "3"]);
    for _ in 0..2 {
        post(&server, "/api/games", json!({"mode": "local"}));
    }
    post(&server, "/api/load", json!({"text": "f5d6"}));
    let (status, head, text) = http(&server, "POST", "/api/games", Some(r#"{"mode":"local"}"#));
    assert_json_error(status, 429, &text);
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 60"),
        "{head}"
    );
    let (status, _, text) = http(&server, "POST", "/api/load", Some(r#"{"text":"f5"}"#));
    assert_json_error(status, 429, &text);
    // Refused creations made nothing; the games made still play.
    let (_, _, list) = http(&server, "GET", "/api/games", None);
    assert_eq!(list.trim(), "[]", "no finished game, none made: {list}");
}

#[test]
fn ongoing_games_are_limited() {
    let server = start(&temp_db("limit-games"), &["--max-games", "2"]);
    let first = post(&server, "/api/games", json!({"mode": "local"}));
    post(&server, "/api/games", json!({"mode": "online"}));
    let (status, _, text) = http(&server, "POST", "/api/games", Some(r#"{"mode":"local"}"#));
    assert_json_error(status, 503, &text);
    // A finished game does not count.
    let (mut ws, _) = hello(
        &server,
        first["id"].as_str().unwrap(),
        first["token"].as_str(),
    );
    send(&mut ws, json!({"type": "resign"}));
    let s = next_of(&mut ws, "state");
    assert_eq!(s["result"]["reason"], "resign");
    post(&server, "/api/games", json!({"mode": "local"}));
    let (status, _, text) = http(&server, "POST", "/api/games", Some(r#"{"mode":"local"}"#));
    assert_json_error(status, 503, &text);
}

#[test]
fn connections_to_a_game_and_in_all_are_limited() {
    let server = start(
        &temp_db("limit-connections"),
        &["--max-game-connections", "2", "--max-connections", "3"],
    );
    let a = post(&server, "/api/games", json!({"mode": "local"}));
    let b = post(&server, "/api/games", json!({"mode": "local"}));
    let (a, b) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let mut a1 = try_connect(&server, a).unwrap();
    let _a2 = try_connect(&server, a).unwrap();
    assert_eq!(try_connect(&server, a).err(), Some(503), "two a game");
    let _b1 = try_connect(&server, b).unwrap();
    assert_eq!(try_connect(&server, b).err(), Some(503), "three in all");
    // A connection that closes frees its place.
    a1.close(None).unwrap();
    let t = Instant::now();
    let mut b2 = loop {
        match try_connect(&server, b) {
            Ok(s) => break s,
            Err(503) if t.elapsed() < Duration::from_secs(20) => {
                let _ = a1.read();
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(s) => panic!("a place once a connection closed: {s}"),
        }
    };
    send(&mut b2, json!({"type": "hello"}));
    let s = next_of(&mut b2, "state");
    assert_eq!(s["id"], b, "the admitted connection works");
}
