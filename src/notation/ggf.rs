//! GGF, the game format of GGS and NBoard: one line, `(;` then `TAG[value]` pairs then `;)`.
//!
//! ```text
//! (;GM[Othello]PC[NBoard]PB[me]PW[engine]RE[?]TI[15:00]TY[8]
//!   BO[8 ---------------------------O*------*O--------------------------- *]B[F5//4.12];)
//! ```
//!
//! Read leniently: tags in any order, unknown tags kept, an optional game number before the
//! game (`1 (;...`), backslash escapes of `]` and `\` in values, several games per line.
//! Moves are read in order and their colour checked by replaying them: a move tag for the
//! colour that is not to move is accepted when the side to move must pass (the pass is then
//! recorded, as [`Game::play_as`] does). Boards other than 8x8 are refused.

use std::fmt;

use super::board_string::{BoardStringError, parse_board_string_unchecked, squares_string};
use crate::board::{Color, Move, MoveError, Position};
use crate::game::Game;
use crate::time_control::{TimeControl, seconds};

/// Reads one duration `[[[d.]h:]m:]s`; an empty text is 0. GGS flags after a `,` are
/// ignored.
pub(crate) fn parse_duration(s: &str) -> Option<f64> {
    let s = s.split(',').next().unwrap_or("").trim();
    if s.is_empty() {
        return Some(0.0);
    }
    let number = |t: &str| -> Option<f64> {
        let t = t.trim();
        if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        t.parse::<f64>().ok().filter(|v| v.is_finite())
    };
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    let mut total = 0.0;
    for (i, part) in parts.iter().rev().enumerate() {
        total += match i {
            0 => number(part)?,
            1 => number(part)? * 60.0,
            _ => match part.split_once('.') {
                Some((d, h)) => number(d)? * 86_400.0 + number(h)? * 3600.0,
                None => number(part)? * 3600.0,
            },
        };
    }
    total.is_finite().then_some(total)
}

/// Writes a duration: `h:mm:ss` or `mm:ss` for whole seconds, plain seconds otherwise.
fn write_duration(secs: f64) -> String {
    if secs.fract() == 0.0 && (0.0..1e12).contains(&secs) {
        let t = secs as u64;
        let (h, m, s) = (t / 3600, (t / 60) % 60, t % 60);
        if h > 0 {
            format!("{h}:{m:02}:{s:02}")
        } else {
            format!("{m:02}:{s:02}")
        }
    } else {
        format!("{secs}")
    }
}

/// Reads a GGF clock, `main[/increment[/extension]]` (`15:00`, `05:00//02:00`,
/// `1:00:00`), each part `[[[d.]h:]m:]s`; `None` when it is not one. Missing parts are 0;
/// a part longer than [`seconds`] allows is cut to that.
pub fn parse_ggf_clock(s: &str) -> Option<TimeControl> {
    let mut parts = s.split('/');
    let mut part = || parse_duration(parts.next().unwrap_or("")).map(seconds);
    let (main, increment, extension) = (part()?, part()?, part()?);
    if parts.next().is_some() {
        return None;
    }
    Some(TimeControl {
        main,
        increment,
        extension,
        byo_yomi: None,
    })
}

/// Writes a time control as GGF's clock: `15:00`, `05:00/10`, `05:00//02:00` (GGF has no
/// byo-yomi; it is not written).
pub fn ggf_clock(clock: &TimeControl) -> String {
    let mut s = write_duration(clock.main.as_secs_f64());
    let inc = || {
        if clock.increment.is_zero() {
            String::new()
        } else {
            write_duration(clock.increment.as_secs_f64())
        }
    };
    if !clock.extension.is_zero() {
        s.push_str(&format!(
            "/{}/{}",
            inc(),
            write_duration(clock.extension.as_secs_f64())
        ));
    } else if !clock.increment.is_zero() {
        s.push_str(&format!("/{}", inc()));
    }
    s
}

