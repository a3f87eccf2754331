//! Weights of one phase per number of empties, and weights with optional terms, through the
//! real binary: fitted by `train fit --empties-per-phase 1` or `--terms`, read back by
//! `--eval-file`, and measured by `train eval-error` on a chosen range of exactly solved
//! empties; and samples with deviations from the games (`train data --deviations`).

mod common;

use common::{ok, outflank, s, temp_dir, text};

/// `games` self-play games at depth 2 from `seed`, written to `games.wtb` in `dir`.
fn selfplay_games(dir: &std::path::Path, games: &str, seed: &str) -> std::path::PathBuf {
    let wtb = dir.join("games.wtb");
    ok(outflank(&[
        "train",
        "selfplay",
        "--games",
        games,
        "--depth",
        "2",
        "--seed",
        seed,
        "--out",
        s(&wtb),
    ]));
    wtb
}

/// Labels the games of `wtb` exactly to 8 empties with `deviations` more positions a game
/// into the sample file `out`; the number of samples it holds.
fn label(wtb: &std::path::Path, out: &std::path::Path, deviations: &str) -> u64 {
    ok(outflank(&[
        "train",
        "data",
        "--wthor",
        s(wtb),
        "--exact-empties",
        "8",
        "--deviations",
        deviations,
        "--out",
        s(out),
    ]));
    sample_count(out)
}

