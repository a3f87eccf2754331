//! The referee's side of the NBoard protocol (version 2), in the order the NBoard GUI uses:
//! `set game GGF` at the start of a game (the start position, the opening moves and the
//! clock as `TI`), `set depth N` when the engine has a fixed depth, then for each move
//! request the moves it has not seen as `move MV/EVAL/TIME` (its own moves too: an NBoard
//! engine does not apply the move it answers), `ping K` and its `pong K`, and `go`, answered
//! by `=== MV[/EVAL[/TIME]]`.
//!
//! The times in `move` lines are the referee's measurements, so the engine's idea of its
//! clock (TI minus its moves' times plus increments) matches the referee's. Other lines from
//! the engine (`search`, `status`, `nodestats`, unknown ones) are ignored, as the protocol
//! says; a `===` line that does not hold a move is a protocol error.

use std::time::{Duration, Instant};

use super::EngineSpec;
use super::client::{Client, GameSetup, MoveRequest, Reply};
use super::engine::{EngineFailure, EngineProcess};
use crate::board::Move;
use crate::notation::{GgfGame, GgfMove};

/// An NBoard engine process.
pub struct NboardClient {
    process: EngineProcess,
    response_timeout: Duration,
    depth: Option<u32>,
    ping: u64,
    /// Number of moves of the current game the engine knows.
    known: usize,
    /// The name the engine gave with `set myname`.
    engine_name: Option<String>,
}

/// A move as NBoard writes it: `F5`, `F5/-1.5/0.61`, `PA`, `D3//0.2`.
pub(crate) fn nboard_move(m: &GgfMove) -> String {
    let mut s = match m.mv {
        Move::Play(sq) => sq.name_upper(),
        Move::Pass => "PA".to_string(),
    };
    if m.eval.is_some() || m.time.is_some() {
        s.push('/');
        if let Some(e) = m.eval {
            s.push_str(&format!("{e:.2}"));
        }
        if let Some(t) = m.time {
            s.push_str(&format!("/{t:.3}"));
        }
    }
    s
}

impl NboardClient {
    /// Starts the engine: `nboard 2`, then `ping 0` answered by `pong 0`.
    pub fn start(
        spec: &EngineSpec,
        response_timeout: Duration,
    ) -> Result<NboardClient, EngineFailure> {
        let process = EngineProcess::spawn(&spec.name, &spec.command)?;
        let mut c = NboardClient {
            process,
            response_timeout,
            depth: spec.depth,
            ping: 0,
            known: 0,
            engine_name: None,
        };
        c.process
            .send("nboard 2")
            .map_err(|e| EngineFailure::Start(e.to_string()))?;
        c.sync_ping()
            .map_err(|e| EngineFailure::Start(e.to_string()))?;
        if let Some(n) = &c.engine_name {
            log::debug!("{} calls itself {n}", spec.name);
        }
        Ok(c)
    }

    /// Sends `ping K` and waits for `pong K`, noting `set myname`; other lines are dropped.
    fn sync_ping(&mut self) -> Result<(), EngineFailure> {
        let cmd = format!("ping {}", self.ping);
        let want = format!("pong {}", self.ping);
        self.ping += 1;
        self.process.send(&cmd)?;
        let deadline = Instant::now() + self.response_timeout;
        loop {
            let line = self.process.recv(deadline, &cmd)?;
            let t = line.trim();
            if t == want {
                return Ok(());
            }
            if let Some(name) = t.strip_prefix("set myname ") {
                self.engine_name = Some(name.trim().to_string());
            }
        }
    }
}

/// Reads the move of a `=== MV[/EVAL[/TIME]]` line (slashes or, leniently, blanks).
fn parse_answer(rest: &str) -> Option<(Move, Option<f64>)> {
    let rest = rest.trim();
    let mut parts: Vec<&str> = if rest.contains('/') {
        rest.split('/').map(str::trim).collect()
    } else {
        rest.split_whitespace().collect()
    };
    if parts.is_empty() {
        parts.push("");
    }
    let mv = parts[0].parse::<Move>().ok()?;
    let eval = parts
        .get(1)
        .and_then(|e| e.parse::<f64>().ok())
        .filter(|e| e.is_finite());
    Some((mv, eval))
}

impl Client for NboardClient {
    fn new_game(&mut self, setup: &GameSetup<'_>) -> Result<(), EngineFailure> {
        let ggf = GgfGame {
            place: Some("outflank match".to_string()),
            black: Some(setup.black.to_string()),
            white: Some(setup.white.to_string()),
            result: Some("?".to_string()),
            time: setup.tc,
            start: setup.start,
            moves: setup.opening.to_vec(),
            ..GgfGame::default()
        };
        self.process.send(&format!("set game {}", ggf.to_ggf()))?;
        self.known = setup.opening.len();
        if let Some(d) = self.depth {
            self.process.send(&format!("set depth {d}"))?;
        }
        Ok(())
    }

    fn genmove(&mut self, req: &MoveRequest<'_>) -> Result<Reply, EngineFailure> {
        while self.known < req.moves.len() {
            let line = format!("move {}", nboard_move(&req.moves[self.known]));
            self.process.send(&line)?;
            self.known += 1;
        }
        self.sync_ping()?;
        let t0 = Instant::now();
        self.process.send("go")?;
        loop {
            let line = self.process.recv(req.deadline, "go")?;
            let Some(rest) = line.trim_start().strip_prefix("===") else {
                continue;
            };
            let answer = parse_answer(rest);
            let (mv, eval) = (answer.map(|a| a.0), answer.and_then(|a| a.1));
            return Reply::answered(mv, eval, t0.elapsed(), ("go", "a move"), &line);
        }
    }

    fn process(&self) -> &EngineProcess {
        &self.process
    }

    fn process_mut(&mut self) -> &mut EngineProcess {
        &mut self.process
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    #[test]
    fn answers() {
        let f5 = Move::Play("f5".parse().unwrap());
        assert_eq!(parse_answer(" F5/-1.50/0.61"), Some((f5, Some(-1.5))));
        assert_eq!(parse_answer(" f5"), Some((f5, None)));
        assert_eq!(parse_answer(" F5 2 0.1"), Some((f5, Some(2.0))));
        assert_eq!(parse_answer(" PA"), Some((Move::Pass, None)));
        assert_eq!(parse_answer(" zz/1"), None);
        assert_eq!(parse_answer(""), None);
    }

    #[test]
    fn move_lines() {
        let m = |eval, time| GgfMove {
            color: Color::Black,
            mv: Move::Play("d3".parse().unwrap()),
            eval,
            time,
        };
        assert_eq!(nboard_move(&m(None, None)), "D3");
        assert_eq!(nboard_move(&m(Some(-1.5), Some(0.25))), "D3/-1.50/0.250");
        assert_eq!(nboard_move(&m(None, Some(0.2))), "D3//0.200");
    }
}
