//! UGI, the Universal Game Interface (UCI made game-neutral), as the cutegames tournament
//! manager speaks it to Othello engines (`../shared/docs/protocols.md`).
//!
//! The manager knows no Othello rules: it learns whose turn it is, whether the game is over
//! and who won only from `query`. So the position is always the one of the last `position`
//! command (the whole history, re-sent several times a ply), `go` never plays its move, and
//! a side with no legal move is answered `bestmove 0000` at once. Every answer the manager
//! parses is exactly two words (`bestmove f5`, `response true`); what it cannot be told (an
//! illegal move in a `position`, a malformed FEN, an unknown command, a bad option value)
//! goes to stderr as one line, and the state stays as it was.
//!
//! Commands: `ugi` (`id` and `option` lines, `ugiok`), `isready` (`readyok`, at once, during
//! a search too), `setoption
//! name K value V` (unknown names ignored, as managers send their own), `uginewgame`,
//! `position startpos|fen BOARD SIDE [moves ...]` (passes as `0000`), `go` with `p1time`,
//! `p2time`, `p1inc`, `p2inc` (milliseconds: black's and white's clocks), `movetime`,
//! `depth`, `nodes` or `infinite` (a bare `go` uses the command line's level, depth or time),
//! `stop`, `query p1turn|gameover|result|fen`, `quit`. `info depth D score cp S nodes N
//! time MS nps X pv ...` lines report each iteration (S: discs x 100 for the side to move).

mod command;

pub use command::{Command, Go, Query, parse};

use super::{MAX_LINE, NAME, VERSION};
use crate::board::{ByColor, Color, Move, Position};
use crate::controller::{
    Answer, Choice, Controller, Finished, Flow, Frontend, GameClock, Input, Interrupt, MoveBudget,
    OPTIONS, OptionKind, OptionSpec, Options, Searched,
};
use crate::game::Game;
use crate::notation::{fen, ugi_move};
use crate::search::{Info, MovePlan};
use std::io::{self, Write};
use std::time::Duration;

/// An engine option's `option name ...` line: numbers as spins (0 for none where an option
/// can be unset), switches as checks, seconds as a string.
fn option_line(o: &OptionSpec, options: &Options) -> String {
    let value = options.get(o.key);
    let kind = match o.kind {
        OptionKind::Number { min, max } => format!("type spin default {value} min {min} max {max}"),
        OptionKind::NumberOrNone { max, .. } => {
            let v = if value == "none" { "0" } else { &value };
            format!("type spin default {v} min 0 max {max}")
        }
        OptionKind::SecondsOrNone { .. } => format!("type string default {value}"),
        OptionKind::Switch => format!("type check default {}", value == "on"),
    };
    format!("option name {} {kind}", o.title)
}

/// What a search is for (its tag): a `go`, infinite when its answer must wait for `stop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    infinite: bool,
}

type Session<'w> = crate::controller::Session<'w, Request>;

/// The UGI front-end: a translation onto the game [`Controller`].
pub struct Ugi {
    ctl: Controller,
    /// The move of a `go infinite` that finished before `stop`: answered at `stop`.
    held: Option<Move>,
    /// Set by `stop` (or a new `go`) while a `go infinite` runs.
    stopped: bool,
    /// Where bad input is reported (stderr).
    errors: Box<dyn Write + Send>,
}

impl Ugi {
    /// A front-end with these options and the start position; bad input is reported to
    /// `errors`.
    pub fn new(options: Options, errors: Box<dyn Write + Send>) -> Ugi {
        Ugi {
            ctl: Controller::new(options),
            held: None,
            stopped: false,
            errors,
        }
    }

    /// Reports bad input on the error stream (and the log).
    fn complain(&mut self, why: &str) {
        log::warn!("{why}");
        let _ = writeln!(self.errors, "outflank ugi: {why}");
        let _ = self.errors.flush();
    }

    fn bestmove(&mut self, mv: Move, session: &mut Session) -> io::Result<()> {
        self.held = None;
        session.line(&format!("bestmove {}", ugi_move(mv)))
    }

    fn handshake(&mut self, session: &mut Session) -> io::Result<()> {
        session.line(&format!("id name {NAME} {VERSION}"))?;
        session.line("id author the Outflank developers")?;
        for o in OPTIONS {
            session.line(&option_line(o, self.ctl.options()))?;
        }
        session.line("ugiok")
    }

    fn set_option(&mut self, name: &str, value: &str, session: &mut Session) {
        let named = |o: &&OptionSpec| o.title.eq_ignore_ascii_case(name) || o.key == name;
        let Some(o) = OPTIONS.iter().find(named) else {
            // Managers send their own settings (`hash`, `threads`, ...) whether listed or not.
            log::debug!("setoption {name:?}: not an option of this engine; ignored");
            return;
        };
        let value = match (o.kind, value) {
            (OptionKind::NumberOrNone { .. }, "0") => "none",
            (_, v) => v,
        };
        if let Err(e) = self.ctl.set_option(o.key, value, session) {
            self.complain(&format!("setoption {}: {e}", o.title));
        }
    }

    fn position(&mut self, start: Position, moves: &[Move]) {
        let mut game = Game::new(start);
        for (i, &mv) in moves.iter().enumerate() {
            if let Err(e) = game.play(mv) {
                let text = ugi_move(mv);
                self.complain(&format!(
                    "position: move {} ({text}) is illegal: {e}; the position is unchanged",
                    i + 1
                ));
                return;
            }
        }
        self.ctl.set_game(game);
    }

