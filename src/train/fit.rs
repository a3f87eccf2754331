//! Fitting the weights: one ridge regression per phase, solved by preconditioned conjugate
//! gradients.
//!
//! For phase `p` the rows are the training samples whose empties lie in the phase's range
//! widened by `window` on each side (neighbouring phases lend data, which smooths the weights
//! from one phase to the next); the unknowns are the entries of the phase's block, with
//! symmetric pattern indices tied to their canonical index (so the evaluation is the same for
//! every symmetric image of a position). The loss is
//! `sum_i (x_i . w - y_i)^2 + lambda * |w|^2` (the bias is not penalised), with `y` in discs.
//!
//! One epoch is one conjugate-gradient iteration of every phase: a full pass over its rows.
//! The phases run in parallel on the rayon pool, each sequentially inside, so the result does
//! not depend on the number of threads or their timing.

use super::data::{Sample, is_held_out};
use crate::eval::{LAYOUT, SCALE, Terms, Weights, features_with, pattern, phases_of};
use indicatif::ProgressBar;
use rayon::prelude::*;

/// Settings of a fit.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Conjugate-gradient iterations (passes over the data).
    pub epochs: usize,
    /// L2 penalty per weight, in squared discs (comparable to a count of positions).
    pub lambda: f64,
    /// Extra empties on each side of a phase's range whose positions also train it.
    pub window: u32,
    /// Percentage of games held out (never trained on).
    pub holdout: u32,
    /// Seed of the random subsample when `max_samples` is set.
    pub seed: u64,
    /// Train on at most this many samples (a random subset), if set.
    pub max_samples: Option<usize>,
    /// Empty squares per phase of the weights (4: 15 phases; 1: one per number of empties).
    pub empties_per_phase: u32,
    /// The optional terms fitted beside the patterns (none by default).
    pub terms: Terms,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            epochs: 60,
            lambda: 4.0,
            window: 2,
            holdout: 5,
            seed: 1,
            max_samples: None,
            empties_per_phase: crate::eval::EMPTIES_PER_PHASE,
            terms: Terms::none(),
        }
    }
}

/// The losses after an epoch.
#[derive(Clone, Debug)]
pub struct EpochReport {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Mean squared error on the training rows (all phases), in squared discs.
    pub train_mse: f64,
    /// Mean squared error on the held-out rows, if any.
    pub heldout_mse: Option<f64>,
    /// Per phase: training rows, their mean squared error, held-out rows, their mean squared
    /// error.
    pub phases: Vec<(usize, f64, usize, f64)>,
}

/// Maps every entry of a block (followed by the block of `terms`) to the entry it is tied to.
fn tie_map(terms: &Terms) -> Vec<u32> {
    let mut m: Vec<u32> = (0..(LAYOUT.size + terms.size()) as u32).collect();
    for (f, map) in pattern::canonical_map().iter().enumerate() {
        let off = LAYOUT.offsets[f];
        for (i, &c) in map.iter().enumerate() {
            m[off + i] = (off + c as usize) as u32;
        }
    }
    for (t, off) in terms.iter().zip(terms.offsets()) {
        for (i, &c) in t.ties().unwrap_or(&[]).iter().enumerate() {
            m[LAYOUT.size + off + i] = (LAYOUT.size + off + c as usize) as u32;
        }
    }
    m
}

/// The L2 penalty of entry `j` (almost none for the biases).
fn penalty(j: usize, lambda: f64) -> f64 {
    if (LAYOUT.bias..LAYOUT.size).contains(&j) {
        1e-3
    } else {
        lambda
    }
}

/// The solver state of one phase.
struct PhaseFit {
    terms: Terms,
    rows: Vec<(crate::board::Board, f32)>,
    test: Vec<(crate::board::Board, f32)>,
    /// Current weights (in discs), direction, residual of the normal equations, its
    /// preconditioned version, inverse preconditioner.
    w: Vec<f64>,
    p: Vec<f64>,
    r: Vec<f64>,
    inv_m: Vec<f64>,
    rz: f64,
    /// Data residuals y - Xw per row.
    e: Vec<f64>,
    /// X p per row, from the last pass.
    xp: Vec<f64>,
    done: bool,
}

