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
//! move, without a search; `learn` adds the game to the book and saves it to the book file.
//!
//! The clock comes from the GGF of `set game` (`TI`, `TB`, `TW`) and each move's elapsed
//! time in its annotation (`F5/-1.50/3.2`): time left = main time + increments - the times
//! of the mover's moves.

use super::{Flow, Frontend, Input, Interrupt, MAX_LINE, NAME, Options, Session, seconds_text};
use crate::board::{Board, Color, Move};
use crate::book::build::Builder;
use crate::game::Game;
use crate::notation::{GgfGame, GgfMove, parse_ggf};
use crate::search::time::{Clock, Level, seconds, single_reply};
use crate::search::{Engine, EngineConfig, Info, Limits, Solve};
use crate::train::Rng;
use std::io::{self, Read, Write};
use std::time::Instant;

/// A parsed NBoard command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `nboard VERSION`: the first line of a session.
    Nboard(String),
    /// `set depth N`: the maximum midgame depth (1-60), used as the level.
    SetDepth(u32),
    /// `set game GGF`: the whole game.
    SetGame(String),
    /// `set contempt N`: the value of a draw (accepted; the engine has no contempt yet).
    SetContempt(i32),
    /// `move MV[/EVAL[/TIME]]`: one more move.
    Move {
        /// The move.
        mv: Move,
        /// Its evaluation, if given.
        eval: Option<f64>,
        /// Seconds it took, if given.
        time: Option<f64>,
    },
    /// `hint N`: report on the best N moves.
    Hint(usize),
    /// `go`: choose a move (not applied).
    Go,
    /// `ping N`: answer `pong N` once everything before is done.
    Ping(String),
    /// `learn`: add the game to the book.
    Learn,
    /// `analyze`: evaluate every position of the game.
    Analyze,
    /// `quit`.
    Quit,
}

/// Parses one line: `Ok(None)` for a blank line, `Err` with the reason for a line that is
/// not a well-formed command (the GUI is told in a `status` line, the log at warn level).
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let number = |s: &str, what: &str, low: i64, high: i64| -> Result<i64, String> {
        s.split_whitespace()
            .next()
            .and_then(|n| n.parse::<i64>().ok())
            .filter(|n| (low..=high).contains(n))
            .ok_or_else(|| format!("{what} wants a whole number from {low} to {high}"))
    };
    Ok(Some(match word {
        "nboard" => Command::Nboard(rest.to_string()),
        "set" => {
            let (what, value) = match rest.split_once(char::is_whitespace) {
                Some((w, v)) => (w, v.trim()),
                None => (rest, ""),
            };
            match what {
                "depth" => Command::SetDepth(number(value, "set depth", 1, 60)? as u32),
                "game" => Command::SetGame(value.to_string()),
                "contempt" => {
                    Command::SetContempt(number(value, "set contempt", -10_000, 10_000)? as i32)
                }
                _ => return Err(format!("unknown setting {}", excerpt(what))),
            }
        }
        "move" => {
            let text = rest.split_whitespace().next().unwrap_or("");
            let mut parts = text.split('/');
            let mv = parts
                .next()
                .and_then(|m| m.parse::<Move>().ok())
                .ok_or_else(|| format!("move wants a square or PA, not {}", excerpt(text)))?;
            let num = |p: Option<&str>| p.and_then(|s| s.trim().parse::<f64>().ok());
            let eval = num(parts.next()).filter(|v| v.is_finite());
            let time = num(parts.next()).filter(|v| v.is_finite() && *v >= 0.0);
            Command::Move { mv, eval, time }
        }
        // The GUI offers 1, 2, 4 or 64; more than 64 means all of them.
        "hint" => Command::Hint(
            rest.split_whitespace()
                .next()
                .and_then(|n| n.parse::<i64>().ok())
                .filter(|&n| n >= 1)
                .ok_or("hint wants a number of moves, 1 or more")?
                .min(64) as usize,
        ),
        "go" => Command::Go,
        "ping" => Command::Ping(rest.to_string()),
        "learn" => Command::Learn,
        "analyze" => Command::Analyze,
        "quit" => Command::Quit,
        _ => return Err(format!("unknown command {}", excerpt(word))),
    }))
}

