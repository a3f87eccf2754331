//! The server's side of GGS in types: lines framed into messages, messages parsed, and the
//! lines a client sends. Pure functions, no I/O.
//!
//! **Framing** ([`Framer`]): the server ends lines with CR LF (a lone CR or LF is taken as
//! well) and may send BEL characters, which are dropped. A message is a header line plus the
//! continuation lines that start with `|` (the `|` is removed); it ends at the line `READY`,
//! or at a line without `|` that begins the next message (GGS sometimes leaves out the
//! READY). Blank lines are skipped. A line longer than [`MAX_LINE`] is dropped and marks the
//! message it falls in as damaged, so that a cut board is never read as a whole one. The
//! login prompts end a message at once (nothing follows them before the client answers).
//!
//! **Parsing** ([`Message::parse`]): a message of a known kind that does not read is an
//! error ([`ParseError`]); a message of a kind not modelled here is [`Message::Other`].
//! Boards are read in the verbose `client -` form, leniently: lines are recognised by their
//! shape rather than their place, the clock lines are split at `(` (a name of 8 characters
//! leaves no space before it), the colour marks `*`/`X` (black) and `O` (white) say who is
//! who, and a `join` with moves has the start position, the moves, then the current one.
//!
//! **Clocks** ([`GgsClock`]) read both the request form `15:00//02:00` and the board form
//! `00:56,1:0//02:00,1:0`; **game types** ([`GameType`]) read `8`, `s8r20`, `8b`, `8k`, ...
//! and say whether Outflank plays them ([`GameType::playable`]).
//!
//! **Outgoing lines** are in [`outgoing`], one function each, without the line ending (the
//! client adds `\n` and sends the line and its newline in one write).

use std::fmt;
use std::str::FromStr;

use crate::board::{Color, Move, Position, Square};
use crate::game::Game;
use crate::notation::{self as ggf, parse_duration, split_move_value, square_char};

/// The longest line taken, in bytes (as the stdin reader's cap, 1 MiB); longer lines are
/// dropped and damage their message.
pub const MAX_LINE: usize = crate::protocol::MAX_LINE;

/// The most continuation lines kept in one message; a message with more is damaged (a join
/// of a full game has about 100).
pub const MAX_MESSAGE_LINES: usize = 1024;

/// One framed server message: its header line and its continuation lines.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RawMessage {
    /// The first line, BEL characters removed, trailing spaces trimmed.
    pub header: String,
    /// The `|` lines that followed, without the `|` and trailing spaces.
    pub lines: Vec<String>,
    /// True when a line of it was too long or it had too many lines: it is not parsed.
    pub damaged: bool,
}

impl fmt::Display for RawMessage {
    /// The message as the server sent it (without READY), lines joined with `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.header)?;
        for l in &self.lines {
            write!(f, "\n|{l}")?;
        }
        Ok(())
    }
}

/// Turns the server's lines, as they arrive, into [`RawMessage`]s (see the module's doc).
#[derive(Debug, Default)]
pub struct Framer {
    current: Option<RawMessage>,
}

/// True for the prompts that wait for the client's answer: they end their message at once.
fn is_prompt(header: &str) -> bool {
    header.starts_with(": Enter login") || header.starts_with(": Enter your password")
}

impl Framer {
    /// A framer with nothing pending.
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Takes some received text: one line, or several separated by CR, LF or CR LF (line
    /// endings are optional). Returns the messages it completed, in order.
    pub fn push_line(&mut self, text: &str) -> Vec<RawMessage> {
        let mut done = Vec::new();
        for piece in text.split(['\r', '\n']) {
            self.push_one(piece, &mut done);
        }
        done
    }

    /// Takes the news that a line was too long to be read (`len` bytes): it is dropped, and
    /// the message it falls in is damaged.
    pub fn push_too_long(&mut self, len: usize) {
        log::warn!("GGS: a line of {len} bytes dropped");
        match &mut self.current {
            Some(m) => m.damaged = true,
            // It may have been the header of a message: its `|` lines are swallowed too.
            None => {
                self.current = Some(RawMessage {
                    damaged: true,
                    ..RawMessage::default()
                })
            }
        }
    }

    /// Ends the message being collected, if any (at the end of the stream, or when the
    /// server has been quiet for a while and the message had no READY).
    pub fn flush(&mut self) -> Option<RawMessage> {
        self.current.take()
    }

    /// True when a message is being collected.
    pub fn pending(&self) -> bool {
        self.current.is_some()
    }

    fn push_one(&mut self, piece: &str, done: &mut Vec<RawMessage>) {
        if piece.len() > MAX_LINE {
            self.push_too_long(piece.len());
            return;
        }
        let line: String = piece.chars().filter(|&c| c != '\x07').collect();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        if trimmed == "READY" {
            done.extend(self.current.take());
            return;
        }
        if let Some(rest) = line.trim_start().strip_prefix('|')
            && let Some(m) = &mut self.current
        {
            if m.lines.len() < MAX_MESSAGE_LINES {
                m.lines.push(rest.trim_end().to_string());
            } else {
                m.damaged = true;
            }
            return;
        }
        done.extend(self.current.take());
        let msg = RawMessage {
            header: line.trim_end().to_string(),
            lines: Vec::new(),
            damaged: false,
        };
        if is_prompt(&msg.header) {
            done.push(msg);
        } else {
            self.current = Some(msg);
        }
    }
}

/// True when `line` cannot be text from a GGS server: it holds a control character other
/// than those of text and terminals (tab, BEL, backspace, form feed, escape, CR): a NUL,
/// say, in binary data.
pub fn not_text(line: &str) -> bool {
    line.chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\x07' | '\x08' | '\x0c' | '\x1b' | '\r'))
}

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// A line of it was too long, or it had too many lines.
    Damaged,
    /// A field is missing.
    Missing(&'static str),
    /// A field does not read.
    Bad {
        /// Which field.
        what: &'static str,
        /// Its text (shortened).
        text: String,
    },
    /// The board of a `join` or `update` does not read.
    Board(String),
    /// A move of a `join`'s list is not legal where it stands.
    IllegalMove {
        /// Its number in the list.
        number: u32,
        /// The move.
        mv: Move,
    },
}

/// At most 40 characters of `s`, for error messages.
fn excerpt(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push_str("...");
    }
    out
}

