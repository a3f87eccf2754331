//! `outflank book`: build an opening book, learn games into one, and show a position's book
//! moves (see `crate::book`).

use super::common::{
    EngineArgs, plural, position_lines, progress_bar, read_file, read_position, read_position_arg,
};
use super::shards::{MergeOutput, ShardArgs};
use crate::board::Move;
use crate::book::{Book, Entry, file};
use crate::book::{BuildConfig, Builder, Plan, leaf_entry};
use crate::game::Game;
use crate::notation::{move_list, parse_wtb};
use crate::shard::{self, RunId, Shard, ShardFile, Step};
use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Arguments of `outflank book`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// The book subcommands.
#[derive(Subcommand, Debug)]
pub enum Action {
    /// Expand the best lines from the start position with deep searches; writes the book.
    Build(BuildArgs),
    /// Add the positions of games to a book (one game per line: a transcript or a GGF game).
    Learn(LearnArgs),
    /// The book moves of a position, best first, with their scores and book lines.
    Show(ShowArgs),
}

/// Arguments of `outflank book build`.
#[derive(ClapArgs, Debug)]
pub struct BuildArgs {
    /// The book file to write (without --shard).
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    pub out: Option<PathBuf>,
    /// A book file to extend (default: start from an empty book); with --shard, the book
    /// the round starts from.
    #[arg(long, value_name = "PATH")]
    pub from: Option<PathBuf>,
    /// Add positions up to this many moves from the start.
    #[arg(long, default_value_t = 10)]
    pub plies: u32,
    /// Depth of the searches that score the positions (1-60).
    #[arg(long, default_value_t = 14, value_parser = super::common::depth_range())]
    pub depth: u32,
    /// Expand lines whose deviations from the best moves cost at most this many discs in all.
    #[arg(long, default_value_t = 2)]
    pub width: i32,
    /// Stop once the book holds this many positions.
    #[arg(long, default_value_t = 2000)]
    pub positions: usize,
    /// Save the book to --out every this many minutes (0: only at the end), so that a long
    /// build stopped midway keeps its work (go on with --from); each save says how far.
    #[arg(long, value_name = "MIN", default_value_t = 10.0)]
    pub save_every: f64,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Do one round of the build, in shards: the positions one expansion of the --from book
    /// adds are fixed first and this shard searches its part of them; the merge writes the
    /// round's book, the --from of the next round (see `outflank merge`).
    #[command(flatten)]
    pub shard: ShardArgs,
}

impl BuildArgs {
    /// The build's settings.
    fn config(&self) -> BuildConfig {
        BuildConfig {
            plies: self.plies,
            depth: self.depth,
            width: self.width.max(0),
            max_positions: self.positions.max(1),
        }
    }

    /// The book to extend: the --from file, else an empty book.
    fn book_to_extend(&self) -> anyhow::Result<Book> {
        match &self.from {
            Some(p) => file::load(p),
            None => Ok(Book::new()),
        }
    }
}

