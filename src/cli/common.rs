//! Pieces shared by the subcommands: reading positions, engine options, progress bars.

use crate::controller::EngineSetup;
use crate::game::Game;
use crate::notation::{ObfEntry, parse_obf_numbered, parse_position};
use crate::search::{DEFAULT_HASH_MB, Engine, EngineConfig, ProbcutParams, Selectivity};
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
    /// Multi-ProbCut parameters to use instead of the shipped ones (`outflank train probcut`,
    /// fitted with the weights of --eval-file); their midgame part, with the hand-set
    /// endgame sigma, as the shipped ones are used.
    #[arg(long, value_name = "PATH")]
    pub probcut_file: Option<std::path::PathBuf>,
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

    /// The probcut parameters of `--probcut-file` as the search uses them
    /// ([`ProbcutParams::searched_from`]), if given; fails when the file cannot be read.
    pub fn probcut(&self) -> anyhow::Result<Option<ProbcutParams>> {
        self.probcut_file
            .as_deref()
            .map(|path| Ok(ProbcutParams::searched_from(ProbcutParams::load(path)?)))
            .transpose()
    }

    /// How an engine with these options is made; fails when the weights or the probcut
    /// file cannot be read.
    pub fn setup(&self) -> anyhow::Result<EngineSetup> {
        Ok(EngineSetup {
            config: EngineConfig {
                threads: self.threads.max(1),
                hash_mb: self.hash_mb().max(1),
            },
            weights: self.weights()?,
            probcut: self.probcut()?,
        })
    }

    /// An engine with these options; fails when the weights or the probcut file cannot be
    /// read.
    pub fn engine(&self) -> anyhow::Result<Engine> {
        // The files first: a bad one is refused before the table is made.
        Ok(self.setup()?.engine()?)
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

/// The accepted `--selectivity` values: a probcut confidence in percent (73, 87, 95, 98, 99
/// or 100, which is no probcut), as the engines print it.
pub fn parse_selectivity(s: &str) -> Result<Selectivity, String> {
    let known = Selectivity::PERCENTS.map(|p| p.to_string()).join(", ");
    let bad = || format!("a probcut confidence in percent ({known}), got `{s}`");
    let p: u8 = s.trim().trim_end_matches('%').parse().map_err(|_| bad())?;
    Selectivity::from_percent(p).ok_or_else(bad)
}

/// Which positions of a file to take: `N` (position N alone) or `A-B` (A to B), counted from
/// 1 in the order of the file, as the tables number them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionRange {
    /// The first, from 1.
    pub first: usize,
    /// The last (included).
    pub last: usize,
}

impl std::str::FromStr for PositionRange {
    type Err = String;

    fn from_str(s: &str) -> Result<PositionRange, String> {
        let bad = || format!("a position N or a range A-B with 1 <= A <= B, got `{s}`");
        let number = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
        let (first, last) = match s.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(s)?, number(s)?),
        };
        if first == 0 || first > last {
            return Err(bad());
        }
        Ok(PositionRange { first, last })
    }
}

impl std::fmt::Display for PositionRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

impl PositionRange {
    /// The indexes (from 0) of these positions among `count`; an error when the range runs
    /// past the last one.
    pub fn select(self, count: usize) -> anyhow::Result<std::ops::Range<usize>> {
        if self.last > count {
            anyhow::bail!(
                "--positions {self}: there are only {}",
                plural(count, "position")
            );
        }
        Ok(self.first - 1..self.last)
    }
}

/// The indexes (from 0) of the positions `range` takes among `count` (all without one).
pub fn select_positions(
    range: Option<PositionRange>,
    count: usize,
) -> anyhow::Result<std::ops::Range<usize>> {
    range.map_or(Ok(0..count), |r| r.select(count))
}

/// Reads an OBF file (`-`: stdin) into its text and its entries, each with its line number;
/// an error names the file (and the line), and a file without positions is one.
pub fn read_obf(file: &str) -> anyhow::Result<(String, Vec<(usize, ObfEntry)>)> {
    let text = if file == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading stdin")?
    } else {
        std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?
    };
    let entries = parse_obf_numbered(&text).with_context(|| format!("in {file}"))?;
    if entries.is_empty() {
        anyhow::bail!("no position in {file}");
    }
    Ok((text, entries))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_ranges() {
        let r: PositionRange = "3-7".parse().unwrap();
        assert_eq!(r, PositionRange { first: 3, last: 7 });
        assert_eq!(r.to_string(), "3-7");
        assert_eq!(r.select(7).unwrap(), 2..7);
        let e = r.select(6).unwrap_err().to_string();
        assert_eq!(e, "--positions 3-7: there are only 6 positions");
        assert_eq!(
            "2".parse::<PositionRange>().unwrap().select(2).unwrap(),
            1..2
        );
        for bad in ["0-3", "4-3", "x", "", "1-", "-2", "1-2-3"] {
            assert!(bad.parse::<PositionRange>().is_err(), "{bad}");
        }
        assert_eq!(select_positions(None, 5).unwrap(), 0..5);
    }

    #[test]
    fn selectivities() {
        assert_eq!(parse_selectivity("95").unwrap(), Selectivity::new(2));
        assert_eq!(parse_selectivity("100%").unwrap(), Selectivity::NONE);
        assert_eq!(parse_selectivity("73").unwrap(), Selectivity::new(0));
        let e = parse_selectivity("96").unwrap_err();
        assert!(
            e.contains("73, 87, 95, 98, 99, 100") && e.contains("`96`"),
            "{e}"
        );
        assert!(parse_selectivity("high").is_err());
    }
}
