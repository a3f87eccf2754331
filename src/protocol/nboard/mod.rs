//! The NBoard protocol, version 2: what the NBoard GUI (and tools that copy it) speak to
//! their engines.
//!
//! The GUI sends `move` when the game grew by one move and `set game` otherwise, then
//! `set contempt` and `set depth` when they changed, then `ping K`, then one of `hint N`,
//! `go`, `learn` or `analyze`. It drops `search`, `===` and `nodestats` lines that arrive
//! before the `pong` of its latest ping, so `ping` stops a running search at once and its
//! `pong` comes only after everything sent before it was done.
//!
//! Replies: `set myname Outflank`; `search PV EVAL 0 DEPTH` lines as each depth completes
//! (the PV without spaces, `F5d6C3`, passes as `PA`; EVAL in discs for the side to move;
//! DEPTH a bare integer for a midgame depth, `100%` for an exact solve, `100%W` for a
//! win/loss/draw solve); `=== MV/EVAL/TIME` for `go` (the move is not applied: the GUI sends
//! it back with `move`); `nodestats NODES SECONDS`; `status TEXT`; `analysis N EVAL`;
//! `pong N`; `learned`. NBoard has no error reply: a line that is not a well-formed command
//! (or a move that is not legal, a game that cannot be read) changes nothing and is answered
//! with one `status ignored: WHY` line, and logged at warn level (`-v`). EOF means quit, once
//! every command before it is answered.
//!
//! In a position of the opening book (unless the options turn it off), `hint N` answers
//! with `book PV EVAL GAMES DEPTH` lines for the best N book moves and `go` with a book
//! move, without a search; `learn` adds the game to the book and saves it to the book file,
//! on the worker, answering `ping` meanwhile (its `status` and `learned` come when it ends;
//! a command that starts a search or another learn, or `quit`, stops it: `status learn
//! stopped`).
//!
//! The clock comes from the GGF of `set game` (`TI`, `TB`, `TW`) and each move's elapsed
//! time in its annotation (`F5/-1.50/3.2`): time left = main time + increments - the times
//! of the mover's moves.

mod command;
mod text;

pub use command::{Command, parse};
pub use text::{book_line, depth_text, eval_text, move_line, nboard_move_word, pv_text};

use super::format::seconds_text;
use super::{MAX_LINE, NAME};
use crate::board::{Board, Color, Move};
use crate::controller::{
    Answer, Controller, Finished, Flow, Frontend, GameClock, Hints, Input, Interrupt, Learned,
    Mover, Options, Searched,
};
use crate::notation::parse_ggf;
use crate::search::{Info, Level};
use std::io;
use std::time::Instant;

/// Tells the GUI (a `status` line) and the log (warn level) that an input was refused.
fn refuse(why: &str, session: &mut Session) -> io::Result<()> {
    log::warn!("refused {why}");
    session.line(&format!("status ignored: {why}"))
}

/// What a search is for (the search's tag).
#[derive(Clone, Debug)]
pub enum Task {
    /// `hint N`.
    Hint,
    /// `go`.
    Go,
    /// `learn`.
    Learn,
    /// `analyze`.
    Analyze {
        /// The positions still to search (moves made, board), last first.
        rest: Vec<(usize, Board)>,
    },
}

type Session<'w> = crate::controller::Session<'w, Task>;

/// The NBoard front-end's state.
pub struct NBoard {
    ctl: Controller,
    /// The `nodestats` of the searches of the current task.
    nodes: u64,
    started: Instant,
}

/// Depth of the searches with which `learn` scores new book positions.
const LEARN_DEPTH: u32 = 12;

/// `learn` stores a game's positions up to this many moves in.
const LEARN_PLIES: usize = 20;

impl NBoard {
    /// A front-end with these options and the start position.
    pub fn new(options: Options) -> NBoard {
        NBoard {
            ctl: Controller::new(options).score_forced_moves(true),
            nodes: 0,
            started: Instant::now(),
        }
    }

    /// `set game`: the game, and each colour's clock from its `TI`/`TB`/`TW` less the time
    /// of its moves.
    fn set_game(&mut self, text: &str, session: &mut Session) -> io::Result<()> {
        let ggf = match parse_ggf(text) {
            Ok(g) => g,
            Err(e) => return refuse(&format!("cannot read the game: {e}"), session),
        };
        *self.ctl.clock_mut() =
            GameClock::per_color(ggf.clock(Color::Black), ggf.clock(Color::White));
        self.ctl.set_game(ggf.to_game());
        for m in &ggf.moves {
            self.ctl.charge_reported(m.color, m.mv, m.time);
        }
        Ok(())
    }

