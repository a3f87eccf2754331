//! `outflank ugi` driven over pipes as a UGI tournament manager drives it
//! (`../shared/docs/protocols.md`): the handshake and the manager's own options, openings as
//! FENs with either side to move, the whole history re-sent before every move, passes as
//! `0000`, the game's end learned only from `query`, many games in one process; and the
//! searches (`depth`, `nodes`, `movetime`, `infinite` with `stop`), and bad input.
//!
//! The referee here knows no Othello rules, as the manager does not; the library checks
//! every move it relays and every answer to `query` against its own board.

mod protocol_util;

use outflank::notation::{fen, parse_fen};
use outflank::{Color, Game, Move, Position};
use protocol_util::{Engine, game_before_pass, game_with_empties, run_piped};
use std::time::{Duration, Instant};

/// An engine after the handshake (`ugi` ... `ugiok`), with the book off unless `args` say
/// otherwise.
fn start(args: &[&str]) -> Engine {
    let mut all = vec!["ugi"];
    if !args.iter().any(|a| a.starts_with("--book")) {
        all.extend_from_slice(&["--book", "off"]);
    }
    all.extend_from_slice(args);
    let mut e = Engine::start(&all);
    e.send("ugi");
    let lines = e.until(|l| l == "ugiok");
    assert!(lines[0].starts_with("id name Outflank"), "{lines:?}");
    e
}

/// Sends `isready` and expects `readyok` as the very next line.
fn ready(e: &mut Engine) {
    e.send("isready");
    assert_eq!(e.line(), "readyok");
}

/// Sends `query Q` and reads its `response X`: exactly two words.
fn query(e: &mut Engine, q: &str) -> String {
    e.send(&format!("query {q}"));
    let l = e.line();
    let words: Vec<&str> = l.split_whitespace().collect();
    match words[..] {
        ["response", x] => x.to_string(),
        // `query fen` answers the FEN's two fields.
        ["response", board, side] if q == "fen" => format!("{board} {side}"),
        _ => panic!("query {q}: {l:?}"),
    }
}

/// Reads up to `bestmove`: every line before it is an `info` line; the answer is exactly
/// two words. Returns the move as sent and the `info` lines.
fn bestmove(e: &mut Engine) -> (String, Vec<String>) {
    let mut lines = e.until(|l| l.starts_with("bestmove"));
    let last = lines.pop().unwrap();
    for l in &lines {
        assert!(l.starts_with("info depth "), "{l:?}");
    }
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 2, "bestmove is two words: {last:?}");
    (words[1].to_string(), lines)
}

fn ugi_move(mv: Move) -> String {
    match mv {
        Move::Play(sq) => sq.to_string(),
        Move::Pass => "0000".to_string(),
    }
}

fn read_ugi_move(s: &str) -> Move {
    if s == "0000" {
        Move::Pass
    } else {
        s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }
}

/// The `position` command of an opening (`startpos` or a FEN) and the moves so far.
fn position_command(opening: &str, moves: &[String]) -> String {
    let mut cmd = format!("position {opening}");
    if !moves.is_empty() {
        cmd.push_str(" moves ");
        cmd.push_str(&moves.join(" "));
    }
    cmd
}

/// One game as the manager plays it: the opening (`startpos` or `fen BOARD SIDE`), two
/// engines (black = p1 first), each clock `ms` milliseconds plus `inc` a move, charged
/// from sending `go` to reading `bestmove`, as the manager times it. The manager learns
/// the turn, the end and the result only from the p1 engine's answers; the library checks
/// each of them and each move. Returns the moves and the result.
fn manager_game(engines: &mut [Engine; 2], opening: &str, ms: u64, inc: u64) -> (Game, String) {
    let start = match opening.strip_prefix("fen ") {
        Some(f) => parse_fen(f).unwrap(),
        None => Position::start(),
    };
    let mut game = Game::new(start);
    for e in engines.iter_mut() {
        e.send("uginewgame");
        ready(e);
    }
    let mut moves: Vec<String> = Vec::new();
    let mut clock = [ms as i64, ms as i64];
    loop {
        let cmd = position_command(opening, &moves);
        engines[0].send(&cmd);
        let over = query(&mut engines[0], "gameover");
        assert_eq!(over, game.is_over().to_string(), "gameover after {cmd}");
        if over == "true" {
            break;
        }
        let p1 = query(&mut engines[0], "p1turn");
        let to_move = game.position().to_move;
        assert_eq!(
            p1,
            (to_move == Color::Black).to_string(),
            "p1turn after {cmd}"
        );
        let i = if p1 == "true" { 0 } else { 1 };
        let e = &mut engines[i];
        e.send(&cmd);
        ready(e);
        let t0 = Instant::now();
        e.send(&format!(
            "go p1time {} p2time {} p1inc {inc} p2inc {inc}",
            clock[0], clock[1]
        ));
        let (mv, _) = bestmove(e);
        let used = t0.elapsed().as_millis() as i64;
        clock[i] -= used;
        assert!(clock[i] > 0, "{mv} lost on time ({} ms over)", -clock[i]);
        clock[i] += inc as i64;
        let m = read_ugi_move(&mv);
        game.play(m)
            .unwrap_or_else(|err| panic!("{mv} after {cmd}: {err}"));
        if m == Move::Pass {
            assert!(game.positions()[game.len() - 1].board.must_pass());
        }
        moves.push(mv);
        assert!(moves.len() < 130, "a game ends");
    }
    let result = query(&mut engines[0], "result");
    engines[1].send(&position_command(opening, &moves));
    assert_eq!(
        query(&mut engines[1], "result"),
        result,
        "the engines agree"
    );
    let want = match game.result().unwrap() {
        d if d > 0 => "p1win",
        d if d < 0 => "p2win",
        _ => "draw",
    };
    assert_eq!(result, want);
    (game, result)
}

