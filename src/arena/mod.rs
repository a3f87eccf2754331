//! The match runner: engine-vs-engine matches and round robins, refereed.
//!
//! The arena talks to engines only through their protocols (GTP, NBoard or UGI), as any outside
//! referee would, so it can referee Outflank against anything:
//!
//! - [`engine`]: an engine process, line I/O with deadlines, crash detection, kill;
//! - [`gtp_client`], [`nboard_client`] and [`ugi_client`]: the three protocols behind one
//!   [`client::Client`];
//! - [`referee`]: one game, with the referee's own board, clocks and adjudication;
//! - [`stats`]: scores, Elo with a 95% interval, SPRT;
//! - [`resume`]: the match's GGF file read back, so that a stopped match goes on where it
//!   stopped;
//! - this module: engine specifications, openings, the schedule and [`run_match`] (or
//!   [`resume_match`]), which plays the games on several threads and reports each as it
//!   ends.

pub mod client;
pub mod engine;
pub mod gtp_client;
pub mod launch;
pub mod nboard_client;
pub mod referee;
pub mod resume;
pub mod stats;
pub mod ugi_client;

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};

pub use engine::{CommandLine, EngineFailure};
pub use referee::{GameRecord, GameSpec, Termination};
pub use resume::{MatchId, Played, ResumeError, ggf_line, read_played};
pub use stats::{Elo, Score, Sprt, SprtVerdict};

use crate::board::{Color, Position};
use crate::game::Game;
use crate::notation::{parse_transcript, transcript};

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// GTP, Othello dialect (`genmove`, `play`).
    Gtp,
    /// The NBoard protocol, version 2 (`set game`, `go`).
    Nboard,
    /// UGI, the Universal Game Interface (`position`, `go`, `bestmove`).
    Ugi,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Gtp => "gtp",
            Protocol::Nboard => "nboard",
            Protocol::Ugi => "ugi",
        })
    }
}

/// An engine taking part in a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Its name in results and tables (unique within a match).
    pub name: String,
    /// Its protocol.
    pub protocol: Protocol,
    /// How to start it.
    pub command: CommandLine,
    /// A fixed midgame depth (NBoard `set depth`), if any.
    pub depth: Option<u32>,
    /// Send no explicit pass: the engine infers a pass from the next move's colour (GTP).
    pub implicit_pass: bool,
    /// This engine's own clock, overriding the match's `--tc` (`tc=60`, `tc=none`).
    pub tc: Option<Option<TimeControl>>,
}

