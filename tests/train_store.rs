//! The data store and its manifest through the real binary: self-play at a level in shards
//! into a store, recorded in a manifest; `train store verify` and `regenerate`; a resumed
//! run; a truncated, other-sha256 or other-version shard named in one line with exit status
//! 2 and nothing labelled; the positions of the openings left out of the samples.

mod common;

use common::{SMALL_TRAIN_ALL, ok, s, temp_dir, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_outflank");

fn outflank(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("OUTFLANK_COMMIT", "test-commit")
        .output()
        .expect("run outflank")
}

/// A fresh directory for one test.
fn temp(name: &str) -> PathBuf {
    temp_dir("store", name)
}

/// Self-play at level 3 (30 games, 8-20 random moves unless `extra` gives the opening) in
/// `shards` shards into `store`, listed in `manifest`.
fn selfplay(store: &Path, manifest: &Path, shards: &str, extra: &[&str]) -> Output {
    selfplay_at("3", "30", store, manifest, shards, extra)
}

/// [`selfplay`] at `level`, `games` games.
fn selfplay_at(
    level: &str,
    games: &str,
    store: &Path,
    manifest: &Path,
    shards: &str,
    extra: &[&str],
) -> Output {
    let mut a = vec![
        "train",
        "selfplay",
        "--games",
        games,
        "--level",
        level,
        "--seed",
        "5",
        "--threads",
        "1",
        "--store",
        s(store),
        "--manifest",
        s(manifest),
        "--shards",
        shards,
    ];
    a.extend_from_slice(extra);
    if !extra
        .iter()
        .any(|x| *x == "--openings" || *x == "--random-moves")
    {
        a.extend_from_slice(&["--random-moves", "8-20"]);
    }
    outflank(&a)
}

/// The sample file `train data` writes from the manifest's shards.
fn samples(store: &Path, manifest: &Path, out: &Path) -> Output {
    samples_with(store, manifest, out, &[])
}

/// [`samples`] with more options of `train data`.
fn samples_with(store: &Path, manifest: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "train",
        "data",
        "--manifest",
        s(manifest),
        "--store",
        s(store),
        "--exact-empties",
        "8",
        "--threads",
        "1",
        "--out",
        s(out),
    ];
    args.extend_from_slice(extra);
    outflank(&args)
}

/// `train store regenerate`: the missing shards of the manifest made again.
fn regenerate(store: &Path, manifest: &Path) -> Output {
    outflank(&[
        "train",
        "store",
        "regenerate",
        "--store",
        s(store),
        "--manifest",
        s(manifest),
    ])
}

fn verify(store: &Path, manifest: &Path) -> Output {
    outflank(&[
        "train",
        "store",
        "verify",
        "--store",
        s(store),
        "--manifest",
        s(manifest),
    ])
}

/// A refusal: exit status 2 and one line on stderr naming `file` and saying `why`.
fn refused(out: Output, file: &str, why: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(file), "{file} not named in {err}");
    assert!(err.contains(why), "`{why}` not in {err}");
    assert!(!err.contains("panicked"), "{err}");
}

const SHARD0: &str = "selfplay-seed5-0of2.shard";
const SHARD1: &str = "selfplay-seed5-1of2.shard";

