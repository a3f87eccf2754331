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
//! Commands: `ugi` (`id` and `option` lines, `ugiok`), `isready` (`readyok`), `setoption
//! name K value V` (unknown names ignored, as managers send their own), `uginewgame`,
//! `position startpos|fen BOARD SIDE [moves ...]` (passes as `0000`), `go` with `p1time`,
//! `p2time`, `p1inc`, `p2inc` (milliseconds: black's and white's clocks), `movetime`,
//! `depth`, `nodes` or `infinite` (a bare `go` uses the command line's level, depth or time),
//! `stop`, `query p1turn|gameover|result|fen`, `quit`. `info depth D score cp S nodes N
//! time MS nps X pv ...` lines report each iteration (S: discs x 100 for the side to move).

use super::{MAX_LINE, NAME, VERSION};
use crate::board::{ByColor, Color, Move, Position};
use crate::controller::{
    Answer, Choice, Controller, Flow, Frontend, GameClock, Input, Interrupt, MoveBudget, OPTIONS,
    OptionKind, OptionSpec, Options, Session, TimeControl,
};
use crate::game::Game;
use crate::notation::{fen, parse_fen, parse_ugi_move, ugi_move};
use crate::search::{Info, MovePlan};
use std::io::{self, Read, Write};
use std::time::Duration;

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

/// A `bestmove` that waits for `stop` (`go infinite` must not answer before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiting {
    /// No move request runs.
    Nothing,
    /// A search for `go` runs; `infinite` when it must wait for `stop`.
    Search { infinite: bool },
    /// `go infinite` has its move; it is answered at `stop`.
    Held(Move),
}

/// The UGI front-end: a translation onto the game [`Controller`].
pub struct Ugi {
    ctl: Controller,
    waiting: Waiting,
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
            waiting: Waiting::Nothing,
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
        self.waiting = Waiting::Nothing;
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
        let mut clock = GameClock::untimed();
        for c in [Color::Black, Color::White] {
            if let Some(ms) = go.time[c] {
                let left = ms as f64 / 1000.0;
                let increment = go.inc[c].unwrap_or(0) as f64 / 1000.0;
                clock.set_control(
                    c,
                    Some(TimeControl {
                        main: left,
                        increment,
                        ..TimeControl::default()
                    }),
                );
                clock.set_left(c, left, 0);
            }
        }
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
        match self.ctl.choose_within(pos.to_move, budget, session) {
            Err(_) => self.bestmove(Move::Pass, session),
            Ok(Answer::Now(choice)) => self.answer(&choice, go.infinite, session),
            Ok(Answer::Searching) => {
                self.waiting = Waiting::Search {
                    infinite: go.infinite,
                };
                Ok(())
            }
        }
    }

    /// Answers a move request, or holds the move of `go infinite` until `stop`.
    fn answer(&mut self, choice: &Choice, infinite: bool, session: &mut Session) -> io::Result<()> {
        if infinite && !self.stopped {
            self.waiting = Waiting::Held(choice.mv);
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
                if let Waiting::Held(mv) = self.waiting {
                    // A new request ends the held one: its answer goes first.
                    self.bestmove(mv, session)?;
                }
                self.go(go, session)?;
            }
            Command::Stop => {
                if let Waiting::Held(mv) = self.waiting {
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

    fn progress(&mut self, info: &Info, session: &mut Session) -> io::Result<()> {
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

    fn done(&mut self, info: Info, session: &mut Session) -> io::Result<Flow> {
        let Waiting::Search { infinite } = self.waiting else {
            return Ok(Flow::Continue);
        };
        // A stopped infinite search has heard `stop`; one that finished (solved) waits.
        self.stopped = info.stopped;
        if let Some(choice) = self.ctl.searched(info) {
            self.answer(&choice, infinite, session)?;
        } else {
            self.waiting = Waiting::Nothing;
        }
        Ok(Flow::Continue)
    }
}

/// Runs a UGI session on `input` and `output` until `quit` or EOF; bad input is reported on
/// stderr.
pub fn run<R: Read + Send + 'static, W: Write>(
    options: Options,
    input: R,
    output: W,
) -> io::Result<()> {
    let config = options.engine_config();
    let mut ugi = Ugi::new(options, Box::new(io::stderr()));
    super::run(&mut ugi, input, output, config)
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
