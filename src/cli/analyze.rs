//! `outflank analyze`: the best moves of one or more positions, with scores and PVs; with
//! `--game`, every move of a game scored against the best one (a game review).

use super::common::{
    EngineArgs, count_range, plural, position_lines, progress_bar, read_file, read_position,
};
use super::shards::{MergeOutput, ShardArgs};
use crate::board::{Color, Move};
use crate::game::Game;
use crate::notation::{board_string, move_list, transcript};
use crate::review::{Review, Reviewed};
use crate::search::{Engine, Info, Limits, Solve};
use crate::shard::{self, Shard, Step};
use anyhow::Context;
use clap::Args as ClapArgs;
use serde_json::json;
use std::time::Duration;

/// Arguments of `outflank analyze`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The position (board string, transcript or GGF game), or `-` to read one per line
    /// from stdin, or a file of them, one per line.
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    /// Search to this depth (plies); the default when no other limit is given is 12.
    #[arg(long, conflicts_with_all = ["exact", "wld"],
          value_parser = super::common::depth_range())]
    pub depth: Option<u32>,
    /// Search for at most this many seconds per position: alone, deeper and deeper until
    /// then; with a depth, a solve or a node budget, a cap on it. (The first shallow
    /// iterations always finish, so that there is a move.)
    #[arg(long)]
    pub time: Option<f64>,
    /// Solve the endgame exactly.
    #[arg(long, conflicts_with = "wld")]
    pub exact: bool,
    /// Solve the endgame for win/loss/draw.
    #[arg(long)]
    pub wld: bool,
    /// Stop after about this many nodes per position (with one thread the result is
    /// reproducible); alone, the search deepens until the budget is spent. (The first
    /// shallow iterations always finish, so that there is a move.)
    #[arg(long)]
    pub nodes: Option<std::num::NonZeroU64>,
    /// Score the best N moves (multi-PV).
    #[arg(long, default_value_t = 1, value_parser = count_range(64))]
    pub multipv: usize,
    /// Review the game: score every move played against the best move of its position
    /// (all moves searched alike, each position from a cleared hash table), with each
    /// player's losses.
    #[arg(long, conflicts_with = "multipv")]
    pub game: bool,
    /// Print one JSON object per position.
    #[arg(long)]
    pub json: bool,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Analyze only some of the lines read (line i, from 0, belongs to shard i mod N), each
    /// with a cleared hash table.
    #[command(flatten)]
    pub shard: ShardArgs,
}

fn limits(a: &Args) -> anyhow::Result<Limits> {
    let mut l = Limits {
        multipv: a.multipv.max(1),
        nodes: a.nodes.map(u64::from),
        ..Limits::default()
    };
    if let Some(t) = a.time {
        if !(t.is_finite() && t > 0.0 && t <= 1e7) {
            anyhow::bail!("--time must be a positive number of seconds, got {t}");
        }
        l.time = Some(Duration::from_secs_f64(t));
    }
    if a.exact {
        l.solve = Some(Solve::Exact);
    } else if a.wld {
        l.solve = Some(Solve::Wld);
    } else if a.depth.is_some() || (a.nodes.is_none() && a.time.is_none()) {
        l.depth = Some(a.depth.unwrap_or(12).clamp(1, 60));
    }
    Ok(l)
}

/// The kind of search in JSON: `"exact"`, `"wld"`, or null for a depth-limited one.
fn solve_name(info: &Info) -> Option<&'static str> {
    info.solve.map(|s| match s {
        Solve::Exact => "exact",
        Solve::Wld => "wld",
    })
}

/// The kind of search in the text output: `exact (14 empties)`, `depth 12 @95%`, ...
fn search_text(info: &Info) -> String {
    if info.lines.is_empty() {
        return "game over".to_string();
    }
    match info.solve {
        Some(solve) => {
            let kind = if solve == Solve::Exact {
                "exact"
            } else {
                "win/loss/draw"
            };
            let s = if info.depth == 1 { "y" } else { "ies" };
            format!("{kind} ({} empt{s})", info.depth)
        }
        None => format!("depth {} @{}", info.depth, info.selectivity),
    }
}

