//! Labelling: a game is replayed from the start and every position in it (side to move
//! relative, passes included) becomes a [`Sample`] labelled with a score for the side to move:
//!
//! - positions with at most `exact_empties` empty squares: the exact score, solved by the
//!   engine ([`LabelKind::Exact`]);
//! - the position where a WTHOR file's theoretical score applies (24 empties in the FFO's
//!   files): that score, which is exact ([`LabelKind::Exact`]);
//! - the positions in between: the nearer of those two exact results, in plies
//!   ([`LabelKind::Outcome`]);
//! - earlier positions: the theoretical score when the file has one, else the first exact
//!   score of the game ([`LabelKind::Outcome`]), else the final result ([`LabelKind::Final`]).
//!
//! With [`LabelConfig::search`], every position without an exact score of its own is labelled
//! instead with a search of the labelling engine to that depth ([`LabelKind::Search`]).
//! [`LabelConfig::deviations`] adds exactly solved positions off each game's line.
//!
//! Positions inside a game's opening ([`GameRecord::opening`], or the first
//! [`LabelConfig::skip_plies`] plies of every game) are left out: they were chosen at random
//! (self-play's random moves or opening lines), not played.

use super::data::{GameRecord, LabelKind, Sample};
use crate::board::Board;
use crate::eval::Weights;
use crate::rng::{Rng, random_walk};
use crate::search::{Engine, EngineConfig, Limits, ProbcutParams, Solve};
use indicatif::ProgressBar;
use std::sync::Arc;

/// Labels the games whose indices are given (a shard's part), on the current rayon pool,
/// and returns each one's samples in that order.
pub fn label_some(
    games: &[GameRecord],
    indices: &[usize],
    cfg: &LabelConfig,
    pb: &ProgressBar,
) -> Vec<Vec<Sample>> {
    let make = || cfg.engine();
    map_with_engines(indices, &make, &|engine, &i| {
        let s = label_game(engine, &games[i], cfg);
        pb.inc(1);
        s
    })
}

/// How to label games.
#[derive(Clone, Debug)]
pub struct LabelConfig {
    /// Positions with at most this many empty squares are solved exactly.
    pub exact_empties: u32,
    /// Hash table of each labelling engine, in MB.
    pub hash_mb: usize,
    /// Leave out the positions of every game's first this many plies (for WTHOR files of
    /// self-play games, which do not record each game's opening; a game's own
    /// [`GameRecord::opening`] counts when larger).
    pub skip_plies: u32,
    /// Label every position that has no exact score of its own with an exact result of a
    /// position where the same side is to move (also solving the position just before the
    /// first exact one, with one more empty), instead of the nearest one: a result an odd
    /// number of plies away carries one more move of the side to move than of its opponent,
    /// and so, on average, one more of its mistakes (a label too low for the side to move at
    /// every other number of empties: the parity bias of issue 40).
    pub parity_labels: bool,
    /// Positions off each game's line to add, each solved exactly ([`deviations`]): the
    /// positions a search's leaves reach, where one side or both play moves no game would,
    /// and which the games alone do not show the evaluation.
    pub deviations: u32,
    /// Label the positions with no exact score of their own (above `exact_empties`) with a
    /// search to a depth instead of a later exact result of their game: a game's result
    /// says how its players went on from a position, with their mistakes, a search what the
    /// position is worth.
    pub search: Option<SearchLabels>,
}

/// The searches that label positions ([`LabelConfig::search`]).
#[derive(Clone, Debug)]
pub struct SearchLabels {
    /// Depth of each search, at the default selectivity.
    pub depth: u32,
    /// Weights of the labelling engine (default: the shipped ones).
    pub weights: Option<Arc<Weights>>,
    /// Probcut parameters of the labelling engine, a fitted set (`train probcut`) used as
    /// [`ProbcutParams::searched_from`] says (default: the shipped ones).
    pub probcut: Option<ProbcutParams>,
}

impl Default for LabelConfig {
    fn default() -> Self {
        LabelConfig {
            exact_empties: 18,
            hash_mb: 16,
            skip_plies: 0,
            parity_labels: false,
            deviations: 0,
            search: None,
        }
    }
}

