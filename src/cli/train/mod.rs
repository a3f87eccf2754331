//! `outflank train`: the evaluation's training pipeline (see `crate::train` and
//! docs/training.md).

use super::common::progress_bar;
use super::shards::{MergeOutput, weights_id};
use crate::eval::{Weights, file};
use crate::shard::{self, RunId, Shard, ShardFile};
use crate::train::sources::{
    append_new, load_manifest, manifest_games, selfplay_shard_games, wthor_games,
};
use crate::train::store::{self as data_store, Entry, Manifest, StoreError};
use crate::train::{
    FitConfig, LabelConfig, ProbcutConfig, ReferenceConfig, ReferenceSet, SelfPlayConfig,
    build_references, data, encode_game, fit, parse_openings, probcut, run_params, self_play,
    self_play_games, to_wthor,
};
mod args;

pub use args::*;

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Runs `outflank train`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let threads = a.threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("outflank-train-{i}"))
        .build()
        .context("cannot start the worker threads")?;
    pool.install(|| match a.step {
        Step::Data(d) => run_data(d),
        Step::Selfplay(s) => run_selfplay(s),
        Step::Store(s) => run_store(s),
        Step::Fit(f) => run_fit(f),
        Step::EvalError(e) => run_eval_error(e),
        Step::Probcut(p) => run_probcut(p),
        Step::All(a) => run_all(a),
        Step::Hand(h) => {
            file::save(&Weights::hand_set(), &h.out)?;
            Ok(0)
        }
    })
}

/// The per-phase losses of an epoch.
fn print_phases(pb: &indicatif::ProgressBar, r: &crate::train::EpochReport) {
    say(pb, "phase  train rows  RMSE  held-out rows  RMSE".into());
    for (p, &(n, mse, tn, tmse)) in r.phases.iter().enumerate() {
        say(
            pb,
            format!(
                "{p:>5} {n:>11} {:>5.2} {tn:>14} {:>5.2}",
                mse.sqrt(),
                tmse.sqrt()
            ),
        );
    }
}

/// A line on stderr, above the progress bar when it is drawn.
fn say(pb: &indicatif::ProgressBar, line: String) {
    if pb.is_hidden() {
        eprintln!("{line}");
    } else {
        pb.println(line);
    }
}

fn load_weights(path: Option<&Path>) -> anyhow::Result<Arc<Weights>> {
    Ok(match path {
        Some(p) => Arc::new(file::load(p)?),
        None => crate::eval::shipped_weights(),
    })
}

