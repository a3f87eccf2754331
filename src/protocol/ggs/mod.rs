//! GGS, the Generic Game Server, and its Othello service `/os`: what a client needs to play
//! there (see `docs/ggs.md` in the shared folder for the protocol as the public clients show
//! it).
//!
//! - [`message`]: the server's text framed into messages ([`message::Framer`]) and parsed
//!   into types ([`message::Message`]: prompts, match requests, match start and end, the
//!   verbose `join`/`update` boards with their clocks, errors, tells), the GGS clock and game
//!   type syntaxes, and every line the client sends ([`message::outgoing`]). Pure functions:
//!   no I/O, no threads.
//! - [`client`]: the client that plays there (`outflank ggs`), a front-end on the game
//!   controller like the others, whose commands come from the server.
//! - Pure pieces of the client, no I/O: [`retry`] (failed attempts to log in, the waits
//!   between them, when to give up), [`budget`] (the time a move plans with),
//!   [`match_clocks`] (the clock each match started with), [`outcome`] (results from the
//!   client's side), [`excerpt`] (server lines cut for the log).
//! - [`games_file`]: the file the finished games are appended to.

#![warn(missing_docs)]

pub mod budget;
pub mod client;
pub mod excerpt;
pub mod games_file;
pub mod match_clocks;
pub mod message;
pub mod outcome;
pub mod retry;

pub use client::{AcceptPolicy, Ask, Config, Secret, run};
pub use games_file::GamesFile;
pub use message::{GameType, GgsClock};
