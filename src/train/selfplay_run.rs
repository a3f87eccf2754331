//! The runs of `train selfplay`: a run's options as the manifest records them, its shards
//! played into a WTHOR file, a shard file or the data store (a run that stopped resumes), and
//! the store's missing shards made again from the manifest (`train store regenerate`).

use super::report::Report;
use super::selfplay::{
    SelfPlayConfig, decode_games, encode_game, parse_openings, run_params, self_play_games,
    to_wthor,
};
use super::sources::load_manifest;
use super::steps::Output;
use super::store::{self as data_store, Entry, Manifest, StoreError};
use crate::eval::Weights;
use crate::shard::{self, RunId, Shard, ShardFile};
use anyhow::Context;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The options of a self-play run that change its games (which shards, and where they go,
/// apart): as `train selfplay` takes them, and as the manifest records them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfplayRun {
    /// Number of games.
    pub games: usize,
    /// Search depth of the moves (without `level`).
    pub depth: u32,
    /// The level to play at, instead of `depth`.
    pub level: Option<u32>,
    /// Random opening moves of each game, a range (without `openings`).
    pub random_moves: (u32, u32),
    /// A file of opening lines, instead of random moves.
    pub openings: Option<PathBuf>,
    /// Seed of the run.
    pub seed: u64,
    /// Weights to play with (default: the shipped ones).
    pub eval_file: Option<PathBuf>,
    /// Probcut parameters to search with (default: the shipped ones).
    pub probcut_file: Option<PathBuf>,
}

impl SelfplayRun {
    /// The options of `train selfplay` that make the run again, as the manifest records them.
    pub fn args(&self) -> Vec<String> {
        let mut v = vec![
            "--games".to_string(),
            self.games.to_string(),
            "--seed".into(),
            self.seed.to_string(),
        ];
        match self.level {
            Some(l) => v.extend(["--level".into(), l.to_string()]),
            None => v.extend(["--depth".into(), self.depth.to_string()]),
        }
        match &self.openings {
            Some(o) => v.extend(["--openings".into(), o.display().to_string()]),
            None => v.extend([
                "--random-moves".into(),
                format!("{}-{}", self.random_moves.0, self.random_moves.1),
            ]),
        }
        if let Some(e) = &self.eval_file {
            v.extend(["--eval-file".into(), e.display().to_string()]);
        }
        if let Some(p) = &self.probcut_file {
            v.extend(["--probcut-file".into(), p.display().to_string()]);
        }
        v
    }

    /// The run with its files' relative paths read from `root`.
    pub fn under(&self, root: &Path) -> SelfplayRun {
        let join = |p: &Option<PathBuf>| p.as_ref().map(|p| root.join(p));
        SelfplayRun {
            eval_file: join(&self.eval_file),
            probcut_file: join(&self.probcut_file),
            openings: join(&self.openings),
            ..self.clone()
        }
    }

    /// Where the run's relative paths are read from: the current directory when they are
    /// all there, else the first folder holding them all among the manifest's folder and the
    /// folders above it (the manifest's paths are relative to where the run was started, the
    /// repository's root for `data/manifest.json`), so that `train store regenerate` works
    /// from any directory.
    pub fn recorded_root(&self, manifest: &Path) -> PathBuf {
        let paths: Vec<&PathBuf> = [&self.eval_file, &self.probcut_file, &self.openings]
            .into_iter()
            .flatten()
            .filter(|p| p.is_relative())
            .collect();
        let holds_all = |root: &Path| paths.iter().all(|p| root.join(p).exists());
        let here = PathBuf::from(".");
        if holds_all(&here) {
            return here;
        }
        let dir = std::path::absolute(manifest)
            .ok()
            .and_then(|m| m.parent().map(Path::to_path_buf));
        dir.iter()
            .flat_map(|d| d.ancestors())
            .find(|d| holds_all(d))
            .map(Path::to_path_buf)
            .unwrap_or(here)
    }

    /// The settings and weights of the run, its files read.
    pub fn config(&self) -> anyhow::Result<(SelfPlayConfig, Arc<Weights>)> {
        let w = crate::eval::load_or_shipped(self.eval_file.as_deref())?;
        let read = |path: &Path| {
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
        };
        let openings = match &self.openings {
            Some(path) => {
                let lines = parse_openings(&read(path)?)
                    .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
                anyhow::ensure!(!lines.is_empty(), "{}: no opening line", path.display());
                lines
            }
            None => Vec::new(),
        };
        let probcut = match &self.probcut_file {
            Some(path) => Some(crate::search::ProbcutParams::load(path)?),
            None => None,
        };
        let cfg = SelfPlayConfig {
            games: self.games,
            depth: self.depth,
            level: self.level,
            probcut,
            openings: Arc::new(openings),
            min_random: self.random_moves.0,
            max_random: self.random_moves.1,
            seed: self.seed,
            ..SelfPlayConfig::default()
        };
        Ok((cfg, w))
    }
}

