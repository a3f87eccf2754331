//! The root driver of one search: iterative deepening from the root, the selectivity
//! ladder and the pre-solves before an endgame solve, multi-PV, the time checks between
//! iterations, the principal variation completed from the table, and the [`Info`] reports.

use super::context::{NO_SELECTIVITY, Searcher, Shared};
use super::tt::NO_MOVE;
use super::{Info, Limits, Line, Selectivity, Solve};
use crate::board::{Board, Move, Square};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

/// The root driver of one search.
pub(super) struct Root<'a, 'p> {
    shared: &'a Shared<'a>,
    limits: &'a Limits,
    start: Instant,
    progress: &'p mut (dyn FnMut(&Info) + Send),
}

impl<'a, 'p> Root<'a, 'p> {
    /// The driver of a search with `shared` state under `limits`, started at `start`,
    /// reporting each finished iteration to `progress`.
    pub(super) fn new(
        shared: &'a Shared<'a>,
        limits: &'a Limits,
        start: Instant,
        progress: &'p mut (dyn FnMut(&Info) + Send),
    ) -> Root<'a, 'p> {
        Root {
            shared,
            limits,
            start,
            progress,
        }
    }

    fn info(&self, depth: u32, level: u8, solve: Option<Solve>, lines: Vec<Line>) -> Info {
        Info {
            depth,
            selectivity: Selectivity::new(level),
            solve,
            lines,
            nodes: self.shared.nodes.load(Relaxed),
            elapsed: self.start.elapsed(),
            stopped: false,
        }
    }

    pub(super) fn run(&mut self, board: Board) -> Info {
        if board.moves() == 0 {
            if board.opponent_moves() == 0 {
                return self.info(0, NO_SELECTIVITY, Some(Solve::Exact), Vec::new());
            }
            // A forced pass: search the opponent's position and report it as a pass.
            let mut inner = self.run_moves(board.passed(), true);
            for l in &mut inner.lines {
                l.score = -l.score;
                l.pv.insert(0, Move::Pass);
                l.mv = Move::Pass;
            }
            inner.lines.truncate(1);
            return inner;
        }
        self.run_moves(board, false)
    }

    /// Iterative deepening over the root moves of `board` (which has moves).
    fn run_moves(&mut self, board: Board, negate_report: bool) -> Info {
        let empties = board.empty_count();
        let limits = self.limits;
        let multipv = limits.multipv.max(1);
        let max_depth = limits.depth.unwrap_or(60).max(1);
        let mut order: Vec<u8> = Square::iter(board.moves())
            .map(|s| s.index() as u8)
            .collect();
        let mut last = self.info(0, NO_SELECTIVITY, None, Vec::new());
        let report = |root: &mut Self, info: &Info| {
            if negate_report {
                let mut i = info.clone();
                for l in &mut i.lines {
                    l.score = -l.score;
                    l.pv.insert(0, Move::Pass);
                    l.mv = Move::Pass;
                }
                i.lines.truncate(1);
                (root.progress)(&i);
            } else {
                (root.progress)(info);
            }
        };
        // Midgame iterations (also used to prepare an endgame solve).
        let solve = limits.solve;
        let mid_limit = match solve {
            Some(_) => empties
                .saturating_sub(if empties > 24 { 12 } else { 10 })
                .min(16),
            None => max_depth.min(empties.saturating_sub(1)),
        };
        let level = if solve.is_some() {
            2
        } else {
            limits.selectivity.level()
        };
        let mut guess = 0;
        for depth in 1..=mid_limit {
            let Some((lines, order2)) = self.iterate(
                board,
                &order,
                RootKind::Mid(depth as i32),
                level,
                guess,
                multipv,
            ) else {
                last.stopped = true;
                return self.finish(last);
            };
            order = order2;
            guess = lines[0].score;
            last = self.info(depth, level, None, lines);
            report(self, &last);
            if self.soft_time_up() && solve.is_none() {
                return self.finish(last);
            }
        }
        let exact_reached = limits.depth.is_none_or(|d| d >= empties);
        if solve.is_none() && !exact_reached {
            return self.finish(last);
        }
        let kind = solve.unwrap_or(Solve::Exact);
        // Selective searches to the end first: they fill the hash table with good moves
        // (fewer nodes for the exact solve) and give a probable result early. Then the solve.
        let pre: &[u8] = if empties >= LADDER_EMPTIES {
            LADDER_LEVELS
        } else if empties >= PRE_SOLVE_EMPTIES {
            PRE_SOLVE_LEVELS
        } else {
            &[]
        };
        for &lv in pre.iter().chain(&[NO_SELECTIVITY]) {
            let Some((lines, order2)) =
                self.iterate(board, &order, RootKind::End(kind), lv, guess, multipv)
            else {
                last.stopped = true;
                return self.finish(last);
            };
            order = order2;
            guess = lines[0].score;
            let solved = (lv == NO_SELECTIVITY).then_some(kind);
            last = self.info(empties, lv, solved, lines);
            report(self, &last);
        }
        self.finish(last)
    }