/// One move of a GGF game with its annotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfMove {
    /// The colour that played it.
    pub color: Color,
    /// The move (a pass included).
    pub mv: Move,
    /// The evaluation given with it, in discs, when there is one.
    pub eval: Option<f64>,
    /// Seconds spent on it, when given.
    pub time: Option<f64>,
}

/// A GGF game: its tags, its start position and its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// `PC`: where it was played.
    pub place: Option<String>,
    /// `DT`: when it was played (free text).
    pub date: Option<String>,
    /// `PB`: the black player.
    pub black: Option<String>,
    /// `PW`: the white player.
    pub white: Option<String>,
    /// `RB`: black's rating (a value that is not a number stays in [`GgfGame::other`]).
    pub black_rating: Option<f64>,
    /// `RW`: white's rating.
    pub white_rating: Option<f64>,
    /// `RE`: the result as written: net discs for black (`+12.00`), `?` when unfinished,
    /// flags after `:` (`r` resigned, `t` timeout). See [`GgfGame::result_margin`].
    pub result: Option<String>,
    /// `TI`: both players' clock.
    pub time: Option<TimeControl>,
    /// `TB`: black's clock when it differs.
    pub time_black: Option<TimeControl>,
    /// `TW`: white's clock when it differs.
    pub time_white: Option<TimeControl>,
    /// `TY`: the game type, `8` for plain Othello (letters add variants).
    pub game_type: String,
    /// `KM`: the komi.
    pub komi: Option<String>,
    /// `CO`: a comment.
    pub comment: Option<String>,
    /// Every other tag (`KB`, `KW`, unknown ones), in the order read.
    pub other: Vec<(String, String)>,
    /// `BO`: the start position (the standard one when there is no `BO`).
    pub start: Position,
    /// The moves in order, passes included (an implicit pass becomes an explicit one).
    pub moves: Vec<GgfMove>,
}

impl Default for GgfGame {
    fn default() -> Self {
        GgfGame {
            place: None,
            date: None,
            black: None,
            white: None,
            black_rating: None,
            white_rating: None,
            result: None,
            time: None,
            time_black: None,
            time_white: None,
            game_type: "8".to_string(),
            komi: None,
            comment: None,
            other: Vec::new(),
            start: Position::start(),
            moves: Vec::new(),
        }
    }
}

/// What is wrong with a GGF game.
#[derive(Clone, Debug, PartialEq)]
pub enum GgfErrorKind {
    /// No game in the text.
    Empty,
    /// The text does not start with `(;`.
    NotAGame(String),
    /// The game has no closing `;)`.
    NotClosed,
    /// A tag's value has no closing `]`.
    ValueNotClosed(String),
    /// A character where a tag name was expected.
    Unexpected(char),
    /// A tag name without a `[value]`.
    MissingValue(String),
    /// `GM` names another game.
    NotOthello(String),
    /// The board is not 8x8 (from `BO` or `TY`).
    BoardSize(String),
    /// An anti-Othello game (`TY` with an `a`: the fewer discs win), which the engine does
    /// not play.
    Anti(String),
    /// The `BO` squares or side are wrong.
    Board(BoardStringError),
    /// A clock tag that cannot be read.
    BadClock {
        /// `TI`, `TB` or `TW`.
        tag: String,
        /// Its value.
        value: String,
    },
    /// A move that is not a square or a pass.
    BadMove {
        /// The move's number (its `B`/`W` tag's), from 1.
        number: usize,
        /// The text found.
        text: String,
    },
    /// A move that is illegal where it is played.
    Illegal {
        /// The move's number, from 1.
        number: usize,
        /// The colour of its tag.
        color: Color,
        /// The move.
        mv: Move,
        /// Why it is illegal.
        error: MoveError,
    },
    /// A move tagged with the colour that is not to move, while the side to move can move.
    WrongColor {
        /// The move's number, from 1.
        number: usize,
        /// The colour of its tag.
        color: Color,
        /// The move.
        mv: Move,
    },
    /// Text after the game where none is expected.
    Trailing(String),
}

