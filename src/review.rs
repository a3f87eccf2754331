//! A game review: every move played scored against the best move of its position, as
//! `outflank analyze --game` prints it and `outflank serve` sends it to the page.
//!
//! The position before each move played (forced passes are skipped) is searched with every
//! legal move scored (multi-PV over all of them), all positions under the same limits, each
//! from a cleared hash table: a move's review depends on its position and the limits only,
//! not on what the engine searched before, so that the command line and the server (whose
//! engines search for many games) give the same numbers.
//!
//! [`Review`] holds a review in progress: [`Review::next`] says what to search,
//! [`Review::record`] takes the result; [`Review::run`] does both on one engine.

use crate::board::{Board, Color, Move};
use crate::game::Game;
use crate::search::{Engine, Info, Limits, Line};

/// One move played, reviewed: the search of the position before it, every move scored.
#[derive(Clone, Debug)]
pub struct Reviewed {
    /// The move's number in the game, from 1 (passes count).
    pub ply: usize,
    /// Who played it.
    pub player: Color,
    /// The move played.
    pub played: Move,
    /// The played move's score (discs for the player, or win/loss/draw steps in such a
    /// search), when the search got to it (a time or node limit may stop it first).
    pub score: Option<i32>,
    /// The search of the position before the move.
    pub info: Info,
}

impl Reviewed {
    /// The best move of the position and its score, when the search found one.
    pub fn best(&self) -> Option<&Line> {
        self.info.best()
    }

    /// What the move gave away against the best one (0 for a best move), when both scores
    /// are known.
    pub fn loss(&self) -> Option<i32> {
        Some(self.best()?.score - self.score?)
    }
}

/// A review of one game: the moves to review, and those reviewed so far.
#[derive(Clone, Debug)]
pub struct Review {
    game: Game,
    limits: Limits,
    /// The indices (from 0) of the moves to review: every move but the passes.
    plies: Vec<usize>,
    moves: Vec<Reviewed>,
}

impl Review {
    /// A review of `game`, every position searched under `limits` (its `multipv` is
    /// replaced by the number of legal moves of each position).
    pub fn new(game: Game, limits: Limits) -> Review {
        let plies = (0..game.moves().len())
            .filter(|&i| game.moves()[i] != Move::Pass)
            .collect();
        Review {
            game,
            limits,
            plies,
            moves: Vec::new(),
        }
    }

    /// The number of moves to review (passes are not).
    pub fn total(&self) -> usize {
        self.plies.len()
    }

    /// The moves reviewed so far, in the order played.
    pub fn moves(&self) -> &[Reviewed] {
        &self.moves
    }

    /// True once every move is reviewed.
    pub fn is_done(&self) -> bool {
        self.moves.len() == self.plies.len()
    }

    /// The next search to run, on a cleared hash table: the position before the next move
    /// to review and its limits (every legal move scored). None once done.
    pub fn next(&self) -> Option<(Board, Limits)> {
        let i = *self.plies.get(self.moves.len())?;
        let board = self.game.positions()[i].board;
        let limits = Limits {
            multipv: (board.moves().count_ones() as usize).max(1),
            ..self.limits.clone()
        };
        Some((board, limits))
    }

    /// Takes the result of the search [`Review::next`] gave and returns the move reviewed;
    /// None (and nothing changes) when the review is done already.
    pub fn record(&mut self, info: Info) -> Option<&Reviewed> {
        let i = *self.plies.get(self.moves.len())?;
        let played = self.game.moves()[i];
        let score = info.lines.iter().find(|l| l.mv == played).map(|l| l.score);
        self.moves.push(Reviewed {
            ply: i + 1,
            player: self.game.positions()[i].to_move,
            played,
            score,
            info,
        });
        self.moves.last()
    }

    /// Reviews the moves left on `engine`, each search on a cleared hash table; `each` is
    /// called with every move reviewed, as it comes.
    pub fn run(&mut self, engine: &Engine, each: &mut dyn FnMut(&Reviewed)) {
        while let Some((board, limits)) = self.next() {
            engine.clear_hash();
            let info = engine.search(board, &limits, &mut |_| {});
            if let Some(r) = self.record(info) {
                each(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_position;
    use crate::search::EngineConfig;

    #[test]
    fn every_move_but_the_passes_is_scored_against_the_best() {
        let game = parse_position("f5d6c3d3c4f4f6").unwrap();
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let mut review = Review::new(game.clone(), limits);
        assert_eq!(review.total(), 7);
        let engine = Engine::new(EngineConfig {
            threads: 1,
            hash_mb: 1,
        });
        let mut seen = 0;
        review.run(&engine, &mut |_| seen += 1);
        assert_eq!(seen, 7);
        assert!(review.is_done() && review.next().is_none());
        for (i, r) in review.moves().iter().enumerate() {
            assert_eq!(r.ply, i + 1);
            assert_eq!(r.played, game.moves()[i]);
            assert_eq!(r.player, game.positions()[i].to_move);
            let legal = game.positions()[i].board.moves().count_ones() as usize;
            assert_eq!(r.info.lines.len(), legal, "every legal move scored");
            let loss = r.loss().expect("a depth search scores every move");
            assert!(loss >= 0, "no move beats the best: {r:?}");
            assert_eq!(loss == 0, r.score == r.best().map(|b| b.score));
        }
        // Searched alone, from a cleared table, a position gives the same review.
        let (board, limits) = Review::new(game.clone(), review.limits.clone())
            .next()
            .unwrap();
        engine.clear_hash();
        let again = engine.search(board, &limits, &mut |_| {});
        assert_eq!(again.lines, review.moves()[0].info.lines);
        assert!(review.record(Info::default()).is_none(), "nothing left");
    }

    #[test]
    fn a_game_without_moves_has_nothing_to_review() {
        let review = Review::new(Game::default(), Limits::default());
        assert_eq!(review.total(), 0);
        assert!(review.is_done() && review.next().is_none());
    }
}
