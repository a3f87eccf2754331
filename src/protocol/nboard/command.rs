//! NBoard's commands: a line parsed into a [`Command`], or why it is not one. No I/O.

use crate::board::Move;

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
                _ => return Err(format!("unknown setting {}", quoted(what))),
            }
        }
        "move" => {
            let text = rest.split_whitespace().next().unwrap_or("");
            let mut parts = text.split('/');
            let mv = parts
                .next()
                .and_then(|m| m.parse::<Move>().ok())
                .ok_or_else(|| format!("move wants a square or PA, not {}", quoted(text)))?;
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
        _ => return Err(format!("unknown command {}", quoted(word))),
    }))
}

/// At most 24 characters of `text`, quoted, for a message about it (control characters
/// escaped, so that a status line stays one clean line).
pub fn quoted(text: &str) -> String {
    crate::excerpt::quoted(text, 24)
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
}
