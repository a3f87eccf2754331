//! `outflank match`: engine-vs-engine matches and round robins, refereed (see
//! [`crate::arena`]). One line per finished game on stdout, a progress bar on stderr when it
//! is a terminal, the final table at the end; `--ggf` appends every game to a GGF file, and
//! `--resume` goes on with the match whose games that file holds.

use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::common::{count_range, open_append, plural};
use crate::arena::{
    EngineSpec, GameRecord, GameSpec, MatchConfig, MatchId, Protocol, Sprt, Standings, TimeControl,
    ggf_date_now, ggf_line, load_openings, read_played, resume_match,
};

/// Arguments of `outflank match`.
#[derive(ClapArgs, Debug)]
#[command(after_help = "Example:\n  outflank match \\\n    \
    --engine 'name=rhino1,proto=gtp,implicit-pass,cmd=gtp-rhino -l 1' \\\n    \
    --engine 'name=rhino3,proto=gtp,implicit-pass,cmd=gtp-rhino -l 3' \\\n    \
    --openings xot-small.txt --games 10 --tc 60+1 --concurrency 2 --ggf games.ggf")]
pub struct Args {
    /// An engine, as comma-separated key=value pairs with cmd last:
    /// `name=A,proto=gtp|nboard|ugi[,depth=D][,tc=SECS[+INC]|none][,implicit-pass][,dir=DIR],cmd=PROGRAM ARGS...`.
    /// Two engines play a match, more a round robin.
    #[arg(long = "engine", value_name = "SPEC", required = true)]
    pub engines: Vec<String>,
    /// Openings, one transcript per line (XOT style); each is played twice, colours swapped.
    /// Without it every game starts from the start position.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Games per pair of engines [default: each opening twice, or 2].
    #[arg(long, value_name = "N")]
    pub games: Option<usize>,
    /// Clock per side and game: seconds, optionally plus an increment per move (`60`,
    /// `60+1`, `0.5+0.1`). Untimed by default.
    #[arg(long, value_name = "SECS[+INC]")]
    pub tc: Option<String>,
    /// A fixed midgame depth for an NBoard engine (`set depth`) or a UGI one (`go depth`);
    /// repeat for several engines.
    #[arg(long = "depth", value_name = "NAME=D")]
    pub depths: Vec<String>,
    /// Send this GTP engine no explicit `play C pass` (gtp-rhino needs that); repeatable.
    #[arg(long = "implicit-pass", value_name = "NAME")]
    pub implicit_pass: Vec<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = count_range(256))]
    pub concurrency: usize,
    /// Shuffle the openings with this seed (file order without it).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Stop a two-engine match once the SPRT of H0: Elo = elo0 against H1: Elo = elo1 (first
    /// engine's side) decides.
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<String>,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub sprt_alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05, value_name = "P")]
    pub sprt_beta: f64,
    /// Append every game to this file, one GGF line each (moves with evals and times).
    #[arg(long, value_name = "FILE")]
    pub ggf: Option<PathBuf>,
    /// Go on with the match whose games the --ggf file holds (written by an earlier run of
    /// this same match): count them, play only the rest. A missing file starts afresh.
    #[arg(long, requires = "ggf")]
    pub resume: bool,
    /// Seconds an engine may exceed its clock before it loses on time.
    #[arg(long, default_value_t = 1.0, value_name = "SECS")]
    pub grace: f64,
    /// Seconds allowed for one move in an untimed game.
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    pub move_timeout: f64,
    /// Seconds allowed for answers that are not moves (start-up, `play`, `ping`).
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub response_timeout: f64,
}

/// Seconds from the command line as a duration.
fn seconds(name: &str, v: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(v).with_context(|| format!("--{name} {v}: not a duration"))
}

/// The match configuration the arguments describe.
pub fn config(a: &Args) -> anyhow::Result<MatchConfig> {
    let mut engines = Vec::new();
    for s in &a.engines {
        engines.push(EngineSpec::parse(s).map_err(|e| anyhow::anyhow!("--engine: {e}"))?);
    }
    let find = |engines: &mut Vec<EngineSpec>, name: &str, opt: &str| -> anyhow::Result<usize> {
        engines
            .iter()
            .position(|e| e.name == name)
            .with_context(|| format!("{opt} {name}: no engine of that name"))
    };
    for d in &a.depths {
        let Some((name, depth)) = d.split_once('=') else {
            bail!("--depth {d}: write NAME=DEPTH");
        };
        let depth: u32 = depth
            .parse()
            .ok()
            .filter(|d| (1..=60).contains(d))
            .with_context(|| format!("--depth {d}: the depth must be from 1 to 60"))?;
        let i = find(&mut engines, name, "--depth")?;
        engines[i].depth = Some(depth);
    }
    for name in &a.implicit_pass {
        let i = find(&mut engines, name, "--implicit-pass")?;
        if engines[i].protocol != Protocol::Gtp {
            bail!("--implicit-pass {name}: only GTP engines are sent passes that way");
        }
        engines[i].implicit_pass = true;
    }
    let mut cfg = MatchConfig::new(engines);
    if let Some(p) = &a.openings {
        cfg.openings = load_openings(p)?;
    }
    cfg.games = a.games;
    cfg.tc = match &a.tc {
        Some(t) => Some(TimeControl::parse(t).map_err(|e| anyhow::anyhow!("--tc: {e}"))?),
        None => None,
    };
    cfg.concurrency = a.concurrency.max(1);
    cfg.seed = a.seed;
    if let Some(s) = &a.sprt {
        let parsed = s.split_once(',').and_then(|(x, y)| {
            Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?))
        });
        let Some((elo0, elo1)) = parsed.filter(|(x, y)| x.is_finite() && y.is_finite() && x < y)
        else {
            bail!("--sprt {s}: write ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,10)");
        };
        for (name, p) in [("sprt-alpha", a.sprt_alpha), ("sprt-beta", a.sprt_beta)] {
            if !(p > 0.0 && p < 0.5) {
                bail!("--{name} {p}: must be between 0 and 0.5");
            }
        }
        cfg.sprt = Some(Sprt {
            elo0,
            elo1,
            alpha: a.sprt_alpha,
            beta: a.sprt_beta,
        });
    }
    cfg.grace = seconds("grace", a.grace)?;
    cfg.move_timeout = seconds("move-timeout", a.move_timeout)?;
    cfg.response_timeout = seconds("response-timeout", a.response_timeout)?;
    cfg.validate()?;
    Ok(cfg)
}

