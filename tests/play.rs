//! `outflank play`, the terminal game, driven over pipes: whole games against the engine
//! checked move by move against the library's rules, forced passes, undo, hints, swap, new
//! games, saving, the engine playing itself, interruption, and bad input that changes
//! nothing.

mod protocol_util;

use outflank::notation::{parse_ggf, parse_transcript, transcript};
use outflank::{Color, Game, Move, Position};
use protocol_util::{Engine, Rng, game_before_pass, read_move};
use std::time::{Duration, Instant};

/// `outflank play` with a quick engine (depth 2) and no book (deterministic replies).
fn start(extra: &[&str]) -> Engine {
    let mut args = vec!["play", "--level", "2", "--book", "off"];
    args.extend_from_slice(extra);
    Engine::start(&args)
}

/// True for the line that asks a person for a move or, after a game, for a command.
fn is_prompt(line: &str) -> bool {
    line.ends_with("to move>") || line == ">"
}

/// Lines up to and including the next prompt.
fn to_prompt(e: &mut Engine) -> Vec<String> {
    e.until(is_prompt)
}

/// Applies to `game` what the lines say was played: the engine's moves and the passes.
fn follow(game: &mut Game, lines: &[String]) {
    for l in lines {
        if let Some((_, rest)) = l.split_once(" plays ") {
            let mv = read_move(rest.split(':').next().unwrap());
            game.play(mv)
                .unwrap_or_else(|e| panic!("{l:?} is not legal in the game: {e}"));
        } else if l.ends_with("has no move and passes.") {
            game.play(Move::Pass)
                .unwrap_or_else(|e| panic!("{l:?}: the pass is not forced: {e}"));
        }
    }
}

/// The board drawing of the lines (the ten lines from the first column header).
fn drawing(lines: &[String]) -> String {
    let i = lines
        .iter()
        .rposition(|l| l == "  a b c d e f g h")
        .expect("a board");
    lines[i - 9..=i].join("\n")
}

#[test]
fn whole_games_against_the_engine_follow_the_rules() {
    for (seed, color) in [(3u64, "black"), (7, "white")] {
        let mut e = start(&["--human", color]);
        let mut game = Game::default();
        let mut rng = Rng(seed);
        let mut lines = to_prompt(&mut e);
        assert!(lines[0].starts_with("Outflank "), "{:?}", lines[0]);
        loop {
            follow(&mut game, &lines);
            let pos = game.position();
            assert_eq!(
                drawing(&lines),
                pos.to_string(),
                "the board shown is the game's"
            );
            if lines.last().unwrap() == ">" {
                break;
            }
            let me = if color == "black" {
                Color::Black
            } else {
                Color::White
            };
            assert_eq!(pos.to_move, me, "asked to move out of turn: {lines:?}");
            let moves = pos.legal_moves();
            let mv = moves[rng.below(moves.len())];
            game.play(mv).unwrap();
            e.send(&mv.to_string());
            lines = to_prompt(&mut e);
        }
        assert!(game.is_over());
        let over = lines
            .iter()
            .find(|l| l.starts_with("Game over: "))
            .expect("the result");
        let pos = game.position();
        let (b, w) = (pos.black().count_ones(), pos.white().count_ones());
        let winner = match b.cmp(&w) {
            std::cmp::Ordering::Greater => format!("Black wins {b}-{w}"),
            std::cmp::Ordering::Less => format!("White wins {w}-{b}"),
            std::cmp::Ordering::Equal => format!("Draw, {b}-{w}"),
        };
        assert!(over.contains(&winner), "{over:?} should say {winner:?}");
        assert!(over.ends_with(&format!("Moves: {}", transcript(&game))));
        e.send("moves");
        assert_eq!(e.line(), transcript(&game));
        e.send("quit");
        assert!(e.wait_exit(Duration::from_secs(10)).unwrap().success());
    }
}