impl ParseError {
    fn bad(what: &'static str, text: &str) -> ParseError {
        ParseError::Bad {
            what,
            text: excerpt(text),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Damaged => f.write_str("GGS message damaged (a line too long or too many)"),
            ParseError::Missing(what) => write!(f, "GGS message: missing {what}"),
            ParseError::Bad { what, text } => write!(f, "GGS message: bad {what} {text:?}"),
            ParseError::Board(e) => write!(f, "GGS board: {e}"),
            ParseError::IllegalMove { number, mv } => {
                write!(f, "GGS board: move {number} ({mv}) is illegal")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// A game, match or request id: `.19`, or `.5.0` / `.5.1` for the two games of a synchro
/// match.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(String);

impl GameId {
    /// The id as GGS writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The match's id: the id itself, or `.5` for `.5.0`.
    pub fn match_id(&self) -> GameId {
        match self.0[1..].find('.') {
            Some(i) => GameId(self.0[..i + 1].to_string()),
            None => self.clone(),
        }
    }

    /// The game's number in its synchro match (`0` or `1`), `None` for a match's own id.
    pub fn child(&self) -> Option<u32> {
        let (_, c) = self.0[1..].split_once('.')?;
        c.parse().ok()
    }
}

impl FromStr for GameId {
    type Err = ParseError;

    /// Reads `.19`, `.5.0`: a dot, digits, and optionally a dot and digits.
    fn from_str(s: &str) -> Result<GameId, ParseError> {
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 18 && t.bytes().all(|b| b.is_ascii_digit());
        let ok = match s.strip_prefix('.') {
            Some(rest) => match rest.split_once('.') {
                Some((m, c)) => digits(m) && digits(c),
                None => digits(rest),
            },
            None => false,
        };
        if ok {
            Ok(GameId(s.to_string()))
        } else {
            Err(ParseError::bad("game id", s))
        }
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads `[-][[DD.]HH:][MM:]SS` into seconds (negative remaining times included); `None`
/// when it is not a time. An empty text is 0.
pub fn parse_time(s: &str) -> Option<f64> {
    let s = s.trim();
    let (negative, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    if t.contains(',') || (negative && t.is_empty()) {
        return None;
    }
    let secs = parse_duration(t)?;
    Some(if negative { -secs } else { secs })
}

/// Writes seconds as GGS prints times: `MM:SS`, `HH:MM:SS` from an hour, `D.HH:MM:SS` from a
/// day, with a `-` before a negative time; fractions are cut.
pub fn format_time(secs: f64) -> String {
    let sign = if secs <= -1.0 { "-" } else { "" };
    let t = if secs.is_finite() {
        secs.abs().min(1e12) as u64
    } else {
        0
    };
    let (d, h, m, s) = (t / 86_400, (t / 3600) % 24, (t / 60) % 60, t % 60);
    if d > 0 {
        format!("{sign}{d}.{h:02}:{m:02}:{s:02}")
    } else if h > 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else {
        format!("{sign}{m:02}:{s:02}")
    }
}

/// A GGS clock, `[ini[,[N]m1]]/[inc[,[N]m2]]/[ext[,[N]m3]]`: main time, increment and
/// extension in seconds. In board messages the times are the ones left, and the main time
/// goes negative once it is used up.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GgsClock {
    /// Main time, seconds (negative once spent, in board messages).
    pub main: f64,
    /// Increment, seconds.
    pub increment: f64,
    /// Extension (overtime), seconds.
    pub extension: f64,
    /// What followed a `,` in each field (main, increment, extension), empty when nothing
    /// did: `N20` in a request (a flag and a move count), `1:0` in a board message (its
    /// meaning is unconfirmed).
    pub suffixes: [String; 3],
}

impl GgsClock {
    /// A clock of whole parts, without suffixes.
    pub fn new(main: f64, increment: f64, extension: f64) -> GgsClock {
        GgsClock {
            main,
            increment,
            extension,
            suffixes: Default::default(),
        }
    }

    /// The time left before a hard timeout: the main time (negative once spent) plus the
    /// extension.
    pub fn total_left(&self) -> f64 {
        self.main + self.extension
    }

    /// The same clock as GGF writes it (`TI[...]`), suffixes dropped.
    pub fn to_ggf(&self) -> ggf::Clock {
        ggf::Clock {
            main_secs: self.main,
            increment: self.increment,
            extension: self.extension,
        }
    }
}

impl FromStr for GgsClock {
    type Err = ParseError;

    /// Reads a clock: up to three `/`-separated fields, each a time ([`parse_time`]) with an
    /// optional `,suffix`; empty fields are 0 (`15:00//02:00`).
    fn from_str(s: &str) -> Result<GgsClock, ParseError> {
        let s = s.trim();
        let fields: Vec<&str> = s.split('/').collect();
        if s.is_empty() || fields.len() > 3 || s.len() > 100 {
            return Err(ParseError::bad("clock", s));
        }
        let mut clock = GgsClock::default();
        for (i, field) in fields.iter().enumerate() {
            let (time, suffix) = field.split_once(',').unwrap_or((field, ""));
            let secs = parse_time(time).ok_or_else(|| ParseError::bad("clock", s))?;
            if suffix.contains(char::is_whitespace) {
                return Err(ParseError::bad("clock", s));
            }
            match i {
                0 => clock.main = secs,
                1 => clock.increment = secs,
                _ => clock.extension = secs,
            }
            clock.suffixes[i] = suffix.to_string();
        }
        Ok(clock)
    }
}

impl fmt::Display for GgsClock {
    /// The request form: `05:00//02:00`, `05:00/00:10/02:00`; a 0 increment or extension is
    /// an empty field, a suffix is written after a `,`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = |i: usize, secs: f64| {
            let time = if secs == 0.0 && i > 0 {
                String::new()
            } else {
                format_time(secs)
            };
            if self.suffixes[i].is_empty() {
                time
            } else {
                format!("{time},{}", self.suffixes[i])
            }
        };
        let (m, i, e) = (
            field(0, self.main),
            field(1, self.increment),
            field(2, self.extension),
        );
        if !e.is_empty() {
            write!(f, "{m}/{i}/{e}")
        } else if !i.is_empty() {
            write!(f, "{m}/{i}")
        } else {
            f.write_str(&m)
        }
    }
}

/// A match type: `8`, `8b`, `s8r20`, `8k`, `8a`, ...: synchro, board size, komi, anti,
/// random start, the asker's colour.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameType {
    /// `s`: two games at once from the same start, colours swapped.
    pub synchro: bool,
    /// The board's side (8 for 8x8).
    pub size: u8,
    /// `k`: the players bid a komi.
    pub komi: bool,
    /// `a`: the player with fewer discs wins.
    pub anti: bool,
    /// `r<n>`: a random start with n discs.
    pub random_discs: Option<u8>,
    /// `b` / `w`: the colour the asker wants.
    pub color_pref: Option<Color>,
}

impl GameType {
    /// Whether Outflank plays this type: an 8x8 board, not anti; synchro, komi and random
    /// starts are fine. The error says why not.
    pub fn playable(&self) -> Result<(), String> {
        if self.size != 8 {
            return Err(format!(
                "I only play on an 8x8 board, not {0}x{0}",
                self.size
            ));
        }
        if self.anti {
            return Err("I do not play anti-Othello".to_string());
        }
        Ok(())
    }
}

impl FromStr for GameType {
    type Err = ParseError;

    /// Reads a type: flags `s`, `k`, `a` may come before the size (`s8`, `k8`), then the
    /// size, then any of `k`, `a`, `s`, `r<n>`, `b`, `w`.
    fn from_str(s: &str) -> Result<GameType, ParseError> {
        let bad = || ParseError::bad("game type", s);
        let b = s.as_bytes();
        let mut t = GameType {
            synchro: false,
            size: 0,
            komi: false,
            anti: false,
            random_discs: None,
            color_pref: None,
        };
        let mut i = 0;
        let flag = |c: u8, t: &mut GameType| match c {
            b's' => t.synchro = true,
            b'k' => t.komi = true,
            b'a' => t.anti = true,
            _ => {}
        };
        while i < b.len() && matches!(b[i], b's' | b'k' | b'a') {
            flag(b[i], &mut t);
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start || i - start > 2 {
            return Err(bad());
        }
        t.size = s[start..i].parse().map_err(|_| bad())?;
        if !(4..=16).contains(&t.size) {
            return Err(bad());
        }
        while i < b.len() {
            match b[i] {
                c @ (b's' | b'k' | b'a') => flag(c, &mut t),
                b'b' if t.color_pref.is_none() => t.color_pref = Some(Color::Black),
                b'w' if t.color_pref.is_none() => t.color_pref = Some(Color::White),
                b'r' if t.random_discs.is_none() => {
                    let from = i + 1;
                    while i + 1 < b.len() && b[i + 1].is_ascii_digit() {
                        i += 1;
                    }
                    let digits = &s[from..i + 1];
                    if digits.is_empty() || digits.len() > 3 {
                        return Err(bad());
                    }
                    t.random_discs = Some(digits.parse().map_err(|_| bad())?);
                }
                _ => return Err(bad()),
            }
            i += 1;
        }
        Ok(t)
    }
}

impl fmt::Display for GameType {
    /// The canonical form: `s8r20`, `8kb`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.synchro {
            f.write_str("s")?;
        }
        write!(f, "{}", self.size)?;
        if self.komi {
            f.write_str("k")?;
        }
        if self.anti {
            f.write_str("a")?;
        }
        if let Some(n) = self.random_discs {
            write!(f, "r{n}")?;
        }
        match self.color_pref {
            Some(Color::Black) => f.write_str("b"),
            Some(Color::White) => f.write_str("w"),
            None => Ok(()),
        }
    }
}

/// The rated flag of a request or match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rated {
    /// `R`: rated.
    Rated,
    /// `U`: unrated.
    Unrated,
    /// `S`: the resumption of a stored (adjourned) game.
    Stored,
}

impl FromStr for Rated {
    type Err = ParseError;