/// The games an earlier run of the match wrote to `path` (none when the file does not exist),
/// and the length of the unfinished last line (cut short by a kill) removed from the file:
/// its game is played again. Anything else that is not a game of this match is an error,
/// and the file is left as it is.
fn resume_from(path: &Path, schedule: &[GameSpec]) -> anyhow::Result<(Vec<GameRecord>, usize)> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!("cannot read {}", path.display())));
        }
    };
    let played = read_played(&bytes, schedule)
        .with_context(|| format!("cannot resume the match of {}", path.display()))?;
    if played.whole_len < bytes.len() {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(played.whole_len as u64))
            .with_context(|| {
                format!("cannot cut the unfinished last line of {}", path.display())
            })?;
    }
    Ok((played.games, bytes.len() - played.whole_len))
}

/// Runs `outflank match`; the exit status is 0 once the match has been played.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let cfg = config(&a)?;
    let schedule = crate::arena::schedule(&cfg);
    let scheduled = schedule.len() as u64;
    let id = MatchId::of(&schedule);
    let (played, cut) = match (&a.ggf, a.resume) {
        (Some(path), true) => resume_from(path, &schedule)?,
        _ => (Vec::new(), 0),
    };
    let mut ggf = a.ggf.as_deref().map(open_append).transpose()?;
    let pb = if std::io::stderr().is_terminal() {
        let pb = ProgressBar::with_draw_target(Some(scheduled), ProgressDrawTarget::stderr());
        pb.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} games  {elapsed} (eta {eta}) {msg}")
                .expect("valid template"),
        );
        pb
    } else {
        ProgressBar::hidden()
    };
    // Each engine's clock: its own `tc=`, else the match's.
    let clock =
        |t: Option<TimeControl>| t.map_or_else(|| "untimed".to_string(), |t| format!("tc {t}"));
    let clocks: Vec<String> = cfg
        .engines
        .iter()
        .map(|e| clock(e.tc.unwrap_or(cfg.tc)))
        .collect();
    let tc = if clocks.iter().all(|c| *c == clocks[0]) {
        clocks[0].clone()
    } else {
        let each: Vec<String> = cfg
            .engines
            .iter()
            .zip(&clocks)
            .map(|(e, c)| format!("{} {c}", e.name))
            .collect();
        each.join(", ")
    };
    let names: Vec<&str> = cfg.engines.iter().map(|e| e.name.as_str()).collect();
    println!(
        "Match: {} ({}, {tc}, concurrency {})",
        names.join(" vs "),
        plural(scheduled as usize, "game"),
        cfg.concurrency
    );
    if let Some(path) = a.ggf.as_ref().filter(|_| a.resume) {
        println!(
            "Resuming: {} of {} already played in {} (match {id}), {} to play{}",
            played.len(),
            plural(scheduled as usize, "game"),
            path.display(),
            scheduled as usize - played.len(),
            if cut > 0 {
                format!("; an unfinished last line ({cut} bytes) was removed")
            } else {
                String::new()
            }
        );
        pb.set_position(played.len() as u64);
    }
    let mut write_error: Option<anyhow::Error> = None;
    let mut on_game = |r: &GameRecord, s: &Standings| {
        pb.suspend(|| {
            println!("{}", r.summary());
            let _ = std::io::stdout().flush();
        });
        pb.inc(1);
        if s.names.len() == 2 {
            let sc = &s.scores[0];
            pb.set_message(format!(
                "{}: +{} ={} -{}",
                s.names[0], sc.wins, sc.draws, sc.losses
            ));
        }
        if let Some(f) = ggf.as_mut()
            && write_error.is_none()
        {
            // One write a line: a kill leaves whole lines only.
            let line = ggf_line(r, id, Some(ggf_date_now()));
            if let Err(e) = f.write_all(line.as_bytes()).and_then(|_| f.flush()) {
                write_error = Some(anyhow::Error::new(e).context("cannot write the GGF file"));
            }
        }
    };
    let report = resume_match(&cfg, played, &mut on_game)?;
    pb.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    println!();
    print!("{}", report.standings.table());
    print!("{}", report.standings.clock_line());
    if let Some(s) = &report.sprt {
        println!("{s}");
    }
    if report.abandoned > 0 || report.games.len() < report.scheduled {
        println!(
            "{} of {} scheduled games played{}",
            report.games.len(),
            report.scheduled,
            if report.abandoned > 0 {
                format!(
                    " ({} abandoned when the SPRT stopped the match)",
                    report.abandoned
                )
            } else {
                String::new()
            }
        );
    }
    Ok(0)
}
