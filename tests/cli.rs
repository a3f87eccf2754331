//! The script-facing subcommands through the real binary: show, solve, analyze, bench.

mod common;

use common::{assert_clean_error, outflank, outflank_stdin, shared_data, text};
use std::io::Write;
use std::process::{Command, Output, Stdio};

#[test]
fn show_a_transcript() {
    let out = outflank(&["show", "f5d6c3"]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(s.contains("to move: white"), "{s}");
    assert!(s.contains("legal moves: d3 f3 f4 g5"), "{s}");
    assert!(s.contains("black (X) 5, white (O) 2"), "{s}");
}

#[test]
fn show_a_board_string_and_a_ggf_game() {
    let out = outflank(&[
        "show",
        "---------------------------OX------XO--------------------------- X",
    ]);
    assert!(text(&out.stdout).contains("legal moves: d3 c4 f5 e6"));
    let ggf = "(;GM[Othello]PC[test]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[f5//1.2]W[d6];)";
    let out = outflank(&["show", ggf]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("to move: black"));
}

#[test]
fn show_a_finished_game() {
    // The shortest game: 9 moves, black wipes out white.
    let out = outflank(&["show", "f5d6c5f4e3f6g5e6e7"]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(s.contains("game over: black wins by 64"), "{s}");
}

#[test]
fn bad_positions_are_clear_errors() {
    assert_clean_error(&outflank(&["show", "f5z9"]), "unknown move \"z9\"");
    assert_clean_error(&outflank(&["show", "f5f5"]), "f5");
    assert_clean_error(&outflank(&["show", "XXXX X"]), "cannot read position");
    assert_clean_error(&outflank(&["show", "(;GM[Othello]BO[10 *];)"]), "GGF");
    assert_clean_error(&outflank(&["show", "(;GM[Othello]B[f5]"]), "GGF");
    assert_clean_error(&outflank(&["show", ""]), "empty position");
    assert_clean_error(
        &outflank(&["show", "f5d6c3q1"]),
        "black X x B b *, white O o W w 0",
    );
}

#[test]
fn a_file_of_positions_is_read() {
    let dir = std::env::temp_dir().join(format!("outflank-cli-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.txt");
    std::fs::write(&file, "\u{feff}\nf5d6c3\nf5f6\n").unwrap();
    let f = file.to_str().unwrap();
    // `show` takes the first position; `analyze` every one, as from stdin.
    let s = text(&outflank(&["show", f]).stdout);
    assert!(s.contains("legal moves: d3 f3 f4 g5"), "{s}");
    let out = outflank(&["analyze", f, "--depth", "2", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    std::fs::write(&file, "f5d6c3\nf5f5\n").unwrap();
    assert_clean_error(&outflank(&["analyze", f]), "position 2 of 2");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_option_exits_2() {
    let out = outflank(&["solve", "--frobnicate", "x.obf"]);
    assert_clean_error(&out, "--frobnicate");
    // Values out of range are refused, not clamped.
    assert_clean_error(&outflank(&["analyze", "f5", "--threads", "0"]), "--threads");
    assert_clean_error(&outflank(&["gtp", "--threads", "100000"]), "--threads");
    assert_clean_error(&outflank(&["analyze", "f5", "--depth", "61"]), "--depth");
    assert_clean_error(&outflank(&["analyze", "f5", "--depth", "0"]), "--depth");
    assert_clean_error(&outflank(&["analyze", "f5", "--multipv", "0"]), "--multipv");
    assert_clean_error(&outflank(&["solve", "x.obf", "--hash", "0"]), "--hash");
    assert_clean_error(&outflank(&["bench", "--positions", "21"]), "--positions");
    let engines = ["--engine", "name=a,cmd=a", "--engine", "name=b,cmd=b"];
    let mut args = vec!["match", "--concurrency", "0"];
    args.extend(engines);
    assert_clean_error(&outflank(&args), "--concurrency");
    // A missing argument is named.
    assert_clean_error(&outflank(&["solve"]), "<FILE>");
}

#[test]
fn empty_input_and_finished_games() {
    let dir = std::env::temp_dir().join(format!("outflank-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.obf");
    std::fs::write(&empty, "% only a comment\n\n").unwrap();
    assert_clean_error(
        &outflank(&["solve", empty.to_str().unwrap()]),
        "no position",
    );
    assert_clean_error(&outflank_stdin(&["analyze", "-"], "\n  \n"), "no position");
    let book = dir.join("empty.book");
    assert_clean_error(
        &outflank_stdin(
            &["book", "learn", "--book", book.to_str().unwrap(), "-"],
            "",
        ),
        "no games to learn in stdin",
    );
    assert!(!book.exists());
    // A finished game (40-24, nothing to play) scores its final result.
    let done = dir.join("done.obf");
    std::fs::write(&done, format!("{}{} X;\n", "X".repeat(40), "O".repeat(24))).unwrap();
    let out = outflank(&["solve", done.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["score"], 16);
    assert_eq!(v["move"], serde_json::Value::Null);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "needs /dev/full (Linux)")]
fn a_failed_write_is_an_error_not_a_panic() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    for args in [&["show", "start"][..], &["analyze", "f5", "--depth", "2"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .expect("run outflank");
        assert_clean_error(&out, "cannot write to stdout");
    }
}

#[test]
fn solve_checks_scores_and_exits_1_when_wrong() {
    // FFO #1 (14 empties): G8 scores +18.
    let good =
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;\n";
    let out = outflank_stdin(&["solve", "-"], good);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("g8") && s.contains("+18"), "{s}");
    assert!(s.contains("1 positions, 1 right, 0 wrong"), "{s}");
    let wrong = good.replace("G8:+18", "G8:+20");
    let out = outflank_stdin(&["solve", "-"], &wrong);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("WRONG"));
    // JSON: one object per position.
    let out = outflank_stdin(&["solve", "-", "--json", "--threads", "2"], good);
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("json");
    assert_eq!(v["score"], 18);
    assert_eq!(v["move"], "g8");
    assert_eq!(v["ok"], true);
    // WLD.
    let out = outflank_stdin(&["solve", "-", "--wld", "--json"], good);
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("json");
    assert_eq!(v["score"], 1);
}

/// Edax's hard sets score every move and end each line with `--:-127;` (its "no pass"
/// entry): solve reads them unchanged, and `--positions` takes some of them.
#[test]
#[cfg_attr(
    outflank_no_shared_data,
    ignore = "needs ../shared/data, missing when the tests were built (set OUTFLANK_SHARED)"
)]
fn solve_reads_edax_hard_sets() {
    let file = shared_data().join("problems/hard-20.obf");
    let file = file.to_str().unwrap();
    let out = outflank(&["solve", file, "--positions", "1-2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("2 positions, 2 right, 0 wrong"), "{s}");
    // Position 2 of the file is numbered 2, whatever the range.
    let out = outflank(&["solve", file, "--positions", "2", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("json");
    assert_eq!(
        (v["index"].clone(), v["score"].clone()),
        (2.into(), (-10).into())
    );
    assert_clean_error(
        &outflank(&["solve", file, "--positions", "276-277"]),
        "--positions 276-277: there are only 276 positions",
    );
    assert_clean_error(
        &outflank(&["solve", file, "--positions", "3-2"]),
        "--positions",
    );
}

/// `--positions` with shards: the shards of a range merge into what one process writes.
#[test]
fn solve_positions_in_shards() {
    let obf = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18;\n";
    let dir = common::temp_dir("cli", "solve-range");
    let file = dir.join("three.obf");
    std::fs::write(&file, obf.repeat(3)).unwrap();
    let file = file.to_str().unwrap();
    let one = outflank(&["solve", file, "--positions", "2-3", "--json"]);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    let indexes = |out: &[u8]| -> Vec<u64> {
        text(out)
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["index"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    };
    assert_eq!(indexes(&one.stdout), [2, 3]);
    let shard_dir = dir.to_str().unwrap();
    for k in ["0/2", "1/2"] {
        let args = [
            "solve",
            file,
            "--positions",
            "2-3",
            "--json",
            "--shard",
            k,
            "--shard-dir",
            shard_dir,
        ];
        assert_eq!(outflank(&args).status.code(), Some(0));
    }
    let merged = outflank(&["merge", shard_dir]);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(indexes(&merged.stdout), [2, 3]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files saved by editors that start UTF-8 with a byte-order mark read like any other.
#[test]
fn a_byte_order_mark_is_not_part_of_the_input() {
    let obf = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18;\n";
    let out = outflank_stdin(&["solve", "-", "--json"], &format!("\u{feff}{obf}"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("json");
    assert_eq!(v["score"], 18);
    let out = outflank_stdin(&["analyze", "-", "--depth", "2"], "\u{feff}f5d6\nf5f6\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).matches("depth 2").count(), 2);
    let ggf = "\u{feff}(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5];)";
    let out = outflank(&["show", ggf]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn solve_rejects_impossible_boards() {
    // The centre is empty: no game reaches this.
    let bad = "XXXXXXXXXXXXXXXXXXXXXXXXXXX--XXXXXX--XXXXXXXXXXXXXXXXXXXXXXXXXXX X; A1:+0;\n";
    assert_clean_error(&outflank_stdin(&["solve", "-"], bad), "line 1");
    assert_clean_error(&outflank(&["solve", "/nonexistent/file.obf"]), "reading");
}

#[test]
fn analyze_depth_multipv_and_json() {
    let out = outflank(&["analyze", "f5", "--depth", "6", "--multipv", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("depth 6"), "{s}");
    assert!(s.contains("  1. ") && s.contains("  3. "), "{s}");
    let out = outflank_stdin(
        &["analyze", "-", "--depth", "4", "--json"],
        "f5d6\n\nf5f6\n",
    );
    assert!(out.status.success());
    let lines: Vec<_> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2);
    for l in lines {
        let v: serde_json::Value = serde_json::from_str(&l).expect("json");
        assert_eq!(v["depth"], 4);
        assert!(!v["moves"].as_array().expect("moves").is_empty());
    }
}

#[test]
fn analyze_exact_agrees_with_solve() {
    let pos = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
    let out = outflank(&["analyze", pos, "--exact", "--json"]);
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("json");
    assert_eq!(v["solve"], "exact");
    assert_eq!(v["moves"][0]["move"], "g8");
    assert_eq!(v["moves"][0]["score"], 18);
    // A time limit caps a solve (here it has time to finish).
    let out = outflank(&["analyze", pos, "--exact", "--time", "60", "--json"]);
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("json");
    assert_eq!(
        (v["solve"].as_str(), v["moves"][0]["score"].as_i64()),
        (Some("exact"), Some(18))
    );
    // A finished game has nothing to search.
    let out = outflank(&["analyze", "f5d6c5f4e3f6g5e6e7"]);
    let s = text(&out.stdout);
    assert!(
        s.contains("  game over  0 nodes") && s.ends_with("  game over\n"),
        "{s}"
    );
}

#[test]
fn analyze_node_budget_is_reproducible_and_deepens_with_more() {
    let run = |nodes: &str| -> serde_json::Value {
        let out = outflank(&["analyze", "f5d6c3", "--nodes", nodes, "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_str(text(&out.stdout).trim()).expect("json")
    };
    let (a, b) = (run("200000"), run("200000"));
    // One thread: the same budget gives the same search, node for node.
    assert_eq!(a["nodes"], b["nodes"]);
    assert_eq!(a["moves"], b["moves"]);
    let nodes = a["nodes"].as_u64().expect("nodes");
    assert!((200_000..=200_000 + 100_000).contains(&nodes), "{nodes}");
    // Alone, the budget sets how deep the search goes, not the default depth.
    let big = run("2000000");
    assert!(big["depth"].as_u64() > a["depth"].as_u64(), "{a} / {big}");
    assert!(big["depth"].as_u64() > Some(12), "{big}");
    // With a depth, the depth still bounds it.
    let out = outflank(&["analyze", "f5d6c3", "--nodes", "2000000", "--depth", "4"]);
    assert!(
        text(&out.stdout).contains("depth 4 "),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        outflank(&["analyze", "f5", "--nodes", "0"]).status.code(),
        Some(2)
    );
}

#[test]
fn analyze_game_reviews_every_move() {
    // FFO #1 (14 empties), then the first legal move in board order each ply: a game with
    // mistakes, and passes, to review with exact solves.
    let ffo1 = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
    let start = outflank::notation::parse_position(ffo1).expect("FFO #1");
    let mut game = start.clone();
    while !game.is_over() {
        let pos = game.position();
        let mv = pos.legal_moves()[0];
        game.play(mv).expect("legal");
    }
    let moves = outflank::notation::transcript(&game);
    let input = format!(
        "{ffo1};{}",
        moves.trim_start_matches(ffo1).trim_start_matches(';')
    );
    let out = outflank(&["analyze", &input, "--game", "--exact", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let played: Vec<(usize, outflank::Move)> = game
        .moves()
        .iter()
        .enumerate()
        .filter(|(_, m)| **m != outflank::Move::Pass)
        .map(|(i, m)| (i + 1, *m))
        .collect();
    assert_eq!(rows.len(), played.len());
    let mut lost = [0, 0];
    for (k, (row, (ply, mv))) in rows.iter().zip(&played).enumerate() {
        assert_eq!(row["ply"], *ply as u64);
        assert_eq!(row["move"], mv.to_string());
        assert_eq!(row["solve"], "exact");
        let (score, best) = (
            row["score"].as_i64().unwrap(),
            row["best_score"].as_i64().unwrap(),
        );
        assert_eq!(row["loss"].as_i64(), Some(best - score));
        assert!(best >= score, "{row}");
        lost[usize::from(row["player"] == "white")] += best - score;
        // Exact scores chain: the move's score is the next position's best, seen from the
        // other side (from the same side after a pass), or the final result after the last.
        let sign = |same: bool| if same { 1 } else { -1 };
        let expected = match rows.get(k + 1) {
            Some(next) => {
                sign(next["player"] == row["player"]) * next["best_score"].as_i64().unwrap()
            }
            None => sign(row["player"] == "black") * i64::from(game.result().unwrap()),
        };
        assert_eq!(score, expected, "{row}");
    }
    // The first-legal-move game throws discs away.
    assert!(lost[0] + lost[1] > 0);
    let summary = text(&out.stderr);
    let black_moves = rows.iter().filter(|r| r["player"] == "black").count();
    let black = format!("black: {black_moves} moves, {} lost in all", lost[0]);
    assert!(summary.contains(&black), "{summary}");
    assert!(
        summary.contains(&format!("{} lost in all", lost[1])),
        "{summary}"
    );
    // The text table: a header, one row per move, the summary.
    let out = outflank(&["analyze", &input, "--game", "--depth", "4"]);
    let s = text(&out.stdout);
    assert_eq!(s.lines().count(), 2 + played.len() + 1, "{s}");
    assert!(s.lines().last().unwrap().contains("lost in all"), "{s}");
}

#[test]
fn analyze_bad_input_line_names_it() {
    let out = outflank_stdin(&["analyze", "-", "--depth", "2"], "f5\nnonsense\n");
    assert_clean_error(&out, "position 2 of 2");
    let out = outflank(&["analyze", "f5", "--time", "-1"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bench_runs_a_small_workload() {
    let out = outflank(&["bench", "--positions", "3", "--depth", "4"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("signature") && s.contains("0 wrong"), "{s}");
}

/// Output into a pipe whose reader has gone (`outflank ... | head`): the process ends
/// quietly, without a panic.
#[test]
fn closed_stdout_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["analyze", "-", "--depth", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run outflank");
    // The reader goes before anything is written.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    // The process may already be gone when a later line is written.
    let _ = stdin.write_all("f5\nf5d6\nf5d6c3\n".repeat(50).as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
    // `match` keeps SIGPIPE ignored (its engines are pipes too), and ends as quietly.
    let bin = env!("CARGO_BIN_EXE_outflank");
    let a = format!("name=a,cmd={bin} gtp --level 1");
    let b = format!("name=b,cmd={bin} gtp --level 1");
    let mut child = Command::new(bin)
        .args(["match", "--engine", &a, "--engine", &b, "--games", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run outflank");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let err = text(&out.stderr);
    assert_eq!(err, "");
    assert_eq!(out.status.code(), Some(141));
}

#[test]
fn damaged_weights_files_are_refused_in_one_short_line() {
    let shipped = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/eval.ofw"))
        .expect("the shipped weights");
    let dir = std::env::temp_dir().join(format!("outflank-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("eval.ofw");
    let path_text = path.to_str().unwrap().to_string();
    let try_file = |bytes: &[u8]| -> Output {
        std::fs::write(&path, bytes).unwrap();
        outflank(&[
            "analyze",
            "f5d6c3",
            "--depth",
            "1",
            "--eval-file",
            &path_text,
        ])
    };
    // The shipped file itself is accepted.
    assert!(try_file(&shipped).status.success());
    let mut damaged: Vec<(String, Vec<u8>)> = Vec::new();
    for len in [
        0,
        5,
        8,
        12,
        16,
        17,
        1000,
        shipped.len() / 2,
        shipped.len() - 1,
    ] {
        damaged.push((format!("truncated to {len}"), shipped[..len].to_vec()));
    }
    for junk in [&b"\n"[..], b"junk", &[0u8; 4096]] {
        let mut b = shipped.clone();
        b.extend_from_slice(junk);
        damaged.push((format!("{} bytes appended", junk.len()), b));
    }
    // One byte changed: in the header, the stream (spread over it) and the checksum.
    let mut at: Vec<usize> = (0..20).collect();
    at.extend((1..40).map(|i| i * (shipped.len() / 40)));
    at.extend(shipped.len() - 8..shipped.len());
    for i in at {
        let mut b = shipped.clone();
        b[i] ^= 0x10;
        damaged.push((format!("byte {i} changed"), b));
    }
    for (what, bytes) in &damaged {
        let out = try_file(bytes);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.len() < 200, "{what}: {} bytes: {err}", err.len());
        assert!(err.contains("eval.ofw"), "{what}: {err}");
        assert!(out.stdout.is_empty(), "{what}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The depth that `analyze f5d6c3 --time 1` reaches with a table of `hash_mb`.
fn depth_at_one_second(hash_mb: &str) -> u32 {
    let out = outflank(&[
        "analyze",
        "f5d6c3",
        "--time",
        "1",
        "--threads",
        "1",
        "--hash",
        hash_mb,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows = text(&out.stdout);
    let (_, rest) = rows.split_once("  depth ").expect("a result row");
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn the_first_search_does_not_pay_for_the_table() {
    // A fresh table's pages are mapped when it is made, before the clock starts: the first
    // one-second search with a 1 GB table reaches the depth it reaches with a 1 MB one,
    // within a ply. (Before, the page faults of the big table cost that search most of its
    // second: depth 6-9 against 17.) A loaded machine can slow one run: three tries.
    let mut tries = Vec::new();
    for _ in 0..3 {
        let (big, small) = (depth_at_one_second("1024"), depth_at_one_second("1"));
        if big + 1 >= small {
            return;
        }
        tries.push((big, small));
    }
    panic!("the first search with a fresh 1 GB table is shallower: {tries:?}");
}

#[test]
fn perft_refuses_a_depth_it_cannot_finish() {
    let t = std::time::Instant::now();
    let out = outflank(&["perft", "99"]);
    assert_clean_error(&out, "refused");
    assert!(text(&out.stderr).contains("years"), "{}", text(&out.stderr));
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    // From a position near the end, any depth runs to the end of the game.
    let out = outflank(&[
        "perft",
        "40",
        "--position",
        "XXXXXXXXOOOOOOOOXXXXXXXXOOOOOOOOXXXXXXXXOOOOOOOOXXXX-O-O-OOXXXX- X",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("perft 40 = "));
}
