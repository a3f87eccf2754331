//! `outflank serve` through the real binary: the HTTP API and the WebSocket protocol of
//! `docs/serve.md`, each test on a server of its own (port 0, a database of its own).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message, stream::MaybeTlsStream};

#[path = "serve/clocks.rs"]
mod clocks;
#[path = "serve/limits.rs"]
mod limits;

type Socket = tungstenite::WebSocket<MaybeTlsStream<TcpStream>>;

/// A running server, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("outflank-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.sqlite")
}

fn start(db: &Path, extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["serve", "--port", "0", "--hash", "4", "--db"])
        .arg(db)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("outflank serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening http://")
        .unwrap_or_else(|| panic!("a listening line, got {line:?}"));
    let addr = url.trim_end_matches('/').to_string();
    Server { child, addr }
}

/// An HTTP/1.1 request; the status, headers and body.
fn http(server: &Server, method: &str, path: &str, body: Option<&str>) -> (u16, String, String) {
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    let mut text = Vec::new();
    let _ = s.read_to_end(&mut text);
    let text = String::from_utf8_lossy(&text).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    // Small answers come whole or in one chunk.
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let (_, after) = rest.split_once("\r\n").unwrap_or(("", rest));
        after
            .rsplitn(2, "\r\n0\r\n")
            .last()
            .unwrap_or("")
            .trim_end()
            .to_string()
    } else {
        rest.to_string()
    };
    (status, head.to_string(), body)
}

fn post(server: &Server, path: &str, body: Value) -> Value {
    let (status, _, text) = http(server, "POST", path, Some(&body.to_string()));
    assert_eq!(status, 200, "{path}: {text}");
    serde_json::from_str(&text).unwrap()
}

fn connect(server: &Server, id: &str) -> Socket {
    let (socket, _) = tungstenite::connect(format!("ws://{}/ws/{id}", server.addr)).unwrap();
    if let MaybeTlsStream::Plain(s) = socket.get_ref() {
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    }
    socket
}

fn send(ws: &mut Socket, v: Value) {
    ws.send(Message::Text(v.to_string().into())).unwrap();
}

/// The next JSON message.
fn next(ws: &mut Socket) -> Value {
    loop {
        match ws.read().expect("a message") {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Close(f) => panic!("closed: {f:?}"),
            _ => {}
        }
    }
}

/// The next message of `kind`.
fn next_of(ws: &mut Socket, kind: &str) -> Value {
    loop {
        let m = next(ws);
        if m["type"] == kind {
            return m;
        }
        assert_ne!(m["type"], "error", "{m}");
    }
}

fn hello(server: &Server, id: &str, token: Option<&str>) -> (Socket, Value) {
    let mut ws = connect(server, id);
    match token {
        Some(t) => send(&mut ws, json!({"type": "hello", "token": t})),
        None => send(&mut ws, json!({"type": "hello"})),
    }
    let state = next_of(&mut ws, "state");
    (ws, state)
}

/// A cheap random number generator for the moves.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

