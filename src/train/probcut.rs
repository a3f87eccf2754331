//! Fitting the Multi-ProbCut parameters from pairs of shallow and deep searches.
//!
//! Midgame: positions drawn from the training games are searched without pruning by
//! iterative deepening to `max_depth`, recording the score of every depth (depth 0 is the
//! evaluation). For each deep depth `d` and its shallow depth `s =
//! ProbcutParams::shallow_depth(d)`, and each phase, the deep score is regressed on the
//! shallow one (`deep ~ a * shallow + b`) and the residual's standard deviation measured.
//! The search uses one pooled `a`, `b`, the measured sigma per depth and phase, and, for
//! depths beyond the measured ones, a linear formula in empties and depths fitted to the
//! measured sigmas.
//!
//! Endgame: positions with exact scores (the labelled samples' exact solves and the WTHOR
//! theoretical scores) against the shallow midgame search that the selective endgame search
//! uses; sigma fitted as a linear formula in empties and shallow depth.

use super::data::{GameRecord, is_held_out};
use super::label::{map_with_engines, solve_exact};
use crate::board::Board;
use crate::eval::{PHASES, Weights, phase};
use crate::rng::Rng;
use crate::search::{Engine, EngineConfig, Limits};
use crate::search::{ProbcutParams, Selectivity};
use indicatif::ProgressBar;
use std::sync::Arc;

/// Settings of the fit.
#[derive(Clone, Debug)]
pub struct ProbcutConfig {
    /// Midgame positions searched.
    pub positions: usize,
    /// Deepest midgame search.
    pub max_depth: u32,
    /// Empties of the midgame positions: at least...
    pub min_empties: u32,
    /// ... and at most.
    pub max_empties: u32,
    /// Endgame positions (exactly solved).
    pub end_positions: usize,
    /// Empties of the endgame positions: at least...
    pub end_min_empties: u32,
    /// ... and at most.
    pub end_max_empties: u32,
    /// Percentage of games held out (not used here, as in the fit).
    pub holdout: u32,
    /// Seed of the position draw.
    pub seed: u64,
    /// Hash table per engine, in MB.
    pub hash_mb: usize,
}

impl Default for ProbcutConfig {
    fn default() -> Self {
        ProbcutConfig {
            positions: 1500,
            max_depth: 10,
            min_empties: 20,
            max_empties: 54,
            end_positions: 600,
            end_min_empties: 12,
            end_max_empties: 20,
            holdout: 5,
            seed: 1,
            hash_mb: 16,
        }
    }
}

/// The shallow depth the selective endgame search uses at `empties`.
pub fn end_shallow_depth(empties: u32) -> i32 {
    (empties as i32 / 4).max(1) & !1
}

/// Positions drawn from the games (held-out games excluded) with empties in `range`.
fn draw_positions(
    games: &[GameRecord],
    n: usize,
    range: std::ops::RangeInclusive<u32>,
    holdout: u32,
    rng: &mut Rng,
) -> Vec<Board> {
    let usable: Vec<&GameRecord> = games
        .iter()
        .filter(|g| !is_held_out(g.id(), holdout))
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n && !usable.is_empty() && tries < n * 100 {
        tries += 1;
        let g = usable[rng.below(usable.len() as u64) as usize];
        let Some(pos) = g.positions() else { continue };
        let cands: Vec<Board> = pos
            .iter()
            .map(|p| p.0)
            .filter(|b| range.contains(&b.empty_count()) && b.moves() != 0)
            .collect();
        if !cands.is_empty() {
            out.push(cands[rng.below(cands.len() as u64) as usize]);
        }
    }
    out
}

/// Scores of a position at depths 0..=max (index = depth), no pruning, from an empty hash.
fn depth_scores(engine: &Engine, b: Board, max: u32) -> Vec<i32> {
    engine.clear_hash();
    let mut v = vec![engine.evaluate(&b)];
    let limits = Limits {
        depth: Some(max),
        selectivity: Selectivity::NONE,
        ..Limits::default()
    };
    engine.search(b, &limits, &mut |info| {
        if info.solve.is_none()
            && let Some(l) = info.best()
            && info.depth as usize == v.len()
        {
            v.push(l.score);
        }
    });
    v
}

/// The measured data: `(empties, scores by depth)` for the midgame; `(empties, exact,
/// scores by depth)` for the endgame.
#[derive(Clone, Debug, Default)]
pub struct ProbcutData {
    /// Midgame positions.
    pub mid: Vec<(u32, Vec<i32>)>,
    /// Endgame positions.
    pub end: Vec<(u32, i32, Vec<i32>)>,
}

/// The positions of a fit, drawn from the games with the config's seed: the midgame ones,
/// then the endgame ones. Position `i` of the whole list is item `i` of a sharded run.
pub fn draw(games: &[GameRecord], cfg: &ProbcutConfig) -> (Vec<Board>, Vec<Board>) {
    let mut rng = Rng::new(cfg.seed);
    let mid_pos = draw_positions(
        games,
        cfg.positions,
        cfg.min_empties..=cfg.max_empties,
        cfg.holdout,
        &mut rng,
    );
    let end_pos = draw_positions(
        games,
        cfg.end_positions,
        cfg.end_min_empties..=cfg.end_max_empties,
        cfg.holdout,
        &mut rng,
    );
    (mid_pos, end_pos)
}