impl EngineSpec {
    /// Reads `name=A,proto=gtp,cmd=gtp-rhino -l 5`: comma-separated `key=value` pairs.
    ///
    /// Keys: `name` (default: the program's file name), `proto` (`gtp`, `nboard` or `ugi`,
    /// default `gtp`), `dir` (working directory), `depth` (NBoard and UGI), `implicit-pass` (alone or
    /// `=yes`/`=no`), `tc` (this engine's own clock, `60`, `60+1` or `none`, overriding the
    /// match's), and `cmd`, which must come last: its value is the rest of the text,
    /// commas included, split into words as a shell would (quotes and backslashes).
    pub fn parse(s: &str) -> Result<EngineSpec, String> {
        let mut name = None;
        let mut protocol = Protocol::Gtp;
        let mut command: Option<CommandLine> = None;
        let mut dir = None;
        let mut depth = None;
        let mut implicit_pass = false;
        let mut tc = None;
        let mut rest = s.trim();
        while !rest.is_empty() {
            let (item, tail) = match rest.find(',') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, ""),
            };
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim()),
                None => (item.trim().to_ascii_lowercase(), ""),
            };
            if key == "cmd" || key == "command" {
                let start = rest.find('=').expect("cmd has a =") + 1;
                command = Some(CommandLine::parse(&rest[start..])?);
                break;
            }
            match key.as_str() {
                "name" => {
                    if value.is_empty() || value.contains(char::is_whitespace) {
                        return Err(format!("engine name {value:?} must be one word"));
                    }
                    name = Some(value.to_string());
                }
                "proto" | "protocol" => {
                    protocol = match value.to_ascii_lowercase().as_str() {
                        "gtp" => Protocol::Gtp,
                        "nboard" => Protocol::Nboard,
                        "ugi" => Protocol::Ugi,
                        _ => {
                            return Err(format!("unknown protocol {value:?} (gtp, nboard or ugi)"));
                        }
                    }
                }
                "dir" => dir = Some(value.into()),
                "depth" => {
                    let d: u32 = value
                        .parse()
                        .ok()
                        .filter(|d| (1..=60).contains(d))
                        .ok_or_else(|| format!("depth {value:?} is not a number from 1 to 60"))?;
                    depth = Some(d);
                }
                "implicit-pass" | "implicit_pass" => {
                    implicit_pass = match value.to_ascii_lowercase().as_str() {
                        "" | "yes" | "true" | "1" => true,
                        "no" | "false" | "0" => false,
                        _ => return Err(format!("implicit-pass={value:?}: say yes or no")),
                    }
                }
                "tc" => {
                    tc = Some(if value.eq_ignore_ascii_case("none") {
                        None
                    } else {
                        Some(TimeControl::parse(value).map_err(|e| format!("tc: {e}"))?)
                    });
                }
                "" => {}
                _ => {
                    return Err(format!(
                        "unknown key {key:?} in engine {s:?} (name, proto, dir, depth, \
                         implicit-pass, tc, cmd)"
                    ));
                }
            }
            rest = tail.trim_start();
        }
        let Some(mut command) = command else {
            return Err(format!("engine {s:?} has no cmd=... (it must come last)"));
        };
        command.dir = dir;
        let name = name.unwrap_or_else(|| {
            Path::new(&command.argv[0])
                .file_name()
                .map_or_else(|| command.argv[0].clone(), |f| f.to_string_lossy().into())
        });
        Ok(EngineSpec {
            name,
            protocol,
            command,
            depth,
            implicit_pass,
            tc,
        })
    }
}

/// A clock: main time and an increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Main time for the whole game.
    pub base: Duration,
    /// Time added after each move.
    pub increment: Duration,
}

impl TimeControl {
    /// Reads `60` (seconds for the game) or `60+1` (plus one second a move); decimals allowed.
    pub fn parse(s: &str) -> Result<TimeControl, String> {
        let secs = |t: &str| -> Result<Duration, String> {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| format!("time control {s:?}: {t:?} is not a number of seconds"))?;
            Duration::try_from_secs_f64(v)
                .map_err(|_| format!("time control {s:?}: {t:?} is not a valid duration"))
        };
        let (base, increment) = match s.split_once('+') {
            Some((b, i)) => (secs(b)?, secs(i)?),
            None => (secs(s)?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(format!(
                "time control {s:?}: the main time must be positive"
            ));
        }
        Ok(TimeControl { base, increment })
    }
}

impl fmt::Display for TimeControl {
    /// `60` or `60+1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.increment.is_zero() {
            write!(f, "+{}", self.increment.as_secs_f64())?;
        }
        Ok(())
    }
}

/// An opening: a position reached by some moves from a start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start and the opening moves.
    pub game: Game,
    /// The opening as a transcript, empty for the start position.
    pub text: String,
}

impl Opening {
    /// The start position with no moves.
    pub fn start() -> Opening {
        Opening {
            game: Game::default(),
            text: String::new(),
        }
    }
}

