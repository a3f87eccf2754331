//! What a match is made of, as the command line gives it: the engines (their protocol, how to
//! start them, their own depth and clock), the time control, and the openings.

use std::fmt;
use std::path::Path;

use anyhow::{Context, bail};

use super::engine::CommandLine;
use crate::game::Game;
use crate::notation::{parse_transcript, transcript};
use crate::time_control::TimeControl;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// GTP, Othello dialect (`genmove`, `play`).
    Gtp,
    /// The NBoard protocol, version 2 (`set game`, `go`).
    Nboard,
    /// UGI, the Universal Game Interface (`position`, `go`, `bestmove`).
    Ugi,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Gtp => "gtp",
            Protocol::Nboard => "nboard",
            Protocol::Ugi => "ugi",
        })
    }
}

/// An engine taking part in a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Its name in results and tables (unique within a match).
    pub name: String,
    /// Its protocol.
    pub protocol: Protocol,
    /// How to start it.
    pub command: CommandLine,
    /// A fixed midgame depth (NBoard `set depth`), if any.
    pub depth: Option<u32>,
    /// Send no explicit pass: the engine infers a pass from the next move's colour (GTP).
    pub implicit_pass: bool,
    /// This engine's own clock, overriding the match's `--tc` (`tc=60`, `tc=none`).
    pub tc: Option<Option<TimeControl>>,
}

impl EngineSpec {
    /// Reads `name=A,proto=gtp,cmd=gtp-rhino -l 5`: comma-separated `key=value` pairs.
    ///
    /// Keys: `name` (default: the program's file name), `proto` (`gtp`, `nboard` or `ugi`,
    /// default `gtp`), `dir` (working directory), `depth` (NBoard and UGI), `implicit-pass` (alone or
    /// `=yes`/`=no`), `tc` (this engine's own clock, `60`, `60+1` or `none`, overriding the
    /// match's), and `cmd`, which must come last: its value is the rest of the text,
    /// commas included, split into words as a shell would (quotes and backslashes).
    pub fn parse(s: &str) -> Result<EngineSpec, String> {
        let mut name = None;
        let mut protocol = Protocol::Gtp;
        let mut command: Option<CommandLine> = None;
        let mut dir = None;
        let mut depth = None;
        let mut implicit_pass = false;
        let mut tc = None;
        let mut rest = s.trim();
        while !rest.is_empty() {
            let (item, tail) = match rest.find(',') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, ""),
            };
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim()),
                None => (item.trim().to_ascii_lowercase(), ""),
            };
            if key == "cmd" || key == "command" {
                let start = rest.find('=').expect("cmd has a =") + 1;
                command = Some(CommandLine::parse(&rest[start..])?);
                break;
            }
            match key.as_str() {
                "name" => {
                    if value.is_empty() || value.contains(char::is_whitespace) {
                        return Err(format!("engine name {value:?} must be one word"));
                    }
                    name = Some(value.to_string());
                }
                "proto" | "protocol" => {
                    protocol = match value.to_ascii_lowercase().as_str() {
                        "gtp" => Protocol::Gtp,
                        "nboard" => Protocol::Nboard,
                        "ugi" => Protocol::Ugi,
                        _ => {
                            return Err(format!("unknown protocol {value:?} (gtp, nboard or ugi)"));
                        }
                    }
                }
                "dir" => dir = Some(value.into()),
                "depth" => {
                    let d: u32 = value
                        .parse()
                        .ok()
                        .filter(|d| (1..=60).contains(d))
                        .ok_or_else(|| format!("depth {value:?} is not a number from 1 to 60"))?;
                    depth = Some(d);
                }
                "implicit-pass" | "implicit_pass" => {
                    implicit_pass = match value.to_ascii_lowercase().as_str() {
                        "" | "yes" | "true" | "1" => true,
                        "no" | "false" | "0" => false,
                        _ => return Err(format!("implicit-pass={value:?}: say yes or no")),
                    }
                }
                "tc" => {
                    tc = Some(if value.eq_ignore_ascii_case("none") {
                        None
                    } else {
                        Some(TimeControl::parse(value).map_err(|e| format!("tc: {e}"))?)
                    });
                }
                "" => {}
                _ => {
                    return Err(format!(
                        "unknown key {key:?} in engine {s:?} (name, proto, dir, depth, \
                         implicit-pass, tc, cmd)"
                    ));
                }
            }
            rest = tail.trim_start();
        }
        let Some(mut command) = command else {
            return Err(format!("engine {s:?} has no cmd=... (it must come last)"));
        };
        command.dir = dir;
        let name = name.unwrap_or_else(|| {
            Path::new(&command.argv[0])
                .file_name()
                .map_or_else(|| command.argv[0].clone(), |f| f.to_string_lossy().into())
        });
        Ok(EngineSpec {
            name,
            protocol,
            command,
            depth,
            implicit_pass,
            tc,
        })
    }
}

/// An opening: a position reached by some moves from a start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start and the opening moves.
    pub game: Game,
    /// The opening as a transcript, empty for the start position.
    pub text: String,
}

impl Opening {
    /// The start position with no moves.
    pub fn start() -> Opening {
        Opening {
            game: Game::default(),
            text: String::new(),
        }
    }
}

/// Reads openings, one transcript a line (XOT style: `f5d6c4d3c2b3b4b5`, an optional
/// `BOARD;` prefix for another start). A `#` starts a comment to the end of its line; blank
/// lines, comments and lines starting with `%` are skipped; an unreadable line is an error
/// naming it.
pub fn parse_openings(text: &str) -> anyhow::Result<Vec<Opening>> {
    let mut out = Vec::new();
    for (i, line) in crate::notation::without_bom(text).lines().enumerate() {
        // A comment runs from `#` (or a `%` at the start of the line) to the end of the line.
        let t = line.split('#').next().unwrap_or("").trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let game = parse_transcript(t).with_context(|| format!("openings line {}", i + 1))?;
        if game.is_over() {
            bail!("openings line {}: the game is already over", i + 1);
        }
        let text = transcript(&game);
        out.push(Opening { game, text });
    }
    Ok(out)
}

/// Reads an openings file (see [`parse_openings`]).
pub fn load_openings(path: &Path) -> anyhow::Result<Vec<Opening>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings {}", path.display()))?;
    let v = parse_openings(&text).with_context(|| path.display().to_string())?;
    if v.is_empty() {
        bail!("{}: no openings in the file", path.display());
    }
    Ok(v)
}
