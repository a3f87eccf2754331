//! `outflank serve`: the browser board (see `docs/serve.md`).

use super::common::EngineArgs;
use crate::controller::Options;
use crate::serve::limits::Limits;
use crate::serve::{Config, run as serve};
use clap::Args as ClapArgs;
use std::net::IpAddr;
use std::path::PathBuf;

/// Arguments of `outflank serve`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The port to listen on (0: any free port; the `listening` line says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on: 127.0.0.1 (this machine only) unless you mean to share the
    /// board, e.g. 0.0.0.0 for every network this machine is on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Open the page in a browser once listening.
    #[arg(long)]
    pub open: bool,
    /// The games' database (SQLite) [default: outflank/games.sqlite in the user's data
    /// folder].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Play and hint from the opening book (on|off).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = ["on", "off"])]
    pub book: String,
    /// Games one client address may create a minute (over it: 429).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_creations)]
    pub max_creations: usize,
    /// Ongoing games on the server (over it, a creation gets 503).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_games)]
    pub max_games: usize,
    /// WebSocket connections to one game (over it: 503).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_game_connections)]
    pub max_game_connections: usize,
    /// WebSocket connections in all (over it: 503).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,
    /// Engine options; --threads is the number of searches at once (each on one thread),
    /// --hash each search engine's table.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Runs the server until interrupted.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let options = Options {
        threads: 1,
        hash_mb: a.engine.hash_mb(),
        book: a.book == "on",
        weights: a.engine.weights()?,
        probcut: a.engine.probcut()?,
        ..Options::default()
    };
    serve(Config {
        bind: a.bind,
        port: a.port,
        open: a.open,
        db: a.db.unwrap_or_else(crate::serve::store::default_path),
        threads: a.engine.threads.max(1),
        options,
        limits: Limits {
            max_creations: a.max_creations,
            max_games: a.max_games,
            max_game_connections: a.max_game_connections,
            max_connections: a.max_connections,
        },
    })?;
    Ok(0)
}