/// One measured position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measured {
    /// A midgame position: empties, scores by depth.
    Mid(u32, Vec<i32>),
    /// An endgame position: empties, exact score, scores by depth.
    End(u32, i32, Vec<i32>),
}

impl Measured {
    /// As a shard item's bytes: kind (0 mid, 1 end, u8), empties (u8), then the exact
    /// score (end only) and the scores by depth (i32 each, little-endian).
    pub fn encode(&self) -> Vec<u8> {
        let (kind, e, exact, v) = match self {
            Measured::Mid(e, v) => (0u8, *e, None, v),
            Measured::End(e, x, v) => (1u8, *e, Some(*x), v),
        };
        let mut out = vec![kind, e as u8];
        out.extend(exact.iter().chain(v).flat_map(|s| s.to_le_bytes()));
        out
    }

    /// The position of a shard item's bytes ([`Measured::encode`]).
    pub fn decode(bytes: &[u8]) -> Option<Measured> {
        let (&[kind, e], rest) = bytes.split_first_chunk::<2>()?;
        if !rest.len().is_multiple_of(4) {
            return None;
        }
        let mut v: Vec<i32> = rest
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        match kind {
            0 => Some(Measured::Mid(e as u32, v)),
            1 if !v.is_empty() => {
                let exact = v.remove(0);
                Some(Measured::End(e as u32, exact, v))
            }
            _ => None,
        }
    }
}

impl ProbcutData {
    /// The data of measured positions, in order.
    pub fn from_measured(items: impl IntoIterator<Item = Measured>) -> ProbcutData {
        let mut d = ProbcutData::default();
        for m in items {
            match m {
                Measured::Mid(e, v) => d.mid.push((e, v)),
                Measured::End(e, x, v) => d.end.push((e, x, v)),
            }
        }
        d
    }
}

/// Searches the positions `indices` of `mid` followed by `end` (on the current rayon pool),
/// in that order: each from an empty hash table on one thread, so that a position's
/// scores do not depend on which others are searched.
pub fn measure_some(
    cfg: &ProbcutConfig,
    weights: Arc<Weights>,
    (mid, end): (&[Board], &[Board]),
    indices: &[usize],
    pb: &ProgressBar,
) -> Vec<Measured> {
    let make = || {
        let mut e = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: cfg.hash_mb,
        });
        e.set_eval(weights.clone());
        e
    };
    let max = cfg.max_depth;
    map_with_engines(indices, &make, &|engine, &i| {
        let m = match mid.get(i) {
            Some(&b) => Measured::Mid(b.empty_count(), depth_scores(engine, b, max)),
            None => {
                let b = end[i - mid.len()];
                let e = b.empty_count();
                let shallow = end_shallow_depth(cfg.end_max_empties).max(2) as u32;
                let v = depth_scores(engine, b, shallow.min(e - 1));
                let exact = solve_exact(engine, b);
                Measured::End(e, exact, v)
            }
        };
        pb.inc(1);
        m
    })
}

/// Searches the positions (on the current rayon pool) and returns the data.
pub fn measure(
    games: &[GameRecord],
    cfg: &ProbcutConfig,
    weights: Arc<Weights>,
    pb: &ProgressBar,
) -> ProbcutData {
    let (mid_pos, end_pos) = draw(games, cfg);
    pb.set_length((mid_pos.len() + end_pos.len()) as u64);
    let indices: Vec<usize> = (0..mid_pos.len() + end_pos.len()).collect();
    ProbcutData::from_measured(measure_some(
        cfg,
        weights,
        (&mid_pos, &end_pos),
        &indices,
        pb,
    ))
}

/// Least squares `y ~ a x + b` of pairs; returns `(a, b, residual sd, n)`.
fn regress(pairs: &[(f64, f64)]) -> (f64, f64, f64, usize) {
    let n = pairs.len() as f64;
    if pairs.len() < 3 {
        return (1.0, 0.0, 0.0, pairs.len());
    }
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let a = if sxx > 0.0 { sxy / sxx } else { 1.0 };
    let b = my - a * mx;
    let sd = (pairs
        .iter()
        .map(|p| (p.1 - a * p.0 - b).powi(2))
        .sum::<f64>()
        / (n - 2.0))
        .sqrt();
    (a, b, sd, pairs.len())
}

/// Weighted least squares of `y ~ c . x` (small dense normal equations).
fn linear_fit(rows: &[(Vec<f64>, f64, f64)]) -> Option<Vec<f64>> {
    let k = rows.first()?.0.len();
    let mut m = vec![vec![0.0; k + 1]; k];
    for (x, y, w) in rows {
        for i in 0..k {
            for j in 0..k {
                m[i][j] += w * x[i] * x[j];
            }
            m[i][k] += w * x[i] * y;
        }
    }
    // Gaussian elimination with partial pivoting.
    for c in 0..k {
        let piv = (c..k).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[piv][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, piv);
        let pivot_row = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot_row[c];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..k).map(|i| m[i][k] / m[i][i]).collect())
}

