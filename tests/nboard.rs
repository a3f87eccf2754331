//! `outflank nboard` driven over pipes: the GUI's exact command order, whole games, hints,
//! ping ordering and interruption, passes, clocks, and hostile input.

mod protocol_util;

use outflank::notation::{GgfGame, parse_ggf};
use outflank::{Game, Move};
use protocol_util::{Engine, Rng, game_before_pass, game_with_empties, read_move, run_piped};
use std::time::{Duration, Instant};

const START: &str = "(;GM[Othello]PC[NBoard]PB[me]PW[engine]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)";

/// An engine after the handshake. The book is off unless `args` say otherwise: most of
/// these tests are about the search, and the book would answer the opening at once.
fn start(args: &[&str]) -> Engine {
    let mut all = vec!["nboard"];
    if !args.iter().any(|a| a.starts_with("--book")) {
        all.extend_from_slice(&["--book", "off"]);
    }
    all.extend_from_slice(args);
    let mut e = Engine::start(&all);
    e.send("nboard 2");
    assert_eq!(e.line(), "set myname Outflank");
    e
}

/// Sends `ping n` and reads up to its `pong`, returning the lines before it.
fn ping(e: &mut Engine, n: u32) -> Vec<String> {
    e.send(&format!("ping {n}"));
    let mut lines = e.until(|l| l.starts_with("pong"));
    assert_eq!(lines.pop().unwrap(), format!("pong {n}"));
    lines
}

/// Reads a `===` line after `go`: the move, its eval and time. Checks what comes before.
fn read_go(e: &mut Engine) -> (Move, f64, f64) {
    let lines = e.until(|l| l.starts_with("=== "));
    for l in &lines[..lines.len() - 1] {
        assert!(
            l.starts_with("search ") || l.starts_with("nodestats ") || l.starts_with("status"),
            "unexpected {l:?}"
        );
    }
    assert!(
        lines.iter().any(|l| l.starts_with("nodestats ")),
        "{lines:?}"
    );
    let last = lines.last().unwrap();
    let parts: Vec<&str> = last[4..].split('/').collect();
    assert_eq!(parts.len(), 3, "{last}");
    let mv = read_move(parts[0]);
    assert_eq!(parts[0], parts[0].to_ascii_uppercase(), "{last}");
    let eval: f64 = parts[1].parse().expect("an eval");
    let time: f64 = parts[2].parse().expect("a time");
    (mv, eval, time)
}

/// Checks a `search` line: PV, eval, `0`, depth. Returns (pv, eval, depth text).
fn check_search(line: &str) -> (String, f64, String) {
    let f: Vec<&str> = line.split_whitespace().collect();
    assert!(f.len() >= 5 && f[0] == "search", "{line}");
    let pv = f[1].to_string();
    assert!(pv.len() >= 2 && pv.len().is_multiple_of(2), "{line}");
    let eval: f64 = f[2].parse().unwrap_or_else(|_| panic!("eval in {line}"));
    assert!(!f[2].contains(['e', 'E', ',']), "{line}");
    assert_eq!(f[3], "0", "{line}");
    let depth = f[4].to_string();
    assert!(depth.starts_with(|c: char| c.is_ascii_digit()), "{line}");
    (pv, eval, depth)
}

fn ggf_of(game: &Game) -> String {
    GgfGame::from_game(game).to_ggf()
}

#[test]
fn whole_game_in_the_guis_command_order() {
    // The engine plays both sides: `set game` once, then `move` for each move, `set depth`,
    // `ping K`, `go`; the move comes back with `move MV/EVAL/TIME`.
    let mut e = start(&[]);
    e.send(&format!("set game {START}"));
    e.send("set depth 2");
    let mut game = Game::default();
    let mut k = 0;
    while !game.is_over() {
        k += 1;
        let before = ping(&mut e, k);
        assert!(before.is_empty(), "{before:?}");
        e.send("go");
        let (mv, eval, time) = read_go(&mut e);
        game.play(mv).unwrap_or_else(|err| panic!("{mv}: {err}"));
        e.send(&format!(
            "move {}/{eval:.2}/{time:.2}",
            mv.to_string().to_uppercase()
        ));
    }
    k += 1;
    ping(&mut e, k);
    // The engine's game agrees: analysing it gives one line per position.
    e.send("analyze");
    let lines = e.until(|l| l == "status");
    let analysis: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("analysis "))
        .collect();
    assert_eq!(analysis.len(), game.len() + 1, "{lines:?}");
    let last = format!("analysis {} ", game.len());
    let final_line = analysis.iter().find(|l| l.starts_with(&last)).unwrap();
    let pos = game.position();
    let want = pos.board.final_score() as f64;
    let got: f64 = final_line[last.len()..].parse().unwrap();
    assert_eq!(got, want);
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(5)).is_some());
}

