//! `outflank train`: the evaluation's training pipeline (see `crate::train` and
//! docs/training.md). Each step's arguments become the library's settings, the library runs
//! the step ([`crate::train::steps`], [`crate::train::selfplay_run`],
//! [`crate::train::pipeline`]), and this module draws its progress and says what it wrote.

use super::common::progress_bar;
use crate::eval::{Weights, file};
use crate::shard::Shard;
use crate::train::calibrate::CalibrateConfig;
use crate::train::report::Report;
use crate::train::selfplay_run::{self, SelfplayRun, StoreRun};
use crate::train::sources::{GameSources, load_manifest};
use crate::train::steps::{self, Output};
use crate::train::store as data_store;
use crate::train::{
    FitConfig, LabelConfig, ProbcutConfig, ReferenceConfig, ReferenceSet, SearchLabels,
    SelfPlayConfig,
};
mod args;
mod calibrate;

pub use args::*;

use anyhow::Context;
use indicatif::ProgressBar;
use std::path::PathBuf;
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
        Step::All(a) => {
            crate::train::pipeline::run_all(&all_config(a)?, &Stderr)?;
            Ok(0)
        }
        Step::Calibrate(c) => calibrate::run(c),
        Step::Hand(h) => {
            file::save(&Weights::hand_set(), &h.out)?;
            Ok(0)
        }
    })
}

/// The progress of a step on stderr: a bar when stderr is a terminal, lines above it.
struct Stderr;

impl Report for Stderr {
    fn bar(&self, len: u64) -> ProgressBar {
        progress_bar(len)
    }

    fn say(&self, bar: Option<&ProgressBar>, line: &str) {
        match bar {
            Some(pb) if !pb.is_hidden() => pb.println(line),
            _ => eprintln!("{line}"),
        }
    }
}

/// Where a step's result goes: `--out`, else its shard (the whole run when none is given)
/// into `--shard-dir`.
fn output(out: &Option<PathBuf>, shard: &super::shards::ShardArgs) -> Output {
    match out {
        Some(path) => Output::File(path.clone()),
        None => Output::Shard(
            shard.shard.unwrap_or(Shard::WHOLE),
            shard
                .shard_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(".")),
        ),
    }
}

