//! A game: a start position, the moves played (passes included), undo and result.

use crate::board::{Color, Move, MoveError, Position};

/// A game from a start position, with its history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    start: Position,
    moves: Vec<Move>,
    positions: Vec<Position>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Position::start())
    }
}

impl Game {
    /// A game from `start` with no moves yet.
    pub fn new(start: Position) -> Game {
        Game {
            start,
            moves: Vec::new(),
            positions: vec![start],
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> Position {
        self.start
    }

    /// The current position.
    pub fn position(&self) -> Position {
        *self.positions.last().expect("at least the start")
    }

    /// The colour to move now.
    pub fn to_move(&self) -> Color {
        self.position().to_move
    }

    /// The moves played so far, passes included.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position of the game, the start first and the current one last.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Plays a move (a square or a forced pass); on error the game is unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        let next = self.position().play(mv)?;
        self.moves.push(mv);
        self.positions.push(next);
        Ok(())
    }

    /// Plays a move for `color`. When `color` is not to move but the side to move must pass,
    /// the pass is played first (the implicit pass of transcripts and some GTP controllers).
    /// On error the game is unchanged.
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<(), MoveError> {
        let pos = self.position();
        if pos.to_move == color {
            return self.play(mv);
        }
        if !pos.board.must_pass() {
            return Err(match mv {
                Move::Play(sq) => MoveError::Illegal(sq),
                Move::Pass => MoveError::PassWithMoves,
            });
        }
        let after_pass = pos.play(Move::Pass)?;
        let next = after_pass.play(mv)?;
        self.moves.push(Move::Pass);
        self.positions.push(after_pass);
        self.moves.push(mv);
        self.positions.push(next);
        Ok(())
    }

    /// Takes back the last move (a pass counts as a move). Returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        Some(mv)
    }

    /// True when neither side can move.
    pub fn is_over(&self) -> bool {
        self.position().board.is_game_over()
    }

    /// Black's final disc difference (empties to the winner), once the game is over.
    pub fn result(&self) -> Option<i32> {
        self.is_over().then(|| self.position().black_final_score())
    }

    /// Number of moves played, passes included.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// True when no move has been played.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    fn sq(s: &str) -> Move {
        Move::Play(s.parse::<Square>().unwrap())
    }

    #[test]
    fn play_undo() {
        let mut g = Game::default();
        g.play(sq("f5")).unwrap();
        g.play(sq("d6")).unwrap();
        assert_eq!(g.len(), 2);
        assert!(g.play(sq("a1")).is_err());
        assert_eq!(g.len(), 2);
        assert_eq!(g.undo(), Some(sq("d6")));
        assert_eq!(g.undo(), Some(sq("f5")));
        assert_eq!(g.undo(), None);
        assert_eq!(g.position(), Position::start());
    }

    #[test]
    fn wrong_colour_without_forced_pass_is_refused() {
        let mut g = Game::default();
        assert!(g.play_as(Color::White, sq("f5")).is_err());
        assert!(g.is_empty());
    }
}