#[test]
fn go_does_not_apply_the_move_and_answers_the_side_to_move() {
    let mut e = start(&["--level", "2"]);
    e.send(&format!("set game {START}"));
    ping(&mut e, 1);
    e.send("go");
    let (first, _, _) = read_go(&mut e);
    // Not applied: asking again gives a black move again.
    ping(&mut e, 2);
    e.send("go");
    let (second, _, _) = read_go(&mut e);
    let start = Game::default();
    assert!(start.position().play(first).is_ok());
    assert!(start.position().play(second).is_ok());
    // After `move`, it is white's turn.
    e.send("move F5//1.5");
    ping(&mut e, 3);
    e.send("go");
    let (mv, _, _) = read_go(&mut e);
    let mut g = Game::default();
    g.play("f5".parse().unwrap()).unwrap();
    assert!(g.position().play(mv).is_ok(), "{mv}");
}

#[test]
fn set_game_ending_in_a_pass_is_answered_for_the_right_side() {
    for seed in 1..4 {
        let before = game_before_pass(seed);
        let passer = before.to_move();
        let mut with_pass = before.clone();
        with_pass.play(Move::Pass).unwrap();
        let text = ggf_of(&with_pass);
        let pa = match passer {
            outflank::Color::Black => "B[PA];)",
            outflank::Color::White => "W[PA];)",
        };
        assert!(text.ends_with(pa), "{text}");
        let mut e = start(&["--level", "2"]);
        e.send(&format!("set game {text}"));
        e.send("set depth 2");
        ping(&mut e, 1);
        e.send("go");
        let (mv, _, _) = read_go(&mut e);
        assert_ne!(mv, Move::Pass, "answered a pass after {text}");
        assert!(with_pass.position().play(mv).is_ok(), "{mv} after {text}");
        // Without the trailing pass, the side to move must pass: `=== PA`.
        e.send(&format!("set game {}", ggf_of(&before)));
        ping(&mut e, 2);
        e.send("go");
        assert_eq!(read_go(&mut e).0, Move::Pass);
        // `move PA` then `go`: the other side's move again.
        e.send("move PA");
        ping(&mut e, 3);
        e.send("go");
        let (mv, _, _) = read_go(&mut e);
        assert!(with_pass.position().play(mv).is_ok());
        // A move for the other side without the pass: the pass is implied.
        e.send(&format!("set game {}", ggf_of(&before)));
        e.send(&format!("move {}", mv.to_string().to_uppercase()));
        ping(&mut e, 4);
        e.send("analyze");
        let lines = e.until(|l| l == "status");
        let n = lines.iter().filter(|l| l.starts_with("analysis ")).count();
        assert_eq!(n, before.len() + 3, "{lines:?}");
    }
}

#[test]
fn hint_reports_the_best_moves_as_each_depth_completes() {
    let mut e = start(&[]);
    e.send(&format!("set game {START}"));
    e.send("set depth 4");
    ping(&mut e, 1);
    e.send("hint 3");
    let lines = e.until(|l| l == "status");
    assert_eq!(lines[0], "status Analyzing");
    let searches: Vec<(String, f64, String)> = lines
        .iter()
        .filter(|l| l.starts_with("search "))
        .map(|l| check_search(l))
        .collect();
    // Three moves per depth, depths 1 to 4.
    assert_eq!(searches.len(), 12, "{lines:?}");
    for (i, (pv, _, depth)) in searches.iter().enumerate() {
        assert_eq!(depth, &(i / 3 + 1).to_string());
        let first = &pv[..2];
        assert_eq!(first, first.to_ascii_uppercase());
        assert!(["D3", "C4", "F5", "E6"].contains(&first), "{pv}");
    }
    assert!(lines.iter().any(|l| l.starts_with("nodestats ")));
    // hint 64 on four moves: four lines a depth.
    ping(&mut e, 2);
    e.send("set depth 1");
    e.send("hint 64");
    let lines = e.until(|l| l == "status");
    assert_eq!(lines.iter().filter(|l| l.starts_with("search ")).count(), 4);
}