/// Arguments of `outflank book learn`.
#[derive(ClapArgs, Debug)]
pub struct LearnArgs {
    /// The book file to extend; a path with no file yet starts from the shipped book (with
    /// --book-new, from an empty one).
    #[arg(long)]
    pub book: PathBuf,
    /// Start the new --book file from an empty book instead of the shipped one.
    #[arg(long)]
    pub book_new: bool,
    /// Files of games: WTHOR files (`.wtb`), or text with one game per line (a transcript
    /// or a GGF game); `-` reads text from stdin.
    #[arg(required = true)]
    pub games: Vec<PathBuf>,
    /// Learn each game's positions up to this many moves in.
    #[arg(long, default_value_t = 20)]
    pub plies: usize,
    /// Depth of the searches that score new positions (1-60).
    #[arg(long, default_value_t = 14, value_parser = super::common::depth_range())]
    pub depth: u32,
    /// Save the book every this many minutes of learning (0: only at the end), so that a
    /// long run stopped midway keeps its work; each save says how many games are in.
    #[arg(long, default_value_t = 10.0)]
    pub save_every: f64,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Search only some of the positions the games bring (all games are walked first; the
    /// merge writes the book): see `outflank merge`.
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Arguments of `outflank book show`.
#[derive(ClapArgs, Debug)]
pub struct ShowArgs {
    /// The position (board string, transcript or GGF game).
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    /// The book file (default: the shipped book).
    #[arg(long, value_name = "PATH")]
    pub book: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `outflank book`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    match &a.action {
        Action::Build(b) => b.shard.check()?,
        Action::Learn(l) => l.shard.check()?,
        Action::Show(_) => {}
    }
    match a.action {
        Action::Build(a) if a.shard.shard.is_some() => build_round(a),
        Action::Build(a) => build(a),
        Action::Learn(a) if a.shard.shard.is_some() => learn_shard(a),
        Action::Learn(a) => learn(a),
        Action::Show(a) => show(a),
    }
}

/// `--save-every MIN` as a duration (zero: only at the end).
fn save_interval(minutes: f64) -> anyhow::Result<std::time::Duration> {
    anyhow::ensure!(
        minutes.is_finite() && (0.0..1e6).contains(&minutes),
        "--save-every must be a number of minutes, got {minutes}"
    );
    Ok(std::time::Duration::from_secs_f64(minutes * 60.0))
}

/// The book at `path`, or the shipped one.
pub fn load_or_shipped(path: Option<&Path>) -> anyhow::Result<Book> {
    match path {
        Some(p) => file::load(p),
        None => Ok(Book::shipped()),
    }
}

fn build(a: BuildArgs) -> anyhow::Result<i32> {
    let out = a.out.clone().context("--out: the book file to write")?;
    let book = a.book_to_extend()?;
    let every = save_interval(a.save_every)?;
    let engine = a.engine.engine()?;
    let pb = progress_bar(a.positions as u64);
    let config = a.config();
    let mut saved = std::time::Instant::now();
    let mut builder = Builder::new(&engine, book, a.depth).on_progress(|b| {
        pb.set_position(b.len() as u64);
        if every.is_zero() || saved.elapsed() < every {
            return;
        }
        saved = std::time::Instant::now();
        // Values backed up through the tree first, as at the end of each pass, so that
        // what is saved can be played from as it stands.
        let mut book = b.clone();
        book.propagate();
        let note = match file::save(&book, &out) {
            Ok(()) => format!(
                "saved {} (of at most {}) to {}",
                plural(b.len(), "position"),
                a.positions,
                out.display()
            ),
            // The save at the end reports it as an error; the build goes on.
            Err(e) => format!("not saved: {e:#}"),
        };
        pb.suspend(|| eprintln!("{note}"));
    });
    builder.build(&config);
    pb.finish_and_clear();
    file::save(&builder.book, &out)?;
    eprintln!(
        "{} positions written to {}",
        builder.book.len(),
        out.display()
    );
    Ok(0)
}

fn learn(a: LearnArgs) -> anyhow::Result<i32> {
    let existing = existing_book(&a)?;
    let games = read_learn_games(&a.games)?;
    let book = starting_book(&a, existing);
    let every = save_interval(a.save_every)?;
    let engine = a.engine.engine()?;
    let mut builder = Builder::new(&engine, book, a.depth);
    let pb = progress_bar(games.len() as u64);
    let mut saved = std::time::Instant::now();
    for (i, g) in games.iter().enumerate() {
        builder.learn(&g.start().board, g.moves(), a.plies);
        pb.inc(1);
        if !every.is_zero() && saved.elapsed() >= every && i + 1 < games.len() {
            file::save(&builder.book, &a.book)?;
            saved = std::time::Instant::now();
            pb.suspend(|| {
                eprintln!(
                    "saved {} after {} of {}",
                    plural(builder.book.len(), "position"),
                    plural(i + 1, "game"),
                    games.len()
                )
            });
        }
    }
    pb.finish_and_clear();
    file::save(&builder.book, &a.book)?;
    eprintln!(
        "{} learned; {} written to {}",
        plural(games.len(), "game"),
        plural(builder.book.len(), "position"),
        a.book.display()
    );
    Ok(0)
}

fn show(a: ShowArgs) -> anyhow::Result<i32> {
    let book = load_or_shipped(a.book.as_deref())?;
    let game = read_position_arg(&a.position)?;
    let board = game.position().board;
    let moves = book.moves(&board).unwrap_or_default();
    let lines: Vec<(crate::book::BookMove, Vec<Move>)> = moves
        .iter()
        .map(|m| (*m, book.line_after(&board, m, 12)))
        .collect();
    if a.json {
        let moves: Vec<_> = lines
            .iter()
            .map(|(m, line)| {
                json!({
                    "move": m.mv.to_string(),
                    "score": m.score,
                    "in_book": m.in_book,
                    "depth": m.depth,
                    "games": m.games,
                    "line": line.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "board": crate::notation::board_string(&game.position()),
                "in_book": book.contains(&board),
                "moves": moves,
            })
        );
        return Ok(0);
    }
    if moves.is_empty() {
        println!("not in the book ({} positions)", book.len());
        return Ok(0);
    }
    for (i, (m, line)) in lines.iter().enumerate() {
        println!(
            "{:>2}. {} {:+} {} depth {} games {}  {}",
            i + 1,
            m.mv,
            m.score,
            if m.in_book { "book" } else { "leaf" },
            m.depth,
            m.games,
            move_list(line)
        );
    }
    Ok(0)
}

/// The input files as a message names them (`-` is stdin).
fn display_inputs(paths: &[std::path::PathBuf]) -> String {
    let names: Vec<String> = paths
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                "stdin".to_string()
            } else {
                p.display().to_string()
            }
        })
        .collect();
    names.join(", ")
}

