//! The terminal game (`outflank play`): a person plays the engine by typing moves in a text
//! terminal; or two people play each other with the engine's hints; or the engine plays
//! itself while a person watches.
//!
//! Each line is a move (`f5`, any case) or a command, parsed into a [`Command`] first:
//! `undo`, `hint [N]`, `go`, `swap`, `new [POS]`, `board`, `moves`, `save FILE`,
//! `set [KEY VALUE]`, `stop`, `help`, `quit`. The board is drawn before each of a person's
//! moves (and after each move when the engine plays both sides). Forced passes are played
//! and announced by the front-end. The engine plays book moves and single replies at once,
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

mod command;
mod text;

pub use command::{Command, DEFAULT_HINTS, HELP, parse};
pub use text::result_text;
use text::{disc, move_error_text};

use super::format::{score_text, search_text, title};
use super::{MAX_LINE, NAME};
use crate::board::{Color, Move};
use crate::controller::{
    Answer, Choice, Controller, Finished, Flow, Frontend, GameClock, Hints, Input, Interrupt,
    Mover, Options, Searched, Session, Source, TimeControl,
};
use crate::game::Game;
use crate::notation::{GgfGame, move_list, parse_position, transcript};
use crate::search::Info;
use std::io::{self, Read, Write};
use std::time::Duration;

