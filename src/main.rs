//! The `outflank` binary: parses the command line and runs one subcommand of the library.

use clap::Parser;
use clap::error::ErrorKind;
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

/// `println!` panics when stdout cannot be written (a full disk, a closed descriptor): the
/// subcommands that print with it end with one line on stderr and exit status 2 instead of a
/// panic report. Other panics keep the default report.
fn quiet_output_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            // A reader that has gone (`outflank match ... | head`, where the signal stays
            // ignored) ends the process as quietly as the signal does elsewhere.
            if why.starts_with("Broken pipe") {
                std::process::exit(141);
            }
            eprintln!("outflank: cannot write to stdout: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

/// The command line, or exit: help and version as clap prints them, an error in one line on
/// stderr with exit status 2.
fn parse_command_line() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
            _ => {
                // The message up to the usage, in one line: clap lists missing arguments on
                // the lines after its first.
                let text = e.render().to_string();
                let message: Vec<&str> = text
                    .lines()
                    .map(str::trim)
                    .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
                    .collect();
                let message = message.join(" ");
                let message = message.strip_prefix("error: ").unwrap_or(&message);
                let message = if message.is_empty() {
                    "bad arguments"
                } else {
                    message
                };
                eprintln!("outflank: {message} (--help lists the options)");
                std::process::exit(2);
            }
        },
    }
}

fn main() {
    let cli = parse_command_line();
    quiet_output_errors();
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