impl PhaseFit {
    fn new(
        rows: Vec<(crate::board::Board, f32)>,
        test: Vec<(crate::board::Board, f32)>,
        terms: Terms,
        ties: &[u32],
        lambda: f64,
    ) -> PhaseFit {
        let n = ties.len();
        let mut b = vec![0.0; n];
        let mut count = vec![0.0; n];
        let mut f = Vec::new();
        for &(board, y) in &rows {
            features_with(&board, &terms, &mut f);
            for &k in &f {
                let c = ties[k as usize] as usize;
                b[c] += y as f64;
                count[c] += 1.0;
            }
        }
        let inv_m: Vec<f64> = count
            .iter()
            .enumerate()
            .map(|(j, &c)| 1.0 / (c + penalty(j, lambda)))
            .collect();
        let z: Vec<f64> = b.iter().zip(&inv_m).map(|(r, m)| r * m).collect();
        let rz = b.iter().zip(&z).map(|(r, z)| r * z).sum();
        let e = rows.iter().map(|&(_, y)| y as f64).collect();
        let xp = vec![0.0; rows.len()];
        PhaseFit {
            terms,
            rows,
            test,
            w: vec![0.0; n],
            p: z,
            r: b,
            inv_m,
            rz,
            e,
            xp,
            done: false,
        }
    }

    /// One conjugate-gradient iteration.
    fn step(&mut self, ties: &[u32], lambda: f64) {
        if self.done || self.rows.is_empty() {
            return;
        }
        let mut q = vec![0.0; ties.len()];
        let mut f = Vec::new();
        for (i, &(board, _)) in self.rows.iter().enumerate() {
            features_with(&board, &self.terms, &mut f);
            let mut s = 0.0;
            for &k in &f {
                s += self.p[ties[k as usize] as usize];
            }
            for &k in &f {
                q[ties[k as usize] as usize] += s;
            }
            self.xp[i] = s;
        }
        for (j, qj) in q.iter_mut().enumerate() {
            *qj += self.p[j] * penalty(j, lambda);
        }
        let pq: f64 = self.p.iter().zip(&q).map(|(p, q)| p * q).sum();
        if pq <= 0.0 || !pq.is_finite() {
            self.done = true;
            return;
        }
        let alpha = self.rz / pq;
        for (w, p) in self.w.iter_mut().zip(&self.p) {
            *w += alpha * p;
        }
        for (r, q) in self.r.iter_mut().zip(&q) {
            *r -= alpha * q;
        }
        for (e, xp) in self.e.iter_mut().zip(&self.xp) {
            *e -= alpha * xp;
        }
        let z: Vec<f64> = self.r.iter().zip(&self.inv_m).map(|(r, m)| r * m).collect();
        let rz_new: f64 = self.r.iter().zip(&z).map(|(r, z)| r * z).sum();
        let beta = rz_new / self.rz;
        self.rz = rz_new;
        for (p, z) in self.p.iter_mut().zip(&z) {
            *p = z + beta * *p;
        }
        if rz_new == 0.0 {
            self.done = true;
        }
    }

    /// Sum of squared training residuals.
    fn train_sse(&self) -> f64 {
        self.e.iter().map(|e| e * e).sum()
    }

    /// Sum of squared held-out residuals with the current weights.
    fn test_sse(&self, ties: &[u32]) -> f64 {
        let mut f = Vec::new();
        let mut sse = 0.0;
        for &(board, y) in &self.test {
            features_with(&board, &self.terms, &mut f);
            let mut s = 0.0;
            for &k in &f {
                s += self.w[ties[k as usize] as usize];
            }
            sse += (s - y as f64).powi(2);
        }
        sse
    }
}

/// The range of empties whose positions train phase `p` of weights with `per` empties to a
/// phase.
fn phase_range(p: usize, per: u32, window: u32) -> (u32, u32) {
    let lo = p as u32 * per + 1;
    let hi = if p + 1 == phases_of(per) {
        60
    } else {
        lo + per - 1
    };
    (lo.saturating_sub(window).max(1), (hi + window).min(60))
}

