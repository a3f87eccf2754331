//! The engine options of every front-end that plays games (`outflank gtp`, `nboard`, `ugi`,
//! `play`, `ggs`), on the command line, and how a stdio front-end is started with them.

use super::common::EngineArgs;
use crate::controller::{Frontend, OPTIONS, Options};
use crate::protocol;
use crate::search::{Level, MovePlan};
use clap::Args as ClapArgs;
use std::time::Duration;

/// Engine options of the front-ends that play games (`outflank gtp`, `outflank nboard`,
/// `outflank play`).
#[derive(ClapArgs, Debug, Clone)]
pub struct FrontendArgs {
    /// Threads, table size, weights: the options of every command that searches.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Strength level 1-60: midgame depth = level, exact solve from 2x level empties (up to
    /// 20), then more slowly up to level 60 (perfect play). Default 14 when there is neither
    /// a clock nor --depth nor --time.
    #[arg(long, value_parser = super::common::depth_range())]
    pub level: Option<u32>,
    /// Fixed midgame depth in plies (1-60).
    #[arg(long, value_parser = super::common::depth_range())]
    pub depth: Option<u32>,
    /// Time per move in seconds (a hard limit; a game clock, when the protocol gives one,
    /// also applies).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time: Option<f64>,
    /// Play and hint from the opening book (on|off).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = ["on", "off"])]
    pub book: String,
    /// The opening book file (default: the shipped book); NBoard's `learn` saves into it.
    /// A path with no file yet starts from the shipped book (with --book-new, from an
    /// empty one).
    #[arg(long, value_name = "PATH")]
    pub book_file: Option<std::path::PathBuf>,
    /// Start the new --book-file from an empty book instead of the shipped one.
    #[arg(long, requires = "book_file")]
    pub book_new: bool,
    /// Also play book moves up to this many discs below the best, at random (variety).
    #[arg(long, value_name = "DISCS", default_value_t = 0,
          value_parser = clap::value_parser!(i32).range(0..=64))]
    pub book_randomness: i32,
}

/// Reads `--time` as the options' table reads `time` (the same range; `none` is the
/// option left out).
fn parse_seconds(s: &str) -> Result<f64, String> {
    let spec = OPTIONS
        .iter()
        .find(|o| o.key == "time")
        .expect("a time option");
    spec.kind.check("time", s)?;
    s.parse::<f64>()
        .map_err(|_| format!("{s:?} is not a number of seconds"))
}

impl FrontendArgs {
    /// Runs a protocol front-end on stdin and stdout with these options, until it quits;
    /// exit status 0.
    pub fn serve<F: Frontend>(&self, make: impl FnOnce(Options) -> F) -> anyhow::Result<i32> {
        protocol::serve(self.options()?, make, std::io::stdin(), std::io::stdout())?;
        Ok(0)
    }

    /// The protocol options these arguments describe (with `--eval-file`'s weights, read
    /// first); fails when `--eval-file` cannot be read, when `--book-file` names a
    /// file that is not a valid book, or with `--book-new` a file that exists. A file not
    /// there yet starts as the shipped book (as an empty one with `--book-new`), and
    /// NBoard's `learn` creates it.
    pub fn options(&self) -> anyhow::Result<Options> {
        let weights = self.engine.weights()?;
        let probcut = self.engine.probcut()?;
        if let Some(p) = &self.book_file
            && !p.exists()
        {
            // Refused now rather than when `learn` first saves.
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            anyhow::ensure!(
                dir.is_none_or(|d| d.is_dir()),
                "--book-file {}: no folder {} to save it in",
                p.display(),
                dir.map_or(String::new(), |d| d.display().to_string())
            );
        }
        let opening_book = match &self.book_file {
            Some(p) if p.exists() => {
                anyhow::ensure!(
                    !self.book_new,
                    "--book-new: {} exists already (it would be overwritten)",
                    p.display()
                );
                crate::book::load(p)?
            }
            Some(p) if self.book_new => {
                log::info!("{}: a new, empty book", p.display());
                crate::book::Book::new()
            }
            Some(p) => {
                let book = crate::book::Book::shipped();
                log::info!(
                    "{}: no book there yet; starting from the shipped book ({} positions)",
                    p.display(),
                    book.len()
                );
                book
            }
            None => crate::book::Book::shipped(),
        };
        Ok(Options {
            threads: self.engine.threads.max(1),
            hash_mb: self.engine.hash_mb(),
            plan: MovePlan {
                level: self.level.map(Level::new),
                depth: self.depth,
                move_time: self.time.map(Duration::from_secs_f64),
            },
            book: self.book == "on",
            opening_book: std::sync::Arc::new(opening_book),
            book_file: self.book_file.clone(),
            book_randomness: self.book_randomness,
            weights,
            probcut,
        })
    }
}
