//! Calibration of the evaluation's two parity biases on solved positions (docs/training.md,
//! "Calibration").
//!
//! The per-phase biases of a fit make the mean error zero on the training positions at each
//! parity of the empties, but the positions at a search's leaves are not those, and the
//! difference is not the same at both parities. Model the evaluation's error at a leaf, for
//! the side to move there, as `a + b` at even empties and `a - b` at odd ones. A search to
//! depth `d` from a root with `E` empties (no passes on the way) then errs, for the root's side
//! to move, by `(-1)^d a + (-1)^E b`: `a` makes consecutive depths disagree, `b` an offset of
//! opposite signs at even and odd roots. [`ParityErrors::fit`] measures `a` and `b` by least
//! squares from the errors of fixed-depth searches of exactly solved positions, and
//! [`shift_biases`] takes them out of every phase's two bias entries.

use super::data::GameRecord;
use super::label::map_with_engines;
use crate::accuracy::{AccuracyError, measure};
use crate::board::{Color, Position};
use crate::eval::{LAYOUT, SCALE, Weights};
use crate::notation::ObfEntry;
use crate::search::{Engine, EngineConfig, Limits, ProbcutParams, Selectivity, Solve};
use indicatif::ProgressBar;
use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;

/// The calibration step of `train all` (and the defaults of `train calibrate`): self-play
/// games of the weights to calibrate, positions drawn from them and solved, and the depths of
/// the searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalibrateConfig {
    /// Self-play games to draw the positions from.
    pub games: usize,
    /// Seed of those games.
    pub seed: u64,
    /// Search depth of those games.
    pub game_depth: u32,
    /// The numbers of empties of the positions drawn.
    pub empties: Vec<u32>,
    /// Positions drawn at each number of empties.
    pub count: usize,
    /// Depths of the searches.
    pub depths: RangeInclusive<u32>,
    /// Transposition table of each engine, in megabytes.
    pub hash_mb: usize,
}

impl Default for CalibrateConfig {
    fn default() -> Self {
        CalibrateConfig {
            games: 400,
            seed: 9001,
            game_depth: 6,
            empties: vec![20, 25],
            count: 150,
            depths: 10..=13,
            hash_mb: 64,
        }
    }
}

/// Why a calibration cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalibrateError {
    /// No position to measure.
    NoPositions,
    /// No depth to search (the depths start at 1).
    NoDepths,
    /// No game has a position at this number of empties with a move to play.
    NoPositionAt {
        /// The number of empties.
        empties: u32,
        /// The games looked through.
        games: usize,
    },
    /// A depth reaches a position's empties: that search solves it and measures nothing.
    DepthSolves {
        /// The depth.
        depth: u32,
        /// The fewest empties of a position.
        empties: u32,
    },
    /// The errors cannot tell `a` from `b`: the parity of the depth and that of the root's
    /// empties go together in every search (one depth from roots of one parity, say).
    NotSeparable,
}

impl fmt::Display for CalibrateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalibrateError::NoPositions => write!(f, "no position to calibrate on"),
            CalibrateError::NoDepths => write!(f, "no depth to search: the depths start at 1"),
            CalibrateError::NoPositionAt { empties, games } => write!(
                f,
                "no position with {empties} empties and a move in the {games} game{}",
                if *games == 1 { "" } else { "s" }
            ),
            CalibrateError::DepthSolves { depth, empties } => write!(
                f,
                "depth {depth} solves the positions of {empties} empties: the depths must stay \
                 below the fewest empties"
            ),
            CalibrateError::NotSeparable => write!(
                f,
                "the searches cannot tell the side to move's error from the parity's (the \
                 parities of the depth and of the empties go together): give depths of both \
                 parities (e.g. 10-13) and positions at an even and an odd number of empties \
                 (e.g. 20,25)"
            ),
        }
    }
}

impl std::error::Error for CalibrateError {}