fn run_data(a: DataArgs) -> anyhow::Result<i32> {
    a.shard.check()?;
    let start = Instant::now();
    let sources = GameSources {
        wthor: a.wthor,
        selfplay: a.selfplay,
        manifest: a.manifest,
        store: a.store,
        max_games: a.max_games,
    };
    let label = LabelConfig {
        skip_plies: a.skip_plies,
        ..a.label.config()?
    };
    let done = steps::run_data(&sources, &label, &output(&a.out, &a.shard), &Stderr)?;
    eprintln!(
        "{} samples from {} games written to {} in {:.1} s",
        done.samples,
        done.games,
        done.path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// The run of a self-play step's options.
fn selfplay_run(a: &SelfplayArgs) -> SelfplayRun {
    SelfplayRun {
        games: a.games,
        depth: a.depth,
        level: a.level,
        random_moves: a.random_moves,
        openings: a.openings.clone(),
        seed: a.seed,
        eval_file: a.eval_file.clone(),
        probcut_file: a.probcut_file.clone(),
    }
}

/// The run into the store of a self-play step's options (with `--manifest`): `--shard K/N`,
/// else the `--shards N` of the run (default 1).
fn store_run(a: &SelfplayArgs) -> StoreRun {
    let shards = match (a.shard.shard, a.shards) {
        (Some(s), _) => vec![s],
        (None, n) => {
            let count = n.unwrap_or(1);
            (0..count).map(|index| Shard { index, count }).collect()
        }
    };
    StoreRun {
        run: selfplay_run(a),
        shards,
        store: a.store.clone().unwrap_or_else(data_store::default_store),
        commit: a.commit.clone(),
    }
}

fn run_selfplay(a: SelfplayArgs) -> anyhow::Result<i32> {
    a.shard.check()?;
    if let Some(manifest) = &a.manifest {
        anyhow::ensure!(
            a.shard.shard_dir.is_none(),
            "--shard-dir and --manifest: the store holds the shards (--store)"
        );
        let root = std::path::Path::new(".");
        selfplay_run::into_store(&store_run(&a), manifest, root, &Stderr)?;
        return Ok(0);
    }
    let start = Instant::now();
    let out = output(&a.out, &a.shard);
    let (games, path) = selfplay_run::run_selfplay(&selfplay_run(&a), &out, &Stderr)?;
    eprintln!(
        "{games} games written to {} in {:.1} s",
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
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
            let parse = |args: &[String]| {
                Recorded::try_parse_from(args)
                    .map(|r| store_run(&r.a))
                    .map_err(|err| err.to_string())
            };
            selfplay_run::regenerate(&store, &l.manifest, &parse, &Stderr)?;
            Ok(0)
        }
    }
}

fn run_fit(a: FitArgs) -> anyhow::Result<i32> {
    let start = Instant::now();
    let cfg = FitConfig {
        epochs: a.epochs,
        lambda: a.lambda,
        window: a.window,
        holdout: a.holdout,
        seed: a.seed,
        max_samples: a.max_samples,
        empties_per_phase: a.empties_per_phase,
        terms: a.terms,
    };
    steps::run_fit(&a.data, &cfg, &a.out, &Stderr)?;
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
    anyhow::ensure!(
        a.out.is_some() || a.shard.shard.is_some(),
        "give --out or --shard"
    );
    let cfg = ProbcutConfig {
        positions: a.positions,
        end_positions: a.end_positions,
        max_depth: a.max_depth,
        seed: a.seed,
        ..ProbcutConfig::default()
    };
    let out = output(&a.out, &a.shard);
    let eval_file = a.eval_file.as_deref();
    if let Some(w) = steps::run_probcut(&a.wthor, eval_file, &cfg, &out, &Stderr)? {
        eprintln!(
            "{} of {} positions measured, written to {}",
            w.items,
            w.total,
            w.path.display()
        );
    }
    eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(0)
}

impl LabelArgs {
    /// The labelling these options ask for, their weights and probcut parameters read.
    fn config(&self) -> anyhow::Result<LabelConfig> {
        let search = match self.search_depth {
            Some(depth) => Some(SearchLabels {
                depth,
                weights: self
                    .eval_file
                    .as_deref()
                    .map(|p| crate::eval::load_or_shipped(Some(p)))
                    .transpose()?,
                probcut: self
                    .probcut_file
                    .as_deref()
                    .map(crate::search::ProbcutParams::load)
                    .transpose()?,
            }),
            None => None,
        };
        Ok(LabelConfig {
            exact_empties: self.exact_empties,
            parity_labels: self.parity_labels,
            deviations: self.deviations,
            search,
            ..LabelConfig::default()
        })
    }
}

/// The settings of `train all`.
fn all_config(a: AllArgs) -> anyhow::Result<crate::train::pipeline::AllConfig> {
    Ok(crate::train::pipeline::AllConfig {
        wthor: a.wthor,
        manifest: a.manifest,
        store: a.store,
        out: a.out,
        work: a.work,
        label: a.label.config()?,
        fit: FitConfig {
            epochs: a.epochs,
            lambda: a.lambda,
            seed: a.seed,
            empties_per_phase: a.empties_per_phase,
            terms: a.terms,
            ..FitConfig::default()
        },
        selfplay: SelfPlayConfig {
            games: a.selfplay_games,
            depth: a.selfplay_depth,
            seed: a.seed,
            ..SelfPlayConfig::default()
        },
        probcut: ProbcutConfig {
            positions: a.probcut_positions,
            end_positions: a.probcut_end_positions,
            seed: a.seed,
            ..ProbcutConfig::default()
        },
        calibrate: (a.calibrate_games > 0).then(|| CalibrateConfig {
            games: a.calibrate_games,
            seed: a.calibrate_seed,
            empties: a.calibrate_empties,
            count: a.calibrate_count,
            depths: args::search_depths(a.calibrate_depths),
            ..CalibrateConfig::default()
        }),
        resume: a.resume,
    })
}

fn run_eval_error(a: EvalErrorArgs) -> anyhow::Result<i32> {
    let cached = a.cache.as_ref().filter(|c| c.exists());
    let cfg = ReferenceConfig {
        holdout: a.holdout,
        per_empties: a.per_empties,
        depth: a.depth,
        exact: a.exact_empties.0.max(1)..=a.exact_empties.1,
        ..ReferenceConfig::default()
    };
    let reference_eval = a.reference_eval.as_deref();
    let refs =
        ReferenceSet::cached_or_built(a.cache.as_deref(), &a.wthor, &cfg, reference_eval, &Stderr)?;
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