    /// `move`: the move for the side to move, or for the other side after a forced pass.
    fn play(&mut self, mv: Move, time: Option<f64>, session: &mut Session) -> io::Result<()> {
        let color = self.ctl.mover_of(mv);
        if let Err(e) = self.ctl.play_as(color, mv, Mover::Other) {
            return refuse(&e.to_string(), session);
        }
        self.ctl.charge_reported(color, mv, time);
        Ok(())
    }

    /// Starts counting nodes and time for `nodestats`.
    fn reset_stats(&mut self) {
        self.nodes = 0;
        self.started = Instant::now();
    }

    /// `hint N`: the best `n` moves at the level, refreshed as each depth completes.
    fn hint(&mut self, n: usize, session: &mut Session) -> io::Result<()> {
        self.reset_stats();
        match self.ctl.hint(n, session, Task::Hint) {
            Hints::GameOver => session.line("status"),
            Hints::Book(hints) => {
                for (m, pv) in &hints {
                    session.line(&book_line(m, pv))?;
                }
                session.line("status")
            }
            Hints::Searching => session.line("status Analyzing"),
        }
    }

    /// `learn`: the game's positions join the book (each new one scored by a search), which
    /// is saved to the book file when there is one. It runs on the worker: `ping` is
    /// answered meanwhile, and a command that starts a search (or `learn`) stops it.
    fn learn(&mut self, session: &mut Session) {
        self.ctl
            .learn(LEARN_DEPTH, LEARN_PLIES, session, Task::Learn);
    }

    /// What a `learn` did: a `status` line, then `learned`.
    fn learned(&self, learned: Learned, session: &mut Session) -> io::Result<()> {
        let status = match learned {
            Learned::Saved(n) => format!("status learned: {n} book positions saved"),
            Learned::NotSaved(e) => {
                log::warn!("learn: {e}");
                format!("status learn: the book was not saved: {e}")
            }
            Learned::ForSession(_) => {
                "status learned for this session (no --book-file to save to)".to_string()
            }
            Learned::Stopped => "status learn stopped: the book is as it was".to_string(),
        };
        session.line(&status)?;
        session.line("learned")
    }

    /// `go`: a move within the level and the game's clock; a single legal move (or a forced
    /// pass) gets a short search only for the evaluation it reports.
    fn go(&mut self, session: &mut Session) -> io::Result<()> {
        self.reset_stats();
        let to_move = self.ctl.position().to_move;
        match self.ctl.choose(to_move, session, Task::Go) {
            Err(_) => {
                log::warn!("go: the game is over");
                session.line("status the game is over")
            }
            Ok(Answer::Now(choice)) => session.line(&move_line(&choice)),
            Ok(Answer::Searching) => Ok(()),
        }
    }

    /// `analyze`: every position of the game, from the last to the first.
    fn analyze(&mut self, session: &mut Session) -> io::Result<()> {
        self.reset_stats();
        let rest: Vec<(usize, Board)> = self
            .ctl
            .game()
            .positions()
            .iter()
            .enumerate()
            .map(|(i, p)| (i, p.board))
            .collect();
        session.line("status Analyzing the game")?;
        self.next_analysis(rest, session)
    }

    /// Starts the next search of `analyze`, or ends it. Game-over positions need no search.
    fn next_analysis(
        &mut self,
        mut rest: Vec<(usize, Board)>,
        session: &mut Session,
    ) -> io::Result<()> {
        while let Some(&(n, board)) = rest.last() {
            if board.is_game_over() {
                session.line(&format!("analysis {n} {}", eval_text(board.final_score())))?;
                rest.pop();
                continue;
            }
            self.ctl.analyze(board, 1, session, Task::Analyze { rest });
            return Ok(());
        }
        session.line("status")
    }

