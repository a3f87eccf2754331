//! `outflank accuracy` through the real binary: fixed-depth searches judged against the exact
//! scores of every move. A search as deep as the empties solves, so there it must choose a
//! best move and give its exact score: an honest oracle.

mod common;

use common::{assert_clean_error, outflank, outflank_stdin, shared_data, temp_dir, text};
use outflank::board::Move;
use outflank::notation::parse_obf;
use outflank::search::reference_score;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;

/// Few-empty positions (at most 12 empties), every legal move scored.
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/accuracy-small.obf")
}

/// Its path as an argument.
fn fixture_arg() -> String {
    fixture().to_str().unwrap().to_string()
}

/// The text summary: each `name  value  (count)` line as name -> (value, count).
fn summary(out: &str) -> HashMap<String, (String, Option<u64>)> {
    let start = out
        .lines()
        .position(|l| l.starts_with("positions "))
        .unwrap_or_else(|| panic!("no summary in {out}"));
    out.lines()
        .skip(start)
        .map(|l| {
            // The name is the text before the first run of two spaces.
            let (name, rest) = l.split_once("  ").expect("name and value");
            let mut words = rest.split_whitespace();
            let value = words.next().unwrap().to_string();
            let count = words
                .next()
                .and_then(|c| c.trim_matches(['(', ')']).parse().ok());
            (name.trim().to_string(), (value, count))
        })
        .collect()
}

/// The table's rows: the first word of each is the position's number.
fn rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .skip(1)
        .take_while(|l| !l.starts_with("positions "))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