    /// Reads `R`, `U` or `S`.
    fn from_str(s: &str) -> Result<Rated, ParseError> {
        match s {
            "R" => Ok(Rated::Rated),
            "U" => Ok(Rated::Unrated),
            "S" => Ok(Rated::Stored),
            _ => Err(ParseError::bad("rated flag", s)),
        }
    }
}

impl fmt::Display for Rated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rated::Rated => "R",
            Rated::Unrated => "U",
            Rated::Stored => "S",
        })
    }
}

/// A login with its rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    /// The login.
    pub name: String,
    /// The rating.
    pub rating: f64,
}

fn rating(s: &str) -> Result<f64, ParseError> {
    s.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite())
        .ok_or_else(|| ParseError::bad("rating", s))
}

/// A match request (`/os: + .19 ...`) or its withdrawal (`/os: - .19 ...`).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The request's id.
    pub id: GameId,
    /// Who asks.
    pub challenger: Player,
    /// The clock asked for.
    pub challenger_clock: GgsClock,
    /// The match type.
    pub game_type: GameType,
    /// Rated, unrated, or a stored game to resume.
    pub rated: Rated,
    /// Who is asked; `None` for a request to anyone (no name, or `*`).
    pub challengee: Option<Player>,
    /// The challengee's clock when it differs from the challenger's.
    pub challengee_clock: Option<GgsClock>,
}

