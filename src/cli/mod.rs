//! The command line: one module per subcommand, each a thin layer over the library.

pub mod accuracy;
pub mod analyze;
pub mod bench;
pub mod book;
pub mod common;
pub mod frontend;
pub mod ggs;
pub mod gtp;
pub mod matchcmd;
pub mod merge;
pub mod nboard;
pub mod perft;
pub mod play;
pub mod serve;
pub mod shards;
pub mod show;
pub mod solve;
pub mod train;
pub mod ugi;

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
    /// Show a position: the board, the side to move, disc counts and legal moves.
    Show(show::Args),
    /// Solve every position of an OBF file exactly (or win/loss/draw) and check the scores.
    Solve(solve::Args),
    /// Score the best moves of a position (or of positions read from stdin).
    Analyze(analyze::Args),
    /// Judge fixed-depth searches against the exact move scores of an OBF file (Edax's hard
    /// sets): best move, top 2/3, score errors.
    Accuracy(accuracy::Args),
    /// Run the fixed benchmark workload (FFO #20-#39 and midgame searches).
    Bench(bench::Args),
    /// Referee engine-vs-engine matches and round robins over GTP, NBoard or UGI.
    Match(matchcmd::Args),
    /// Play over GTP on stdin/stdout (Quarry, GoGui, match scripts).
    Gtp(gtp::Args),
    /// Speak the NBoard protocol (version 2) on stdin/stdout, for the NBoard GUI.
    Nboard(nboard::Args),
    /// Speak UGI (the Universal Game Interface) on stdin/stdout, for tournament managers
    /// such as cutegames.
    Ugi(ugi::Args),
    /// Play on GGS, the Generic Game Server (its Othello service /os), as a bot.
    Ggs(ggs::Args),
    /// Play a game in the terminal: you against the engine (or two people, or the engine
    /// against itself).
    Play(play::Args),
    /// Serve the browser board: play the engine, a friend on this device or online, analyse
    /// and review games, in a web page (HTTP and WebSocket; 127.0.0.1 unless --bind).
    Serve(serve::Args),
    /// Train the evaluation: label games, self-play, fit weights, measure errors.
    Train(train::Args),
    /// Build an opening book, learn games into one, or show a position's book moves.
    Book(book::Args),
    /// Put the shards of a long step (`--shard K/N`) together into one process's output.
    Merge(merge::Args),
}

/// Runs a parsed command line and returns the exit status; an error is reported by `main`
/// (exit status 2).
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Perft(a) => perft::run(a),
        Command::Show(a) => show::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Accuracy(a) => accuracy::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Match(a) => matchcmd::run(a),
        Command::Gtp(a) => gtp::run(a),
        Command::Nboard(a) => nboard::run(a),
        Command::Ugi(a) => ugi::run(a),
        Command::Play(a) => play::run(a),
        Command::Ggs(a) => ggs::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Train(a) => train::run(a),
        Command::Book(a) => book::run(a),
        Command::Merge(a) => merge::run(a),
    }
}