impl LabelConfig {
    /// A one-thread labelling engine: the exact solves need no weights, the searches of
    /// [`LabelConfig::search`] search with its weights and probcut parameters.
    pub fn engine(&self) -> Engine {
        let mut e = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: self.hash_mb,
        });
        if let Some(s) = &self.search {
            if let Some(w) = &s.weights {
                e.set_eval(w.clone());
            }
            if let Some(p) = &s.probcut {
                // As every engine searches with a fitted file (`--probcut-file`).
                e.set_probcut(ProbcutParams::searched_from(p.clone()));
            }
        }
        e
    }
}

/// The exact score of `b` for the side to move.
pub fn solve_exact(engine: &Engine, b: Board) -> i32 {
    best_score(
        engine,
        b,
        &Limits {
            solve: Some(Solve::Exact),
            ..Limits::default()
        },
    )
}

/// The score of a search of `b` to `depth` (at the default selectivity) for the side to
/// move.
pub fn search_score(engine: &Engine, b: Board, depth: u32) -> i32 {
    best_score(
        engine,
        b,
        &Limits {
            depth: Some(depth),
            ..Limits::default()
        },
    )
}

/// The score of the best line of a search of `b` within `limits` for the side to move (the
/// final score of a finished game).
fn best_score(engine: &Engine, b: Board, limits: &Limits) -> i32 {
    if b.is_game_over() {
        return b.final_score();
    }
    let info = engine.search(b, limits, &mut |_| {});
    info.best().map_or_else(|| b.final_score(), |l| l.score)
}

/// The samples of one game (none if the game does not replay), but for the positions inside
/// its opening: those before its `max(opening, skip_plies)`-th move is played.
pub fn label_game(engine: &Engine, game: &GameRecord, cfg: &LabelConfig) -> Vec<Sample> {
    let Some(pos) = game.positions() else {
        return Vec::new();
    };
    let id = game.id();
    // Exact scores from black's view, from the first position at or under the threshold on.
    let mut exact: Vec<Option<i32>> = vec![None; pos.len()];
    let mut first_exact: Option<(usize, i32)> = None;
    for (i, &(b, black)) in pos.iter().enumerate() {
        if b.empty_count() <= cfg.exact_empties {
            let s = solve_exact(engine, b);
            let v = if black { s } else { -s };
            exact[i] = Some(v);
            first_exact.get_or_insert((i, v));
        }
    }
    // The theoretical score's position (the first one with that many empties).
    let theo = game.theoretical.and_then(|(e, v)| {
        pos.iter()
            .position(|(b, _)| b.empty_count() == e)
            .map(|i| (i, v))
    });
    // With parity labels, the position before the first exact one is solved too: the exact
    // result on the other side's move.
    let before_exact = first_exact
        .filter(|_| cfg.parity_labels)
        .and_then(|(x, _)| x.checked_sub(1))
        .filter(|&y| theo.is_none_or(|(t, _)| y > t))
        .map(|y| {
            let (b, black) = pos[y];
            let s = solve_exact(engine, b);
            (y, if black { s } else { -s })
        });
    let sources: Vec<(usize, i32)> = [theo, first_exact, before_exact]
        .into_iter()
        .flatten()
        .collect();
    let mut out = Vec::with_capacity(pos.len());
    let opening = game.opening.max(cfg.skip_plies);
    for (i, &(b, black)) in pos.iter().enumerate() {
        // Every move fills a square (passes none): 60 - empties moves have been played.
        if 60 - b.empty_count().min(60) < opening {
            continue;
        }
        // The nearest exact result with the same side to move.
        let same_side = sources
            .iter()
            .filter(|&&(j, _)| pos[j].1 == black)
            .min_by_key(|&&(j, _)| j.abs_diff(i));
        let (v, kind) = if let Some(v) = exact[i] {
            (v, LabelKind::Exact)
        } else if theo.is_some_and(|(t, _)| t == i) {
            (theo.expect("checked").1, LabelKind::Exact)
        } else if before_exact.is_some_and(|(y, _)| y == i) {
            (before_exact.expect("checked").1, LabelKind::Exact)
        } else if let Some(s) = &cfg.search {
            let v = search_score(engine, b, s.depth);
            (if black { v } else { -v }, LabelKind::Search)
        } else if let Some(&(_, v)) = same_side.filter(|_| cfg.parity_labels) {
            (v, LabelKind::Outcome)
        } else {
            match (theo, first_exact) {
                (Some((t, tv)), Some((x, xv))) if i > t => {
                    // Between the two exact results: the nearer one.
                    if i - t <= x - i {
                        (tv, LabelKind::Outcome)
                    } else {
                        (xv, LabelKind::Outcome)
                    }
                }
                (Some((_, tv)), _) => (tv, LabelKind::Outcome),
                (None, Some((_, xv))) => (xv, LabelKind::Outcome),
                (None, None) => (game.final_black, LabelKind::Final),
            }
        };
        let score = if black { v } else { -v };
        out.push(Sample {
            board: b,
            score: score.clamp(-64, 64) as i8,
            kind,
            game: id,
        });
    }
    out.extend(deviations(engine, &pos, id, opening, cfg));
    out
}