fn legal(state: &Value) -> Vec<String> {
    state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// Plays the engine game of `ws` (seat `me`) to its end with random legal moves.
fn play_out_against_engine(ws: &mut Socket, mut state: Value, me: &str, rng: &mut Lcg) -> Value {
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut moved_at = None;
    loop {
        assert!(Instant::now() < deadline, "the game ends");
        if !state["result"].is_null() {
            return state;
        }
        let ply = state["ply"].as_u64();
        if state["to_move"] == me && !state["thinking"].as_bool().unwrap() && moved_at != ply {
            moved_at = ply;
            let moves = legal(&state);
            let mv = &moves[rng.below(moves.len())];
            // Within the server's 20 messages a second.
            std::thread::sleep(Duration::from_millis(55));
            send(ws, json!({"type": "move", "move": mv}));
        }
        state = next_of(ws, "state");
    }
}

#[test]
fn a_game_against_level_1_to_its_end_and_its_ggf() {
    let server = start(&temp_db("engine"), &[]);
    let (status, head, page) = http(&server, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("<html"), "{page}");
    assert!(
        head.contains("content-security-policy: default-src 'self'"),
        "{head}"
    );
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "engine", "color": "white", "level": 1}),
    );
    let id = created["id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert_eq!(created["color"], "white");
    let (mut ws, state) = hello(&server, id, created["token"].as_str());
    assert_eq!(state["you"], "white");
    assert_eq!(state["mode"], "engine");
    let end = play_out_against_engine(&mut ws, state, "white", &mut Lcg(1));
    let result = &end["result"];
    assert_eq!(result["reason"], "end");
    let (b, w) = (
        result["black"].as_u64().unwrap(),
        result["white"].as_u64().unwrap(),
    );
    assert_eq!(result["score"], format!("{b}-{w}"));
    assert_eq!(end["legal"], json!([]));
    assert_eq!(
        end["evals"].as_array().unwrap().len(),
        end["ply"].as_u64().unwrap() as usize + 1
    );
    // The finished game is listed and downloads as GGF that reads back to the same moves.
    let (status, _, list) = http(&server, "GET", "/api/games", None);
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[0]["id"], id, "{list}");
    let (status, head, ggf) = http(&server, "GET", &format!("/api/games/{id}/ggf"), None);
    assert_eq!(status, 200);
    assert!(head.contains("text/plain"), "{head}");
    let game = outflank::notation::parse_ggf(ggf.trim()).expect("the GGF reads");
    let moves: Vec<String> = game
        .moves
        .iter()
        .map(|m| match m.mv {
            outflank::Move::Pass => "pass".to_string(),
            mv => mv.to_string(),
        })
        .collect();
    assert_eq!(json!(moves), end["moves"]);
    assert_eq!(game.result_margin(), Some(b as f64 - w as f64));
}

#[test]
fn an_online_game_between_two_browsers_with_a_spectator() {
    let server = start(&temp_db("online"), &[]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "online", "color": "black"}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let joined = post(&server, &format!("/api/games/{id}/join"), json!({}));
    assert_eq!(joined["color"], "white");
    let (status, _, _) = http(
        &server,
        "POST",
        &format!("/api/games/{id}/join"),
        Some("{}"),
    );
    assert_eq!(status, 409, "both seats are taken");
    let (mut black, s) = hello(&server, &id, created["token"].as_str());
    assert_eq!(s["you"], "black");
    let (mut white, s) = hello(&server, &id, joined["token"].as_str());
    assert_eq!(s["you"], "white");
    let (mut watcher, s) = hello(&server, &id, None);
    assert!(s["you"].is_null());
    // A spectator cannot play.
    send(&mut watcher, json!({"type": "move", "move": "f5"}));
    assert_eq!(next_of(&mut watcher, "error")["type"], "error");
    let mut rng = Lcg(7);
    let mut seen = 0;
    let mut state = s;
    while state["result"].is_null() {
        let (ws, other) = if state["to_move"] == "black" {
            (&mut black, &mut white)
        } else {
            (&mut white, &mut black)
        };
        let moves = legal(&state);
        let mv = moves[rng.below(moves.len())].clone();
        std::thread::sleep(Duration::from_millis(55));
        send(ws, json!({"type": "move", "move": mv}));
        let mine = next_of(ws, "state");
        let theirs = next_of(other, "state");
        state = next_of(&mut watcher, "state");
        seen += 1;
        assert_eq!(
            state["moves"].as_array().unwrap().last().unwrap(),
            &json!(mv)
        );
        assert_eq!(mine["board"], state["board"]);
        assert_eq!(theirs["board"], state["board"]);
    }
    assert_eq!(state["ply"].as_u64().unwrap(), seen);
    assert_eq!(state["result"]["reason"], "end");
}

