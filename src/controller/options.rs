//! The engine options every front-end accepts (threads, hash size, level, depth, time per
//! move, the book and its randomness), how to set them by name, and what they make of a
//! position: the book move, the book hints, the limits of an analysis.

use super::session::Session;
use super::setup::EngineSetup;
use crate::board::{Board, Move};
use crate::book::{Book, BookMove};
use crate::eval::Weights;
use crate::rng::Rng;
use crate::search::{EngineConfig, Level, Limits, MovePlan, ProbcutParams, TranspositionTable};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What values an engine option takes ([`OPTIONS`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptionKind {
    /// A whole number in a range.
    Number {
        /// The smallest.
        min: u32,
        /// The largest.
        max: u32,
    },
    /// A whole number in a range, or `none` (also `off`).
    NumberOrNone {
        /// The smallest.
        min: u32,
        /// The largest.
        max: u32,
    },
    /// Seconds in a range, or `none` (also `off`).
    SecondsOrNone {
        /// The smallest.
        min: f64,
        /// The largest.
        max: f64,
    },
    /// On or off (`on`/`off`, `true`/`false`, `1`/`0`).
    Switch,
}

/// A value read for an option.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Number(u32),
    NumberOrNone(Option<u32>),
    Seconds(Option<f64>),
    Switch(bool),
}

impl Value {
    fn number(self) -> Option<u32> {
        match self {
            Value::Number(n) => Some(n),
            Value::NumberOrNone(n) => n,
            _ => None,
        }
    }
}

impl OptionKind {
    /// Reads `value` for option `key`; the error says what the option wants.
    fn read(self, key: &str, value: &str) -> Result<Value, String> {
        let none = value.eq_ignore_ascii_case("none") || value.eq_ignore_ascii_case("off");
        let whole = |min: u32, max: u32| {
            value
                .parse::<u32>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    format!("{key} wants a whole number from {min} to {max}, not {value:?}")
                })
        };
        match self {
            OptionKind::Number { min, max } => whole(min, max).map(Value::Number),
            OptionKind::NumberOrNone { .. } if none => Ok(Value::NumberOrNone(None)),
            OptionKind::NumberOrNone { min, max } => {
                whole(min, max).map(|n| Value::NumberOrNone(Some(n)))
            }
            OptionKind::SecondsOrNone { .. } if none => Ok(Value::Seconds(None)),
            OptionKind::SecondsOrNone { min, max } => value
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && (min..max).contains(s))
                .map(|s| Value::Seconds(Some(s)))
                .ok_or_else(|| format!("{key} wants seconds from {min} to {max:e}, not {value:?}")),
            OptionKind::Switch => match value.to_ascii_lowercase().as_str() {
                "on" | "1" | "true" => Ok(Value::Switch(true)),
                "off" | "0" | "false" => Ok(Value::Switch(false)),
                _ => Err(format!("{key} wants on or off, not {value:?}")),
            },
        }
    }

    /// Checks a value without setting anything (the command line reads its options so).
    pub fn check(self, key: &str, value: &str) -> Result<(), String> {
        self.read(key, value).map(|_| ())
    }
}

/// One engine option: the name every front-end sets it by, its title where a protocol
/// capitalises names (UGI's `option name Threads`), and its values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptionSpec {
    /// The name of `outflank-set`, `set` and [`Options::set`].
    pub key: &'static str,
    /// The name as UGI lists it.
    pub title: &'static str,
    /// Its values.
    pub kind: OptionKind,
}

/// The engine options every front-end sets, listed once: [`Options::set`] reads them by this
/// table, UGI lists it, GTP's `outflank-set` and the terminal game's `set` describe it.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        key: "threads",
        title: "Threads",
        kind: OptionKind::Number { min: 1, max: 256 },
    },
    OptionSpec {
        key: "hash",
        title: "Hash",
        kind: OptionKind::Number {
            min: 1,
            max: 1 << 20,
        },
    },
    OptionSpec {
        key: "level",
        title: "Level",
        kind: OptionKind::NumberOrNone { min: 1, max: 60 },
    },
    OptionSpec {
        key: "depth",
        title: "Depth",
        kind: OptionKind::NumberOrNone { min: 1, max: 60 },
    },
    OptionSpec {
        key: "time",
        title: "MoveTime",
        kind: OptionKind::SecondsOrNone {
            min: 0.001,
            max: 1e7,
        },
    },
    OptionSpec {
        key: "book",
        title: "OwnBook",
        kind: OptionKind::Switch,
    },
    OptionSpec {
        key: "book-randomness",
        title: "BookRandomness",
        kind: OptionKind::Number { min: 0, max: 64 },
    },
];

/// Engine settings shared by both protocols, from the command line (and, where the protocol
/// allows it, changed at run time).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Search threads.
    pub threads: usize,
    /// Hash table size in megabytes.
    pub hash_mb: usize,
    /// Level, depth and time per move.
    pub plan: MovePlan,
    /// Whether to play and hint from the opening book.
    pub book: bool,
    /// The opening book (the shipped one unless the command line names another).
    pub opening_book: Arc<Book>,
    /// Where NBoard's `learn` saves the book; without it, learned games last for the session.
    pub book_file: Option<PathBuf>,
    /// Book moves up to this many discs below the best are played too, picked at random
    /// (0: only the best, at random among equals).
    pub book_randomness: i32,
    /// The evaluation weights (`--eval-file`); the shipped ones when `None`.
    pub weights: Option<Arc<Weights>>,
    /// The probcut parameters (`--probcut-file`); the shipped ones when `None`.
    pub probcut: Option<ProbcutParams>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            hash_mb: crate::search::DEFAULT_HASH_MB,
            plan: MovePlan::default(),
            book: true,
            opening_book: Arc::new(Book::shipped()),
            book_file: None,
            book_randomness: 0,
            weights: None,
            probcut: None,
        }
    }
}