/// Plays `shard`'s games of the run and returns its file.
pub fn play_shard(
    cfg: &SelfPlayConfig,
    w: &Arc<Weights>,
    shard: Shard,
    pb: &ProgressBar,
) -> ShardFile {
    let indices: Vec<usize> = shard.items(cfg.games as u64).map(|i| i as usize).collect();
    let games = self_play_games(cfg, w.clone(), &indices, pb);
    ShardFile {
        run: RunId {
            step: shard::Step::Selfplay,
            seed: cfg.seed,
            total: cfg.games as u64,
            params: run_params(cfg, &shard::weights_id(w)),
        },
        shard,
        items: indices
            .iter()
            .zip(&games)
            .map(|(&i, g)| (i as u64, encode_game(g)))
            .collect(),
    }
}

/// `train selfplay` outside the store: plays `out`'s shard of the run and writes its games,
/// a WTHOR file or the shard's file; returns how many games it wrote, and where.
pub fn run_selfplay(
    run: &SelfplayRun,
    out: &Output,
    report: &dyn Report,
) -> anyhow::Result<(usize, PathBuf)> {
    let (cfg, w) = run.config()?;
    let shard = out.shard();
    let pb = report.bar(shard.len(run.games as u64));
    let file = play_shard(&cfg, &w, shard, &pb);
    pb.finish_and_clear();
    let path = match out {
        Output::File(path) => {
            let items: Vec<Vec<u8>> = file.items.iter().map(|(_, b)| b.clone()).collect();
            let games = decode_games(&items)
                .map_err(|i| anyhow::anyhow!("game {i} just played is not a game"))?;
            std::fs::write(path, crate::notation::write_wtb(&to_wthor(&games)))
                .with_context(|| format!("cannot write {}", path.display()))?;
            path.clone()
        }
        Output::Shard(_, dir) => file.write_into(dir)?,
    };
    Ok((file.items.len(), path))
}

/// A self-play run into the data store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreRun {
    /// The run.
    pub run: SelfplayRun,
    /// Its shards to play, one after the other.
    pub shards: Vec<Shard>,
    /// The store.
    pub store: PathBuf,
    /// The commit to record (default: [`data_store::current_commit`]).
    pub commit: Option<String>,
}

/// `train selfplay --manifest`: plays the run's shards that the store does not hold yet (one
/// progress bar over all their games), writes each into the store and records it in the
/// manifest as soon as it is done. A shard the manifest lists already must come out with its
/// sha256: else the error names it and nothing is written.
///
/// The run's relative paths are recorded as given and read from `root` (the current
/// directory for a run started by hand).
pub fn into_store(
    r: &StoreRun,
    manifest_path: &Path,
    root: &Path,
    report: &dyn Report,
) -> anyhow::Result<()> {
    let start = Instant::now();
    let store = &r.store;
    let args = r.run.args();
    let mut manifest = Manifest::load(manifest_path)?;
    let mut todo: Vec<(Shard, Option<Entry>)> = Vec::new();
    for &s in &r.shards {
        let name = ShardFile::file_name(shard::Step::Selfplay, r.run.seed, s);
        match manifest.get(&name) {
            Some(e) if e.args != args => anyhow::bail!(
                "{}: {} lists it for another run (`{}`); choose another --seed",
                store.join(&name).display(),
                manifest_path.display(),
                e.args.join(" ")
            ),
            Some(e) => {
                if data_store::check(store, e).is_err() {
                    todo.push((s, Some(e.clone())));
                }
            }
            None => todo.push((s, None)),
        }
    }
    let skipped = r.shards.len() - todo.len();
    if skipped > 0 {
        let s = if skipped == 1 { "" } else { "s" };
        let line = format!("{skipped} shard{s} already in {}, skipped", store.display());
        report.say(None, &line);
    }
    if todo.is_empty() {
        return Ok(());
    }
    let (cfg, w) = r.run.under(root).config()?;
    let commit = r.commit.clone().unwrap_or_else(data_store::current_commit);
    let pb = report.bar(todo.iter().map(|(s, _)| s.len(r.run.games as u64)).sum());
    std::fs::create_dir_all(store).with_context(|| format!("cannot create {}", store.display()))?;
    for (s, expected) in todo {
        pb.set_message(format!("shard {s}"));
        let file = play_shard(&cfg, &w, s, &pb);
        let bytes = file.to_bytes();
        let path = store.join(file.name());
        match expected {
            Some(e) => {
                data_store::check_bytes(&e, &bytes).map_err(|problem| StoreError {
                    path: path.clone(),
                    problem,
                })?;
                shard::write_atomically(&path, &bytes)?;
                report.say(
                    Some(&pb),
                    &format!("{} made again, as listed", path.display()),
                );
            }
            None => {
                shard::write_atomically(&path, &bytes)?;
                manifest.put(Entry::new(&file, &bytes, args.clone(), commit.clone()));
                manifest.save(manifest_path)?;
                let line = format!(
                    "{} ({} games) written, listed in {}",
                    path.display(),
                    file.items.len(),
                    manifest_path.display()
                );
                report.say(Some(&pb), &line);
            }
        }
    }
    pb.finish_and_clear();
    let done = format!("done in {:.1} s", start.elapsed().as_secs_f64());
    report.say(None, &done);
    Ok(())
}