#[test]
fn forced_passes_are_played_and_announced() {
    let game = game_before_pass(11);
    let pos = game.position();
    let start_text = transcript(&game);
    // The side that must pass is the engine: the front-end passes for it, then asks.
    let human = pos.to_move.opposite();
    let mut e = start(&["--human", human.name(), "--start", &start_text]);
    let lines = to_prompt(&mut e);
    let who = match pos.to_move {
        Color::Black => "Black (X, Outflank) has no move and passes.",
        Color::White => "White (O, Outflank) has no move and passes.",
    };
    assert!(lines.iter().any(|l| l == who), "{lines:?}");
    // A person who must pass is passed for too.
    let mut e = start(&["--human", "both", "--start", &start_text]);
    let lines = to_prompt(&mut e);
    assert!(
        lines.iter().any(|l| l.ends_with("has no move and passes.")),
        "{lines:?}"
    );
    let mut after = game.clone();
    after.play(Move::Pass).unwrap();
    assert_eq!(drawing(&lines), after.position().to_string());
    // A pass when there is a move is refused.
    e.send("pass");
    let l = e.line();
    assert!(
        l.starts_with("Illegal: ") && l.contains("cannot pass"),
        "{l:?}"
    );
}

#[test]
fn bad_input_is_explained_and_changes_nothing() {
    let mut e = start(&[]);
    to_prompt(&mut e);
    let cases: &[(&str, &str)] = &[
        (
            "a1",
            "Illegal: a1 is not a legal move for Black: d3 c4 f5 e6.",
        ),
        (
            "pass",
            "Illegal: Black has a move and cannot pass: d3 c4 f5 e6.",
        ),
        (
            "z9",
            "\"z9\" is neither a move nor a command (help lists them).",
        ),
        (
            "frobnicate now",
            "unknown command \"frobnicate\" (help lists them).",
        ),
        (
            "hint 0",
            "hint wants a number of moves from 1 to 64, not \"0\".",
        ),
        ("undo", "Cannot undo: no move of yours to take back."),
        ("undo twice", "undo takes no argument."),
        ("f5 now", "a move stands alone on its line, not \"f5 now\"."),
        (
            "set level high",
            "Not set: level wants a whole number from 1 to 60, not \"high\".",
        ),
        (
            "set level 61",
            "Not set: level wants a whole number from 1 to 60",
        ),
        (
            "set threads 0",
            "Not set: threads wants a whole number from 1 to 256",
        ),
        ("set time 1e-300", "Not set: time wants seconds from 0.001"),
        ("set colour red", "Not set: unknown option \"colour\"."),
        ("new f5f5", "Cannot start there: "),
        ("save /nonexistent-dir/game.ggf", "Not saved: cannot write "),
        ("save", "save wants a file name."),
        ("\u{1}\u{7f}garbage\u{0}", "is neither a move nor a command"),
    ];
    for (input, answer) in cases {
        e.send(input);
        let l = e.line();
        assert!(l.contains(answer), "{input:?} -> {l:?}, wanted {answer:?}");
        assert!(is_prompt(&e.line()), "a prompt after {input:?}");
    }
    e.send(&"x".repeat(2 << 20));
    assert!(e.line().contains("too long"));
    assert!(is_prompt(&e.line()));
    // A long word is quoted shortened.
    e.send(&"y".repeat(5000));
    let l = e.line();
    assert!(l.len() < 200 && l.contains("yyyy...\" is neither"), "{l:?}");
    assert!(is_prompt(&e.line()));
    e.send("moves");
    assert_eq!(e.line(), "(no move yet)");
    assert!(is_prompt(&e.line()));
    e.send("board");
    let lines = to_prompt(&mut e);
    assert_eq!(drawing(&lines), Position::start().to_string());
    // The game goes on normally.
    e.send("f5");
    let lines = to_prompt(&mut e);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("White (O, Outflank) plays "))
    );
}

