//! The `--shard K/N` options the long steps share, what identifies their settings (the
//! weights' id), and the output a merge writes; `outflank merge` (in `merge.rs`) reads the
//! shards back.

use super::common::EngineArgs;
use crate::controller::EngineSetup;
use crate::shard::{self, Shard, ShardFile, Step};
use clap::Args as ClapArgs;
use std::path::PathBuf;

/// The options of a step that runs in shards.
#[derive(ClapArgs, Debug, Clone)]
pub struct ShardArgs {
    /// Do only shard K of N (K from 0 to N-1) and write it into --shard-dir as a file named
    /// for the step, the run (its seed, or its input's hash) and K (`STEP-RUN-KofN.shard`);
    /// `outflank merge` puts the N files together into what one process writes.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// The directory of the shard file (default: the current one).
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub shard_dir: Option<PathBuf>,
}

impl ShardArgs {
    /// Refuses `--shard-dir` without `--shard` (clap's `requires` is not checked for every
    /// command that flattens these options, and the directory would be silently ignored).
    pub fn check(&self) -> anyhow::Result<()> {
        match (&self.shard, &self.shard_dir) {
            (None, Some(_)) => anyhow::bail!("--shard-dir is only for --shard K/N"),
            _ => Ok(()),
        }
    }

    /// Writes a shard's file where these options say, refusing to replace a shard of
    /// another run ([`ShardFile::write_new_into`]); returns its path.
    pub fn write(&self, file: &ShardFile) -> anyhow::Result<PathBuf> {
        let dir = self.shard_dir.clone().unwrap_or_else(|| PathBuf::from("."));
        file.write_new_into(&dir)
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

/// The identity of the weights an engine's options search with, and of their probcut
/// parameters when `--probcut-file` gives them ([`setup_id`]).
pub fn engine_weights_id(e: &EngineArgs) -> anyhow::Result<String> {
    Ok(setup_id(&e.setup()?))
}

/// The identity of the weights an engine setup searches with (the shipped ones when it has
/// none), followed by the sha256 of its probcut parameters when they are not the shipped
/// ones: without a probcut file, the same id as before the option existed.
pub fn setup_id(s: &EngineSetup) -> String {
    let weights = s
        .weights
        .clone()
        .unwrap_or_else(crate::eval::shipped_weights);
    let mut id = shard::weights_id(&weights);
    if let Some(p) = &s.probcut {
        id.push_str(" probcut=");
        id.push_str(&shard::sha256_hex(p.to_json().to_string().as_bytes()));
    }
    id
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
