//! UGI's commands, parsed into an enum (no I/O): what the manager sends, checked for form
//! (the moves' legality is the game's to check).

use crate::board::{ByColor, Color, Move, Position};
use crate::notation::{parse_fen, parse_ugi_move};

/// What `go` asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Go {
    /// Each colour's time left in milliseconds (`p1time` black, `p2time` white).
    pub time: ByColor<Option<u64>>,
    /// Each colour's increment in milliseconds.
    pub inc: ByColor<Option<u64>>,
    /// Search exactly this long (milliseconds).
    pub movetime: Option<u64>,
    /// Search to this depth.
    pub depth: Option<u32>,
    /// Search about this many nodes.
    pub nodes: Option<u64>,
    /// Search until `stop`.
    pub infinite: bool,
}

/// A `query`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// `query p1turn`: is black (p1) to move?
    P1Turn,
    /// `query gameover`: can neither side move?
    GameOver,
    /// `query result`: `p1win`, `p2win`, `draw`, or `none` while the game goes on.
    Result,
    /// `query fen`: the position as a FEN.
    Fen,
}

/// A parsed UGI command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `ugi`: the handshake.
    Ugi,
    /// `isready`.
    IsReady,
    /// `uginewgame`.
    NewGame,
    /// `setoption name K value V` (the name may hold spaces).
    SetOption {
        /// The option's name as sent.
        name: String,
        /// Its value (empty for a button).
        value: String,
    },
    /// `position ...`: the start and every move since (passes included).
    Position {
        /// The position before the moves.
        start: Position,
        /// The moves, `0000` read as a pass.
        moves: Vec<Move>,
    },
    /// `go ...`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `query ...`.
    Query(Query),
    /// `quit`.
    Quit,
}

/// Reads a move of a move list: a square, or `0000` for a pass.
fn parse_move(s: &str) -> Result<Move, String> {
    parse_ugi_move(s)
        .ok_or_else(|| format!("{:?} is not a move (a square like f5, or 0000)", short(s)))
}

/// At most 40 characters of `s`, for messages.
fn short(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        t.push_str("...");
    }
    t
}

fn number<T: std::str::FromStr>(key: &str, value: Option<&&str>) -> Result<T, String> {
    let v = value.ok_or_else(|| format!("go {key}: no value"))?;
    v.parse()
        .map_err(|_| format!("go {key}: {:?} is not a whole number", short(v)))
}

fn parse_go(args: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let value = args.get(i + 1);
        i += 2;
        match key {
            // A negative clock (an overrun the manager has not judged yet) counts as zero.
            "p1time" | "p2time" | "wtime" | "btime" => {
                let ms = number::<i64>(key, value)?.max(0) as u64;
                let black = key == "p1time" || key == "btime";
                go.time[if black { Color::Black } else { Color::White }] = Some(ms);
            }
            "p1inc" | "p2inc" | "winc" | "binc" => {
                let ms = number::<i64>(key, value)?.max(0) as u64;
                let black = key == "p1inc" || key == "binc";
                go.inc[if black { Color::Black } else { Color::White }] = Some(ms);
            }
            "movetime" => go.movetime = Some(number(key, value)?),
            "depth" => {
                let d: u32 = number(key, value)?;
                if !(1..=60).contains(&d) {
                    return Err(format!("go depth {d}: depths are 1-60"));
                }
                go.depth = Some(d);
            }
            "nodes" => go.nodes = Some(number(key, value)?),
            "infinite" => {
                go.infinite = true;
                i -= 1;
            }
            // `movestogo` and the like: read and not used.
            "movestogo" | "mate" => {}
            _ => return Err(format!("go: unknown parameter {:?}", short(key))),
        }
    }
    Ok(go)
}

