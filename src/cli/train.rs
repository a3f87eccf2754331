//! `outflank train`: the evaluation's training pipeline (see `crate::train` and
//! docs/training.md).

use super::common::progress_bar;
use super::shards::{MergeOutput, ShardArgs, weights_id};
use crate::eval::{Weights, file};
use crate::shard::{self, RunId, Shard, ShardFile};
use crate::train::{
    FitConfig, LabelConfig, ProbcutConfig, ReferenceConfig, ReferenceSet, SelfPlayConfig,
    build_references, data, encode_game, fit, probcut, run_params, self_play, self_play_games,
    to_wthor,
};
use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `outflank train`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Worker threads (default: every core).
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    /// The step to run.
    #[command(subcommand)]
    pub step: Step,
}

/// The steps of the pipeline.
#[derive(Subcommand, Debug)]
pub enum Step {
    /// Replay WTHOR games and label their positions (exact solves late, game results early).
    Data(DataArgs),
    /// Play games of the engine against itself from random openings; writes a WTHOR file.
    Selfplay(SelfplayArgs),
    /// Fit the weights to sample files; writes a weights file.
    Fit(FitArgs),
    /// Mean absolute error per phase on held-out games, for several weights files.
    EvalError(EvalErrorArgs),
    /// Fit the Multi-ProbCut parameters from shallow and deep searches; writes JSON.
    Probcut(ProbcutArgs),
    /// Write the hand-set weights as a weights file (to compare or match against).
    Hand(HandArgs),
    /// Retrain everything from scratch: data, a first fit, self-play, the final fit, probcut.
    All(AllArgs),
}

