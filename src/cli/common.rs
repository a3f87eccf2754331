//! Pieces shared by the subcommands: reading positions, engine options, progress bars.

use crate::game::Game;
use crate::notation::parse_position;
use crate::search::{Engine, EngineConfig};
use clap::Args as ClapArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Engine options shared by the subcommands that search.
#[derive(ClapArgs, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = threads_range())]
    pub threads: usize,
    /// Transposition table size in megabytes.
    #[arg(long = "hash", default_value_t = 256)]
    pub hash_mb: usize,
    /// Evaluation weights file to use instead of the shipped one (`outflank train fit`).
    #[arg(long, value_name = "PATH")]
    pub eval_file: Option<std::path::PathBuf>,
}

impl EngineArgs {
    /// An engine with these options; fails when the weights file cannot be read.
    pub fn engine(&self) -> anyhow::Result<Engine> {
        let mut engine = Engine::try_new(EngineConfig {
            threads: self.threads.max(1),
            hash_mb: self.hash_mb.max(1),
        })?;
        if let Some(path) = &self.eval_file {
            engine.set_eval(std::sync::Arc::new(crate::eval::file::load(path)?));
        }
        Ok(engine)
    }
}

/// The accepted numbers of search threads: 1 to 256 (as `outflank-set threads`).
pub fn threads_range() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=256)
}

/// Reads a position argument (board string, transcript or GGF game) with a clear error.
pub fn read_position(text: &str) -> anyhow::Result<Game> {
    Ok(parse_position(text)?)
}

/// A progress bar on stderr for `n` items of work, hidden unless stderr is a terminal.
pub fn progress_bar(n: u64) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
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