fn parse_position(args: &[&str]) -> Result<Command, String> {
    let (start, rest) = match args.first() {
        Some(&"startpos") => (Position::start(), &args[1..]),
        Some(&"fen") => {
            let end = args
                .iter()
                .position(|a| *a == "moves")
                .unwrap_or(args.len());
            let start = parse_fen(&args[1..end].join(" ")).map_err(|e| e.to_string())?;
            (start, &args[end..])
        }
        _ => return Err("position: expected startpos or fen".to_string()),
    };
    let moves = match rest.split_first() {
        None => Vec::new(),
        Some((&"moves", list)) => list
            .iter()
            .map(|m| parse_move(m))
            .collect::<Result<_, _>>()?,
        Some((other, _)) => {
            return Err(format!(
                "position: {:?} where `moves` was expected",
                short(other)
            ));
        }
    };
    Ok(Command::Position { start, moves })
}

/// Parses one line: `Ok(None)` for a blank line, `Err` with the reason for anything else
/// that is not a command (it goes to stderr; nothing is answered on stdout).
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&word, args)) = words.split_first() else {
        return Ok(None);
    };
    let command = match word {
        "ugi" => Command::Ugi,
        "isready" => Command::IsReady,
        "uginewgame" => Command::NewGame,
        "setoption" => {
            // `setoption name N... [value V...]`
            let rest = match args.split_first() {
                Some((&"name", rest)) => rest,
                _ => return Err("setoption: expected `name`".to_string()),
            };
            let at = rest.iter().position(|w| *w == "value");
            let (name, value) = match at {
                Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
                None => (rest.join(" "), String::new()),
            };
            if name.is_empty() {
                return Err("setoption: no name".to_string());
            }
            Command::SetOption { name, value }
        }
        "position" => parse_position(args)?,
        "go" => Command::Go(parse_go(args)?),
        "stop" => Command::Stop,
        "query" => Command::Query(match args {
            ["p1turn"] => Query::P1Turn,
            ["gameover"] => Query::GameOver,
            ["result"] => Query::Result,
            ["fen"] => Query::Fen,
            _ => {
                return Err(format!(
                    "query: {:?} is not p1turn, gameover, result or fen",
                    short(&args.join(" "))
                ));
            }
        }),
        "quit" => Command::Quit,
        _ => return Err(format!("unknown command {:?}", short(word))),
    };
    Ok(Some(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Command {
        parse(line).unwrap().unwrap()
    }

    #[test]
    fn parsing() {
        assert_eq!(parse("   ").unwrap(), None);
        assert_eq!(cmd("ugi"), Command::Ugi);
        assert_eq!(
            cmd("setoption name Book Randomness value 3"),
            Command::SetOption {
                name: "Book Randomness".into(),
                value: "3".into()
            }
        );
        assert_eq!(
            cmd("setoption name clear hash"),
            Command::SetOption {
                name: "clear hash".into(),
                value: String::new()
            }
        );
        let Command::Position { start, moves } =
            cmd("position fen 8/8/8/3ox3/3xo3/8/8/8 o moves f4 0000")
        else {
            panic!()
        };
        assert_eq!(start.to_move, Color::White);
        assert_eq!(moves, vec!["f4".parse().unwrap(), Move::Pass]);
        assert_eq!(
            cmd("position startpos"),
            Command::Position {
                start: Position::start(),
                moves: vec![]
            }
        );
        let Command::Go(go) = cmd("go p1time 60000 p2time 59000 p1inc 100 p2inc 0") else {
            panic!()
        };
        assert_eq!(go.time, ByColor::new(Some(60000), Some(59000)));
        assert_eq!(go.inc, ByColor::new(Some(100), Some(0)));
        let Command::Go(go) = cmd("go infinite") else {
            panic!()
        };
        assert!(go.infinite);
        assert_eq!(cmd("query p1turn"), Command::Query(Query::P1Turn));
        for bad in [
            "position",
            "position startpos f5",
            "position startpos moves f5 z9",
            "position startpos moves pass",
            "position fen 8/8/8 x",
            "go depth 0",
            "go depth",
            "go nodes many",
            "go sideways 3",
            "query winner",
            "setoption value 3",
            "frobnicate",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