#[test]
fn handshake_lists_the_options_and_ignores_the_managers_own() {
    let mut e = Engine::start(&["ugi", "--threads", "1"]);
    e.send("ugi");
    let lines = e.until(|l| l == "ugiok");
    assert!(lines[0].starts_with("id name Outflank "), "{lines:?}");
    for name in ["Threads", "Hash", "OwnBook", "Level", "Depth"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {name} type "))),
            "{name}: {lines:?}"
        );
    }
    // The manager's settings, listed or not: no answer on stdout.
    for s in [
        "setoption name hash value 16",
        "setoption name threads value 1",
        "setoption name ownbook value false",
        "setoption name UCI_Chess960 value true",
        "setoption name Clear Hash",
        "setoption name Level value 2",
    ] {
        e.send(s);
    }
    ready(&mut e);
    e.send("position startpos");
    e.send("go");
    let (mv, _) = bestmove(&mut e);
    assert!(["f5", "e6", "d3", "c4"].contains(&mv.as_str()), "{mv}");
    e.send("quit");
    assert!(
        e.wait_exit(Duration::from_secs(10))
            .is_some_and(|s| s.success())
    );
}

/// Four games in the same two processes: from the start, from a FEN with white to move,
/// from a FEN of an odd number of discs with black to move (nothello's openings have such
/// positions), and from a random game's position with 24 discs. Clocks of 3 s and 50 ms a move, which neither
/// engine overruns.
#[test]
fn games_as_the_manager_plays_them() {
    let mut engines = [start(&[]), start(&[])];
    let after = |moves: &str| {
        let mut p = Position::start();
        for i in (0..moves.len()).step_by(2) {
            p = p.play(moves[i..i + 2].parse().unwrap()).unwrap();
        }
        format!("fen {}", fen(&p))
    };
    let openings = [
        "startpos".to_string(),
        "fen 8/8/8/3ox3/3xo3/8/8/8 o".to_string(),
        after("f5d6c3"),
        format!("fen {}", fen(&game_with_empties(5, 40).position())),
    ];
    assert!(openings[2].ends_with(" o"), "{}", openings[2]);
    let mut results = Vec::new();
    for o in &openings {
        let (game, result) = manager_game(&mut engines, o, 3000, 50);
        assert!(game.is_over());
        results.push(result);
    }
    assert_eq!(results.len(), 4);
    for mut e in engines {
        e.send("quit");
        assert!(e.wait_exit(Duration::from_secs(10)).is_some());
    }
}