#[test]
fn a_reconnection_with_the_token_returns_the_seat_and_bad_moves_are_refused() {
    let server = start(&temp_db("refusals"), &[]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "online", "color": "white"}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap();
    let joined = post(&server, &format!("/api/games/{id}/join"), json!({}));
    let (mut white, before) = hello(&server, &id, Some(token));
    // Out of turn: black is to move.
    send(&mut white, json!({"type": "move", "move": "f5"}));
    let e = next_of(&mut white, "error");
    assert!(
        e["message"].as_str().unwrap().contains("not your turn"),
        "{e}"
    );
    let (mut black, _) = hello(&server, &id, joined["token"].as_str());
    for bad in ["a1", "pass", "z9", ""] {
        send(&mut black, json!({"type": "move", "move": bad}));
        let e = next_of(&mut black, "error");
        assert!(!e["message"].as_str().unwrap().is_empty());
    }
    // Malformed messages.
    for bad in ["{", "[]", r#"{"type": "fly"}"#, r#"{"type": "move"}"#] {
        black.send(Message::Text(bad.into())).unwrap();
        next_of(&mut black, "error");
    }
    send(&mut black, json!({"type": "undo"}));
    next_of(&mut black, "error");
    drop(white);
    // Back with the token: the same seat, the game unchanged.
    let (mut white, again) = hello(&server, &id, Some(token));
    assert_eq!(again["you"], "white");
    assert_eq!(again["board"], before["board"]);
    assert_eq!(again["ply"], 0);
    send(&mut black, json!({"type": "move", "move": "f5"}));
    let s = next_of(&mut white, "state");
    assert_eq!(s["moves"], json!(["f5"]));
    // An unknown token is refused.
    let mut ws = connect(&server, &id);
    send(&mut ws, json!({"type": "hello", "token": "00"}));
    next_of(&mut ws, "error");
    // An unknown game: 404.
    let (status, _, _) = http(&server, "GET", "/api/games/0123/ggf", None);
    assert_eq!(status, 404);
}

