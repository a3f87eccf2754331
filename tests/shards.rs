//! Long steps in shards (`--shard K/N`) and `outflank merge`, through the real binary without
//! a scheduler: any number of shards gives one process's bytes; a missing, truncated,
//! damaged or other-version shard is named in one error line and nothing is written.

mod common;

use common::{ok, outflank, outflank_stdin, s, temp_dir, text};
use std::path::{Path, PathBuf};

/// FFO #1-#4 (14 empties), with their scores.
const OBF: &str = "\
--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;
-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X; A4:+10; B2:+0;
----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X; D1:+2; G3:+0;
-XXXXXX-X-XXXOO-XOXXXOOXXXOXOOOX-OXOOXXX--OOOXXX--OOXX----XOXXO- X; H8:+0; A5:+0;
";

/// A fresh directory for one test.
fn temp(name: &str) -> PathBuf {
    temp_dir("shards", name)
}

/// Runs `args` as shards 0..n into `dir`, with `extra` after the shard options.
fn shards(args: &[&str], n: u32, dir: &Path, stdin: Option<&str>) {
    for k in 0..n {
        let shard = format!("{k}/{n}");
        let mut a = args.to_vec();
        a.extend_from_slice(&["--shard", &shard, "--shard-dir", s(dir)]);
        match stdin {
            Some(input) => ok(outflank_stdin(&a, input)),
            None => ok(outflank(&a)),
        };
    }
}

