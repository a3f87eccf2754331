//! How far the evaluation is from the truth: mean absolute error per number of empties on
//! positions of held-out games (never trained on).
//!
//! The reference positions are taken from the held-out games in order, at most `per_empties`
//! for each number of empties: with 14-24 empties they are scored by an exact solve (the WTHOR
//! theoretical score where it applies), with 30-50 by a deep search (fixed depth, the
//! engine's default selectivity) with the reference evaluation. [`ReferenceSet`]s can be saved and reloaded, since
//! building them is the slow part.

use super::data::{GameRecord, is_held_out, read_games};
use super::label::{map_with_engines, solve_exact};
use super::report::Report;
use crate::board::Board;
use crate::eval::{PHASES, Weights, phase};
use crate::search::{Engine, EngineConfig, Limits};
use anyhow::{Context, ensure};
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A position with its reference score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The position.
    pub board: Board,
    /// Its score, in discs.
    pub score: i32,
    /// True for an exact score, false for a deep-search score.
    pub exact: bool,
}

/// Settings of the reference set.
#[derive(Clone, Debug)]
pub struct ReferenceConfig {
    /// Percentage of games held out (as in the fit).
    pub holdout: u32,
    /// Positions per number of empties.
    pub per_empties: usize,
    /// Empties scored exactly.
    pub exact: std::ops::RangeInclusive<u32>,
    /// Empties scored by a deep search.
    pub deep: std::ops::RangeInclusive<u32>,
    /// Depth of the deep searches.
    pub depth: u32,
    /// Selectivity level of the deep searches (0..=5; 5: no probcut).
    pub selectivity: crate::search::Selectivity,
    /// Hash table per engine, in MB.
    pub hash_mb: usize,
}

impl Default for ReferenceConfig {
    fn default() -> Self {
        ReferenceConfig {
            holdout: 5,
            per_empties: 200,
            exact: 14..=24,
            deep: 30..=50,
            depth: 14,
            selectivity: Limits::default().selectivity,
            hash_mb: 32,
        }
    }
}

/// Reference positions with their scores.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReferenceSet {
    /// The positions.
    pub refs: Vec<Reference>,
}

/// Picks and scores the reference positions of the held-out `games`, with `weights` for the
/// deep searches.
pub fn build_references(
    games: &[GameRecord],
    cfg: &ReferenceConfig,
    weights: Arc<Weights>,
    pb: &ProgressBar,
) -> ReferenceSet {
    // (board, theoretical score if it applies, exact?)
    let mut jobs: Vec<(Board, Option<i32>, bool)> = Vec::new();
    let mut counts = [0usize; 61];
    for g in games.iter().filter(|g| is_held_out(g.id(), cfg.holdout)) {
        let Some(pos) = g.positions() else { continue };
        let mut last_e = u32::MAX;
        for &(b, black) in &pos {
            let e = b.empty_count();
            // One position per game and number of empties (the first, if a pass repeats it).
            if e == last_e || b.is_game_over() || b.moves() == 0 {
                last_e = e;
                continue;
            }
            last_e = e;
            let exact = cfg.exact.contains(&e);
            if !(exact || cfg.deep.contains(&e)) || counts[e as usize] >= cfg.per_empties {
                continue;
            }
            counts[e as usize] += 1;
            let theo = g
                .theoretical
                .filter(|&(te, _)| te == e)
                .map(|(_, v)| if black { v } else { -v });
            jobs.push((b, theo, exact));
        }
    }
    pb.set_length(jobs.len() as u64);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = jobs.len();
    let make = || {
        let mut e = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: cfg.hash_mb,
        });
        e.set_eval(weights.clone());
        e
    };
    let refs = map_with_engines(&jobs, &make, &|engine, &(board, theo, exact)| {
        let score = if exact {
            theo.unwrap_or_else(|| solve_exact(engine, board))
        } else {
            engine.clear_hash();
            let limits = Limits {
                depth: Some(cfg.depth),
                selectivity: cfg.selectivity,
                ..Limits::default()
            };
            let info = engine.search(board, &limits, &mut |_| {});
            info.best().map_or(0, |l| l.score)
        };
        pb.inc(1);
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if pb.is_hidden() && d.is_multiple_of(200) {
            eprintln!("{d}/{total} reference positions scored");
        }
        Reference {
            board,
            score,
            exact,
        }
    });
    ReferenceSet { refs }
}