/// At most 24 characters of `text`, quoted, for a message about it (control characters
/// escaped, so that a status line stays one clean line).
fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(24).collect();
    if s.len() < text.len() {
        s.push_str("...");
    }
    format!("{s:?}")
}

/// Tells the GUI (a `status` line) and the log (warn level) that an input was refused.
fn refuse(why: &str, session: &mut Session) -> io::Result<()> {
    log::warn!("refused {why}");
    session.line(&format!("status ignored: {why}"))
}

/// A principal variation as NBoard reads it: squares without separators, the side to move's
/// moves in upper case and the other side's in lower case, passes as `PA`.
pub fn pv_text(pv: &[Move]) -> String {
    let mut s = String::new();
    for (i, mv) in pv.iter().enumerate() {
        match mv {
            Move::Pass => s.push_str("PA"),
            Move::Play(sq) if i % 2 == 0 => s.push_str(&sq.name_upper()),
            Move::Play(sq) => s.push_str(&sq.name()),
        }
    }
    s
}

/// The DEPTH field of a `search` line for a board with `empties` empty squares: the
/// midgame depth as a bare integer, `100%` for an exact solve, `100%W` for a win/loss/draw
/// solve, and the confidence (`87%`) for a selective search to the end of the game (which
/// NBoard shows as a probable solve).
pub fn depth_text(info: &Info, empties: u32) -> String {
    match info.solve {
        Some(Solve::Exact) => "100%".to_string(),
        Some(Solve::Wld) => "100%W".to_string(),
        None if info.depth >= empties && info.depth > 0 && info.selectivity < 100 => {
            format!("{}%", info.selectivity)
        }
        None => info.depth.to_string(),
    }
}

/// An evaluation in discs with two decimals.
fn eval_text(score: i32) -> String {
    format!("{:.2}", score as f64)
}

/// What the running search is for.
#[derive(Debug)]
enum Task {
    /// `hint N`.
    Hint,
    /// `go`.
    Go { start: Instant },
    /// `analyze`: the positions still to search (moves made, board), last first.
    Analyze { rest: Vec<(usize, Board)> },
}

/// The NBoard front-end's state.
pub struct NBoard {
    options: Options,
    ggf: GgfGame,
    game: Game,
    task: Option<Task>,
    /// The `nodestats` of the searches of the current task.
    nodes: u64,
    started: Instant,
    /// Picks among the book moves within the randomness of the best.
    rng: Rng,
}

/// Depth of the searches with which `learn` scores new book positions.
const LEARN_DEPTH: u32 = 12;

/// `learn` stores a game's positions up to this many moves in.
const LEARN_PLIES: usize = 20;

/// A move as NBoard writes it: `F5`, or `PA`.
fn move_text(mv: Move) -> String {
    match mv {
        Move::Pass => "PA".to_string(),
        Move::Play(s) => s.name_upper(),
    }
}

impl NBoard {
    /// A front-end with these options and the start position.
    pub fn new(options: Options) -> NBoard {
        NBoard {
            options,
            ggf: GgfGame::default(),
            game: Game::default(),
            task: None,
            nodes: 0,
            started: Instant::now(),
            rng: Rng::new(super::random_seed()),
        }
    }