/// A side with no move hears `bestmove 0000` at once, whatever the search it was asked for;
/// the pass goes into the history as `0000`, and the other side then moves.
#[test]
fn a_side_without_a_move_answers_0000_and_the_pass_is_a_move() {
    let mut e = start(&[]);
    for seed in [3, 11, 29] {
        let g = game_before_pass(seed);
        let moves: Vec<String> = g.moves().iter().map(|&m| ugi_move(m)).collect();
        let cmd = position_command("startpos", &moves);
        e.send(&cmd);
        let to_move = g.position().to_move;
        assert_eq!(
            query(&mut e, "p1turn"),
            (to_move == Color::Black).to_string()
        );
        assert_eq!(query(&mut e, "gameover"), "false");
        let t0 = Instant::now();
        e.send("go depth 30");
        assert_eq!(bestmove(&mut e).0, "0000", "{cmd}");
        assert!(t0.elapsed() < Duration::from_secs(2), "at once");
        let mut with_pass = moves.clone();
        with_pass.push("0000".to_string());
        e.send(&position_command("startpos", &with_pass));
        assert_eq!(
            query(&mut e, "p1turn"),
            (to_move != Color::Black).to_string(),
            "0000 hands the turn over"
        );
        e.send("go depth 2");
        let (mv, _) = bestmove(&mut e);
        let after = g.position().play(Move::Pass).unwrap();
        after
            .play(read_ugi_move(&mv))
            .expect("a legal move after the pass");
        // A square for the side after the pass, without the 0000: nothing is skipped.
        let mut skipped = moves.clone();
        skipped.push(mv.clone());
        e.send(&position_command("startpos", &skipped));
        assert_eq!(
            query(&mut e, "p1turn"),
            (to_move != Color::Black).to_string(),
            "refused: the position with the pass stays"
        );
    }
    // At the end of a game: `0000`, and the result.
    let mut g = g_finished();
    let moves: Vec<String> = g.moves().iter().map(|&m| ugi_move(m)).collect();
    e.send(&position_command("startpos", &moves));
    assert_eq!(query(&mut e, "gameover"), "true");
    e.send("go p1time 1000 p2time 1000");
    assert_eq!(bestmove(&mut e).0, "0000");
    let want = match g.result().unwrap() {
        d if d > 0 => "p1win",
        d if d < 0 => "p2win",
        _ => "draw",
    };
    assert_eq!(query(&mut e, "result"), want);
    g.undo();
    e.send(&position_command(
        "startpos",
        &g.moves().iter().map(|&m| ugi_move(m)).collect::<Vec<_>>(),
    ));
    assert_eq!(query(&mut e, "result"), "none");
}

/// A random game played to its end.
fn g_finished() -> Game {
    let mut rng = protocol_util::Rng(12345);
    let mut g = Game::default();
    while protocol_util::random_move(&mut g, &mut rng) {}
    g
}

#[test]
fn searches_by_depth_nodes_time_and_until_stop() {
    let mut e = start(&[]);
    e.send("position startpos moves f5 d6 c3 d3 c4");
    e.send("go depth 5");
    let (_, infos) = bestmove(&mut e);
    let last = infos.last().expect("info lines");
    assert!(last.starts_with("info depth 5 score cp "), "{last}");
    assert!(last.contains(" pv "), "{last}");
    e.send("go nodes 20000");
    let (_, infos) = bestmove(&mut e);
    let nodes: u64 = infos
        .last()
        .unwrap()
        .split_whitespace()
        .skip_while(|w| *w != "nodes")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(nodes < 200_000, "{infos:?}");
    let t0 = Instant::now();
    e.send("go movetime 300");
    bestmove(&mut e);
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(3), "{took:?}");
    // Infinite: no answer before `stop`, one at once after it.
    e.send("go infinite");
    let deadline = Instant::now() + Duration::from_millis(1500);
    while let Some(l) = e.try_line(deadline.saturating_duration_since(Instant::now())) {
        assert!(l.starts_with("info "), "nothing but info before stop: {l}");
    }
    // `isready` is answered during the search, which goes on.
    e.send("isready");
    let lines = e.until(|l| l == "readyok");
    let before = &lines[..lines.len() - 1];
    assert!(before.iter().all(|l| l.starts_with("info ")), "{lines:?}");
    let t0 = Instant::now();
    e.send("stop");
    bestmove(&mut e);
    assert!(t0.elapsed() < Duration::from_secs(5));
    // It is still the same position: `go` does not play its move.
    assert_eq!(
        query(&mut e, "fen"),
        fen(&{
            let mut p = Position::start();
            for m in ["f5", "d6", "c3", "d3", "c4"] {
                p = p.play(m.parse().unwrap()).unwrap();
            }
            p
        })
    );
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(10)).is_some());
}

/// Bad input: one line on stderr each, never a word on stdout that the manager would read
/// as an answer, and the position stays what it was.
#[test]
fn bad_input_goes_to_stderr_and_changes_nothing() {
    let long = "x".repeat(2 << 20);
    let script = format!(
        "position startpos moves f5 d6\n\
         position startpos moves f5 d6 a1\n\
         position startpos moves f5 d6 zz\n\
         position startpos moves 0000\n\
         position fen 8/8/8/3ox3/3xo3/8/8 x\n\
         position fen 8/8/8/3ox3/3xo3/8/8/8 b\n\
         position fen 8/8/8/3ox3/3xq3/8/8/8 x moves f5\n\
         position sideways\n\
         go depth 99\n\
         go banana 3\n\
         query winner\n\
         setoption name Threads value 0\n\
         setoption name Hash value lots\n\
         {long}\n\
         \u{1}\u{2}garbage\u{ff}\n\
         ucinewgame\n\
         query fen\n\
         query p1turn\n\
         isready\n\
         quit\n"
    );
    let out = run_piped(&["ugi", "--book", "off"], &script);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let after = Position::start()
        .play("f5".parse().unwrap())
        .unwrap()
        .play("d6".parse().unwrap())
        .unwrap();
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        vec![
            format!("response {}", fen(&after)).as_str(),
            "response true",
            "readyok"
        ],
        "stderr: {stderr}"
    );
    let complaints: Vec<&str> = stderr.lines().collect();
    assert_eq!(complaints.len(), 15, "one line each: {stderr}");
    for c in &complaints {
        assert!(c.starts_with("outflank ugi: "), "{c}");
        assert!(c.len() < 200, "{c}");
    }
    for want in [
        "move 3 (a1) is illegal",
        "\"zz\" is not a move",
        "illegal pass",
        "8 rows",
        "not x or o",
        "depths are 1-60",
        "unknown parameter",
        "threads wants",
        "hash wants",
        "bytes",
        "unknown command \"ucinewgame\"",
    ] {
        assert!(stderr.contains(want), "{want}: {stderr}");
    }
}

