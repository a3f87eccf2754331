//! The command line: one module per subcommand, each a thin layer over the library.

pub mod matchcmd;
pub mod perft;

use clap::{Parser, Subcommand};

/// Outflank, an Othello engine.
#[derive(Parser, Debug)]
#[command(name = "outflank", version, about, long_about = None)]
pub struct Cli {
    /// Log to stderr (-v info, -vv debug, -vvv trace); RUST_LOG works too.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the leaves of the game tree to a depth (move-generation test and benchmark).
    Perft(perft::Args),
    /// Referee engine-vs-engine matches and round robins over GTP or NBoard.
    Match(matchcmd::Args),
}

/// Runs a parsed command line; the error is reported by `main`.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Perft(a) => perft::run(a),
        Command::Match(a) => matchcmd::run(a).map(|_| ()),
    }
}