/// A position's result as printed: a JSON line, or the text lines.
fn render(info: &Info, board: &str, json_out: bool) -> String {
    if json_out {
        let solve = solve_name(info);
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
        return json!({
            "board": board,
            "depth": info.depth,
            "selectivity": info.selectivity.percent(),
            "solve": solve,
            "nodes": info.nodes,
            "time": info.elapsed.as_secs_f64(),
            "nps": info.nps(),
            "moves": moves,
        })
        .to_string()
            + "\n";
    }
    let depth = search_text(info);
    let mut out = format!(
        "{board}  {depth}  {} nodes  {:.3} s\n",
        info.nodes,
        info.elapsed.as_secs_f64()
    );
    if info.lines.is_empty() {
        out.push_str("  game over\n");
    }
    for (i, l) in info.lines.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {} {:+}  {}\n",
            i + 1,
            l.mv,
            l.score,
            move_list(&l.pv)
        ));
    }
    out
}

/// Runs `outflank analyze`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    a.shard.check()?;
    let limits = limits(&a)?;
    let file = std::path::Path::new(&a.position);
    // Positions one per line from stdin or a file, or the argument itself.
    let (text, source) = if a.position == "-" {
        let text = std::io::read_to_string(std::io::stdin()).context("reading stdin")?;
        (text, Some("on stdin".to_string()))
    } else if read_position(&a.position).is_err() && file.is_file() {
        (read_file(file)?, Some(format!("in {}", file.display())))
    } else {
        (a.position.clone(), None)
    };
    let inputs: Vec<&str> = match &source {
        None => vec![text.as_str()],
        Some(source) => {
            let v: Vec<&str> = position_lines(&text).map(|(_, l)| l).collect();
            if v.is_empty() {
                anyhow::bail!("no position {source}");
            }
            v
        }
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
    if let Some(shard) = a.shard.shard {
        return run_shard(&a, &engine, &limits, &text, &games, shard);
    }
    // Each line starts from a cleared hash table, as in a shard: a line's result does not
    // depend on the lines searched before it (a review clears it before each position).
    if a.game {
        for (i, g) in games.iter().enumerate() {
            let summary = review(&engine, g, i + 1, &limits, a.json, &mut |s| print!("{s}"));
            if a.json {
                eprintln!("{summary}");
            } else {
                println!("{summary}");
            }
        }
        return Ok(0);
    }
    let pb = progress_bar(games.len() as u64);
    for g in &games {
        let pos = g.position();
        engine.clear_hash();
        let info = engine.search(pos.board, &limits, &mut |_| {});
        pb.suspend(|| print!("{}", render(&info, &board_string(&pos), a.json)));
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(0)
}

/// The settings of a shard that change its output.
fn run_params(a: &Args, limits: &Limits) -> anyhow::Result<String> {
    Ok(format!(
        "limits={} game={} json={} threads={} hash_mb={} weights={}",
        format!("{limits:?}").replace(' ', ""),
        u8::from(a.game),
        u8::from(a.json),
        a.engine.threads,
        a.engine.hash_mb(),
        super::shards::engine_weights_id(&a.engine)?
    ))
}

/// Analyzes the shard's part of the input lines, each with a cleared hash table (so that a
/// line's result does not depend on the lines searched before it), and writes its file:
/// each item is a line's standard output and stderr text.
fn run_shard(
    a: &Args,
    engine: &Engine,
    limits: &Limits,
    text: &str,
    games: &[Game],
    shard: Shard,
) -> anyhow::Result<i32> {
    let total = games.len() as u64;
    let params = run_params(a, limits)?;
    a.shard
        .run_over_input(Step::Analyze, text, total, params, shard, |i| {
            let g = &games[i];
            engine.clear_hash();
            let (out, err) = if a.game {
                let mut out = String::new();
                let summary = review(engine, g, i + 1, limits, a.json, &mut |s| out.push_str(s));
                if a.json {
                    (out, summary + "\n")
                } else {
                    (out + &summary + "\n", String::new())
                }
            } else {
                let pos = g.position();
                let info = engine.search(pos.board, limits, &mut |_| {});
                (render(&info, &board_string(&pos), a.json), String::new())
            };
            let mut bytes = (out.len() as u32).to_le_bytes().to_vec();
            bytes.extend_from_slice(out.as_bytes());
            bytes.extend_from_slice(err.as_bytes());
            bytes
        })?;
    Ok(0)
}

/// The output of `analyze` from its shards' items, in order: the same bytes as `--shard 0/1`,
/// but for the measured times, which are each shard's.
pub fn merge(m: &shard::Merged) -> anyhow::Result<MergeOutput> {
    let mut out = MergeOutput::default();
    for (i, item) in m.items.iter().enumerate() {
        let bad = || anyhow::anyhow!("analyze shards: line {} is damaged", i + 1);
        let len = item
            .get(..4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or_else(bad)?;
        let text = item.get(4..4 + len).ok_or_else(bad)?;
        out.stdout.extend_from_slice(text);
        out.stderr
            .push_str(std::str::from_utf8(&item[4 + len..]).map_err(|_| bad())?);
    }
    Ok(out)
}

/// A player's losses over a game: moves reviewed, the sum, moves that lost anything, and
/// the worst move.
#[derive(Default)]
struct Tally {
    moves: usize,
    lost: i32,
    errors: usize,
    worst: Option<(i32, usize, Move)>,
}

impl Tally {
    fn add(&mut self, r: &Reviewed) {
        self.moves += 1;
        let Some(loss) = r.loss() else { return };
        self.lost += loss;
        if loss > 0 {
            self.errors += 1;
            if self.worst.is_none_or(|w| loss > w.0) {
                self.worst = Some((loss, r.ply, r.played));
            }
        }
    }

    fn text(&self, player: Color) -> String {
        let worst = match self.worst {
            Some((loss, ply, mv)) => format!(", the worst {ply}. {mv} (lost {loss})"),
            None => String::new(),
        };
        format!(
            "{player}: {}, {} lost in all, {} that lost{worst}",
            plural(self.moves, "move"),
            self.lost,
            plural(self.errors, "move")
        )
    }
}

/// Reviews game number `number` ([`Review`]: the position before each move played, forced
/// passes skipped, searched from a cleared hash table with every legal move scored) and
/// prints the played move against the best one, then each player's tally.
/// The text goes to `emit` as it comes; the tally, the last line, is returned (for stdout, or
/// stderr with JSON).
fn review(
    engine: &Engine,
    game: &Game,
    number: usize,
    limits: &Limits,
    json_out: bool,
    emit: &mut dyn FnMut(&str),
) -> String {
    let mut review = Review::new(game.clone(), limits.clone());
    let pb = progress_bar(review.total() as u64);
    let mut tallies = [Tally::default(), Tally::default()];
    if !json_out {
        let moves = transcript(game);
        let moves = if game.moves().is_empty() {
            format!("{moves} (no moves)").trim_start().to_string()
        } else {
            moves
        };
        let head = format!(
            "game {number}: {moves}\n  ply  player  move  score  best  score  loss  search\n"
        );
        pb.suspend(|| emit(&head));
    }
    review.run(engine, &mut |r| {
        tallies[usize::from(r.player == Color::White)].add(r);
        let board = board_string(&game.positions()[r.ply - 1]);
        let line = render_reviewed(r, number, &board, json_out);
        pb.suspend(|| emit(&line));
        pb.inc(1);
    });
    pb.finish_and_clear();
    format!(
        "game {number}: {}; {}",
        tallies[0].text(Color::Black),
        tallies[1].text(Color::White)
    )
}

/// A reviewed move as printed: a JSON line or a line of the table.
fn render_reviewed(r: &Reviewed, number: usize, board: &str, json_out: bool) -> String {
    let info = &r.info;
    let best = r.best();
    if json_out {
        return json!({
                "game": number,
                "ply": r.ply,
                "player": r.player.name(),
                "board": board,
                "move": r.played.to_string(),
                "score": r.score,
                "best": best.map(|l| l.mv.to_string()),
                "best_score": best.map(|l| l.score),
                "loss": r.loss(),
                "depth": info.depth,
                "selectivity": info.selectivity.percent(),
                "solve": solve_name(info),
                "nodes": info.nodes,
                "time": info.elapsed.as_secs_f64(),
        })
        .to_string()
            + "\n";
    }
    let score = |s: Option<i32>| s.map_or("?".to_string(), |s| format!("{s:+}"));
    let search = search_text(info);
    format!(
        "  {:>3}  {:<6}  {:<4}  {:>5}  {:<4}  {:>5}  {:>4}  {search}\n",
        r.ply,
        r.player.name(),
        r.played.to_string(),
        score(r.score),
        best.map_or("-".to_string(), |l| l.mv.to_string()),
        score(best.map(|l| l.score)),
        r.loss().map_or("?".to_string(), |l| l.to_string()),
    )
}
