//! The referee's side of GTP (Othello dialect): `clear_board`, `play`, `genmove`,
//! `time_settings` and `time_left`.
//!
//! The engine keeps its own board: before each `genmove` it is sent, with `play`, every move
//! it has not seen. A pass is sent as `play C pass`, unless the engine wants implicit passes
//! (the option, or the engine refused an explicit pass once): then the pass is left out and
//! the engine infers it from the next move's colour. Clocks: `time_settings MAIN 0 0` at the
//! start of a timed game, `time_left C SECS 0` before each `genmove` (when the engine lists
//! these commands). A response that is neither `=` nor `?` is a protocol error.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::client::{Client, EngineMove, GameSetup, MoveRequest, Reply, shorten};
use super::engine::{EngineFailure, EngineProcess};
use super::{EngineSpec, TimeControl};
use crate::board::{Color, Move, Position};

/// A GTP engine process.
pub struct GtpClient {
    process: EngineProcess,
    response_timeout: Duration,
    commands: HashSet<String>,
    implicit_pass: bool,
    /// Number of moves of the current game the engine knows.
    known: usize,
    tc: Option<TimeControl>,
}

/// A GTP answer: success (`=`) or failure (`?`) with its text.
enum Response {
    Success(String),
    Failure(String),
}

impl GtpClient {
    /// Starts the engine and asks for its protocol version and command list.
    pub fn start(
        spec: &EngineSpec,
        response_timeout: Duration,
    ) -> Result<GtpClient, EngineFailure> {
        let process = EngineProcess::spawn(&spec.name, &spec.command)?;
        let mut c = GtpClient {
            process,
            response_timeout,
            commands: HashSet::new(),
            implicit_pass: spec.implicit_pass,
            known: 0,
            tc: None,
        };
        let start = |e: EngineFailure| match e {
            EngineFailure::Crashed(s) | EngineFailure::Protocol(s) => EngineFailure::Start(s),
            EngineFailure::TimedOut {
                waiting_for,
                waited,
            } => EngineFailure::Start(format!(
                "no answer to `{waiting_for}` within {:.1} s",
                waited.as_secs_f64()
            )),
            other => other,
        };
        c.command("protocol_version").map_err(start)?;
        if let Response::Success(list) = c.command("list_commands").map_err(start)? {
            c.commands = list
                .lines()
                .map(|l| l.trim().to_ascii_lowercase())
                .filter(|l| !l.is_empty())
                .collect();
        }
        Ok(c)
    }

    /// True when the engine listed `cmd` (or listed nothing, in which case it is tried).
    fn knows(&self, cmd: &str) -> bool {
        self.commands.is_empty() || self.commands.contains(cmd)
    }

    /// Sends a command and reads its response within the response timeout.
    fn command(&mut self, cmd: &str) -> Result<Response, EngineFailure> {
        let deadline = Instant::now() + self.response_timeout;
        self.command_until(cmd, deadline)
    }

    /// Sends a command and reads its response: blank lines, then `=` or `?` with an
    /// optional id, then lines up to an empty one.
    fn command_until(&mut self, cmd: &str, deadline: Instant) -> Result<Response, EngineFailure> {
        self.process.send(cmd)?;
        let first = loop {
            let line = self.process.recv(deadline, cmd)?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        let (success, rest) = match first.chars().next() {
            Some('=') => (true, &first[1..]),
            Some('?') => (false, &first[1..]),
            _ => {
                return Err(EngineFailure::Protocol(format!(
                    "answered `{cmd}` with {:?}, not a GTP response (`= ...` or `? ...`)",
                    shorten(&first)
                )));
            }
        };
        let mut text = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string();
        loop {
            let line = self.process.recv(deadline, cmd)?;
            if line.trim().is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(line.trim_end());
        }
        Ok(if success {
            Response::Success(text)
        } else {
            Response::Failure(text)
        })
    }

    /// Sends a command that must succeed.
    fn expect_success(&mut self, cmd: &str) -> Result<String, EngineFailure> {
        match self.command(cmd)? {
            Response::Success(t) => Ok(t),
            Response::Failure(t) => Err(EngineFailure::Protocol(format!(
                "refused `{cmd}`: {}",
                shorten(&t)
            ))),
        }
    }

    /// Sends every move the engine has not seen yet.
    fn sync(&mut self, moves: &[crate::notation::GgfMove]) -> Result<(), EngineFailure> {
        while self.known < moves.len() {
            let m = moves[self.known];
            let c = gtp_color(m.color);
            match m.mv {
                Move::Pass if self.implicit_pass => {}
                Move::Pass => {
                    let cmd = format!("play {c} pass");
                    if let Response::Failure(t) = self.command(&cmd)? {
                        log::warn!(
                            "{} refused `{cmd}` ({t}): sending it implicit passes from now on",
                            self.process.name()
                        );
                        self.implicit_pass = true;
                    }
                }
                Move::Play(sq) => {
                    self.expect_success(&format!("play {c} {}", sq.name_upper()))?;
                }
            }
            self.known += 1;
        }
        Ok(())
    }
}

/// `b` or `w`.
fn gtp_color(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

impl Client for GtpClient {
    fn new_game(&mut self, setup: &GameSetup<'_>) -> Result<(), EngineFailure> {
        if setup.start != Position::start() {
            return Err(EngineFailure::Protocol(
                "GTP cannot set up a position other than the start".to_string(),
            ));
        }
        if self.knows("boardsize") {
            self.expect_success("boardsize 8")?;
        }
        self.expect_success("clear_board")?;
        self.known = 0;
        self.tc = setup.tc;
        if let Some(tc) = setup.tc
            && self.knows("time_settings")
        {
            // Absolute time: main time and no byo-yomi. GTP has no increment; the
            // increments show in the time_left sent before each move.
            let main = tc.main.as_secs().max(1);
            self.expect_success(&format!("time_settings {main} 0 0"))?;
        }
        Ok(())
    }

    fn genmove(&mut self, req: &MoveRequest<'_>) -> Result<Reply, EngineFailure> {
        self.sync(req.moves)?;
        let c = gtp_color(req.color);
        if let (Some(_), Some(left)) = (self.tc, req.remaining)
            && self.knows("time_left")
        {
            let secs = left.as_secs().max(1);
            self.expect_success(&format!("time_left {c} {secs} 0"))?;
        }
        let cmd = format!("genmove {c}");
        let t0 = Instant::now();
        let text = match self.command_until(&cmd, req.deadline)? {
            Response::Success(t) => t,
            Response::Failure(t) => {
                return Err(EngineFailure::Protocol(format!(
                    "refused `{cmd}`: {}",
                    shorten(&t)
                )));
            }
        };
        let elapsed = t0.elapsed();
        let word = text.split_whitespace().next().unwrap_or("");
        let mv = if word.eq_ignore_ascii_case("resign") {
            EngineMove::Resign
        } else {
            match word.parse::<Move>() {
                Ok(m) => EngineMove::Move(m),
                Err(_) => {
                    return Err(EngineFailure::Protocol(format!(
                        "answered `{cmd}` with {:?}, not a move",
                        shorten(&text)
                    )));
                }
            }
        };
        // The engine has played its move on its own board.
        self.known = req.moves.len() + 1;
        Ok(Reply {
            mv,
            eval: None,
            elapsed,
        })
    }

    fn process(&self) -> &EngineProcess {
        &self.process
    }

    fn process_mut(&mut self) -> &mut EngineProcess {
        &mut self.process
    }
}