    fn finish(&self, mut info: Info) -> Info {
        info.nodes = self.shared.nodes.load(Relaxed);
        info.elapsed = self.start.elapsed();
        info
    }

    fn soft_time_up(&self) -> bool {
        self.limits
            .time
            .is_some_and(|t| self.start.elapsed() * 2 >= t)
    }

    /// One root iteration: scores the moves (in `order`) with aspiration around `guess`.
    /// Returns the lines (best first, `multipv` of them) and the new move order, or `None`
    /// when stopped.
    fn iterate(
        &mut self,
        board: Board,
        order: &[u8],
        kind: RootKind,
        level: u8,
        guess: i32,
        multipv: usize,
    ) -> Option<(Vec<Line>, Vec<u8>)> {
        let mut s = Searcher::new(self.shared, level);
        let (lo_cap, hi_cap) = match kind {
            RootKind::End(Solve::Wld) => (-1, 1),
            _ => (-64, 64),
        };
        let mut delta = if matches!(kind, RootKind::End(_)) {
            2
        } else {
            4
        };
        let (mut alpha, mut beta) = if multipv > 1 {
            (lo_cap, hi_cap)
        } else {
            ((guess - delta).max(lo_cap), (guess + delta).min(hi_cap))
        };
        if alpha >= beta {
            (alpha, beta) = (lo_cap, hi_cap);
        }
        loop {
            let scores = self.root_moves(&mut s, board, order, kind, alpha, beta, multipv);
            s.flush();
            let scores = scores?;
            let best = scores[0].0;
            log::debug!(
                "{kind:?} level {level} window ({alpha}, {beta}): best {best}, {} nodes, {:.3} s",
                self.shared.nodes.load(Relaxed),
                self.start.elapsed().as_secs_f64()
            );
            if best <= alpha && alpha > lo_cap {
                alpha = (best - delta).max(lo_cap);
                delta *= 4;
                continue;
            }
            if best >= beta && beta < hi_cap {
                beta = (best + delta).min(hi_cap);
                delta *= 4;
                continue;
            }
            let new_order: Vec<u8> = scores.iter().map(|x| x.1).collect();
            let mut lines = Vec::with_capacity(multipv);
            for &(score, sq) in scores.iter().take(multipv) {
                let score = match kind {
                    RootKind::End(Solve::Wld) => score.signum(),
                    _ => score,
                };
                // The hash table may know more than this iteration searched.
                let mut pv = self.pv(board, sq);
                if let RootKind::Mid(d) = kind {
                    pv.truncate(d.max(1) as usize);
                }
                complete_pv(&mut s, board, &mut pv, score, kind);
                lines.push(Line {
                    mv: Move::Play(Square::new(sq).expect("a square")),
                    score,
                    pv,
                });
            }
            s.flush();
            return Some((lines, new_order));
        }
    }

