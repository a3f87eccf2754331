//! The match runner against real engines: gtp-rhino (when installed), Outflank's own GTP and
//! NBoard front-ends, and small deliberately broken engines (tests/fixtures/broken_engine.py).

#[path = "common/requirements.rs"]
mod requirements;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use outflank::Color;
use outflank::arena::resume::parse_game_name;
use outflank::arena::{
    EngineSpec, GameRecord, MatchConfig, MatchReport, Protocol, Sprt, SprtVerdict, Termination,
    TimeControl, load_openings, run_match,
};
use outflank::notation::{GgfGame, parse_ggf_games};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A fixture engine: `broken_engine.py PROTO MODE`.
fn fixture_engine(name: &str, proto: Protocol, mode: &str) -> EngineSpec {
    let script = fixture("broken_engine.py");
    EngineSpec::parse(&format!(
        "name={name},proto={proto},cmd=python3 '{}' {proto} {mode}",
        script.display()
    ))
    .unwrap()
}

/// gtp-rhino's path; a test that calls it carries the `outflank_no_gtp_rhino` mark, and fails
/// here, naming it, when it runs without it.
fn gtp_rhino() -> PathBuf {
    requirements::find_gtp_rhino()
        .expect("missing: gtp-rhino (apt-get install grhino), on PATH or in /usr/games")
}

fn tmp_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("outflank-arena-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn play(cfg: &MatchConfig) -> MatchReport {
    let mut seen = Vec::new();
    let report = run_match(cfg, &mut |r: &GameRecord, _| seen.push(r.number)).unwrap();
    assert_eq!(seen.len(), report.games.len());
    report
}

/// Every game of a GGF file parses, replays legally to its last move, and (when played to
/// the end) is over with the recorded result. Returns the games.
fn check_ggf(path: &Path) -> Vec<GgfGame> {
    let text = std::fs::read_to_string(path).unwrap();
    let games = parse_ggf_games(&text).unwrap();
    assert_eq!(games.len(), text.lines().count(), "one game a line");
    for g in &games {
        let game = g.to_game();
        assert_eq!(
            game.len(),
            g.moves.len(),
            "every move replays: {}",
            g.to_ggf()
        );
        let re = g.result.as_deref().unwrap();
        if re.contains(':') {
            assert!(g.comment.is_some(), "a forfeit says why: {re}");
        } else {
            assert!(game.is_over(), "{}", g.to_ggf());
            assert_eq!(g.result_margin(), game.result().map(f64::from));
        }
        assert!(g.black.is_some() && g.white.is_some());
    }
    games
}