#[test]
fn one_phase_per_number_of_empties_is_fitted_read_and_measured() {
    let dir = temp_dir("train-eval", "phases");
    let wtb = selfplay_games(&dir, "16", "3");
    let samples = dir.join("games.samples");
    label(&wtb, &samples, "0");
    let fine = dir.join("fine.ofw");
    let coarse = dir.join("coarse.ofw");
    let termed = dir.join("termed.ofw");
    for (out, per, terms) in [
        (&fine, "1", "none"),
        (&coarse, "4", "none"),
        (&termed, "4", "triangle,discs"),
    ] {
        ok(outflank(&[
            "train",
            "fit",
            "--data",
            s(&samples),
            "--out",
            s(out),
            "--epochs",
            "3",
            "--holdout",
            "0",
            "--empties-per-phase",
            per,
            "--terms",
            terms,
        ]));
    }
    // About four times the tables, and a different evaluation.
    let (f, c) = (
        std::fs::metadata(&fine).unwrap().len(),
        std::fs::metadata(&coarse).unwrap().len(),
    );
    assert!(f > c, "{f} {c}");
    let score = |w: &std::path::Path| {
        let out = ok(outflank(&[
            "analyze",
            "f5d6c3d3c4f4f6f3e6e7",
            "--depth",
            "3",
            "--eval-file",
            s(w),
        ]));
        text(&out.stdout)
    };
    assert_ne!(score(&fine), score(&coarse));
    // The terms' tables make a larger file and another evaluation, read back as they were
    // written.
    let t = std::fs::metadata(&termed).unwrap().len();
    assert!(t > c, "{t} {c}");
    assert_ne!(score(&termed), score(&coarse));
    // Measured against exact solves at 4 to 6 empties (every game held out).
    let out = ok(outflank(&[
        "train",
        "eval-error",
        "--wthor",
        s(&wtb),
        "--holdout",
        "100",
        "--per-empties",
        "3",
        "--exact-empties",
        "4-6",
        "--depth",
        "2",
        "--by-empties",
        "--eval-file",
        s(&fine),
    ]));
    let table = text(&out.stdout);
    for e in [4, 5, 6] {
        assert!(table.contains(&format!("  {e} empties")), "{table}");
    }
    assert!(!table.contains("14 empties"), "{table}");
    assert!(table.contains("fine.ofw"), "{table}");
    // A grouping out of range is refused.
    let bad = outflank(&[
        "train",
        "fit",
        "--data",
        s(&samples),
        "--out",
        s(&dir.join("x.ofw")),
        "--empties-per-phase",
        "0",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("empties-per-phase"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!dir.join("x.ofw").exists());
    // So is a term this build does not know, naming the ones it does.
    let bad = outflank(&[
        "train",
        "fit",
        "--data",
        s(&samples),
        "--out",
        s(&dir.join("x.ofw")),
        "--terms",
        "discs,parity",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let err = text(&bad.stderr);
    assert!(
        err.contains("\"parity\"") && err.contains("triangle"),
        "{err}"
    );
    assert!(!dir.join("x.ofw").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The number of samples a sample file holds (its header's count).
fn sample_count(path: &std::path::Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"OFLKDATA");
    u64::from_le_bytes(bytes[8..16].try_into().unwrap())
}

#[test]
fn deviations_add_positions_off_the_games_and_fit() {
    let dir = temp_dir("train-eval", "deviations");
    let wtb = selfplay_games(&dir, "12", "5");
    let label = |out: &std::path::Path, deviations: &str| label(&wtb, out, deviations);
    let (plain, more) = (dir.join("plain.samples"), dir.join("more.samples"));
    let n0 = label(&plain, "0");
    let n3 = label(&more, "3");
    // Up to three more a game (a draw is skipped when its game has no position to start
    // from), the game's own samples unchanged before them.
    assert!(n3 > n0 && n3 <= n0 + 3 * 12, "{n0} {n3}");
    let again = dir.join("again.samples");
    assert_eq!(label(&again, "3"), n3);
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&more).unwrap(),
        "the same draws every run"
    );
    ok(outflank(&[
        "train",
        "fit",
        "--data",
        s(&more),
        "--out",
        s(&dir.join("w.ofw")),
        "--epochs",
        "2",
        "--holdout",
        "0",
    ]));
    let bad = outflank(&[
        "train",
        "data",
        "--wthor",
        s(&wtb),
        "--deviations=many",
        "--out",
        s(&dir.join("x.samples")),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--deviations"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!dir.join("x.samples").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The label kinds and scores of a sample file's records, with each one's empty squares.
fn kinds_scores(path: &std::path::Path) -> Vec<(u8, i8, u32)> {
    let bytes = std::fs::read(path).unwrap();
    bytes[16..]
        .chunks(24)
        .map(|r| {
            let discs = u64::from_le_bytes(r[0..8].try_into().unwrap())
                | u64::from_le_bytes(r[8..16].try_into().unwrap());
            (r[17], r[16] as i8, 64 - discs.count_ones())
        })
        .collect()
}

#[test]
fn search_labels_search_with_the_weights_given() {
    let dir = temp_dir("train-eval", "search-labels");
    let wtb = selfplay_games(&dir, "10", "7");
    let plain = dir.join("plain.samples");
    label(&wtb, &plain, "0");
    let weights = dir.join("w.ofw");
    ok(outflank(&[
        "train",
        "fit",
        "--data",
        s(&plain),
        "--out",
        s(&weights),
        "--epochs",
        "2",
        "--holdout",
        "0",
    ]));
    let searched = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "train",
            "data",
            "--wthor",
            s(&wtb),
            "--exact-empties",
            "8",
            "--search-depth",
            "2",
            "--out",
            s(out),
        ];
        args.extend_from_slice(extra);
        ok(outflank(&args));
        kinds_scores(out)
    };
    let shipped = searched(&dir.join("shipped.samples"), &[]);
    let own = searched(&dir.join("own.samples"), &["--eval-file", s(&weights)]);
    let before = kinds_scores(&plain);
    assert_eq!(shipped.len(), before.len());
    assert_eq!(own.len(), before.len());
    let (mut searches, mut differ) = (0, 0);
    for ((b, sh), o) in before.iter().zip(&shipped).zip(&own) {
        if b.2 <= 8 {
            // Exact scores as before (kind 2), whatever the weights.
            assert_eq!((b, b), (sh, o));
            assert_eq!(b.0, 2);
        } else {
            // A search's score (kind 3) instead of a game's result (kind 1).
            assert_eq!((b.0, sh.0, o.0), (1, 3, 3));
            searches += 1;
            differ += usize::from(sh.1 != o.1);
        }
    }
    assert!(searches > 100, "{searches}");
    // Other weights, other searches.
    assert!(differ > searches / 10, "{differ} of {searches}");
    // The weights' options need the searches; a missing file is named; nothing written.
    let x = dir.join("x.samples");
    let no_depth = outflank(&[
        "train",
        "data",
        "--wthor",
        s(&wtb),
        "--eval-file",
        s(&weights),
        "--out",
        s(&x),
    ]);
    assert_eq!(no_depth.status.code(), Some(2));
    assert!(text(&no_depth.stderr).contains("--search-depth"));
    let missing = dir.join("missing.ofw");
    let bad = outflank(&[
        "train",
        "data",
        "--wthor",
        s(&wtb),
        "--search-depth",
        "2",
        "--eval-file",
        s(&missing),
        "--out",
        s(&x),
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("missing.ofw"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!x.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
