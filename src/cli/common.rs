//! Pieces shared by the subcommands: reading positions, engine options, progress bars.

use crate::game::Game;
use crate::notation::parse_position;
use crate::search::{DEFAULT_HASH_MB, Engine, EngineConfig};
use anyhow::Context;
use clap::Args as ClapArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Engine options shared by the subcommands that search.
#[derive(ClapArgs, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = threads_range())]
    pub threads: usize,
    /// Transposition table size in megabytes [default: 64; `bench`: 256, part of its
    /// fixed workload].
    #[arg(long = "hash", value_name = "MB", value_parser = hash_range())]
    pub hash_mb: Option<usize>,
    /// Evaluation weights file to use instead of the shipped one (`outflank train fit`).
    #[arg(long, value_name = "PATH")]
    pub eval_file: Option<std::path::PathBuf>,
}

impl EngineArgs {
    /// The table size: `--hash`, else the engine's default.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb.unwrap_or(DEFAULT_HASH_MB)
    }

    /// The weights of `--eval-file`, if given; fails when the file cannot be read.
    pub fn weights(&self) -> anyhow::Result<Option<std::sync::Arc<crate::eval::Weights>>> {
        self.eval_file
            .as_ref()
            .map(|path| Ok(std::sync::Arc::new(crate::eval::load(path)?)))
            .transpose()
    }

    /// An engine with these options; fails when the weights file cannot be read.
    pub fn engine(&self) -> anyhow::Result<Engine> {
        // The weights first: a bad file is refused before the table is made.
        let weights = self.weights()?;
        let mut engine = Engine::try_new(EngineConfig {
            threads: self.threads.max(1),
            hash_mb: self.hash_mb().max(1),
        })?;
        if let Some(w) = weights {
            engine.set_eval(w);
        }
        Ok(engine)
    }
}

/// The accepted numbers of search threads: 1 to 256 (as `outflank-set threads`).
pub fn threads_range() -> clap::builder::RangedU64ValueParser<usize> {
    count_range(256)
}

/// The accepted transposition table sizes in megabytes: 1 to 2^20 (as `outflank-set hash`).
pub fn hash_range() -> clap::builder::RangedU64ValueParser<usize> {
    count_range(1 << 20)
}

/// The accepted search depths and levels: 1 to 60 plies (60 empty squares at most).
pub fn depth_range() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=60)
}

/// A count from 1 to `max` (games at once, best moves to score, positions).
pub fn count_range(max: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=max)
}

/// Reads a position (board string, transcript or GGF game) with a clear error. An empty
/// text is refused: `start` names the start position.
pub fn read_position(text: &str) -> anyhow::Result<Game> {
    if text.trim().is_empty() {
        anyhow::bail!("an empty position (`start` names the start position)");
    }
    Ok(parse_position(text)?)
}

/// Reads a position given on the command line: the text itself, or else the name of a file
/// holding it (its first line that is not empty: a GGF file's first game, say).
pub fn read_position_arg(text: &str) -> anyhow::Result<Game> {
    let err = match read_position(text) {
        Ok(g) => return Ok(g),
        Err(e) => e,
    };
    let path = std::path::Path::new(text);
    if text.trim().is_empty() || !path.is_file() {
        return Err(err);
    }
    let content = read_file(path)?;
    let (n, line) = position_lines(&content)
        .next()
        .with_context(|| format!("{} holds no position", path.display()))?;
    read_position(line).with_context(|| format!("{} line {n}", path.display()))
}

/// Opens `path` for appending (created if missing), with an error naming it: the output
/// files that collect games (`match --ggf`, `ggs --games`) are opened at start, so that one
/// that cannot be written is refused before anything is played.
pub fn open_append(path: &std::path::Path) -> anyhow::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {} for writing", path.display()))
}

/// The text of a file, with an error naming it.
pub fn read_file(path: &std::path::Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The lines of a text of positions (or games), one a line, that are not blank, each with
/// its line number (from 1); a byte-order mark at the start is skipped.
pub fn position_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    crate::notation::without_bom(text)
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// A progress bar on stderr for `n` items of work, hidden unless stderr is a terminal.
pub fn progress_bar(n: u64) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} (ETA {eta}) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// `1 move`, `2 moves`: a count and its noun, plural when the count is not 1.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
