//! Outflank: an Othello (Reversi) engine.
//!
//! The library holds everything; the `outflank` binary is a thin command line over it.
//!
//! - [`board`]: bitboards, moves, flips, symmetry, hashing.
//! - [`perft`]: move-generation counts.
//! - [`accuracy`]: a fixed-depth search's moves and scores judged against exact ones.
//! - [`game`]: a game with history, passes and undo.
//! - [`book`]: the opening book: lookup through the symmetries, build, learn, the book file.
//! - [`notation`]: board strings, transcripts, OBF, GGF and WTHOR, read and written.
//! - [`controller`]: the one game controller every front-end stands on: the game, passes,
//!   undo, both clocks, the engine options, the move policy, the search worker thread.
//! - [`protocol`]: the front-ends (GTP, NBoard, the terminal game), each a translation of its
//!   protocol into calls on the controller.
//! - [`review`]: a game review: each move played scored against the best one.
//! - [`rng`]: the one seedable random generator.
//! - [`arena`]: the match runner: engines as GTP/NBoard clients, refereed games, Elo, SPRT.
//! - [`eval`]: the pattern evaluation and its weights files; [`train`]: the pipeline that
//!   trains them.
//! - [`shard`]: the long steps cut into deterministic shards, and their merge.
//! - [`time_control`]: the one time-control type (main time, increment, extension,
//!   byo-yomi) that notation, search, the controller, the arena and the protocols share.

#![warn(missing_docs)]

pub mod accuracy;
pub mod arena;
pub mod board;
pub mod book;
pub mod checksum;
pub mod cli;
pub mod controller;
pub mod eval;
pub mod excerpt;
pub mod game;
pub mod notation;
pub mod perft;
pub mod protocol;
pub mod review;
pub mod rng;
pub mod search;
pub mod serve;
pub mod shard;
pub mod time_control;
pub mod train;

pub use board::{Board, ByColor, Color, Move, Position, Square};
pub use game::Game;
