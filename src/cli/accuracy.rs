//! `outflank accuracy`: fixed-depth searches of the positions of an OBF file whose lines
//! score the moves exactly (Edax's hard sets), each move and score judged against them
//! ([`crate::accuracy`]), with a table and a summary.

use super::common::{
    EngineArgs, PositionRange, parse_selectivity, plural, progress_bar, read_obf, select_positions,
};
use crate::accuracy::{Judgement, TOP, Tally, WITHIN, check_scores, measure};
use crate::notation::{ObfEntry, board_string};
use crate::protocol::format::{alternatives_text, percent_text, score_text};
use crate::search::{Limits, Selectivity};
use anyhow::Context;
use clap::Args as ClapArgs;
use serde_json::{Value, json};

/// Arguments of `outflank accuracy`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// An OBF file (`-` for stdin) whose lines score the moves exactly: `BOARD SIDE;
    /// MOVE:SCORE; ...` (Edax's `problems/hard-20.obf` scores every legal move).
    pub file: String,
    /// Search every position to this depth (plies); as deep as the empties, it solves.
    #[arg(long, value_parser = super::common::depth_range())]
    pub depth: u32,
    /// Probcut confidence in percent: 73, 87, 95, 98, 99 or 100 (no probcut) [default: the
    /// engine's, 95].
    #[arg(long, value_name = "PERCENT", value_parser = parse_selectivity)]
    pub selectivity: Option<Selectivity>,
    /// Only these positions: `N` or `A-B`, counted from 1 in the order of the file.
    #[arg(long, value_name = "A-B")]
    pub positions: Option<PositionRange>,
    /// Print one JSON document (every position and the summary) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// A position to judge: its number in the file (from 1), its line and its entry.
struct Item {
    number: usize,
    line: usize,
    entry: ObfEntry,
}

/// The table's header line.
fn header() -> String {
    format!(
        "{:>3} {:>3} {:>4} {:>5} {:>11} {:>5} {:>4} {:>5} {:>14} {:>9}\n",
        "#", "emp", "move", "score", "best", "exact", "loss", "error", "nodes", "time(s)"
    )
}

/// A position's row of the table.
fn row(item: &Item, j: &Judgement) -> String {
    format!(
        "{:>3} {:>3} {:>4} {:>5} {:>11} {:>5} {:>4} {:>5} {:>14} {:>9.3}\n",
        item.number,
        item.entry.position.board.empty_count(),
        j.chosen.to_string(),
        score_text(j.score, None),
        alternatives_text(&j.best_moves),
        score_text(j.best, None),
        j.loss().map_or("?".to_string(), |l| l.to_string()),
        score_text(j.error(), None),
        j.nodes,
        j.time.as_secs_f64(),
    )
}

/// A position's result in the JSON document.
fn position_json(item: &Item, j: &Judgement) -> Value {
    json!({
        "index": item.number,
        "line": item.line,
        "board": board_string(&item.entry.position),
        "empties": item.entry.position.board.empty_count(),
        "move": j.chosen.to_string(),
        "score": j.score,
        "exact": j.chosen_exact,
        "best_moves": j.best_moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "best": j.best,
        "rank": j.rank,
        "loss": j.loss(),
        "error": j.error(),
        "depth": j.depth,
        "solved": j.solved,
        "nodes": j.nodes,
        "time": j.time.as_secs_f64(),
    })
}

/// The summary in the JSON document: counts, their percentages, the means and the cost.
fn summary_json(t: &Tally) -> Value {
    let mut v = json!({
        "positions": t.positions,
        "best": t.best,
        "best_percent": t.percent(t.best),
        "mae": t.mae(),
        "mean_error": t.mean_error(),
        "mean_loss": t.mean_loss(),
        "unscored": t.unscored,
        "nodes": t.nodes,
        "time": t.time.as_secs_f64(),
        "nps": t.nps(),
    });
    for (k, &n) in TOP.iter().zip(&t.top) {
        v[format!("top{k}")] = json!(n);
        v[format!("top{k}_percent")] = json!(t.percent(n));
    }
    for (k, &n) in WITHIN.iter().zip(&t.within) {
        v[format!("within{k}")] = json!(n);
        v[format!("within{k}_percent")] = json!(t.percent(n));
    }
    v
}