impl ReferenceSet {
    /// The set saved in `cache` when that file exists; else the set built from the games of
    /// `wthor` with the weights of `reference_eval` (else the shipped ones) for the deep
    /// searches, and saved in `cache` when one is given.
    pub fn cached_or_built(
        cache: Option<&Path>,
        wthor: &[PathBuf],
        cfg: &ReferenceConfig,
        reference_eval: Option<&Path>,
        report: &dyn Report,
    ) -> anyhow::Result<ReferenceSet> {
        if let Some(c) = cache.filter(|c| c.exists()) {
            return ReferenceSet::load(c);
        }
        ensure!(
            !wthor.is_empty(),
            "give --wthor (or an existing --cache) for the reference positions"
        );
        let games = read_games(wthor)?;
        let pb = report.bar(0);
        let w = crate::eval::load_or_shipped(reference_eval)?;
        let r = build_references(&games, cfg, w, &pb);
        pb.finish_and_clear();
        if let Some(c) = cache {
            r.save(c)?;
        }
        Ok(r)
    }

    /// Saves the set: one line per position, `player opponent score exact` (hex bitboards).
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let mut s = String::new();
        for r in &self.refs {
            s += &format!(
                "{:016x} {:016x} {} {}\n",
                r.board.player, r.board.opponent, r.score, r.exact as u8
            );
        }
        std::fs::write(path, s).with_context(|| format!("cannot write {}", path.display()))
    }

    /// Loads a set saved by [`ReferenceSet::save`].
    pub fn load(path: &Path) -> anyhow::Result<ReferenceSet> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut refs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            ensure!(
                f.len() == 4,
                "{}:{}: expected 4 fields",
                path.display(),
                i + 1
            );
            let p = u64::from_str_radix(f[0], 16)?;
            let o = u64::from_str_radix(f[1], 16)?;
            refs.push(Reference {
                board: Board::new(p, o),
                score: f[2].parse()?,
                exact: f[3] == "1",
            });
        }
        Ok(ReferenceSet { refs })
    }

    /// Mean absolute error (discs) of `w` for each number of empties: `(empties, count,
    /// mae)`, by increasing empties.
    pub fn mae_by_empties(&self, w: &Weights) -> Vec<(u32, usize, f64)> {
        let mut sum = [0.0f64; 61];
        let mut n = [0usize; 61];
        for r in &self.refs {
            let e = r.board.empty_count() as usize;
            sum[e] += (w.evaluate(&r.board) - r.score).abs() as f64;
            n[e] += 1;
        }
        (0..61)
            .filter(|&e| n[e] > 0)
            .map(|e| (e as u32, n[e], sum[e] / n[e] as f64))
            .collect()
    }

    /// For each number of empties: `(empties, count, mean absolute error, mean signed error
    /// (eval - score), slope of the score regressed on the evaluation)`.
    pub fn details_by_empties(&self, w: &Weights) -> Vec<(u32, usize, f64, f64, f64)> {
        let mut out = Vec::new();
        for e in 0..=60u32 {
            let pts: Vec<(f64, f64)> = self
                .refs
                .iter()
                .filter(|r| r.board.empty_count() == e)
                .map(|r| (w.evaluate(&r.board) as f64, r.score as f64))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let n = pts.len() as f64;
            let mae = pts.iter().map(|(x, y)| (x - y).abs()).sum::<f64>() / n;
            let bias = pts.iter().map(|(x, y)| x - y).sum::<f64>() / n;
            let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
            let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
            let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
            let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
            let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
            out.push((e, pts.len(), mae, bias, slope));
        }
        out
    }

    /// Mean absolute error of `w` per phase: `(phase, exact?, count, mae)`.
    pub fn mae_by_phase(&self, w: &Weights) -> Vec<(usize, bool, usize, f64)> {
        let mut acc = vec![[(0usize, 0.0f64); 2]; PHASES];
        for r in &self.refs {
            let p = phase(r.board.empty_count());
            let a = &mut acc[p][r.exact as usize];
            a.0 += 1;
            a.1 += (w.evaluate(&r.board) - r.score).abs() as f64;
        }
        let mut out = Vec::new();
        for (p, a) in acc.iter().enumerate() {
            for exact in [true, false] {
                let (n, s) = a[exact as usize];
                if n > 0 {
                    out.push((p, exact, n, s / n as f64));
                }
            }
        }
        out
    }
}