    /// Scores every root move in `(alpha, beta)`; with multi-PV the first `multipv` moves get
    /// exact scores where they fall inside the window. Sorted best first.
    #[allow(clippy::too_many_arguments)]
    fn root_moves(
        &mut self,
        s: &mut Searcher<'_>,
        board: Board,
        order: &[u8],
        kind: RootKind,
        alpha: i32,
        beta: i32,
        multipv: usize,
    ) -> Option<Vec<(i32, u8)>> {
        let search = |s: &mut Searcher<'_>, b: Board, a: i32, bt: i32| match kind {
            RootKind::Mid(d) => s.mid(b, a, bt, d - 1),
            RootKind::End(_) => s.end(b, a, bt),
        };
        let mut scored: Vec<(i32, u8)> = Vec::with_capacity(order.len());
        let mut a = alpha;
        for (i, &sq) in order.iter().enumerate() {
            let child = board
                .play(Square::new(sq).expect("a square"))
                .expect("root moves are legal");
            // The score a move must beat to matter: the best so far, or the multipv-th best.
            let bar = if multipv > 1 {
                if scored.len() < multipv {
                    alpha
                } else {
                    let mut v: Vec<i32> = scored.iter().map(|x| x.0).collect();
                    v.sort_unstable_by(|x, y| y.cmp(x));
                    v[multipv - 1].max(alpha)
                }
            } else {
                a
            };
            let v = if i == 0 || (multipv > 1 && scored.len() < multipv) {
                -search(s, child, -beta, -bar)
            } else {
                let mut v = -search(s, child, -bar - 1, -bar);
                if v > bar && v < beta && !s.stopped {
                    v = -search(s, child, -beta, -bar);
                }
                v
            };
            if s.stopped {
                return None;
            }
            scored.push((v, sq));
            if v > a {
                a = v;
                if a >= beta && multipv == 1 {
                    // Fail high: the rest can wait for the re-search.
                    let rest = order.iter().skip(i + 1).map(|&q| (-65, q));
                    scored.extend(rest);
                    break;
                }
            }
        }
        // Stable sort keeps the previous order among equal scores.
        scored.sort_by_key(|x| std::cmp::Reverse(x.0));
        Some(scored)
    }

    /// The principal variation after root move `sq`, read from the hash table.
    fn pv(&self, board: Board, sq: u8) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut b = board;
        let mut next = sq;
        for _ in 0..60 {
            let Some(s) = Square::new(next) else { break };
            let Ok(nb) = b.play(s) else { break };
            pv.push(Move::Play(s));
            b = nb;
            if b.moves() == 0 {
                if b.opponent_moves() == 0 {
                    break;
                }
                pv.push(Move::Pass);
                b = b.passed();
            }
            match self.shared.tt.probe(b.hash()) {
                Some(e) if e.best != NO_MOVE => next = e.best,
                _ => break,
            }
        }
        while pv.last() == Some(&Move::Pass) {
            pv.pop();
        }
        pv
    }
}

/// The most empties at which [`complete_pv`] solves a line's missing moves.
const PV_SOLVE_EMPTIES: u32 = 14;

/// The most plies a midgame line may lack for [`complete_pv`] to search its moves.
const PV_SEARCH_DEPTH: i32 = 4;

