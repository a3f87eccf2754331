//! `outflank solve`: exact (or win/loss/draw) solves of every position of an OBF file, with
//! a comparison against the file's scores.

use super::common::{EngineArgs, PositionRange, progress_bar, read_obf, select_positions};
use super::shards::{MergeOutput, ShardArgs};
use crate::notation::{ObfEntry, board_string, move_list};
use crate::search::{Engine, Info, Limits, Solve};
use crate::shard::{self, Shard, Step};
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
    /// Solve only these positions: `N` or `A-B`, counted from 1 in the order of the file.
    #[arg(long, value_name = "A-B")]
    pub positions: Option<PositionRange>,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Solve only some of the positions (position i, from 0, belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
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

/// The table's header line (without `--json`).
fn header() -> String {
    format!(
        "{:>3} {:>3} {:>4} {:>5} {:>5} {:>9} {:>14} {:>11}  pv\n",
        "#", "emp", "move", "score", "file", "time(s)", "nodes", "nodes/s"
    )
}

/// One position's result: its line of output, right or wrong, nodes and seconds.
struct Solved {
    line: String,
    ok: bool,
    nodes: u64,
    secs: f64,
}

/// Solves entry `i` (from 0) with a cleared hash table.
fn solve_entry(engine: &Engine, entry: &ObfEntry, i: usize, a: &Args) -> Solved {
    let kind = if a.wld { Solve::Wld } else { Solve::Exact };
    let limits = Limits {
        solve: Some(kind),
        ..Limits::default()
    };
    engine.clear_hash();
    let info = engine.search(entry.position.board, &limits, &mut |_| {});
    let v = judge(entry, &info, a.wld);
    // A finished game has no move: its score is the final one.
    let (mv, score, pv) = match info.best() {
        Some(l) => (Some(l.mv), l.score, move_list(&l.pv)),
        None => {
            let s = entry.position.board.final_score();
            (None, if a.wld { s.signum() } else { s }, String::new())
        }
    };
    let file = v.expected.map_or("-".to_string(), |e| format!("{e:+}"));
    let line = if a.json {
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
        .to_string()
    } else {
        format!(
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
        )
    };
    Solved {
        line: line + "\n",
        ok: v.ok,
        nodes: info.nodes,
        secs: info.elapsed.as_secs_f64(),
    }
}

/// The last line: positions, right and wrong, time and nodes in all.
fn summary(positions: usize, wrong: usize, secs: f64, nodes: u64) -> String {
    format!(
        "{} positions, {} right, {} wrong; {:.3} s, {} nodes, {:.0} nodes/s",
        positions,
        positions - wrong,
        wrong,
        secs,
        nodes,
        nodes as f64 / secs.max(1e-9)
    )
}

/// Runs `outflank solve`; exit status 1 when any score is wrong.
pub fn run(a: Args) -> anyhow::Result<i32> {
    a.shard.check()?;
    let (text, numbered) = read_obf(&a.file)?;
    let range = select_positions(a.positions, numbered.len())?;
    // The positions to solve, each with its number in the file (from 0).
    let entries: Vec<(usize, ObfEntry)> = numbered
        .into_iter()
        .map(|(_, e)| e)
        .enumerate()
        .skip(range.start)
        .take(range.len())
        .collect();
    let engine = a.engine.engine()?;
    if let Some(shard) = a.shard.shard {
        return run_shard(&a, &engine, &text, &entries, shard);
    }
    let pb = progress_bar(entries.len() as u64);
    if !a.json {
        print!("{}", header());
    }
    let (mut wrong, mut nodes, mut secs) = (0, 0u64, 0.0);
    for (i, entry) in &entries {
        let s = solve_entry(&engine, entry, *i, &a);
        if !s.ok {
            wrong += 1;
        }
        nodes += s.nodes;
        secs += s.secs;
        pb.suspend(|| print!("{}", s.line));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let summary = summary(entries.len(), wrong, secs, nodes);
    if a.json {
        eprintln!("{summary}");
    } else {
        println!("{summary}");
    }
    Ok(if wrong > 0 { 1 } else { 0 })
}

/// The settings of a shard that change its output.
fn run_params(a: &Args) -> anyhow::Result<String> {
    let mut params = format!(
        "wld={} json={} threads={} hash_mb={} weights={}",
        u8::from(a.wld),
        u8::from(a.json),
        a.engine.threads,
        a.engine.hash_mb(),
        super::shards::engine_weights_id(&a.engine)?
    );
    if let Some(r) = a.positions {
        params.push_str(&format!(" positions={r}"));
    }
    Ok(params)
}

/// Solves the shard's part of the positions (each with its number in the file) and writes
/// its file: each item is a position's line of output, with whether it was right, its nodes
/// and seconds (for the summary).
fn run_shard(
    a: &Args,
    engine: &Engine,
    text: &str,
    entries: &[(usize, ObfEntry)],
    shard: Shard,
) -> anyhow::Result<i32> {
    let total = entries.len() as u64;
    a.shard
        .run_over_input(Step::Solve, text, total, run_params(a)?, shard, |k| {
            let (i, entry) = &entries[k];
            let s = solve_entry(engine, entry, *i, a);
            let mut bytes = vec![u8::from(s.ok)];
            bytes.extend_from_slice(&s.nodes.to_le_bytes());
            bytes.extend_from_slice(&s.secs.to_le_bytes());
            bytes.extend_from_slice(s.line.as_bytes());
            bytes
        })?;
    Ok(0)
}

/// The output of `solve` from its shards' items, in order: the same bytes as one process,
/// but for the measured times, which are each shard's.
pub fn merge(m: &shard::Merged) -> anyhow::Result<MergeOutput> {
    let json = shard::param(&m.run.params, "json") == Some("1");
    let mut out = if json { String::new() } else { header() };
    let (mut wrong, mut nodes, mut secs) = (0, 0u64, 0.0);
    for (i, item) in m.items.iter().enumerate() {
        let bad = || anyhow::anyhow!("solve shards: position {} is damaged", i + 1);
        if item.len() < 17 {
            return Err(bad());
        }
        let (head, line) = item.split_at(17);
        if head[0] == 0 {
            wrong += 1;
        }
        nodes += u64::from_le_bytes(head[1..9].try_into().expect("8 bytes"));
        secs += f64::from_le_bytes(head[9..17].try_into().expect("8 bytes"));
        out.push_str(std::str::from_utf8(line).map_err(|_| bad())?);
    }
    let summary = summary(m.items.len(), wrong, secs, nodes);
    let mut stderr = String::new();
    if json {
        stderr = summary;
    } else {
        out.push_str(&summary);
        out.push('\n');
    }
    Ok(MergeOutput {
        stdout: out.into_bytes(),
        stderr,
        status: if wrong > 0 { 1 } else { 0 },
    })
}