    /// The clock of `color` from the game's GGF: main time + extension + increments - time
    /// used on its moves. `None` when the game has no clock.
    fn clock(&self, color: Color) -> Option<Clock> {
        let c = self.ggf.clock(color)?;
        if c.main_secs <= 0.0 && c.increment <= 0.0 && c.extension <= 0.0 {
            return None;
        }
        let mine = self.ggf.moves.iter().filter(|m| m.color == color);
        let used: f64 = mine
            .clone()
            .filter_map(|m| m.time.filter(|t| t.is_finite() && *t > 0.0))
            .sum();
        let played = mine.filter(|m| m.mv != Move::Pass).count() as f64;
        let left = c.main_secs + c.extension + c.increment * played - used;
        Some(Clock {
            remaining: seconds(left),
            increment: seconds(c.increment),
            ..Clock::default()
        })
    }

    fn set_game(&mut self, text: &str, session: &mut Session) -> io::Result<()> {
        match parse_ggf(text) {
            Ok(g) => {
                self.game = g.to_game();
                self.ggf = g;
            }
            Err(e) => refuse(&format!("cannot read the game: {e}"), session)?,
        }
        Ok(())
    }

    fn play(
        &mut self,
        mv: Move,
        eval: Option<f64>,
        time: Option<f64>,
        session: &mut Session,
    ) -> io::Result<()> {
        let pos = self.game.position();
        let color = match (pos.play(mv), mv) {
            (Ok(_), _) => pos.to_move,
            // A square for the other side while the side to move must pass: pass first.
            (Err(_), Move::Play(_)) if pos.board.must_pass() => pos.to_move.opposite(),
            (Err(e), _) => return refuse(&e.to_string(), session),
        };
        let before = self.game.len();
        if let Err(e) = self.game.play_as(color, mv) {
            return refuse(&e.to_string(), session);
        }
        if self.game.len() == before + 2 {
            self.ggf.moves.push(GgfMove {
                color: pos.to_move,
                mv: Move::Pass,
                eval: None,
                time: None,
            });
        }
        self.ggf.moves.push(GgfMove {
            color,
            mv,
            eval,
            time,
        });
        Ok(())
    }

    /// Starts counting nodes and time for `nodestats`.
    fn reset_stats(&mut self) {
        self.nodes = 0;
        self.started = Instant::now();
    }

    /// `hint N`: the best `n` moves at the level, refreshed as each depth completes.
    fn hint(&mut self, n: usize, session: &mut Session) -> io::Result<()> {
        let board = self.game.position().board;
        if board.is_game_over() {
            return session.line("status");
        }
        if self.book_hint(&board, n, session)? {
            return session.line("status");
        }
        session.line("status Analyzing")?;
        self.reset_stats();
        let mut limits = self.options.analysis_limits(&board);
        limits.multipv = n;
        session.search(board, limits, false);
        self.task = Some(Task::Hint);
        Ok(())
    }

    /// The `book` lines of the best `n` book moves of `board`, each with the book's line
    /// after it; false (and nothing written) when the book is off or lacks the position.
    fn book_hint(&self, board: &Board, n: usize, session: &mut Session) -> io::Result<bool> {
        let Some(hints) = self.options.book_hints(board, n) else {
            return Ok(false);
        };
        for (m, pv) in hints {
            let depth = if m.depth >= 60 {
                "100%".to_string()
            } else {
                m.depth.to_string()
            };
            session.line(&format!(
                "book {} {} {} {depth}",
                pv_text(&pv),
                eval_text(m.score),
                m.games
            ))?;
        }
        Ok(true)
    }

    /// `learn`: the game's positions join the book (each new one scored by a search), which
    /// is saved to the book file when there is one.
    fn learn(&mut self, session: &mut Session) -> io::Result<()> {
        let engine = Engine::new(EngineConfig {
            threads: self.options.threads.max(1),
            hash_mb: 16,
        });
        let book = (*self.options.opening_book).clone();
        let mut builder = Builder::new(&engine, book, LEARN_DEPTH);
        builder.learn(&self.game.start().board, self.game.moves(), LEARN_PLIES);
        let book = builder.book;
        let status = match &self.options.book_file {
            Some(path) => match crate::book::file::save(&book, path) {
                Ok(()) => format!("status learned: {} book positions saved", book.len()),
                Err(e) => {
                    log::warn!("learn: {e:#}");
                    format!("status learn: the book was not saved: {e:#}")
                }
            },
            None => "status learned for this session (no --book-file to save to)".to_string(),
        };
        self.options.opening_book = std::sync::Arc::new(book);
        session.line(&status)?;
        session.line("learned")
    }