/// Who plays a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// A person at the terminal.
    Human,
    /// The engine.
    Engine,
}

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
    players: [Player; 2],
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
            players: setup.players,
            paused: false,
            time: setup.clock,
            tty: setup.tty,
        }
    }

    /// The time left on `c`'s clock, as text, when the game is timed.
    fn left_text(&self, c: Color) -> Option<String> {
        let t = self.ctl.clock().left(c)?.max(0.0).floor() as u64;
        Some(format!("{}:{:02} left", t / 60, t % 60))
    }

    fn player(&self, c: Color) -> Player {
        self.players[c.index()]
    }

    /// `Black (X, you)`, `White (O, Outflank)`.
    fn who(&self, c: Color) -> String {
        let name = match (self.player(c), self.players[0] == self.players[1]) {
            (Player::Engine, _) => NAME,
            (Player::Human, false) => "you",
            (Player::Human, true) => return format!("{} ({})", title(c), disc(c)),
        };
        format!("{} ({}, {name})", title(c), disc(c))
    }

    /// `Black (X, you) against White (O, Outflank)`.
    fn sides(&self) -> String {
        format!(
            "{} against {}",
            self.who(Color::Black),
            self.who(Color::White)
        )
    }

    /// The board, the disc counts and the last move.
    fn show(&self, session: &mut Session) -> io::Result<()> {
        let pos = self.ctl.position();
        session.line(&pos.to_string())?;
        let black = pos.black().count_ones();
        let white = pos.white().count_ones();
        let mut status = format!("Black X {black}, White O {white}");
        let last = self
            .ctl
            .game()
            .moves()
            .iter()
            .zip(self.ctl.game().positions())
            .rev()
            .find(|(m, _)| **m != Move::Pass);
        if let Some((mv, before)) = last {
            status.push_str(&format!("; last move {mv} by {}", title(before.to_move)));
        }
        session.line(&status)
    }

    /// Asks the person for a move (or, at the end of a game, for a command).
    fn prompt(&self, session: &mut Session) -> io::Result<()> {
        let pos = self.ctl.position();
        let text = if pos.board.is_game_over() {
            "> ".to_string()
        } else {
            format!("{} to move> ", self.who(pos.to_move))
        };
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
            let pos = self.ctl.position();
            if pos.board.is_game_over() {
                self.show(session)?;
                session.line(&format!(
                    "Game over: {}. Moves: {}",
                    result_text(&pos),
                    transcript(self.ctl.game())
                ))?;
                session.line("new starts another game, undo takes back, save FILE keeps it.")?;
                return self.prompt(session);
            }
            if pos.board.must_pass() {
                self.ctl
                    .play(Move::Pass, Mover::Engine)
                    .expect("a forced pass");
                session.line(&format!(
                    "{} has no move and passes.",
                    self.who(pos.to_move)
                ))?;
                continue;
            }
            match self.player(pos.to_move) {
                Player::Human => {
                    self.show(session)?;
                    return self.prompt(session);
                }
                Player::Engine => {
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
                let note = match &choice.source {
                    Source::Book(m) => format!("{:+} from the book", m.score),
                    _ => "the only move".to_string(),
                };
                self.engine_plays(&choice, note, session)?;
                Ok(true)
            }
            Ok(Answer::Searching) => Ok(false),
            // The callers ask only for a side to move with a move.
            Err(_) => Ok(true),
        }
    }

    /// Plays the engine's `choice` and says so with `note`.
    fn engine_plays(
        &mut self,
        choice: &Choice,
        mut note: String,
        session: &mut Session,
    ) -> io::Result<()> {
        let mv = choice.mv;
        if let Err(e) = self.ctl.commit(choice) {
            // Cannot happen: the engine's moves come from the rules. Say so and stop playing.
            log::error!("the engine chose {mv}: {e}");
            return session.line(&format!("{NAME} chose an illegal move {mv}: {e}"));
        }
        if let Some(left) = self.left_text(choice.color) {
            note.push_str(", ");
            note.push_str(&left);
        }
        session.line(&format!("{} plays {mv}: {note}.", self.who(choice.color)))?;
        if self.players == [Player::Engine; 2] && !self.ctl.game().is_over() {
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
                for (i, (m, line)) in hints.iter().enumerate() {
                    session.line(&format!(
                        "  {}. {} {:+} (book)  {}",
                        i + 1,
                        m.mv,
                        m.score,
                        move_list(line)
                    ))?;
                }
                self.prompt(session)
            }
            Hints::Searching => Ok(()),
        }
    }

    /// Who played `c`'s moves since the game was given: `human`, the engine's name, or both
    /// (`human and Outflank`, after a `swap` or `go`); the current seat when `c` has not
    /// played yet.
    fn player_name(&self, c: Color) -> String {
        let (mut human, mut engine) = (false, false);
        let game = self.ctl.game();
        for ((mover, pos), mv) in self.ctl.movers().zip(game.positions()).zip(game.moves()) {
            if pos.to_move == c && *mv != Move::Pass {
                match mover {
                    Mover::Other => human = true,
                    Mover::Engine => engine = true,
                    Mover::Given => {}
                }
            }
        }
        if !human && !engine {
            human = self.player(c) == Player::Human;
            engine = !human;
        }
        match (human, engine) {
            (true, true) => format!("human and {NAME}"),
            (true, false) => "human".to_string(),
            _ => NAME.to_string(),
        }
    }

    fn save(&self, path: &str) -> Result<(), String> {
        let mut ggf = GgfGame::from_game(self.ctl.game());
        ggf.black = Some(self.player_name(Color::Black));
        ggf.white = Some(self.player_name(Color::White));
        // The engine's clock, for the colours it plays.
        let clock = |p: Player| self.time.filter(|_| p == Player::Engine);
        ggf.time_black = clock(self.players[0]);
        ggf.time_white = clock(self.players[1]);
        std::fs::write(path, ggf.to_ggf() + "\n").map_err(|e| format!("cannot write {path}: {e}"))
    }

    fn handle(&mut self, command: Command, session: &mut Session) -> io::Result<Flow> {
        let pos = self.ctl.position();
        let human_to_move = !pos.board.is_game_over() && self.player(pos.to_move) == Player::Human;
        match command {
            Command::Quit => return Ok(Flow::Quit),
            // The search it interrupts has answered already.
            Command::Stop => {}
            Command::Help => {
                session.line(HELP)?;
                self.prompt(session)?;
            }
            Command::Board => {
                self.show(session)?;
                self.prompt(session)?;
            }
            Command::Moves => {
                let t = transcript(self.ctl.game());
                session.line(if t.is_empty() { "(no move yet)" } else { &t })?;
                self.prompt(session)?;
            }
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
                if self
                    .ctl
                    .take_back(|c| self.players[c.index()] == Player::Human)
                {
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
            Command::Swap if self.players[0] == self.players[1] => {
                // Two people (or the engine against itself): no seats to change.
                let why = match self.players[0] {
                    Player::Human => "both sides are played by people (go plays one move)",
                    Player::Engine => "the engine plays both sides",
                };
                session.line(&format!("Nothing to swap: {why}."))?;
                self.prompt(session)?;
            }
            Command::Swap => {
                self.players.swap(0, 1);
                session.line(&format!("Now {}.", self.sides()))?;
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
            Command::Save(path) => {
                match self.save(&path) {
                    Ok(()) => session.line(&format!("Saved to {path}."))?,
                    Err(why) => session.line(&format!("Not saved: {why}."))?,
                }
                self.prompt(session)?;
            }
            Command::Set(None) => {
                session.line(&self.ctl.options().describe())?;
                self.prompt(session)?;
            }
            Command::Set(Some((key, value))) => {
                match self.ctl.set_option(&key, &value, session) {
                    // The value as it now is (`10` for `level 10`, `none` for `time off`).
                    Ok(()) => {
                        let now = self.ctl.options().describe();
                        let prefix = format!("{key} ");
                        let line = now.lines().find(|l| l.starts_with(&prefix));
                        session.line(line.unwrap_or(&key))?
                    }
                    Err(why) => session.line(&format!("Not set: {why}."))?,
                }
                self.prompt(session)?;
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
            self.sides()
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
        if !self.tty || info.elapsed < Duration::from_secs(1) {
            return Ok(());
        }
        if let Some(best) = info.best() {
            let pv = &best.pv[..best.pv.len().min(10)];
            session.line(&format!(
                "  ({NAME} thinks, {}: {} {}, {:.1} s)",
                search_text(info),
                score_text(best.score, info.solve),
                move_list(pv),
                info.elapsed.as_secs_f64()
            ))?;
        }
        Ok(())
    }

    fn done(&mut self, done: Finished<()>, session: &mut Session) -> io::Result<Flow> {
        match self.ctl.searched(done).1 {
            Searched::Stale => {}
            Searched::Analysis(info) => {
                for (i, l) in info.lines.iter().enumerate() {
                    session.line(&format!(
                        "  {}. {} {}  {}",
                        i + 1,
                        l.mv,
                        score_text(l.score, info.solve),
                        move_list(&l.pv)
                    ))?;
                }
                session.line(&format!(
                    "({}, {:.2} s)",
                    search_text(&info),
                    info.elapsed.as_secs_f64()
                ))?;
                self.prompt(session)?;
            }
            Searched::Move(choice) => {
                let found = match &choice.source {
                    Source::Search(info) => info.best().map(|l| {
                        format!("{}, {}", score_text(l.score, info.solve), search_text(info))
                    }),
                    _ => None,
                };
                let note = match found {
                    Some(f) => format!("{f}, {:.2} s", choice.elapsed.as_secs_f64()),
                    None => "no search result".to_string(),
                };
                self.engine_plays(&choice, note, session)?;
                // Who moves next, after a forced pass.
                let pos = self.ctl.position();
                let mover = if pos.board.must_pass() {
                    pos.to_move.opposite()
                } else {
                    pos.to_move
                };
                let engine_next = !pos.board.is_game_over() && self.player(mover) == Player::Engine;
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
    let engine = options.engine_setup();
    let mut terminal = Terminal::new(options, setup);
    super::run(&mut terminal, input, output, engine)
}