/// Why GGF text could not be read: what is wrong, and in which game of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfError {
    /// The game's number in the text, from 1, when reading several.
    pub game: Option<usize>,
    /// What is wrong.
    pub kind: GgfErrorKind,
}

fn tag_letter(c: Color) -> char {
    match c {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

fn move_upper(mv: Move) -> String {
    mv.to_string().to_ascii_uppercase()
}

impl GgfError {
    fn new(kind: GgfErrorKind) -> GgfError {
        GgfError { game: None, kind }
    }

    /// The message without the leading `GGF: `.
    pub(crate) fn detail(&self) -> String {
        match &self.kind {
            GgfErrorKind::Empty => "no game found".to_string(),
            GgfErrorKind::NotAGame(s) => format!("expected \"(;\" to start a game, found {s:?}"),
            GgfErrorKind::NotClosed => "game not closed (missing \";)\")".to_string(),
            GgfErrorKind::ValueNotClosed(t) => {
                format!("value of tag {t} not closed (missing \"]\")")
            }
            GgfErrorKind::Unexpected(c) => format!("unexpected character {c:?} (expected a tag)"),
            GgfErrorKind::MissingValue(t) => format!("tag {t} has no [value]"),
            GgfErrorKind::NotOthello(g) => format!("not an Othello game: GM[{g}]"),
            GgfErrorKind::BoardSize(s) => {
                format!("only 8x8 boards are supported, found board size {s:?}")
            }
            GgfErrorKind::Anti(t) => {
                format!("anti-Othello games (TY[{t}]: the fewer discs win) are not supported")
            }
            GgfErrorKind::Board(e) => format!("bad board in BO: {}", e.detail()),
            GgfErrorKind::BadClock { tag, value } => format!(
                "bad clock {tag}[{value}] (expected [[h:]m:]s[/increment[/extension]], like 15:00)"
            ),
            GgfErrorKind::BadMove { number, text } => {
                format!("unknown move {text:?} at move {number}")
            }
            GgfErrorKind::Illegal {
                number,
                color,
                mv,
                error,
            } => format!(
                "move {number} {}[{}]: {error}",
                tag_letter(*color),
                move_upper(*mv)
            ),
            GgfErrorKind::WrongColor { number, color, mv } => format!(
                "move {number} {}[{}]: {} is to move and has a legal move",
                tag_letter(*color),
                move_upper(*mv),
                color.opposite()
            ),
            GgfErrorKind::Trailing(s) => format!("unexpected text after the game: {s:?}"),
        }
    }
}

impl fmt::Display for GgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.game {
            Some(n) => write!(f, "GGF game {n}: {}", self.detail()),
            None => write!(f, "GGF: {}", self.detail()),
        }
    }
}

impl std::error::Error for GgfError {}

/// The first few characters of `s`, for an error.
fn excerpt(s: &str) -> String {
    crate::excerpt::excerpt(s, 20).into_owned()
}

/// Skips an optional game number before a game (`1 (;`, `2 (;`).
fn skip_game_number(s: &str) -> &str {
    let t = s.trim_start();
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() != t.len() && rest.starts_with(char::is_whitespace) {
        rest.trim_start()
    } else {
        t
    }
}

/// Tag names and values, in the order read.
type Tags = Vec<(String, String)>;

