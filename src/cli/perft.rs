//! `outflank perft`: leaf counts, time and speed.

use super::common::{read_position_arg, threads_range};
use crate::board::Board;
use crate::perft::{PassRule, perft, perft_parallel};
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
    if a.depth > QUICK_DEPTH {
        let (leaves, secs) = estimate(board, a.depth, rule, a.threads.max(1));
        anyhow::ensure!(
            secs <= LONGEST,
            "perft {} from here is about {leaves:.1e} leaves, {} at this machine's speed: refused (at most a day)",
            a.depth,
            duration_text(secs)
        );
        if secs > 60.0 {
            eprintln!(
                "perft {}: about {leaves:.1e} leaves, about {} here",
                a.depth,
                duration_text(secs)
            );
        }
    }
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

/// Depths up to this one run without an estimate (a second at most from any position).
const QUICK_DEPTH: u32 = 9;

/// The longest run accepted, in seconds: a day.
const LONGEST: f64 = 86_400.0;

/// The leaves and seconds that perft to `depth` from `board` should take on `threads`:
/// the shallow depths are counted (about a tenth of a second) and the last growth factor
/// carried on to `depth`. Near the end of a game the growth falls to 1, so an endgame
/// position is never refused.
fn estimate(board: Board, depth: u32, rule: PassRule, threads: usize) -> (f64, f64) {
    let start = Instant::now();
    let (mut prev, mut last, mut k) = (1u64, 1u64, 0u32);
    while k < depth && start.elapsed().as_secs_f64() < 0.1 {
        k += 1;
        prev = last;
        last = perft(board, k, rule);
    }
    let elapsed = start.elapsed().as_secs_f64().max(1e-6);
    // Leaves per second of the counts so far (the shallow ones are the slowest).
    let rate = last as f64 / elapsed;
    let growth = (last as f64 / prev.max(1) as f64).max(1.0);
    // Past the last empty square only passes (and the game's end) remain: no growth.
    let growing = depth.min(board.empty_count().max(k)) - k;
    let leaves = last as f64 * growth.powi(growing as i32);
    (leaves, leaves / rate.max(1.0) / threads as f64)
}

/// A duration for people: `40 s`, `3.2 h`, `2.1e9 years`.
fn duration_text(secs: f64) -> String {
    match secs {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7_200.0 => format!("{:.0} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3_600.0),
        s if s < 3.0e7 => format!("{:.0} days", s / 86_400.0),
        s if s < 3.15e9 => format!("{:.0} years", s / 3.15e7),
        s => format!("{:.1e} years", s / 3.15e7),
    }
}
