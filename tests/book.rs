//! The opening book through the real binary: `book build`, `book learn` and `book show`, the
//! shipped book in GTP's `genmove` and NBoard's `go`, `hint` and `learn`, and damaged book
//! files refused with a clear error.

mod common;
mod protocol_util;

use common::{outflank, text};
use outflank::book::{Book, file};
use outflank::notation::{WthorFile, WthorGame, WthorHeader, parse_transcript, write_wtb};
use outflank::{Board, Move};
use protocol_util::{Engine, read_move};
use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh path in the temporary directory for this test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("outflank-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// `book show --json` of a position: the moves' (move, score, in_book).
fn shown(book: Option<&str>, pos: &str) -> Vec<(String, i64, bool)> {
    let mut args = vec!["book", "show", pos, "--json"];
    if let Some(b) = book {
        args.extend_from_slice(&["--book", b]);
    }
    let out = outflank(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["score"].as_i64().unwrap(),
                m["in_book"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The moves the shipped book rates best at `pos`.
fn best_book_moves(pos: &str) -> Vec<Move> {
    let moves = shown(None, pos);
    let best = moves[0].1;
    moves
        .iter()
        .filter(|m| m.1 == best)
        .map(|m| read_move(&m.0))
        .collect()
}

/// `book build` of a small book into `out`, extending `from` if given.
fn build(out: &str, from: Option<&str>) -> Output {
    let mut args = vec![
        "book", "build", "--out", out, "--plies", "3", "--depth", "4",
    ];
    args.extend_from_slice(&["--width", "2", "--positions", "40"]);
    if let Some(f) = from {
        args.extend_from_slice(&["--from", f]);
    }
    outflank(&args)
}

#[test]
fn build_then_show() {
    let path = temp("built.book");
    let p = path.to_str().unwrap();
    let out = build(p, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "build writes nothing on stdout");
    let book = file::load(&path).unwrap();
    assert!(book.len() > 3 && book.len() <= 40, "{}", book.len());
    let moves = shown(Some(p), "start");
    assert_eq!(
        moves.len(),
        4,
        "the four first moves are one position: {moves:?}"
    );
    let after = shown(Some(p), "f5");
    assert!(!after.is_empty());
    assert!(
        after.windows(2).all(|w| w[0].1 >= w[1].1),
        "best first: {after:?}"
    );
    // Extending the book with the same settings changes nothing.
    let again = temp("again.book");
    let out = build(again.to_str().unwrap(), Some(p));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&path).unwrap()
    );
    // A position out of the book.
    let out = outflank(&["book", "show", "f5f6e6f4", "--book", p]);
    assert!(text(&out.stdout).starts_with("not in the book"));
}

/// `book learn` of the games in `games` into a new, empty `book`, 5 moves deep, with
/// depth-3 searches.
fn learn_quickly(book: &str, games: &str) -> Output {
    outflank(&[
        "book",
        "learn",
        "--book",
        book,
        "--book-new",
        games,
        "--plies",
        "5",
        "--depth",
        "3",
    ])
}

#[test]
fn learn_games_then_show_them() {
    let games = temp("games.txt");
    std::fs::write(&games, "f5d6c3d3c4f4f6f3e6e7\n\nf5f6e6f4e3\n").unwrap();
    let path = temp("learned.book");
    let p = path.to_str().unwrap();
    let out = learn_quickly(p, games.to_str().unwrap());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let book = file::load(&path).unwrap();
    // Five positions and the one after them, per game; the first two are shared.
    assert_eq!(book.len(), 10);
    let f5 = Board::start().play("f5".parse().unwrap()).unwrap();
    assert_eq!(book.get(&Board::start()).unwrap().games, 2);
    assert_eq!(book.get(&f5).unwrap().games, 2);
    let after = shown(Some(p), "f5");
    assert!(after.iter().any(|m| m.0 == "d6" && m.2), "{after:?}");
    assert!(after.iter().any(|m| m.0 == "f6" && m.2), "{after:?}");
    // The same games in a WTHOR file make the same book.
    let wtb = temp("games.wtb");
    let records: Vec<WthorGame> = ["f5d6c3d3c4f4f6f3e6e7", "f5f6e6f4e3"]
        .iter()
        .map(|t| WthorGame::from_game(&parse_transcript(t).unwrap()).unwrap())
        .collect();
    let data = write_wtb(&WthorFile {
        header: WthorHeader::default(),
        games: records,
    });
    std::fs::write(&wtb, data).unwrap();
    let from_wtb = temp("wtb.book");
    let out = learn_quickly(from_wtb.to_str().unwrap(), wtb.to_str().unwrap());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(file::load(&from_wtb).unwrap(), book);
    // Saved as it goes (here after every game): the same book in the end, and each save
    // says how far the learning is.
    let saving = temp("saving.book");
    let out = outflank(&[
        "book",
        "learn",
        "--book",
        saving.to_str().unwrap(),
        "--book-new",
        wtb.to_str().unwrap(),
        "--plies",
        "5",
        "--depth",
        "3",
        "--save-every",
        "0.000001",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(file::load(&saving).unwrap(), book);
    let err = text(&out.stderr);
    assert!(err.contains("saved 6 positions after 1 game of 2"), "{err}");
    assert!(
        err.contains("2 games learned; 10 positions written to"),
        "{err}"
    );
    // A bad game line is named, and the book is left as it was.
    std::fs::write(&games, "f5d6c3\nf5z9\n").unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = outflank(&["book", "learn", "--book", p, games.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("line 2"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn damaged_book_files_are_refused() {
    let good = file::write(&Book::shipped());
    let path = temp("damaged.book");
    let p = path.to_str().unwrap();
    for bytes in [
        &good[..good.len() - 3],
        &good[..5],
        b"not a book at all".as_slice(),
    ] {
        std::fs::write(&path, bytes).unwrap();
        for args in [
            vec!["book", "show", "start", "--book", p],
            vec!["gtp", "--book-file", p],
            vec!["nboard", "--book-file", p],
            vec!["book", "learn", "--book", p, "-"],
        ] {
            let out = outflank(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("book"), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{err}");
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
}

#[test]
fn gtp_plays_the_shipped_book() {
    let best = best_book_moves("start");
    assert!(best.len() >= 4, "the four first moves tie: {best:?}");
    let mut e = Engine::start(&["gtp", "--depth", "30"]);
    // With a depth of 30 a search would take far longer than the test's patience.
    let mv = read_move(&e.ok("genmove b"));
    assert!(best.contains(&mv), "{mv} not among {best:?}");
    // With randomness, the first moves of the games vary beyond the ties: after d3, the
    // book's moves within 64 discs of the best are all its moves there.
    e.ok("outflank-set book-randomness 64");
    let listed: Vec<Move> = shown(None, "d3").iter().map(|m| read_move(&m.0)).collect();
    let mut replies = std::collections::HashSet::new();
    for _ in 0..40 {
        e.ok("clear_board");
        e.ok("play b d3");
        let mv = read_move(&e.ok("genmove w"));
        assert!(listed.contains(&mv), "{mv} not among {listed:?}");
        replies.insert(mv);
    }
    assert!(replies.len() >= 2, "{replies:?} of {listed:?}");
    e.ok("clear_board");
    e.ok("outflank-set book off");
    e.ok("outflank-set depth 2");
    let mv = read_move(&e.ok("genmove b"));
    assert!(matches!(mv, Move::Play(_)));
}

#[test]
fn nboard_hints_and_plays_from_the_book_and_learns() {
    const START: &str = "(;GM[Othello]PC[NBoard]PB[me]PW[engine]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)";
    let path = temp("nboard.book");
    let p = path.to_str().unwrap();
    std::fs::write(&path, file::write(&Book::shipped())).unwrap();
    let mut e = Engine::start(&["nboard", "--book-file", p, "--depth", "30"]);
    e.send("nboard 2");
    assert_eq!(e.line(), "set myname Outflank");
    e.send(&format!("set game {START}"));
    e.send("ping 1");
    assert_eq!(e.line(), "pong 1");
    e.send("hint 4");
    let lines = e.until(|l| l == "status");
    let books: Vec<&String> = lines.iter().filter(|l| l.starts_with("book ")).collect();
    assert_eq!(books.len(), 4, "{lines:?}");
    for l in &books {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 5, "{l}");
        assert!(f[1].len() >= 2 && f[1].len().is_multiple_of(2), "{l}");
        f[2].parse::<f64>().unwrap();
        f[3].parse::<u32>().unwrap();
        f[4].parse::<u32>().unwrap();
    }
    e.send("go");
    let l = e.line();
    assert!(l.starts_with("=== "), "{l}");
    let mv = read_move(l[4..].split('/').next().unwrap());
    assert!(best_book_moves("start").contains(&mv), "{l}");
    // A short game, learned and saved.
    let game = "(;GM[Othello]PC[NBoard]PB[me]PW[engine]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[c4]W[c3]B[c2]W[b4];)";
    e.send(&format!("set game {game}"));
    e.send("ping 2");
    assert_eq!(e.line(), "pong 2");
    e.send("learn");
    let lines = e.until(|l| l == "learned");
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("status") || l == "learned"),
        "{lines:?}"
    );
    let book = file::load(&path).unwrap();
    let mut b = Board::start();
    for sq in ["c4", "c3", "c2", "b4"] {
        assert!(book.get(&b).unwrap().games >= 1, "{sq}");
        b = b.play(sq.parse().unwrap()).unwrap();
    }
    assert!(book.contains(&b));
    e.send("quit");
}

/// NBoard's `learn` of a short game with `--book-file PATH` and `extra` options; returns
/// the status line and the saved book.
fn learn_into(path: &std::path::Path, extra: &[&str]) -> (String, Book) {
    let p = path.to_str().unwrap();
    let mut args = vec!["nboard", "--book-file", p, "--depth", "2"];
    args.extend_from_slice(extra);
    let mut e = Engine::start(&args);
    e.send("nboard 2");
    assert_eq!(e.line(), "set myname Outflank");
    let game = "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[c4]W[c3]B[c2]W[b4]B[a4];)";
    e.send(&format!("set game {game}"));
    e.send("learn");
    let lines = e.until(|l| l == "learned");
    e.send("quit");
    let status = lines
        .iter()
        .find(|l| l.starts_with("status learned"))
        .unwrap_or_else(|| panic!("{lines:?}"))
        .clone();
    (status, file::load(path).expect("the saved book"))
}

#[test]
fn a_new_book_file_starts_from_the_shipped_book() {
    let shipped = Book::shipped().len();
    // A path with no file yet: the shipped book, plus what learn adds.
    let path = temp("new-from-shipped.book");
    let (status, book) = learn_into(&path, &[]);
    assert!(book.len() > shipped, "{} <= {shipped}", book.len());
    assert!(status.contains(&book.len().to_string()), "{status}");
    // With --book-new: an empty start, so only the learned game's positions.
    let path = temp("new-empty.book");
    let (_, book) = learn_into(&path, &["--book-new"]);
    assert!((2..=10).contains(&book.len()), "{}", book.len());
    // --book-new refuses a file that exists, and wants --book-file.
    let p = path.to_str().unwrap();
    let out = outflank(&["nboard", "--book-file", p, "--book-new"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("exists already") && err.lines().count() == 1,
        "{err}"
    );
    let out = outflank(&["gtp", "--book-new"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(file::load(&path).unwrap().len(), book.len());
    // A --book-file in a folder that is not there is refused at the start.
    let out = outflank(&["nboard", "--book-file", "/nonexistent-folder/x.book"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no folder"),
        "{}",
        text(&out.stderr)
    );
    // `book learn` into a new path starts from the shipped book too (and says so).
    let games = temp("one-game.txt");
    std::fs::write(&games, "c4c3c2b4a4\n").unwrap();
    let learned = temp("learned-from-shipped.book");
    let out = outflank(&[
        "book",
        "learn",
        "--book",
        learned.to_str().unwrap(),
        games.to_str().unwrap(),
        "--plies",
        "5",
        "--depth",
        "3",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("starting from the shipped book"));
    assert!(file::load(&learned).unwrap().len() > shipped);
}

#[test]
fn an_interrupted_build_keeps_its_last_save() {
    // A build far too big to finish here, saved often and killed while it runs: the file
    // holds a sound book that --from can go on with.
    let path = temp("interrupted.book");
    let p = path.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args([
            "book",
            "build",
            "--out",
            p,
            "--plies",
            "12",
            "--depth",
            "8",
            "--width",
            "8",
            "--positions",
            "100000",
            "--save-every",
            "0.01",
            "--hash",
            "16",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run outflank");
    // Killed once a save holds 10 positions (not after a fixed time: under load the first
    // saves come later), with a deadline.
    let start = std::time::Instant::now();
    while !file::load(&path).is_ok_and(|b| b.len() >= 10) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no save of 10 positions in 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(err.contains("saved "), "{err}");
    let book = file::load(&path).expect("a sound book");
    assert!(book.len() >= 10, "{}", book.len());
    assert!(book.contains(&Board::start()));
    // Its values are backed up through the tree: each position's value is its best book
    // move's score, as the engine plays from it.
    for (b, e) in book.iter() {
        if let Some(best) = book.moves(&b).and_then(|m| m.first().copied()) {
            assert_eq!(best.score, e.value as i32, "{b:?}");
        }
    }
    // And it goes on from there.
    let more = temp("continued.book");
    let out = outflank(&[
        "book",
        "build",
        "--from",
        p,
        "--out",
        more.to_str().unwrap(),
        "--plies",
        "4",
        "--depth",
        "4",
        "--positions",
        "20",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(file::load(&more).unwrap().len() >= book.len().min(20));
}
