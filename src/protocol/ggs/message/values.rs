//! The value types of GGS messages and their text forms: ids ([`GameId`]), times
//! ([`parse_time`], [`format_time`]), clocks ([`GgsClock`]), match types ([`GameType`]), the
//! rated flag ([`Rated`]), players, requests, matches, results, and the move and clock
//! lines of a board message ([`MoveRecord`], [`PlayerClock`]).

use std::fmt;
use std::str::FromStr;

use super::ParseError;
use crate::board::{Color, Move};
use crate::notation::parse_duration;
use crate::time_control::{TimeControl, seconds};

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

    /// The clock as a time control (the one GGF's `TI[...]` writes too): suffixes dropped,
    /// a negative time (a board's main time once spent) none.
    pub fn to_time_control(&self) -> TimeControl {
        TimeControl {
            main: seconds(self.main),
            increment: seconds(self.increment),
            extension: seconds(self.extension),
            byo_yomi: None,
        }
    }

    /// A time control as a GGS clock, without suffixes (GGS has no byo-yomi: it is
    /// dropped).
    pub fn from_time_control(control: &TimeControl) -> GgsClock {
        GgsClock::new(
            control.main.as_secs_f64(),
            control.increment.as_secs_f64(),
            control.extension.as_secs_f64(),
        )
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

pub(super) fn rating(s: &str) -> Result<f64, ParseError> {
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