/// Reads openings, one transcript a line (XOT style: `f5d6c4d3c2b3b4b5`, an optional
/// `BOARD;` prefix for another start). A `#` starts a comment to the end of its line; blank
/// lines, comments and lines starting with `%` are skipped; an unreadable line is an error
/// naming it.
pub fn parse_openings(text: &str) -> anyhow::Result<Vec<Opening>> {
    let mut out = Vec::new();
    for (i, line) in crate::notation::without_bom(text).lines().enumerate() {
        // A comment runs from `#` (or a `%` at the start of the line) to the end of the line.
        let t = line.split('#').next().unwrap_or("").trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let game = parse_transcript(t).with_context(|| format!("openings line {}", i + 1))?;
        if game.is_over() {
            bail!("openings line {}: the game is already over", i + 1);
        }
        let text = transcript(&game);
        out.push(Opening { game, text });
    }
    Ok(out)
}

/// Reads an openings file (see [`parse_openings`]).
pub fn load_openings(path: &Path) -> anyhow::Result<Vec<Opening>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings {}", path.display()))?;
    let v = parse_openings(&text).with_context(|| path.display().to_string())?;
    if v.is_empty() {
        bail!("{}: no openings in the file", path.display());
    }
    Ok(v)
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Two engines for a match, more for a round robin (each pair meets).
    pub engines: Vec<EngineSpec>,
    /// The openings; empty means the start position.
    pub openings: Vec<Opening>,
    /// Games per pair of engines; `None`: each opening twice (colours swapped), or two games
    /// from the start position.
    pub games: Option<usize>,
    /// The clock of each side, `None` for untimed games.
    pub tc: Option<TimeControl>,
    /// Games played at once.
    pub concurrency: usize,
    /// Shuffles the openings when given.
    pub seed: Option<u64>,
    /// Stops a two-engine match once this test decides (from the first engine's side).
    pub sprt: Option<Sprt>,
    /// Time allowed beyond the clock before a move is late.
    pub grace: Duration,
    /// Time allowed for a move in an untimed game.
    pub move_timeout: Duration,
    /// Time allowed for answers that are not moves (start-up, `play`, `ping`).
    pub response_timeout: Duration,
}

impl MatchConfig {
    /// A configuration with these engines and defaults: start position, two games per pair,
    /// untimed, one game at a time, 1 s grace, 300 s per untimed move, 30 s for other
    /// answers.
    pub fn new(engines: Vec<EngineSpec>) -> MatchConfig {
        MatchConfig {
            engines,
            openings: Vec::new(),
            games: None,
            tc: None,
            concurrency: 1,
            seed: None,
            sprt: None,
            grace: Duration::from_secs(1),
            move_timeout: Duration::from_secs(300),
            response_timeout: Duration::from_secs(30),
        }
    }

    /// Checks that the configuration makes sense: two or more engines with distinct names,
    /// depths only for NBoard engines, GTP engines only from the standard start, SPRT only
    /// for two engines.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.engines.len() < 2 {
            bail!("a match needs at least two engines (--engine)");
        }
        for (i, e) in self.engines.iter().enumerate() {
            if self.engines[..i].iter().any(|o| o.name == e.name) {
                bail!(
                    "two engines are named {:?}: give them distinct names",
                    e.name
                );
            }
            if e.depth.is_some() && e.protocol == Protocol::Gtp {
                bail!(
                    "engine {}: a fixed depth needs the NBoard or UGI protocol (GTP has no depth command)",
                    e.name
                );
            }
            if e.protocol == Protocol::Gtp
                && self
                    .openings
                    .iter()
                    .any(|o| o.game.start() != Position::start())
            {
                bail!(
                    "engine {}: GTP cannot start from a board other than the standard one",
                    e.name
                );
            }
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            bail!("--sprt needs exactly two engines");
        }
        if self.games == Some(0) {
            bail!("--games must be at least 1");
        }
        Ok(())
    }
}