/// Reads the tags of one game at the start of `s` (after blanks and a game number). Returns
/// the tags, values unescaped, and the text after the game.
fn lex(s: &str) -> Result<(Tags, &str), GgfErrorKind> {
    let t = skip_game_number(s);
    let Some(mut rest) = t.strip_prefix("(;") else {
        return Err(if t.is_empty() {
            GgfErrorKind::Empty
        } else {
            GgfErrorKind::NotAGame(excerpt(t))
        });
    };
    let mut tags = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix(";)").or_else(|| rest.strip_prefix(')')) {
            return Ok((tags, r));
        }
        if let Some(r) = rest.strip_prefix(';') {
            rest = r;
            continue;
        }
        let Some(first) = rest.chars().next() else {
            return Err(GgfErrorKind::NotClosed);
        };
        let name_len = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        if name_len == 0 {
            return Err(GgfErrorKind::Unexpected(first));
        }
        let (name, r) = rest.split_at(name_len);
        let name = name.to_ascii_uppercase();
        let Some(r) = r.trim_start().strip_prefix('[') else {
            return Err(if r.trim_start().is_empty() {
                GgfErrorKind::NotClosed
            } else {
                GgfErrorKind::MissingValue(name)
            });
        };
        let mut value = String::new();
        let mut chars = r.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                ']' => {
                    end = Some(i + 1);
                    break;
                }
                '\\' => match r[i + 1..].chars().next() {
                    Some(e @ (']' | '\\')) => {
                        value.push(e);
                        chars.next();
                    }
                    _ => value.push('\\'),
                },
                c => value.push(c),
            }
        }
        let Some(end) = end else {
            return Err(GgfErrorKind::ValueNotClosed(name));
        };
        rest = &r[end..];
        tags.push((name, value));
    }
}

/// Escapes `]` and `\` in a value, and writes a line break (a multi-line engine answer in a
/// comment) as a space, so that a game stays one line.
fn escape(value: &str) -> String {
    let mut s = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            ']' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            '\n' | '\r' => s.push(' '),
            c => s.push(c),
        }
    }
    s
}

/// Checks a `TY` value: the board size (digits not after an `r`, the random-start count) and
/// no `a` (anti-Othello). Synchro (`s`), komi (`k`) and random-start (`r`) games keep the
/// rules of play, so they are read as they are.
fn check_type(ty: &str) -> Result<(), GgfErrorKind> {
    if ty.contains(['a', 'A']) {
        return Err(GgfErrorKind::Anti(ty.to_string()));
    }
    let mut prev = ' ';
    let mut rest = ty;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let (digits, r) = rest.split_at(len);
            if !prev.eq_ignore_ascii_case(&'r') && digits != "8" {
                return Err(GgfErrorKind::BoardSize(ty.to_string()));
            }
            rest = r;
            prev = '0';
        } else {
            prev = c;
            rest = &rest[c.len_utf8()..];
        }
    }
    Ok(())
}

/// Reads a `BO` value: `8`, the 64 squares, the side to move.
fn parse_bo(value: &str) -> Result<Position, GgfErrorKind> {
    let v = value.trim();
    let size_len = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (size, squares) = v.split_at(size_len);
    if size != "8" {
        let shown = if size.is_empty() {
            excerpt(v)
        } else {
            size.to_string()
        };
        return Err(GgfErrorKind::BoardSize(shown));
    }
    parse_board_string_unchecked(squares).map_err(GgfErrorKind::Board)
}

/// Reads a move value `MV[/EVAL[/TIME]]`. An evaluation or time that is not a number is
/// ignored, as NBoard's `move` ignores it: any annotation is accepted.
fn parse_move_value(
    number: usize,
    value: &str,
) -> Result<(Move, Option<f64>, Option<f64>), GgfErrorKind> {
    let (text, eval, time) = split_move_value(value);
    let mv: Move = text.parse().map_err(|_| GgfErrorKind::BadMove {
        number,
        text: text.to_string(),
    })?;
    Ok((mv, eval, time))
}

/// Splits a move annotation `mv/eval/time` (GGF's move tags, GGS's move lines) into the
/// move's text, trimmed, and the evaluation and seconds when they are finite numbers.
pub(crate) fn split_move_value(value: &str) -> (&str, Option<f64>, Option<f64>) {
    let mut parts = value.split('/');
    let text = parts.next().unwrap_or("").trim();
    let mut number_part = || {
        parts
            .next()
            .and_then(|p| p.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite())
    };
    let eval = number_part();
    let time = number_part();
    (text, eval, time)
}