/// Arguments of `outflank train probcut`.
#[derive(ClapArgs, Debug)]
pub struct ProbcutArgs {
    /// WTHOR files or directories (positions are drawn from their training games).
    #[arg(long, required = true, num_args = 1..)]
    pub wthor: Vec<PathBuf>,
    /// The JSON file to write (without --shard).
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    pub out: Option<PathBuf>,
    /// Midgame positions to search.
    #[arg(long, default_value_t = 1500)]
    pub positions: usize,
    /// Endgame positions to solve.
    #[arg(long, default_value_t = 600)]
    pub end_positions: usize,
    /// Deepest midgame search.
    #[arg(long, default_value_t = 10)]
    pub max_depth: u32,
    /// Seed of the position draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Weights to search with (default: the shipped ones).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Search only some of the positions (position i of the draw, midgame then endgame,
    /// belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Arguments of `outflank train all`.
#[derive(ClapArgs, Debug)]
pub struct AllArgs {
    /// WTHOR files or directories of `.wtb` files (the FFO database, Logistello's book).
    #[arg(long, required = true, num_args = 1..)]
    pub wthor: Vec<PathBuf>,
    /// Where to write `eval.ofw` and `probcut.json` (the crate ships `weights/`).
    #[arg(long)]
    pub out: PathBuf,
    /// Directory for the intermediate files (samples, self-play games, first weights).
    #[arg(long)]
    pub work: PathBuf,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Solve positions with at most this many empties exactly.
    #[arg(long, default_value_t = 18)]
    pub exact_empties: u32,
    /// Self-play games (0: none).
    #[arg(long, default_value_t = 10000)]
    pub selfplay_games: usize,
    /// Search depth of the self-play games.
    #[arg(long, default_value_t = 4)]
    pub selfplay_depth: u32,
    /// Conjugate-gradient iterations of each fit.
    #[arg(long, default_value_t = 40)]
    pub epochs: usize,
    /// L2 penalty per weight.
    #[arg(long, default_value_t = 4.0)]
    pub lambda: f64,
    /// Midgame positions of the probcut fit.
    #[arg(long, default_value_t = 1500)]
    pub probcut_positions: usize,
    /// Reuse intermediate files already in the work directory.
    #[arg(long)]
    pub resume: bool,
}

/// Arguments of `outflank train data`.
#[derive(ClapArgs, Debug)]
pub struct DataArgs {
    /// WTHOR files or directories of `.wtb` files (self-play files too).
    #[arg(long, required = true, num_args = 1..)]
    pub wthor: Vec<PathBuf>,
    /// The sample file to write (without --shard).
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    pub out: Option<PathBuf>,
    /// Solve positions with at most this many empties exactly.
    #[arg(long, default_value_t = 18)]
    pub exact_empties: u32,
    /// Use only the first N games (after removing repeats).
    #[arg(long)]
    pub max_games: Option<usize>,
    /// Label only some of the games (game i, from 0, belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Arguments of `outflank train selfplay`.
#[derive(ClapArgs, Debug)]
pub struct SelfplayArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// The WTHOR file to write (without --shard).
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    pub out: Option<PathBuf>,
    /// Search depth of the moves.
    #[arg(long, default_value_t = 6)]
    pub depth: u32,
    /// Seed (the same seed and weights give the same games; game i depends only on them).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Weights to play with (default: the shipped ones).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Play only some of the games (game i belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Arguments of `outflank train fit`.
#[derive(ClapArgs, Debug)]
pub struct FitArgs {
    /// Sample files written by `outflank train data`.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the subsample (with --max-samples).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Conjugate-gradient iterations (each a pass over the data).
    #[arg(long, default_value_t = 60)]
    pub epochs: usize,
    /// L2 penalty per weight (squared discs).
    #[arg(long, default_value_t = 4.0)]
    pub lambda: f64,
    /// Extra empties on each side of a phase's range that also train it.
    #[arg(long, default_value_t = 2)]
    pub window: u32,
    /// Percentage of games held out.
    #[arg(long, default_value_t = 5)]
    pub holdout: u32,
    /// Train on a random subset of at most this many samples.
    #[arg(long)]
    pub max_samples: Option<usize>,
}

/// Arguments of `outflank train eval-error`.
#[derive(ClapArgs, Debug)]
pub struct EvalErrorArgs {
    /// WTHOR files or directories (their held-out games give the positions).
    #[arg(long, num_args = 1..)]
    pub wthor: Vec<PathBuf>,
    /// Weights files to measure (the hand-set and shipped weights are always measured).
    #[arg(long = "eval-file", num_args = 1..)]
    pub eval_files: Vec<PathBuf>,
    /// Percentage of games held out (as in the fit).
    #[arg(long, default_value_t = 5)]
    pub holdout: u32,
    /// Reference positions per number of empties.
    #[arg(long, default_value_t = 200)]
    pub per_empties: usize,
    /// Depth of the deep searches that score positions with 30-50 empties.
    #[arg(long, default_value_t = 14)]
    pub depth: u32,
    /// Cache of the reference positions: read if it exists, else built and written.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Also print the error for each number of empties, with its mean sign and slope.
    #[arg(long)]
    pub by_empties: bool,
    /// Weights of the deep reference searches (default: the shipped ones).
    #[arg(long)]
    pub reference_eval: Option<PathBuf>,
}

/// Arguments of `outflank train hand`.
#[derive(ClapArgs, Debug)]
pub struct HandArgs {
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
}

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
    let start = Instant::now();
    let mut games = data::read_games(&a.wthor)?;
    if let Some(n) = a.max_games {
        games.truncate(n);
    }
    eprintln!("{} games", games.len());
    let cfg = LabelConfig {
        exact_empties: a.exact_empties,
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
                    params: format!("exact_empties={} games={games_id}", a.exact_empties),
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

fn run_selfplay(a: SelfplayArgs) -> anyhow::Result<i32> {
    let start = Instant::now();
    let w = load_weights(a.eval_file.as_deref())?;
    let cfg = SelfPlayConfig {
        games: a.games,
        depth: a.depth,
        seed: a.seed,
        ..SelfPlayConfig::default()
    };
    let shard = a.shard.shard.unwrap_or(Shard::WHOLE);
    let indices: Vec<usize> = shard.items(a.games as u64).map(|i| i as usize).collect();
    let pb = progress_bar(indices.len() as u64);
    let games = self_play_games(&cfg, w.clone(), &indices, &pb);
    pb.finish_and_clear();
    let path = match &a.out {
        Some(out) => {
            std::fs::write(out, crate::notation::write_wtb(&to_wthor(&games)))
                .with_context(|| format!("cannot write {}", out.display()))?;
            out.clone()
        }
        None => {
            let file = ShardFile {
                run: RunId {
                    step: shard::Step::Selfplay,
                    seed: a.seed,
                    total: a.games as u64,
                    params: run_params(&cfg, &weights_id(&w)),
                },
                shard,
                items: indices
                    .iter()
                    .zip(&games)
                    .map(|(&i, g)| (i as u64, encode_game(g)))
                    .collect(),
            };
            a.shard.write(&file)?
        }
    };
    eprintln!(
        "{} games written to {} in {:.1} s",
        games.len(),
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
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
    let games = data::read_games(&a.wthor)?;
    stamp(&format!("{} games read", games.len()));
    let label = LabelConfig {
        exact_empties: a.exact_empties,
        ..LabelConfig::default()
    };
    let samples_path = a.work.join("games.samples");
    if !(a.resume && samples_path.exists()) {
        let pb = progress_bar(games.len() as u64);
        let s = data::label_games(&games, &label, &pb);
        pb.finish_and_clear();
        data::write_samples(&samples_path, &s)?;
    }
    let mut samples = data::read_samples(&samples_path)?;
    stamp(&format!("{} samples labelled", samples.len()));
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
    let eval_path = a.out.join("eval.ofw");
    let w = fit_to(&samples, &eval_path)?;
    stamp(&format!("weights written to {}", eval_path.display()));
    let cfg = ProbcutConfig {
        positions: a.probcut_positions,
        seed: a.seed,
        ..ProbcutConfig::default()
    };
    probcut_step(&games, &cfg, Arc::new(w), &a.out.join("probcut.json"))?;
    stamp("probcut parameters written; done");
    Ok(0)
}

fn run_eval_error(a: EvalErrorArgs) -> anyhow::Result<i32> {
    let refs = match &a.cache {
        Some(c) if c.exists() => ReferenceSet::load(c)?,
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
    println!(
        "mean absolute error in discs on held-out positions (exact: solved; deep: depth-{} search)",
        a.depth
    );
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
