//! The terminal game's commands: a line parsed into a [`Command`] (a move or a command
//! word), or why it is not one; the `help` text. No I/O.

use crate::board::Move;

/// The moves a hint lists when the command does not say.
pub const DEFAULT_HINTS: usize = 3;

/// A parsed line of the terminal game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// A move for the side to move (`f5`, `pass`).
    Move(Move),
    /// `undo`: take back the last move of a person (and the engine's replies after it).
    Undo,
    /// `hint [N]`: the best N moves with their scores.
    Hint(usize),
    /// `go`: the engine plays the move of the side to move.
    Go,
    /// `swap`: the person (or people) and the engine change colours.
    Swap,
    /// `new [POS]`: a new game from the start position or from POS.
    New(Option<String>),
    /// `board`: draw the board again.
    Board,
    /// `moves`: the game's transcript so far.
    Moves,
    /// `save FILE`: write the game to FILE in GGF.
    Save(String),
    /// `set`: list the engine options; `set KEY VALUE`: change one.
    Set(Option<(String, String)>),
    /// `stop`: the thinking engine plays its best move so far.
    Stop,
    /// `help`.
    Help,
    /// `quit`.
    Quit,
}

/// The help text (`help`).
pub const HELP: &str = "\
Moves: a square such as f5 (any case). Passes are played for whoever has no move.
Commands:
  undo          take back your last move (and the engine's reply)
  hint [N]      the best N moves with their scores (default 3)
  go            let the engine play this move
  swap          change colours with the engine
  new [POS]     a new game, from the start or from POS (board string or transcript)
  board         draw the board again
  moves         the moves so far, as a transcript
  save FILE     write the game to FILE (GGF)
  set           the engine options; set KEY VALUE changes one (level, depth, time,
                book, book-randomness, threads, hash)
  stop          make the thinking engine move now
  help          this text
  quit          leave";

/// Parses one line. `Ok(None)` for a blank line; the error says why a line is not a move
/// or a command.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim();
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    // The rest of the line as typed (a file name may hold runs of spaces).
    let tail = line[first.len()..].trim();
    let name = first.to_ascii_lowercase();
    let no_args = |c: Command| -> Result<Option<Command>, String> {
        if rest.is_empty() {
            Ok(Some(c))
        } else {
            Err(format!("{name} takes no argument"))
        }
    };
    match name.as_str() {
        "undo" => no_args(Command::Undo),
        "hint" => match rest.as_slice() {
            [] => Ok(Some(Command::Hint(DEFAULT_HINTS))),
            [n] => match n.parse::<usize>() {
                Ok(n) if (1..=64).contains(&n) => Ok(Some(Command::Hint(n))),
                _ => Err(format!(
                    "hint wants a number of moves from 1 to 64, not {n:?}"
                )),
            },
            _ => Err("hint takes at most one number".to_string()),
        },
        "go" => no_args(Command::Go),
        "swap" => no_args(Command::Swap),
        "new" => Ok(Some(Command::New((!tail.is_empty()).then(|| tail.into())))),
        "board" | "show" => no_args(Command::Board),
        "moves" | "history" => no_args(Command::Moves),
        "save" if tail.is_empty() => Err("save wants a file name".to_string()),
        "save" => Ok(Some(Command::Save(tail.into()))),
        "set" => match rest.as_slice() {
            [] => Ok(Some(Command::Set(None))),
            [k, v] => Ok(Some(Command::Set(Some((
                k.to_ascii_lowercase(),
                v.to_string(),
            ))))),
            _ => Err("set takes a key and a value (set level 20), or nothing".to_string()),
        },
        "stop" => no_args(Command::Stop),
        "help" | "?" => no_args(Command::Help),
        "quit" | "exit" => no_args(Command::Quit),
        "play" => match rest.as_slice() {
            [mv] => parse_move(mv).map(|m| Some(Command::Move(m))),
            _ => Err("play wants one move (play f5)".to_string()),
        },
        _ if rest.is_empty() => parse_move(first).map(|m| Some(Command::Move(m))),
        _ if first.parse::<Move>().is_ok() => Err(format!(
            "a move stands alone on its line, not {}",
            quoted(line)
        )),
        _ => Err(format!(
            "unknown command {} (help lists them)",
            quoted(first)
        )),
    }
}

fn parse_move(text: &str) -> Result<Move, String> {
    text.parse::<Move>().map_err(|_| {
        format!(
            "{} is neither a move nor a command (help lists them)",
            quoted(text)
        )
    })
}

/// Text from the input, quoted and escaped for an answer, and shortened past 40 characters.
fn quoted(text: &str) -> String {
    crate::excerpt::quoted(text, 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Result<Option<Command>, String> {
        parse(line)
    }

    #[test]
    fn parsing() {
        assert_eq!(cmd("  "), Ok(None));
        assert_eq!(
            cmd("F5"),
            Ok(Some(Command::Move(Move::Play("f5".parse().unwrap()))))
        );
        assert_eq!(
            cmd("play d3"),
            Ok(Some(Command::Move(Move::Play("d3".parse().unwrap()))))
        );
        assert_eq!(cmd("pass"), Ok(Some(Command::Move(Move::Pass))));
        assert_eq!(cmd("hint"), Ok(Some(Command::Hint(DEFAULT_HINTS))));
        assert_eq!(cmd("HINT 5"), Ok(Some(Command::Hint(5))));
        assert!(cmd("hint 0").is_err());
        assert!(cmd("hint x").is_err());
        assert_eq!(cmd("new"), Ok(Some(Command::New(None))));
        assert_eq!(cmd("new f5d6"), Ok(Some(Command::New(Some("f5d6".into())))));
        assert_eq!(
            cmd("set level 20"),
            Ok(Some(Command::Set(Some(("level".into(), "20".into())))))
        );
        assert!(cmd("set level").is_err());
        assert!(cmd("save").is_err());
        assert!(cmd("undo 2").is_err());
        assert!(cmd("z9").is_err());
        assert!(cmd("frobnicate now").is_err());
        assert_eq!(cmd("quit"), Ok(Some(Command::Quit)));
    }
}