/// Reads one game at the start of `s`; returns it and the text after it.
fn parse_one(s: &str) -> Result<(GgfGame, &str), GgfErrorKind> {
    let (tags, rest) = lex(s)?;
    let mut g = GgfGame::default();
    let mut move_tags = Vec::new();
    for (name, value) in tags {
        let clock = |value: &str| {
            parse_ggf_clock(value).ok_or_else(|| GgfErrorKind::BadClock {
                tag: name.clone(),
                value: value.to_string(),
            })
        };
        let rating = |value: &str| value.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        match name.as_str() {
            "GM" => {
                if !value.trim().eq_ignore_ascii_case("othello") {
                    return Err(GgfErrorKind::NotOthello(value));
                }
            }
            "PC" => g.place = Some(value),
            "DT" => g.date = Some(value),
            "PB" => g.black = Some(value),
            "PW" => g.white = Some(value),
            "RB" if rating(&value).is_some() => g.black_rating = rating(&value),
            "RW" if rating(&value).is_some() => g.white_rating = rating(&value),
            "RE" => g.result = Some(value),
            "TI" => g.time = Some(clock(&value)?),
            "TB" => g.time_black = Some(clock(&value)?),
            "TW" => g.time_white = Some(clock(&value)?),
            "TY" => {
                check_type(&value)?;
                g.game_type = value;
            }
            "KM" => g.komi = Some(value),
            "CO" => g.comment = Some(value),
            "BO" => g.start = parse_bo(&value)?,
            "B" => move_tags.push((Color::Black, value)),
            "W" => move_tags.push((Color::White, value)),
            _ => g.other.push((name, value)),
        }
    }
    let mut pos = g.start;
    for (i, (color, value)) in move_tags.iter().enumerate() {
        let number = i + 1;
        let (mv, eval, time) = parse_move_value(number, value)?;
        let illegal = |error| GgfErrorKind::Illegal {
            number,
            color: *color,
            mv,
            error,
        };
        if pos.to_move != *color {
            if mv == Move::Pass || !pos.board.must_pass() {
                return Err(GgfErrorKind::WrongColor {
                    number,
                    color: *color,
                    mv,
                });
            }
            g.moves.push(GgfMove {
                color: pos.to_move,
                mv: Move::Pass,
                eval: None,
                time: None,
            });
            pos = pos.play(Move::Pass).map_err(illegal)?;
        }
        pos = pos.play(mv).map_err(illegal)?;
        g.moves.push(GgfMove {
            color: *color,
            mv,
            eval,
            time,
        });
    }
    Ok((g, rest))
}

/// Reads one GGF game (after an optional game number); only blanks may follow it.
pub fn parse_ggf(s: &str) -> Result<GgfGame, GgfError> {
    let (g, rest) = parse_one(super::without_bom(s)).map_err(GgfError::new)?;
    let rest = rest.trim();
    if !rest.is_empty() {
        return Err(GgfError::new(GgfErrorKind::Trailing(excerpt(rest))));
    }
    Ok(g)
}

/// Reads every game of a GGF file: one or several per line, each optionally after a game
/// number. An error names the game (counted from 1).
pub fn parse_ggf_games(s: &str) -> Result<Vec<GgfGame>, GgfError> {
    let mut games = Vec::new();
    let mut rest = super::without_bom(s);
    while !rest.trim().is_empty() {
        let (g, r) = parse_one(rest).map_err(|kind| GgfError {
            game: Some(games.len() + 1),
            kind,
        })?;
        games.push(g);
        rest = r;
    }
    Ok(games)
}