/// The games of a match in the order they are started. For each pair of engines the
/// openings are taken in turn (shuffled with the seed), each played twice with colours
/// swapped; pairs alternate so that a partial round robin stays balanced.
pub fn schedule(cfg: &MatchConfig) -> Vec<GameSpec> {
    let mut openings = if cfg.openings.is_empty() {
        vec![Opening::start()]
    } else {
        cfg.openings.clone()
    };
    if let Some(seed) = cfg.seed {
        crate::rng::Rng::from_state(seed).shuffle(&mut openings);
    }
    let per_pair = cfg.games.unwrap_or(2 * openings.len());
    let n = cfg.engines.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let mut out = Vec::new();
    for g in 0..per_pair {
        let opening = &openings[(g / 2) % openings.len()];
        for &(i, j) in &pairs {
            let (black, white) = if g % 2 == 0 { (i, j) } else { (j, i) };
            out.push(GameSpec {
                number: out.len() + 1,
                black,
                white,
                black_name: cfg.engines[black].name.clone(),
                white_name: cfg.engines[white].name.clone(),
                opening: opening.game.clone(),
                opening_text: opening.text.clone(),
                tc: [black, white].map(|e| cfg.engines[e].tc.unwrap_or(cfg.tc)),
                grace: cfg.grace,
                move_timeout: cfg.move_timeout,
            });
        }
    }
    out
}

/// The results so far: each engine against the field and each pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// The engines' names, in the configuration's order.
    pub names: Vec<String>,
    /// Each engine's score against all its opponents.
    pub scores: Vec<Score>,
    /// `pairs[i][j]`: engine i's score against engine j.
    pub pairs: Vec<Vec<Score>>,
    /// Games each engine lost by forfeit (illegal move or pass, crash, timeout, ...).
    pub forfeits: Vec<u32>,
    /// Each engine's use of its clock in the timed games.
    pub clock_use: Vec<ClockUse>,
}

/// An engine's use of its clock over the timed games it played.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockUse {
    /// Timed games counted.
    pub games: u32,
    /// Seconds its moves took, in all those games.
    pub used: f64,
    /// Seconds its clocks held: each game's main time plus the increments of its moves.
    pub given: f64,
}

impl ClockUse {
    /// Counts the moves of one game that an engine played with the clock `tc` (the moves
    /// with a time: the opening's have none).
    fn add(&mut self, tc: TimeControl, moves: impl Iterator<Item = f64>) {
        let (mut n, mut used) = (0u32, 0.0);
        for t in moves {
            n += 1;
            used += t;
        }
        self.games += 1;
        self.used += used;
        self.given += tc.base.as_secs_f64() + n as f64 * tc.increment.as_secs_f64();
    }
}

impl Standings {
    /// Empty standings for these engines.
    pub fn new(names: Vec<String>) -> Standings {
        let n = names.len();
        Standings {
            names,
            scores: vec![Score::default(); n],
            pairs: vec![vec![Score::default(); n]; n],
            forfeits: vec![0; n],
            clock_use: vec![ClockUse::default(); n],
        }
    }

    /// Counts a finished game.
    pub fn add(&mut self, r: &GameRecord) {
        let b = r.black_points();
        let discs = r.black_discs;
        self.scores[r.black].add(b, discs);
        self.scores[r.white].add(1.0 - b, discs.map(|d| -d));
        self.pairs[r.black][r.white].add(b, discs);
        self.pairs[r.white][r.black].add(1.0 - b, discs.map(|d| -d));
        if let Some(loser) = r.forfeit {
            let i = if loser == Color::Black {
                r.black
            } else {
                r.white
            };
            self.forfeits[i] += 1;
        }
        for (color, engine) in [(Color::Black, r.black), (Color::White, r.white)] {
            if let Some(tc) = r.tc[color.index()] {
                let times = r.moves.iter().filter(|m| m.color == color);
                self.clock_use[engine].add(tc, times.filter_map(|m| m.time));
            }
        }
    }

