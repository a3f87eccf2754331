//! `train all`: the whole pipeline in one run, from game records to the weights and probcut
//! files: label the games, a first fit, self-play with it, label those games, the final fit,
//! the probcut fit; with a calibration, then self-play games of the fitted weights and probcut
//! parameters, and the weights' parity biases calibrated on positions of those games
//! ([`super::calibrate`]). Every intermediate file goes into a work directory, where a run started
//! again with `resume` finds the ones already made.

use super::calibrate::{self, CalibrateConfig, Measuring};
use super::data::{self, GameRecord, Sample};
use super::label;
use super::report::Report;
use super::selfplay::{SelfPlayConfig, self_play, to_wthor};
use super::sources::{append_new, manifest_games, wthor_games};
use super::steps::{fit_saying, probcut_to_file};
use super::{FitConfig, LabelConfig, ProbcutConfig};
use crate::eval::{Weights, file};
use crate::search::{Limits, ProbcutParams};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The settings of `train all`.
#[derive(Clone, Debug)]
pub struct AllConfig {
    /// WTHOR files or directories of `.wtb` files.
    pub wthor: Vec<PathBuf>,
    /// A manifest whose self-play shards' games are labelled and fitted on too.
    pub manifest: Option<PathBuf>,
    /// The data store of the manifest's shards (default: the default store).
    pub store: Option<PathBuf>,
    /// Where `eval.ofw` and `probcut.json` go.
    pub out: PathBuf,
    /// Where the intermediate files go.
    pub work: PathBuf,
    /// How the games are labelled.
    pub label: LabelConfig,
    /// Both fits.
    pub fit: FitConfig,
    /// The self-play games between the fits (`games` 0: none).
    pub selfplay: SelfPlayConfig,
    /// The probcut fit.
    pub probcut: ProbcutConfig,
    /// The calibration of the final fit's parity biases (`None`: none).
    pub calibrate: Option<CalibrateConfig>,
    /// Reuse the intermediate files already in `work`.
    pub resume: bool,
}

/// Runs `train all`, saying each stage's end with the seconds since the start.
pub fn run_all(a: &AllConfig, report: &dyn Report) -> anyhow::Result<()> {
    let start = Instant::now();
    let stamp = |what: &str| {
        let line = format!("[{:7.1} s] {what}", start.elapsed().as_secs_f64());
        report.say(None, &line);
    };
    // A calibration that cannot run is refused now, not after the hour before it.
    if let Some(c) = &a.calibrate {
        calibrate::check_plan(&c.empties, &c.depths)?;
    }
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
    let mut samples = labelled(a, &games, &a.work.join("games.samples"), report)?;
    stamp(&format!("{} samples labelled", samples.len()));
    if !listed_games.is_empty() {
        let s = labelled(a, &listed_games, &a.work.join("manifest.samples"), report)?;
        stamp(&format!(
            "{} self-play samples of the manifest labelled",
            s.len()
        ));
        samples.extend(s);
    }
    if a.selfplay.games > 0 {
        let first_path = a.work.join("first.ofw");
        let first = if a.resume && first_path.exists() {
            file::load(&first_path)?
        } else {
            fit_to(a, &samples, &first_path, report)?
        };
        stamp("first fit done");
        let sp_path = a.work.join("selfplay.wtb");
        if !(a.resume && sp_path.exists()) {
            let pb = report.bar(a.selfplay.games as u64);
            let sp = self_play(&a.selfplay, Arc::new(first), &pb);
            pb.finish_and_clear();
            std::fs::write(&sp_path, crate::notation::write_wtb(&to_wthor(&sp)))
                .with_context(|| format!("cannot write {}", sp_path.display()))?;
        }
        stamp("self-play done");
        let sp_games = data::read_games(std::slice::from_ref(&sp_path))?;
        let pb = report.bar(sp_games.len() as u64);
        let sp_samples = label::label_games(&sp_games, &a.label, &pb);
        pb.finish_and_clear();
        stamp(&format!("{} self-play samples labelled", sp_samples.len()));
        samples.extend(sp_samples);
    }
    // The probcut positions come from every game, the manifest's after the WTHOR ones.
    games.extend(listed_games);
    let eval_path = a.out.join("eval.ofw");
    let w = fit_to(a, &samples, &eval_path, report)?;
    stamp(&format!("weights written to {}", eval_path.display()));
    let probcut_path = a.out.join("probcut.json");
    probcut_to_file(
        &games,
        &a.probcut,
        Arc::new(w.clone()),
        &probcut_path,
        report,
    )?;
    stamp("probcut parameters written");
    if let Some(c) = &a.calibrate {
        // The probcut parameters stay those of the fit: a shallow search and the deep one it
        // predicts have depths of one parity, so the shift moves both alike.
        let probcut = ProbcutParams::load(&probcut_path)?;
        let w = calibrated(c, w, probcut, a, report)?;
        file::save(&w, &eval_path)?;
        stamp(&format!(
            "calibrated weights written to {}",
            eval_path.display()
        ));
    }
    stamp("done");
    Ok(())
}

