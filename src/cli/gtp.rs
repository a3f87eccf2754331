//! `outflank gtp`: play over GTP on stdin/stdout (Quarry, GoGui, match scripts).

use super::frontend::FrontendArgs;
use crate::protocol::gtp::Gtp;
use clap::Args as ClapArgs;

/// Arguments of `outflank gtp`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Engine options.
    #[command(flatten)]
    pub engine: FrontendArgs,
}

/// Runs `outflank gtp` until `quit` or the end of stdin.
pub fn run(a: Args) -> anyhow::Result<i32> {
    a.engine.serve(Gtp::new)
}