fn run_data(a: DataArgs) -> anyhow::Result<i32> {
    a.shard.check()?;
    let start = Instant::now();
    let mut games = wthor_games(&a.wthor)?;
    let mut more = Vec::new();
    if !a.selfplay.is_empty() {
        more.extend(selfplay_shard_games(&a.selfplay)?);
    }
    if let Some(m) = &a.manifest {
        more.extend(manifest_games(m, a.store.as_deref())?);
    }
    append_new(&mut games, more);
    if let Some(n) = a.max_games {
        games.truncate(n);
    }
    eprintln!("{} games", games.len());
    let cfg = LabelConfig {
        exact_empties: a.exact_empties,
        skip_plies: a.skip_plies,
        parity_labels: a.parity_labels,
        ..LabelConfig::default()
    };
    let shard = a.shard.shard.unwrap_or(Shard::WHOLE);
    let indices: Vec<usize> = shard
        .items(games.len() as u64)
        .map(|i| i as usize)
        .collect();
    let pb = progress_bar(indices.len() as u64);
    let per_game = data::label_some(&games, &indices, &cfg, &pb);
    pb.finish_and_clear();
    let count: usize = per_game.iter().map(Vec::len).sum();
    let path = match &a.out {
        Some(out) => {
            let samples: Vec<data::Sample> = per_game.into_iter().flatten().collect();
            data::write_samples(out, &samples)?;
            out.clone()
        }
        None => {
            let games_id = data::games_id(&games);
            let file = ShardFile {
                run: RunId {
                    step: shard::Step::Data,
                    seed: shard::hex_seed(&games_id),
                    total: games.len() as u64,
                    // The parity word only when on: the shards of earlier runs keep their
                    // settings.
                    params: format!(
                        "exact_empties={} skip_plies={}{} games={games_id}",
                        a.exact_empties,
                        a.skip_plies,
                        if a.parity_labels {
                            " parity_labels=1"
                        } else {
                            ""
                        }
                    ),
                },
                shard,
                items: indices
                    .iter()
                    .zip(&per_game)
                    .map(|(&i, s)| (i as u64, data::encode_samples(s)))
                    .collect(),
            };
            a.shard.write(&file)?
        }
    };
    eprintln!(
        "{} samples from {} games written to {} in {:.1} s",
        count,
        indices.len(),
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// The sample file of `train data` from the items of its shards, in order: the same bytes
/// as one process.
pub fn merge_data(m: &shard::Merged) -> anyhow::Result<MergeOutput> {
    let mut count = 0;
    let mut records = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        let s = data::decode_samples(item)
            .map_err(|why| anyhow::anyhow!("data shards: game {i} has {why}"))?;
        count += s.len();
        records.extend_from_slice(item);
    }
    Ok(MergeOutput {
        stdout: data::sample_file_bytes(count, &records),
        ..MergeOutput::default()
    })
}

/// The settings and weights of a self-play run.
fn selfplay_config(a: &SelfplayArgs) -> anyhow::Result<(SelfPlayConfig, Arc<Weights>)> {
    let w = load_weights(a.eval_file.as_deref())?;
    let openings = match &a.openings {
        Some(path) => {
            let lines = parse_openings(&super::common::read_file(path)?)
                .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            anyhow::ensure!(!lines.is_empty(), "{}: no opening line", path.display());
            lines
        }
        None => Vec::new(),
    };
    let probcut = match &a.probcut_file {
        Some(path) => Some(
            crate::search::ProbcutParams::parse(&super::common::read_file(path)?)
                .with_context(|| format!("{}: not probcut parameters", path.display()))?,
        ),
        None => None,
    };
    let cfg = SelfPlayConfig {
        games: a.games,
        depth: a.depth,
        level: a.level,
        probcut,
        openings: Arc::new(openings),
        min_random: a.random_moves.0,
        max_random: a.random_moves.1,
        seed: a.seed,
        ..SelfPlayConfig::default()
    };
    Ok((cfg, w))
}

/// The options of a self-play run that make it again (all that change its games; the shard
/// and where it goes apart), as the manifest records them.
fn selfplay_args(a: &SelfplayArgs) -> Vec<String> {
    let mut v = vec![
        "--games".to_string(),
        a.games.to_string(),
        "--seed".into(),
        a.seed.to_string(),
    ];
    match a.level {
        Some(l) => v.extend(["--level".into(), l.to_string()]),
        None => v.extend(["--depth".into(), a.depth.to_string()]),
    }
    match &a.openings {
        Some(o) => v.extend(["--openings".into(), o.display().to_string()]),
        None => v.extend([
            "--random-moves".into(),
            format!("{}-{}", a.random_moves.0, a.random_moves.1),
        ]),
    }
    if let Some(e) = &a.eval_file {
        v.extend(["--eval-file".into(), e.display().to_string()]);
    }
    if let Some(p) = &a.probcut_file {
        v.extend(["--probcut-file".into(), p.display().to_string()]);
    }
    v
}

/// Plays `shard`'s games of the run and returns its file.
fn play_shard(
    cfg: &SelfPlayConfig,
    w: &Arc<Weights>,
    shard: Shard,
    pb: &indicatif::ProgressBar,
) -> ShardFile {
    let indices: Vec<usize> = shard.items(cfg.games as u64).map(|i| i as usize).collect();
    let games = self_play_games(cfg, w.clone(), &indices, pb);
    ShardFile {
        run: RunId {
            step: shard::Step::Selfplay,
            seed: cfg.seed,
            total: cfg.games as u64,
            params: run_params(cfg, &weights_id(w)),
        },
        shard,
        items: indices
            .iter()
            .zip(&games)
            .map(|(&i, g)| (i as u64, encode_game(g)))
            .collect(),
    }
}

fn run_selfplay(a: SelfplayArgs) -> anyhow::Result<i32> {
    a.shard.check()?;
    if let Some(manifest) = a.manifest.clone() {
        return selfplay_into_store(&a, &manifest, Path::new("."));
    }
    let start = Instant::now();
    let (cfg, w) = selfplay_config(&a)?;
    let shard = a.shard.shard.unwrap_or(Shard::WHOLE);
    let pb = progress_bar(shard.len(a.games as u64));
    let file = play_shard(&cfg, &w, shard, &pb);
    pb.finish_and_clear();
    let path = match &a.out {
        Some(out) => {
            let items: Vec<Vec<u8>> = file.items.iter().map(|(_, b)| b.clone()).collect();
            let games = crate::train::decode_games(&items)
                .map_err(|i| anyhow::anyhow!("game {i} just played is not a game"))?;
            std::fs::write(out, crate::notation::write_wtb(&to_wthor(&games)))
                .with_context(|| format!("cannot write {}", out.display()))?;
            out.clone()
        }
        None => a.shard.write(&file)?,
    };
    eprintln!(
        "{} games written to {} in {:.1} s",
        file.items.len(),
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// `train selfplay --manifest`: plays the run's shards that the store does not hold yet
/// (one progress bar over all their games), writes each into the store and records it in
/// the manifest as soon as it is done. A shard the manifest lists already must come out with
/// its sha256: else the error names it and nothing is written.
///
/// The run's relative paths (`--eval-file`, `--probcut-file`, `--openings`) are recorded as
/// given and read from `root` (the current directory for a run started by hand).
fn selfplay_into_store(a: &SelfplayArgs, manifest_path: &Path, root: &Path) -> anyhow::Result<i32> {
    let start = Instant::now();
    anyhow::ensure!(
        a.shard.shard_dir.is_none(),
        "--shard-dir and --manifest: the store holds the shards (--store)"
    );
    let store = a.store.clone().unwrap_or_else(data_store::default_store);
    let shards: Vec<Shard> = match (a.shard.shard, a.shards) {
        (Some(s), _) => vec![s],
        (None, n) => {
            let count = n.unwrap_or(1);
            (0..count).map(|index| Shard { index, count }).collect()
        }
    };
    let args = selfplay_args(a);
    let mut manifest = Manifest::load(manifest_path)?;
    let mut todo: Vec<(Shard, Option<Entry>)> = Vec::new();
    for &s in &shards {
        let name = ShardFile::file_name(shard::Step::Selfplay, a.seed, s);
        match manifest.get(&name) {
            Some(e) if e.args != args => anyhow::bail!(
                "{}: {} lists it for another run (`{}`); choose another --seed",
                store.join(&name).display(),
                manifest_path.display(),
                e.args.join(" ")
            ),
            Some(e) => {
                if data_store::check(&store, e).is_err() {
                    todo.push((s, Some(e.clone())));
                }
            }
            None => todo.push((s, None)),
        }
    }
    let skipped = shards.len() - todo.len();
    if skipped > 0 {
        eprintln!(
            "{} already in {}, skipped",
            super::common::plural(skipped, "shard"),
            store.display()
        );
    }
    if todo.is_empty() {
        return Ok(0);
    }
    let (cfg, w) = selfplay_config(&SelfplayArgs {
        eval_file: a.eval_file.as_ref().map(|p| root.join(p)),
        probcut_file: a.probcut_file.as_ref().map(|p| root.join(p)),
        openings: a.openings.as_ref().map(|p| root.join(p)),
        ..a.clone()
    })?;
    let commit = a.commit.clone().unwrap_or_else(data_store::current_commit);
    let pb = progress_bar(todo.iter().map(|(s, _)| s.len(a.games as u64)).sum());
    std::fs::create_dir_all(&store)
        .with_context(|| format!("cannot create {}", store.display()))?;
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
                say(&pb, format!("{} made again, as listed", path.display()));
            }
            None => {
                shard::write_atomically(&path, &bytes)?;
                manifest.put(Entry::new(&file, &bytes, args.clone(), commit.clone()));
                manifest.save(manifest_path)?;
                say(
                    &pb,
                    format!(
                        "{} ({} games) written, listed in {}",
                        path.display(),
                        file.items.len(),
                        manifest_path.display()
                    ),
                );
            }
        }
    }
    pb.finish_and_clear();
    eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(0)
}