/// One measured cell of the midgame fit.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Deep depth.
    pub deep: u32,
    /// Shallow depth.
    pub shallow: u32,
    /// Phase.
    pub phase: usize,
    /// Slope and intercept of this cell's own regression.
    pub a: f64,
    /// Intercept.
    pub b: f64,
    /// Residual standard deviation around the pooled regression.
    pub sigma: f64,
    /// Positions.
    pub n: usize,
}

/// Fits the parameters to measured data; also returns the cells for the report.
pub fn fit_params(data: &ProbcutData, max_depth: u32) -> (ProbcutParams, Vec<Cell>) {
    let mut params = ProbcutParams::default();
    // Pooled regression over every depth pair.
    let mut pooled = Vec::new();
    for (_, v) in &data.mid {
        for d in 3..v.len() {
            let s = ProbcutParams::shallow_depth(d as i32) as usize;
            pooled.push((v[s] as f64, v[d] as f64));
        }
    }
    let (a, b, _, _) = regress(&pooled);
    if pooled.len() >= 3 {
        params.a = a;
        params.b = b;
    }
    let mut cells = Vec::new();
    let mut table = vec![[0.0f64; PHASES]; max_depth as usize + 1];
    let mut rows = Vec::new();
    for d in 3..=max_depth as usize {
        let s = ProbcutParams::shallow_depth(d as i32) as usize;
        for (p, slot) in table[d].iter_mut().enumerate() {
            let pairs: Vec<(f64, f64)> = data
                .mid
                .iter()
                .filter(|(e, v)| phase(*e) == p && v.len() > d)
                .map(|(_, v)| (v[s] as f64, v[d] as f64))
                .collect();
            if pairs.len() < 30 {
                continue;
            }
            let (ca, cb, _, n) = regress(&pairs);
            let sigma = (pairs
                .iter()
                .map(|&(x, y)| (y - params.a * x - params.b).powi(2))
                .sum::<f64>()
                / (n as f64 - 1.0))
                .sqrt();
            *slot = sigma;
            let mid_empties = p as f64 * 4.0 + 2.5;
            rows.push((vec![1.0, mid_empties, d as f64, s as f64], sigma, n as f64));
            cells.push(Cell {
                deep: d as u32,
                shallow: s as u32,
                phase: p,
                a: ca,
                b: cb,
                sigma,
                n,
            });
        }
    }
    if let Some(c) = linear_fit(&rows) {
        params.sigma = [c[0], c[1], c[2], c[3]];
    }
    params.sigma_table = table;
    // Endgame: exact score against the shallow search the endgame uses.
    let mut end_rows = Vec::new();
    for &(e, exact, ref v) in &data.end {
        let s = end_shallow_depth(e) as usize;
        if s < v.len() {
            let r = exact as f64 - (params.a * v[s] as f64 + params.b);
            end_rows.push((e, s, r));
        }
    }
    // Group by (empties, shallow) and fit the sigmas.
    let mut groups: std::collections::BTreeMap<(u32, usize), Vec<f64>> = Default::default();
    for &(e, s, r) in &end_rows {
        groups.entry((e, s)).or_default().push(r);
    }
    let erows: Vec<(Vec<f64>, f64, f64)> = groups
        .iter()
        .filter(|(_, r)| r.len() >= 10)
        .map(|(&(e, s), r)| {
            let sd = (r.iter().map(|x| x * x).sum::<f64>() / r.len() as f64).sqrt();
            (vec![1.0, e as f64, s as f64], sd, r.len() as f64)
        })
        .collect();
    let distinct_s: std::collections::BTreeSet<usize> = groups.keys().map(|k| k.1).collect();
    if distinct_s.len() >= 2 {
        if let Some(c) = linear_fit(&erows) {
            params.end_sigma = [c[0], c[1], c[2]];
        }
    } else if let Some(c) = linear_fit(
        &erows
            .iter()
            .map(|(x, y, w)| (vec![x[0], x[1]], *y, *w))
            .collect::<Vec<_>>(),
    ) {
        params.end_sigma = [c[0], c[1], 0.0];
    }
    (params, cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regressions() {
        let pairs: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 2.0 * i as f64 + 1.0)).collect();
        let (a, b, sd, n) = regress(&pairs);
        assert!((a - 2.0).abs() < 1e-9 && (b - 1.0).abs() < 1e-9 && sd < 1e-9 && n == 10);
        let rows: Vec<(Vec<f64>, f64, f64)> = (0..20)
            .map(|i| {
                let x = i as f64;
                (
                    vec![1.0, x, (x * 0.7).sin()],
                    3.0 + 0.5 * x - 2.0 * (x * 0.7).sin(),
                    1.0,
                )
            })
            .collect();
        let c = linear_fit(&rows).unwrap();
        assert!(
            (c[0] - 3.0).abs() < 1e-6 && (c[1] - 0.5).abs() < 1e-6 && (c[2] + 2.0).abs() < 1e-6
        );
    }
}