    /// `go`: a move within the level and the game's clock; a single legal move (or a forced
    /// pass) gets a short search (depth 8, at most 50 ms) only for the evaluation it reports.
    fn go(&mut self, session: &mut Session) -> io::Result<()> {
        if self.game.is_over() {
            log::warn!("go: the game is over");
            return session.line("status the game is over");
        }
        let board = self.game.position().board;
        if let Some(m) = self.options.book_move(&board, &mut self.rng) {
            log::info!("go: book move {} ({:+})", m.mv, m.score);
            return session.line(&format!(
                "=== {}/{}/{}",
                move_text(m.mv),
                eval_text(m.score),
                seconds_text(std::time::Duration::ZERO)
            ));
        }
        self.reset_stats();
        let limits = if single_reply(&board).is_some() {
            Limits {
                depth: Some(8),
                time: Some(std::time::Duration::from_millis(50)),
                ..Limits::default()
            }
        } else {
            let clock = self.clock(self.game.to_move());
            self.options
                .plan
                .limits(&board, clock.as_ref(), self.options.threads)
        };
        log::debug!("go: {limits:?}");
        session.search(board, limits, true);
        self.task = Some(Task::Go {
            start: Instant::now(),
        });
        Ok(())
    }

    /// `analyze`: every position of the game, from the last to the first.
    fn analyze(&mut self, session: &mut Session) -> io::Result<()> {
        self.reset_stats();
        let rest: Vec<(usize, Board)> = self
            .game
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
            let limits = self.options.analysis_limits(&board);
            session.search(board, limits, false);
            self.task = Some(Task::Analyze { rest });
            return Ok(());
        }
        self.task = None;
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
                self.options.plan.level = Some(Level::new(d));
                self.options.plan.depth = None;
            }
            Command::SetGame(text) => self.set_game(&text, session)?,
            Command::SetContempt(c) => {
                // The engine has no contempt setting yet: draws count as 0.
                log::debug!("set contempt {c}: ignored (draws score 0)");
            }
            Command::Move { mv, eval, time } => self.play(mv, eval, time, session)?,
            Command::Hint(n) => self.hint(n, session)?,
            Command::Go => self.go(session)?,
            Command::Ping(n) => {
                if n.is_empty() {
                    session.line("pong")?
                } else {
                    session.line(&format!("pong {n}"))?
                }
            }
            Command::Learn => self.learn(session)?,
            Command::Analyze => self.analyze(session)?,
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }

    /// A `search` line for one scored move of the current position.
    fn search_line(&self, info: &Info, line: &crate::search::Line) -> String {
        let empties = self.game.position().board.empty_count();
        format!(
            "search {} {} 0 {}",
            pv_text(&line.pv),
            eval_text(line.score),
            depth_text(info, empties)
        )
    }
}