/// The first `count` distinct positions at each of `empties` empty squares met in `games`
/// (game by game, in order), each with a legal move for its side to move, in the order of
/// `empties`; an error names a number of empties no game has such a position at.
pub fn draw_positions(
    games: &[GameRecord],
    empties: &[u32],
    count: usize,
) -> Result<Vec<Position>, CalibrateError> {
    let mut out = Vec::new();
    for &e in empties {
        let before = out.len();
        let mut seen = std::collections::HashSet::new();
        let at_e = games
            .iter()
            .filter_map(GameRecord::positions)
            .flatten()
            .filter(|(b, _)| b.empty_count() == e && b.moves() != 0)
            .filter(|(b, _)| seen.insert(*b))
            .take(count);
        out.extend(at_e.map(|(board, black)| Position {
            board,
            to_move: if black { Color::Black } else { Color::White },
        }));
        if out.len() == before {
            return Err(CalibrateError::NoPositionAt {
                empties: e,
                games: games.len(),
            });
        }
    }
    Ok(out)
}

/// Each position solved exactly on the current rayon pool (one engine with `hash_mb` of
/// table per thread): an OBF entry scoring its best move. `pb` counts the positions.
pub fn solve_positions(positions: &[Position], hash_mb: usize, pb: &ProgressBar) -> Vec<ObfEntry> {
    let make = || {
        Engine::new(EngineConfig {
            threads: 1,
            hash_mb,
        })
    };
    let exact = Limits {
        solve: Some(Solve::Exact),
        ..Limits::default()
    };
    map_with_engines(positions, &make, &|engine, p| {
        engine.clear_hash();
        let info = engine.search(p.board, &exact, &mut |_| {});
        let line = info.best().expect("a drawn position has a legal move");
        pb.inc(1);
        ObfEntry {
            position: *p,
            scores: vec![(line.mv, line.score)],
        }
    })
}

/// The engine a calibration measures: one thread, its weights and probcut parameters (as
/// the search uses them: [`ProbcutParams::searched_from`]).
#[derive(Clone)]
pub struct Measuring {
    /// The weights.
    pub weights: Arc<Weights>,
    /// The probcut parameters (default: the shipped ones).
    pub probcut: Option<ProbcutParams>,
    /// Transposition table of each engine, in megabytes.
    pub hash_mb: usize,
    /// Selectivity of the searches.
    pub selectivity: Selectivity,
}

impl Measuring {
    /// A one-thread engine with these weights and probcut parameters.
    pub fn engine(&self) -> Engine {
        let mut e = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: self.hash_mb,
        });
        e.set_eval(self.weights.clone());
        if let Some(p) = &self.probcut {
            e.set_probcut(p.clone());
        }
        e
    }
}

/// The error of one fixed-depth search of a solved position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    /// The search's depth.
    pub depth: u32,
    /// The position's empty squares.
    pub empties: u32,
    /// The search's score minus the exact score, for the side to move.
    pub error: i32,
}

/// Checks that `depths` can calibrate on `entries`: some position, every depth below the
/// fewest empties, and the parts separable ([`check_plan`] on the entries' numbers of
/// empties).
pub fn check_depths(
    entries: &[ObfEntry],
    depths: &RangeInclusive<u32>,
) -> Result<(), CalibrateError> {
    let empties: Vec<u32> = entries
        .iter()
        .map(|e| e.position.board.empty_count())
        .collect();
    check_plan(&empties, depths)
}

/// Checks, before any position is drawn or solved, that searches to `depths` from roots
/// with `empties` empty squares can calibrate: some roots, every depth below the fewest
/// empties, and both parities of depth + empties among the searches (with only one, the
/// parity of the depth and that of the root go together, or against each other, in every
/// search, and [`ParityErrors::fit`] cannot tell `a` from `b`).
pub fn check_plan(empties: &[u32], depths: &RangeInclusive<u32>) -> Result<(), CalibrateError> {
    let fewest = *empties.iter().min().ok_or(CalibrateError::NoPositions)?;
    if depths.is_empty() {
        return Err(CalibrateError::NoDepths);
    }
    if *depths.end() >= fewest {
        return Err(CalibrateError::DepthSolves {
            depth: *depths.end(),
            empties: fewest,
        });
    }
    let mut kinds = [false; 2];
    for &e in empties {
        for d in depths.clone().take(2) {
            kinds[((e + d) % 2) as usize] = true;
        }
    }
    if kinds != [true, true] {
        return Err(CalibrateError::NotSeparable);
    }
    Ok(())
}