impl Options {
    /// The book move to play in `board` when the book is on and holds the position: one of
    /// the moves within [`Options::book_randomness`] of the best, picked by `rng` (variety in
    /// matches).
    pub fn book_move(&self, board: &Board, rng: &mut Rng) -> Option<BookMove> {
        if !self.book {
            return None;
        }
        self.opening_book.choose(board, self.book_randomness, |n| {
            rng.below(n as u64) as usize
        })
    }

    /// The best `n` book moves of `board`, each with the book's line after it (the move
    /// first), when the book is on and holds the position with as many moves as asked for
    /// (or all the moves the position has).
    pub fn book_hints(&self, board: &Board, n: usize) -> Option<Vec<(BookMove, Vec<Move>)>> {
        if !self.book {
            return None;
        }
        let book = &self.opening_book;
        let moves = book.moves(board).filter(|m| !m.is_empty())?;
        // Fewer book moves than asked for (and than the position has): a search scores them.
        let wanted = n.max(1).min(board.moves().count_ones() as usize);
        if moves.len() < wanted {
            return None;
        }
        Some(
            moves
                .into_iter()
                .take(n.max(1))
                .map(|m| {
                    let line = book.line_after(board, &m, 12);
                    (m, line)
                })
                .collect(),
        )
    }

    /// The limits of an analysis (hints): the level, or the fixed depth, without a clock.
    pub fn analysis_limits(&self, board: &Board) -> Limits {
        let plan = &self.plan;
        let level = plan
            .level
            .or(plan.depth.map(Level::new))
            .unwrap_or(Level::DEFAULT);
        let mut limits = level.limits(board.empty_count());
        if let (Some(d), None) = (plan.depth, limits.solve) {
            limits.depth = Some(d.max(1));
        }
        limits
    }

    /// Sets one option by name ([`OPTIONS`]: `threads`, `hash` (MB), `level`, `depth`,
    /// `time` (seconds per move; `level`, `depth` and `time` also take `none`), `book`
    /// (on/off), `book-randomness` (discs)), as GTP's `outflank-set`, the terminal game's
    /// `set` and UGI's `setoption` take them. Threads and hash size reach the engine through
    /// `session`. On error nothing changes.
    pub fn set<T>(&mut self, key: &str, value: &str, session: &Session<T>) -> Result<(), String> {
        let spec = OPTIONS
            .iter()
            .find(|o| o.key == key)
            .ok_or_else(|| format!("unknown option {key:?}"))?;
        match (key, spec.kind.read(key, value)?) {
            ("threads", Value::Number(t)) => {
                let t = t as usize;
                self.threads = t;
                session.configure(move |e| e.set_threads(t));
            }
            ("hash", Value::Number(mb)) => {
                let mb = mb as usize;
                if mb == self.hash_mb {
                    // The table there is kept (with what it holds): no new one to map.
                    return Ok(());
                }
                // Made here, so that a refusal of the memory is an answer, not a crash.
                let table = TranspositionTable::try_new(mb).map_err(|e| e.to_string())?;
                self.hash_mb = mb;
                session.configure(move |e| e.set_table(table));
            }
            ("level", v) => self.plan.level = v.number().map(Level::new),
            ("depth", v) => self.plan.depth = v.number(),
            ("time", Value::Seconds(s)) => self.plan.move_time = s.map(Duration::from_secs_f64),
            ("book", Value::Switch(on)) => self.book = on,
            ("book-randomness", Value::Number(d)) => self.book_randomness = d as i32,
            _ => unreachable!("OPTIONS and Options::set disagree on {key}"),
        }
        Ok(())
    }

    /// The value of option `key` ([`OPTIONS`]) as text, `none` when unset.
    pub fn get(&self, key: &str) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        match key {
            "threads" => self.threads.to_string(),
            "hash" => self.hash_mb.to_string(),
            "level" => opt(self.plan.level.map(|l| l.to_string())),
            "depth" => opt(self.plan.depth.map(|d| d.to_string())),
            "time" => opt(self.plan.move_time.map(|t| t.as_secs_f64().to_string())),
            "book" => if self.book { "on" } else { "off" }.to_string(),
            "book-randomness" => self.book_randomness.to_string(),
            _ => String::new(),
        }
    }

    /// The options [`Options::set`] takes, with their values, one `KEY VALUE` a line.
    pub fn describe(&self) -> String {
        OPTIONS
            .iter()
            .map(|o| {
                let value = self.get(o.key);
                match o.key {
                    "level" if self.plan.level.is_none() => format!(
                        "level none ({} without a clock, depth or time)",
                        Level::DEFAULT
                    ),
                    key => format!("{key} {value}"),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// How the engine is made: threads, table size, weights and probcut parameters.
    pub fn engine_setup(&self) -> EngineSetup {
        EngineSetup {
            config: EngineConfig {
                threads: self.threads.max(1),
                hash_mb: self.hash_mb.max(1),
            },
            weights: self.weights.clone(),
            probcut: self.probcut.clone(),
        }
    }
}
