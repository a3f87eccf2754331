//! `outflank train calibrate` through the real binary: positions drawn from self-play games
//! and solved (checked by `outflank solve`), the two parity biases shifted by the amounts it
//! prints and nothing else changed, the same file from one thread as from two and from the
//! written positions as from the games, and bad input refused before anything is written;
//! `train all --calibrate-games` gives what its fit and `train calibrate` give.

mod common;

use common::{SMALL_TRAIN_ALL, assert_clean_error, ok, outflank, s, temp_dir, text};
use outflank::eval::{Weights, load, shipped_weights};
use outflank::train::calibrate::shift_biases;

/// The shifts of the report's `bias shifts` line, in units: (even, odd).
fn shifts(report: &str) -> (i32, i32) {
    let line = report
        .lines()
        .find(|l| l.starts_with("bias shifts:"))
        .unwrap_or_else(|| panic!("no shifts in {report}"));
    let units: Vec<i32> = line
        .split('(')
        .skip(1)
        .map(|part| part.split('/').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(units.len(), 2, "{line}");
    (units[0], units[1])
}

/// Calibrates the shipped weights on `source` (`--wthor FILE` or `--obf FILE`) at depths
/// 4-7 into `out`; the report.
fn calibrate(source: [&str; 2], out: &std::path::Path, threads: &str, more: &[&str]) -> String {
    let mut args = vec![
        "train",
        "calibrate",
        "--threads",
        threads,
        source[0],
        source[1],
        "--depths",
        "4-7",
        "--out",
        s(out),
    ];
    args.extend_from_slice(more);
    text(&ok(outflank(&args)).stdout)
}

/// 30 self-play games at depth 2 from `seed`, written to `games.wtb` in `dir`.
fn games(dir: &std::path::Path, seed: &str) -> std::path::PathBuf {
    let wtb = dir.join("games.wtb");
    let args = [
        "train", "selfplay", "--games", "30", "--depth", "2", "--seed", seed,
    ];
    ok(outflank(&[&args[..], &["--out", s(&wtb)]].concat()));
    wtb
}

#[test]
fn calibration_shifts_the_two_biases_by_what_it_reports_and_nothing_else() {
    let dir = temp_dir("calibrate", "shifts");
    let wtb = games(&dir, "5");
    let positions = dir.join("positions.obf");
    let two = dir.join("two.ofw");
    let report = calibrate(
        ["--wthor", s(&wtb)],
        &two,
        "2",
        &[
            "--empties",
            "12,13",
            "--count",
            "8",
            "--positions-out",
            s(&positions),
        ],
    );
    assert!(
        report.starts_with("16 solved positions (8 at 12 empties, 8 at 13 empties)\n"),
        "{report}"
    );
    // A row for each depth and parity of the roots.
    for depth in 4..=7 {
        for root in ["even", "odd"] {
            let row = format!("{depth:>5} {root:>5} {:>9} ", 8);
            assert!(report.contains(&row), "no {row:?} in {report}");
        }
    }
    // The written positions are solved right.
    let obf = std::fs::read_to_string(&positions).unwrap();
    assert_eq!(obf.lines().count(), 16, "{obf}");
    let solved = text(&ok(outflank(&["solve", s(&positions)])).stdout);
    assert!(
        solved.contains("16 positions, 16 right, 0 wrong"),
        "{solved}"
    );

    // The calibrated weights are the shipped ones with the reported shifts, nothing more.
    let (even, odd) = shifts(&report);
    let mut back: Weights = load(&two).unwrap();
    assert_ne!(back, *shipped_weights(), "no shift at all: {report}");
    shift_biases(&mut back, -even, -odd);
    assert_eq!(back, *shipped_weights(), "{report}");

    // One thread, and the written positions instead of the games: the same file.
    let one = dir.join("one.ofw");
    let again = calibrate(["--obf", s(&positions)], &one, "1", &[]);
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let table = |r: &str| {
        let lines = r.lines().filter(|l| !l.starts_with("written to"));
        lines.collect::<Vec<_>>().join("\n")
    };
    assert_eq!(table(&again), table(&report));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_calibrations_are_refused_before_anything_is_written() {
    let dir = temp_dir("calibrate", "refused");
    let out = dir.join("out.ofw");
    let obf = dir.join("p.obf");
    // FFO #1 (14 empties), its best move scored.
    let ffo1 = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18;";
    std::fs::write(&obf, format!("{ffo1}\n")).unwrap();
    let run = |more: &[&str]| {
        let mut args = vec!["train", "calibrate", "--obf", s(&obf), "--out", s(&out)];
        args.extend_from_slice(more);
        outflank(&args)
    };
    // A depth that solves the positions.
    assert_clean_error(
        &run(&["--depths", "10-14"]),
        "depth 14 solves the positions of 14",
    );
    // One depth from roots of one parity cannot tell the two parts apart.
    assert_clean_error(&run(&["--depths", "6"]), "cannot tell");
    // A line that scores no move, and a malformed one.
    std::fs::write(&obf, format!("{ffo1}\n{}\n", &ffo1[..67])).unwrap();
    assert_clean_error(&run(&["--depths", "4-5"]), "line 2");
    std::fs::write(&obf, "not a position\n").unwrap();
    assert_clean_error(&run(&["--depths", "4-5"]), "p.obf");
    // Empties that no position has.
    let wtb = dir.join("games.wtb");
    ok(outflank(&[
        "train",
        "selfplay",
        "--games",
        "2",
        "--depth",
        "1",
        "--seed",
        "3",
        "--out",
        s(&wtb),
    ]));
    let out2 = outflank(&[
        "train",
        "calibrate",
        "--wthor",
        s(&wtb),
        "--empties",
        "61",
        "--out",
        s(&out),
    ]);
    assert_eq!(out2.status.code(), Some(2), "{}", text(&out2.stderr));
    // Depths that cannot calibrate on the drawn positions are refused before any is drawn
    // or solved (`--positions-out` stays unwritten), by `train calibrate` and by `train all`
    // before its first step (the work directory stays unmade).
    let positions = dir.join("positions.obf");
    let bad_plans: [(&[&str], &str); 2] = [
        (
            &["--empties", "20,25", "--depths", "10-20"],
            "depth 20 solves",
        ),
        (&["--empties", "20,22", "--depths", "12"], "cannot tell"),
    ];
    for (plan, says) in bad_plans {
        let mut args = vec!["train", "calibrate", "--wthor", s(&wtb), "--out", s(&out)];
        args.extend_from_slice(&["--positions-out", s(&positions)]);
        args.extend_from_slice(plan);
        assert_clean_error(&outflank(&args), says);
        assert!(!positions.exists(), "{plan:?} solved positions");
    }
    let work = dir.join("all-work");
    assert_clean_error(
        &outflank(&[
            "train",
            "all",
            "--wthor",
            s(&wtb),
            "--out",
            s(&dir.join("all-out")),
            "--work",
            s(&work),
            "--calibrate-games",
            "10",
            "--calibrate-empties",
            "20,22",
            "--calibrate-depths",
            "12",
        ]),
        "cannot tell",
    );
    assert!(
        !work.exists(),
        "a refused train all made {}",
        work.display()
    );
    assert!(
        !out.exists(),
        "a refused calibration wrote {}",
        out.display()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_all_calibrates_as_train_calibrate_does() {
    let dir = temp_dir("calibrate", "all");
    let wtb = games(&dir, "7");
    let all = |name: &str, extra: &[&str]| {
        let (out, work) = (dir.join(name), dir.join(format!("{name}-work")));
        let mut args = vec![
            "train",
            "all",
            "--wthor",
            s(&wtb),
            "--threads",
            "2",
            "--out",
        ];
        let (out_s, work_s) = (s(&out).to_string(), s(&work).to_string());
        args.push(&out_s);
        args.push("--work");
        args.push(&work_s);
        args.extend_from_slice(SMALL_TRAIN_ALL);
        args.extend_from_slice(extra);
        let run = ok(outflank(&args));
        (out, work, text(&run.stderr))
    };
    let (plain, _, _) = all("plain", &[]);
    let calibration = [
        "--calibrate-games",
        "20",
        "--calibrate-empties",
        "12,13",
        "--calibrate-count",
        "6",
        "--calibrate-depths",
        "4-7",
    ];
    let (calibrated, work, log) = all("calibrated", &calibration);
    assert!(log.contains("calibration on 12 positions"), "{log}");
    // The probcut parameters are those of the plain run's fit: the calibration keeps them.
    let read = |p: std::path::PathBuf| std::fs::read(p).unwrap();
    assert_eq!(
        read(calibrated.join("probcut.json")),
        read(plain.join("probcut.json"))
    );
    // Its games are those `train selfplay` plays with the fit's weights and probcut
    // parameters, at depth 6 and the calibration's seed (9001 by default).
    let (fit_eval, fit_probcut) = (plain.join("eval.ofw"), plain.join("probcut.json"));
    let with_fit = |step: &[&str]| {
        let mut args = step.to_vec();
        args.extend_from_slice(&[
            "--eval-file",
            s(&fit_eval),
            "--probcut-file",
            s(&fit_probcut),
        ]);
        outflank(&args)
    };
    let played = dir.join("played.wtb");
    let step = [
        "train", "selfplay", "--games", "20", "--depth", "6", "--seed", "9001",
    ];
    ok(with_fit(&[&step[..], &["--out", s(&played)]].concat()));
    assert!(
        read(played) == read(work.join("calibrate.wtb")),
        "other games"
    );
    // The same calibration by `train calibrate`, from the same games and probcut parameters.
    let by_hand = dir.join("by-hand.ofw");
    let games = work.join("calibrate.wtb");
    ok(with_fit(&[
        "train",
        "calibrate",
        "--wthor",
        s(&games),
        "--empties",
        "12,13",
        "--count",
        "6",
        "--depths",
        "4-7",
        "--out",
        s(&by_hand),
    ]));
    assert_eq!(read(by_hand), read(calibrated.join("eval.ofw")));
    assert_ne!(
        read(calibrated.join("eval.ofw")),
        read(plain.join("eval.ofw")),
        "{log}"
    );
    // Resumed, the calibration reads its games and positions back and gives the same file.
    let before = read(calibrated.join("eval.ofw"));
    let mut resumed = calibration.to_vec();
    resumed.push("--resume");
    let (again, _, _) = all("calibrated", &resumed);
    assert_eq!(read(again.join("eval.ofw")), before);
    std::fs::remove_dir_all(&dir).unwrap();
}
