//! `outflank merge`: the shards of a long step (`--shard K/N`, see `crate::shard`) put back
//! together into the output one process would have written.

use super::shards::MergeOutput;
use crate::shard::{self, Merged, Step};
use anyhow::Context;
use clap::Args as ClapArgs;
use std::io::Write;
use std::path::PathBuf;

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
                    crate::train::decode_game(b)
                        .with_context(|| format!("self-play game {i} of the shards is not a game"))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            Ok(MergeOutput {
                stdout: crate::notation::write_wtb(&crate::train::to_wthor(&games)),
                ..MergeOutput::default()
            })
        }
        Step::Data => Ok(MergeOutput {
            stdout: crate::train::steps::merge_data(m)?,
            ..MergeOutput::default()
        }),
        Step::Probcut => {
            let (json, table) = crate::train::steps::merge_probcut(m)?;
            Ok(MergeOutput {
                stdout: json.into_bytes(),
                stderr: table,
                status: 0,
            })
        }
        Step::BookLearn | Step::BookBuild => super::book::merge_plan(m),
        Step::Solve => super::solve::merge(m),
        Step::Analyze => super::analyze::merge(m),
    }
}