/// The binary's `match` subcommand with `args`; returns (status, stdout, stderr).
fn outflank_match(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .arg("match")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
#[cfg_attr(
    outflank_no_gtp_rhino,
    ignore = "needs gtp-rhino (apt-get install grhino), missing when the tests were built"
)]
fn gtp_rhino_against_itself() {
    let rhino = gtp_rhino();
    let rhino = rhino.display().to_string();
    let ggf = tmp_file("rhino.ggf");
    let openings = fixture("xot-3.txt");
    let e1 = format!("name=rhino1,proto=gtp,cmd={rhino} -l 1");
    let e2 = format!("name=rhino2,proto=gtp,cmd={rhino} -l 2");
    let t = Instant::now();
    let (status, out, err) = outflank_match(&[
        "--engine",
        &e1,
        "--engine",
        &e2,
        "--implicit-pass",
        "rhino1",
        "--openings",
        openings.to_str().unwrap(),
        "--tc",
        "20+0.5",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--ggf",
        ggf.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(t.elapsed() < Duration::from_secs(30));
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("Game ")).collect();
    assert_eq!(lines.len(), 6, "{out}");
    for l in &lines {
        assert!(
            l.contains(" wins ") || l.contains("{draw "),
            "no forfeit: {out}"
        );
    }
    assert!(out.contains("engine  games  wins draws losses"), "{out}");
    assert!(out.contains("rhino1") && out.contains("rhino2"));
    let games = check_ggf(&ggf);
    assert_eq!(games.len(), 6);
    for g in &games {
        assert!(g.result_margin().is_some(), "finished: {}", g.to_ggf());
        assert_eq!(g.time.map(|c| c.main), Some(Duration::from_secs(20)));
        let engine_moves = g.moves.iter().filter(|m| m.time.is_some()).count();
        assert!(engine_moves > 40, "engine moves are timed: {}", g.to_ggf());
    }
    // Each opening twice, colours swapped.
    let mut by_opening = std::collections::HashMap::new();
    for g in &games {
        let first8: Vec<_> = g.moves.iter().take(8).map(|m| m.mv).collect();
        by_opening
            .entry(format!("{first8:?}"))
            .or_insert_with(Vec::new)
            .push(g.black.clone().unwrap());
    }
    assert_eq!(by_opening.len(), 3);
    for blacks in by_opening.values() {
        assert_eq!(blacks.len(), 2);
        assert_ne!(blacks[0], blacks[1]);
    }
}

/// Each broken engine against a good one, two games (colours swapped, one game at a time so
/// the second game needs a restarted engine): each game is lost by the broken engine with
/// the right reason, and the match goes on. Untimed games with a short per-move limit, so a
/// hang costs little; the three protocols run side by side.
#[test]
fn broken_engines_lose_with_the_right_reason() {
    type Check = fn(&Termination) -> bool;
    let modes: [(&str, Check); 5] = [
        ("illegal", |t| matches!(t, Termination::IllegalMove(_))),
        ("pass", |t| matches!(t, Termination::IllegalPass)),
        (
            "crash",
            |t| matches!(t, Termination::Crash(s) if s.contains('3')),
        ),
        ("hang", |t| matches!(t, Termination::Timeout(_))),
        ("garbage", |t| matches!(t, Termination::Protocol(_))),
    ];
    std::thread::scope(|scope| {
        for proto in [Protocol::Gtp, Protocol::Nboard, Protocol::Ugi] {
            scope.spawn(move || {
                for (mode, is_right) in modes {
                    let good = fixture_engine("good", Protocol::Gtp, "ok");
                    let bad = fixture_engine(mode, proto, mode);
                    let mut cfg = MatchConfig::new(vec![good, bad]);
                    cfg.games = Some(2);
                    cfg.move_timeout = Duration::from_millis(800);
                    let report = play(&cfg);
                    assert_eq!(report.games.len(), 2, "{proto} {mode}: the match goes on");
                    for r in &report.games {
                        let bad_color = if r.black == 1 {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let summary = r.summary();
                        assert_eq!(r.forfeit, Some(bad_color), "{proto} {mode}: {summary}");
                        assert!(is_right(&r.termination), "{proto} {mode}: {summary}");
                        // The engine misbehaves at its third move of each game.
                        assert!(r.moves.len() >= 4, "{summary}");
                        assert_eq!(r.to_ggf(None).to_game().len(), r.moves.len());
                    }
                    let s = &report.standings;
                    assert_eq!((s.scores[0].wins, s.scores[1].losses), (2, 2));
                    assert_eq!(s.forfeits, vec![0, 2]);
                    assert_eq!(s.scores[0].disc_average(), None, "forfeits have no discs");
                }
            });
        }
    });
}

/// An engine that stops answering in a timed game loses on time once its clock and the
/// grace are spent.
#[test]
fn hang_past_the_clock_loses_on_time() {
    let good = fixture_engine("good", Protocol::Gtp, "ok");
    let bad = fixture_engine("hang", Protocol::Nboard, "hang");
    let mut cfg = MatchConfig::new(vec![good, bad]);
    cfg.games = Some(1);
    cfg.tc = Some(TimeControl::parse("1").unwrap());
    cfg.grace = Duration::from_millis(100);
    let t = Instant::now();
    let report = play(&cfg);
    let r = &report.games[0];
    assert_eq!(r.forfeit, Some(Color::White), "{}", r.summary());
    let Termination::Timeout(why) = &r.termination else {
        panic!("{}", r.summary());
    };
    // The clock left (1 s less what its first moves took, as the record has them) plus
    // the grace: a loaded machine slows the engine's first moves, not the referee's sum.
    let waited: f64 = why
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .next_back()
        .unwrap_or_else(|| panic!("a time in {why:?}"));
    let used: f64 = r
        .moves
        .iter()
        .filter(|m| m.color == Color::White)
        .filter_map(|m| m.time)
        .sum();
    let want = 1.0 - used + 0.1;
    assert!(
        (waited - want).abs() <= 0.02 && waited <= 1.1,
        "clock 1 s - {used:.3} s used + grace 0.1 s = {want:.3} s: {why}"
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    let ggf = r.to_ggf(None);
    assert_eq!(ggf.result.as_deref(), Some("+64.00:t"));
    assert!(ggf.comment.unwrap().contains("lost on time"));
}

#[test]
fn nboard_and_gtp_engines_get_clock_and_depth_their_own_way() {
    let log_nb = tmp_file("nboard.log");
    let log_gtp = tmp_file("gtp.log");
    let script = fixture("broken_engine.py");
    let nb = EngineSpec::parse(&format!(
        "name=nb,proto=nboard,depth=7,cmd=env BROKEN_ENGINE_LOG={} python3 {} nboard ok",
        log_nb.display(),
        script.display()
    ))
    .unwrap();
    let gtp = EngineSpec::parse(&format!(
        "name=gtp,proto=gtp,cmd=env BROKEN_ENGINE_LOG={} python3 {} gtp ok",
        log_gtp.display(),
        script.display()
    ))
    .unwrap();
    let mut cfg = MatchConfig::new(vec![nb, gtp]);
    cfg.openings = load_openings(&fixture("xot-3.txt")).unwrap();
    cfg.games = Some(2);
    cfg.tc = Some(TimeControl::parse("90+2").unwrap());
    let report = play(&cfg);
    assert_eq!(report.games.len(), 2);
    for r in &report.games {
        assert_eq!(r.termination, Termination::Normal, "{}", r.summary());
        assert!(r.summary().starts_with(&format!("Game {} (", r.number)));
    }
    let nb_log = std::fs::read_to_string(&log_nb).unwrap();
    assert!(nb_log.contains("< nboard 2"), "{nb_log}");
    assert!(nb_log.contains("< set depth 7"), "{nb_log}");
    let set_game = nb_log
        .lines()
        .find(|l| l.starts_with("< set game (;GM[Othello]"))
        .unwrap();
    assert!(set_game.contains("TI[01:30/00:02]"), "{set_game}");
    assert!(
        set_game.contains("B[F5]W[D6]B[C4]W[D3]"),
        "opening moves: {set_game}"
    );
    assert!(nb_log.contains("< ping ") && nb_log.contains("< go"));
    let moves_with_time = nb_log
        .lines()
        .filter(|l| l.starts_with("< move ") && l.matches('/').count() == 2)
        .count();
    assert!(
        moves_with_time > 20,
        "moves come back with eval and time: {nb_log}"
    );
    let gtp_log = std::fs::read_to_string(&log_gtp).unwrap();
    assert!(gtp_log.contains("< time_settings 90 0 0"), "{gtp_log}");
    assert!(gtp_log.contains("< time_left b 9") || gtp_log.contains("< time_left w 9"));
    assert!(gtp_log.contains("< play b F5"), "{gtp_log}");
    assert!(gtp_log.contains("< genmove "));
}

#[test]
fn sprt_stops_a_lopsided_match() {
    let good = fixture_engine("good", Protocol::Gtp, "ok");
    let bad = fixture_engine("bad", Protocol::Gtp, "illegal");
    let mut cfg = MatchConfig::new(vec![good, bad]);
    cfg.games = Some(200);
    cfg.sprt = Some(Sprt::new(0.0, 50.0));
    let report = play(&cfg);
    let s = report.sprt.unwrap();
    assert_eq!(s.verdict, SprtVerdict::H1, "{s}");
    assert!(
        report.games.len() < 100,
        "stopped early: {}",
        report.games.len()
    );
    assert_eq!(report.scheduled, 200);
    assert!(s.to_string().contains("H1 accepted"), "{s}");
}

#[test]
fn cli_runs_a_round_robin_and_writes_ggf() {
    let ggf = tmp_file("rr.ggf");
    let script = fixture("broken_engine.py");
    let spec = |name: &str, proto: &str, mode: &str| {
        format!(
            "name={name},proto={proto},cmd=python3 {} {proto} {mode}",
            script.display()
        )
    };
    let (status, out, err) = outflank_match(&[
        "--engine",
        &spec("A", "gtp", "ok"),
        "--engine",
        &spec("B", "nboard", "ok"),
        "--engine",
        &spec("C", "gtp", "crash"),
        "--openings",
        fixture("xot-3.txt").to_str().unwrap(),
        "--games",
        "2",
        "--tc",
        "5",
        "--ggf",
        ggf.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    let games: Vec<&str> = out.lines().filter(|l| l.starts_with("Game ")).collect();
    assert_eq!(games.len(), 6, "{out}");
    assert_eq!(
        games.iter().filter(|l| l.contains("C crashed")).count(),
        4,
        "{out}"
    );
    // The table: C lost everything, by forfeit.
    let c_row = out
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("C"))
        .unwrap();
    let cols: Vec<&str> = c_row.split_whitespace().collect();
    assert_eq!(
        &cols[..9],
        ["3", "C", "4", "0", "0", "4", "0.0%", "-", "4"],
        "{out}"
    );
    let parsed = check_ggf(&ggf);
    assert_eq!(parsed.len(), 6);
    let forfeits = parsed
        .iter()
        .filter(|g| g.result.as_deref().is_some_and(|r| r.ends_with(":r")))
        .count();
    assert_eq!(forfeits, 4);
    // `outflank show` reads the lines back (once the subcommand exists).
    if outflank_has("show") {
        let text = std::fs::read_to_string(&ggf).unwrap();
        for line in text.lines() {
            let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
                .args(["show", line])
                .output()
                .unwrap();
            assert!(out.status.success(), "show {line}: {out:?}");
        }
    }
}

#[test]
fn cli_refuses_bad_arguments() {
    let script = fixture("broken_engine.py");
    let ok = format!("name=A,cmd=python3 {} gtp ok", script.display());
    let cases: [(&[&str], &str); 5] = [
        (&["--engine", &ok], "at least two engines"),
        (&["--engine", &ok, "--engine", &ok], "distinct names"),
        (
            &["--engine", &ok, "--engine", "name=B,cmd=/nonexistent/x"],
            "cannot run",
        ),
        (
            &["--engine", &ok, "--engine", "name=B,proto=uci,cmd=x"],
            "unknown protocol",
        ),
        (
            &[
                "--engine",
                &ok,
                "--engine",
                "name=B,cmd=x",
                "--depth",
                "A=5",
            ],
            "NBoard",
        ),
    ];
    for (args, want) in cases {
        let (status, out, err) = outflank_match(args);
        assert_eq!(status, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// `outflank gtp` and `outflank nboard` exist once the protocol front-ends land.
fn outflank_has(sub: &str) -> bool {
    Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args([sub, "--help"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Outflank's GTP front-end against its NBoard front-end: a fixed depth given each its own
/// way (the GTP engine's command line, NBoard's `set depth`), a clock passed by both
/// protocols, two openings with colours swapped; the GGF replays and the NBoard side's moves
/// carry evaluations.
#[test]
fn outflank_against_itself_in_both_protocols() {
    assert!(outflank_has("gtp") && outflank_has("nboard"));
    let bin = env!("CARGO_BIN_EXE_outflank");
    let ggf = tmp_file("self.ggf");
    let gtp = format!("name=of-gtp,proto=gtp,cmd={bin} gtp --depth 3");
    let nb = format!("name=of-nboard,proto=nboard,depth=3,cmd={bin} nboard");
    let (status, out, err) = outflank_match(&[
        "--engine",
        &gtp,
        "--engine",
        &nb,
        "--openings",
        fixture("xot-3.txt").to_str().unwrap(),
        "--games",
        "4",
        "--tc",
        "30+0.5",
        "--concurrency",
        "2",
        "--ggf",
        ggf.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    let games: Vec<&str> = out.lines().filter(|l| l.starts_with("Game ")).collect();
    assert_eq!(games.len(), 4, "{out}");
    let parsed = check_ggf(&ggf);
    assert_eq!(parsed.len(), 4);
    for g in &parsed {
        assert!(
            g.result_margin().is_some(),
            "played to the end: {}",
            g.to_ggf()
        );
        assert!(g.comment.is_none(), "no forfeit: {}", g.to_ggf());
        let nboard_color = if g.black.as_deref() == Some("of-nboard") {
            Color::Black
        } else {
            Color::White
        };
        let evals = g
            .moves
            .iter()
            .filter(|m| m.color == nboard_color && m.eval.is_some())
            .count();
        assert!(evals > 10, "NBoard moves carry evals: {}", g.to_ggf());
    }
}

/// Outflank over UGI against Outflank over GTP (`outflank match` as a UGI manager): timed
/// games, so both clocks go with each `go`, and an untimed one at a fixed depth; every game
/// replays legally to its end, and the UGI side's moves carry its `info` scores.
#[test]
fn outflank_over_ugi_against_outflank_over_gtp() {
    assert!(outflank_has("ugi"));
    let bin = env!("CARGO_BIN_EXE_outflank");
    for (tc, ugi_spec) in [
        (
            "4+0.05",
            format!("name=of-ugi,proto=ugi,cmd={bin} ugi --book off"),
        ),
        (
            "none",
            format!("name=of-ugi,proto=ugi,depth=3,cmd={bin} ugi --book off"),
        ),
    ] {
        let ggf = tmp_file(&format!("ugi-{}.ggf", tc.replace('.', "_")));
        let gtp = format!("name=of-gtp,proto=gtp,cmd={bin} gtp --depth 3 --book off");
        let openings = fixture("xot-3.txt");
        let mut args = vec![
            "--engine",
            &ugi_spec,
            "--engine",
            &gtp,
            "--openings",
            openings.to_str().unwrap(),
            "--games",
            "4",
            "--concurrency",
            "2",
            "--ggf",
            ggf.to_str().unwrap(),
        ];
        if tc != "none" {
            args.extend(["--tc", tc]);
        }
        let (status, out, err) = outflank_match(&args);
        assert_eq!(status, 0, "{out}\n{err}");
        let parsed = check_ggf(&ggf);
        assert_eq!(parsed.len(), 4, "{out}");
        for g in &parsed {
            assert!(g.result_margin().is_some(), "{}", g.to_ggf());
            assert!(g.comment.is_none(), "no forfeit: {}", g.to_ggf());
            let ugi_color = if g.black.as_deref() == Some("of-ugi") {
                Color::Black
            } else {
                Color::White
            };
            let evals = g
                .moves
                .iter()
                .filter(|m| m.color == ugi_color && m.eval.is_some())
                .count();
            assert!(evals > 5, "UGI moves carry scores: {}", g.to_ggf());
        }
    }
}

#[test]
#[cfg_attr(
    outflank_no_gtp_rhino,
    ignore = "needs gtp-rhino (apt-get install grhino), missing when the tests were built"
)]
fn gtp_rhino_against_outflank() {
    let rhino = gtp_rhino();
    let bin = env!("CARGO_BIN_EXE_outflank");
    let (status, out, err) = outflank_match(&[
        "--engine",
        &format!("name=rhino,implicit-pass,cmd={} -l 1", rhino.display()),
        "--engine",
        &format!("name=outflank,proto=nboard,depth=2,cmd={bin} nboard"),
        "--games",
        "2",
        "--tc",
        "10",
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    assert_eq!(out.lines().filter(|l| l.starts_with("Game ")).count(), 2);
    for l in out.lines().filter(|l| l.starts_with("Game ")) {
        assert!(
            l.contains(" wins ") || l.contains("{draw "),
            "no forfeit: {out}"
        );
    }
}

/// The report at the end of a match's output: everything after its first blank line (the
/// table, the SPRT's line, the count of games played), but for the clock line, whose times
/// differ from run to run.
fn final_report(out: &str) -> String {
    let report = out.split_once("\n\n").map_or("", |(_, report)| report);
    report
        .lines()
        .filter(|l| !l.starts_with("clock used a game: "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The numbers of the `Game N (...)` lines of a match's output, with the lines.
fn game_lines(out: &str) -> Vec<(usize, String)> {
    out.lines()
        .filter_map(|l| {
            let n = l
                .strip_prefix("Game ")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()?;
            Some((n, l.to_string()))
        })
        .collect()
}

/// The schedule's number of each game of a match's GGF file, in the file's order.
fn ggf_game_numbers(path: &Path) -> Vec<usize> {
    check_ggf(path)
        .iter()
        .map(|g| {
            let (_, gn) = g.other.iter().find(|(t, _)| t == "GN").expect("a GN tag");
            parse_game_name(gn).expect("GN[match ID game N]").1
        })
        .collect()
}

/// A round robin of 6 games with deterministic engines (first legal move; C plays an
/// illegal move in every game), one game at a time, so every run of it plays the same games.
fn resumable_match(ggf: &Path) -> Vec<String> {
    let script = fixture("broken_engine.py");
    let spec = |name: &str, proto: &str, mode: &str| {
        format!(
            "name={name},proto={proto},cmd=python3 {} {proto} {mode}",
            script.display()
        )
    };
    [
        "--engine",
        &spec("A", "gtp", "ok"),
        "--engine",
        &spec("B", "nboard", "ok"),
        "--engine",
        &spec("C", "gtp", "illegal"),
        "--openings",
        fixture("xot-3.txt").to_str().unwrap(),
        "--seed",
        "3",
        "--games",
        "2",
        "--tc",
        "30",
        "--ggf",
        ggf.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

/// The uninterrupted run of [`resumable_match`], played once for the tests that compare with
/// it: its stdout and its GGF file's text.
fn uninterrupted() -> &'static (String, String) {
    static RUN: OnceLock<(String, String)> = OnceLock::new();
    RUN.get_or_init(|| {
        let ggf = tmp_file("whole.ggf");
        let args = resumable_match(&ggf);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (status, out, err) = outflank_match(&args);
        assert_eq!(status, 0, "{out}\n{err}");
        assert_eq!(ggf_game_numbers(&ggf), (1..=6).collect::<Vec<_>>());
        (out, std::fs::read_to_string(&ggf).unwrap())
    })
}

/// `--resume` on a file cut after 2 games and in the middle of the 3rd line: the cut line is
/// removed, only the 4 games missing are played (the same games as in one go), each game is
/// in the file once, and the report is the uninterrupted run's. Resuming the finished file
/// plays nothing and reports the same again.
#[test]
fn cli_resumes_a_cut_match_to_the_same_report() {
    let (whole_out, whole_ggf) = uninterrupted();
    let lines: Vec<&str> = whole_ggf.split_inclusive('\n').collect();
    let ggf = tmp_file("cut.ggf");
    let kept = lines[..2].concat();
    std::fs::write(&ggf, format!("{kept}{}", &lines[2][..30])).unwrap();
    let mut args = resumable_match(&ggf);
    args.push("--resume".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, out, err) = outflank_match(&args);
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(
        out.contains("Resuming: 2 of 6 games already played in ")
            && out.contains(", 4 to play; an unfinished last line (30 bytes) was removed"),
        "{out}"
    );
    let text = std::fs::read_to_string(&ggf).unwrap();
    assert!(
        text.starts_with(&kept),
        "the games kept are left as they were"
    );
    let mut numbers = ggf_game_numbers(&ggf);
    let first: Vec<usize> = numbers[..2].to_vec();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=6).collect::<Vec<_>>(), "each game once");
    let played = game_lines(&out);
    assert_eq!(played.len(), 4, "{out}");
    assert!(played.iter().all(|(n, _)| !first.contains(n)));
    let whole_games = game_lines(whole_out);
    for line in &played {
        assert!(
            whole_games.contains(line),
            "the same game as in one go: {}",
            line.1
        );
    }
    assert_eq!(final_report(&out), final_report(whole_out));
    assert!(final_report(&out).contains("C "), "{out}");
    // Each engine's clock use, counted from the games' move times (the fake engines answer
    // at once, each with a 30 s clock).
    for o in [&out, whole_out] {
        let clock = o.lines().find(|l| l.starts_with("clock used a game: "));
        let clock = clock.unwrap_or_else(|| panic!("no clock line in {o}"));
        for name in ["A", "B", "C"] {
            assert!(clock.contains(&format!("{name} 0.")), "{clock}");
        }
        assert!(clock.contains(" s of 30.0 s ("), "{clock}");
    }

    // Resuming the finished match plays nothing, writes nothing and reports the same.
    let (status, again, err) = outflank_match(&args);
    assert_eq!(status, 0, "{again}\n{err}");
    assert!(again.contains("6 of 6 games already played"), "{again}");
    assert!(game_lines(&again).is_empty(), "{again}");
    assert_eq!(final_report(&again), final_report(whole_out));
    assert_eq!(std::fs::read_to_string(&ggf).unwrap(), text);
}

/// Ctrl-C (SIGINT) in the middle of a match leaves whole lines in its GGF file, and
/// `--resume` finishes the match with the report of the uninterrupted run. (On a machine
/// quick enough to finish the 6 games before the signal lands, the resume plays nothing.)
#[cfg(unix)]
#[test]
fn cli_interrupted_match_leaves_whole_lines_and_resumes() {
    let (whole_out, _) = uninterrupted();
    let ggf = tmp_file("interrupted.ggf");
    let args = resumable_match(&ggf);
    let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .arg("match")
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let interrupted = loop {
        let lines = std::fs::read(&ggf).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
        if lines >= 1 {
            let pid = libc::pid_t::try_from(child.id()).unwrap();
            // SAFETY: kill(2) sends a signal to our own child, not yet reaped, so its pid
            // cannot belong to another process.
            assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
            break true;
        }
        if child.try_wait().unwrap().is_some() {
            break false;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "no game written");
        std::thread::sleep(Duration::from_millis(2));
    };
    let status = child.wait().unwrap();
    let bytes = std::fs::read(&ggf).unwrap();
    assert!(bytes.ends_with(b"\n"), "whole lines only");
    let written = check_ggf(&ggf).len();
    if interrupted && written < 6 {
        assert!(!status.success(), "{status:?}");
    } else {
        eprintln!("note: the match ended before it could be interrupted");
    }
    let mut args = args;
    args.push("--resume".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, out, err) = outflank_match(&args);
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(
        out.contains(&format!("Resuming: {written} of 6 games already played")),
        "{out}"
    );
    assert_eq!(game_lines(&out).len(), 6 - written, "{out}");
    let mut numbers = ggf_game_numbers(&ggf);
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=6).collect::<Vec<_>>(), "each game once");
    assert_eq!(final_report(&out), final_report(whole_out));
}

/// `--resume` refuses, with one line on stderr and exit status 2, a file of another match
/// (other engines' names, other games, a GGF not written by a match) and leaves it as it
/// was; `--resume` needs `--ggf`.
#[test]
fn cli_refuses_to_resume_another_matchs_file() {
    let script = fixture("broken_engine.py");
    let a = format!("name=A,cmd=python3 {} gtp ok", script.display());
    let b = format!("name=B,cmd=python3 {} gtp ok", script.display());
    let c = format!("name=C,cmd=python3 {} gtp ok", script.display());
    let ggf = tmp_file("other.ggf");
    let path = ggf.to_str().unwrap();
    let (status, out, err) = outflank_match(&[
        "--engine", &a, "--engine", &b, "--games", "2", "--ggf", path,
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    let before = std::fs::read(&ggf).unwrap();
    let cases: [&[&str]; 3] = [
        &["--engine", &a, "--engine", &c, "--games", "2"],
        &["--engine", &a, "--engine", &b, "--games", "4"],
        &["--engine", &b, "--engine", &a, "--games", "2"],
    ];
    for case in cases {
        let mut args = case.to_vec();
        args.extend(["--ggf", path, "--resume"]);
        let (status, out, err) = outflank_match(&args);
        assert_eq!(status, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("cannot resume the match of") && err.contains("not a game of this match"),
            "{err}"
        );
        assert_eq!(
            std::fs::read(&ggf).unwrap(),
            before,
            "the file is left alone"
        );
    }
    // A GGF file that no match wrote.
    let plain = tmp_file("plain.ggf");
    let mut game = parse_ggf_games(std::str::from_utf8(&before).unwrap()).unwrap()[0].clone();
    game.other.clear();
    std::fs::write(&plain, game.to_ggf() + "\n").unwrap();
    let (status, _, err) = outflank_match(&[
        "--engine",
        &a,
        "--engine",
        &b,
        "--games",
        "2",
        "--ggf",
        plain.to_str().unwrap(),
        "--resume",
    ]);
    assert_eq!(status, 2, "{err}");
    assert!(
        err.contains("line 1 is not a game of this match (no GN tag"),
        "{err}"
    );
    let (status, _, err) = outflank_match(&["--engine", &a, "--engine", &b, "--resume"]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("--ggf") && err.lines().count() == 1, "{err}");
}

/// A match whose SPRT decided is resumed to the same verdict at once: no game is played.
#[test]
fn cli_resumed_sprt_that_had_decided_stops_at_once() {
    let script = fixture("broken_engine.py");
    let good = format!("name=good,cmd=python3 {} gtp ok", script.display());
    let bad = format!("name=bad,cmd=python3 {} gtp illegal", script.display());
    let ggf = tmp_file("sprt.ggf");
    let args = [
        "--engine",
        &good,
        "--engine",
        &bad,
        "--games",
        "200",
        "--sprt",
        "0,50",
        "--ggf",
        ggf.to_str().unwrap(),
    ];
    let (status, first, err) = outflank_match(&args);
    assert_eq!(status, 0, "{first}\n{err}");
    assert!(first.contains("H1 accepted"), "{first}");
    let text = std::fs::read_to_string(&ggf).unwrap();
    let mut resume = args.to_vec();
    resume.push("--resume");
    let t = Instant::now();
    let (status, out, err) = outflank_match(&resume);
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(game_lines(&out).is_empty(), "{out}");
    // The game a worker had begun when the verdict came (if any) was abandoned in the first
    // run: a matter of timing, which the file does not record.
    let tail = " abandoned when the SPRT stopped the match)";
    let first = match first.rfind(tail) {
        Some(end) => {
            let start = first[..end].rfind(" (").unwrap();
            format!("{}{}", &first[..start], &first[end + tail.len()..])
        }
        None => first,
    };
    assert_eq!(final_report(&out), final_report(&first));
    assert_eq!(std::fs::read_to_string(&ggf).unwrap(), text);
    assert!(t.elapsed() < Duration::from_secs(2), "no engine started");
}