/// A match that starts (`/os: + match`) or ends (`/os: - match`).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchInfo {
    /// The match's id.
    pub id: GameId,
    /// The two players in the server's order, which is not the colour order.
    pub players: [Player; 2],
    /// The match type.
    pub game_type: GameType,
    /// The rated flag.
    pub rated: Rated,
}

impl MatchInfo {
    /// True when `name` plays in it (else one only watches).
    pub fn has_player(&self, name: &str) -> bool {
        self.players.iter().any(|p| p.name == name)
    }
}

/// How a scored result came about (its suffix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultHow {
    /// No suffix: the game was played out.
    Normal,
    /// `:r`: resigned.
    Resigned,
    /// `:t`: lost on time.
    Timeout,
    /// `:l`: left, adjourned.
    Left,
}

/// The result of a game or match.
#[derive(Clone, Debug, PartialEq)]
pub enum GameResult {
    /// A signed score (`+46.00`, `-64.00:t`); whose side it is seen from is unconfirmed.
    Score {
        /// The score.
        score: f64,
        /// Its suffix.
        how: ResultHow,
    },
    /// `aborted`.
    Aborted,
    /// `<name> left`: the game was adjourned (stored).
    Left(String),
    /// Anything else (empty when there was nothing).
    Other(String),
}

impl GameResult {
    /// Reads a result text.
    pub fn parse(s: &str) -> GameResult {
        let s = s.trim();
        if s == "aborted" {
            return GameResult::Aborted;
        }
        if let Some(name) = s.strip_suffix(" left")
            && !name.trim().is_empty()
            && !name.trim().contains(' ')
        {
            return GameResult::Left(name.trim().to_string());
        }
        let (number, how) = match s.split_once(':') {
            Some((n, "r")) => (n, ResultHow::Resigned),
            Some((n, "t")) => (n, ResultHow::Timeout),
            Some((n, "l")) => (n, ResultHow::Left),
            Some(_) => return GameResult::Other(s.to_string()),
            None => (s, ResultHow::Normal),
        };
        let signed =
            number.starts_with(['+', '-']) || number.starts_with(|c: char| c.is_ascii_digit());
        match number.parse::<f64>() {
            Ok(score) if signed && score.is_finite() => GameResult::Score { score, how },
            _ => GameResult::Other(s.to_string()),
        }
    }
}

/// One move of a board message: `| n: mv/eval/time`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveRecord {
    /// Its number in the game (1 for the first).
    pub number: u32,
    /// The move (`PA`, `PASS` or any word starting with `P` is a pass).
    pub mv: Move,
    /// The evaluation the player sent, if any.
    pub eval: Option<f64>,
    /// The time it took, seconds, if given.
    pub seconds: Option<f64>,
}

/// A clock line of a board message: `name (rating mark) clock`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerClock {
    /// The login.
    pub name: String,
    /// The rating.
    pub rating: f64,
    /// The colour this player has in this game (`*`/`X` black, `O` white).
    pub color: Color,
    /// The clock: the time left.
    pub clock: GgsClock,
}