/// `train store regenerate`: makes the shards missing from `store` (or damaged) again by
/// running their recorded options, parsed by `parse` (the options of `train selfplay`, with
/// the shard, the manifest and the store added), into the store ([`into_store`]).
pub fn regenerate(
    store: &Path,
    manifest_path: &Path,
    parse: &dyn Fn(&[String]) -> Result<StoreRun, String>,
    report: &dyn Report,
) -> anyhow::Result<()> {
    let manifest = load_manifest(manifest_path)?;
    let faults = data_store::verify(store, &manifest);
    if faults.is_empty() {
        report.say(None, "nothing to make: every shard is there");
        return Ok(());
    }
    for f in &faults {
        let e = manifest
            .shards
            .iter()
            .find(|e| store.join(&e.file) == f.path)
            .context("a shard of the manifest")?;
        report.say(None, &format!("{f}: making it again"));
        anyhow::ensure!(
            e.step == shard::Step::Selfplay,
            "{}: cannot make {} shards again (only selfplay)",
            f.path.display(),
            e.step
        );
        let mut args = e.args.clone();
        args.extend(["--shard".into(), e.shard.to_string()]);
        args.extend(["--manifest".into(), manifest_path.display().to_string()]);
        args.extend(["--store".into(), store.display().to_string()]);
        let r = parse(&args).map_err(|err| {
            anyhow::anyhow!(
                "{}: the recorded options do not parse: {}",
                f.path.display(),
                err.lines().next().unwrap_or_default()
            )
        })?;
        let root = r.run.recorded_root(manifest_path);
        into_store(&r, manifest_path, &root, report)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> SelfplayRun {
        SelfplayRun {
            games: 40,
            depth: 6,
            level: None,
            random_moves: (8, 20),
            openings: None,
            seed: 3,
            eval_file: None,
            probcut_file: None,
        }
    }

    #[test]
    fn the_recorded_options_name_what_changes_the_games() {
        assert_eq!(
            run().args(),
            [
                "--games",
                "40",
                "--seed",
                "3",
                "--depth",
                "6",
                "--random-moves",
                "8-20"
            ]
        );
        let other = SelfplayRun {
            level: Some(3),
            openings: Some("xot.txt".into()),
            eval_file: Some("w/eval.ofw".into()),
            probcut_file: Some("w/probcut.json".into()),
            ..run()
        };
        assert_eq!(
            other.args(),
            [
                "--games",
                "40",
                "--seed",
                "3",
                "--level",
                "3",
                "--openings",
                "xot.txt",
                "--eval-file",
                "w/eval.ofw",
                "--probcut-file",
                "w/probcut.json"
            ]
        );
    }

    #[test]
    fn a_run_under_a_root_reads_its_relative_files_there() {
        let r = SelfplayRun {
            openings: Some("xot.txt".into()),
            eval_file: Some("/abs/eval.ofw".into()),
            ..run()
        };
        let u = r.under(Path::new("/repo"));
        assert_eq!(u.openings, Some(PathBuf::from("/repo/xot.txt")));
        assert_eq!(u.eval_file, Some(PathBuf::from("/abs/eval.ofw")));
        assert_eq!(u.probcut_file, None);
        assert_eq!(u.args()[..6], r.args()[..6]);
    }

    #[test]
    fn the_recorded_root_is_the_first_folder_holding_every_file() {
        let dir = std::env::temp_dir().join(format!("outflank-root-{}", std::process::id()));
        let deep = dir.join("repo").join("data");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(dir.join("repo").join("outflank-root-test.txt"), "f5d6\n").unwrap();
        let r = SelfplayRun {
            openings: Some("outflank-root-test.txt".into()),
            ..run()
        };
        let manifest = deep.join("manifest.json");
        assert_eq!(r.recorded_root(&manifest), dir.join("repo"));
        // Nothing to find: the current directory.
        assert_eq!(run().recorded_root(&manifest), PathBuf::from("."));
        let lost = SelfplayRun {
            openings: Some("no-such-file.txt".into()),
            ..run()
        };
        assert_eq!(lost.recorded_root(&manifest), PathBuf::from("."));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_or_empty_openings_file_is_an_error() {
        let missing = SelfplayRun {
            openings: Some("/no/such/openings.txt".into()),
            ..run()
        };
        let why = missing.config().unwrap_err().to_string();
        assert_eq!(why, "cannot read /no/such/openings.txt");
        let path = std::env::temp_dir().join(format!("outflank-empty-{}.txt", std::process::id()));
        std::fs::write(&path, "\n").unwrap();
        let empty = SelfplayRun {
            openings: Some(path.clone()),
            ..run()
        };
        let why = empty.config().unwrap_err().to_string();
        assert_eq!(why, format!("{}: no opening line", path.display()));
        std::fs::remove_file(&path).unwrap();
    }
}
