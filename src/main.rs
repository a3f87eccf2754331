//! The `outflank` binary: parses the command line and runs one subcommand of the library.

use clap::Parser;
use outflank::cli::{Cli, Command, run};

/// Makes a write to a pipe whose reader has gone (`outflank solve FILE | head`) end the
/// process quietly, as it does other Unix tools, instead of a panic in `println!`. Not for
/// `match`: its engines are child processes, and a write to one that died must stay an error
/// that the referee handles.
#[cfg(unix)]
fn quiet_broken_pipe() {
    // SAFETY: sets the signal's disposition back to the system default before any thread
    // is started; no handler is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn quiet_broken_pipe() {}

fn main() {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Match(_)) {
        quiet_broken_pipe();
    }
    let level = match cli.verbose {
        0 => "off",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .target(env_logger::Target::Stderr)
        .init();
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("outflank: {e:#}");
            std::process::exit(2);
        }
    }
}