/// A `join` or `update` board message (verbose `client -` form).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardMessage {
    /// `join` (the whole game) rather than `update` (one move).
    pub join: bool,
    /// The game's id (`.5`, or `.5.0` in a synchro match).
    pub id: GameId,
    /// The match type.
    pub game_type: GameType,
    /// The komi, when set (`K?` is none).
    pub komi: Option<f64>,
    /// The move just played (an update's first line).
    pub last_move: Option<MoveRecord>,
    /// The two players' clock lines, in the message's order (which says nothing of colour).
    pub clocks: [PlayerClock; 2],
    /// The current position, as printed.
    pub position: Position,
    /// False when the message had no `to move` line: the side to move was then inferred.
    pub to_move_shown: bool,
    /// A join's start position (the current one for a join without moves); `None` for an
    /// update, or a join whose start block was not there.
    pub start: Option<Position>,
    /// A join's moves, in order (empty for an update).
    pub moves: Vec<MoveRecord>,
}

impl BoardMessage {
    /// The clock line of the player of `color`.
    pub fn player(&self, color: Color) -> &PlayerClock {
        if self.clocks[0].color == color {
            &self.clocks[0]
        } else {
            &self.clocks[1]
        }
    }

    /// The colour `name` plays here, if it plays.
    pub fn color_of(&self, name: &str) -> Option<Color> {
        self.clocks.iter().find(|c| c.name == name).map(|c| c.color)
    }

    /// A join's game: its start and moves replayed (passes the list leaves out are added);
    /// `None` without a start. The position reached may differ from [`Self::position`]:
    /// the printed board is the one to trust.
    pub fn game(&self) -> Option<Game> {
        let mut game = Game::new(self.start?);
        for r in &self.moves {
            play_lenient(&mut game, r.mv).ok()?;
        }
        Some(game)
    }
}

/// Plays `mv`, first passing for the side to move when it must pass and `mv` is a square.
fn play_lenient(game: &mut Game, mv: Move) -> Result<(), ()> {
    if game.play(mv).is_ok() {
        return Ok(());
    }
    let pos = game.position();
    if matches!(mv, Move::Play(_)) && pos.board.must_pass() && !pos.board.is_game_over() {
        game.play(Move::Pass).map_err(|_| ())?;
        if game.play(mv).is_ok() {
            return Ok(());
        }
        game.undo();
    }
    Err(())
}

/// One message from the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `: Enter login (yours, or one you'd like to use).`
    LoginPrompt,
    /// `: Enter your password.`
    PasswordPrompt,
    /// `: + /os 1`: the Othello service is up.
    ServiceUp,
    /// `: - /os 1`: the Othello service is down.
    ServiceDown,
    /// Any other line from the central server (`: ...`): right after the password it means
    /// the login failed. The text after `: `.
    Server(String),
    /// `ERR ...`: an error from the central server. The text after `ERR`.
    Error(String),
    /// A match request offered (`added`, `/os: + .19 ...`) or withdrawn (`/os: - .19 ...`).
    Request {
        /// True for `+`, false for `-`.
        added: bool,
        /// The request.
        request: Request,
    },
    /// `/os: + match ...`: a match starts.
    MatchStart(MatchInfo),
    /// `/os: - match ... <result>`: a match ends.
    MatchEnd {
        /// The match.
        info: MatchInfo,
        /// Its result.
        result: GameResult,
    },
    /// `/os: end .2.0 ( a vs. b ) +46.00`: a game of a (synchro) match ends.
    GameEnd {
        /// The game.
        id: GameId,
        /// The two names in the server's order.
        players: [String; 2],
        /// The result.
        result: GameResult,
    },
    /// `/os: join ...` or `/os: update ...`.
    Board(Box<BoardMessage>),
    /// `/os: error .5 illegal move`.
    GameError {
        /// The game, when the message names one.
        id: Option<GameId>,
        /// The error's text.
        text: String,
    },
    /// `/os: timeout .5 name` or `/os: fatal-timeout .5 name`.
    Timeout {
        /// The game.
        id: GameId,
        /// Who ran out of time.
        name: String,
        /// `fatal-timeout`.
        fatal: bool,
    },
    /// `/os: rating_update .21` and its `|name old @ sd delta -> new @ sd` lines.
    RatingUpdate {
        /// The match.
        id: GameId,
        /// The lines as they came.
        lines: Vec<String>,
    },
    /// A tell from a user: `name: text`.
    Tell {
        /// Who tells.
        from: String,
        /// What.
        text: String,
    },
    /// Anything else: the header line (the message's other lines are dropped).
    Other(String),
}

impl Message {
    /// Reads a framed message (see the module's doc for what is an error and what is
    /// [`Message::Other`]).
    pub fn parse(raw: &RawMessage) -> Result<Message, ParseError> {
        if raw.damaged {
            return Err(ParseError::Damaged);
        }
        let h = raw.header.trim();
        if h.starts_with(": Enter login") {
            return Ok(Message::LoginPrompt);
        }
        if h.starts_with(": Enter your password") {
            return Ok(Message::PasswordPrompt);
        }
        if let Some(rest) = h.strip_prefix(':') {
            let rest = rest.trim();
            let words: Vec<&str> = rest.split_whitespace().collect();
            return Ok(match words.as_slice() {
                ["+", "/os", ..] => Message::ServiceUp,
                ["-", "/os", ..] => Message::ServiceDown,
                _ => Message::Server(rest.to_string()),
            });
        }
        if let Some(rest) = h.strip_prefix("ERR") {
            return Ok(Message::Error(rest.trim().to_string()));
        }
        if let Some(rest) = h.strip_prefix("/os:") {
            return parse_os(rest.trim(), raw);
        }
        if let Some((from, text)) = h.split_once(": ")
            && !from.is_empty()
            && from.len() <= 16
            && !from.contains(char::is_whitespace)
            && from.chars().all(|c| c.is_ascii_graphic())
        {
            return Ok(Message::Tell {
                from: from.to_string(),
                text: text.trim().to_string(),
            });
        }
        Ok(Message::Other(raw.header.clone()))
    }
}

