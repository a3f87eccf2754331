//! Outflank: an Othello (Reversi) engine.
//!
//! The library holds everything; the `outflank` binary is a thin command line over it.
//!
//! - [`board`]: bitboards, moves, flips, symmetry, hashing.
//! - [`perft`]: move-generation counts.
//! - [`game`]: a game with history, passes and undo.

pub mod board;
pub mod cli;
pub mod game;
pub mod perft;

pub use board::{Board, Color, Move, Position, Square};
pub use game::Game;