    /// Each engine's use of its clock in the timed games, one line (empty when no game was
    /// timed): `clock used a game: A 7.9 s of 12.6 s (63%), B 8.1 s of 12.6 s (64%)`.
    pub fn clock_line(&self) -> String {
        let each: Vec<String> = self
            .names
            .iter()
            .zip(&self.clock_use)
            .filter(|(_, c)| c.games > 0 && c.given > 0.0)
            .map(|(name, c)| {
                let g = c.games as f64;
                format!(
                    "{name} {:.1} s of {:.1} s ({:.0}%)",
                    c.used / g,
                    c.given / g,
                    100.0 * c.used / c.given
                )
            })
            .collect();
        if each.is_empty() {
            String::new()
        } else {
            format!("clock used a game: {}\n", each.join(", "))
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.scores.iter().map(Score::games).sum::<u32>() / 2
    }

    /// The final table, best score first:
    ///
    /// ```text
    ///   # engine  games  wins draws losses  score   discs  forfeits  Elo [95%]
    ///   1 A          10     7     1      2  75.0%  +12.30         0  +191 [+35, +inf]
    /// ```
    ///
    /// Score is (wins + draws/2) / games; discs the average final disc difference of the
    /// games played to the end; Elo the difference to the opponents (the other engine in a
    /// match, the field in a round robin) with its 95% interval.
    pub fn table(&self) -> String {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            self.scores[b]
                .fraction()
                .total_cmp(&self.scores[a].fraction())
        });
        let w = self
            .names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut s = format!(
            "{:>3} {:<w$} {:>6} {:>5} {:>5} {:>6} {:>7} {:>7} {:>8}  Elo [95%]\n",
            "#", "engine", "games", "wins", "draws", "losses", "score", "discs", "forfeits"
        );
        for (rank, &i) in order.iter().enumerate() {
            let sc = &self.scores[i];
            let discs = sc
                .disc_average()
                .map_or_else(|| "-".to_string(), |d| format!("{d:+.2}"));
            s.push_str(&format!(
                "{:>3} {:<w$} {:>6} {:>5} {:>5} {:>6} {:>6.1}% {:>7} {:>8}  {}\n",
                rank + 1,
                self.names[i],
                sc.games(),
                sc.wins,
                sc.draws,
                sc.losses,
                100.0 * sc.fraction(),
                discs,
                self.forfeits[i],
                sc.elo()
            ));
        }
        s
    }
}

/// The SPRT's state at the end of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtResult {
    /// The test.
    pub test: Sprt,
    /// The log-likelihood ratio of the counted games.
    pub llr: f64,
    /// The verdict.
    pub verdict: SprtVerdict,
}

impl fmt::Display for SprtResult {
    /// `SPRT elo0=0 elo1=10: LLR 2.95 [-2.94, 2.94]: H1 accepted`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = self.test.bounds();
        let v = match self.verdict {
            SprtVerdict::Continue => "no verdict yet",
            SprtVerdict::H0 => "H0 accepted",
            SprtVerdict::H1 => "H1 accepted",
        };
        write!(
            f,
            "SPRT elo0={} elo1={}: LLR {:.2} [{:.2}, {:.2}]: {v}",
            self.test.elo0, self.test.elo1, self.llr, lo, hi
        )
    }
}

/// What a match produced.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The games counted, in the order they ended (a resumed match's earlier games first).
    pub games: Vec<GameRecord>,
    /// The final standings.
    pub standings: Standings,
    /// The SPRT's final state, when one ran.
    pub sprt: Option<SprtResult>,
    /// Games scheduled.
    pub scheduled: usize,
    /// Games begun but abandoned when the SPRT stopped the match (in this run).
    pub abandoned: usize,
}

/// The games counted so far, with the standings and the SPRT they make.
struct Tally {
    games: Vec<GameRecord>,
    standings: Standings,
    sprt: Option<SprtResult>,
}