/// The games of `book learn`'s inputs: WTHOR files (`.wtb`), or text with one game per line
/// (`-`: stdin).
/// The book at `--book`, read and checked, when there is one (before anything else, so that
/// a damaged book is named first); refused with `--book-new`.
fn existing_book(a: &LearnArgs) -> anyhow::Result<Option<Book>> {
    if !a.book.exists() {
        return Ok(None);
    }
    anyhow::ensure!(
        !a.book_new,
        "--book-new: {} exists already (it would be overwritten)",
        a.book.display()
    );
    Ok(Some(file::load(&a.book)?))
}

/// The book a learn starts from: the one there, else an empty one with `--book-new`, else
/// the shipped one (and a line on stderr says so).
fn starting_book(a: &LearnArgs, existing: Option<Book>) -> Book {
    match existing {
        Some(book) => book,
        None if a.book_new => Book::new(),
        None => {
            let book = Book::shipped();
            eprintln!(
                "{}: no book there yet; starting from the shipped book ({})",
                a.book.display(),
                plural(book.len(), "position")
            );
            book
        }
    }
}

fn read_learn_games(paths: &[PathBuf]) -> anyhow::Result<Vec<Game>> {
    let mut games = Vec::new();
    for path in paths {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("wtb"))
        {
            let data =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let file = parse_wtb(&data).with_context(|| format!("in {}", path.display()))?;
            for (i, g) in file.games.iter().enumerate() {
                let game = g
                    .to_game()
                    .map_err(|e| e.in_game(i + 1))
                    .with_context(|| format!("in {}", path.display()))?;
                games.push(game);
            }
            continue;
        }
        let text = if path.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin()).context("cannot read stdin")?
        } else {
            read_file(path)?
        };
        for (n, line) in position_lines(&text) {
            let game =
                read_position(line).with_context(|| format!("{} line {n}", path.display()))?;
            games.push(game);
        }
    }
    if games.is_empty() {
        anyhow::bail!("no games to learn in {}", display_inputs(paths));
    }
    Ok(games)
}

/// `book learn --shard K/N`: walks every game into the book ([`Plan::learn`]), then searches
/// the shard's part of the positions to score ([`plan_shard`]).
fn learn_shard(a: LearnArgs) -> anyhow::Result<i32> {
    let existing = existing_book(&a)?;
    let games = read_learn_games(&a.games)?;
    let book = starting_book(&a, existing);
    let walks: Vec<_> = games.iter().map(|g| (g.start().board, g.moves())).collect();
    let plan = Plan::learn(&book, &walks, a.plies);
    let planned = file::write(&plan.book);
    let (path, searched) = plan_shard(
        &plan,
        RunId {
            step: Step::BookLearn,
            seed: shard::input_seed(&planned),
            total: 0,
            params: format!("plies={}", a.plies),
        },
        planned,
        a.depth,
        &a.engine,
        &a.shard,
    )?;
    eprintln!(
        "{} of the {} to search ({} games) written to {}",
        plural(searched, "position"),
        plan.to_score.len(),
        games.len(),
        path.display()
    );
    Ok(0)
}

/// `book build --shard K/N`: one round of the build from the --from book ([`Plan::round`]),
/// the shard's part of its searches ([`plan_shard`]). The run is named by the --from book's
/// sha256, so that a shard of another round does not merge with this one's.
fn build_round(a: BuildArgs) -> anyhow::Result<i32> {
    let book = a.book_to_extend()?;
    let input = file::write(&book);
    let config = a.config();
    let plan = Plan::round(&book, &config);
    let added = plan.book.len() - book.len();
    let (path, searched) = plan_shard(
        &plan,
        RunId {
            step: Step::BookBuild,
            seed: shard::input_seed(&input),
            total: 0,
            params: format!(
                "book={} plies={} width={} positions={}",
                shard::sha256_hex(&input),
                config.plies,
                config.width,
                config.max_positions
            ),
        },
        file::write(&plan.book),
        a.depth,
        &a.engine,
        &a.shard,
    )?;
    if plan.to_score.is_empty() {
        eprintln!(
            "nothing left to expand: the book of {} is built; {} carries it as it is",
            plural(book.len(), "position"),
            path.display()
        );
    } else {
        eprintln!(
            "a round of {} to search ({added} new, {} searched again): {} in this shard, \
             written to {}",
            plural(plan.to_score.len(), "position"),
            plan.to_score.len() - added,
            searched,
            path.display()
        );
    }
    Ok(0)
}

