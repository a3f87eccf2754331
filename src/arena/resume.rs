//! A match's GGF file as the record of what it has played, so that a match stopped part way
//! (a session that ended, Ctrl-C, a crash) can be resumed without playing a game twice.
//!
//! Each game's line carries `GN[match ID game N]`: `N` is the game's number in the
//! deterministic schedule (the `Game N` of the match's output) and `ID` the [`MatchId`], a
//! fingerprint of the whole schedule. GGF readers keep or skip a tag they do not know (GGF
//! has no `GN`; SGF's `GN` is the game's name, which this is). [`read_played`] reads a file
//! back into [`GameRecord`]s, refusing a file that holds anything but games of this match,
//! and [`super::resume_match`] counts them and plays the rest.

use std::fmt;

use super::referee::{GameRecord, GameSpec};
use crate::checksum::fnv1a;
use crate::notation::{GgfError, parse_ggf};

/// A fingerprint of a match's schedule: for every game its number, players, opening (with
/// its start) and the two clocks. Two matches with the same id play the same games: the
/// same engines' names in the same order, the same openings in the same order (file and
/// seed), the same number of games and the same clocks. Options that leave the schedule
/// alone (concurrency, SPRT, timeouts, the engines' commands) are not part of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchId(pub u64);

impl MatchId {
    /// The id of the match that plays `schedule` (see [`super::schedule`]).
    pub fn of(schedule: &[GameSpec]) -> MatchId {
        let clock =
            |t: Option<super::TimeControl>| t.map_or_else(|| "-".to_string(), |t| t.to_string());
        let mut text = String::new();
        for g in schedule {
            text.push_str(&format!(
                "{} {} {} {} {} {}\n",
                g.number,
                g.black_name,
                g.white_name,
                g.opening_text,
                clock(g.tc[0]),
                clock(g.tc[1])
            ));
        }
        MatchId(fnv1a(text.as_bytes()))
    }

    /// Reads the 16 hexadecimal digits [`MatchId`]'s `Display` writes.
    pub fn parse(s: &str) -> Option<MatchId> {
        (s.len() == 16 && s.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(s, 16).ok().map(MatchId))
            .flatten()
    }
}

impl fmt::Display for MatchId {
    /// 16 hexadecimal digits: `3f2a9c1b5e6d7f80`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// The `GN` value of game `number` of match `id`: `match 3f2a9c1b5e6d7f80 game 7`.
pub fn game_name(id: MatchId, number: usize) -> String {
    format!("match {id} game {number}")
}

/// Reads a [`game_name`] back: the match's id and the game's number.
pub fn parse_game_name(s: &str) -> Option<(MatchId, usize)> {
    let mut words = s.split_whitespace();
    let (Some("match"), Some(id), Some("game"), Some(n), None) = (
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
    ) else {
        return None;
    };
    Some((MatchId::parse(id)?, n.parse().ok()?))
}

/// A game's line in the match's GGF file, its newline included: [`GameRecord::to_ggf`] with
/// the date and the [`game_name`] in `GN`. Written with one call, a line is whole or absent
/// even when the match is killed.
pub fn ggf_line(r: &GameRecord, id: MatchId, date: Option<String>) -> String {
    let mut g = r.to_ggf(date);
    g.other.push(("GN".to_string(), game_name(id, r.number)));
    let mut line = g.to_ggf();
    line.push('\n');
    line
}

/// Why a match's GGF file cannot be resumed. Lines are counted from 1.
#[derive(Clone, Debug, PartialEq)]
pub enum ResumeError {
    /// Bytes that are not UTF-8 text.
    NotText {
        /// The line.
        line: usize,
    },
    /// A whole line that is not one GGF game.
    Unreadable {
        /// The line.
        line: usize,
        /// What the GGF reader says.
        error: GgfError,
    },
    /// A game that is not one of this match's: no `GN`, or another match's, or a number
    /// beyond the schedule.
    OtherMatch {
        /// The line.
        line: usize,
        /// Its `GN` value, if any.
        name: Option<String>,
        /// This match's id.
        this: MatchId,
    },
    /// A game that is in the file twice.
    Repeated {
        /// The line of the second.
        line: usize,
        /// The game's number.
        number: usize,
    },
    /// A game of this match whose record does not fit its place in the schedule.
    Mismatch {
        /// The line.
        line: usize,
        /// The game's number.
        number: usize,
        /// What does not fit.
        why: String,
    },
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::NotText { line } => write!(f, "line {line} is not UTF-8 text"),
            ResumeError::Unreadable { line, error } => {
                write!(f, "line {line} is not a GGF game: {}", error.detail())
            }
            ResumeError::OtherMatch { line, name, this } => {
                let found = match name {
                    Some(n) => format!("GN[{n}]"),
                    None => "no GN tag".to_string(),
                };
                write!(
                    f,
                    "line {line} is not a game of this match ({found}, not GN[match {this} \
                     game N]): the engines' names, the openings, the seed, --games or the \
                     clocks differ, or another program (or an older outflank) wrote it"
                )
            }
            ResumeError::Repeated { line, number } => write!(
                f,
                "line {line} holds game {number} again: the file has more than one run of \
                 this match"
            ),
            ResumeError::Mismatch { line, number, why } => {
                write!(f, "line {line}, game {number}: {why}")
            }
        }
    }
}

