//! The `outflank` binary: parses the command line and runs one subcommand of the library.

use clap::Parser;
use outflank::cli::{Cli, run};

fn main() {
    let cli = Cli::parse();
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
