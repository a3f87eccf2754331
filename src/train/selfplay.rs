//! Self-play: games of the engine against itself from randomised openings, for training data
//! that covers more kinds of positions than tournament games do.
//!
//! Game `i` of a run with seed `s` draws its randomness from `Rng::new(s ^ i * K)`: an opening
//! (a random number of random moves, or line `i mod count` of an openings file), then
//! searches at a fixed depth or at a level ([`Level::limits`]: midgame depth and an exact
//! endgame) with, now and then, a random move instead of the best one. Each game starts with
//! an empty hash table and searches on one thread, so the games depend only on the seed, the
//! settings and the weights.
//!
//! Each game records how many of its plies are the opening ([`GameRecord::opening`]): the
//! positions inside it are chosen at random, not played, and labelling leaves them out.

use super::data::GameRecord;
use super::label::map_with_engines;
use crate::board::{Board, Move, Square};
use crate::eval::Weights;
use crate::notation::{WthorFile, WthorGame, WthorHeader};
use crate::rng::{Rng, random_bit};
use crate::search::{Engine, EngineConfig, Level, Limits, ProbcutParams, Solve};
use indicatif::ProgressBar;
use std::sync::Arc;

/// Settings of a self-play run.
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    /// Number of games.
    pub games: usize,
    /// Midgame search depth (without a level).
    pub depth: u32,
    /// Positions with at most this many empties are played by an exact solve (without a
    /// level).
    pub solve_empties: u32,
    /// Search at this level instead ([`Level::limits`]: its midgame depth, selectivity and
    /// solves); `depth` and `solve_empties` are then unused.
    pub level: Option<u32>,
    /// Opening lines (squares from the start position): game `i` plays line `i mod count`
    /// instead of random moves. Empty: random openings.
    pub openings: Arc<Vec<Vec<Square>>>,
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
    /// The probcut parameters to search with (as [`ProbcutParams::searched_from`] uses a
    /// fitted set); `None`: the shipped ones.
    pub probcut: Option<ProbcutParams>,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games: 1000,
            depth: 6,
            solve_empties: 14,
            level: None,
            openings: Arc::new(Vec::new()),
            min_random: 6,
            max_random: 24,
            epsilon: 0.03,
            seed: 1,
            hash_mb: 8,
            probcut: None,
        }
    }
}

