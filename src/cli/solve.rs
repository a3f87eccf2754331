//! `outflank solve`: exact (or win/loss/draw) solves of every position of an OBF file, with
//! a comparison against the file's scores.

use super::common::{EngineArgs, progress_bar};
use crate::notation::{ObfEntry, board_string, move_list, parse_obf};
use crate::search::{Info, Limits, Solve};
use anyhow::Context;
use clap::Args as ClapArgs;
use serde_json::json;

/// Arguments of `outflank solve`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// An OBF file (`-` for stdin): `BOARD SIDE; MOVE:SCORE; ...` per line.
    pub file: String,
    /// Solve for win/loss/draw only.
    #[arg(long)]
    pub wld: bool,
    /// Print one JSON object per position instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// How a solve compares with the file.
struct Verdict {
    /// The best score the file gives, if it gives any.
    expected: Option<i32>,
    /// True when the score and the move agree with the file.
    ok: bool,
}

fn judge(entry: &ObfEntry, info: &Info, wld: bool) -> Verdict {
    let Some(expected) = entry.scores.iter().map(|s| s.1).max() else {
        return Verdict {
            expected: None,
            ok: true,
        };
    };
    let Some(best) = info.best() else {
        return Verdict {
            expected: Some(expected),
            ok: false,
        };
    };
    let norm = |s: i32| if wld { s.signum() } else { s };
    let score_ok = norm(best.score) == norm(expected);
    // The chosen move must be one the file scores as best (for WLD: as good as best).
    let move_ok = entry
        .scores
        .iter()
        .any(|&(m, s)| m == best.mv && norm(s) == norm(expected));
    Verdict {
        expected: Some(expected),
        ok: score_ok && move_ok,
    }
}

/// Runs `outflank solve`; exit status 1 when any score is wrong.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let text = if a.file == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading stdin")?
    } else {
        std::fs::read_to_string(&a.file).with_context(|| format!("reading {}", a.file))?
    };
    let entries = parse_obf(&text).with_context(|| format!("in {}", a.file))?;
    if entries.is_empty() {
        anyhow::bail!("no position in {}", a.file);
    }
    let engine = a.engine.engine()?;
    let kind = if a.wld { Solve::Wld } else { Solve::Exact };
    let pb = progress_bar(entries.len() as u64);
    if !a.json {
        println!(
            "{:>3} {:>3} {:>4} {:>5} {:>5} {:>9} {:>14} {:>11}  pv",
            "#", "emp", "move", "score", "file", "time(s)", "nodes", "nodes/s"
        );
    }
    let (mut wrong, mut nodes, mut secs) = (0, 0u64, 0.0);
    for (i, entry) in entries.iter().enumerate() {
        let limits = Limits {
            solve: Some(kind),
            ..Limits::default()
        };
        engine.clear_hash();
        let info = engine.search(entry.position.board, &limits, &mut |_| {});
        let v = judge(entry, &info, a.wld);
        if !v.ok {
            wrong += 1;
        }
        nodes += info.nodes;
        secs += info.elapsed.as_secs_f64();
        // A finished game has no move: its score is the final one.
        let (mv, score, pv) = match info.best() {
            Some(l) => (Some(l.mv), l.score, move_list(&l.pv)),
            None => {
                let s = entry.position.board.final_score();
                (None, if a.wld { s.signum() } else { s }, String::new())
            }
        };
        let file = v.expected.map_or("-".to_string(), |e| format!("{e:+}"));
        pb.suspend(|| {
            if a.json {
                println!(
                    "{}",
                    json!({
                        "index": i + 1,
                        "board": board_string(&entry.position),
                        "empties": entry.position.board.empty_count(),
                        "solve": if a.wld { "wld" } else { "exact" },
                        "move": mv.map(|m| m.to_string()),
                        "score": score,
                        "expected": v.expected,
                        "ok": v.ok,
                        "time": info.elapsed.as_secs_f64(),
                        "nodes": info.nodes,
                        "nps": info.nps(),
                        "pv": info.best().map(|l| l.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>()),
                    })
                );
            } else {
                println!(
                    "{:>3} {:>3} {:>4} {:>+5} {:>5} {:>9.3} {:>14} {:>11.0}  {}{}",
                    i + 1,
                    entry.position.board.empty_count(),
                    mv.map_or("-".to_string(), |m| m.to_string()),
                    score,
                    file,
                    info.elapsed.as_secs_f64(),
                    info.nodes,
                    info.nps(),
                    pv,
                    if v.ok { "" } else { "  WRONG" }
                );
            }
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    let summary = format!(
        "{} positions, {} right, {} wrong; {:.3} s, {} nodes, {:.0} nodes/s",
        entries.len(),
        entries.len() - wrong,
        wrong,
        secs,
        nodes,
        nodes as f64 / secs.max(1e-9)
    );
    if a.json {
        eprintln!("{summary}");
    } else {
        println!("{summary}");
    }
    Ok(if wrong > 0 { 1 } else { 0 })
}
