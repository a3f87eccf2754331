//! `outflank merge`: the shards of a long step (`--shard K/N`, see `crate::shard`) put back
//! together into the output one process would have written; and the `--shard` options those
//! steps share.

use super::common::EngineArgs;
use crate::eval::Weights;
use crate::shard::{self, Merged, Shard, ShardFile, Step};
use anyhow::Context;
use clap::Args as ClapArgs;
use std::io::Write;
use std::path::PathBuf;

/// The options of a step that runs in shards.
#[derive(ClapArgs, Debug, Clone)]
pub struct ShardArgs {
    /// Do only shard K of N (K from 0 to N-1) and write it to a file named for the step,
    /// its seed and K (`selfplay-seed1-2of4.shard`) in --shard-dir; `outflank merge` puts
    /// the N files together into what one process writes, byte for byte, whatever N.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// The directory of the shard file (default: the current one).
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub shard_dir: Option<PathBuf>,
}

impl ShardArgs {
    /// Writes a shard's file where these options say; returns its path.
    pub fn write(&self, file: &ShardFile) -> anyhow::Result<PathBuf> {
        let dir = self.shard_dir.clone().unwrap_or_else(|| PathBuf::from("."));
        file.write_into(&dir)
    }

    /// Runs `shard`'s part of a step over the `total` positions of an input (`text`, whose
    /// sha256 names the run): `item(i)` gives position `i`'s bytes. Shows a progress bar,
    /// writes the shard's file and says so on stderr.
    pub fn run_over_input(
        &self,
        step: Step,
        text: &str,
        total: u64,
        params: String,
        shard: Shard,
        mut item: impl FnMut(usize) -> Vec<u8>,
    ) -> anyhow::Result<()> {
        let pb = super::common::progress_bar(shard.len(total));
        let mut items = Vec::new();
        for i in shard.items(total) {
            items.push((i, item(i as usize)));
            pb.inc(1);
        }
        pb.finish_and_clear();
        let file = ShardFile {
            run: shard::RunId {
                step,
                seed: shard::input_seed(text.as_bytes()),
                total,
                params,
            },
            shard,
            items,
        };
        let path = self.write(&file)?;
        eprintln!(
            "{} of {total} written to {}",
            super::common::plural(file.items.len(), "position"),
            path.display()
        );
        Ok(())
    }
}

/// The identity of a set of weights in a shard's settings: the sha256 of all its values.
pub fn weights_id(w: &Weights) -> String {
    let bytes: Vec<u8> = (0..crate::eval::PHASES)
        .flat_map(|p| w.block(p).iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    shard::sha256_hex(&bytes)
}

/// The identity of the weights an engine's options search with.
pub fn engine_weights_id(e: &EngineArgs) -> anyhow::Result<String> {
    Ok(match &e.eval_file {
        Some(path) => weights_id(&crate::eval::file::load(path)?),
        None => weights_id(&crate::eval::shipped_weights()),
    })
}

/// What a merge writes: the step's standard output, the lines it writes on stderr, and its
/// exit status (`solve` exits with 1 when a score is wrong).
#[derive(Debug, Default)]
pub struct MergeOutput {
    /// The bytes of the output (to --out or stdout).
    pub stdout: Vec<u8>,
    /// Text for stderr (empty: nothing).
    pub stderr: String,
    /// The exit status.
    pub status: i32,
}

/// Arguments of `outflank merge`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The shard files of one run, or directories holding them (their `*.shard` files); any
    /// order.
    #[arg(required = true, value_name = "SHARD|DIR")]
    pub shards: Vec<PathBuf>,
    /// The file to write (default: stdout). It is written whole or not at all: through a
    /// temporary file and a rename, after every shard has been checked.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Merge nothing: print the shards of 0..N-1 that are missing from the directory or
    /// damaged, as a comma-separated list (nothing when all are there), for a resubmission
    /// of just those (`sbatch --array=LIST`).
    #[arg(long, value_name = "N", conflicts_with = "out",
          value_parser = clap::value_parser!(u32).range(1..=shard::MAX_SHARDS as i64))]
    pub missing: Option<u32>,
}

/// Runs `outflank merge`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    if let Some(n) = a.missing {
        let [dir] = a.shards.as_slice() else {
            anyhow::bail!("--missing takes one directory, the one the shards are written to");
        };
        let missing = if dir.is_dir() {
            shard::missing(dir, n)?
        } else {
            (0..n).collect()
        };
        let list: Vec<String> = missing.iter().map(u32::to_string).collect();
        if !list.is_empty() {
            println!("{}", list.join(","));
        }
        return Ok(0);
    }
    let merged = shard::collect(&a.shards)?;
    let output = output(&merged)?;
    match &a.out {
        Some(path) => {
            shard::write_atomically(path, &output.stdout)?;
            eprintln!(
                "{} shards of {} ({} items) merged into {}",
                merged.count,
                merged.run.step,
                merged.items.len(),
                path.display()
            );
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&output.stdout)
                .and_then(|_| out.flush())
                .context("cannot write to stdout")?;
        }
    }
    if !output.stderr.is_empty() {
        eprintln!("{}", output.stderr.trim_end());
    }
    Ok(output.status)
}

/// The merged output of a run: what one process doing all of it writes.
fn output(m: &Merged) -> anyhow::Result<MergeOutput> {
    match m.run.step {
        Step::Selfplay => {
            let games = m
                .items
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    crate::train::selfplay::decode_game(b)
                        .with_context(|| format!("self-play game {i} of the shards is not a game"))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            Ok(MergeOutput {
                stdout: crate::notation::wthor::write_wtb(&crate::train::selfplay::to_wthor(
                    &games,
                )),
                ..MergeOutput::default()
            })
        }
        Step::Data => super::train::merge_data(m),
        Step::Probcut => super::train::merge_probcut(m),
        Step::BookLearn | Step::BookBuild => super::book::merge_plan(m),
        Step::Solve => super::solve::merge(m),
        Step::Analyze => super::analyze::merge(m),
    }
}
