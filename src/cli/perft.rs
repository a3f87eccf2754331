//! `outflank perft`: leaf counts, time and speed.

use super::common::{read_position_arg, threads_range};
use crate::perft::{PassRule, perft_parallel};
use clap::Args as ClapArgs;
use std::time::Instant;

/// Arguments of `outflank perft`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Depth in plies.
    pub depth: u32,
    /// The position to count from (board string, transcript or GGF game); the start by
    /// default.
    #[arg(long, allow_hyphen_values = true)]
    pub position: Option<String>,
    /// Count a forced pass as a ply (true, the usual convention) or not (false).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub pass_is_ply: bool,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = threads_range())]
    pub threads: usize,
}

/// Runs `outflank perft`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let board = match &a.position {
        Some(p) => read_position_arg(p)?.position().board,
        None => crate::board::Board::start(),
    };
    let rule = if a.pass_is_ply {
        PassRule::Ply
    } else {
        PassRule::Free
    };
    let t = Instant::now();
    let n = perft_parallel(board, a.depth, rule, a.threads.max(1));
    let s = t.elapsed().as_secs_f64();
    println!(
        "perft {} = {}  time {:.3} s  {:.1} M leaves/s",
        a.depth,
        n,
        s,
        n as f64 / s.max(1e-9) / 1e6
    );
    Ok(0)
}