#[test]
fn solved_depths_are_written_as_percentages() {
    // Level 5 solves exactly from 10 empties and win/loss/draw from 12.
    let exact = game_with_empties(5, 10);
    let mut e = start(&[]);
    e.send(&format!("set game {}", ggf_of(&exact)));
    e.send("set depth 5");
    ping(&mut e, 1);
    e.send("hint 2");
    let lines = e.until(|l| l == "status");
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("search "))
        .unwrap();
    let (_, eval, depth) = check_search(last);
    assert_eq!(depth, "100%", "{lines:?}");
    assert_eq!(eval.fract(), 0.0);
    let wld = game_with_empties(6, 12);
    e.send(&format!("set game {}", ggf_of(&wld)));
    ping(&mut e, 2);
    e.send("hint 1");
    let lines = e.until(|l| l == "status");
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("search "))
        .unwrap();
    let (_, eval, depth) = check_search(last);
    assert_eq!(depth, "100%W", "{lines:?}");
    assert!([-1.0, 0.0, 1.0].contains(&eval), "{last}");
    // A forced pass: the PV starts with PA.
    let before = game_before_pass(4);
    e.send(&format!("set game {}", ggf_of(&before)));
    ping(&mut e, 3);
    e.send("hint 4");
    let lines = e.until(|l| l == "status");
    let searches: Vec<&String> = lines.iter().filter(|l| l.starts_with("search ")).collect();
    assert!(!searches.is_empty());
    for l in searches {
        assert!(check_search(l).0.starts_with("PA"), "{l}");
    }
}

#[test]
fn pong_comes_after_earlier_work_and_nothing_follows_it() {
    let mut e = start(&[]);
    e.send(&format!("set game {START}"));
    e.send("set depth 5");
    e.send("ping 1");
    e.send("hint 4");
    e.send("ping 2");
    e.send("go");
    e.send("ping 3");
    let lines = e.until(|l| l == "pong 3");
    let at = |s: &str| lines.iter().position(|l| l == s).unwrap();
    assert!(at("pong 1") < at("pong 2"));
    // Between pong 2 and pong 3 only what `go` wrote; nothing of the hint after pong 2.
    let hint_part = &lines[at("pong 1") + 1..at("pong 2")];
    assert!(
        hint_part.iter().all(|l| l.starts_with("search")
            || l.starts_with("status")
            || l.starts_with("nodestats"))
    );
    let go_part = &lines[at("pong 2") + 1..at("pong 3")];
    assert!(go_part.iter().any(|l| l.starts_with("=== ")), "{go_part:?}");
    // Nothing arrives after the last pong.
    assert_eq!(e.try_line(Duration::from_millis(300)), None);
}

#[test]
fn ping_interrupts_a_long_hint_at_once() {
    let mut e = start(&[]);
    e.send(&format!("set game {START}"));
    e.send("set depth 60");
    ping(&mut e, 1);
    e.send("hint 4");
    assert_eq!(e.line(), "status Analyzing");
    std::thread::sleep(Duration::from_millis(500));
    let t = Instant::now();
    ping(&mut e, 2);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "pong after {:?}",
        t.elapsed()
    );
    // And a long `go` without a clock, the same way.
    let no_clock = START.replace("TI[15:00]", "");
    e.send(&format!("set game {no_clock}"));
    ping(&mut e, 3);
    e.send("go");
    std::thread::sleep(Duration::from_millis(500));
    let t = Instant::now();
    e.send("ping 4");
    let lines = e.until(|l| l == "pong 4");
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(lines.iter().any(|l| l.starts_with("=== ")), "{lines:?}");
    // quit during a search exits at once too.
    e.send("hint 1");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(2)).is_some());
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn piped_commands_get_full_answers_before_the_end_of_input() {
    // The end of the input comes in its turn: a script's hint and go are answered as a GUI
    // that keeps stdin open gets them (fixed level, one thread: deterministic), and the
    // engine exits after them.
    let game = START.replace(";)", "B[F5]W[D6];)");
    let commands = [
        format!("set game {game}"),
        "set depth 11".to_string(),
        "hint 3".to_string(),
        "go".to_string(),
    ];
    // nodestats carry a time: compare the rest.
    let answers = |lines: Vec<String>| -> Vec<String> {
        lines
            .into_iter()
            .filter(|l| !l.starts_with("nodestats "))
            .map(|l| match l.strip_prefix("=== ") {
                // The move and its eval; not the time.
                Some(m) => m.rsplit_once('/').expect("MV/EVAL/TIME").0.to_string(),
                None => l,
            })
            .collect()
    };
    let mut e = start(&["--threads", "1"]);
    for c in &commands {
        e.send(c);
    }
    let mut held = e.until(|l| l.starts_with("=== "));
    assert!(held.iter().any(|l| l.ends_with(" 11")), "{held:?}");
    held.insert(0, "set myname Outflank".to_string());
    let script: String = std::iter::once("nboard 2".to_string())
        .chain(commands.iter().cloned())
        .map(|c| c + "\n")
        .collect();
    let out = run_piped(&["nboard", "--book", "off", "--threads", "1"], &script);
    assert!(out.status.success());
    let piped: Vec<String> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(answers(piped), answers(held));
}

