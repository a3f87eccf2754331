//! The match runner: engine-vs-engine matches and round robins, refereed.
//!
//! The arena talks to engines only through their protocols (GTP, NBoard or UGI), as any outside
//! referee would, so it can referee Outflank against anything:
//!
//! - [`engine`]: an engine process, line I/O with deadlines, crash detection, kill;
//! - [`gtp_client`], [`nboard_client`] and [`ugi_client`]: the three protocols behind one
//!   [`client::Client`];
//! - [`referee`]: one game, with the referee's own board, clocks and adjudication;
//! - [`spec`]: what a match is made of: engine specifications, time controls, openings;
//! - [`standings`]: the results so far, the clocks used, the SPRT's state;
//! - [`stats`]: scores, Elo with a 95% interval, SPRT;
//! - [`resume`]: the match's GGF file read back, so that a stopped match goes on where it
//!   stopped;
//! - this module: the match's configuration, the schedule and [`run_match`] (or
//!   [`resume_match`]), which plays the games on several threads and reports each as it
//!   ends.

pub mod client;
pub mod engine;
pub mod gtp_client;
pub mod launch;
pub mod nboard_client;
pub mod referee;
pub mod resume;
pub mod spec;
pub mod standings;
pub mod stats;
pub mod ugi_client;

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};

pub use crate::notation::{ggf_date, ggf_date_now};
pub use crate::time_control::TimeControl;
pub use engine::{CommandLine, EngineFailure};
pub use referee::{GameRecord, GameSpec, Termination};
pub use resume::{MatchId, Played, ResumeError, ggf_line, read_played};
pub use spec::{EngineSpec, Opening, Protocol, load_openings, parse_openings};
pub use standings::{ClockUse, SprtResult, Standings};
pub use stats::{Elo, Score, Sprt, SprtVerdict};

use crate::board::{Color, Position};

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
        assert_eq!(t.main, Duration::from_secs(60));
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