/// Reads the `/os:` messages (`rest` is the header after `/os:`).
fn parse_os(rest: &str, raw: &RawMessage) -> Result<Message, ParseError> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        [sign @ ("+" | "-"), "match", fields @ ..] => {
            let added = *sign == "+";
            if fields.len() < 7 {
                return Err(ParseError::Missing("match fields"));
            }
            let info = MatchInfo {
                id: fields[0].parse()?,
                players: [
                    Player {
                        rating: rating(fields[1])?,
                        name: fields[2].to_string(),
                    },
                    Player {
                        rating: rating(fields[3])?,
                        name: fields[4].to_string(),
                    },
                ],
                game_type: fields[5].parse()?,
                rated: fields[6].parse()?,
            };
            if added {
                Ok(Message::MatchStart(info))
            } else {
                let result = GameResult::parse(&fields[7..].join(" "));
                Ok(Message::MatchEnd { info, result })
            }
        }
        [sign @ ("+" | "-"), fields @ ..] => {
            let request = parse_request(fields)?;
            Ok(Message::Request {
                added: *sign == "+",
                request,
            })
        }
        ["join" | "update", ..] => parse_board(&words, raw).map(|b| Message::Board(Box::new(b))),
        ["end", id, ..] => {
            let id: GameId = id.parse()?;
            let open = rest.find('(').ok_or(ParseError::Missing("players"))?;
            let close = rest
                .rfind(')')
                .filter(|&c| c > open)
                .ok_or(ParseError::Missing("players"))?;
            let names: Vec<&str> = rest[open + 1..close]
                .split_whitespace()
                .filter(|w| *w != "vs." && *w != "vs")
                .collect();
            let [a, b] = names.as_slice() else {
                return Err(ParseError::bad("players", &rest[open..=close]));
            };
            Ok(Message::GameEnd {
                id,
                players: [a.to_string(), b.to_string()],
                result: GameResult::parse(&rest[close + 1..]),
            })
        }
        ["error", first, ..] => {
            let (id, text) = match first.parse::<GameId>() {
                Ok(id) => (Some(id), words[2..].join(" ")),
                Err(_) => (None, words[1..].join(" ")),
            };
            Ok(Message::GameError { id, text })
        }
        [kind @ ("timeout" | "fatal-timeout"), id, name, ..] => Ok(Message::Timeout {
            id: id.parse()?,
            name: name.to_string(),
            fatal: *kind == "fatal-timeout",
        }),
        ["rating_update", id, ..] => Ok(Message::RatingUpdate {
            id: id.parse()?,
            lines: raw.lines.clone(),
        }),
        _ => Ok(Message::Other(raw.header.clone())),
    }
}

/// Reads a request's fields (after the `+`/`-`): id, rating, name, clock, type, flag, and
/// optionally the challengee's rating, name and clock.
fn parse_request(f: &[&str]) -> Result<Request, ParseError> {
    if f.len() < 6 {
        return Err(ParseError::Missing("request fields"));
    }
    let challengee = match f.get(6..8) {
        Some([r, name]) if *name != "*" => Some(Player {
            rating: rating(r)?,
            name: name.to_string(),
        }),
        _ => None,
    };
    Ok(Request {
        id: f[0].parse()?,
        challenger: Player {
            rating: rating(f[1])?,
            name: f[2].to_string(),
        },
        challenger_clock: f[3].parse()?,
        game_type: f[4].parse()?,
        rated: f[5].parse()?,
        challengee,
        challengee_clock: f.get(8).map(|c| c.parse()).transpose()?,
    })
}

/// Reads `n: mv/eval/time`; `None` when the line is not one.
fn move_line(t: &str) -> Option<Result<MoveRecord, ParseError>> {
    let (n, rest) = t.split_once(':')?;
    let number: u32 = n.trim().parse().ok()?;
    let (word, eval, seconds) = split_move_value(rest);
    let mv = if word.starts_with(['P', 'p']) {
        Move::Pass
    } else {
        match word.parse::<Square>() {
            Ok(sq) => Move::Play(sq),
            Err(_) => return Some(Err(ParseError::bad("move", t))),
        }
    };
    Some(Ok(MoveRecord {
        number,
        mv,
        eval,
        seconds,
    }))
}

/// Reads `name (rating mark) clock`, split at the first `(`.
fn clock_line(t: &str) -> Result<PlayerClock, ParseError> {
    let bad = || ParseError::bad("clock line", t);
    let (name, rest) = t.split_once('(').ok_or_else(bad)?;
    let (inside, clock) = rest.split_once(')').ok_or_else(bad)?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(bad());
    }
    let mut inner = inside.split_whitespace();
    let r = rating(inner.next().ok_or_else(bad)?)?;
    let color = match inner.next() {
        Some("*" | "X" | "x") => Color::Black,
        Some("O" | "o") => Color::White,
        _ => return Err(bad()),
    };
    Ok(PlayerClock {
        name: name.to_string(),
        rating: r,
        color,
        clock: clock.trim().parse()?,
    })
}

