//! The terminal game (`outflank play`): a person plays the engine by typing moves in a text
//! terminal; or two people play each other with the engine's hints; or the engine plays
//! itself while a person watches.
//!
//! Each line is a move (`f5`, any case) or a command, parsed into a [`Command`] first:
//! `undo`, `hint [N]`, `go`, `swap`, `new [POS]`, `board`, `moves`, `save FILE`,
//! `set [KEY VALUE]`, `stop`, `help`, `quit`. The board is drawn before each of a person's
//! moves (and after each move when the engine plays both sides). Forced passes are played
//! by the controller's game flow for the seats ([`crate::controller::seats`]) and announced
//! here. The engine plays book moves and single replies at once,
//! and otherwise searches with the level, depth or time per move of the [`Options`], and
//! within its clock for the game when [`Setup::clock`] gives one; `stop` makes it play the
//! best move found so far. A line that is not a legal move or a command is answered with
//! one line saying why, and changes nothing. `quit` ends the session at once, even while
//! the engine thinks, and so does the end of the input at a terminal (Ctrl-D); the end of
//! piped input comes in its turn, after the lines before it have had their answers.
//! `undo` takes back a person's last move and never the moves the game was given.
//!
//! At the end of a game the result is given both ways people count it: the discs on the
//! board, and the tournament score that gives the empty squares to the winner.
//!
//! Here: the translation of lines into commands and controller calls. Apart: the parser
//! (`command`), the texts (`text`), the commands that leave the game as it is (`inform`),
//! and the game kept as GGF (`record`).

mod command;
mod inform;
mod record;
mod text;

pub use crate::controller::Player;
pub use command::{Command, DEFAULT_HINTS, HELP, parse};
pub use text::result_text;
use text::{
    analysis_text, board_text, book_hints_text, choice_note, left_text, move_error_text,
    prompt_text, sides_text, thinking_text, who_text,
};

use super::{MAX_LINE, NAME};
use crate::board::Color;
use crate::controller::{
    Answer, Choice, Controller, Finished, Flow, Frontend, GameClock, Hints, Input, Interrupt,
    Mover, Options, Searched, Seats, Session, Step, TimeControl,
};
use crate::game::Game;
use crate::notation::{parse_position, transcript};
use crate::search::Info;
use std::io::{self, Read, Write};

/// How a terminal game starts.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Who plays black and white.
    pub players: [Player; 2],
    /// The game so far (its start position and the moves already played).
    pub game: Game,
    /// The engine's clock for each game, in GGF terms (main time, increment); without it
    /// the engine's moves follow the options' level, depth or time per move alone.
    pub clock: Option<TimeControl>,
    /// The input and output are a terminal: prompts stay on the line the person types on,
    /// a long think shows a line for each depth it completes, and the end of the input
    /// (Ctrl-D) leaves at once.
    pub tty: bool,
}

/// The terminal game's state.
pub struct Terminal {
    ctl: Controller,
    seats: Seats,
    /// The engine, playing on, waits for the lines typed meanwhile to be handled.
    paused: bool,
    /// The engine's clock setting (the clocks themselves are the controller's).
    time: Option<TimeControl>,
    tty: bool,
}

impl Terminal {
    /// A game as `setup` says, the engine searching with `options`.
    pub fn new(options: Options, setup: Setup) -> Terminal {
        let mut ctl = Controller::new(options);
        *ctl.clock_mut() = GameClock::new(setup.clock.map(|c| TimeControl {
            main: c.main,
            increment: c.increment,
            ..TimeControl::default()
        }));
        ctl.set_game(setup.game);
        Terminal {
            ctl,
            seats: Seats(setup.players),
            paused: false,
            time: setup.clock,
            tty: setup.tty,
        }
    }

    /// `Black (X, you)`, `White (O, Outflank)`.
    fn who(&self, c: Color) -> String {
        who_text(c, &self.seats)
    }

    /// The board, the disc counts and the last move.
    fn show(&self, session: &mut Session) -> io::Result<()> {
        session.line(&board_text(self.ctl.game()))
    }

    /// Asks the person for a move (or, at the end of a game, for a command).
    fn prompt(&self, session: &mut Session) -> io::Result<()> {
        let text = prompt_text(&self.ctl.position(), &self.seats);
        if self.tty {
            session.raw(&text)
        } else {
            session.line(text.trim_end())
        }
    }