impl Tally {
    /// Counts a game into the standings and the SPRT; true when the SPRT has now decided.
    fn add(&mut self, record: &GameRecord) -> bool {
        self.standings.add(record);
        let Some(s) = self.sprt.as_mut() else {
            return false;
        };
        let score = &self.standings.pairs[0][1];
        s.llr = s.test.llr(score);
        s.verdict = s.test.verdict(score);
        s.verdict != SprtVerdict::Continue
    }
}

/// Plays a match: the scheduled games on `concurrency` threads, each thread with its own
/// engine processes (started when first needed, restarted after a crash, a hang or a
/// protocol error). `on_game` sees each counted game as it ends, with the standings that
/// include it. Fails before any game when the configuration is invalid or an engine cannot
/// be started.
pub fn run_match(
    cfg: &MatchConfig,
    on_game: &mut dyn FnMut(&GameRecord, &Standings),
) -> anyhow::Result<MatchReport> {
    resume_match(cfg, Vec::new(), on_game)
}

/// Plays the rest of a match of which the games `played` were played before (each a
/// scheduled game, at most once, in the order they ended, as [`read_played`] reads them
/// back). They are counted first, in that order, into the standings and the SPRT exactly as
/// they were when played (so a match stopped and resumed reports what it would have
/// reported in one go), then the scheduled games not among them are played as
/// [`run_match`] plays them; `on_game` sees only those. When the SPRT has decided on the
/// games played, or none is left, no engine is started: the report is that of the games
/// played. A game after the one on which the SPRT decided is not counted, as it would not
/// have been when played.
pub fn resume_match(
    cfg: &MatchConfig,
    played: Vec<GameRecord>,
    on_game: &mut dyn FnMut(&GameRecord, &Standings),
) -> anyhow::Result<MatchReport> {
    cfg.validate()?;
    let games = schedule(cfg);
    let scheduled = games.len();
    let done: HashSet<usize> = played.iter().map(|r| r.number).collect();
    let mut tally = Tally {
        games: Vec::new(),
        standings: Standings::new(cfg.engines.iter().map(|e| e.name.clone()).collect()),
        sprt: cfg.sprt.map(|test| SprtResult {
            test,
            llr: 0.0,
            verdict: SprtVerdict::Continue,
        }),
    };
    let mut decided = false;
    for record in played {
        decided = tally.add(&record);
        tally.games.push(record);
        if decided {
            break;
        }
    }
    let games: VecDeque<GameSpec> = games
        .into_iter()
        .filter(|g| !done.contains(&g.number))
        .collect();
    if decided || games.is_empty() {
        return Ok(MatchReport {
            games: tally.games,
            standings: tally.standings,
            sprt: tally.sprt,
            scheduled,
            abandoned: 0,
        });
    }
    // Start every engine once (in parallel) to fail early; the first worker keeps them.
    let started: Vec<Result<Box<dyn client::Client>, EngineFailure>> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = cfg
                .engines
                .iter()
                .map(|spec| scope.spawn(move || launch::start(spec, cfg.response_timeout)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("engine start thread"))
                .collect()
        });
    let mut first_clients = Vec::new();
    for (spec, c) in cfg.engines.iter().zip(started) {
        let c = c.with_context(|| format!("engine {} (`{}`)", spec.name, spec.command))?;
        first_clients.push(Some(c));
    }
    let mut first_clients = Some(first_clients);
    let queue = Arc::new(Mutex::new(games));
    let stop = Arc::new(AtomicBool::new(false));
    let mut abandoned = 0;
    let (tx, rx) = channel::<GameRecord>();
    std::thread::scope(|scope| {
        for w in 0..cfg.concurrency.max(1) {
            let tx = tx.clone();
            let queue = Arc::clone(&queue);
            let stop = Arc::clone(&stop);
            let cfg = &cfg;
            let clients = first_clients
                .take()
                .unwrap_or_else(|| cfg.engines.iter().map(|_| None).collect());
            std::thread::Builder::new()
                .name(format!("match-worker-{w}"))
                .spawn_scoped(scope, move || worker(cfg, clients, &queue, &stop, &tx))
                .expect("spawn a match worker");
        }
        drop(tx);
        for record in rx {
            if record.aborted || stop.load(Ordering::Relaxed) {
                abandoned += 1;
                continue;
            }
            let decided = tally.add(&record);
            on_game(&record, &tally.standings);
            tally.games.push(record);
            if decided {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    Ok(MatchReport {
        games: tally.games,
        standings: tally.standings,
        sprt: tally.sprt,
        scheduled,
        abandoned,
    })
}

/// Two distinct elements of a slice, mutably.
fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b);
    if a < b {
        let (l, r) = v.split_at_mut(b);
        (&mut l[a], &mut r[0])
    } else {
        let (l, r) = v.split_at_mut(a);
        (&mut r[0], &mut l[b])
    }
}

/// A seat for [`referee::play_game`]: the started client, or why it could not start.
fn seat(c: &mut Option<Box<dyn client::Client>>, e: Option<EngineFailure>) -> referee::Seat<'_> {
    match e {
        Some(e) => Err(e),
        None => Ok(c.as_deref_mut().expect("started")),
    }
}