#[test]
fn the_game_clock_limits_go() {
    // Two seconds for the whole game: the move comes well within it.
    let mut e = start(&[]);
    let text = START.replace("TI[15:00]", "TI[00:02]");
    e.send(&format!("set game {text}"));
    e.send("set depth 60");
    ping(&mut e, 1);
    let t = Instant::now();
    e.send("go");
    let (mv, _, secs) = read_go(&mut e);
    assert!(matches!(mv, Move::Play(_)));
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert!(secs < 1.0);
    // Per-player clocks and move times: white has used almost all of its minute.
    let mut g = Game::default();
    g.play("f5".parse().unwrap()).unwrap();
    let mut ggf = GgfGame::from_game(&g);
    ggf.time = None;
    ggf.time_black = outflank::notation::parse_ggf_clock("10:00");
    ggf.time_white = outflank::notation::parse_ggf_clock("01:00");
    let text = ggf.to_ggf();
    let text = text.replace("B[F5]", "B[F5//3.0]");
    assert!(parse_ggf(&text).is_ok());
    e.send(&format!("set game {text}"));
    e.send("move D6/0.00/59.0");
    e.send("move C3//2.0");
    ping(&mut e, 2);
    let t = Instant::now();
    e.send("go");
    read_go(&mut e);
    assert!(
        t.elapsed() < Duration::from_millis(700),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn other_commands() {
    let mut e = start(&[
        "--depth",
        "2",
        "--threads",
        "2",
        "--hash",
        "8",
        "--book",
        "off",
    ]);
    e.send("set contempt 100");
    e.send("set game (;GM[Othello]B[F5];)");
    ping(&mut e, 1);
    e.send("learn");
    assert!(e.line().starts_with("status "));
    assert_eq!(e.line(), "learned");
    // A bad game or an illegal move is reported in the status line, and changes nothing.
    e.send("set game (;GM[Othello]B[A1];)");
    assert!(e.line().starts_with("status ignored: cannot read the game"));
    e.send("move A1");
    assert_eq!(
        e.line(),
        "status ignored: illegal move a1: it outflanks no disc"
    );
    e.send("analyze");
    let lines = e.until(|l| l == "status");
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("analysis ")).count(),
        2
    );
    assert!(lines.iter().any(|l| l.starts_with("analysis 1 ")));
    // The game over: hint says nothing but status, go says why not.
    let mut rng = Rng(77);
    let mut over = Game::default();
    while protocol_util::random_move(&mut over, &mut rng) {}
    e.send(&format!("set game {}", ggf_of(&over)));
    e.send("hint 2");
    assert_eq!(e.line(), "status");
    ping(&mut e, 2);
    // Absurd clocks and move times.
    e.send("set game (;GM[Othello]TI[99999999999:00]B[F5//1e300]W[D6/1e300/-5];)");
    ping(&mut e, 3);
    e.send("go");
    assert!(matches!(read_go(&mut e).0, Move::Play(_)));
    // ping without a number.
    e.send("ping");
    assert_eq!(e.line(), "pong");
    e.send("quit");
    let status = e.wait_exit(Duration::from_secs(5)).expect("exits");
    assert!(status.success());
}

