//! `outflank ugi`: UGI on stdin/stdout, for tournament managers (cutegames).

use super::frontend::FrontendArgs;
use crate::protocol::ugi::Ugi;
use clap::Args as ClapArgs;

/// Arguments of `outflank ugi`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Engine options (the manager's `setoption` changes threads, hash, book, level, depth).
    #[command(flatten)]
    pub engine: FrontendArgs,
}

/// Runs `outflank ugi` until `quit` or the end of stdin.
pub fn run(a: Args) -> anyhow::Result<i32> {
    // Bad input is reported on stderr, never in the answers.
    a.engine.serve(|o| Ugi::new(o, Box::new(std::io::stderr())))
}