impl GgfGame {
    /// A GGF game holding `game`'s start and moves, with no other information (`RE` is set
    /// when the game is over).
    pub fn from_game(game: &Game) -> GgfGame {
        let moves = game
            .moves()
            .iter()
            .zip(game.positions())
            .map(|(&mv, pos)| GgfMove {
                color: pos.to_move,
                mv,
                eval: None,
                time: None,
            })
            .collect();
        GgfGame {
            start: game.start(),
            moves,
            result: game.result().map(|r| format!("{r:+}")),
            ..GgfGame::default()
        }
    }

    /// Replays the moves from the start into a [`Game`]. The moves were checked when read;
    /// should the fields have been edited into an illegal sequence, the replay stops before
    /// the first illegal move.
    pub fn to_game(&self) -> Game {
        let mut game = Game::new(self.start);
        for m in &self.moves {
            if game.play_as(m.color, m.mv).is_err() {
                break;
            }
        }
        game
    }

    /// The clock of `color`: `TB` or `TW` when given, else `TI`.
    pub fn clock(&self, color: Color) -> Option<TimeControl> {
        match color {
            Color::Black => self.time_black.or(self.time),
            Color::White => self.time_white.or(self.time),
        }
    }

    /// Black's net discs from `RE` (`+12.00` -> 12.0), `None` when unfinished (`?`) or absent.
    pub fn result_margin(&self) -> Option<f64> {
        let r = self.result.as_deref()?;
        let margin = r.split(':').next().unwrap_or("").trim();
        margin.parse::<f64>().ok().filter(|v| v.is_finite())
    }

    /// Writes the game as one GGF line that NBoard and GGS read:
    /// `(;GM[Othello]PC[..]...TY[8]BO[8 <64 squares> <side>]B[F5//1.23]W[...];)`.
    pub fn to_ggf(&self) -> String {
        let mut s = String::from("(;GM[Othello]");
        let mut tag = |name: &str, value: &str| {
            s.push_str(name);
            s.push('[');
            s.push_str(&escape(value));
            s.push(']');
        };
        let text_tags = [
            ("PC", &self.place),
            ("DT", &self.date),
            ("PB", &self.black),
            ("PW", &self.white),
        ];
        for (name, value) in text_tags {
            if let Some(v) = value {
                tag(name, v);
            }
        }
        for (name, value) in [("RB", self.black_rating), ("RW", self.white_rating)] {
            if let Some(v) = value {
                tag(name, &v.to_string());
            }
        }
        if let Some(v) = &self.result {
            tag("RE", v);
        }
        for (name, value) in [
            ("TI", self.time),
            ("TB", self.time_black),
            ("TW", self.time_white),
        ] {
            if let Some(c) = value {
                tag(name, &ggf_clock(&c));
            }
        }
        tag("TY", &self.game_type);
        for (name, value) in [("KM", &self.komi), ("CO", &self.comment)] {
            if let Some(v) = value {
                tag(name, v);
            }
        }
        for (name, value) in &self.other {
            tag(name, value);
        }
        let side = match self.start.to_move {
            Color::Black => '*',
            Color::White => 'O',
        };
        let board = squares_string(&self.start, '*', 'O', '-');
        tag("BO", &format!("8 {board} {side}"));
        for m in &self.moves {
            let mut v = move_upper(m.mv);
            if m.eval.is_some() || m.time.is_some() {
                v.push('/');
                if let Some(e) = m.eval {
                    v.push_str(&e.to_string());
                }
            }
            if let Some(t) = m.time {
                v.push('/');
                v.push_str(&t.to_string());
            }
            tag(&tag_letter(m.color).to_string(), &v);
        }
        s.push_str(";)");
        s
    }
}

impl fmt::Display for GgfGame {
    /// The GGF line of [`GgfGame::to_ggf`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_ggf())
    }
}

/// The current UTC time as GGS writes dates: `2024.05.01_13:45:10.UTC`.
pub fn ggf_date_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    ggf_date(secs)
}