/// The summary after the table, a figure a line.
fn summary_text(t: &Tally, search: &str) -> String {
    let rate =
        |name: String, n: usize| format!("{name:<18}{:>7}  ({n})\n", percent_text(t.percent(n)));
    let mut s = format!("{:<18}{:>7}  ({search})\n", "positions", t.positions);
    s.push_str(&rate("best move".to_string(), t.best));
    for (k, &n) in TOP.iter().zip(&t.top) {
        s.push_str(&rate(format!("top {k}"), n));
    }
    for (k, &n) in WITHIN.iter().zip(&t.within) {
        s.push_str(&rate(format!("within {k}"), n));
    }
    s.push_str(&format!("{:<18}{:>7.2}\n", "MAE", t.mae()));
    s.push_str(&format!(
        "{:<18}{:>+7.2}\n",
        "mean signed error",
        t.mean_error()
    ));
    s.push_str(&format!("{:<18}{:>7.2}\n", "mean loss", t.mean_loss()));
    if t.unscored > 0 {
        s.push_str(&format!(
            "{:<18}{:>7}  (moves the file does not score: not best, no loss)\n",
            "unscored moves", t.unscored
        ));
    }
    s.push_str(&format!("{:<18}{}\n", "nodes", t.nodes));
    s.push_str(&format!("{:<18}{:.3}\n", "time(s)", t.time.as_secs_f64()));
    s.push_str(&format!("{:<18}{:.0}\n", "nodes/s", t.nps()));
    s
}

/// Runs `outflank accuracy`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let (_, numbered) = read_obf(&a.file)?;
    let range = select_positions(a.positions, numbered.len())?;
    let items: Vec<Item> = numbered
        .into_iter()
        .enumerate()
        .skip(range.start)
        .take(range.len())
        .map(|(i, (line, entry))| Item {
            number: i + 1,
            line,
            entry,
        })
        .collect();
    // Every line is checked before any search.
    for item in &items {
        check_scores(&item.entry.scores).with_context(|| {
            format!(
                "in {} line {} (position {})",
                a.file, item.line, item.number
            )
        })?;
    }
    let selectivity = a.selectivity.unwrap_or(Limits::default().selectivity);
    let search = format!(
        "depth {} at {}, {}",
        a.depth,
        selectivity,
        plural(a.engine.threads, "thread")
    );
    let engine = a.engine.engine()?;
    let pb = progress_bar(items.len() as u64);
    if !a.json {
        print!("{}", header());
    }
    let mut tally = Tally::default();
    let mut positions = Vec::new();
    for item in &items {
        let j = measure(&engine, &item.entry, a.depth, selectivity).with_context(|| {
            format!(
                "in {} line {} (position {})",
                a.file, item.line, item.number
            )
        })?;
        tally.add(&j);
        if a.json {
            positions.push(position_json(item, &j));
        } else {
            pb.suspend(|| print!("{}", row(item, &j)));
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    if a.json {
        let doc = json!({
            "file": a.file,
            "depth": a.depth,
            "selectivity": selectivity.percent(),
            "threads": a.engine.threads,
            "hash_mb": a.engine.hash_mb(),
            "positions": positions,
            "summary": summary_json(&tally),
        });
        println!("{doc}");
    } else {
        print!("{}", summary_text(&tally, &search));
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accuracy::Judgement;

    #[test]
    fn summary_lines() {
        let m = |s: &str| s.parse().unwrap();
        let scores = [(m("e1"), 0), (m("f8"), -2), (m("h6"), -6)];
        let mut t = Tally::default();
        t.add(&Judgement::new(&scores, m("e1"), 1).unwrap());
        t.add(&Judgement::new(&scores, m("h6"), -10).unwrap());
        let s = summary_text(&t, "depth 4 at 95%, 1 thread");
        assert!(s.starts_with("positions               2  (depth 4 at 95%, 1 thread)\n"));
        assert!(s.contains("best move           50.0%  (1)\n"), "{s}");
        assert!(s.contains("top 2               50.0%  (1)\n"), "{s}");
        assert!(s.contains("top 3              100.0%  (2)\n"), "{s}");
        assert!(s.contains("within 9            50.0%  (1)\n"), "{s}");
        assert!(s.contains("MAE                  5.50\n"), "{s}");
        assert!(s.contains("mean signed error   -4.50\n"), "{s}");
        assert!(s.contains("mean loss            3.00\n"), "{s}");
        assert!(!s.contains("unscored"));
        let v = summary_json(&t);
        assert_eq!((v["best"].clone(), v["top3"].clone()), (json!(1), json!(2)));
        assert_eq!(v["within3"], json!(1));
        assert_eq!(v["mae"], json!(5.5));
    }
}
