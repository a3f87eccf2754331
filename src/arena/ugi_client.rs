//! The referee's side of UGI, as a tournament manager such as cutegames speaks it: `ugi`
//! answered by `ugiok`, `uginewgame` at the start of a game, and for each move request the
//! whole game as `position startpos|fen BOARD SIDE moves ...` (passes as `0000`), `isready`
//! answered by `readyok`, then `go` with both clocks (`p1time`/`p2time` black's and white's
//! milliseconds, `p1inc`/`p2inc` the increments), or `go depth N` for an engine with a fixed
//! depth, or a bare `go` when the game is untimed (the engine's own settings decide),
//! answered by `bestmove MOVE`. `info` lines before it are read for the score
//! (`score cp N`: N/100 discs); other lines are ignored.

use std::time::{Duration, Instant};

use super::client::{Client, GameSetup, MoveRequest, Reply};
use super::engine::{EngineFailure, EngineProcess};
use super::{EngineSpec, TimeControl};
use crate::board::{Color, Move, Position};
use crate::notation::{fen, parse_ugi_move, ugi_move};

/// A UGI engine process.
pub struct UgiClient {
    process: EngineProcess,
    response_timeout: Duration,
    depth: Option<u32>,
    start: Position,
    tc: Option<TimeControl>,
}

/// Reads `bestmove MOVE`: exactly two words, a square or `0000`.
fn parse_bestmove(line: &str) -> Option<Move> {
    match line.split_whitespace().collect::<Vec<_>>()[..] {
        ["bestmove", mv] => parse_ugi_move(mv),
        _ => None,
    }
}

/// The score of an `info` line in discs (`score cp N`: N/100), if it has one.
fn info_score(line: &str) -> Option<f64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        return None;
    }
    let i = words.windows(2).position(|w| w == ["score", "cp"])?;
    let cp: f64 = words.get(i + 2)?.parse().ok()?;
    cp.is_finite().then_some(cp / 100.0)
}

impl UgiClient {
    /// Starts the engine: `ugi` answered by `ugiok`, then `isready` by `readyok`.
    pub fn start(
        spec: &EngineSpec,
        response_timeout: Duration,
    ) -> Result<UgiClient, EngineFailure> {
        let process = EngineProcess::spawn(&spec.name, &spec.command)?;
        let mut c = UgiClient {
            process,
            response_timeout,
            depth: spec.depth,
            start: Position::start(),
            tc: None,
        };
        let start = |e: EngineFailure| EngineFailure::Start(e.to_string());
        c.exchange("ugi", "ugiok").map_err(start)?;
        c.exchange("isready", "readyok").map_err(start)?;
        Ok(c)
    }

    /// Sends `cmd` and reads lines up to `want` within the response timeout.
    fn exchange(&mut self, cmd: &str, want: &str) -> Result<(), EngineFailure> {
        self.process.send(cmd)?;
        let deadline = Instant::now() + self.response_timeout;
        loop {
            let line = self.process.recv(deadline, cmd)?;
            if line.trim() == want {
                return Ok(());
            }
        }
    }

    /// The `go` command of a request.
    fn go(&self, req: &MoveRequest<'_>) -> String {
        match (self.tc, req.remaining) {
            (Some(tc), Some(left)) => {
                let other = req.other_remaining.unwrap_or(left);
                let (black, white) = match req.color {
                    Color::Black => (left, other),
                    Color::White => (other, left),
                };
                let inc = tc.increment.as_millis();
                format!(
                    "go p1time {} p2time {} p1inc {inc} p2inc {inc}",
                    black.as_millis(),
                    white.as_millis()
                )
            }
            _ => match self.depth {
                Some(d) => format!("go depth {d}"),
                None => "go".to_string(),
            },
        }
    }
}

impl Client for UgiClient {
    fn new_game(&mut self, setup: &GameSetup<'_>) -> Result<(), EngineFailure> {
        self.start = setup.start;
        self.tc = setup.tc;
        self.process.send("uginewgame")?;
        self.exchange("isready", "readyok")
    }

    fn genmove(&mut self, req: &MoveRequest<'_>) -> Result<Reply, EngineFailure> {
        let mut position = if req.start == Position::start() {
            "position startpos".to_string()
        } else {
            format!("position fen {}", fen(&req.start))
        };
        if !req.moves.is_empty() {
            position.push_str(" moves");
            for m in req.moves {
                position.push(' ');
                position.push_str(&ugi_move(m.mv));
            }
        }
        self.process.send(&position)?;
        self.exchange("isready", "readyok")?;
        let go = self.go(req);
        let t0 = Instant::now();
        self.process.send(&go)?;
        let mut eval = None;
        loop {
            let line = self.process.recv(req.deadline, "go")?;
            let t = line.trim();
            if let Some(e) = info_score(t) {
                eval = Some(e);
                continue;
            }
            if !t.starts_with("bestmove") {
                continue;
            }
            let mv = parse_bestmove(t);
            return Reply::answered(mv, eval, t0.elapsed(), (&go, "`bestmove MOVE`"), t);
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

    #[test]
    fn answers() {
        let f5 = Move::Play("f5".parse().unwrap());
        assert_eq!(parse_bestmove("bestmove f5"), Some(f5));
        assert_eq!(parse_bestmove("bestmove 0000"), Some(Move::Pass));
        assert_eq!(parse_bestmove("bestmove f5 ponder d6"), None);
        assert_eq!(parse_bestmove("bestmove pass"), None);
        assert_eq!(parse_bestmove("bestmove"), None);
        assert_eq!(
            info_score("info depth 6 score cp -150 nodes 10 pv f5"),
            Some(-1.5)
        );
        assert_eq!(info_score("info depth 6 nodes 10"), None);
        assert_eq!(info_score("bestmove f5"), None);
    }
}