    fn go(&mut self, go: Go, session: &mut Session) -> io::Result<()> {
        let pos = self.ctl.position();
        if pos.board.is_game_over() || pos.board.must_pass() {
            // The manager asks a side with no move too; it must hear `0000` at once.
            return self.bestmove(Move::Pass, session);
        }
        // The clocks of this request only: UGI sends them with every `go`.
        let ms = |t: ByColor<Option<u64>>| t.map(|t| t.map(Duration::from_millis));
        let clock = GameClock::reported(ms(go.time), ms(go.inc));
        *self.ctl.clock_mut() = clock;
        let budget = if go.infinite {
            MoveBudget::Infinite
        } else if let Some(n) = go.nodes {
            MoveBudget::Nodes(n)
        } else if go.depth.is_some() || go.movetime.is_some() {
            MoveBudget::Plan(MovePlan {
                level: None,
                depth: go.depth,
                move_time: go.movetime.map(Duration::from_millis),
            })
        } else {
            MoveBudget::Options
        };
        self.stopped = false;
        let tag = Request {
            infinite: go.infinite,
        };
        match self.ctl.choose_within(pos.to_move, budget, session, tag) {
            Err(_) => self.bestmove(Move::Pass, session),
            Ok(Answer::Now(choice)) => self.answer(&choice, go.infinite, session),
            Ok(Answer::Searching) => Ok(()),
        }
    }

    /// Answers a move request, or holds the move of `go infinite` until `stop`.
    fn answer(&mut self, choice: &Choice, infinite: bool, session: &mut Session) -> io::Result<()> {
        if infinite && !self.stopped {
            self.held = Some(choice.mv);
            return Ok(());
        }
        self.bestmove(choice.mv, session)
    }

    fn query(&mut self, q: Query, session: &mut Session) -> io::Result<()> {
        let pos = self.ctl.position();
        let over = pos.board.is_game_over();
        let text = match q {
            Query::P1Turn => (pos.to_move == Color::Black).to_string(),
            Query::GameOver => over.to_string(),
            Query::Result => match self.ctl.game().result() {
                _ if !over => "none".to_string(),
                Some(d) if d > 0 => "p1win".to_string(),
                Some(d) if d < 0 => "p2win".to_string(),
                _ => "draw".to_string(),
            },
            Query::Fen => fen(&pos),
        };
        session.line(&format!("response {text}"))
    }

    fn handle(&mut self, command: Command, session: &mut Session) -> io::Result<Flow> {
        match command {
            Command::Ugi => self.handshake(session)?,
            Command::IsReady => session.line("readyok")?,
            Command::NewGame => self.ctl.set_game(Game::default()),
            Command::SetOption { name, value } => self.set_option(&name, &value, session),
            Command::Position { start, moves } => self.position(start, &moves),
            Command::Go(go) => {
                if let Some(mv) = self.held {
                    // A new request ends the held one: its answer goes first.
                    self.bestmove(mv, session)?;
                }
                self.go(go, session)?;
            }
            Command::Stop => {
                if let Some(mv) = self.held {
                    self.bestmove(mv, session)?;
                }
            }
            Command::Query(q) => self.query(q, session)?,
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }
}

impl Frontend for Ugi {
    type Tag = Request;

    fn at_once(&self, input: &Input) -> bool {
        // UCI's rule, which UGI keeps: `isready` is answered even while a search runs.
        matches!(input, Input::Line(l) if l.trim() == "isready")
    }

    fn interrupts(&self, input: &Input) -> Interrupt {
        match input {
            Input::Line(l) => match l.trim() {
                "stop" => Interrupt::Search,
                "quit" => Interrupt::Session,
                _ => Interrupt::No,
            },
            Input::Eof => Interrupt::Session,
            Input::TooLong { .. } => Interrupt::No,
        }
    }

    fn input(&mut self, input: Input, session: &mut Session) -> io::Result<Flow> {
        match input {
            Input::Eof => Ok(Flow::Quit),
            Input::TooLong { len } => {
                self.complain(&format!(
                    "a line of {len} bytes (at most {MAX_LINE}); ignored"
                ));
                Ok(Flow::Continue)
            }
            Input::Line(line) => match parse(&line) {
                Ok(None) => Ok(Flow::Continue),
                Ok(Some(command)) => self.handle(command, session),
                Err(why) => {
                    self.complain(&why);
                    Ok(Flow::Continue)
                }
            },
        }
    }

    fn progress(&mut self, _: &Request, info: &Info, session: &mut Session) -> io::Result<()> {
        let Some(best) = info.best() else {
            return Ok(());
        };
        let pv: Vec<String> = best.pv.iter().map(|&m| ugi_move(m)).collect();
        session.line(&format!(
            "info depth {} score cp {} nodes {} time {} nps {:.0} pv {}",
            info.depth,
            best.score * 100,
            info.nodes,
            info.elapsed.as_millis(),
            info.nps(),
            pv.join(" ")
        ))
    }

    fn done(&mut self, done: Finished<Request>, session: &mut Session) -> io::Result<Flow> {
        // A stopped infinite search has heard `stop`; one that finished (solved) waits.
        self.stopped = done.info.stopped;
        if let (request, Searched::Move(choice)) = self.ctl.searched(done) {
            self.answer(&choice, request.infinite, session)?;
        }
        Ok(Flow::Continue)
    }
}