/// Fewest empty squares of a deviation's position.
const DEVIATION_MIN_EMPTIES: u32 = 4;

/// Most random moves of a deviation.
const DEVIATION_PLIES: u32 = 8;

/// [`LabelConfig::deviations`] positions off a game's line (`pos`,
/// [`GameRecord::positions`]), each with its exact score: a number of empties `e` drawn
/// from 4 to the exact threshold and a walk of `k` plies from 1 to 8, then `k` random moves
/// from the game's position with `e + k` empties (skipped when the game has none, or it is
/// inside the game's `opening`, in plies). The draws are seeded by the game's id, so a
/// game's deviations are the same in every run and shard, and they fall on its side of the
/// held-out split.
fn deviations(
    engine: &Engine,
    pos: &[(Board, bool)],
    id: u32,
    opening: u32,
    cfg: &LabelConfig,
) -> Vec<Sample> {
    let lo = DEVIATION_MIN_EMPTIES;
    if cfg.deviations == 0 || cfg.exact_empties < lo {
        return Vec::new();
    }
    let mut rng = Rng::new(u64::from(id) ^ 0x6465_7669_6174_6573);
    let mut out = Vec::new();
    for _ in 0..cfg.deviations {
        let e = lo + rng.below(u64::from(cfg.exact_empties - lo + 1)) as u32;
        let k = 1 + rng.below(u64::from(DEVIATION_PLIES)) as u32;
        // Every move fills a square: the positions with 60 - empties < opening are inside it.
        let Some(&(from, _)) = pos
            .iter()
            .find(|(b, _)| b.empty_count() == e + k && 60 - (e + k).min(60) >= opening)
        else {
            continue;
        };
        let b = random_walk(&mut rng, from, e);
        out.push(Sample {
            board: b,
            score: solve_exact(engine, b).clamp(-64, 64) as i8,
            kind: LabelKind::Exact,
            game: id,
        });
    }
    out
}

/// Runs `f` on every item of `items` on as many threads as the current rayon pool has, each
/// thread with its own engine (made by `make`, reused from item to item), and returns the
/// results in item order.
///
/// The threads are plain threads, not rayon workers: an engine searches on its own rayon
/// pool, and a rayon worker of another pool that waits for it would steal more items meanwhile
/// and nest searches (and engines) without bound.
pub fn map_with_engines<T: Sync, R: Send>(
    items: &[T],
    make: &(dyn Fn() -> Engine + Sync),
    f: &(dyn Fn(&Engine, &T) -> R + Sync),
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = rayon::current_num_threads().clamp(1, items.len().max(1));
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let engine = make();
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= items.len() {
                            break;
                        }
                        out.push((i, f(&engine, &items[i])));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a labelling thread panicked"))
            .collect()
    });
    let mut all: Vec<(usize, R)> = parts.into_iter().flatten().collect();
    all.sort_unstable_by_key(|x| x.0);
    all.into_iter().map(|x| x.1).collect()
}