    /// Plays on until a person is to move, the engine thinks, or the game ends.
    fn advance(&mut self, session: &mut Session) -> io::Result<()> {
        self.paused = false;
        loop {
            match self.ctl.step(&self.seats) {
                Step::GameOver => {
                    self.show(session)?;
                    session.line(&format!(
                        "Game over: {}. Moves: {}",
                        result_text(&self.ctl.position()),
                        transcript(self.ctl.game())
                    ))?;
                    session
                        .line("new starts another game, undo takes back, save FILE keeps it.")?;
                    return self.prompt(session);
                }
                Step::Passed(c) => {
                    session.line(&format!("{} has no move and passes.", self.who(c)))?;
                }
                Step::Person(_) => {
                    self.show(session)?;
                    return self.prompt(session);
                }
                Step::Engine(_) => {
                    if !self.engine_move(session)? {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// The engine's move for the side to move: played at once (true) when it is the only
    /// move or a book move, else a search starts (false).
    fn engine_move(&mut self, session: &mut Session) -> io::Result<bool> {
        let to_move = self.ctl.position().to_move;
        match self.ctl.choose(to_move, session, ()) {
            Ok(Answer::Now(choice)) => {
                self.engine_plays(&choice, session)?;
                Ok(true)
            }
            Ok(Answer::Searching) => Ok(false),
            // The callers ask only for a side to move with a move.
            Err(_) => Ok(true),
        }
    }

    /// Plays the engine's `choice` and says so, with where it comes from.
    fn engine_plays(&mut self, choice: &Choice, session: &mut Session) -> io::Result<()> {
        let mv = choice.mv;
        if let Err(e) = self.ctl.commit(choice) {
            // Cannot happen: the engine's moves come from the rules. Say so and stop playing.
            log::error!("the engine chose {mv}: {e}");
            return session.line(&format!("{NAME} chose an illegal move {mv}: {e}"));
        }
        let mut note = choice_note(choice);
        if let Some(left) = left_text(self.ctl.clock(), choice.color) {
            note.push_str(", ");
            note.push_str(&left);
        }
        session.line(&format!("{} plays {mv}: {note}.", self.who(choice.color)))?;
        if self.seats == Seats([Player::Engine; 2]) && !self.ctl.game().is_over() {
            self.show(session)?;
        }
        Ok(())
    }

    fn hint(&mut self, n: usize, session: &mut Session) -> io::Result<()> {
        match self.ctl.hint(n, session, ()) {
            Hints::GameOver => {
                session.line("The game is over: no move to hint.")?;
                self.prompt(session)
            }
            Hints::Book(hints) => {
                session.line(&book_hints_text(&hints))?;
                self.prompt(session)
            }
            Hints::Searching => Ok(()),
        }
    }

    fn handle(&mut self, command: Command, session: &mut Session) -> io::Result<Flow> {
        let pos = self.ctl.position();
        let human_to_move =
            !pos.board.is_game_over() && self.seats.player(pos.to_move) == Player::Human;
        match command {
            Command::Quit => return Ok(Flow::Quit),
            // The search it interrupts has answered already.
            Command::Stop => {}
            Command::Help
            | Command::Board
            | Command::Moves
            | Command::Save(_)
            | Command::Set(_) => self.inform(command, session)?,
            Command::Move(mv) => {
                if pos.board.is_game_over() {
                    session.line("The game is over (new starts another).")?;
                    self.prompt(session)?;
                } else if !human_to_move {
                    session.line(&format!("It is {NAME}'s move."))?;
                } else {
                    match self.ctl.play(mv, Mover::Other) {
                        Ok(()) => self.advance(session)?,
                        Err(e) => {
                            session
                                .line(&format!("Illegal: {}.", move_error_text(&pos, mv, &e)))?;
                            self.prompt(session)?;
                        }
                    }
                }
            }
            Command::Undo => {
                if self.ctl.undo_for(&self.seats) {
                    self.advance(session)?
                } else {
                    session.line("Cannot undo: no move of yours to take back.")?;
                    self.prompt(session)?;
                }
            }
            Command::Hint(n) => self.hint(n, session)?,
            Command::Go => {
                if pos.board.is_game_over() {
                    session.line("The game is over (new starts another).")?;
                    self.prompt(session)?;
                } else if self.engine_move(session)? {
                    self.advance(session)?;
                }
            }
            Command::Swap if self.seats.same() => {
                // Two people (or the engine against itself): no seats to change.
                let why = match self.seats.player(Color::Black) {
                    Player::Human => "both sides are played by people (go plays one move)",
                    Player::Engine => "the engine plays both sides",
                };
                session.line(&format!("Nothing to swap: {why}."))?;
                self.prompt(session)?;
            }
            Command::Swap => {
                self.seats.swap();
                session.line(&format!("Now {}.", sides_text(&self.seats)))?;
                self.advance(session)?;
            }
            Command::New(start) => {
                let game = match start {
                    None => Ok(Game::default()),
                    Some(text) => parse_position(&text).map_err(|e| e.to_string()),
                };
                match game {
                    Ok(g) => {
                        self.ctl.set_game(g);
                        session.line("New game.")?;
                        self.advance(session)?;
                    }
                    Err(why) => {
                        session.line(&format!("Cannot start there: {why}."))?;
                        self.prompt(session)?;
                    }
                }
            }
        }
        Ok(Flow::Continue)
    }
}

impl Frontend for Terminal {
    type Tag = ();

    fn start(&mut self, session: &mut Session) -> io::Result<Flow> {
        session.line(&format!(
            "{NAME} {}: {}. Type help for the commands.",
            super::VERSION,
            sides_text(&self.seats)
        ))?;
        self.advance(session)?;
        Ok(Flow::Continue)
    }

    fn interrupts(&self, input: &Input) -> Interrupt {
        match input {
            // At a terminal, Ctrl-D leaves at once; the end of piped input comes in its turn,
            // after the moves and commands before it.
            Input::Eof if self.tty => Interrupt::Session,
            Input::Line(l) => match parse(l) {
                Ok(Some(Command::Stop)) => Interrupt::Search,
                Ok(Some(Command::Quit)) => Interrupt::Session,
                _ => Interrupt::No,
            },
            Input::Eof | Input::TooLong { .. } => Interrupt::No,
        }
    }

    fn idle(&mut self, session: &mut Session) -> io::Result<Flow> {
        if self.paused {
            self.advance(session)?;
        }
        Ok(Flow::Continue)
    }

    fn input(&mut self, input: Input, session: &mut Session) -> io::Result<Flow> {
        match input {
            Input::Eof => {
                if self.tty {
                    // Off the prompt's line.
                    session.line("")?;
                }
                Ok(Flow::Quit)
            }
            Input::TooLong { len } => {
                session.line(&format!(
                    "A line of {len} bytes is too long (at most {MAX_LINE})."
                ))?;
                self.prompt(session)?;
                Ok(Flow::Continue)
            }
            Input::Line(line) => match parse(&line) {
                Ok(Some(command)) => self.handle(command, session),
                Ok(None) => {
                    self.prompt(session)?;
                    Ok(Flow::Continue)
                }
                Err(why) => {
                    session.line(&format!("{why}."))?;
                    self.prompt(session)?;
                    Ok(Flow::Continue)
                }
            },
        }
    }

    fn progress(&mut self, _: &(), info: &Info, session: &mut Session) -> io::Result<()> {
        // At a terminal, a line for each iteration that ends after the first second, so
        // that a long think shows where it stands.
        if !self.tty {
            return Ok(());
        }
        match thinking_text(info) {
            Some(text) => session.line(&text),
            None => Ok(()),
        }
    }

    fn done(&mut self, done: Finished<()>, session: &mut Session) -> io::Result<Flow> {
        match self.ctl.searched(done).1 {
            // The terminal game starts no learn.
            Searched::Stale | Searched::Learned(_) => {}
            Searched::Analysis(info) => {
                session.line(&analysis_text(&info))?;
                self.prompt(session)?;
            }
            Searched::Move(choice) => {
                self.engine_plays(&choice, session)?;
                // Who moves next, after a forced pass.
                let engine_next = self
                    .ctl
                    .next_mover()
                    .is_some_and(|c| self.seats.player(c) == Player::Engine);
                if engine_next && (session.input_waiting() || session.interrupt_pending()) {
                    // The engine plays on (itself): lines typed meanwhile come first (a
                    // quit ends the game here); then `idle` plays on.
                    self.paused = true;
                } else {
                    // A person's turn: the board and the prompt now, then the lines typed
                    // meanwhile are answered in order, each once.
                    self.advance(session)?;
                }
            }
        }
        Ok(Flow::Continue)
    }
}

/// Runs a terminal game on `input` and `output` until `quit` or the end of the input.
pub fn run<R: Read + Send + 'static, W: Write>(
    options: Options,
    setup: Setup,
    input: R,
    output: W,
) -> io::Result<()> {
    super::serve(options, |o| Terminal::new(o, setup), input, output)
}