/// Plays one game with `engine` (whose hash table is cleared first).
pub fn play_game(engine: &Engine, cfg: &SelfPlayConfig, index: usize) -> GameRecord {
    engine.clear_hash();
    let mut rng = Rng::new(cfg.seed ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    let random = cfg.min_random + rng.below((cfg.max_random - cfg.min_random + 1) as u64) as u32;
    let line: &[Square] = match cfg.openings.len() {
        0 => &[],
        n => &cfg.openings[index % n],
    };
    let opening = if line.is_empty() {
        random
    } else {
        line.len() as u32
    };
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
        let played = moves.len();
        let sq = if let Some(&s) = line.get(played).filter(|s| (legal >> s.index()) & 1 == 1) {
            s.index()
        } else if (played as u32) < opening || rng.unit() < cfg.epsilon {
            random_bit(&mut rng, legal)
        } else {
            let limits = if let Some(level) = cfg.level {
                Level::new(level).limits(b.empty_count())
            } else if b.empty_count() <= cfg.solve_empties {
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
        opening: opening.min(moves.len() as u32),
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
        if let Some(p) = &cfg.probcut {
            e.set_probcut(ProbcutParams::searched_from(p.clone()));
        }
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
    let search = match cfg.level {
        Some(l) => format!("level={}", Level::new(l)),
        None => format!("depth={} solve_empties={}", cfg.depth, cfg.solve_empties),
    };
    let opening = if cfg.openings.is_empty() {
        format!("random={}-{}", cfg.min_random, cfg.max_random)
    } else {
        format!("openings={}", openings_id(&cfg.openings))
    };
    format!(
        "{search} {opening} epsilon={} hash_mb={} weights={weights}",
        cfg.epsilon, cfg.hash_mb
    )
}

/// The identity of a list of opening lines: the sha256 of their squares, a line's end
/// marked by 255.
pub fn openings_id(lines: &[Vec<Square>]) -> String {
    let bytes: Vec<u8> = lines
        .iter()
        .flat_map(|l| l.iter().map(|s| s.index() as u8).chain([255]))
        .collect();
    crate::shard::sha256_hex(&bytes)
}

/// The opening lines of a text of transcripts, one a line (blank lines skipped), each from
/// the start position; the error names the line.
pub fn parse_openings(text: &str) -> Result<Vec<Vec<Square>>, String> {
    let mut out = Vec::new();
    for (n, line) in crate::notation::without_bom(text).lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let game = crate::notation::parse_transcript(line.trim())
            .map_err(|e| format!("line {}: {e}", n + 1))?;
        if game.start() != crate::board::Position::start() {
            return Err(format!("line {}: not from the start position", n + 1));
        }
        out.push(
            game.moves()
                .iter()
                .filter_map(|m| match m {
                    Move::Play(s) => Some(*s),
                    Move::Pass => None,
                })
                .collect(),
        );
    }
    Ok(out)
}

/// The first byte of a game item that records its opening (a score byte is never -128).
const WITH_OPENING: u8 = 0x80;

/// A game as a shard item's bytes: a marker byte (0x80), the opening's plies (u8), black's
/// final disc difference (i8), then the squares played (0-63), passes left out.
pub fn encode_game(g: &GameRecord) -> Vec<u8> {
    let mut out = Vec::with_capacity(3 + g.moves.len());
    out.push(WITH_OPENING);
    out.push(g.opening.min(60) as u8);
    out.push(g.final_black.clamp(-64, 64) as i8 as u8);
    out.extend(g.moves.iter().map(|s| s.index() as u8));
    out
}

/// The game of a shard item's bytes ([`encode_game`], or the older items without the
/// marker and opening: an opening of 0); `None` when they are not a legal game.
pub fn decode_game(bytes: &[u8]) -> Option<GameRecord> {
    let (opening, bytes) = match bytes {
        [WITH_OPENING, opening, rest @ ..] => (*opening as u32, rest),
        _ => (0, bytes),
    };
    let (&score, moves) = bytes.split_first()?;
    let moves = moves
        .iter()
        .map(|&b| Square::new(b))
        .collect::<Option<Vec<Square>>>()?;
    if opening as usize > moves.len() {
        return None;
    }
    let g = GameRecord {
        moves,
        final_black: score as i8 as i32,
        theoretical: None,
        opening,
    };
    g.positions()?;
    Some(g)
}

/// The games of a self-play run's items in order (a merged run's): the error is the index
/// of the first item that is not a game.
pub fn decode_games(items: &[Vec<u8>]) -> Result<Vec<GameRecord>, usize> {
    items
        .iter()
        .enumerate()
        .map(|(i, b)| decode_game(b).ok_or(i))
        .collect()
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
        // A WTHOR file has no place for the opening's length.
        assert_eq!(g0.opening, 0);
        assert_eq!(g0.moves, a[0].moves);
        for g in &a {
            assert!((6..=24).contains(&g.opening));
            assert_eq!(decode_game(&encode_game(g)).as_ref(), Some(g));
        }
    }

    #[test]
    fn a_level_and_opening_lines_are_played() {
        let lines = parse_openings("f5d6c4d3c2b3b4b5\n\nf5f4g3g6f3g4e3e2\n").unwrap();
        assert_eq!(lines.len(), 2);
        assert!(parse_openings("f5f5").is_err());
        let cfg = SelfPlayConfig {
            games: 3,
            level: Some(2),
            openings: Arc::new(lines.clone()),
            hash_mb: 1,
            ..SelfPlayConfig::default()
        };
        let w = Arc::new(Weights::hand_set());
        let games = self_play(&cfg, w, &ProgressBar::hidden());
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.moves[..8], lines[i % 2][..]);
            assert_eq!(g.opening, 8);
        }
        assert!(run_params(&cfg, "w").starts_with("level=2 openings="));
    }
}