/// A board row's cells, a to h.
type Row = [Option<Color>; 8];

/// A board block being read: rows by index, then the side to move.
#[derive(Default)]
struct Block {
    rows: [Option<Row>; 8],
    count: usize,
}

impl Block {
    fn position(&self, to_move: Option<Color>) -> Result<Position, ParseError> {
        if self.count != 8 {
            return Err(ParseError::Board(format!("{} rows, not 8", self.count)));
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (r, row) in self.rows.iter().enumerate() {
            for (c, cell) in row.iter().flatten().enumerate() {
                let Some(sq) = Square::from_coords(c as u8, r as u8) else {
                    continue;
                };
                match cell {
                    Some(Color::Black) => black |= sq.bit(),
                    Some(Color::White) => white |= sq.bit(),
                    None => {}
                }
            }
        }
        let color = to_move.unwrap_or_else(|| {
            // Not shown: the side that can move, else by the parity of the discs.
            let pos = Position::from_colors(black, white, Color::Black);
            if pos.board.moves() != 0 && pos.board.opponent_moves() == 0 {
                Color::Black
            } else if pos.board.moves() == 0 && pos.board.opponent_moves() != 0 {
                Color::White
            } else if (black | white).count_ones() % 2 == 0 {
                Color::Black
            } else {
                Color::White
            }
        });
        Ok(Position::from_colors(black, white, color))
    }
}

/// Reads a board row `r c c c c c c c c [r]` (the `|` removed); `None` when the line does
/// not start with a row number.
fn board_row(t: &str) -> Option<Result<(usize, Row), ParseError>> {
    let mut words = t.split_whitespace();
    let first = words.next()?;
    let r = match first.as_bytes() {
        [d @ b'1'..=b'8'] => (d - b'1') as usize,
        _ => return None,
    };
    let mut cells: Vec<char> = words.flat_map(str::chars).collect();
    if cells.len() == 9 && cells[8] == char::from(first.as_bytes()[0]) {
        cells.pop();
    }
    if cells.len() != 8 {
        return Some(Err(ParseError::Board(format!(
            "row {}: {:?}",
            r + 1,
            excerpt(t)
        ))));
    }
    let mut row = [None; 8];
    for (i, &c) in cells.iter().enumerate() {
        match square_char(c) {
            Some(cell) => row[i] = cell,
            None => {
                return Some(Err(ParseError::Board(format!(
                    "row {}: {:?}",
                    r + 1,
                    excerpt(t)
                ))));
            }
        }
    }
    Some(Ok((r, row)))
}

/// Reads a `join` or `update` (`words` are the header's words after `/os:`).
fn parse_board(words: &[&str], raw: &RawMessage) -> Result<BoardMessage, ParseError> {
    let join = words[0] == "join";
    let id: GameId = words
        .get(1)
        .ok_or(ParseError::Missing("game id"))?
        .parse()?;
    let game_type: GameType = words
        .get(2)
        .ok_or(ParseError::Missing("game type"))?
        .parse()?;
    if game_type.size != 8 {
        return Err(ParseError::Board(format!(
            "a {0}x{0} board",
            game_type.size
        )));
    }
    let komi = match words.get(3).and_then(|k| k.strip_prefix('K')) {
        None | Some("?") | Some("") => None,
        Some(k) => Some(
            k.parse::<f64>()
                .ok()
                .filter(|k| k.is_finite())
                .ok_or_else(|| ParseError::bad("komi", k))?,
        ),
    };
    let mut clocks: Vec<PlayerClock> = Vec::new();
    let mut records: Vec<MoveRecord> = Vec::new();
    let mut blocks: Vec<Position> = Vec::new();
    let mut shown = true;
    let mut block = Block::default();
    let mut move_count: Option<u32> = None;
    for line in &raw.lines {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(side) = t.strip_suffix("to move") {
            let color = match side.trim() {
                "*" | "X" | "x" => Color::Black,
                "O" | "o" => Color::White,
                _ => return Err(ParseError::bad("side to move", t)),
            };
            blocks.push(block.position(Some(color))?);
            block = Block::default();
            continue;
        }
        if let Some(n) = t
            .strip_suffix("move(s)")
            .or_else(|| t.strip_suffix("moves"))
        {
            move_count = Some(
                n.trim()
                    .parse()
                    .map_err(|_| ParseError::bad("move count", t))?,
            );
            continue;
        }
        if let Some(rec) = move_line(t) {
            let rec = rec?;
            if rec.number > 0 {
                records.push(rec);
            }
            continue;
        }
        if t.contains('(') {
            clocks.push(clock_line(t)?);
            continue;
        }
        if let Some(row) = board_row(t) {
            let (r, cells) = row?;
            if block.rows[r].replace(cells).is_some() {
                return Err(ParseError::Board(format!("row {} twice", r + 1)));
            }
            block.count += 1;
            continue;
        }
        // Column letters, and any line of a layout not foreseen.
        if !t
            .split_whitespace()
            .all(|w| matches!(w, "A" | "B" | "C" | "D" | "E" | "F" | "G" | "H"))
        {
            log::debug!("GGS board {id}: line skipped: {:?}", excerpt(t));
        }
    }
    if block.count > 0 {
        // The last block had no `to move` line (the end of a game may look so).
        shown = false;
        blocks.push(block.position(None)?);
    }
    let position = *blocks
        .last()
        .ok_or(ParseError::Board("no board".to_string()))?;
    let n = clocks.len();
    if n < 2 {
        return Err(ParseError::Missing("clock lines"));
    }
    let second = clocks.pop().ok_or(ParseError::Missing("clock lines"))?;
    let first = clocks.pop().ok_or(ParseError::Missing("clock lines"))?;
    if first.color == second.color {
        return Err(ParseError::Board(
            "both players have the same colour".to_string(),
        ));
    }
    let mut msg = BoardMessage {
        join,
        id,
        game_type,
        komi,
        last_move: None,
        clocks: [first, second],
        position,
        to_move_shown: shown,
        start: None,
        moves: Vec::new(),
    };
    if !join {
        msg.last_move = records.last().copied();
        return Ok(msg);
    }
    // A join: moves numbered 1, 2, ... (a repeated number is the same move shown again).
    let mut moves: Vec<MoveRecord> = Vec::new();
    for r in records {
        if moves.iter().any(|m| m.number == r.number) {
            continue;
        }
        if r.number as usize != moves.len() + 1 {
            return Err(ParseError::bad("move number", &r.number.to_string()));
        }
        moves.push(r);
    }
    if let Some(n) = move_count
        && n as usize != moves.len()
    {
        return Err(ParseError::Board(format!(
            "{n} move(s) announced, {} listed",
            moves.len()
        )));
    }
    msg.start = if blocks.len() >= 2 {
        Some(blocks[0])
    } else if moves.is_empty() {
        Some(position)
    } else {
        None
    };
    if let Some(start) = msg.start {
        let mut game = Game::new(start);
        for r in &moves {
            play_lenient(&mut game, r.mv).map_err(|()| ParseError::IllegalMove {
                number: r.number,
                mv: r.mv,
            })?;
        }
        if game.position() != position {
            log::debug!(
                "GGS join {}: the moves do not reach the printed board",
                msg.id
            );
        }
    }
    msg.moves = moves;
    Ok(msg)
}

/// Every line the client sends, without its line ending.
pub mod outgoing {
    use super::{GameId, GameType, GgsClock};
    use crate::board::Move;