    fn handle(&mut self, command: Command, session: &mut Session) -> io::Result<Flow> {
        match command {
            Command::Nboard(version) => {
                if version.trim() != "2" {
                    log::warn!("NBoard protocol version {version:?}; speaking version 2");
                }
                session.line(&format!("set myname {NAME}"))?;
            }
            Command::SetDepth(d) => {
                let plan = &mut self.ctl.options_mut().plan;
                plan.level = Some(Level::new(d));
                plan.depth = None;
            }
            Command::SetGame(text) => self.set_game(&text, session)?,
            Command::SetContempt(c) => {
                // The engine has no contempt setting yet: draws count as 0.
                log::debug!("set contempt {c}: ignored (draws score 0)");
            }
            Command::Move { mv, time, .. } => self.play(mv, time, session)?,
            Command::Hint(n) => self.hint(n, session)?,
            Command::Go => self.go(session)?,
            Command::Ping(n) => {
                if n.is_empty() {
                    session.line("pong")?
                } else {
                    session.line(&format!("pong {n}"))?
                }
            }
            Command::Learn => self.learn(session),
            Command::Analyze => self.analyze(session)?,
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }

    /// A `search` line for one scored move of the current position.
    fn search_line(&self, info: &Info, line: &crate::search::Line) -> String {
        let empties = self.ctl.position().board.empty_count();
        format!(
            "search {} {} 0 {}",
            pv_text(&line.pv),
            eval_text(line.score),
            depth_text(info, empties)
        )
    }
}

impl Frontend for NBoard {
    type Tag = Task;

    fn interrupts(&self, input: &Input) -> Interrupt {
        let ends = match input {
            // The end of the input comes in its turn: piped commands get full answers.
            Input::Eof => false,
            Input::Line(l) => matches!(parse(l), Ok(Some(Command::Ping(_) | Command::Quit))),
            Input::TooLong { .. } => false,
        };
        if ends {
            Interrupt::Session
        } else {
            Interrupt::No
        }
    }

    fn input(&mut self, input: Input, session: &mut Session) -> io::Result<Flow> {
        match input {
            Input::Eof => Ok(Flow::Quit),
            Input::TooLong { len } => {
                refuse(
                    &format!("a line of {len} bytes (at most {MAX_LINE})"),
                    session,
                )?;
                Ok(Flow::Continue)
            }
            Input::Line(line) => match parse(&line) {
                Ok(Some(c)) => self.handle(c, session),
                Ok(None) => Ok(Flow::Continue),
                Err(why) => {
                    log::warn!("refused {}: {why}", command::quoted(&line));
                    session.line(&format!("status ignored: {why}"))?;
                    Ok(Flow::Continue)
                }
            },
        }
    }

    fn progress(&mut self, task: &Task, info: &Info, session: &mut Session) -> io::Result<()> {
        match task {
            Task::Hint => {
                for line in &info.lines {
                    session.line(&self.search_line(info, line))?;
                }
            }
            Task::Go => {
                if let Some(best) = info.best() {
                    session.line(&self.search_line(info, best))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn done(&mut self, done: Finished<Task>, session: &mut Session) -> io::Result<Flow> {
        self.nodes += done.info.nodes;
        let stats = format!(
            "nodestats {} {}",
            self.nodes,
            seconds_text(self.started.elapsed())
        );
        match self.ctl.searched(done) {
            (_, Searched::Stale) => {}
            (_, Searched::Learned(learned)) => self.learned(learned, session)?,
            (Task::Hint, _) => {
                session.line(&stats)?;
                session.line("status")?;
            }
            (Task::Go, searched) => {
                session.line(&stats)?;
                if let Searched::Move(choice) = searched {
                    session.line(&move_line(&choice))?;
                }
            }
            (Task::Analyze { mut rest }, Searched::Analysis(info)) => {
                let Some((n, _)) = rest.pop() else {
                    return Ok(Flow::Continue);
                };
                if info.stopped && info.lines.is_empty() {
                    // Interrupted by ping: the analysis ends here.
                    session.line("status")?;
                    return Ok(Flow::Continue);
                }
                if let Some(best) = info.best() {
                    session.line(&format!("analysis {n} {}", eval_text(best.score)))?;
                }
                if info.stopped {
                    session.line("status")?;
                    return Ok(Flow::Continue);
                }
                self.next_analysis(rest, session)?;
            }
            // An analysis is never a move request, and only a learn learns.
            (Task::Analyze { .. } | Task::Learn, _) => {}
        }
        Ok(Flow::Continue)
    }
}