/// Fits weights to samples (the held-out games excluded), calling `report` after every
/// epoch. Returns the weights, rounded to 1/[`SCALE`] disc.
pub fn fit(
    samples: &[Sample],
    cfg: &FitConfig,
    pb: &ProgressBar,
    report: &mut dyn FnMut(&EpochReport),
) -> Weights {
    let ties = tie_map(&cfg.terms);
    // A random subsample, if asked, chosen from the seed.
    let mut chosen: Vec<&Sample> = samples.iter().filter(|s| !s.board.is_game_over()).collect();
    if let Some(max) = cfg.max_samples
        && max < chosen.len()
    {
        let mut rng = crate::rng::Rng::new(cfg.seed);
        for i in 0..max {
            let j = i + rng.below((chosen.len() - i) as u64) as usize;
            chosen.swap(i, j);
        }
        chosen.truncate(max);
    }
    let per = cfg.empties_per_phase;
    let phases: Vec<(Vec<_>, Vec<_>)> = (0..phases_of(per))
        .map(|p| {
            let (lo, hi) = phase_range(p, per, cfg.window);
            let (lo0, hi0) = phase_range(p, per, 0);
            let mut rows = Vec::new();
            let mut test = Vec::new();
            for s in &chosen {
                let e = s.board.empty_count();
                if is_held_out(s.game, cfg.holdout) {
                    if (lo0..=hi0).contains(&e) {
                        test.push((s.board, s.score as f32));
                    }
                } else if (lo..=hi).contains(&e) {
                    rows.push((s.board, s.score as f32));
                }
            }
            (rows, test)
        })
        .collect();
    let mut states: Vec<PhaseFit> = phases
        .into_par_iter()
        .map(|(rows, test)| PhaseFit::new(rows, test, cfg.terms.clone(), &ties, cfg.lambda))
        .collect();
    let train_n: usize = states.iter().map(|s| s.rows.len()).sum();
    let test_n: usize = states.iter().map(|s| s.test.len()).sum();
    for epoch in 1..=cfg.epochs {
        states
            .par_iter_mut()
            .for_each(|s| s.step(&ties, cfg.lambda));
        let train: Vec<f64> = states.iter().map(|s| s.train_sse()).collect();
        let test: Vec<f64> = states.par_iter().map(|s| s.test_sse(&ties)).collect();
        let train_sse: f64 = train.iter().sum();
        let test_sse: f64 = test.iter().sum();
        pb.inc(1);
        report(&EpochReport {
            epoch,
            train_mse: train_sse / train_n.max(1) as f64,
            heldout_mse: (test_n > 0).then(|| test_sse / test_n as f64),
            phases: states
                .iter()
                .enumerate()
                .map(|(p, s)| {
                    (
                        s.rows.len(),
                        train[p] / s.rows.len().max(1) as f64,
                        s.test.len(),
                        test[p] / s.test.len().max(1) as f64,
                    )
                })
                .collect(),
        });
    }
    let mut w = Weights::zero_with_terms(per, cfg.terms.clone());
    let units = |x: f64| {
        (x * SCALE as f64)
            .round()
            .clamp(i16::MIN as f64, i16::MAX as f64) as i16
    };
    for (p, s) in states.iter().enumerate() {
        for (j, v) in w.block_mut(p).iter_mut().enumerate() {
            *v = units(s.w[ties[j] as usize]);
        }
        for (j, v) in w.terms_block_mut(p).iter_mut().enumerate() {
            *v = units(s.w[ties[LAYOUT.size + j] as usize]);
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Square};
    use crate::rng::{Rng, random_bit};
    use crate::search::{Engine, EngineConfig};
    use crate::train::data::GameRecord;
    use crate::train::label::{LabelConfig, label_game};

    /// Random games whose result favours the side with more corners at the end.
    fn synthetic_samples(n: usize) -> Vec<Sample> {
        let mut rng = Rng::new(7);
        let engine = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: 1,
        });
        let cfg = LabelConfig {
            exact_empties: 0,
            hash_mb: 1,
            ..LabelConfig::default()
        };
        let mut out = Vec::new();
        for _ in 0..n {
            let mut b = Board::start();
            let mut moves = Vec::new();
            while !b.is_game_over() {
                if b.moves() == 0 {
                    b = b.passed();
                    continue;
                }
                let sq = random_bit(&mut rng, b.moves());
                moves.push(Square::new(sq as u8).unwrap());
                b = b.play(Square::new(sq as u8).unwrap()).unwrap();
            }
            let black_to_move = moves.len() % 2 == 0;
            let _ = black_to_move;
            let g = GameRecord {
                moves,
                final_black: 0,
                theoretical: None,
                opening: 0,
            };
            let pos = g.positions().unwrap();
            let (last, black) = *pos.last().unwrap();
            let fb = if black {
                last.final_score()
            } else {
                -last.final_score()
            };
            let g = GameRecord {
                final_black: fb,
                ..g
            };
            out.extend(label_game(&engine, &g, &cfg));
        }
        out
    }

    #[test]
    fn fitting_reduces_the_loss() {
        let samples = synthetic_samples(300);
        let cfg = FitConfig {
            epochs: 8,
            holdout: 0,
            ..FitConfig::default()
        };
        let mut losses = Vec::new();
        let w = fit(&samples, &cfg, &ProgressBar::hidden(), &mut |r| {
            losses.push(r.train_mse)
        });
        assert!(losses.last().unwrap() < &(losses[0] * 0.9), "{losses:?}");
        let mse0: f64 = samples
            .iter()
            .filter(|s| !s.board.is_game_over())
            .map(|s| (s.score as f64).powi(2))
            .sum::<f64>()
            / samples.len() as f64;
        assert!(losses[0] < mse0, "{} {mse0}", losses[0]);
        // One phase per number of empties fits too, each phase on its own positions and
        // its neighbours'.
        let fine = fit(
            &samples,
            &FitConfig {
                empties_per_phase: 1,
                ..cfg.clone()
            },
            &ProgressBar::hidden(),
            &mut |_| {},
        );
        assert_eq!(fine.phases(), 60);
        let sse = |w: &Weights| -> f64 {
            samples
                .iter()
                .filter(|s| !s.board.is_game_over())
                .map(|s| (w.evaluate_units(&s.board) as f64 / 64.0 - s.score as f64).powi(2))
                .sum::<f64>()
                / samples.len() as f64
        };
        assert!(sse(&fine) < mse0 * 0.9, "{} {mse0}", sse(&fine));
        assert_ne!(fine.block(10), fine.block(11));
        // With every optional term: the terms are fitted (not left at zero) and fit the
        // training rows at least as well as the patterns alone.
        let mut whole_losses = Vec::new();
        let whole = fit(
            &samples,
            &FitConfig {
                terms: Terms::new(&crate::eval::Term::ALL),
                ..cfg.clone()
            },
            &ProgressBar::hidden(),
            &mut |r| whole_losses.push(r.train_mse),
        );
        assert_eq!(whole.terms(), &Terms::new(&crate::eval::Term::ALL));
        assert!((0..whole.phases()).all(|p| whole.terms_block(p).len() == whole.terms().size()));
        assert!((0..whole.phases()).any(|p| whole.terms_block(p).iter().any(|&v| v != 0)));
        assert!(
            whole_losses.last() <= losses.last(),
            "{whole_losses:?} {losses:?}"
        );
        // The weights are symmetric, and the same fit gives the same weights.
        let w2 = fit(&samples, &cfg, &ProgressBar::hidden(), &mut |_| {});
        assert_eq!(w, w2);
        for s in samples.iter().step_by(97) {
            for w in [&w, &whole] {
                let v = w.evaluate_units(&s.board);
                for sym in crate::board::Symmetry::ALL {
                    assert_eq!(w.evaluate_units(&s.board.transformed(sym)), v);
                }
            }
        }
    }
}