/// Searches every entry to every depth of `depths` (a cleared table before each search, as
/// `outflank accuracy` does), on the current rayon pool; the errors in entry order, depth by
/// depth. `pb` counts the searches.
pub fn measure_all(
    entries: &[ObfEntry],
    depths: RangeInclusive<u32>,
    m: &Measuring,
    pb: &ProgressBar,
) -> Result<Vec<Measured>, AccuracyError> {
    let jobs: Vec<(usize, u32)> = (0..entries.len())
        .flat_map(|i| depths.clone().map(move |d| (i, d)))
        .collect();
    let make = || m.engine();
    let results = map_with_engines(&jobs, &make, &|engine, &(i, depth)| {
        let j = measure(engine, &entries[i], depth, m.selectivity);
        pb.inc(1);
        j.map(|j| Measured {
            depth,
            empties: entries[i].position.board.empty_count(),
            error: j.error(),
        })
    });
    results.into_iter().collect()
}

/// A calibration: the errors of the searches, the model fitted to them, and the weights
/// with the model's shifts.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The errors of the searches with the weights before.
    pub measured: Vec<Measured>,
    /// The model fitted to them.
    pub model: ParityErrors,
    /// The weights searched with, their biases shifted by [`ParityErrors::shifts`].
    pub weights: Weights,
}

/// Calibrates `m`'s weights on `entries`: the depths checked ([`check_depths`]), every entry
/// searched to every depth ([`measure_all`], `pb` counting the searches), the model fitted
/// and its shifts applied.
pub fn calibrate(
    entries: &[ObfEntry],
    depths: &RangeInclusive<u32>,
    m: &Measuring,
    pb: &ProgressBar,
) -> anyhow::Result<Calibration> {
    check_depths(entries, depths)?;
    let measured = measure_all(entries, depths.clone(), m, pb)?;
    let model = ParityErrors::fit(&measured)?;
    let (even, odd) = model.shifts();
    let mut weights = (*m.weights).clone();
    shift_biases(&mut weights, even, odd);
    Ok(Calibration {
        measured,
        model,
        weights,
    })
}

/// `+1` for an even number, `-1` for an odd one.
fn sign(n: u32) -> f64 {
    if n.is_multiple_of(2) { 1.0 } else { -1.0 }
}

/// The evaluation's error at a search's leaves, for the side to move there, in discs: `a + b`
/// at even empties, `a - b` at odd ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParityErrors {
    /// The part that follows the side to move.
    pub a: f64,
    /// The part that follows the parity of the empties.
    pub b: f64,
}

impl ParityErrors {
    /// The least-squares fit of the model to the errors of searches (best from roots of both
    /// parities at depths of both parities; it needs one of the two to vary apart from the
    /// other).
    pub fn fit(m: &[Measured]) -> Result<ParityErrors, CalibrateError> {
        if m.is_empty() {
            return Err(CalibrateError::NoPositions);
        }
        let (mut ss, mut sp, mut pp, mut sy, mut py) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for x in m {
            let (s, p, y) = (sign(x.depth), sign(x.empties), f64::from(x.error));
            ss += s * s;
            sp += s * p;
            pp += p * p;
            sy += s * y;
            py += p * y;
        }
        let det = ss * pp - sp * sp;
        // Both kinds of roots and depths in some number, not one in a thousand.
        if det <= 1e-3 * ss * pp {
            return Err(CalibrateError::NotSeparable);
        }
        Ok(ParityErrors {
            a: (sy * pp - py * sp) / det,
            b: (py * ss - sy * sp) / det,
        })
    }

    /// The model's error of a search to `depth` from a root with `empties` empty squares.
    pub fn predict(&self, depth: u32, empties: u32) -> f64 {
        sign(depth) * self.a + sign(empties) * self.b
    }

    /// The error at the leaves with `empties` empty squares, for the side to move there.
    pub fn at_leaf(&self, empties: u32) -> f64 {
        self.a + sign(empties) * self.b
    }

