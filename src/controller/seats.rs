//! Who plays each colour of a game that people play at the engine (the terminal game):
//! the seats ([`Seats`]), the game's next step for them ([`Controller::step`]: forced passes
//! played, the end of the game, whose turn), whom the moves of a colour came from
//! ([`Controller::played_by`]), and the undo policy (a person's last move taken back).

use super::{Controller, Mover};
use crate::board::{Color, Move};

/// Who plays a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// A person.
    Human,
    /// The engine.
    Engine,
}

/// Who plays black and who plays white.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seats(pub [Player; 2]);

impl Seats {
    /// Who plays `c`.
    pub fn player(&self, c: Color) -> Player {
        self.0[c.index()]
    }

    /// True when the same kind of player has both colours (two people, or the engine
    /// against itself): nothing to swap.
    pub fn same(&self) -> bool {
        self.0[0] == self.0[1]
    }

    /// The colours change hands.
    pub fn swap(&mut self) {
        self.0.swap(0, 1);
    }
}

/// What comes next in a game between seats ([`Controller::step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The game is over.
    GameOver,
    /// This colour had no move and passed (the pass is played).
    Passed(Color),
    /// A person is to move, with this colour.
    Person(Color),
    /// The engine is to move, with this colour.
    Engine(Color),
}

/// Who played a colour's moves ([`Controller::played_by`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayedBy {
    /// A person.
    Human,
    /// The engine.
    Engine,
    /// Both (after a swap, or the engine playing a move for the person).
    Both,
}

impl Controller {
    /// The game's next step for `seats`: a forced pass is played (and said), else the end
    /// of the game or whose turn it is.
    pub fn step(&mut self, seats: &Seats) -> Step {
        let pos = self.position();
        if pos.board.is_game_over() {
            return Step::GameOver;
        }
        if pos.board.must_pass() {
            self.play(Move::Pass, Mover::Engine).expect("a forced pass");
            return Step::Passed(pos.to_move);
        }
        match seats.player(pos.to_move) {
            Player::Human => Step::Person(pos.to_move),
            Player::Engine => Step::Engine(pos.to_move),
        }
    }

    /// Who moves next, past a forced pass; `None` when the game is over.
    pub fn next_mover(&self) -> Option<Color> {
        let pos = self.position();
        if pos.board.is_game_over() {
            None
        } else if pos.board.must_pass() {
            Some(pos.to_move.opposite())
        } else {
            Some(pos.to_move)
        }
    }

    /// Who played `c`'s moves since the game was given (passes and given moves do not
    /// count); the seat's player when `c` has played none yet.
    pub fn played_by(&self, c: Color, seats: &Seats) -> PlayedBy {
        let (mut human, mut engine) = (false, false);
        let game = self.game();
        for ((mover, pos), mv) in self.movers().zip(game.positions()).zip(game.moves()) {
            if pos.to_move == c && *mv != Move::Pass {
                match mover {
                    Mover::Other => human = true,
                    Mover::Engine => engine = true,
                    Mover::Given => {}
                }
            }
        }
        match (human, engine) {
            (true, true) => PlayedBy::Both,
            (true, false) => PlayedBy::Human,
            (false, true) => PlayedBy::Engine,
            (false, false) => match seats.player(c) {
                Player::Human => PlayedBy::Human,
                Player::Engine => PlayedBy::Engine,
            },
        }
    }

    /// Takes back the last move of a person's seat and every move after it
    /// ([`Controller::take_back`]); false when there is none.
    pub fn undo_for(&mut self, seats: &Seats) -> bool {
        self.take_back(|c| seats.player(c) == Player::Human)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Options;
    use crate::game::Game;

    fn sq(s: &str) -> Move {
        Move::Play(s.parse().unwrap())
    }

    #[test]
    fn steps_say_whose_turn_and_play_forced_passes() {
        let seats = Seats([Player::Human, Player::Engine]);
        let mut c = Controller::new(Options::default());
        assert_eq!(c.step(&seats), Step::Person(Color::Black));
        c.play(sq("f5"), Mover::Other).unwrap();
        assert_eq!(c.step(&seats), Step::Engine(Color::White));
        assert_eq!(c.next_mover(), Some(Color::White));
        // A game that reaches a forced pass: the step plays it.
        let mut rng = crate::rng::Rng::new(7);
        let mut g = Game::default();
        while !g.position().board.must_pass() || g.is_over() {
            if g.is_over() {
                g = Game::default();
            }
            let moves = g.position().legal_moves();
            g.play(moves[rng.below(moves.len() as u64) as usize])
                .unwrap();
        }
        let pos = g.position();
        c.set_game(g);
        assert_eq!(c.next_mover(), Some(pos.to_move.opposite()));
        assert_eq!(c.step(&seats), Step::Passed(pos.to_move));
        assert_eq!(c.position().to_move, pos.to_move.opposite());
    }

    #[test]
    fn played_by_counts_the_movers_of_a_colour() {
        let mut seats = Seats([Player::Human, Player::Engine]);
        let mut c = Controller::new(Options::default());
        assert_eq!(c.played_by(Color::Black, &seats), PlayedBy::Human);
        assert_eq!(c.played_by(Color::White, &seats), PlayedBy::Engine);
        c.play(sq("f5"), Mover::Other).unwrap();
        c.play(sq("d6"), Mover::Engine).unwrap();
        c.play(sq("c3"), Mover::Engine).unwrap();
        assert_eq!(c.played_by(Color::Black, &seats), PlayedBy::Both);
        seats.swap();
        assert!(!seats.same());
        assert_eq!(c.played_by(Color::White, &seats), PlayedBy::Engine);
        // Undo takes back to the person's seat's last move (white now).
        assert!(c.undo_for(&seats));
        assert_eq!(c.game().len(), 1);
        assert!(!c.undo_for(&Seats([Player::Engine; 2])));
    }
}