/// A worker thread: takes games from the queue until it is empty or the match stops.
/// `clients` holds the engines it has running (by engine index); it starts the others when
/// first needed.
fn worker(
    cfg: &MatchConfig,
    mut clients: Vec<Option<Box<dyn client::Client>>>,
    queue: &Mutex<VecDeque<GameSpec>>,
    stop: &AtomicBool,
    tx: &std::sync::mpsc::Sender<GameRecord>,
) {
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(spec) = queue.lock().expect("queue lock").pop_front() else {
            break;
        };
        let mut start_errors: [Option<EngineFailure>; 2] = [None, None];
        for (k, idx) in [spec.black, spec.white].into_iter().enumerate() {
            if clients[idx].is_none() {
                match launch::start(&cfg.engines[idx], cfg.response_timeout) {
                    Ok(c) => clients[idx] = Some(c),
                    Err(e) => start_errors[k] = Some(e),
                }
            }
        }
        let (b, w) = two_mut(&mut clients, spec.black, spec.white);
        let [eb, ew] = start_errors;
        let record = referee::play_game(&spec, [seat(b, eb), seat(w, ew)], stop);
        // An engine that crashed, hung or broke the protocol is in an unknown state: stop it
        // and start a fresh one for its next game.
        for (color, idx) in [(Color::Black, spec.black), (Color::White, spec.white)] {
            let failed = record.forfeit == Some(color)
                && matches!(
                    record.termination,
                    Termination::Crash(_) | Termination::Timeout(_) | Termination::Protocol(_)
                );
            if let Some(c) = clients[idx].as_mut()
                && (failed || c.is_dead())
            {
                log::info!(
                    "restarting {} after game {}",
                    cfg.engines[idx].name,
                    spec.number
                );
                c.kill();
                clients[idx] = None;
            }
        }
        if tx.send(record).is_err() {
            break;
        }
    }
    for c in clients.iter_mut().flatten() {
        c.shutdown();
    }
}

/// The current UTC time as GGS writes dates: `2024.05.01_13:45:10.UTC`.
pub fn ggf_date_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    ggf_date(secs)
}