/// Where a recorded run's relative paths are read from: the current directory when they
/// are all there, else the first folder holding them all among the manifest's folder and
/// the folders above it (the manifest's paths are relative to where the run was started,
/// the repository's root for `data/manifest.json`), so that `train store regenerate`
/// works from any directory.
fn recorded_root(a: &SelfplayArgs, manifest: &Path) -> PathBuf {
    let paths: Vec<&PathBuf> = [&a.eval_file, &a.probcut_file, &a.openings]
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

/// A parser of a self-play run's recorded options.
#[derive(clap::Parser, Debug)]
#[command(no_binary_name = true)]
struct Recorded {
    #[command(flatten)]
    a: SelfplayArgs,
}

fn run_store(a: StoreArgs) -> anyhow::Result<i32> {
    match a.action {
        StoreAction::Verify(l) => {
            let store = l.store.unwrap_or_else(data_store::default_store);
            let manifest = load_manifest(&l.manifest)?;
            let faults = data_store::verify(&store, &manifest);
            for f in &faults {
                eprintln!("outflank: {f}");
            }
            if !faults.is_empty() {
                return Ok(2);
            }
            let bytes: u64 = manifest.shards.iter().map(|e| e.bytes).sum();
            println!(
                "{} ({bytes} bytes) in {}: all there and as {} lists them",
                super::common::plural(manifest.shards.len(), "shard"),
                store.display(),
                l.manifest.display()
            );
            Ok(0)
        }
        StoreAction::Regenerate(l) => {
            use clap::Parser as _;
            let store = l.store.unwrap_or_else(data_store::default_store);
            let manifest = load_manifest(&l.manifest)?;
            let faults = data_store::verify(&store, &manifest);
            if faults.is_empty() {
                eprintln!("nothing to make: every shard is there");
                return Ok(0);
            }
            for f in &faults {
                let e = manifest
                    .shards
                    .iter()
                    .find(|e| store.join(&e.file) == f.path)
                    .context("a shard of the manifest")?;
                eprintln!("{f}: making it again");
                anyhow::ensure!(
                    e.step == shard::Step::Selfplay,
                    "{}: cannot make {} shards again (only selfplay)",
                    f.path.display(),
                    e.step
                );
                let mut args = e.args.clone();
                args.extend(["--shard".into(), e.shard.to_string()]);
                args.extend(["--manifest".into(), l.manifest.display().to_string()]);
                args.extend(["--store".into(), store.display().to_string()]);
                let r = Recorded::try_parse_from(&args).map_err(|err| {
                    let first = err.to_string();
                    anyhow::anyhow!(
                        "{}: the recorded options do not parse: {}",
                        f.path.display(),
                        first.lines().next().unwrap_or_default()
                    )
                })?;
                let root = recorded_root(&r.a, &l.manifest);
                selfplay_into_store(&r.a, &l.manifest, &root)?;
            }
            Ok(0)
        }
    }
}

fn run_fit(a: FitArgs) -> anyhow::Result<i32> {
    let start = Instant::now();
    let samples = data::read_sample_files(&a.data)?;
    eprintln!("{} samples", samples.len());
    let cfg = FitConfig {
        epochs: a.epochs,
        lambda: a.lambda,
        window: a.window,
        holdout: a.holdout,
        seed: a.seed,
        max_samples: a.max_samples,
    };
    let pb = progress_bar(a.epochs as u64);
    let w = fit(&samples, &cfg, &pb, &mut |r| {
        let held = r
            .heldout_mse
            .map(|m| format!(", held-out MSE {m:.3} (RMSE {:.3})", m.sqrt()))
            .unwrap_or_default();
        say(
            &pb,
            format!(
                "epoch {:3}: train MSE {:.3} (RMSE {:.3}){held}",
                r.epoch,
                r.train_mse,
                r.train_mse.sqrt()
            ),
        );
        if r.epoch == cfg.epochs {
            print_phases(&pb, r);
        }
    });
    pb.finish_and_clear();
    file::save(&w, &a.out)?;
    eprintln!(
        "weights written to {} in {:.1} s",
        a.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
}

fn run_probcut(a: ProbcutArgs) -> anyhow::Result<i32> {
    a.shard.check()?;
    let start = Instant::now();
    let games = data::read_games(&a.wthor)?;
    let w = load_weights(a.eval_file.as_deref())?;
    let cfg = ProbcutConfig {
        positions: a.positions,
        end_positions: a.end_positions,
        max_depth: a.max_depth,
        seed: a.seed,
        ..ProbcutConfig::default()
    };
    match (&a.out, a.shard.shard) {
        (Some(out), _) => probcut_step(&games, &cfg, w, out)?,
        (None, Some(shard)) => {
            let (mid, end) = probcut::draw(&games, &cfg);
            let total = (mid.len() + end.len()) as u64;
            let indices: Vec<usize> = shard.items(total).map(|i| i as usize).collect();
            let pb = progress_bar(indices.len() as u64);
            let measured = probcut::measure_some(&cfg, w.clone(), (&mid, &end), &indices, &pb);
            pb.finish_and_clear();
            let file = ShardFile {
                run: RunId {
                    step: shard::Step::Probcut,
                    seed: a.seed,
                    total,
                    params: format!(
                        "mid={} end={} max_depth={} end_max_empties={} weights={} games={}",
                        mid.len(),
                        end.len(),
                        cfg.max_depth,
                        cfg.end_max_empties,
                        weights_id(&w),
                        data::games_id(&games)
                    ),
                },
                shard,
                items: indices
                    .iter()
                    .zip(&measured)
                    .map(|(&i, m)| (i as u64, m.encode()))
                    .collect(),
            };
            let path = a.shard.write(&file)?;
            eprintln!(
                "{} of {total} positions measured, written to {}",
                indices.len(),
                path.display()
            );
        }
        (None, None) => anyhow::bail!("give --out or --shard"),
    }
    eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(0)
}

/// The probcut parameters of `train probcut` from the items of its shards, in order: the
/// same JSON bytes (and the same table on stderr) as one process.
pub fn merge_probcut(m: &shard::Merged) -> anyhow::Result<MergeOutput> {
    let max_depth: u32 = shard::param(&m.run.params, "max_depth")
        .and_then(|d| d.parse().ok())
        .context("probcut shards without their max_depth")?;
    let measured = m
        .items
        .iter()
        .enumerate()
        .map(|(i, b)| {
            probcut::Measured::decode(b)
                .with_context(|| format!("probcut shards: position {i} is damaged"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (json, table) = probcut_fit(&probcut::ProbcutData::from_measured(measured), max_depth)?;
    Ok(MergeOutput {
        stdout: json.into_bytes(),
        stderr: table,
        status: 0,
    })
}

/// Measures, fits, prints and writes the probcut parameters.
fn probcut_step(
    games: &[data::GameRecord],
    cfg: &ProbcutConfig,
    w: Arc<Weights>,
    out: &Path,
) -> anyhow::Result<()> {
    let pb = progress_bar(0);
    let measured = probcut::measure(games, cfg, w, &pb);
    pb.finish_and_clear();
    let (json, table) = probcut_fit(&measured, cfg.max_depth)?;
    eprint!("{table}");
    std::fs::write(out, json).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(())
}

/// The fitted parameters as JSON text, and the table of the fit.
fn probcut_fit(
    measured: &probcut::ProbcutData,
    max_depth: u32,
) -> anyhow::Result<(String, String)> {
    use std::fmt::Write as _;
    let (params, cells) = probcut::fit_params(measured, max_depth);
    let mut t = String::from("deep shallow phase     n      a      b  sigma\n");
    for c in &cells {
        let _ = writeln!(
            t,
            "{:>4} {:>7} {:>5} {:>5} {:>6.3} {:>6.2} {:>6.2}",
            c.deep, c.shallow, c.phase, c.n, c.a, c.b, c.sigma
        );
    }
    let _ = writeln!(
        t,
        "pooled a {:.4} b {:.3}; sigma = {:.3} + {:.4} e + {:.3} d + {:.3} s; end sigma = {:.3} + {:.4} e + {:.3} s",
        params.a,
        params.b,
        params.sigma[0],
        params.sigma[1],
        params.sigma[2],
        params.sigma[3],
        params.end_sigma[0],
        params.end_sigma[1],
        params.end_sigma[2]
    );
    let json = serde_json::to_string_pretty(&params.to_json())? + "\n";
    Ok((json, t))
}

fn run_all(a: AllArgs) -> anyhow::Result<i32> {
    let start = Instant::now();
    let stamp = |what: &str| eprintln!("[{:7.1} s] {what}", start.elapsed().as_secs_f64());
    std::fs::create_dir_all(&a.work)
        .with_context(|| format!("cannot create {}", a.work.display()))?;
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create {}", a.out.display()))?;
    let mut games = wthor_games(&a.wthor)?;
    // The manifest's games are checked before any work, and labelled apart (as `train data
    // --manifest` labels them, repeats dropped within them): their sample file is the one
    // `train data --manifest M --exact-empties E` writes.
    let mut listed_games = Vec::new();
    if let Some(m) = &a.manifest {
        append_new(&mut listed_games, manifest_games(m, a.store.as_deref())?);
    }
    stamp(&format!(
        "{} games read, {} from the manifest's self-play",
        games.len(),
        listed_games.len()
    ));
    let label = LabelConfig {
        exact_empties: a.exact_empties,
        parity_labels: a.parity_labels,
        ..LabelConfig::default()
    };
    let labelled = |games: &[data::GameRecord], path: &Path| -> anyhow::Result<Vec<data::Sample>> {
        if !(a.resume && path.exists()) {
            let pb = progress_bar(games.len() as u64);
            let s = data::label_games(games, &label, &pb);
            pb.finish_and_clear();
            data::write_samples(path, &s)?;
        }
        data::read_samples(path)
    };
    let mut samples = labelled(&games, &a.work.join("games.samples"))?;
    stamp(&format!("{} samples labelled", samples.len()));
    if !listed_games.is_empty() {
        let s = labelled(&listed_games, &a.work.join("manifest.samples"))?;
        stamp(&format!(
            "{} self-play samples of the manifest labelled",
            s.len()
        ));
        samples.extend(s);
    }
    let fit_cfg = FitConfig {
        epochs: a.epochs,
        lambda: a.lambda,
        seed: a.seed,
        ..FitConfig::default()
    };
    let fit_to = |samples: &[data::Sample], out: &Path| -> anyhow::Result<Weights> {
        let pb = progress_bar(fit_cfg.epochs as u64);
        let w = fit(samples, &fit_cfg, &pb, &mut |r| {
            say(
                &pb,
                format!(
                    "epoch {:3}: train RMSE {:.3}, held-out RMSE {:.3}",
                    r.epoch,
                    r.train_mse.sqrt(),
                    r.heldout_mse.unwrap_or(f64::NAN).sqrt()
                ),
            );
            if r.epoch == fit_cfg.epochs {
                print_phases(&pb, r);
            }
        });
        pb.finish_and_clear();
        file::save(&w, out)?;
        Ok(w)
    };
    if a.selfplay_games > 0 {
        let first_path = a.work.join("first.ofw");
        let first = if a.resume && first_path.exists() {
            file::load(&first_path)?
        } else {
            fit_to(&samples, &first_path)?
        };
        stamp("first fit done");
        let sp_path = a.work.join("selfplay.wtb");
        if !(a.resume && sp_path.exists()) {
            let cfg = SelfPlayConfig {
                games: a.selfplay_games,
                depth: a.selfplay_depth,
                seed: a.seed,
                ..SelfPlayConfig::default()
            };
            let pb = progress_bar(cfg.games as u64);
            let sp = self_play(&cfg, Arc::new(first), &pb);
            pb.finish_and_clear();
            std::fs::write(&sp_path, crate::notation::write_wtb(&to_wthor(&sp)))
                .with_context(|| format!("cannot write {}", sp_path.display()))?;
        }
        stamp("self-play done");
        let sp_games = data::read_games(std::slice::from_ref(&sp_path))?;
        let pb = progress_bar(sp_games.len() as u64);
        let sp_samples = data::label_games(&sp_games, &label, &pb);
        pb.finish_and_clear();
        stamp(&format!("{} self-play samples labelled", sp_samples.len()));
        samples.extend(sp_samples);
    }
    // The probcut positions come from every game, the manifest's after the WTHOR ones.
    games.extend(listed_games);
    let eval_path = a.out.join("eval.ofw");
    let w = fit_to(&samples, &eval_path)?;
    stamp(&format!("weights written to {}", eval_path.display()));
    let cfg = ProbcutConfig {
        positions: a.probcut_positions,
        end_positions: a.probcut_end_positions,
        seed: a.seed,
        ..ProbcutConfig::default()
    };
    probcut_step(&games, &cfg, Arc::new(w), &a.out.join("probcut.json"))?;
    stamp("probcut parameters written; done");
    Ok(0)
}

fn run_eval_error(a: EvalErrorArgs) -> anyhow::Result<i32> {
    let cached = a.cache.as_ref().filter(|c| c.exists());
    let refs = match cached {
        Some(c) => ReferenceSet::load(c)?,
        _ => {
            anyhow::ensure!(
                !a.wthor.is_empty(),
                "give --wthor (or an existing --cache) for the reference positions"
            );
            let games = data::read_games(&a.wthor)?;
            let cfg = ReferenceConfig {
                holdout: a.holdout,
                per_empties: a.per_empties,
                depth: a.depth,
                ..ReferenceConfig::default()
            };
            let pb = progress_bar(0);
            let w = load_weights(a.reference_eval.as_deref())?;
            let r = build_references(&games, &cfg, w, &pb);
            pb.finish_and_clear();
            if let Some(c) = &a.cache {
                r.save(c)?;
            }
            r
        }
    };
    let mut evals: Vec<(String, Arc<Weights>)> = vec![
        ("hand-set".into(), Arc::new(Weights::hand_set())),
        ("shipped".into(), crate::eval::shipped_weights()),
    ];
    for p in &a.eval_files {
        evals.push((p.display().to_string(), Arc::new(file::load(p)?)));
    }
    let deep = match cached {
        // The cache does not record the depth it was built with.
        Some(c) => format!("the searches cached in {}", c.display()),
        None => format!("depth-{} search", a.depth),
    };
    println!("mean absolute error in discs on held-out positions (exact: solved; deep: {deep})");
    let tables: Vec<_> = evals.iter().map(|(_, w)| refs.mae_by_phase(w)).collect();
    print!(
        "{:>6} {:>8} {:>6} {:>6}",
        "phase", "empties", "kind", "count"
    );
    for (name, _) in &evals {
        print!(" {:>12}", short(name));
    }
    println!();
    for (row, &(p, exact, n, _)) in tables[0].iter().enumerate() {
        let per = crate::eval::EMPTIES_PER_PHASE as usize;
        print!(
            "{:>6} {:>8} {:>6} {:>6}",
            p,
            format!("{}-{}", p * per + 1, p * per + per),
            if exact { "exact" } else { "deep" },
            n
        );
        for t in &tables {
            print!(" {:>12.2}", t[row].3);
        }
        println!();
    }
    if a.by_empties {
        println!();
        println!("by number of empties: mae (mean signed error, slope of score on eval)");
        for (name, w) in &evals {
            println!("{name}:");
            for (e, n, mae, bias, slope) in refs.details_by_empties(w) {
                println!(
                    "  {e:>2} empties {n:>4}: mae {mae:6.2} bias {bias:+6.2} slope {slope:5.2}"
                );
            }
        }
    }
    Ok(0)
}

/// The last 12 characters of a name, for a table column.
fn short(name: &str) -> String {
    let n = name.chars().count();
    name.chars().skip(n.saturating_sub(12)).collect()
}