/// Extends `pv` (moves from `board`, scored `score` for the side to move there) where the
/// hash table's moves end, which is where its entries stop (the smallest endgame nodes
/// and the last plies of a midgame search keep none): in a solve, at [`PV_SOLVE_EMPTIES`]
/// or fewer, with the first move whose own solve keeps the score; in a midgame search of
/// depth `d`, to `d` moves when at most [`PV_SEARCH_DEPTH`] are missing, with the best
/// move of a search of the depth left. Stops where nothing keeps the score (a selective
/// result) or when the search is stopped. A midgame line may end with a pass, one of its
/// plies. The nodes count as the search's.
fn complete_pv(s: &mut Searcher<'_>, board: Board, pv: &mut Vec<Move>, score: i32, kind: RootKind) {
    let mut b = board;
    let mut e = score;
    for (i, &mv) in pv.iter().enumerate() {
        // In a solve, the table's moves are trusted down to the solving depth only: below
        // it they may be a midgame iteration's, which need not keep the score. (The root
        // move stays: it is the line's.)
        if i > 0 && matches!(kind, RootKind::End(_)) && b.empty_count() <= PV_SOLVE_EMPTIES {
            pv.truncate(i);
            break;
        }
        let Ok(next) = b.play_move(mv) else { return };
        b = next;
        e = -e;
    }
    loop {
        if b.is_game_over() || s.stopped {
            break;
        }
        let within = match kind {
            RootKind::End(_) => b.empty_count() <= PV_SOLVE_EMPTIES,
            RootKind::Mid(d) => (1..=PV_SEARCH_DEPTH).contains(&(d - pv.len() as i32)),
        };
        if !within {
            break;
        }
        if b.moves() == 0 {
            pv.push(Move::Pass);
            b = b.passed();
            e = -e;
            continue;
        }
        let next = match kind {
            RootKind::End(solve) => {
                // A window around the score, from the child's side.
                let (lo, hi) = match solve {
                    Solve::Wld => (-1, 1),
                    Solve::Exact => (-e - 1, -e + 1),
                };
                let keeps = Square::iter(b.moves()).find(|&sq| {
                    let child = b.play(sq).expect("a legal move");
                    let v = -s.end(child, lo, hi);
                    match solve {
                        Solve::Wld => v.signum() == e.signum(),
                        Solve::Exact => v == e,
                    }
                });
                // A selective pass's score need not be exact, and then no move keeps it: the
                // line goes on with the best move by this searcher, and its score.
                keeps.or_else(|| {
                    let (lo, hi) = match solve {
                        Solve::Wld => (-1, 1),
                        Solve::Exact => (-64, 64),
                    };
                    let (v, sq) = Square::iter(b.moves())
                        .map(|sq| (-s.end(b.play(sq).expect("a legal move"), lo, hi), sq))
                        .max_by_key(|&(v, sq)| (v, std::cmp::Reverse(sq.index())))?;
                    e = v;
                    Some(sq)
                })
            }
            RootKind::Mid(d) => {
                let left = d - pv.len() as i32;
                let mut best: Option<(i32, Square)> = None;
                for sq in Square::iter(b.moves()) {
                    let child = b.play(sq).expect("a legal move");
                    let v = -s.mid(child, -64, 64, left - 1);
                    if best.is_none_or(|(bv, _)| v > bv) {
                        best = Some((v, sq));
                    }
                }
                best.map(|(_, sq)| sq)
            }
        };
        let Some(sq) = next else { break };
        if s.stopped {
            break;
        }
        pv.push(Move::Play(sq));
        b = b.play(sq).expect("a legal move");
        e = -e;
    }
}

/// From this many empties on, a solve is preceded by selective searches to the end.
const PRE_SOLVE_EMPTIES: u32 = 18;

/// The selectivity levels of those searches (indexes into the probcut confidences:
/// 73% then 98%). Measured on FFO #40-#49 with one thread: 1.64 G nodes without them,
/// 1.23 G with these two (and 124 M instead of 133 M on #20-#39).
const PRE_SOLVE_LEVELS: &[u8] = &[0, 3];

/// From this many empties on, the selective searches climb every level up to 98%.
const LADDER_EMPTIES: u32 = 28;

/// Those levels: 73%, 87%, 95%, 98%. FFO #53-#54 on two threads: 4.94 G nodes in 83 s against
/// 5.44 G in 88 s with [`PRE_SOLVE_LEVELS`]; #56-#58 3.80 G in 81 s against 4.11 G in 85 s.
/// Below 28 empties they cost more than they save (#45-#49: 614 M nodes against 591 M).
const LADDER_LEVELS: &[u8] = &[0, 1, 2, 3];

/// What a root iteration searches.
#[derive(Clone, Copy, Debug)]
enum RootKind {
    /// A midgame search of this depth.
    Mid(i32),
    /// An endgame solve.
    End(Solve),
}