/// Labels games on the current rayon pool (one engine per worker), in game order.
pub fn label_games(games: &[GameRecord], cfg: &LabelConfig, pb: &ProgressBar) -> Vec<Sample> {
    let make = || cfg.engine();
    let per_game = map_with_engines(games, &make, &|engine, g| {
        let s = label_game(engine, g, cfg);
        pb.inc(1);
        s
    });
    per_game.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::train::data::{read_samples, write_samples};
    use std::collections::HashSet;

    /// A one-thread labelling engine with a small table.
    fn one_thread_engine() -> Engine {
        Engine::new(EngineConfig {
            threads: 1,
            hash_mb: 1,
        })
    }

    fn game(moves: &str) -> GameRecord {
        let moves: Vec<Square> = moves
            .as_bytes()
            .chunks(2)
            .map(|c| std::str::from_utf8(c).unwrap().parse().unwrap())
            .collect();
        GameRecord {
            moves,
            final_black: 10,
            theoretical: None,
            opening: 0,
        }
    }

    #[test]
    fn sample_file_round_trip() {
        let g = game("f5d6c3d3c4f4f6f3e6e7");
        let engine = one_thread_engine();
        let s = label_game(&engine, &g, &LabelConfig::default());
        assert_eq!(s.len(), 11);
        assert!(s.iter().all(|x| x.kind == LabelKind::Final));
        // Side-to-move view: black's +10 alternates in sign.
        assert_eq!(s[0].score, 10);
        assert_eq!(s[1].score, -10);
        let dir = std::env::temp_dir().join(format!("outflank-samples-{}", std::process::id()));
        write_samples(&dir, &s).unwrap();
        assert_eq!(read_samples(&dir).unwrap(), s);
        std::fs::remove_file(&dir).unwrap();
    }

    #[test]
    fn positions_inside_the_opening_are_left_out() {
        let engine = one_thread_engine();
        let mut g = game("f5d6c3d3c4f4f6f3e6e7");
        let all = label_game(&engine, &g, &LabelConfig::default());
        g.opening = 4;
        let some = label_game(&engine, &g, &LabelConfig::default());
        // The start and the positions after 1, 2 and 3 moves are left out; the position
        // after the opening's last move is the first sample.
        assert_eq!(some.len(), all.len() - 4);
        assert_eq!(some[..], all[4..]);
        assert_eq!(some[0].board.empty_count(), 56);
        // A uniform skip does the same for games that do not record their opening.
        g.opening = 0;
        let cfg = LabelConfig {
            skip_plies: 4,
            ..LabelConfig::default()
        };
        assert_eq!(label_game(&engine, &g, &cfg), some);
        // The larger of the two counts.
        g.opening = 6;
        assert_eq!(label_game(&engine, &g, &cfg)[..], all[6..]);
    }

    /// A whole game of the first legal move at every turn (passes left out of the record).
    fn first_move_game() -> GameRecord {
        let mut b = crate::board::Position::start().board;
        let mut moves = Vec::new();
        while !b.is_game_over() {
            let m = b.moves();
            if m == 0 {
                b = b
                    .play_move(crate::board::Move::Pass)
                    .expect("a forced pass");
                continue;
            }
            let sq = Square::iter(m).next().expect("a move");
            moves.push(sq);
            b = b.play(sq).expect("legal");
        }
        GameRecord {
            moves,
            final_black: 0,
            theoretical: None,
            opening: 0,
        }
    }

    #[test]
    fn parity_labels_come_from_a_result_with_the_same_side_to_move() {
        let engine = one_thread_engine();
        let g = first_move_game();
        let pos = g.positions().unwrap();
        let cfg = LabelConfig {
            exact_empties: 8,
            ..LabelConfig::default()
        };
        let plain = label_game(&engine, &g, &cfg);
        let parity = label_game(
            &engine,
            &g,
            &LabelConfig {
                parity_labels: true,
                ..cfg
            },
        );
        assert_eq!(plain.len(), parity.len());
        let x = pos.iter().position(|(b, _)| b.empty_count() <= 8).unwrap();
        let y = x - 1;
        // The position before the first exact one is solved; every earlier one takes the
        // exact score of x or y, whichever has its side to move.
        assert_eq!(parity[y].kind, LabelKind::Exact);
        assert_eq!(parity[y].score as i32, solve_exact(&engine, pos[y].0));
        for i in 0..y {
            let from = if pos[i].1 == pos[x].1 { x } else { y };
            assert_eq!(pos[i].1, pos[from].1);
            assert_eq!(parity[i].score, parity[from].score, "position {i}");
            assert_eq!(parity[i].kind, LabelKind::Outcome);
            // Without parity labels, every one takes x's result.
            let sign = if pos[i].1 == pos[x].1 { 1 } else { -1 };
            assert_eq!(plain[i].score, sign * plain[x].score, "position {i}");
        }
        assert_eq!(plain[x..], parity[x..]);
    }

    #[test]
    fn search_labels_score_every_position_without_an_exact_one() {
        let engine = one_thread_engine();
        let g = first_move_game();
        let pos = g.positions().unwrap();
        let cfg = LabelConfig {
            exact_empties: 8,
            parity_labels: true,
            ..LabelConfig::default()
        };
        let plain = label_game(&engine, &g, &cfg);
        let searched = label_game(
            &engine,
            &g,
            &LabelConfig {
                search: Some(SearchLabels {
                    depth: 3,
                    weights: None,
                    probcut: None,
                }),
                ..cfg.clone()
            },
        );
        assert_eq!(plain.len(), searched.len());
        let mut differ = 0;
        for (i, (p, s)) in plain.iter().zip(&searched).enumerate() {
            assert_eq!(p.board, s.board);
            if p.kind == LabelKind::Exact {
                assert_eq!(p, s, "position {i}: exact scores stay");
                continue;
            }
            // Every other one: a depth-3 search of its own, from black's view in the game.
            assert_eq!(s.kind, LabelKind::Search, "position {i}");
            assert!(s.board.empty_count() > 8);
            let v = search_score(&engine, pos[i].0, 3);
            assert_eq!(s.score as i32, v.clamp(-64, 64), "position {i}");
            differ += usize::from(s.score != p.score);
        }
        // Not the game's results under another name.
        assert!(differ > 10, "{differ}");
    }

    #[test]
    fn deviations_leave_the_line_and_carry_their_exact_scores() {
        let engine = one_thread_engine();
        let g = first_move_game();
        let pos = g.positions().unwrap();
        let cfg = LabelConfig {
            exact_empties: 10,
            ..LabelConfig::default()
        };
        let plain = label_game(&engine, &g, &cfg);
        let more = LabelConfig {
            deviations: 30,
            ..cfg.clone()
        };
        let with = label_game(&engine, &g, &more);
        // The game's own samples first, as without deviations, then the deviations.
        assert_eq!(with[..plain.len()], plain[..]);
        let extra = &with[plain.len()..];
        assert!(extra.len() > 20 && extra.len() <= 30, "{}", extra.len());
        let on_line: HashSet<Board> = pos.iter().map(|p| p.0).collect();
        let mut off_line = 0;
        for s in extra {
            let e = s.board.empty_count();
            assert!(
                e <= 10 && (e >= 4 || s.board.is_game_over()),
                "{:?}",
                s.board
            );
            assert_eq!(s.kind, LabelKind::Exact);
            assert_eq!(s.game, g.id());
            assert_eq!(s.score as i32, solve_exact(&engine, s.board));
            off_line += usize::from(!on_line.contains(&s.board));
        }
        // Random walks of 1 to 8 plies: most leave the game's line.
        assert!(off_line * 2 > extra.len(), "{off_line} of {}", extra.len());
        // Seeded by the game: the same draws every time; none inside a long opening.
        assert_eq!(label_game(&engine, &g, &more), with);
        let late = GameRecord {
            opening: 60 - 8,
            ..g.clone()
        };
        let late_plain = label_game(&engine, &late, &cfg).len();
        let late_extra = &label_game(&engine, &late, &more)[late_plain..];
        assert!(!late_extra.is_empty());
        assert!(late_extra.iter().all(|s| s.board.empty_count() <= 7));
    }
}