#[test]
fn a_store_in_shards_verifies_regenerates_resumes_and_is_one_shard_byte_for_byte() {
    let dir = temp("e2e");
    let (store, manifest) = (dir.join("store"), dir.join("data/manifest.json"));
    ok(selfplay(&store, &manifest, "2", &[]));
    let listed = std::fs::read_to_string(&manifest).unwrap();
    for needle in [
        SHARD0,
        SHARD1,
        "\"shard\": \"1/2\"",
        "\"items\": 15",
        "\"commit\": \"test-commit\"",
        "\"format_version\": 1",
        "level=3 random=8-20",
    ] {
        assert!(listed.contains(needle), "{needle} not in {listed}");
    }
    assert!(text(&ok(verify(&store, &manifest)).stdout).contains("2 shards"));

    // Run again: both shards are there and verified, nothing is played.
    let again = ok(selfplay(&store, &manifest, "2", &[]));
    assert!(text(&again.stderr).contains("2 shards already in"));
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), listed);

    // The same run in one shard, in another store: the same games, the same samples.
    let (store1, manifest1) = (dir.join("store1"), dir.join("manifest1.json"));
    ok(selfplay(&store1, &manifest1, "1", &[]));
    let merged = |files: &[PathBuf]| {
        let mut a = vec!["merge"];
        a.extend(files.iter().map(|p| s(p)));
        ok(outflank(&a)).stdout
    };
    let two = merged(&[store.join(SHARD0), store.join(SHARD1)]);
    assert_eq!(two, merged(&[store1.join("selfplay-seed5-0of1.shard")]));
    assert_eq!(two.len(), 16 + 30 * 68);
    let (a, b) = (dir.join("a.samples"), dir.join("b.samples"));
    ok(samples(&store, &manifest, &a));
    ok(samples(&store1, &manifest1, &b));
    let a_bytes = std::fs::read(&a).unwrap();
    assert!(a_bytes == std::fs::read(&b).unwrap());
    assert!(a_bytes.len() > 16 + 30 * 24 * 20);

    // Training end to end from either manifest: the same weights and probcut parameters.
    let train_with = |store: &Path, manifest: &Path, name: &str, extra: &[&str]| {
        let (out, work) = (dir.join(name), dir.join(format!("{name}-work")));
        let mut args = vec![
            "train",
            "all",
            "--manifest",
            s(manifest),
            "--store",
            s(store),
            "--threads",
            "1",
            "--out",
            s(&out),
            "--work",
            s(&work),
        ];
        args.extend_from_slice(SMALL_TRAIN_ALL);
        args.extend_from_slice(extra);
        let run = ok(outflank(&args));
        assert!(
            text(&run.stderr).contains("30 from the manifest's self-play"),
            "{}",
            text(&run.stderr)
        );
        let weights = ["eval.ofw", "probcut.json"].map(|f| std::fs::read(out.join(f)).unwrap());
        (
            std::fs::read(work.join("manifest.samples")).unwrap(),
            weights,
        )
    };
    let train = |store: &Path, manifest: &Path, name: &str| {
        let (labelled, weights) = train_with(store, manifest, name, &[]);
        // The manifest's samples are those `train data --manifest` writes.
        assert!(labelled == a_bytes);
        weights
    };
    let two_shards = train(&store, &manifest, "w2");
    assert!(two_shards == train(&store1, &manifest1, "w1"));
    // With search labels: those of `train data --search-depth`, other weights.
    let (searched, with_search) = train_with(&store, &manifest, "ws", &["--search-depth", "2"]);
    let c = dir.join("c.samples");
    ok(samples_with(
        &store,
        &manifest,
        &c,
        &["--search-depth", "2"],
    ));
    assert!(searched == std::fs::read(&c).unwrap());
    assert!(searched != a_bytes && searched.len() == a_bytes.len());
    assert!(with_search != two_shards);
    let weights = dir.join("w2/eval.ofw");
    let analyzed = ok(outflank(&[
        "analyze",
        "f5d6c3d3c4",
        "--depth",
        "2",
        "--eval-file",
        s(&weights),
    ]));
    assert!(!analyzed.stdout.is_empty());

    // A machine that lost a shard makes it again, byte for byte.
    let before = std::fs::read(store.join(SHARD1)).unwrap();
    std::fs::remove_file(store.join(SHARD1)).unwrap();
    refused(verify(&store, &manifest), SHARD1, "missing");
    let out = ok(regenerate(&store, &manifest));
    assert!(text(&out.stderr).contains("made again"));
    assert!(std::fs::read(store.join(SHARD1)).unwrap() == before);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), listed);
    ok(verify(&store, &manifest));

    // Another run under the same file names is refused, not mixed in.
    let clash = selfplay(&store, &manifest, "2", &["--random-moves", "4-6"]);
    refused(clash, SHARD0, "another run");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_other_or_other_version_shard_is_named_and_nothing_is_labelled() {
    let dir = temp("bad");
    let (store, manifest) = (dir.join("store"), dir.join("manifest.json"));
    ok(selfplay(&store, &manifest, "2", &[]));
    let path = store.join(SHARD1);
    let good = std::fs::read(&path).unwrap();
    let out = dir.join("x.samples");
    let both = |why: &str| {
        refused(verify(&store, &manifest), SHARD1, why);
        refused(samples(&store, &manifest, &out), SHARD1, why);
        assert!(!out.exists(), "samples were written");
    };

    std::fs::write(&path, &good[..good.len() - 7]).unwrap();
    both("truncated");

    let mut other = good.clone();
    other[8] = 2; // the format version
    std::fs::write(&path, &other).unwrap();
    both("format version 2");

    // A whole shard, but another run's (other settings) under the name.
    let (store2, manifest2) = (dir.join("store2"), dir.join("manifest2.json"));
    ok(selfplay(
        &store2,
        &manifest2,
        "2",
        &["--random-moves", "4-6"],
    ));
    std::fs::copy(store2.join(SHARD1), &path).unwrap();
    both("differs from the manifest");

    // The manifest lists it at another format version.
    std::fs::write(&path, &good).unwrap();
    ok(verify(&store, &manifest));
    let text_of = std::fs::read_to_string(&manifest).unwrap();
    let needle = "\"format_version\": 1";
    let at = text_of.rfind(needle).unwrap();
    let changed = format!(
        "{}\"format_version\": 7{}",
        &text_of[..at],
        &text_of[at + needle.len()..]
    );
    std::fs::write(&manifest, changed).unwrap();
    both("format version 7");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn opening_lines_are_played_and_their_positions_left_out() {
    let dir = temp("openings");
    let lines = dir.join("xot.txt");
    std::fs::write(
        &lines,
        "f5d6c4d3c2b3b4b5\nf5f4g3g6f3g4e3e2\nf5f6d3c5d6c7b5e3\n",
    )
    .unwrap();
    let (store, manifest) = (dir.join("store"), dir.join("manifest.json"));
    ok(selfplay(&store, &manifest, "2", &["--openings", s(&lines)]));
    let listed = std::fs::read_to_string(&manifest).unwrap();
    assert!(listed.contains("level=3 openings="), "{listed}");
    let out = dir.join("x.samples");
    ok(samples(&store, &manifest, &out));
    let bytes = std::fs::read(&out).unwrap();
    let records = &bytes[16..];
    assert!(!records.is_empty());
    let mut max_empties = 0;
    for r in records.chunks_exact(24) {
        let p = u64::from_le_bytes(r[0..8].try_into().unwrap());
        let o = u64::from_le_bytes(r[8..16].try_into().unwrap());
        max_empties = max_empties.max(64 - (p | o).count_ones());
    }
    // The first sample of a game is the position after its 8 opening moves.
    assert_eq!(max_empties, 52);
    // The same from the shard files themselves, and from their WTHOR file (which does not
    // record the openings) with the first 8 plies of every game skipped.
    let direct = dir.join("direct.samples");
    ok(outflank(&[
        "train",
        "data",
        "--selfplay",
        s(&store.join(SHARD0)),
        s(&store.join(SHARD1)),
        "--exact-empties",
        "8",
        "--out",
        s(&direct),
    ]));
    assert!(std::fs::read(&direct).unwrap() == bytes);
    let wtb = dir.join("games.wtb");
    ok(outflank(&[
        "merge",
        s(&store.join(SHARD0)),
        s(&store.join(SHARD1)),
        "--out",
        s(&wtb),
    ]));
    let skipped = dir.join("skipped.samples");
    let wthor = |skip: &str, out: &Path| {
        ok(outflank(&[
            "train",
            "data",
            "--wthor",
            s(&wtb),
            "--skip-plies",
            skip,
            "--exact-empties",
            "8",
            "--out",
            s(out),
        ]));
        std::fs::read(out).unwrap()
    };
    assert!(wthor("8", &skipped) == bytes);
    assert!(wthor("0", &skipped).len() > bytes.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run played with other weights and probcut parameters than the shipped ones (as the
/// manifest's runs are once the shipped weights change) records both files in its options,
/// and regenerating its shards with them gives the same bytes; an unreadable probcut file
/// is named and nothing is played.
#[test]
fn a_run_with_its_own_weights_and_probcut_files_is_made_again_byte_for_byte() {
    let dir = temp("own-weights");
    let (store, manifest) = (dir.join("store"), dir.join("manifest.json"));
    let weights = dir.join("hand.ofw");
    ok(outflank(&["train", "hand", "--out", s(&weights)]));
    // The shipped parameters with every midgame sigma a tenth and the regression halved: a
    // search of its own.
    let mut halved: serde_json::Value =
        serde_json::from_str(include_str!("../weights/probcut.json")).unwrap();
    halved["a"] = serde_json::json!(0.5);
    let tenth = |v: &mut serde_json::Value| {
        for s in v.as_array_mut().unwrap() {
            *s = serde_json::json!(s.as_f64().unwrap() / 10.0);
        }
    };
    tenth(&mut halved["sigma"]);
    for row in halved["sigma_table"].as_array_mut().unwrap() {
        tenth(row);
    }
    let probcut = dir.join("probcut.json");
    std::fs::write(&probcut, halved.to_string()).unwrap();
    // Level 8 (probcut cuts at its depths), 6 games in two shards.
    let play = |store: &Path, manifest: &Path, files: &[&str]| {
        selfplay_at("8", "6", store, manifest, "2", files)
    };
    let own = ["--eval-file", s(&weights), "--probcut-file", s(&probcut)];
    ok(play(&store, &manifest, &own));
    let listed = std::fs::read_to_string(&manifest).unwrap();
    assert!(listed.contains("\"--probcut-file\""), "{listed}");
    assert!(listed.contains("\"--eval-file\""), "{listed}");
    let before = std::fs::read(store.join(SHARD0)).unwrap();
    // The parameters are searched with: the shipped ones play other games.
    let (store1, manifest1) = (dir.join("store1"), dir.join("manifest1.json"));
    ok(play(&store1, &manifest1, &own[..2]));
    assert!(std::fs::read(store1.join(SHARD0)).unwrap() != before);
    std::fs::remove_file(store.join(SHARD0)).unwrap();
    ok(regenerate(&store, &manifest));
    assert!(std::fs::read(store.join(SHARD0)).unwrap() == before);

    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"a\": 1}").unwrap();
    let (store2, manifest2) = (dir.join("store2"), dir.join("manifest2.json"));
    let out = play(&store2, &manifest2, &["--probcut-file", s(&bad)]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("bad.json"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!manifest2.exists() && !store2.join(SHARD0).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A manifest whose runs name their weights by paths relative to the repository's root (as
/// `data/manifest.json` does) is regenerated from any directory, and a missing shard's
/// error says how to make it again.
#[test]
fn regenerate_works_from_any_directory_and_a_missing_shard_names_it() {
    let root = temp("relative");
    std::fs::create_dir_all(root.join("data/weights")).unwrap();
    ok(outflank(&[
        "train",
        "hand",
        "--out",
        s(&root.join("data/weights/hand.ofw")),
    ]));
    let (store, manifest) = (root.join("store"), root.join("data/manifest.json"));
    let run = |cwd: &Path, args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(cwd)
            .env("OUTFLANK_COMMIT", "test-commit")
            .output()
            .expect("run outflank")
    };
    ok(run(
        &root,
        &[
            "train",
            "selfplay",
            "--games",
            "6",
            "--level",
            "2",
            "--seed",
            "5",
            "--threads",
            "1",
            "--shards",
            "2",
            "--random-moves",
            "8-20",
            "--eval-file",
            "data/weights/hand.ofw",
            "--store",
            s(&store),
            "--manifest",
            "data/manifest.json",
        ],
    ));
    let listed = std::fs::read_to_string(&manifest).unwrap();
    assert!(listed.contains("\"data/weights/hand.ofw\""), "{listed}");
    let before = std::fs::read(store.join(SHARD0)).unwrap();
    std::fs::remove_file(store.join(SHARD0)).unwrap();
    refused(
        samples(&store, &manifest, &root.join("x.samples")),
        SHARD0,
        "train store regenerate",
    );
    // From elsewhere: the relative path is found from the manifest's folder upwards.
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    ok(run(
        &elsewhere,
        &[
            "train",
            "store",
            "regenerate",
            "--store",
            s(&store),
            "--manifest",
            s(&manifest),
        ],
    ));
    assert!(std::fs::read(store.join(SHARD0)).unwrap() == before);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), listed);
    std::fs::remove_dir_all(&root).unwrap();
}