fn run_json(args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    let out = outflank(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

#[test]
fn the_fixture_scores_every_move_exactly() {
    let entries = parse_obf(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    assert_eq!(entries.len(), 7);
    for e in &entries {
        let b = e.position.board;
        assert!(b.empty_count() <= 12);
        let legal = e.position.legal_moves();
        assert_eq!(e.scores.len(), legal.len());
        for &(mv, score) in &e.scores {
            assert!(legal.contains(&mv));
            let next = match mv {
                Move::Play(sq) => b.play(sq).unwrap(),
                Move::Pass => b.passed(),
            };
            assert_eq!(-reference_score(next, -64, 64), score, "{mv}");
        }
    }
}

#[test]
fn a_search_as_deep_as_the_empties_is_always_right() {
    let f = fixture_arg();
    let out = outflank(&["accuracy", &f, "--depth", "12"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.starts_with("  # emp move score"), "{s}");
    let rows = rows(&s);
    assert_eq!(rows.len(), 7, "{s}");
    for r in &rows {
        // # emp move score best exact loss error nodes time
        assert_eq!(r[6], "0", "loss: {s}");
        assert_eq!(r[7], "+0", "error: {s}");
        assert_eq!(r[3], r[5], "score is the exact best: {s}");
        assert!(r[4].split('/').any(|m| m == r[2]), "a best move: {s}");
    }
    let sum = summary(&s);
    assert_eq!(sum["positions"].0, "7");
    for name in [
        "best move",
        "top 2",
        "top 3",
        "within 3",
        "within 6",
        "within 9",
    ] {
        assert_eq!(sum[name], ("100.0%".to_string(), Some(7)), "{name}");
    }
    assert_eq!(sum["MAE"].0, "0.00");
    assert_eq!(sum["mean signed error"].0, "+0.00");
    assert_eq!(sum["mean loss"].0, "0.00");
    // Without probcut too.
    let v = run_json(&["accuracy", &f, "--depth", "12", "--selectivity", "100"]);
    assert_eq!(v["selectivity"], 100);
    assert_eq!(v["summary"]["best"], 7);
    assert_eq!(v["summary"]["mae"], 0.0);
    assert!(
        v["positions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["solved"] == true)
    );
}

#[test]
fn json_agrees_with_the_text() {
    // Not deep enough to solve: some moves are wrong and some scores off. With one thread
    // and a cleared table for each position, both runs search the same.
    let f = fixture_arg();
    let args = ["accuracy", f.as_str(), "--depth", "2"];
    let out = outflank(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let v = run_json(&args);
    assert_eq!(v["depth"], 2);
    assert_eq!(v["selectivity"], 95);
    assert_eq!(v["threads"], 1);
    let sum = summary(&s);
    let j = &v["summary"];
    assert_eq!(j["positions"], 7);
    assert!(
        j["best"].as_u64().unwrap() < 7,
        "depth 2 is not that good: {s}"
    );
    for (name, key) in [
        ("best move", "best"),
        ("top 2", "top2"),
        ("top 3", "top3"),
        ("within 3", "within3"),
        ("within 6", "within6"),
        ("within 9", "within9"),
    ] {
        assert_eq!(sum[name].1, j[key].as_u64(), "{name}");
        let pct = format!("{:.1}%", j[format!("{key}_percent")].as_f64().unwrap());
        assert_eq!(sum[name].0, pct, "{name}");
    }
    assert_eq!(sum["MAE"].0, format!("{:.2}", j["mae"].as_f64().unwrap()));
    let signed = format!("{:+.2}", j["mean_error"].as_f64().unwrap());
    assert_eq!(sum["mean signed error"].0, signed);
    assert_eq!(
        sum["mean loss"].0,
        format!("{:.2}", j["mean_loss"].as_f64().unwrap())
    );
    assert_eq!(sum["nodes"].0, j["nodes"].to_string());
    // Row by row: the same moves, scores and judgements.
    let positions = v["positions"].as_array().unwrap();
    let rows = rows(&s);
    assert_eq!(rows.len(), positions.len());
    let mut mae = 0;
    for (r, p) in rows.iter().zip(positions) {
        assert_eq!(r[0], p["index"].to_string());
        assert_eq!(r[1], p["empties"].to_string());
        assert_eq!(r[2], p["move"].as_str().unwrap());
        assert_eq!(r[3], format!("{:+}", p["score"].as_i64().unwrap()));
        assert_eq!(r[5], format!("{:+}", p["best"].as_i64().unwrap()));
        assert_eq!(r[6], p["loss"].to_string());
        assert_eq!(r[7], format!("{:+}", p["error"].as_i64().unwrap()));
        assert_eq!(r[8], p["nodes"].to_string());
        let error = p["score"].as_i64().unwrap() - p["best"].as_i64().unwrap();
        assert_eq!(p["error"].as_i64(), Some(error));
        mae += error.abs();
    }
    assert!((j["mae"].as_f64().unwrap() - mae as f64 / 7.0).abs() < 1e-9);
}

#[test]
fn positions_range_is_respected() {
    let f = fixture_arg();
    let out = outflank(&["accuracy", &f, "--depth", "4", "--positions", "2-3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let numbers: Vec<String> = rows(&s).into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(numbers, ["2", "3"], "{s}");
    assert_eq!(summary(&s)["positions"].0, "2");
    let v = run_json(&["accuracy", &f, "--depth", "4", "--positions", "7"]);
    let p = v["positions"].as_array().unwrap();
    assert_eq!(p.len(), 1);
    // The seventh position is on the tenth line (after three comment lines): a pass.
    assert_eq!(
        (p[0]["index"].clone(), p[0]["line"].clone()),
        (7.into(), 10.into())
    );
    assert_eq!(p[0]["move"], "PA");
    assert_eq!(v["summary"]["positions"], 1);
    assert_clean_error(
        &outflank(&["accuracy", &f, "--depth", "4", "--positions", "6-8"]),
        "--positions 6-8: there are only 7 positions",
    );
    assert_clean_error(
        &outflank(&["accuracy", &f, "--depth", "4", "--positions", "0-2"]),
        "--positions",
    );
}

#[test]
fn bad_input_is_one_clear_line() {
    let dir = temp_dir("accuracy", "bad");
    let good = std::fs::read_to_string(fixture()).unwrap();
    let good_line = good.lines().find(|l| !l.starts_with('%')).unwrap();
    // A line without scores: named, before any search.
    let board = good_line.split(';').next().unwrap();
    let no_scores = dir.join("no-scores.obf");
    std::fs::write(&no_scores, format!("{good_line}\n% comment\n{board};\n")).unwrap();
    let f = no_scores.to_str().unwrap();
    let out = outflank(&["accuracy", f, "--depth", "4"]);
    assert_clean_error(&out, "line 3 (position 2): no scored moves");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    // Position 1 alone has its scores.
    let out = outflank(&["accuracy", f, "--depth", "4", "--positions", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A malformed line.
    let bad = good_line.replacen(":+2", ":+x", 1);
    let out = outflank_stdin(
        &["accuracy", "-", "--depth", "4"],
        &format!("{good_line}\n{bad}\n"),
    );
    assert_clean_error(&out, "OBF line 2: bad score \"+x\"");
    // A move scored twice.
    let twice = format!("{good_line} A3:+2;\n");
    let out = outflank_stdin(&["accuracy", "-", "--depth", "4"], &twice);
    assert_clean_error(&out, "line 1 (position 1): move a3 is scored twice");
    // No file, an empty one, no depth, a selectivity the engine lacks.
    assert_clean_error(
        &outflank(&["accuracy", "/nonexistent/set.obf", "--depth", "4"]),
        "reading /nonexistent/set.obf",
    );
    assert_clean_error(
        &outflank_stdin(&["accuracy", "-", "--depth", "4"], "% x\n"),
        "no position",
    );
    assert_clean_error(&outflank(&["accuracy", f]), "--depth");
    assert_clean_error(&outflank(&["accuracy", f, "--depth", "0"]), "--depth");
    let out = outflank(&["accuracy", f, "--depth", "4", "--selectivity", "96"]);
    assert_clean_error(&out, "73, 87, 95, 98, 99, 100");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first positions of Edax's hard-20 set (20 empties), searched to depth 20: exact.
#[test]
#[cfg_attr(
    outflank_no_shared_data,
    ignore = "needs ../shared/data, missing when the tests were built (set OUTFLANK_SHARED)"
)]
fn hard_20_at_depth_20_is_exact() {
    let file = shared_data().join("problems/hard-20.obf");
    let file = file.to_str().unwrap();
    let args = ["accuracy", file, "--depth", "20", "--positions", "1-3"];
    let out = outflank(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let sum = summary(&s);
    assert_eq!(sum["positions"].0, "3");
    assert_eq!(sum["best move"], ("100.0%".to_string(), Some(3)), "{s}");
    assert_eq!(sum["MAE"].0, "0.00", "{s}");
    let v = run_json(&[
        "accuracy",
        file,
        "--depth",
        "20",
        "--positions",
        "1-2",
        "--threads",
        "2",
    ]);
    let p = v["positions"].as_array().unwrap();
    // The file's best scores: e1 +0, then e1 -10.
    assert_eq!(
        (p[0]["move"].clone(), p[0]["score"].clone()),
        ("e1".into(), 0.into())
    );
    assert_eq!(
        (p[1]["move"].clone(), p[1]["score"].clone()),
        ("e1".into(), (-10).into())
    );
    assert_eq!(v["summary"]["mean_loss"], 0.0);
    assert_eq!(v["threads"], 2);
}