impl Frontend for NBoard {
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
                    log::warn!("refused {}: {why}", excerpt(&line));
                    session.line(&format!("status ignored: {why}"))?;
                    Ok(Flow::Continue)
                }
            },
        }
    }

    fn progress(&mut self, info: &Info, session: &mut Session) -> io::Result<()> {
        match &self.task {
            Some(Task::Hint) => {
                for line in &info.lines {
                    session.line(&self.search_line(info, line))?;
                }
            }
            Some(Task::Go { .. }) => {
                if let Some(best) = info.best() {
                    session.line(&self.search_line(info, best))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn done(&mut self, info: Info, session: &mut Session) -> io::Result<Flow> {
        self.nodes += info.nodes;
        let stats = format!(
            "nodestats {} {}",
            self.nodes,
            seconds_text(self.started.elapsed())
        );
        match self.task.take() {
            Some(Task::Hint) => {
                session.line(&stats)?;
                session.line("status")?;
            }
            Some(Task::Go { start }) => {
                let board = self.game.position().board;
                let (mv, score) = match info.best() {
                    Some(l) => (l.mv, l.score),
                    None => {
                        let mv = single_reply(&board)
                            .or_else(|| {
                                crate::board::Square::iter(board.moves())
                                    .next()
                                    .map(Move::Play)
                            })
                            .unwrap_or(Move::Pass);
                        (mv, 0)
                    }
                };
                session.line(&stats)?;
                session.line(&format!(
                    "=== {}/{}/{}",
                    move_text(mv),
                    eval_text(score),
                    seconds_text(start.elapsed())
                ))?;
            }
            Some(Task::Analyze { mut rest }) => {
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
            None => {}
        }
        Ok(Flow::Continue)
    }
}

/// Runs an NBoard session on `input` and `output` until `quit` or EOF.
pub fn run<R: Read + Send + 'static, W: Write>(
    options: Options,
    input: R,
    output: W,
) -> io::Result<()> {
    let config = options.engine_config();
    let mut nboard = NBoard::new(options);
    super::run(&mut nboard, input, output, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing() {
        let ok = |l: &str| parse(l).unwrap().unwrap();
        assert_eq!(ok("nboard 2"), Command::Nboard("2".into()));
        assert_eq!(ok("set depth 12"), Command::SetDepth(12));
        assert!(parse("set depth 0").unwrap_err().contains("1 to 60"));
        assert!(parse("set depth 61").is_err());
        assert!(parse("set depth x").is_err());
        assert!(parse("set frob 1").unwrap_err().contains("\"frob\""));
        assert_eq!(ok("set contempt -150"), Command::SetContempt(-150));
        assert_eq!(
            ok("move D6/-1.50/0.5"),
            Command::Move {
                mv: Move::Play("d6".parse().unwrap()),
                eval: Some(-1.5),
                time: Some(0.5)
            }
        );
        assert_eq!(
            ok("move F5//3.1"),
            Command::Move {
                mv: Move::Play("f5".parse().unwrap()),
                eval: None,
                time: Some(3.1)
            }
        );
        assert_eq!(
            ok("move PA"),
            Command::Move {
                mv: Move::Pass,
                eval: None,
                time: None
            }
        );
        assert!(parse("move Z9").unwrap_err().contains("\"Z9\""));
        assert!(parse("move").is_err());
        assert_eq!(ok("hint 4"), Command::Hint(4));
        assert_eq!(ok("hint 100"), Command::Hint(64));
        assert!(parse("hint").is_err());
        assert!(parse("hint 0").is_err());
        assert_eq!(ok("ping 7"), Command::Ping("7".into()));
        assert_eq!(ok("  go  "), Command::Go);
        assert_eq!(parse("bogus").unwrap_err(), "unknown command \"bogus\"");
        let long = "x".repeat(1000);
        assert!(parse(&long).unwrap_err().len() < 60);
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse(" \t "), Ok(None));
    }

    #[test]
    fn texts() {
        let pv: Vec<Move> = ["f5", "d6", "pa", "c3"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(pv_text(&pv), "F5d6PAc3");
        let mut info = Info {
            depth: 12,
            selectivity: 95,
            ..Info::default()
        };
        assert_eq!(depth_text(&info, 30), "12");
        info.depth = 30;
        assert_eq!(depth_text(&info, 30), "95%");
        info.solve = Some(Solve::Exact);
        assert_eq!(depth_text(&info, 30), "100%");
        info.solve = Some(Solve::Wld);
        assert_eq!(depth_text(&info, 30), "100%W");
        assert_eq!(eval_text(-3), "-3.00");
    }
}