#[test]
fn hostile_input_is_refused_with_a_status_line() {
    let mut e = start(&["--level", "2"]);
    e.send_raw(b"\n\n  \n\t\r\n");
    ping(&mut e, 1);
    // CRLF endings.
    e.send_raw(b"ping 2\r\n");
    assert_eq!(e.line(), "pong 2");
    // Binary bytes: one status line each, printable.
    e.send_raw(b"\x00\x01\xff\xfe\x80 garbage \x07\n");
    e.send_raw(&[0xc3, 0x28, b' ', 0xa0, 0xa1, b'\n']);
    let lines = ping(&mut e, 3);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for l in &lines {
        assert!(l.starts_with("status ignored: unknown command"), "{l:?}");
        assert!(l.chars().all(|c| !c.is_control()), "{l:?}");
    }
    // A line of exactly 1 MiB, and a longer one.
    let mut big = vec![b'x'; 1 << 20];
    big.push(b'\n');
    e.send_raw(&big);
    let mut huge = b"set game (;".to_vec();
    huge.extend(vec![b'y'; (1 << 20) + 100]);
    huge.push(b'\n');
    e.send_raw(&huge);
    let lines = ping(&mut e, 4);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("status ignored: unknown command \"xxx"));
    assert!(lines[0].len() < 80, "{}", lines[0]);
    assert_eq!(
        lines[1],
        format!(
            "status ignored: a line of {} bytes (at most 1048576)",
            (1 << 20) + 111
        )
    );
    // Random command streams: nothing but protocol comes out, and ping still works.
    let words = [
        "nboard",
        "set",
        "depth",
        "game",
        "contempt",
        "move",
        "hint",
        "go",
        "learn",
        "analyze",
        "F5",
        "d6",
        "PA",
        "Z9",
        "-1",
        "0",
        "99",
        "1e9",
        "(;GM[Othello];)",
        "(;",
        "F5/x/y",
        "/",
        "",
        "status",
        "pong",
        "===",
        "F5/1e300/1e300",
        "F5//nan",
        "(;GM[Othello]TI[99999999999:00]B[F5//1e300];)",
    ];
    let mut rng = Rng(4242);
    for _ in 0..300 {
        let mut line = String::new();
        for _ in 0..rng.below(5) {
            line.push_str(words[rng.below(words.len())]);
            line.push(' ');
        }
        if rng.below(10) == 0 {
            line.push_str("\u{0}\u{e9}\u{7f}");
        }
        e.send(&line);
    }
    e.send("ping 5");
    let lines = e.until(|l| l == "pong 5");
    for l in &lines {
        let word = l.split_whitespace().next().unwrap_or("");
        assert!(
            [
                "set",
                "search",
                "status",
                "nodestats",
                "===",
                "analysis",
                "learned",
                "pong"
            ]
            .contains(&word),
            "unexpected output {l:?}"
        );
    }
    assert!(e.alive());
}

#[test]
fn bad_commands_get_one_status_line_and_a_warning() {
    // NBoard has no error reply: each refused line gets one clean status line and a
    // warning in the log (-v), and changes nothing.
    let ten_mb = "move ".to_string() + &"F".repeat(10 << 20);
    let script = [
        "nboard 2",
        "foo",
        "set depth 0",
        "move z9",
        "move A1",
        "set game (;GM[Othello]B[A1];)",
        &ten_mb,
        "hint 1",
        "ping 1",
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let out = run_piped(&["nboard", "-v", "--depth", "2"], &script);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let status: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("status ignored"))
        .collect();
    assert_eq!(
        status,
        [
            "status ignored: unknown command \"foo\"",
            "status ignored: set depth wants a whole number from 1 to 60",
            "status ignored: move wants a square or PA, not \"z9\"",
            "status ignored: illegal move a1: it outflanks no disc",
            "status ignored: cannot read the game: GGF: move 1 B[A1]: illegal move a1: it outflanks no disc",
            &format!(
                "status ignored: a line of {} bytes (at most 1048576)",
                ten_mb.len()
            ),
        ],
        "{stdout}"
    );
    // The state is unchanged: the hint is the start position's (black's four moves).
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("book ") || l.starts_with("search "))
    );
    assert!(stdout.ends_with("pong 1\n"), "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warnings = stderr.lines().filter(|l| l.contains("WARN")).count();
    assert!(warnings >= 6, "{stderr}");
    assert!(stderr.lines().all(|l| l.len() < 300), "a long log line");
}

#[test]
fn ping_is_answered_while_a_learn_runs_and_the_book_is_saved() {
    // `learn` runs on the worker: `ping` gets its `pong` at once, the learn's `status` and
    // `learned` come when it ends, and the book is saved as before.
    let path =
        std::env::temp_dir().join(format!("outflank-nboard-learn-{}.book", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let p = path.to_str().unwrap();
    let mut e = start(&["--book-file", p, "--book-new"]);
    let mut rng = Rng(5);
    let mut game = Game::default();
    for _ in 0..24 {
        protocol_util::random_move(&mut game, &mut rng);
    }
    e.send(&format!("set game {}", ggf_of(&game)));
    ping(&mut e, 1);
    e.send("learn");
    let t = Instant::now();
    let before = ping(&mut e, 2);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(
        before.is_empty(),
        "the learn answers when it ends: {before:?}"
    );
    let lines = e.until(|l| l == "learned");
    let status = &lines[lines.len() - 2];
    assert!(
        status.starts_with("status learned: ") && status.ends_with(" book positions saved"),
        "{lines:?}"
    );
    assert!(path.exists(), "the book is saved");
    // quit during a learn ends the session at once.
    e.send(&format!("set game {}", ggf_of(&Game::default())));
    e.send("learn");
    let t = Instant::now();
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(5)).is_some());
    assert!(t.elapsed() < Duration::from_secs(5));
    let _ = std::fs::remove_file(&path);
}