    /// The login name, bare (there is no `login` keyword).
    pub fn login(name: &str) -> String {
        name.to_string()
    }

    /// The password line (never log it).
    pub fn password(password: &str) -> String {
        password.to_string()
    }

    /// The set-up lines sent right after the password, as Edax and ODK do: no terminal
    /// codes, no bells, no news, no `+ack` echoes, tell me when /os comes and goes, and the
    /// Othello service as the default for `ts`.
    pub fn setup() -> Vec<String> {
        [
            "vt100 -",
            "bell -t -tc -tg -n -nc -ng -ni -nn",
            "verbose -news -faq -help -ack",
            "notify + /os",
            "mso",
        ]
        .map(String::from)
        .to_vec()
    }

    /// The /os set-up once the service is up (`: + /os 1`): trust my times, verbose boards,
    /// and accept up to `open` matches at once.
    pub fn service_setup(open: u32) -> Vec<String> {
        vec![
            "tell /os trust +".to_string(),
            "tell /os client -".to_string(),
            self::open(open),
        ]
    }

    /// `tell /os open N`: at most `n` matches at once (0: watch only).
    pub fn open(n: u32) -> String {
        format!("tell /os open {n}")
    }

    /// Accepts a request.
    pub fn accept(id: &GameId) -> String {
        format!("tell /os accept {id}")
    }

    /// Declines a request.
    pub fn decline(id: &GameId) -> String {
        format!("tell /os decline {id}")
    }

    /// A tell to a user (the reason of a decline, say).
    pub fn tell(user: &str, text: &str) -> String {
        format!("tell {user} {text}")
    }

    /// Plays a move in a game (the child id in a synchro match): the square in lower case
    /// or `pa`, the evaluation when there is one (2 decimals), and the seconds spent (2
    /// decimals): `tell /os play .5 f5/3.00/1.27`, `tell /os play .5 pa//0.01`.
    pub fn play(id: &GameId, mv: Move, eval: Option<f64>, seconds: f64) -> String {
        let mv = match mv {
            Move::Play(sq) => sq.name(),
            Move::Pass => "pa".to_string(),
        };
        let eval = eval
            .filter(|e| e.is_finite())
            .map(|e| format!("{e:.2}"))
            .unwrap_or_default();
        let seconds = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        format!("tell /os play {id} {mv}/{eval}/{seconds:.2}")
    }

    /// Asks `user` (or anyone, with `None`) for a match of `game_type` with `clock` for
    /// both sides.
    pub fn ask(game_type: &GameType, clock: &GgsClock, user: Option<&str>) -> String {
        match user {
            Some(u) => format!("tell /os ask {game_type} {clock} {u}"),
            None => format!("tell /os ask {game_type} {clock}"),
        }
    }

    /// Asks to resume a stored game.
    pub fn ask_stored(id: &GameId) -> String {
        format!("tell /os ask {id}")
    }

    /// The keep-alive line.
    pub fn keep_alive() -> String {
        "tell /os continue".to_string()
    }

    /// Logs out.
    pub fn quit() -> String {
        "quit".to_string()
    }
}

#[cfg(test)]
mod tests;