/// `w` calibrated as `c` says, every search with the probcut parameters `probcut` (a fitted
/// set): self-play games (`calibrate.wtb` in the work directory), positions drawn from them
/// and solved (`calibrate.obf`), searched, the model fitted and its shifts applied.
fn calibrated(
    c: &CalibrateConfig,
    w: Weights,
    probcut: ProbcutParams,
    a: &AllConfig,
    report: &dyn Report,
) -> anyhow::Result<Weights> {
    let w = Arc::new(w);
    let games_path = a.work.join("calibrate.wtb");
    if !(a.resume && games_path.exists()) {
        let cfg = SelfPlayConfig {
            games: c.games,
            depth: c.game_depth,
            seed: c.seed,
            probcut: Some(probcut.clone()),
            ..SelfPlayConfig::default()
        };
        let pb = report.bar(c.games as u64);
        let games = self_play(&cfg, w.clone(), &pb);
        pb.finish_and_clear();
        std::fs::write(&games_path, crate::notation::write_wtb(&to_wthor(&games)))
            .with_context(|| format!("cannot write {}", games_path.display()))?;
    }
    let obf_path = a.work.join("calibrate.obf");
    let entries = if a.resume && obf_path.exists() {
        let text = std::fs::read_to_string(&obf_path)
            .with_context(|| format!("cannot read {}", obf_path.display()))?;
        crate::notation::parse_obf(&text).with_context(|| format!("in {}", obf_path.display()))?
    } else {
        let games = data::read_games(std::slice::from_ref(&games_path))?;
        let drawn = calibrate::draw_positions(&games, &c.empties, c.count)?;
        let pb = report.bar(drawn.len() as u64);
        let solved = calibrate::solve_positions(&drawn, c.hash_mb, &pb);
        pb.finish_and_clear();
        std::fs::write(&obf_path, crate::notation::write_obf(&solved))
            .with_context(|| format!("cannot write {}", obf_path.display()))?;
        solved
    };
    let m = Measuring {
        weights: w,
        probcut: Some(ProbcutParams::searched_from(probcut)),
        hash_mb: c.hash_mb,
        selectivity: Limits::default().selectivity,
    };
    let pb = report.bar((entries.len() * c.depths.clone().count()) as u64);
    let done = calibrate::calibrate(&entries, &c.depths, &m, &pb)?;
    pb.finish_and_clear();
    let (even, odd) = done.model.shifts();
    report.say(
        None,
        &format!(
            "calibration on {} positions: leaf error {:+.2} at even empties, {:+.2} at odd; bias shifts {even:+} and {odd:+} (1/{} disc)",
            entries.len(),
            done.model.at_leaf(0),
            done.model.at_leaf(1),
            crate::eval::SCALE
        ),
    );
    Ok(done.weights)
}

/// The samples of `games`, labelled and written to `path`, or read from it when resuming.
fn labelled(
    a: &AllConfig,
    games: &[GameRecord],
    path: &Path,
    report: &dyn Report,
) -> anyhow::Result<Vec<Sample>> {
    if !(a.resume && path.exists()) {
        let pb = report.bar(games.len() as u64);
        let s = label::label_games(games, &a.label, &pb);
        pb.finish_and_clear();
        data::write_samples(path, &s)?;
    }
    data::read_samples(path)
}

/// Weights fitted to `samples`, written to `out`.
fn fit_to(
    a: &AllConfig,
    samples: &[Sample],
    out: &Path,
    report: &dyn Report,
) -> anyhow::Result<Weights> {
    let w = fit_saying(samples, &a.fit, report, &|r| {
        format!(
            "epoch {:3}: train RMSE {:.3}, held-out RMSE {:.3}",
            r.epoch,
            r.train_mse.sqrt(),
            r.heldout_mse.unwrap_or(f64::NAN).sqrt()
        )
    });
    file::save(&w, out)?;
    Ok(w)
}