#[test]
fn undo_hint_swap_new_and_save() {
    let dir = std::env::temp_dir().join(format!("outflank-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.ggf");
    let mut e = start(&[]);
    let mut game = Game::default();
    follow(&mut game, &to_prompt(&mut e));
    for _ in 0..2 {
        let mv = game.position().legal_moves()[0];
        game.play(mv).unwrap();
        e.send(&mv.to_string());
        follow(&mut game, &to_prompt(&mut e));
    }
    // Undo takes back the person's move and the engine's reply.
    let before = transcript(&game);
    assert_eq!(before.len(), 8, "four moves: {before:?}");
    e.send("undo");
    to_prompt(&mut e);
    e.send("moves");
    assert_eq!(e.line(), before[..4]);
    to_prompt(&mut e);
    // A hint of two moves: two scored lines that start with legal moves.
    e.send("hint 2");
    let lines = to_prompt(&mut e);
    let pos = parse_transcript(&before[..4]).unwrap().position();
    let hints: Vec<&String> = lines.iter().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(hints.len(), 2, "{lines:?}");
    for h in hints {
        let mv = read_move(h.split_whitespace().nth(1).unwrap());
        assert!(pos.play(mv).is_ok(), "{h:?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("(depth ")), "{lines:?}");
    // Swap: the engine takes black and moves; the person is asked as white.
    e.send("swap");
    let lines = to_prompt(&mut e);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Black (X, Outflank) plays "))
    );
    assert_eq!(lines.last().unwrap(), "White (O, you) to move>");
    // Save, and read the file back.
    e.send("moves");
    let moves = e.line();
    to_prompt(&mut e);
    e.send(&format!("save {}", file.display()));
    assert_eq!(e.line(), format!("Saved to {}.", file.display()));
    to_prompt(&mut e);
    let ggf = parse_ggf(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(transcript(&ggf.to_game()), moves);
    // Each colour's moves by whoever played them: black's first by the person, its last by
    // the engine after the swap; white's so far by the engine.
    assert_eq!(ggf.black.as_deref(), Some("human and Outflank"));
    assert_eq!(ggf.white.as_deref(), Some("Outflank"));
    // A new game from a transcript: white (the person) to move after f5.
    e.send("new f5");
    let lines = to_prompt(&mut e);
    assert_eq!(lines[0], "New game.");
    assert_eq!(
        drawing(&lines),
        parse_transcript("f5").unwrap().position().to_string()
    );
    // `go`: the engine plays the person's move for them.
    e.send("go");
    let lines = to_prompt(&mut e);
    let played: Vec<&String> = lines.iter().filter(|l| l.contains(" plays ")).collect();
    assert_eq!(
        played.len(),
        2,
        "white's move by the engine, then black's: {lines:?}"
    );
    // Options: listed, and changed.
    e.send("set level 4");
    assert_eq!(e.line(), "level 4");
    to_prompt(&mut e);
    e.send("set time off");
    assert_eq!(e.line(), "time none", "the value as it now is");
    to_prompt(&mut e);
    e.send("set");
    let lines = to_prompt(&mut e);
    assert!(lines.iter().any(|l| l == "level 4"), "{lines:?}");
    e.send("help");
    let lines = to_prompt(&mut e);
    assert!(lines.iter().any(|l| l.trim_start().starts_with("undo")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_engine_plays_itself_to_the_end() {
    let mut e = Engine::start(&["play", "--human", "none", "--level", "1", "--book", "off"]);
    // The end of piped input comes in its turn: after the game, which needs no input.
    e.close_stdin();
    let lines = e.until(|l| l.starts_with("Game over: "));
    let mut game = Game::default();
    follow(&mut game, &lines);
    assert!(game.is_over(), "the game ended: {lines:?}");
    assert!(lines.last().unwrap().ends_with(&transcript(&game)));
    assert_eq!(drawing(&lines), game.position().to_string());
    assert!(e.wait_exit(Duration::from_secs(10)).unwrap().success());
}

#[test]
fn quit_ends_a_self_play_game_at_once() {
    // Level 60 plays perfectly: the first move's search from the start would not end.
    let mut e = Engine::start(&["play", "--human", "none", "--level", "60", "--book", "off"]);
    assert!(e.line().starts_with("Outflank "));
    std::thread::sleep(Duration::from_millis(300));
    e.send("quit");
    let status = e.wait_exit(Duration::from_secs(5)).expect("exits on quit");
    assert!(status.success());
    // The move cut short is played, and no other (the game is not rushed to its end).
    let mut rest = Vec::new();
    while let Some(l) = e.try_line(Duration::from_secs(1)) {
        rest.push(l);
    }
    let moves = rest.iter().filter(|l| l.contains(" plays ")).count();
    assert!(moves <= 1, "{rest:?}");
}

#[test]
fn typed_ahead_input_gets_the_same_answers() {
    // Moves and a hint sent at once, then the end of the input, are answered as when each
    // line waits for its prompt: the engine's searches are not cut short.
    let args = ["play", "--depth", "6", "--book", "off"];
    let mut e = Engine::start(&args);
    let mut game = Game::default();
    let mut sent = Vec::new();
    let mut answers = Vec::new();
    to_prompt(&mut e);
    for _ in 0..3 {
        let mv = game.position().legal_moves()[0];
        game.play(mv).unwrap();
        sent.push(mv.to_string());
        e.send(&mv.to_string());
        let lines = to_prompt(&mut e);
        follow(&mut game, &lines);
        answers.extend(lines.into_iter().filter(|l| l.contains(" plays ")));
    }
    sent.push("hint 2".into());
    e.send("hint 2");
    answers.extend(
        to_prompt(&mut e)
            .into_iter()
            .filter(|l| l.starts_with("  ")),
    );
    let mut all = Engine::start(&args);
    all.send(&sent.join("\n"));
    all.close_stdin();
    assert!(all.wait_exit(Duration::from_secs(30)).unwrap().success());
    let mut got = Vec::new();
    while let Some(l) = all.try_line(Duration::from_millis(200)) {
        let hint = l.starts_with("  ") && !l.starts_with("  a b");
        if l.contains(" plays ") || hint {
            got.push(l);
        }
    }
    // Only the times in the engine's lines may differ.
    let untimed = |v: &[String]| -> Vec<String> {
        v.iter()
            .map(|l| match l.rfind(", ") {
                Some(i) if l.ends_with(" s.") => l[..i].to_string(),
                _ => l.clone(),
            })
            .collect()
    };
    assert_eq!(untimed(&got), untimed(&answers));
}

#[test]
fn undo_keeps_the_moves_the_game_started_with() {
    let mut e = start(&["--human", "white", "--start", "f5d6c3"]);
    let mut game = parse_transcript("f5d6c3").unwrap();
    follow(&mut game, &to_prompt(&mut e));
    e.send("undo");
    assert_eq!(e.line(), "Cannot undo: no move of yours to take back.");
    to_prompt(&mut e);
    let mv = game.position().legal_moves()[0];
    e.send(&mv.to_string());
    to_prompt(&mut e);
    e.send("undo");
    to_prompt(&mut e);
    e.send("moves");
    assert_eq!(e.line(), transcript(&game), "back to before the move");
    // A board string that starts with `-` (an empty a1) is a position, not an option.
    let board = "---------------------------OX------XO--------------------------- O";
    let mut e = start(&["--human", "white", "--start", board]);
    let lines = to_prompt(&mut e);
    assert_eq!(lines.last().unwrap(), "White (O, you) to move>");
}

#[test]
fn undo_after_go_takes_back_the_move_played_for_you() {
    // `go` plays the person's move for them: `undo` takes back that move (and the reply),
    // not everything back to the last move typed.
    let mut e = start(&[]);
    to_prompt(&mut e);
    let mut game = Game::default();
    for line in ["f5", "go", "go"] {
        if line == "f5" {
            game.play(read_move("f5")).unwrap();
        }
        e.send(line);
        follow(&mut game, &to_prompt(&mut e));
    }
    assert_eq!(game.len(), 6);
    e.send("undo");
    to_prompt(&mut e);
    e.send("moves");
    let want: String = game.moves()[..4].iter().map(|m| m.to_string()).collect();
    assert_eq!(
        e.line(),
        want.to_lowercase(),
        "back to before the last move played for black"
    );
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(10)).unwrap().success());
}

#[test]
fn undo_after_a_game_played_by_go_goes_back_one_move_of_yours() {
    // The person lets the engine play every move of theirs; after the end, one `undo` goes
    // back to before the last move played for them, not to the start.
    let mut e = Engine::start(&["play", "--level", "1", "--book", "off"]);
    to_prompt(&mut e);
    let mut game = Game::default();
    while !game.is_over() {
        e.send("go");
        follow(&mut game, &to_prompt(&mut e));
    }
    let positions = game.positions();
    let last_black = (0..game.len())
        .rev()
        .find(|&i| positions[i].to_move == Color::Black && game.moves()[i] != Move::Pass)
        .unwrap();
    e.send("undo");
    to_prompt(&mut e);
    e.send("moves");
    let mut want = game.clone();
    while want.len() > last_black {
        want.undo();
    }
    assert_eq!(e.line(), transcript(&want));
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(10)).unwrap().success());
}

#[test]
fn hint_n_shows_n_moves_in_a_book_position_too() {
    // After f5d6c5 the book holds 2 of white's 4 moves: `hint 2` answers from the book,
    // `hint 5` searches all 4.
    let mut e = Engine::start(&[
        "play", "--human", "both", "--level", "4", "--start", "f5d6c5",
    ]);
    to_prompt(&mut e);
    let hints = |e: &mut Engine, n: usize| -> Vec<String> {
        e.send(&format!("hint {n}"));
        to_prompt(e)
            .into_iter()
            .filter(|l| l.starts_with("  ") && l.contains(". "))
            .collect()
    };
    let two = hints(&mut e, 2);
    assert_eq!(two.len(), 2, "{two:?}");
    assert!(two.iter().all(|l| l.contains("(book)")), "{two:?}");
    let five = hints(&mut e, 5);
    assert_eq!(five.len(), 4, "every legal move: {five:?}");
    assert!(five.iter().all(|l| !l.contains("(book)")), "{five:?}");
    e.send("quit");
    assert!(e.wait_exit(Duration::from_secs(10)).unwrap().success());
}

/// The system refuses a terabyte only when it does not overcommit memory blindly.
#[test]
#[cfg_attr(
    outflank_overcommit,
    ignore = "this system promises any amount of memory (vm.overcommit_memory = 1)"
)]
fn a_hash_table_the_system_refuses_is_an_answer_not_a_crash() {
    for args in [
        &["play", "--hash", "1000000"][..],
        &["gtp", "--hash", "1000000"],
        &["nboard", "--hash", "1000000"],
        &["analyze", "f5", "--depth", "2", "--hash", "1000000"],
    ] {
        let mut e = Engine::start(args);
        let status = e.wait_exit(Duration::from_secs(10)).expect("exits");
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
    let mut e = start(&[]);
    to_prompt(&mut e);
    e.send("set hash 1000000");
    let l = e.line();
    assert!(
        l.starts_with("Not set: cannot have a 1000000 MB hash table"),
        "{l:?}"
    );
    to_prompt(&mut e);
    e.send("set hash 16");
    assert_eq!(e.line(), "hash 16");
    to_prompt(&mut e);
    e.send("f5");
    let lines = to_prompt(&mut e);
    assert!(lines.iter().any(|l| l.contains(" plays ")), "{lines:?}");
}

#[test]
fn stop_and_quit_interrupt_the_thinking_engine() {
    // Level 60 plays perfectly: from the start position the search would run for ever.
    let mut e = Engine::start(&["play", "--human", "white", "--level", "60", "--book", "off"]);
    assert!(e.line().starts_with("Outflank "));
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send("stop");
    let lines = to_prompt(&mut e);
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Black (X, Outflank) plays "))
    );
    e.send("go");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send("quit");
    let status = e.wait_exit(Duration::from_secs(5)).expect("exits on quit");
    assert!(status.success());
    assert!(asked.elapsed() < Duration::from_secs(5));
}

#[test]
fn the_engine_keeps_inside_its_clock() {
    // Three seconds for the engine's whole game, at full strength (no level): it must budget.
    let mut e = Engine::start(&["play", "--clock", "0:03", "--book", "off"]);
    let mut game = Game::default();
    let mut rng = Rng(5);
    let mut used = Duration::ZERO;
    let mut lines = to_prompt(&mut e);
    let mut last_left = u32::MAX;
    while !game.is_over() {
        follow(&mut game, &lines);
        for l in lines.iter().filter(|l| l.contains(" plays ")) {
            // `..., 0:02 left.`: what the engine's clock shows, never rising without an
            // increment.
            let left = l.rsplit(", ").next().unwrap().trim_end_matches(" left.");
            let (m, s) = left.split_once(':').expect("the time left");
            let secs = m.parse::<u32>().unwrap() * 60 + s.parse::<u32>().unwrap();
            assert!(secs <= last_left && secs <= 3, "{l:?}");
            last_left = secs;
        }
        if game.is_over() {
            break;
        }
        let moves = game.position().legal_moves();
        let mv = moves[rng.below(moves.len())];
        game.play(mv).unwrap();
        let asked = Instant::now();
        e.send(&mv.to_string());
        lines = to_prompt(&mut e);
        used += asked.elapsed();
    }
    // As the GTP clock test: wall time seen from outside, with a second of grace.
    eprintln!("the engine used {used:?} of 3 s");
    assert!(used < Duration::from_secs(4), "{used:?}");
    let file = std::env::temp_dir().join(format!("outflank-clock-{}.ggf", std::process::id()));
    e.send(&format!("save {}", file.display()));
    e.line();
    let ggf = parse_ggf(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&file);
    assert_eq!(ggf.time_white.map(|c| c.main), Some(Duration::from_secs(3)));
    assert_eq!(ggf.time_black, None);
    assert!(ggf.result.is_some());
}

#[test]
fn lines_typed_while_the_engine_thinks_are_answered_once_after_the_board() {
    // The person's move and two commands arrive together: the engine's reply, then the
    // board and the prompt, then each command's answer once.
    let mut e = Engine::start(&["play", "--depth", "8", "--book", "off"]);
    to_prompt(&mut e);
    e.send("f5\nmoves\nboard");
    let mut lines = Vec::new();
    for _ in 0..3 {
        lines.extend(to_prompt(&mut e));
    }
    assert!(
        e.try_line(Duration::from_millis(500)).is_none(),
        "{lines:?}"
    );
    let plays = lines.iter().position(|l| l.contains(" plays ")).unwrap();
    let boards: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            i >= 9 && lines[i] == "  a b c d e f g h" && lines[i - 9] == "  a b c d e f g h"
        })
        .collect();
    let moves = lines.iter().position(|l| l.starts_with("f5")).unwrap();
    assert_eq!(boards.len(), 2, "{lines:#?}");
    assert!(
        plays < boards[0] && boards[0] < moves && moves < boards[1],
        "{lines:#?}"
    );
}

#[test]
fn swap_with_no_engine_to_swap_with_says_so() {
    let mut e = start(&["--human", "both"]);
    to_prompt(&mut e);
    e.send("swap");
    let lines = to_prompt(&mut e);
    assert_eq!(
        lines[0],
        "Nothing to swap: both sides are played by people (go plays one move)."
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    e.send("moves");
    assert_eq!(e.line(), "(no move yet)");
}
