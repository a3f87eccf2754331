//! Self-play: games of the engine against itself from randomised openings, for training data
//! that covers more kinds of positions than tournament games do.
//!
//! Game `i` of a run with seed `s` draws its randomness from `Rng::new(s ^ i * K)`: a random
//! number of random opening moves, then fixed-depth searches with, now and then, a random move
//! instead of the best one; the endgame is solved exactly. Each game starts with an empty hash
//! table and searches on one thread, so the games depend only on the seed and the weights.

use super::data::{GameRecord, map_with_engines};
use crate::board::{Board, Move, Square};
use crate::eval::Weights;
use crate::notation::{WthorFile, WthorGame, WthorHeader};
use crate::rng::{Rng, random_bit};
use crate::search::{Engine, EngineConfig, Limits, Solve};
use indicatif::ProgressBar;
use std::sync::Arc;

/// Settings of a self-play run.
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    /// Number of games.
    pub games: usize,
    /// Midgame search depth.
    pub depth: u32,
    /// Positions with at most this many empties are played by an exact solve.
    pub solve_empties: u32,
    /// Random opening moves: at least this many...
    pub min_random: u32,
    /// ... and at most this many.
    pub max_random: u32,
    /// Chance of a random move instead of the searched one after the opening.
    pub epsilon: f64,
    /// Seed of the run.
    pub seed: u64,
    /// Hash table of each engine, in MB.
    pub hash_mb: usize,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games: 1000,
            depth: 6,
            solve_empties: 14,
            min_random: 6,
            max_random: 24,
            epsilon: 0.03,
            seed: 1,
            hash_mb: 8,
        }
    }
}

/// Plays one game with `engine` (whose hash table is cleared first).
pub fn play_game(engine: &Engine, cfg: &SelfPlayConfig, index: usize) -> GameRecord {
    engine.clear_hash();
    let mut rng = Rng::new(cfg.seed ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    let random = cfg.min_random + rng.below((cfg.max_random - cfg.min_random + 1) as u64) as u32;
    let mut b = Board::start();
    let mut black = true;
    let mut moves: Vec<Square> = Vec::new();
    loop {
        let legal = b.moves();
        if legal == 0 {
            if b.opponent_moves() == 0 {
                break;
            }
            b = b.passed();
            black = !black;
            continue;
        }
        let sq = if (moves.len() as u32) < random || rng.unit() < cfg.epsilon {
            random_bit(&mut rng, legal)
        } else {
            let limits = if b.empty_count() <= cfg.solve_empties {
                Limits {
                    solve: Some(Solve::Exact),
                    ..Limits::default()
                }
            } else {
                Limits {
                    depth: Some(cfg.depth),
                    ..Limits::default()
                }
            };
            let info = engine.search(b, &limits, &mut |_| {});
            match info.best().map(|l| l.mv) {
                Some(Move::Play(s)) => s.index(),
                _ => random_bit(&mut rng, legal),
            }
        };
        let s = Square::new(sq as u8).expect("a square");
        moves.push(s);
        b = b.play(s).expect("a legal move");
        black = !black;
    }
    let score = b.final_score();
    GameRecord {
        moves,
        final_black: if black { score } else { -score },
        theoretical: None,
    }
}

/// Plays `cfg.games` games with `weights` on the current rayon pool, in game order.
pub fn self_play(cfg: &SelfPlayConfig, weights: Arc<Weights>, pb: &ProgressBar) -> Vec<GameRecord> {
    let indices: Vec<usize> = (0..cfg.games).collect();
    self_play_games(cfg, weights, &indices, pb)
}

/// Plays the games of the run `cfg` whose indices are given (a shard's part of the run), in
/// that order, on the current rayon pool. Game `i` is the same game whichever other games
/// are played, by this process or another.
pub fn self_play_games(
    cfg: &SelfPlayConfig,
    weights: Arc<Weights>,
    indices: &[usize],
    pb: &ProgressBar,
) -> Vec<GameRecord> {
    let make = || {
        let mut e = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: cfg.hash_mb,
        });
        e.set_eval(weights.clone());
        e
    };
    map_with_engines(indices, &make, &|engine, &i| {
        let g = play_game(engine, cfg, i);
        pb.inc(1);
        g
    })
}

/// The settings of a run that change its games, as text (the games' count excepted), with
/// `weights` naming the weights played with: every shard of a run must have the same.
pub fn run_params(cfg: &SelfPlayConfig, weights: &str) -> String {
    format!(
        "depth={} solve_empties={} random={}-{} epsilon={} hash_mb={} weights={weights}",
        cfg.depth, cfg.solve_empties, cfg.min_random, cfg.max_random, cfg.epsilon, cfg.hash_mb
    )
}

/// A game as a shard item's bytes: black's final disc difference (i8), then the squares
/// played (0-63), passes left out.
pub fn encode_game(g: &GameRecord) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + g.moves.len());
    out.push(g.final_black.clamp(-64, 64) as i8 as u8);
    out.extend(g.moves.iter().map(|s| s.index() as u8));
    out
}

/// The game of a shard item's bytes ([`encode_game`]); `None` when they are not a legal game.
pub fn decode_game(bytes: &[u8]) -> Option<GameRecord> {
    let (&score, moves) = bytes.split_first()?;
    let moves = moves
        .iter()
        .map(|&b| Square::new(b))
        .collect::<Option<Vec<Square>>>()?;
    let g = GameRecord {
        moves,
        final_black: score as i8 as i32,
        theoretical: None,
    };
    g.positions()?;
    Some(g)
}

/// The games as a WTHOR file (no theoretical scores: depth 0; the final score counts the
/// empty squares for the winner).
pub fn to_wthor(games: &[GameRecord]) -> WthorFile {
    WthorFile {
        header: WthorHeader {
            game_count: games.len() as u32,
            board_size: 8,
            ..WthorHeader::default()
        },
        games: games
            .iter()
            .map(|g| {
                let discs = ((g.final_black + 64) / 2).clamp(0, 64) as u8;
                WthorGame {
                    tournament: 0,
                    black: 0,
                    white: 0,
                    black_discs: discs,
                    theoretical: discs,
                    moves: g.moves.clone(),
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_play_is_reproducible_and_legal() {
        let cfg = SelfPlayConfig {
            games: 2,
            depth: 2,
            solve_empties: 8,
            hash_mb: 1,
            ..SelfPlayConfig::default()
        };
        let w = Arc::new(Weights::hand_set());
        let a = self_play(&cfg, w.clone(), &ProgressBar::hidden());
        let b = self_play(&cfg, w, &ProgressBar::hidden());
        assert_eq!(a, b);
        for g in &a {
            assert!(g.positions().is_some());
            assert!(g.moves.len() > 40);
        }
        assert_ne!(a[0].moves, a[1].moves);
        let file = to_wthor(&a);
        let back = crate::notation::parse_wtb(&crate::notation::write_wtb(&file)).unwrap();
        let g0 = GameRecord::from_wthor(&back.games[0], back.header.depth);
        assert_eq!(g0, a[0]);
    }
}
