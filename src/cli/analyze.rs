//! `outflank analyze`: the best moves of one or more positions, with scores and PVs.

use super::common::{EngineArgs, progress_bar, read_position};
use crate::notation::{board_string, move_list};
use crate::search::{Info, Limits, Solve};
use anyhow::Context;
use clap::Args as ClapArgs;
use serde_json::json;
use std::io::BufRead;
use std::time::Duration;

/// Arguments of `outflank analyze`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The position (board string, transcript or GGF game), or `-` to read one per line
    /// from stdin.
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    /// Search to this depth (plies); the default when no other limit is given is 12.
    #[arg(long, conflicts_with_all = ["time", "exact", "wld"],
          value_parser = clap::value_parser!(u32).range(1..=60))]
    pub depth: Option<u32>,
    /// Search for this many seconds per position.
    #[arg(long, conflicts_with_all = ["exact", "wld"])]
    pub time: Option<f64>,
    /// Solve the endgame exactly.
    #[arg(long, conflicts_with = "wld")]
    pub exact: bool,
    /// Solve the endgame for win/loss/draw.
    #[arg(long)]
    pub wld: bool,
    /// Stop after about this many nodes per position (with one thread the result is
    /// reproducible); alone, the search deepens until the budget is spent.
    #[arg(long)]
    pub nodes: Option<std::num::NonZeroU64>,
    /// Score the best N moves (multi-PV).
    #[arg(long, default_value_t = 1)]
    pub multipv: usize,
    /// Print one JSON object per position.
    #[arg(long)]
    pub json: bool,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
}

fn limits(a: &Args) -> anyhow::Result<Limits> {
    let mut l = Limits {
        multipv: a.multipv.max(1),
        nodes: a.nodes.map(u64::from),
        ..Limits::default()
    };
    if a.exact {
        l.solve = Some(Solve::Exact);
    } else if a.wld {
        l.solve = Some(Solve::Wld);
    } else if let Some(t) = a.time {
        if !(t.is_finite() && t > 0.0) {
            anyhow::bail!("--time must be a positive number of seconds, got {t}");
        }
        l.time = Some(Duration::from_secs_f64(t));
    } else if a.depth.is_some() || a.nodes.is_none() {
        l.depth = Some(a.depth.unwrap_or(12).clamp(1, 60));
    }
    Ok(l)
}

fn print(info: &Info, board: &str, json_out: bool) {
    if json_out {
        let solve = info.solve.map(|s| match s {
            Solve::Exact => "exact",
            Solve::Wld => "wld",
        });
        let moves: Vec<_> = info
            .lines
            .iter()
            .map(|l| {
                json!({
                    "move": l.mv.to_string(),
                    "score": l.score,
                    "pv": l.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "board": board,
                "depth": info.depth,
                "selectivity": info.selectivity,
                "solve": solve,
                "nodes": info.nodes,
                "time": info.elapsed.as_secs_f64(),
                "nps": info.nps(),
                "moves": moves,
            })
        );
        return;
    }
    let depth = match info.solve {
        Some(Solve::Exact) => format!("exact ({} empties)", info.depth),
        Some(Solve::Wld) => format!("win/loss/draw ({} empties)", info.depth),
        None => format!("depth {} @{}%", info.depth, info.selectivity),
    };
    println!(
        "{board}  {depth}  {} nodes  {:.3} s",
        info.nodes,
        info.elapsed.as_secs_f64()
    );
    if info.lines.is_empty() {
        println!("  game over");
    }
    for (i, l) in info.lines.iter().enumerate() {
        println!("  {}. {} {:+}  {}", i + 1, l.mv, l.score, move_list(&l.pv));
    }
}

/// Runs `outflank analyze`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let limits = limits(&a)?;
    let inputs: Vec<String> = if a.position == "-" {
        let mut v = Vec::new();
        for line in std::io::stdin().lock().lines() {
            let line = line.context("reading stdin")?;
            if !line.trim().is_empty() {
                v.push(line);
            }
        }
        if v.is_empty() {
            anyhow::bail!("no position on stdin");
        }
        v
    } else {
        vec![a.position.clone()]
    };
    // Read every position first, so that a bad line is reported before any work.
    let games = inputs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            read_position(s).with_context(|| format!("position {} of {}", i + 1, inputs.len()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let engine = a.engine.engine()?;
    let pb = progress_bar(games.len() as u64);
    for g in &games {
        let pos = g.position();
        let info = engine.search(pos.board, &limits, &mut |_| {});
        pb.suspend(|| print(&info, &board_string(&pos), a.json));
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(0)
}