/// A Unix time as GGS writes dates: `2024.05.01_13:45:10.UTC`.
pub fn ggf_date(unix_secs: u64) -> String {
    let days = (unix_secs / 86_400) as i64;
    let rem = unix_secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}.{m:02}.{d:02}_{:02}:{:02}:{:02}.UTC",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs() {
        let e = EngineSpec::parse("name=A,proto=gtp,cmd=gtp-rhino -l 5").unwrap();
        assert_eq!(e.name, "A");
        assert_eq!(e.protocol, Protocol::Gtp);
        assert_eq!(e.command.argv, ["gtp-rhino", "-l", "5"]);
        let e = EngineSpec::parse(
            "proto=NBoard, depth=6, implicit-pass, dir=/tmp, cmd=/usr/bin/x --a=1,2 'b c'",
        )
        .unwrap();
        assert_eq!(e.name, "x");
        assert_eq!(e.protocol, Protocol::Nboard);
        assert_eq!(e.depth, Some(6));
        assert!(e.implicit_pass);
        assert_eq!(e.command.argv, ["/usr/bin/x", "--a=1,2", "b c"]);
        assert_eq!(e.command.dir, Some("/tmp".into()));
        assert!(EngineSpec::parse("name=A").is_err());
        assert!(EngineSpec::parse("name=A,proto=uci,cmd=x").is_err());
        assert!(EngineSpec::parse("name=A,depth=0,cmd=x").is_err());
        assert!(EngineSpec::parse("colour=red,cmd=x").is_err());
    }

    #[test]
    fn engine_clock_overrides_the_match_clock() {
        let e = EngineSpec::parse("name=a,tc=60+1,cmd=x").unwrap();
        assert_eq!(e.tc, Some(Some(TimeControl::parse("60+1").unwrap())));
        let e = EngineSpec::parse("name=b,tc=none,cmd=x").unwrap();
        assert_eq!(e.tc, Some(None));
        assert_eq!(EngineSpec::parse("name=c,cmd=x").unwrap().tc, None);
        assert!(EngineSpec::parse("name=d,tc=fast,cmd=x").is_err());
    }

    #[test]
    fn time_controls() {
        let t = TimeControl::parse("60+1").unwrap();
        assert_eq!(t.base, Duration::from_secs(60));
        assert_eq!(t.increment, Duration::from_secs(1));
        assert_eq!(t.to_string(), "60+1");
        assert_eq!(TimeControl::parse("0.5").unwrap().to_string(), "0.5");
        assert!(TimeControl::parse("0").is_err());
        assert!(TimeControl::parse("a+1").is_err());
        assert!(TimeControl::parse("-3").is_err());
    }

    #[test]
    fn openings_and_schedule() {
        let ops =
            parse_openings("# xot\nf5d6c4d3c2b3b4b5  # a comment\n\nF5F6D3C5D6C7B5E3\n").unwrap();
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[0].text, "f5d6c4d3c2b3b4b5");
        assert_eq!(ops[1].text, "f5f6d3c5d6c7b5e3");
        assert!(parse_openings("f5f5").is_err());
        assert_eq!(
            parse_openings("\u{feff}f5d6c4d3\n").unwrap()[0].text,
            "f5d6c4d3"
        );
        let gtp = |n: &str| EngineSpec::parse(&format!("name={n},cmd=x")).unwrap();
        let mut cfg = MatchConfig::new(vec![gtp("A"), gtp("B"), gtp("C")]);
        cfg.openings = ops;
        let s = schedule(&cfg);
        assert_eq!(s.len(), 4 * 3);
        assert_eq!((s[0].black, s[0].white), (0, 1));
        assert_eq!((s[3].black, s[3].white), (1, 0));
        assert_eq!(s[0].opening_text, s[3].opening_text);
        assert_ne!(s[0].opening_text, s[6].opening_text);
        assert!(s.iter().enumerate().all(|(i, g)| g.number == i + 1));
        cfg.seed = Some(7);
        cfg.games = Some(6);
        let t = schedule(&cfg);
        assert_eq!(t.len(), 18);
        assert_eq!(t[0].opening_text, t[12].opening_text);
        cfg.validate().unwrap();
        cfg.sprt = Some(Sprt::new(0.0, 10.0));
        assert!(cfg.validate().is_err());
    }

    #[test]
    fn dates() {
        assert_eq!(ggf_date(0), "1970.01.01_00:00:00.UTC");
        assert_eq!(ggf_date(1_709_210_096), "2024.02.29_12:34:56.UTC");
    }
}