/// `uginewgame` starts over from the start position; a process plays game after game.
#[test]
fn a_new_game_starts_from_the_start() {
    let mut e = start(&[]);
    e.send("position startpos moves f5 d6");
    e.send("uginewgame");
    assert_eq!(query(&mut e, "fen"), fen(&Position::start()));
    e.send("position fen 8/8/8/3ox3/3xo3/8/8/8 o");
    assert_eq!(query(&mut e, "p1turn"), "false");
    e.send("go depth 3");
    let (mv, _) = bestmove(&mut e);
    let white_start = parse_fen("8/8/8/3ox3/3xo3/8/8/8 o").unwrap();
    white_start.play(read_ugi_move(&mv)).expect("white's move");
}

/// `--eval-file` reaches the front-end's engine (through the options, not a process-wide
/// setting): the hand-set weights (`train hand`) score a position otherwise than the shipped
/// ones, and the same file twice scores it alike.
#[test]
fn eval_file_reaches_the_engine() {
    let dir = std::env::temp_dir().join(format!("outflank-ugi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hand = dir.join("hand.ofw");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["train", "hand", "--out", hand.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let score = |args: &[&str]| -> String {
        let mut e = start(args);
        e.send("position startpos moves f5 d6 c3 d3 c4 f4 f6 f3 e6 e7");
        e.send("go depth 6");
        let (_, infos) = bestmove(&mut e);
        let last = infos.last().expect("info lines").clone();
        // The score and the principal variation (nodes and times aside).
        let (score, rest) = last.split_once(" nodes ").unwrap();
        format!("{score} pv {}", rest.split(" pv ").nth(1).unwrap())
    };
    let shipped = score(&[]);
    let with_hand = score(&["--eval-file", hand.to_str().unwrap()]);
    assert_ne!(shipped, with_hand);
    assert_eq!(score(&["--eval-file", hand.to_str().unwrap()]), with_hand);
}

/// `--probcut-file` reaches the front-end's engine as `--eval-file` does: parameters that
/// never cut (a sigma of 60 discs) search more nodes to the same depth than the shipped
/// ones, and a copy of the shipped file searches exactly as none; a file that is not probcut
/// parameters is refused at start, naming it.
#[test]
fn probcut_file_reaches_the_engine() {
    let dir = std::env::temp_dir().join(format!("outflank-ugi-pc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shipped_text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/probcut.json"))
            .unwrap();
    let copy = dir.join("copy.json");
    std::fs::write(&copy, &shipped_text).unwrap();
    let mut wide: serde_json::Value = serde_json::from_str(&shipped_text).unwrap();
    wide["sigma"] = serde_json::json!([60.0, 0.0, 0.0, 0.0]);
    wide["sigma_table"] = serde_json::json!([]);
    let wide_path = dir.join("wide.json");
    std::fs::write(&wide_path, wide.to_string()).unwrap();
    let nodes = |args: &[&str]| -> u64 {
        let mut e = start(args);
        e.send("position startpos moves f5 d6 c3 d3 c4 f4 f6 f3 e6 e7");
        e.send("go depth 10");
        let (_, infos) = bestmove(&mut e);
        let last = infos.last().expect("info lines");
        let words: Vec<&str> = last.split_whitespace().collect();
        let at = words
            .iter()
            .position(|&w| w == "nodes")
            .expect("a node count");
        words[at + 1].parse().expect("a number of nodes")
    };
    let shipped = nodes(&[]);
    assert_eq!(nodes(&["--probcut-file", copy.to_str().unwrap()]), shipped);
    let never_cut = nodes(&["--probcut-file", wide_path.to_str().unwrap()]);
    assert!(never_cut > shipped, "{never_cut} nodes, shipped {shipped}");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"a\": 1}").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["ugi", "--probcut-file", bad.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("not probcut parameters"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing on the protocol's stdout");
}