/// The text with the measured times (which no two runs share) replaced by `T`.
fn without_times(t: &str) -> String {
    let mut out = String::new();
    for line in t.lines() {
        let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        // A row of solve's table: time(s) and nodes/s are the 6th and 8th columns.
        if words.len() >= 8 && words[0].parse::<u32>().is_ok() {
            words[5] = "T".into();
            words[7] = "T".into();
        }
        for w in &mut words {
            if w.contains('.') && w.trim_end_matches(',').parse::<f64>().is_ok() {
                *w = "T".into();
            }
        }
        let line = words.join(" ");
        // JSON: "time":0.0123 and "nps":123.0
        let mut line = line;
        for key in ["\"time\":", "\"nps\":"] {
            while let Some(i) = line.find(key) {
                let rest = &line[i + key.len()..];
                let end = rest.find([',', '}']).unwrap_or(rest.len());
                line = format!("{}\"T\"{}", &line[..i], &rest[end..]);
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    // The nodes/s of a summary follows from the time.
    out.lines()
        .map(|l| match l.find(" nodes, ") {
            Some(i) => l[..i].to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn selfplay_in_any_number_of_shards_is_one_process_byte_for_byte() {
    let dir = temp("selfplay");
    let one = dir.join("one.wtb");
    let step = [
        "train", "selfplay", "--games", "7", "--depth", "3", "--seed", "9",
    ];
    let mut a = step.to_vec();
    a.extend_from_slice(&["--out", s(&one), "--threads", "2"]);
    ok(outflank(&a));
    let one = std::fs::read(&one).unwrap();
    assert_eq!(one.len(), 16 + 7 * 68);
    for n in [1, 2, 3] {
        let d = dir.join(format!("n{n}"));
        let mut a = step.to_vec();
        a.extend_from_slice(&["--threads", "1"]);
        shards(&a, n, &d, None);
        let merged = d.join("merged.wtb");
        let out = ok(outflank(&["merge", s(&d), "--out", s(&merged)]));
        assert!(text(&out.stderr).contains("merged into"));
        assert!(std::fs::read(&merged).unwrap() == one, "{n} shards differ");
        // Listed files in any order give the same bytes (to stdout).
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "shard"))
            .collect();
        files.sort();
        files.reverse();
        let mut args = vec!["merge"];
        args.extend(files.iter().map(|p| s(p)));
        assert!(ok(outflank(&args)).stdout == one);
    }
    assert!(dir.join("n3/selfplay-seed9-2of3.shard").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bad shard set: exit status 2, one line on stderr naming `file`, and no output file.
fn refused(dir: &Path, file: &str, needle: &str) {
    let out_file = dir.join("merged.wtb");
    let out = outflank(&["merge", s(dir), "--out", s(&out_file)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(file), "{file} not named in {err}");
    assert!(err.contains(needle), "{needle} not in {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out_file.exists(), "a merge was written");
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".shard"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_missing_truncated_damaged_or_foreign_shard_is_named_and_nothing_is_merged() {
    let dir = temp("bad");
    let step = [
        "train", "selfplay", "--games", "4", "--depth", "2", "--seed", "3",
    ];
    shards(&step, 3, &dir, None);
    let name = |k: u32| format!("selfplay-seed3-{k}of3.shard");
    let path = |k: u32| dir.join(name(k));
    let good = std::fs::read(path(1)).unwrap();

    std::fs::remove_file(path(1)).unwrap();
    refused(&dir, &name(1), "shard 1/3 is missing");
    assert_eq!(
        text(&ok(outflank(&["merge", "--missing", "3", s(&dir)])).stdout),
        "1\n"
    );

    std::fs::write(path(1), &good[..good.len() - 5]).unwrap();
    refused(&dir, &name(1), "truncated");
    std::fs::write(path(1), [&good[..], b"junk"].concat()).unwrap();
    refused(&dir, &name(1), "4 bytes too long");

    let mut damaged = good.clone();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x10;
    std::fs::write(path(1), &damaged).unwrap();
    refused(&dir, &name(1), "checksum");
    assert_eq!(
        text(&ok(outflank(&["merge", "--missing", "3", s(&dir)])).stdout),
        "1\n"
    );

    let mut other = good.clone();
    other[8] = 2; // the format version
    std::fs::write(path(1), &other).unwrap();
    refused(&dir, &name(1), "format version 2");

    std::fs::write(path(1), b"not a shard at all").unwrap();
    refused(&dir, &name(1), "not an Outflank shard file");

    // A shard of another run (another seed) among them.
    std::fs::write(path(1), &good).unwrap();
    let other_run = dir.join("other");
    ok(outflank(&[
        "train",
        "selfplay",
        "--games",
        "4",
        "--depth",
        "2",
        "--seed",
        "4",
        "--shard",
        "1/3",
        "--shard-dir",
        s(&other_run),
    ]));
    std::fs::remove_file(path(1)).unwrap();
    std::fs::rename(other_run.join("selfplay-seed4-1of3.shard"), path(1)).unwrap();
    std::fs::remove_dir(&other_run).unwrap();
    refused(&dir, &name(1), "another run");
    // ... which `--missing` does not take for the run's shard 1 either.
    let out = outflank(&["merge", "--missing", "3", s(&dir)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stdout).is_empty());
    assert!(text(&out.stderr).contains("a shard of another run"));

    std::fs::write(path(1), &good).unwrap();
    // The same shard twice (a copy under another name).
    let copy = dir.join("copy-of-1.shard");
    std::fs::write(&copy, &good).unwrap();
    refused(&dir, "copy-of-1.shard", "given twice");
    std::fs::remove_file(&copy).unwrap();
    assert_eq!(
        text(&ok(outflank(&["merge", "--missing", "3", s(&dir)])).stdout),
        ""
    );
    ok(outflank(&[
        "merge",
        s(&dir),
        "--out",
        s(&dir.join("x.wtb")),
    ]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_shard_options_are_one_line_errors() {
    for bad in ["4/4", "1/0", "x", "-1/2", "3"] {
        let out = outflank(&[
            "train",
            "selfplay",
            "--games",
            "2",
            &format!("--shard={bad}"),
            "--shard-dir",
            "/tmp",
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("--shard"), "{err}");
    }
    // --out and --shard are two ways of saying where the games go: one at a time.
    let out = outflank(&[
        "train", "selfplay", "--games", "2", "--shard", "0/2", "--out", "x.wtb",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let empty = temp("empty");
    let out = outflank(&["merge", s(&empty)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{}: no shard files", s(&empty))),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir(&empty).unwrap();
    let out = outflank(&["merge", "/nonexistent/dir/x.shard"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/dir/x.shard"));
}

#[test]
fn depths_outside_1_to_60_and_a_stray_shard_dir_are_refused() {
    let book = temp("depths").join("b.book");
    for args in [
        &["book", "build", "--depth", "0", "--out", s(&book)][..],
        &["book", "build", "--depth", "99", "--out", s(&book)],
        &["book", "learn", "--depth", "0", "--book", s(&book), "x.txt"],
        &["train", "selfplay", "--depth", "0", "--out", "x.wtb"],
        &["train", "selfplay", "--depth", "61", "--out", "x.wtb"],
        &["book", "build", "--shard-dir", "/tmp", "--out", s(&book)],
        &["train", "selfplay", "--shard-dir", "/tmp", "--out", "x.wtb"],
    ] {
        let out = outflank(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("--depth") || err.contains("--shard"), "{err}");
    }
    assert!(!book.exists());
}

#[test]
fn a_shard_of_other_settings_under_the_same_name_is_refused_not_replaced() {
    // Shard files are named for the step and the input: `solve --wld` of the same file into
    // the same directory must not overwrite the exact solve's shard without a word.
    let dir = temp("other-settings");
    let obf = dir.join("ffo.obf");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&obf, OBF).unwrap();
    let exact = ["solve", s(&obf), "--shard", "0/2", "--shard-dir", s(&dir)];
    ok(outflank(&exact));
    let names = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "shard"))
            .collect();
        v.sort();
        v
    };
    let files = names(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let before = std::fs::read(&files[0]).unwrap();
    let wld = [&exact[..], &["--wld"]].concat();
    let out = outflank(&wld);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("a shard of another run"), "{err}");
    assert!(err.contains(s(&files[0])), "{err}");
    assert_eq!(std::fs::read(&files[0]).unwrap(), before);
    // The same settings again replace their own shard; another directory takes the other.
    ok(outflank(&exact));
    let other = dir.join("wld");
    ok(outflank(&[
        "solve",
        s(&obf),
        "--wld",
        "--shard",
        "0/2",
        "--shard-dir",
        s(&other),
    ]));
    assert_eq!(names(&other).len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_shards_merge_to_one_process_output_but_for_the_times() {
    let dir = temp("solve");
    let one = ok(outflank_stdin(&["solve", "-", "--hash", "16"], OBF));
    shards(&["solve", "-", "--hash", "16"], 3, &dir, Some(OBF));
    let merged = ok(outflank(&["merge", s(&dir)]));
    let (one, merged) = (text(&one.stdout), text(&merged.stdout));
    assert!(merged.contains("4 positions, 4 right, 0 wrong"), "{merged}");
    assert_eq!(without_times(&merged), without_times(&one));
    // JSON, and a wrong score: the merge exits with 1 as solve does.
    let wrong = OBF.replace("G8:+18", "G8:+20");
    let d = dir.join("json");
    shards(
        &["solve", "-", "--json", "--hash", "16"],
        2,
        &d,
        Some(&wrong),
    );
    let merged = outflank(&["merge", s(&d)]);
    let one = outflank_stdin(&["solve", "-", "--json", "--hash", "16"], &wrong);
    assert_eq!(merged.status.code(), Some(1));
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(
        without_times(&text(&merged.stdout)),
        without_times(&text(&one.stdout))
    );
    assert_eq!(
        without_times(&text(&merged.stderr)),
        without_times(&text(&one.stderr))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analyze_shards_merge_to_one_shard_output_but_for_the_times() {
    let dir = temp("analyze");
    let input = "f5d6c3d3c4f4f6f3e6e7\nf5f6e6f4e3\nf5d6c5f4e3\nf5f4e3f6d3\nc4c3\n";
    for (args, n) in [
        (vec!["analyze", "-", "--depth", "6", "--hash", "8"], 3),
        (
            vec!["analyze", "-", "--depth", "3", "--game", "--hash", "8"],
            2,
        ),
        (
            vec![
                "analyze", "-", "--depth", "3", "--game", "--json", "--hash", "8",
            ],
            4,
        ),
    ] {
        let d1 = dir.join(format!("{}-1", args.len()));
        let dn = dir.join(format!("{}-n", args.len()));
        shards(&args, 1, &d1, Some(input));
        shards(&args, n, &dn, Some(input));
        let one = ok(outflank(&["merge", s(&d1)]));
        let merged = ok(outflank(&["merge", s(&dn)]));
        assert!(!one.stdout.is_empty());
        assert_eq!(
            without_times(&text(&merged.stdout)),
            without_times(&text(&one.stdout)),
            "{args:?}"
        );
        assert_eq!(text(&merged.stderr), text(&one.stderr), "{args:?}");
        // And what one plain process writes: the nodes too (every line starts from a
        // cleared table in both), only the times differ.
        let plain = ok(outflank_stdin(&args, input));
        assert_eq!(
            without_times(&text(&merged.stdout)),
            without_times(&text(&plain.stdout)),
            "{args:?}"
        );
        assert_eq!(
            without_times(&text(&merged.stderr)),
            without_times(&text(&plain.stderr)),
            "{args:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Shards searched with other probcut parameters (`--probcut-file`) are of another run: a
/// merge refuses to mix them with shards of the shipped parameters, and a run made wholly
/// with the file merges.
#[test]
fn shards_of_other_probcut_parameters_are_another_run() {
    let dir = temp("probcut-file");
    std::fs::create_dir_all(&dir).unwrap();
    let shipped: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/probcut.json"))
            .unwrap(),
    )
    .unwrap();
    let mut wide = shipped;
    wide["sigma"] = serde_json::json!([60.0, 0.0, 0.0, 0.0]);
    wide["sigma_table"] = serde_json::json!([]);
    let pc = dir.join("wide.json");
    std::fs::write(&pc, wide.to_string()).unwrap();
    let input = "f5d6c3d3c4f4f6f3e6e7\nf5f6e6f4e3\n";
    let args = ["analyze", "-", "--depth", "6", "--hash", "8"];
    let mixed = dir.join("mixed");
    let with_file = [&args[..], &["--probcut-file", s(&pc)]].concat();
    for (k, a) in [(0, &args[..]), (1, &with_file[..])] {
        let shard = format!("{k}/2");
        let mut a = a.to_vec();
        a.extend_from_slice(&["--shard", &shard, "--shard-dir", s(&mixed)]);
        ok(outflank_stdin(&a, input));
    }
    let names: Vec<String> = std::fs::read_dir(&mixed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let second = names.iter().find(|n| n.contains("-1of2")).expect("shard 1");
    refused(&mixed, second, "another run");
    let whole = dir.join("whole");
    shards(&with_file, 2, &whole, Some(input));
    ok(outflank(&["merge", s(&whole)]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn data_and_probcut_shards_are_one_process_byte_for_byte() {
    let dir = temp("train");
    let games = dir.join("games.wtb");
    ok(outflank(&[
        "train",
        "selfplay",
        "--games",
        "10",
        "--depth",
        "2",
        "--out",
        s(&games),
    ]));
    let steps: [(&[&str], &str, u32); 2] = [
        (&["train", "data", "--exact-empties", "10"], "samples", 3),
        (
            &[
                "train",
                "probcut",
                "--positions",
                "12",
                "--end-positions",
                "6",
                "--max-depth",
                "4",
            ],
            "json",
            2,
        ),
    ];
    for (step, ext, n) in steps {
        let one = dir.join(format!("one.{ext}"));
        let mut a = step.to_vec();
        a.extend_from_slice(&["--wthor", s(&games), "--out", s(&one)]);
        ok(outflank(&a));
        let d = dir.join(ext);
        let mut a = step.to_vec();
        a.extend_from_slice(&["--wthor", s(&games), "--threads", "1"]);
        shards(&a, n, &d, None);
        let merged = dir.join(format!("merged.{ext}"));
        ok(outflank(&["merge", s(&d), "--out", s(&merged)]));
        let (one, merged) = (
            std::fs::read(&one).unwrap(),
            std::fs::read(&merged).unwrap(),
        );
        assert!(one.len() > 16, "{step:?}");
        assert!(
            merged == one,
            "{step:?}: {n} shards differ from one process"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn book_learn_shards_merge_to_the_same_book() {
    let dir = temp("book");
    let base = base_book(&dir);
    let games = "f5d6c3d3c4f4f6f3e6e7\nf5f6e6f4e3c5c4\nf5f4e3f6d3\nc4c3d3c5b4\nf5d6c5f4e3f6\n";
    let games_file = dir.join("games.txt");
    std::fs::write(&games_file, games).unwrap();
    let learn = [
        "book",
        "learn",
        "--book",
        s(&base),
        s(&games_file),
        "--plies",
        "8",
        "--depth",
        "4",
        "--hash",
        "8",
    ];
    let mut books = Vec::new();
    for n in [1, 3] {
        let d = dir.join(format!("n{n}"));
        shards(&learn, n, &d, None);
        let out = dir.join(format!("merged{n}.book"));
        ok(outflank(&["merge", s(&d), "--out", s(&out)]));
        books.push(std::fs::read(&out).unwrap());
    }
    assert!(books[0] == books[1], "1 and 3 shards give different books");
    // The merged book is a valid book with the games' positions, counted.
    let merged = dir.join("merged3.book");
    let shown = text(&ok(outflank(&["book", "show", "f5", "--book", s(&merged)])).stdout);
    // After f5: d6 (two games), f6 (two), f4 (one).
    for (mv, n) in [("d6", 2), ("f6", 2), ("f4", 1)] {
        assert!(
            shown
                .lines()
                .any(|l| l.contains(&format!(". {mv} ")) && l.contains(&format!("games {n} "))),
            "{mv}: {shown}"
        );
    }
    // As many positions as learning the games one by one; the base book is untouched.
    let plain = dir.join("plain.book");
    std::fs::copy(&base, &plain).unwrap();
    let mut one_by_one = learn.to_vec();
    one_by_one[3] = s(&plain);
    ok(outflank(&one_by_one));
    assert_eq!(std::fs::read(&plain).unwrap().len(), books[0].len());
    assert!(std::fs::read(&base).unwrap().len() < books[0].len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The options of the book-build rounds of the tests.
const ROUND: [&str; 10] = [
    "--plies",
    "6",
    "--depth",
    "4",
    "--width",
    "2",
    "--hash",
    "8",
    "--positions",
    "200",
];

/// Runs a round of `book build` from `from` in `n` shards into `dir`, merges it into
/// `dir/merged.book` and returns its path.
fn build_round(from: &Path, n: u32, dir: &Path) -> PathBuf {
    let mut a = vec!["book", "build", "--from", s(from)];
    a.extend_from_slice(&ROUND);
    shards(&a, n, dir, None);
    let out = dir.join("merged.book");
    ok(outflank(&["merge", s(dir), "--out", s(&out)]));
    out
}

/// A small book to start from, by a plain build.
fn base_book(dir: &Path) -> PathBuf {
    let base = dir.join("base.book");
    ok(outflank(&[
        "book",
        "build",
        "--out",
        s(&base),
        "--plies",
        "3",
        "--depth",
        "3",
        "--positions",
        "6",
        "--hash",
        "8",
    ]));
    base
}

#[test]
fn book_build_rounds_in_any_number_of_shards_give_the_same_books() {
    let dir = temp("build");
    let base = base_book(&dir);
    let mut last = Vec::new();
    for n in [1, 2, 3, 4] {
        let r1 = build_round(&base, n, &dir.join(format!("n{n}-r1")));
        let r2 = build_round(&r1, n, &dir.join(format!("n{n}-r2")));
        let books = [&base, &r1, &r2].map(|p| std::fs::read(p).unwrap());
        // Each round adds positions (24 bytes each).
        assert!(books[0].len() < books[1].len() && books[1].len() < books[2].len());
        if n > 1 {
            assert!(books[1..] == last[..], "{n} shards differ from one");
        }
        last = books[1..].to_vec();
    }
    // The shards of a round are named for the book it starts from.
    let names: Vec<String> = std::fs::read_dir(dir.join("n2-r2"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".shard"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("book-build-input")));
    // The merged book plays: the start position's moves are in it.
    let merged = dir.join("n3-r2/merged.book");
    let shown = text(&ok(outflank(&["book", "show", "start", "--book", s(&merged)])).stdout);
    assert!(shown.contains(" book "), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_book_build_shard_of_another_round_or_truncated_is_refused() {
    let dir = temp("build-bad");
    let base = base_book(&dir);
    let r1 = build_round(&base, 2, &dir.join("r1"));
    let r2 = dir.join("r2");
    let mut a = vec!["book", "build", "--from", s(&r1)];
    a.extend_from_slice(&ROUND);
    shards(&a, 2, &r2, None);
    let name = |d: &Path, k: u32| {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| n.ends_with(&format!("-{k}of2.shard")))
            .unwrap()
    };
    let (old, new) = (name(&dir.join("r1"), 1), name(&r2, 1));
    assert_ne!(old, new, "rounds share a name");
    let good = std::fs::read(r2.join(&new)).unwrap();
    // Round 1's shard 1 among round 2's: another run (another starting book).
    std::fs::remove_file(r2.join(&new)).unwrap();
    std::fs::copy(dir.join("r1").join(&old), r2.join(&old)).unwrap();
    refused(&r2, &old, "a shard of another run");
    std::fs::remove_file(r2.join(&old)).unwrap();
    // A truncated shard.
    std::fs::write(r2.join(&new), &good[..good.len() - 7]).unwrap();
    refused(&r2, &new, "truncated");
    // Whole again: it merges.
    std::fs::write(r2.join(&new), &good).unwrap();
    ok(outflank(&[
        "merge",
        s(&r2),
        "--out",
        s(&dir.join("r2.book")),
    ]));
    // --out belongs to a plain build; a damaged starting book is named.
    let out = outflank(&["book", "build", "--shard", "0/2", "--out", "x.book"]);
    assert_eq!(out.status.code(), Some(2));
    let not_a_book = dir.join("games.txt");
    std::fs::write(&not_a_book, "f5d6\n").unwrap();
    let out = outflank(&[
        "book",
        "build",
        "--from",
        s(&not_a_book),
        "--shard",
        "0/2",
        "--shard-dir",
        s(&dir),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("games.txt") && !err.contains("panicked"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