/// Runs a shard of a planned book step (`book learn`, a round of `book build`) and writes its
/// file: item 0 (in shard 0) is the planned book (`planned`, its bytes), item `i` the entry
/// of the plan's position `i - 1` searched at `depth` against the planned book. Each search
/// runs on one thread from an empty hash table of the options' size, so that it depends on
/// nothing else; `--threads` searches that many positions at once. `run` gives the step,
/// the seed and the step's own settings (the count of items, the depth and the engine's
/// are added here). Returns the file's path and the number of positions searched.
fn plan_shard(
    plan: &Plan,
    mut run: RunId,
    planned: Vec<u8>,
    depth: u32,
    engine: &EngineArgs,
    shard_args: &ShardArgs,
) -> anyhow::Result<(PathBuf, usize)> {
    let shard = shard_args.shard.unwrap_or(Shard::WHOLE);
    // The weights and probcut files, and one engine with a table of the size asked, made
    // first: a bad file or a table the system refuses is an error here, not an abort in a
    // search thread.
    let mut setup = engine.setup()?;
    setup.config.threads = 1;
    setup.engine()?;
    run.total = plan.to_score.len() as u64 + 1;
    run.params = format!(
        "{} depth={depth} hash_mb={} weights={}",
        run.params,
        engine.hash_mb(),
        super::shards::setup_id(&setup)
    );
    let searched: Vec<u64> = shard.items(run.total).filter(|&i| i > 0).collect();
    let make = || {
        setup
            .engine()
            .expect("an engine of this setup was made above")
    };
    let pb = progress_bar(searched.len() as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(engine.threads.max(1))
        .thread_name(|i| format!("outflank-book-{i}"))
        .build()
        .context("cannot start the search threads")?;
    let entries = pool.install(|| {
        crate::train::map_with_engines(&searched, &make, &|e, &i| {
            let b = plan.to_score[i as usize - 1];
            e.clear_hash();
            let entry = leaf_entry(e, &plan.book, &b, depth);
            pb.inc(1);
            entry.map(|entry| (i, encode_entry(&b, &entry)))
        })
    });
    pb.finish_and_clear();
    let mut items = Vec::with_capacity(searched.len() + 1);
    if shard.owns(0) {
        items.push((0, planned));
    }
    for item in entries {
        items.push(item.context("a planned position without a move")?);
    }
    let path = shard_args.write(&ShardFile { run, shard, items })?;
    Ok((path, searched.len()))
}

/// A searched book entry as a shard item: the canonical board (two u64), then value, leaf,
/// leaf score and depth (one byte each).
fn encode_entry(b: &crate::board::Board, e: &Entry) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(20);
    bytes.extend_from_slice(&b.player.to_le_bytes());
    bytes.extend_from_slice(&b.opponent.to_le_bytes());
    bytes.extend_from_slice(&[e.value as u8, e.leaf, e.leaf_score as u8, e.depth]);
    bytes
}

/// The book of the shards of a planned book step (`book learn`, a round of `book build`):
/// the planned book with every searched entry, values propagated; the same bytes whatever
/// the number of shards.
pub fn merge_plan(m: &shard::Merged) -> anyhow::Result<MergeOutput> {
    let step = m.run.step;
    let (planned, scored) = m
        .items
        .split_first()
        .with_context(|| format!("{step} shards without the planned book"))?;
    let mut book =
        file::read(planned).with_context(|| format!("{step} shards: the planned book"))?;
    for (i, item) in scored.iter().enumerate() {
        let damaged = || anyhow::anyhow!("{step} shards: position {} is damaged", i + 1);
        let [p, o] = [0, 8].map(|at| {
            item.get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        });
        let (Some(p), Some(o), Some(&[value, leaf, leaf_score, depth]), 20) = (
            p,
            o,
            item.get(16..20).and_then(|r| <&[u8; 4]>::try_from(r).ok()),
            item.len(),
        ) else {
            return Err(damaged());
        };
        let b = crate::board::Board::new(p, o);
        let legal = crate::board::Square::new(leaf).is_some_and(|sq| b.play(sq).is_ok());
        let on_scale = |v: u8| (-64..=64).contains(&(v as i8));
        if !(leaf == crate::book::NO_LEAF || legal) || !on_scale(value) || !on_scale(leaf_score) {
            return Err(damaged());
        }
        let games = book.get(&b).ok_or_else(damaged)?.games;
        book.insert(
            &b,
            Entry {
                value: value as i8,
                leaf,
                leaf_score: leaf_score as i8,
                depth,
                games,
            },
        );
    }
    book.propagate();
    Ok(MergeOutput {
        stdout: file::write(&book),
        ..MergeOutput::default()
    })
}
