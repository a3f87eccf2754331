//! `outflank nboard`: the NBoard protocol (version 2) on stdin/stdout, for the NBoard GUI.

use super::frontend::FrontendArgs;
use crate::protocol::nboard::NBoard;
use clap::Args as ClapArgs;

/// Arguments of `outflank nboard`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Engine options (NBoard's `set depth` later sets the level).
    #[command(flatten)]
    pub engine: FrontendArgs,
}

/// Runs `outflank nboard` until `quit` or the end of stdin.
pub fn run(a: Args) -> anyhow::Result<i32> {
    a.engine.serve(NBoard::new)
}