impl std::error::Error for ResumeError {}

/// The games a match's GGF file holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// The games, in the order of the file (the order they ended in).
    pub games: Vec<GameRecord>,
    /// The length in bytes of the file's whole lines: anything after the last newline is
    /// the trace of a write cut short, and is not read.
    pub whole_len: usize,
}

/// Reads the games of a match's GGF file (its bytes), written by a run of the match that
/// plays `schedule`. Blank lines are skipped; text after the last newline (a line whose
/// write was cut short) is left out, and [`Played::whole_len`] says where it starts. Every
/// other line must be a game of this match, each game at most once: anything else is an
/// error naming its line.
pub fn read_played(bytes: &[u8], schedule: &[GameSpec]) -> Result<Played, ResumeError> {
    let whole_len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let whole = &bytes[..whole_len];
    let text = std::str::from_utf8(whole).map_err(|e| ResumeError::NotText {
        line: 1 + whole[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
    })?;
    let this = MatchId::of(schedule);
    let mut seen = vec![false; schedule.len()];
    let mut games = Vec::new();
    for (i, text) in text.lines().enumerate() {
        let line = i + 1;
        if text.trim().is_empty() {
            continue;
        }
        let g = parse_ggf(text).map_err(|error| ResumeError::Unreadable { line, error })?;
        let name = g
            .other
            .iter()
            .find(|(tag, _)| tag == "GN")
            .map(|(_, v)| v.clone());
        let number = name
            .as_deref()
            .and_then(parse_game_name)
            .filter(|&(id, n)| id == this && (1..=schedule.len()).contains(&n))
            .map(|(_, n)| n)
            .ok_or(ResumeError::OtherMatch { line, name, this })?;
        if std::mem::replace(&mut seen[number - 1], true) {
            return Err(ResumeError::Repeated { line, number });
        }
        let record = GameRecord::from_ggf(&g, &schedule[number - 1])
            .map_err(|why| ResumeError::Mismatch { line, number, why })?;
        games.push(record);
    }
    Ok(Played { games, whole_len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{
        EngineSpec, MatchConfig, Sprt, SprtVerdict, Termination, TimeControl, parse_openings,
        resume_match, schedule,
    };
    use crate::board::Color;
    use crate::notation::GgfGame;

    /// Two engines that cannot be started (`cmd=x`): a test that starts one fails.
    fn config(seed: u64) -> MatchConfig {
        let e = |n: &str| EngineSpec::parse(&format!("name={n},cmd=/nonexistent/x")).unwrap();
        let mut cfg = MatchConfig::new(vec![e("A"), e("B")]);
        cfg.openings = parse_openings("f5d6c4d3c2b3b4b5\nf5f6d3c5d6c7b5e3\n").unwrap();
        cfg.seed = Some(seed);
        cfg
    }

    /// The scheduled game played out with the first legal move each time, each move after
    /// the opening with an evaluation and a time.
    fn played_out(spec: &GameSpec) -> GameRecord {
        let mut game = spec.opening.clone();
        let opening = game.len();
        while let Some(&mv) = game.position().legal_moves().first() {
            game.play(mv).unwrap();
        }
        let mut moves = GgfGame::from_game(&game).moves;
        for (i, m) in moves.iter_mut().enumerate().skip(opening) {
            m.eval = Some(i as f64 / 4.0 - 3.0);
            m.time = Some(0.125 + i as f64 / 1000.0);
        }
        GameRecord {
            black_discs: game.result(),
            ..GameRecord::of(spec, spec.opening.start(), moves, &game.position())
        }
    }

    /// The scheduled game lost by `loser` right after the opening.
    fn forfeited(spec: &GameSpec, loser: Color, termination: Termination) -> GameRecord {
        let pos = spec.opening.position();
        GameRecord {
            moves: GgfGame::from_game(&spec.opening).moves,
            forfeit: Some(loser),
            termination,
            black_discs: None,
            disc_counts: (pos.black().count_ones(), pos.white().count_ones()),
            ..played_out(spec)
        }
    }

    fn every_termination() -> Vec<Termination> {
        vec![
            Termination::IllegalMove("a1".into()),
            Termination::IllegalPass,
            Termination::Resigned,
            Termination::Timeout("no answer to `genmove b` within 1.20 s".into()),
            Termination::Crash("exit status: 3".into()),
            Termination::Protocol("answered `genmove w` with \"(x)\", not a move".into()),
            Termination::StartFailure("cannot run `x`: not found".into()),
        ]
    }

    #[test]
    fn the_id_is_the_schedules() {
        let id = |cfg: &MatchConfig| MatchId::of(&schedule(cfg));
        let base = config(1);
        assert_eq!(id(&base), id(&config(1)));
        assert_ne!(id(&base), id(&config(2)), "another seed, another order");
        let mut more = config(1);
        more.games = Some(6);
        assert_ne!(id(&base), id(&more));
        let mut same = config(1);
        same.games = Some(4);
        assert_eq!(id(&base), id(&same), "--games 4 is the default here");
        let mut timed = config(1);
        timed.tc = Some(TimeControl::parse("10").unwrap());
        assert_ne!(id(&base), id(&timed));
        let mut swapped = config(1);
        swapped.engines.reverse();
        assert_ne!(id(&base), id(&swapped));
        let mut other_cmd = config(1);
        other_cmd.engines[0] = EngineSpec::parse("name=A,cmd=/elsewhere/x").unwrap();
        other_cmd.concurrency = 2;
        assert_eq!(
            id(&base),
            id(&other_cmd),
            "commands and concurrency may change"
        );
        let name = game_name(id(&base), 7);
        assert_eq!(parse_game_name(&name), Some((id(&base), 7)));
        assert_eq!(MatchId::parse(&id(&base).to_string()), Some(id(&base)));
        for bad in [
            "",
            "match 12 game 3",
            "match 0123456789abcdef game x",
            "game 3",
        ] {
            assert_eq!(parse_game_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn terminations_read_back() {
        for t in every_termination().into_iter().chain([Termination::Normal]) {
            assert_eq!(Termination::parse(&t.to_string()), Some(t.clone()), "{t}");
        }
        assert_eq!(Termination::parse("fell asleep"), None);
        assert_eq!(Termination::parse("crashed (no closing"), None);
    }

    #[test]
    fn games_read_back_as_written() {
        let s = schedule(&config(3));
        let mut records: Vec<GameRecord> = s.iter().map(played_out).collect();
        for (i, t) in every_termination().into_iter().enumerate() {
            let spec = &s[i % s.len()];
            let loser = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            records.push(forfeited(spec, loser, t));
        }
        for r in &records {
            let line = ggf_line(r, MatchId::of(&s), Some("2026.01.02_10:00:00.UTC".into()));
            assert!(line.ends_with(";)\n") && line.matches('\n').count() == 1);
            assert!(line.contains(&format!("GN[match {} game {}]", MatchId::of(&s), r.number)));
            let back = read_played(line.as_bytes(), &s).unwrap();
            assert_eq!(back.games, vec![r.clone()], "{line}");
            assert_eq!(back.whole_len, line.len());
        }
    }

    #[test]
    fn a_cut_last_line_is_left_out_and_anything_foreign_refused() {
        let s = schedule(&config(3));
        let id = MatchId::of(&s);
        let line = |k: usize| ggf_line(&played_out(&s[k]), id, None);
        let text = format!("{}\n{}{}", line(2), line(0), &line(1)[..40]);
        let played = read_played(text.as_bytes(), &s).unwrap();
        let numbers: Vec<usize> = played.games.iter().map(|r| r.number).collect();
        assert_eq!(numbers, [3, 1], "file order, the blank line skipped");
        assert_eq!(played.whole_len, text.len() - 40);
        // A cut in the middle of a character is left out too.
        let mut bytes = line(0).into_bytes();
        bytes.extend_from_slice(&"PB[é".as_bytes()[..4]);
        assert_eq!(read_played(&bytes, &s).unwrap().games.len(), 1);
        assert_eq!(
            read_played(b"", &s).unwrap(),
            Played {
                games: vec![],
                whole_len: 0
            }
        );

        let other = schedule(&config(4));
        let foreign = ggf_line(&played_out(&other[0]), MatchId::of(&other), None);
        let err = |text: String| read_played(text.as_bytes(), &s).unwrap_err();
        let e = err(format!("{}{foreign}", line(0)));
        assert!(
            matches!(
                &e,
                ResumeError::OtherMatch {
                    line: 2,
                    name: Some(_),
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .starts_with("line 2 is not a game of this match (GN[match ")
        );
        let plain = played_out(&s[0]).to_ggf(None).to_ggf() + "\n";
        assert!(matches!(
            err(plain),
            ResumeError::OtherMatch {
                line: 1,
                name: None,
                ..
            }
        ));
        let beyond = line(0).replace(" game 1]", " game 99]");
        assert!(matches!(err(beyond), ResumeError::OtherMatch { .. }));
        let e = err(format!("{}{}{}", line(0), line(1), line(0)));
        assert_eq!(e, ResumeError::Repeated { line: 3, number: 1 });
        let e = err(format!("{}(;GM[Othello]PB[x\n", line(0)));
        assert!(matches!(e, ResumeError::Unreadable { line: 2, .. }), "{e}");
        let e = err(line(0).replace("PB[A]", "PB[C]").replace("PW[A]", "PW[C]"));
        assert!(
            matches!(
                e,
                ResumeError::Mismatch {
                    line: 1,
                    number: 1,
                    ..
                }
            ),
            "{e}"
        );
        let mut wrong = played_out(&s[0]);
        wrong.black_discs = wrong.black_discs.map(|d| d + 2);
        let e = err(ggf_line(&wrong, id, None));
        assert!(e.to_string().contains("is not where its moves end"), "{e}");
        assert_eq!(
            read_played(b"ok\n\xff\xfe\n", &s).unwrap_err(),
            ResumeError::NotText { line: 2 }
        );
    }

    #[test]
    fn a_resumed_match_counts_as_played_and_starts_no_engine_when_done() {
        let mut cfg = config(5);
        cfg.games = Some(200);
        cfg.sprt = Some(Sprt::new(0.0, 50.0));
        let s = schedule(&cfg);
        // A wins every game: B forfeits.
        let records: Vec<GameRecord> = s
            .iter()
            .map(|g| {
                let loser = if g.black == 1 {
                    Color::Black
                } else {
                    Color::White
                };
                forfeited(g, loser, Termination::Resigned)
            })
            .collect();
        let mut seen = 0;
        let report = resume_match(&cfg, records.clone(), &mut |_, _| seen += 1).unwrap();
        let sprt = report.sprt.unwrap();
        assert_eq!(sprt.verdict, SprtVerdict::H1);
        let n = report.games.len();
        assert!(n < 100, "{n}");
        assert_eq!(
            report.games,
            records[..n],
            "counted in order, up to the verdict"
        );
        assert_eq!(report.standings.scores[0].wins as usize, n);
        assert_eq!((seen, report.scheduled, report.abandoned), (0, 200, 0));
        // One game short of the verdict, the match would go on: the engines are started.
        assert!(resume_match(&cfg, records[..n - 1].to_vec(), &mut |_, _| {}).is_err());
        // Every game played: nothing to start either.
        cfg.sprt = None;
        let report = resume_match(&cfg, records.clone(), &mut |_, _| {}).unwrap();
        assert_eq!(report.games.len(), 200);
    }
}