#[test]
fn oversized_and_too_many_messages_are_refused() {
    let server = start(&temp_db("limits"), &[]);
    let created = post(&server, "/api/games", json!({"mode": "local"}));
    let id = created["id"].as_str().unwrap().to_string();
    let (mut ws, state) = hello(&server, &id, created["token"].as_str());
    assert_eq!(state["you"], "both");
    // More than 20 a second: refused with an error.
    for _ in 0..25 {
        send(&mut ws, json!({"type": "hint"}));
    }
    let mut rate = false;
    for _ in 0..25 {
        let m = next(&mut ws);
        rate |= m["message"]
            .as_str()
            .is_some_and(|t| t.contains("a second"));
    }
    assert!(rate, "the rate limit speaks");
    // Over 4 KiB: closed with 1009.
    let big = format!(r#"{{"type": "move", "move": "{}"}}"#, "x".repeat(5000));
    ws.send(Message::Text(big.into())).unwrap();
    let code = loop {
        match ws.read() {
            Ok(Message::Close(Some(f))) => break u16::from(f.code),
            Ok(_) => continue,
            Err(e) => panic!("a close frame, got {e}"),
        }
    };
    assert_eq!(code, 1009);
    // HTTP bodies over 64 KiB: 413; malformed: 400.
    let huge = format!(r#"{{"text": "{}"}}"#, "f5".repeat(40_000));
    let (status, _, _) = http(&server, "POST", "/api/load", Some(&huge));
    assert_eq!(status, 413);
    let (status, _, body) = http(&server, "POST", "/api/games", Some("{"));
    assert_eq!(status, 400);
    assert!(body.contains("error"), "{body}");
    let (status, _, _) = http(&server, "POST", "/api/games", Some(r#"{"mode": "chess"}"#));
    assert_eq!(status, 400);
}

#[test]
fn a_restarted_server_resumes_its_games() {
    let db = temp_db("restart");
    let server = start(&db, &[]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "local", "start": "f5d6c3"}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap().to_string();
    let (mut ws, state) = hello(&server, &id, Some(&token));
    assert_eq!(state["ply"], 3);
    send(&mut ws, json!({"type": "move", "move": legal(&state)[0]}));
    let before = next_of(&mut ws, "state");
    let loaded = post(&server, "/api/load", json!({"text": "f5d6c3d3c4"}));
    drop(ws);
    drop(server);
    let server = start(&db, &[]);
    let (mut ws, after) = hello(&server, &id, Some(&token));
    assert_eq!(after["you"], "both");
    assert_eq!(after["moves"], before["moves"]);
    assert_eq!(after["board"], before["board"]);
    send(&mut ws, json!({"type": "undo"}));
    let undone = next_of(&mut ws, "state");
    assert_eq!(
        undone["ply"], 3,
        "undo goes back to the given moves, not past them"
    );
    let (_, other) = hello(
        &server,
        loaded["id"].as_str().unwrap(),
        loaded["token"].as_str(),
    );
    assert_eq!(other["ply"], 5);
}

#[test]
fn analysis_scores_every_move_and_hints_come_where_they_are_on() {
    let server = start(&temp_db("analysis"), &[]);
    let created = post(&server, "/api/games", json!({"mode": "local"}));
    let id = created["id"].as_str().unwrap().to_string();
    let (mut ws, _) = hello(&server, &id, created["token"].as_str());
    send(&mut ws, json!({"type": "analyze", "depth": 4}));
    let a = next_of(&mut ws, "analysis");
    assert_eq!(a["ply"], 0);
    assert_eq!(a["depth"], 4);
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4, "every legal move: {a}");
    let scores: Vec<i64> = moves.iter().map(|m| m["score"].as_i64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {a}");
    let state = next_of(&mut ws, "state");
    assert_eq!(
        state["evals"][0],
        json!(scores[0] as f64),
        "the graph gets the score"
    );
    for depth in [0, 21] {
        send(&mut ws, json!({"type": "analyze", "depth": depth}));
        next_of(&mut ws, "error");
    }
    // Hints: in an engine game with hints on, refused with them off and online.
    let engine = post(
        &server,
        "/api/games",
        json!({"mode": "engine", "hints": true, "level": 2}),
    );
    let (mut ws, _) = hello(
        &server,
        engine["id"].as_str().unwrap(),
        engine["token"].as_str(),
    );
    send(&mut ws, json!({"type": "hint"}));
    let h = next_of(&mut ws, "analysis");
    assert!(!h["moves"].as_array().unwrap().is_empty(), "{h}");
    let online = post(&server, "/api/games", json!({"mode": "online"}));
    let (mut ws, _) = hello(
        &server,
        online["id"].as_str().unwrap(),
        online["token"].as_str(),
    );
    send(&mut ws, json!({"type": "hint"}));
    next_of(&mut ws, "error");
    send(&mut ws, json!({"type": "analyze", "depth": 3}));
    next_of(&mut ws, "error");
}

/// The CPU time (clock ticks) the server's search threads have spent so far.
fn search_ticks(server: &Server) -> u64 {
    thread_cpu_ticks(server.child.id())
        .iter()
        .filter(|(n, _)| n.starts_with("outflank-search"))
        .map(|(_, t)| t)
        .sum()
}

#[test]
fn an_abandoned_analysis_stops_its_search() {
    let server = start(&temp_db("abandoned"), &["--threads", "1"]);
    let created = post(&server, "/api/games", json!({"mode": "local"}));
    let id = created["id"].as_str().unwrap().to_string();
    let (mut ws, _) = hello(&server, &id, created["token"].as_str());
    // Depth 20 for every move of this midgame position: 20 s or more of search, far longer
    // than this test waits.
    for mv in [
        "f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7", "d7", "c6",
    ] {
        send(&mut ws, json!({"type": "move", "move": mv}));
        next_of(&mut ws, "state");
    }
    send(&mut ws, json!({"type": "analyze", "depth": 20}));
    std::thread::sleep(Duration::from_millis(500));
    let before = search_ticks(&server);
    std::thread::sleep(Duration::from_millis(1000));
    let running = search_ticks(&server) - before;
    assert!(
        running >= 30,
        "the analysis searches ({running} ticks in 1 s)"
    );
    ws.close(None).unwrap();
    let _ = ws.flush();
    drop(ws);
    std::thread::sleep(Duration::from_millis(700));
    let before = search_ticks(&server);
    std::thread::sleep(Duration::from_millis(1500));
    let after_leaving = search_ticks(&server) - before;
    assert!(
        after_leaving <= 5,
        "the search stops when its game's only connection goes ({after_leaving} ticks in 1.5 s)"
    );
    // The one search thread is free for another game at once.
    let other = post(&server, "/api/games", json!({"mode": "local"}));
    let (mut ws, _) = hello(
        &server,
        other["id"].as_str().unwrap(),
        other["token"].as_str(),
    );
    let t = Instant::now();
    send(&mut ws, json!({"type": "analyze", "depth": 2}));
    next_of(&mut ws, "analysis");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

/// The server's resident memory in KiB (Linux), when it can be read.
fn rss_kib(server: &Server) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Plays online game `id` to its end between its two seats with random legal moves; the
/// round trips (move sent to own state back), in microseconds.
fn play_online(server: &Server, seed: u64) -> Vec<u128> {
    let created = post(server, "/api/games", json!({"mode": "online"}));
    let id = created["id"].as_str().unwrap().to_string();
    let joined = post(server, &format!("/api/games/{id}/join"), json!({}));
    let (mut black, _) = hello(server, &id, created["token"].as_str());
    let (mut white, mut state) = hello(server, &id, joined["token"].as_str());
    let mut rng = Lcg(seed);
    let mut trips = Vec::new();
    while state["result"].is_null() {
        let (ws, other) = if state["to_move"] == "black" {
            (&mut black, &mut white)
        } else {
            (&mut white, &mut black)
        };
        let moves = legal(&state);
        let mv = moves[rng.below(moves.len())].clone();
        std::thread::sleep(Duration::from_millis(60));
        let t = Instant::now();
        send(ws, json!({"type": "move", "move": mv}));
        state = next_of(ws, "state");
        trips.push(t.elapsed().as_micros());
        next_of(other, "state");
    }
    trips
}

#[test]
#[ignore = "load test: 200 online games at once (cargo test --release --test serve -- --ignored)"]
fn load_200_online_games_at_once() {
    // 200 games from one address at once: above the default creations a minute.
    let server = start(&temp_db("load"), &["--max-creations", "1000"]);
    let started = Instant::now();
    let mut trips: Vec<u128> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..200)
            .map(|i| {
                let server = &server;
                s.spawn(move || play_online(server, i + 1))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    trips.sort_unstable();
    let p = |q: f64| trips[((trips.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
    eprintln!(
        "200 online games, {} moves in {:.1} s: round trip p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; server RSS {} KiB",
        trips.len(),
        started.elapsed().as_secs_f64(),
        p(0.5),
        p(0.99),
        p(1.0),
        rss_kib(&server).map_or("?".into(), |k| k.to_string())
    );
    // The issue's figures hold for an optimised build (see docs/benchmarks.md); a debug
    // build only has to stay responsive.
    let (p99_limit, rss_limit_mb) = if cfg!(debug_assertions) {
        (1000.0, 1000)
    } else {
        (50.0, 300)
    };
    assert!(
        p(0.99) < p99_limit,
        "p99 {:.2} ms under {p99_limit} ms",
        p(0.99)
    );
    if let Some(kib) = rss_kib(&server) {
        assert!(
            kib < rss_limit_mb * 1024,
            "RSS {kib} KiB under {rss_limit_mb} MB"
        );
    }
}

/// CPU time (user + system, in clock ticks) of each thread of process `pid` by its name.
fn thread_cpu_ticks(pid: u32) -> Vec<(String, u64)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| {
            let stat = std::fs::read_to_string(t.path().join("stat")).ok()?;
            // The name is in parentheses; fields after it are space-separated, utime and
            // stime being the 12th and 13th after the state.
            let open = stat.find('(')?;
            let close = stat.rfind(')')?;
            let name = stat[open + 1..close].to_string();
            let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
            let ticks =
                fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
            Some((name, ticks))
        })
        .collect()
}

#[test]
#[ignore = "load test: 20 games against level 10 on 2 search threads (cargo test --release --test serve -- --ignored)"]
fn load_20_engine_games_share_the_search_threads() {
    let server = start(&temp_db("load-engine"), &["--threads", "2"]);
    let pid = server.child.id();
    let pool_threads = || {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .map(|tasks| {
                tasks
                    .filter_map(|t| t.ok())
                    .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
                    .filter(|c| c.starts_with("outflank-pool"))
                    .count()
            })
            .unwrap_or(0)
    };
    let started = Instant::now();
    let results: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let server = &server;
                s.spawn(move || {
                    let c = post(server, "/api/games", json!({"mode": "engine", "level": 10}));
                    let (mut ws, state) =
                        hello(server, c["id"].as_str().unwrap(), c["token"].as_str());
                    play_out_against_engine(&mut ws, state, "black", &mut Lcg(i + 1))
                })
            })
            .collect();
        // The searches run on the pool's two threads, however many games wait.
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(pool_threads(), 2, "two search threads");
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.iter().all(|r| r["result"]["reason"] == "end"));
    // Every search ran on the engines' search threads, one per pool worker: no more of them
    // than --threads, and the other threads (HTTP, WebSocket, the store, the pool's own
    // dispatch) spent a small part of the CPU time the searches did.
    let ticks = thread_cpu_ticks(pid);
    let searching = |n: &str| n.starts_with("outflank-search");
    let search_threads = ticks.iter().filter(|(n, _)| searching(n)).count();
    let search: u64 = ticks
        .iter()
        .filter(|(n, _)| searching(n))
        .map(|(_, t)| t)
        .sum();
    let other: u64 = ticks
        .iter()
        .filter(|(n, _)| !searching(n))
        .map(|(_, t)| t)
        .sum();
    assert!((1..=2).contains(&search_threads), "{ticks:?}");
    assert!(
        other * 5 < search,
        "searches off the search threads? {ticks:?}"
    );
    let wall = started.elapsed().as_secs_f64();
    eprintln!(
        "20 games against level 10 on 2 threads: {wall:.1} s; CPU: {search_threads} search threads {search} ticks, other threads {other}; server RSS {} KiB",
        rss_kib(&server).map_or("?".into(), |k| k.to_string())
    );
}

#[test]
fn a_connection_that_never_says_hello_is_closed() {
    let server = start(&temp_db("nohello"), &[]);
    let created = post(&server, "/api/games", json!({"mode": "local"}));
    let mut ws = connect(&server, created["id"].as_str().unwrap());
    let t = Instant::now();
    let code = match ws.read() {
        Ok(Message::Close(Some(f))) => u16::from(f.code),
        Ok(m) => panic!("nothing before hello, got {m:?}"),
        Err(e) => panic!("a close frame, got {e}"),
    };
    assert_eq!(code, 1008);
    assert!(t.elapsed() >= Duration::from_secs(9), "{:?}", t.elapsed());
}

#[test]
fn undo_and_resign_against_a_clocked_engine_and_a_foreign_origin_refused() {
    let server = start(&temp_db("undo"), &["--book", "off"]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "engine", "color": "black", "time": 30, "increment": 1}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let (mut ws, state) = hello(&server, &id, created["token"].as_str());
    assert_eq!(
        state["clocks"]["black"],
        json!(30.0),
        "the person's clock too"
    );
    assert_eq!(state["clocks"]["white"], json!(30.0));
    assert_eq!(state["clocks"]["running"], "black", "{state}");
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    let mut s = next_of(&mut ws, "state");
    while s["ply"] != 2 {
        s = next_of(&mut ws, "state");
    }
    assert!(s["clocks"]["white"].as_f64().unwrap() < 31.0);
    assert_eq!(s["clocks"]["running"], "black", "{s}");
    assert!(
        s["clocks"]["black"].as_f64().unwrap() > 30.0,
        "the person's increment: {s}"
    );
    assert!(
        s["evals"][1].is_number(),
        "the engine's score for the graph: {s}"
    );
    send(&mut ws, json!({"type": "undo"}));
    let s = next_of(&mut ws, "state");
    assert_eq!(s["ply"], 0, "back to before the person's move");
    assert_eq!(s["to_move"], "black");
    send(&mut ws, json!({"type": "undo"}));
    next_of(&mut ws, "error");
    send(&mut ws, json!({"type": "resign"}));
    let s = next_of(&mut ws, "state");
    assert_eq!(s["result"]["reason"], "resign");
    assert_eq!(s["result"]["winner"], "white");
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    next_of(&mut ws, "error");
    // Another site's page may not create games.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let body = r#"{"mode": "local"}"#;
    write!(
        s,
        "POST /api/games HTTP/1.1\r\nHost: {}\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("content-security-policy"),
        "{text}"
    );
}

#[test]
fn a_restart_while_the_engine_thinks_lets_it_move_again() {
    let db = temp_db("restart-engine");
    let server = start(&db, &["--book", "off"]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "engine", "color": "black", "time": 120}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap().to_string();
    let (mut ws, _) = hello(&server, &id, Some(&token));
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    let s = next_of(&mut ws, "state");
    assert_eq!(s["ply"], 1);
    assert_eq!(
        s["thinking"], true,
        "a clock of 2 minutes: the engine searches"
    );
    drop(ws);
    drop(server);
    let server = start(&db, &["--book", "off"]);
    let (mut ws, mut s) = hello(&server, &id, Some(&token));
    assert_eq!(s["moves"], json!(["f5"]));
    while s["ply"] == 1 {
        assert_eq!(s["thinking"], true);
        s = next_of(&mut ws, "state");
    }
    assert_eq!(s["ply"], 2, "the engine moved after the restart");
    assert_eq!(s["to_move"], "black");
}

#[path = "serve/review.rs"]
mod review;