    /// What to add to the bias entries to take the errors out, in units of 1/[`SCALE`] disc:
    /// (even empties, odd empties).
    pub fn shifts(&self) -> (i32, i32) {
        let units = |x: f64| -(x * f64::from(SCALE)).round() as i32;
        (units(self.at_leaf(0)), units(self.at_leaf(1)))
    }
}

/// Adds `even` to the bias entry of even empties and `odd` to that of odd empties in every
/// phase (units of 1/[`SCALE`] disc, saturating): the evaluation of every position moves by
/// exactly that (as far as the entry does not saturate).
pub fn shift_biases(w: &mut Weights, even: i32, odd: i32) {
    for p in 0..w.phases() {
        let block = w.block_mut(p);
        for (k, by) in [(0, even), (1, odd)] {
            let e = &mut block[LAYOUT.bias + k];
            *e = (i32::from(*e) + by).clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        }
    }
}

/// The errors of the searches of one depth from roots of one parity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// The depth.
    pub depth: u32,
    /// True for roots with an odd number of empties.
    pub odd: bool,
    /// Searches.
    pub count: usize,
    /// Mean signed error, in discs.
    pub mean: f64,
    /// Mean absolute error, in discs.
    pub mae: f64,
}

/// The errors grouped by depth, then by the roots' parity (even first); empty groups left out.
pub fn cells(m: &[Measured]) -> Vec<Cell> {
    let mut keys: Vec<(u32, bool)> = m.iter().map(|x| (x.depth, x.empties % 2 == 1)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|(depth, odd)| {
            let errs: Vec<i32> = m
                .iter()
                .filter(|x| x.depth == depth && (x.empties % 2 == 1) == odd)
                .map(|x| x.error)
                .collect();
            let n = errs.len() as f64;
            Cell {
                depth,
                odd,
                count: errs.len(),
                mean: errs.iter().map(|&e| f64::from(e)).sum::<f64>() / n,
                mae: errs.iter().map(|&e| f64::from(e.abs())).sum::<f64>() / n,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Errors that follow the model exactly for `a` and `b`, at depths 4-7 from roots of 20
    /// and 25 empties, with some roots counted twice.
    fn exact_errors(a: f64, b: f64) -> Vec<Measured> {
        let truth = ParityErrors { a, b };
        let mut m = Vec::new();
        for (empties, copies) in [(20, 3), (25, 1)] {
            for depth in 4..=7 {
                for _ in 0..copies {
                    m.push(Measured {
                        depth,
                        empties,
                        error: truth.predict(depth, empties) as i32,
                    });
                }
            }
        }
        m
    }

    #[test]
    fn the_fit_finds_the_model_it_was_given() {
        for (a, b) in [(-1.0, 3.0), (2.0, 0.0), (0.0, -4.0), (5.0, 1.0)] {
            let f = ParityErrors::fit(&exact_errors(a, b)).unwrap();
            assert!(
                (f.a - a).abs() < 1e-9 && (f.b - b).abs() < 1e-9,
                "{a} {b}: {f:?}"
            );
        }
        // E's figures of docs/benchmarks.md: 0.1 high at even empties, 0.64 low at odd.
        let e = ParityErrors { a: -0.27, b: 0.37 };
        assert_eq!(e.shifts(), (-6, 41));
        assert!((e.predict(14, 25) - (-0.27 - 0.37)).abs() < 1e-12);
        assert!((e.predict(13, 20) - (0.27 + 0.37)).abs() < 1e-12);
    }

    #[test]
    fn empties_no_game_reaches_are_refused() {
        assert_eq!(
            draw_positions(&[], &[20, 25], 5),
            Err(CalibrateError::NoPositionAt {
                empties: 20,
                games: 0
            })
        );
        assert!(
            CalibrateError::NoPositionAt {
                empties: 20,
                games: 1
            }
            .to_string()
            .ends_with("in the 1 game")
        );
    }

    #[test]
    fn a_plan_is_checked_before_any_position_is_solved() {
        assert_eq!(check_plan(&[20, 25], &(10..=13)), Ok(()));
        // One depth from roots of both parities, or depths of both parities from one.
        assert_eq!(check_plan(&[20, 25], &(12..=12)), Ok(()));
        assert_eq!(check_plan(&[20], &(10..=11)), Ok(()));
        // One depth from roots of one parity cannot separate the parts.
        assert_eq!(
            check_plan(&[20, 22], &(12..=12)),
            Err(CalibrateError::NotSeparable)
        );
        assert_eq!(
            check_plan(&[20, 25], &(20..=21)),
            Err(CalibrateError::DepthSolves {
                depth: 21,
                empties: 20
            })
        );
        assert_eq!(
            check_plan(&[], &(10..=13)),
            Err(CalibrateError::NoPositions)
        );
        #[allow(clippy::reversed_empty_ranges)]
        let none = 13..=10;
        assert_eq!(check_plan(&[20, 25], &none), Err(CalibrateError::NoDepths));
    }

    #[test]
    fn the_fit_refuses_what_cannot_separate_the_parts() {
        assert_eq!(ParityErrors::fit(&[]), Err(CalibrateError::NoPositions));
        // One depth from roots of both parities, or depths of both parities from roots of
        // one: each separates the parts.
        for keep in [|x: &Measured| x.depth == 6, |x: &Measured| x.empties == 20] {
            let some: Vec<Measured> = exact_errors(1.0, 2.0).into_iter().filter(keep).collect();
            let f = ParityErrors::fit(&some).unwrap();
            assert!(
                (f.a - 1.0).abs() < 1e-9 && (f.b - 2.0).abs() < 1e-9,
                "{f:?}"
            );
        }
        // One depth from roots of one parity cannot.
        let one: Vec<Measured> = exact_errors(1.0, 2.0)
            .into_iter()
            .filter(|x| x.depth == 6 && x.empties == 25)
            .collect();
        assert_eq!(ParityErrors::fit(&one), Err(CalibrateError::NotSeparable));
        // Even depths from even roots, odd from odd: the two go together.
        let together: Vec<Measured> = exact_errors(1.0, 2.0)
            .into_iter()
            .filter(|x| x.depth % 2 == x.empties % 2)
            .collect();
        assert_eq!(
            ParityErrors::fit(&together),
            Err(CalibrateError::NotSeparable)
        );
        assert!(
            CalibrateError::NotSeparable
                .to_string()
                .contains("both parities")
        );
    }

    #[test]
    fn a_shift_moves_every_evaluation_by_its_parity_entry() {
        let w = crate::eval::shipped_weights();
        let mut shifted = (*w).clone();
        shift_biases(&mut shifted, -7, 41);
        let mut b = crate::board::Position::start().board;
        for _ in 0..40 {
            if b.moves() == 0 {
                break;
            }
            let by = if b.empty_count().is_multiple_of(2) {
                -7
            } else {
                41
            };
            assert_eq!(
                shifted.evaluate_units(&b),
                w.evaluate_units(&b) + by,
                "{} empties",
                b.empty_count()
            );
            let first = crate::board::Square::first_of(b.moves());
            b = b.play(first).unwrap();
        }
        // Nothing else moved.
        let mut back = shifted.clone();
        shift_biases(&mut back, 7, -41);
        assert_eq!(back, *w);
    }

    #[test]
    fn cells_group_by_depth_and_parity() {
        let m = [
            Measured {
                depth: 4,
                empties: 20,
                error: 2,
            },
            Measured {
                depth: 4,
                empties: 20,
                error: -4,
            },
            Measured {
                depth: 4,
                empties: 25,
                error: 3,
            },
            Measured {
                depth: 5,
                empties: 25,
                error: -1,
            },
        ];
        let c = cells(&m);
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].depth, c[0].odd, c[0].count), (4, false, 2));
        assert_eq!((c[0].mean, c[0].mae), (-1.0, 3.0));
        assert_eq!((c[1].depth, c[1].odd, c[1].mean), (4, true, 3.0));
        assert_eq!((c[2].depth, c[2].odd, c[2].mae), (5, true, 1.0));
    }
}
