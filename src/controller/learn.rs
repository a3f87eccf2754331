//! NBoard's `learn` on the session's worker (`LearnJob`): the game's positions join the
//! book, each new one scored by a search of the worker's engine, and the book is saved to
//! the book file; a learn stopped on the way (replaced by another job, the session ended)
//! changes and saves nothing.

use crate::board::{Board, Move};
use crate::book::{Book, Builder};
use crate::search::Engine;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What [`super::Controller::learn`] did with the book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Learned {
    /// Saved to the book file, with this many positions.
    Saved(usize),
    /// Not saved (why); the book learned stays for the session.
    NotSaved(String),
    /// No book file to save to: learned for the session; this many positions.
    ForSession(usize),
    /// Stopped before the end (an input interrupted it): the book is as it was.
    Stopped,
}

/// A learn to run on the worker: the book it starts from, the game, and where to save.
pub(crate) struct LearnJob {
    pub(crate) book: Book,
    pub(crate) start: Board,
    pub(crate) moves: Vec<Move>,
    pub(crate) depth: u32,
    pub(crate) plies: usize,
    pub(crate) file: Option<PathBuf>,
}

/// A learn's result: the book learned and what became of it.
#[derive(Debug)]
pub struct LearnOutcome {
    pub(crate) book: Arc<Book>,
    pub(crate) learned: Learned,
}

impl LearnJob {
    /// Runs the learn with `engine`; `None` when `stop` was set on the way (nothing saved).
    pub(crate) fn run(self, engine: &Engine, stop: &Arc<AtomicBool>) -> Option<LearnOutcome> {
        let mut builder = Builder::new(engine, self.book, self.depth).stop_on(stop.clone());
        builder.learn(&self.start, &self.moves, self.plies);
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let book = builder.book;
        let learned = match &self.file {
            Some(path) => match crate::book::save(&book, path) {
                Ok(()) => Learned::Saved(book.len()),
                Err(e) => Learned::NotSaved(format!("{e:#}")),
            },
            None => Learned::ForSession(book.len()),
        };
        Some(LearnOutcome {
            book: Arc::new(book),
            learned,
        })
    }
}
