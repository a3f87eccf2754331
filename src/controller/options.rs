//! The engine options every front-end accepts (threads, hash size, level, depth, time per
//! move, the book and its randomness), how to set them by name, and what they make of a
//! position: the book move, the book hints, the limits of an analysis.

use super::session::Session;
use crate::board::{Board, Move};
use crate::book::{Book, BookMove};
use crate::rng::Rng;
use crate::search::{EngineConfig, Level, Limits, MovePlan, TranspositionTable};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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

    /// Sets one option by name, as GTP's `outflank-set` and the terminal game's `set` take
    /// them: `threads`, `hash` (MB), `level`, `depth`, `time` (seconds per move; `level`,
    /// `depth` and `time` also take `none`), `book` (on/off), `book-randomness` (discs).
    /// Threads and hash size reach the engine through `session`. On error nothing changes.
    pub fn set(&mut self, key: &str, value: &str, session: &Session) -> Result<(), String> {
        let none = value.eq_ignore_ascii_case("none") || value.eq_ignore_ascii_case("off");
        let number = |low: u32, high: u32| -> Result<u32, String> {
            value
                .parse::<u32>()
                .ok()
                .filter(|n| (low..=high).contains(n))
                .ok_or_else(|| {
                    format!("{key} wants a whole number from {low} to {high}, not {value:?}")
                })
        };
        match key {
            "threads" => {
                let t = number(1, 256)? as usize;
                self.threads = t;
                session.configure(move |e| e.set_threads(t));
            }
            "hash" => {
                let mb = number(1, 1 << 20)? as usize;
                if mb == self.hash_mb {
                    // The table there is kept (with what it holds): no new one to map.
                    return Ok(());
                }
                // Made here, so that a refusal of the memory is an answer, not a crash.
                let table = TranspositionTable::try_new(mb).map_err(|e| e.to_string())?;
                self.hash_mb = mb;
                session.configure(move |e| e.set_table(table));
            }
            "level" => {
                self.plan.level = if none {
                    None
                } else {
                    Some(Level::new(number(1, 60)?))
                }
            }
            "depth" => self.plan.depth = if none { None } else { Some(number(1, 60)?) },
            "time" => {
                self.plan.move_time = if none {
                    None
                } else {
                    let s: f64 = value
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s >= 0.001 && *s < 1e7)
                        .ok_or_else(|| {
                            format!("time wants seconds from 0.001 to 1e7, not {value:?}")
                        })?;
                    Some(Duration::from_secs_f64(s))
                }
            }
            "book" => {
                self.book = match value.to_ascii_lowercase().as_str() {
                    "on" | "1" | "true" => true,
                    "off" | "0" | "false" => false,
                    _ => return Err(format!("book wants on or off, not {value:?}")),
                }
            }
            "book-randomness" => {
                self.book_randomness = value
                    .parse::<i32>()
                    .ok()
                    .filter(|d| (0..=64).contains(d))
                    .ok_or_else(|| {
                    format!("book-randomness wants 0-64 discs, not {value:?}")
                })?;
            }
            _ => return Err(format!("unknown option {key:?}")),
        }
        Ok(())
    }

    /// The options [`Options::set`] takes, with their values, one `KEY VALUE` a line.
    pub fn describe(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        format!(
            "threads {}\nhash {}\nlevel {}\ndepth {}\ntime {}\nbook {}\nbook-randomness {}",
            self.threads,
            self.hash_mb,
            self.plan.level.map_or_else(
                || format!("none ({} without a clock, depth or time)", Level::DEFAULT),
                |l| l.to_string()
            ),
            opt(self.plan.depth.map(|d| d.to_string())),
            opt(self.plan.move_time.map(|t| t.as_secs_f64().to_string())),
            if self.book { "on" } else { "off" },
            self.book_randomness,
        )
    }

    /// The engine settings part.
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            threads: self.threads.max(1),
            hash_mb: self.hash_mb.max(1),
        }
    }
}