/// A Unix time as GGS writes dates: `2024.05.01_13:45:10.UTC`.
pub fn ggf_date(unix_secs: u64) -> String {
    let days = (unix_secs / 86_400) as i64;
    let rem = unix_secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}.{m:02}.{d:02}_{:02}:{:02}:{:02}.UTC",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBOARD: &str = "(;GM[Othello]PC[NBoard]PB[me]PW[engine]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)";

    fn sq(s: &str) -> Move {
        Move::Play(s.parse().unwrap())
    }

    #[test]
    fn annotations_that_are_not_numbers_are_ignored() {
        let g = parse_ggf(
            "(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5/abc]W[F4//x/y];)",
        )
        .unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!((g.moves[0].eval, g.moves[1].time), (None, None));
    }

    #[test]
    fn clocks() {
        let c = |main: f64, increment: f64, extension: f64| TimeControl {
            main: seconds(main),
            increment: seconds(increment),
            extension: seconds(extension),
            byo_yomi: None,
        };
        assert_eq!(parse_ggf_clock("15:00"), Some(c(900.0, 0.0, 0.0)));
        assert_eq!(parse_ggf_clock("05:00//02:00"), Some(c(300.0, 0.0, 120.0)));
        assert_eq!(parse_ggf_clock("1:00:00"), Some(c(3600.0, 0.0, 0.0)));
        assert_eq!(parse_ggf_clock("1.02:00:00"), Some(c(93600.0, 0.0, 0.0)));
        assert_eq!(
            parse_ggf_clock("10:00,N/5/1:00,L"),
            Some(c(600.0, 5.0, 60.0))
        );
        assert_eq!(parse_ggf_clock("90.5"), Some(c(90.5, 0.0, 0.0)));
        for bad in ["x", "1:2:3:4", "-5", "1/2/3/4", "inf"] {
            assert_eq!(parse_ggf_clock(bad), None, "{bad}");
        }
        for s in ["15:00", "05:00//02:00", "1:00:00", "05:00/10", "90.5"] {
            let clock = parse_ggf_clock(s).unwrap();
            assert_eq!(parse_ggf_clock(&ggf_clock(&clock)), Some(clock), "{s}");
        }
        assert_eq!(ggf_clock(&c(900.0, 0.0, 0.0)), "15:00");
        assert_eq!(ggf_clock(&c(300.0, 0.0, 120.0)), "05:00//02:00");
        // Fractions are written as the seconds were read; longer than a billion seconds is
        // cut to that.
        for s in ["12.345", "05:00/0.25/1.5", "0.1"] {
            assert_eq!(ggf_clock(&parse_ggf_clock(s).unwrap()), s);
        }
        assert_eq!(
            parse_ggf_clock("99999999999999999999").map(|c| c.main),
            Some(crate::time_control::LONGEST)
        );
    }

    #[test]
    fn nboard_game() {
        let g = parse_ggf(NBOARD).unwrap();
        assert_eq!(g.place.as_deref(), Some("NBoard"));
        assert_eq!(g.black.as_deref(), Some("me"));
        assert_eq!(g.clock(Color::White).map(|c| c.main), Some(seconds(900.0)));
        assert_eq!(g.start, Position::start());
        assert!(g.moves.is_empty());
        assert_eq!(parse_ggf(&g.to_ggf()).unwrap(), g);
    }

    #[test]
    fn moves_and_annotations() {
        let text = NBOARD.replace(";)", "B[F5]W[d6//1.2]B[C3/-1.50/0.5]w[d3/];)");
        let g = parse_ggf(&text).unwrap();
        assert_eq!(g.moves.len(), 4);
        assert_eq!(g.moves[1].time, Some(1.2));
        assert_eq!(g.moves[2].eval, Some(-1.5));
        assert_eq!(g.moves[2].time, Some(0.5));
        assert_eq!(g.moves[3].mv, sq("d3"));
        assert_eq!(g.to_game().len(), 4);
        assert_eq!(parse_ggf(&g.to_ggf()).unwrap(), g);
    }

    #[test]
    fn a_game_is_one_line() {
        let mut g = parse_ggf(NBOARD).unwrap();
        g.comment = Some("refused `genmove b`: a\r\nb]\\".to_string());
        let line = g.to_ggf();
        assert!(!line.contains(['\n', '\r']), "{line}");
        assert_eq!(
            parse_ggf(&line).unwrap().comment.as_deref(),
            Some("refused `genmove b`: a  b]\\")
        );
    }

    #[test]
    fn lenient_reading() {
        let text = "2 (; PW[a\\]b] ZZ[x] B[f5] BO[8 -------- -------- -------- ---Ox--- ---x0--- -------- -------- -------- *] GM[othello] ;)";
        let g = parse_ggf(text).unwrap();
        assert_eq!(g.white.as_deref(), Some("a]b"));
        assert_eq!(g.other, vec![("ZZ".to_string(), "x".to_string())]);
        assert_eq!(g.moves.len(), 1);
        let two = format!("{NBOARD} {NBOARD}\n1 {NBOARD}\n");
        assert_eq!(parse_ggf_games(&two).unwrap().len(), 3);
        assert_eq!(parse_ggf_games("").unwrap().len(), 0);
    }

    #[test]
    fn errors() {
        let msg = |s: &str| parse_ggf(s).unwrap_err().to_string();
        assert_eq!(
            msg("(;GM[Othello]"),
            "GGF: game not closed (missing \";)\")"
        );
        assert_eq!(
            msg("(;GM[Othello]PB[x"),
            "GGF: value of tag PB not closed (missing \"]\")"
        );
        assert!(msg("xyz").contains("expected \"(;\""));
        assert!(msg("").contains("no game"));
        assert!(msg("(;GM[Go];)").contains("not an Othello game"));
        let ten = NBOARD.replace("BO[8 ", "BO[10 ");
        assert!(msg(&ten).contains("only 8x8 boards"), "{}", msg(&ten));
        let ty = NBOARD.replace("TY[8]", "TY[s10]");
        assert!(msg(&ty).contains("only 8x8 boards"));
        assert!(parse_ggf(&NBOARD.replace("TY[8]", "TY[8r20]")).is_ok());
        assert!(parse_ggf(&NBOARD.replace("TY[8]", "TY[s8]")).is_ok());
        assert!(parse_ggf(&NBOARD.replace("TY[8]", "TY[8k]")).is_ok());
        let anti = NBOARD.replace("TY[8]", "TY[8a]");
        assert_eq!(
            msg(&anti),
            "GGF: anti-Othello games (TY[8a]: the fewer discs win) are not supported"
        );
        let short = NBOARD.replace("O*------*O", "O*-----*O");
        assert!(msg(&short).contains("bad board in BO"), "{}", msg(&short));
        let z9 = NBOARD.replace(";)", "B[Z9];)");
        assert_eq!(msg(&z9), "GGF: unknown move \"Z9\" at move 1");
        let illegal = NBOARD.replace(";)", "B[F5]W[A1];)");
        assert_eq!(
            msg(&illegal),
            "GGF: move 2 W[A1]: illegal move a1: it outflanks no disc"
        );
        let wrong = NBOARD.replace(";)", "W[F5];)");
        assert_eq!(
            msg(&wrong),
            "GGF: move 1 W[F5]: black is to move and has a legal move"
        );
        assert!(msg(&format!("{NBOARD} x")).contains("after the game"));
        let e = parse_ggf_games(&format!("{NBOARD}\n(;GM[Othello]")).unwrap_err();
        assert!(e.to_string().starts_with("GGF game 2: "), "{e}");
        assert!(parse_ggf("(;B[é").is_err());
        assert!(parse_ggf("(;é[x];)").is_err());
        assert!(parse_ggf("(;PB[\\").is_err());
    }
}
