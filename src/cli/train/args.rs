//! The arguments of `outflank train` and its steps, as clap reads them.

use super::super::shards::ShardArgs;
use clap::{Args as ClapArgs, Subcommand};
use std::path::PathBuf;

/// Arguments of `outflank train`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Worker threads (default: every core).
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    /// The step to run.
    #[command(subcommand)]
    pub step: Step,
}

/// The steps of the pipeline.
#[derive(Subcommand, Debug)]
pub enum Step {
    /// Replay WTHOR games and label their positions (exact solves late, game results early).
    Data(DataArgs),
    /// Play games of the engine against itself from random openings or opening lines; writes
    /// a WTHOR file, a shard, or shards into the data store (--manifest).
    Selfplay(SelfplayArgs),
    /// Check the data store against its manifest, or make its missing shards again.
    Store(StoreArgs),
    /// Fit the weights to sample files; writes a weights file.
    Fit(FitArgs),
    /// Mean absolute error per phase on held-out games, for several weights files.
    EvalError(EvalErrorArgs),
    /// Fit the Multi-ProbCut parameters from shallow and deep searches; writes JSON.
    Probcut(ProbcutArgs),
    /// Write the hand-set weights as a weights file (to compare or match against).
    Hand(HandArgs),
    /// Calibrate a weights file's two parity biases on exactly solved positions (self-play
    /// games, never a test set): searches at several depths, the side to move's and the
    /// parity's error fitted, both taken out.
    Calibrate(CalibrateArgs),
    /// Retrain everything from scratch: data, a first fit, self-play, the final fit, probcut.
    All(AllArgs),
}

/// Arguments of `outflank train probcut`.
#[derive(ClapArgs, Debug)]
pub struct ProbcutArgs {
    /// WTHOR files or directories (positions are drawn from their training games).
    #[arg(long, required = true, num_args = 1..)]
    pub wthor: Vec<PathBuf>,
    /// The JSON file to write (without --shard).
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    pub out: Option<PathBuf>,
    /// Midgame positions to search.
    #[arg(long, default_value_t = 1500)]
    pub positions: usize,
    /// Endgame positions to solve.
    #[arg(long, default_value_t = 600)]
    pub end_positions: usize,
    /// Deepest midgame search.
    #[arg(long, default_value_t = 10)]
    pub max_depth: u32,
    /// Seed of the position draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Weights to search with (default: the shipped ones).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Search only some of the positions (position i of the draw, midgame then endgame,
    /// belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Arguments of `outflank train all`.
#[derive(ClapArgs, Debug)]
pub struct AllArgs {
    /// WTHOR files or directories of `.wtb` files (the FFO database, Logistello's book).
    #[arg(long, num_args = 1.., required_unless_present = "manifest")]
    pub wthor: Vec<PathBuf>,
    /// The self-play games of the shards this manifest lists (the repository's is
    /// data/manifest.json), from the store, labelled and fitted on with the WTHOR games.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The data store (default: $XDG_CACHE_HOME/outflank, else ~/.cache/outflank).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Where to write `eval.ofw` and `probcut.json` (the crate ships `weights/`).
    #[arg(long)]
    pub out: PathBuf,
    /// Directory for the intermediate files (samples, self-play games, first weights).
    #[arg(long)]
    pub work: PathBuf,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How the games are labelled.
    #[command(flatten)]
    pub label: LabelArgs,
    /// Self-play games (0: none).
    #[arg(long, default_value_t = 10000)]
    pub selfplay_games: usize,
    /// Search depth of the self-play games (1-60).
    #[arg(long, default_value_t = 4, value_parser = crate::cli::common::depth_range())]
    pub selfplay_depth: u32,
    /// Conjugate-gradient iterations of each fit.
    #[arg(long, default_value_t = 40)]
    pub epochs: usize,
    /// L2 penalty per weight.
    #[arg(long, default_value_t = 4.0)]
    pub lambda: f64,
    /// Empty squares per phase of the weights (as `train fit`'s).
    #[arg(long, default_value_t = crate::eval::EMPTIES_PER_PHASE, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub empties_per_phase: u32,
    /// Optional terms fitted beside the classic patterns (as `train fit`'s).
    #[arg(long, default_value = "none", value_parser = parse_terms)]
    pub terms: crate::eval::Terms,
    /// Midgame positions of the probcut fit.
    #[arg(long, default_value_t = 1500)]
    pub probcut_positions: usize,
    /// Endgame positions of the probcut fit.
    #[arg(long, default_value_t = 600)]
    pub probcut_end_positions: usize,
    /// Calibrate the final weights' parity biases (as `train calibrate` does, with their
    /// probcut parameters) on positions of this many self-play games of theirs (0: no
    /// calibration); the probcut parameters stay as fitted.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub calibrate_games: usize,
    /// Seed of the calibration's self-play games.
    #[arg(long, value_name = "S", default_value_t = crate::train::calibrate::CalibrateConfig::default().seed)]
    pub calibrate_seed: u64,
    /// The numbers of empties of the calibration's positions (as `train calibrate --empties`).
    #[arg(long, value_name = "E,E", value_delimiter = ',', default_value = "20,25",
          value_parser = clap::value_parser!(u32).range(1..=60))]
    pub calibrate_empties: Vec<u32>,
    /// Positions at each number of empties (as `train calibrate --count`).
    #[arg(long, value_name = "N", default_value_t = 150)]
    pub calibrate_count: usize,
    /// Depths of the calibration's searches (as `train calibrate --depths`).
    #[arg(long, value_name = "A-B", default_value = "10-13", value_parser = parse_range)]
    pub calibrate_depths: (u32, u32),
    /// Reuse intermediate files already in the work directory.
    #[arg(long)]
    pub resume: bool,
}

/// Arguments of `outflank train calibrate`.
#[derive(ClapArgs, Debug)]
pub struct CalibrateArgs {
    /// WTHOR files or directories of games (self-play: `train selfplay --out`) from which the
    /// positions are drawn and solved.
    #[arg(long, num_args = 1.., required_unless_present = "obf", conflicts_with = "obf")]
    pub wthor: Vec<PathBuf>,
    /// Positions already solved instead, as OBF lines scoring at least their best move (a
    /// `--positions-out` file, or `outflank solve` output made into one).
    #[arg(long, value_name = "FILE")]
    pub obf: Option<PathBuf>,
    /// The numbers of empty squares of the positions drawn from the games: one even and one
    /// odd separate the two parts of the error best.
    #[arg(long, value_name = "E,E", value_delimiter = ',', default_value = "20,25",
          value_parser = clap::value_parser!(u32).range(1..=60))]
    pub empties: Vec<u32>,
    /// Positions drawn at each number of empties (the first distinct ones, game by game).
    #[arg(long, value_name = "N", default_value_t = 150)]
    pub count: usize,
    /// Write the drawn positions with their exact scores here (OBF), to calibrate other
    /// weights on them with `--obf` without solving again.
    #[arg(long, value_name = "FILE", requires = "wthor")]
    pub positions_out: Option<PathBuf>,
    /// Depths of the searches (both parities; below the fewest empties).
    #[arg(long, value_name = "A-B", default_value = "10-13", value_parser = parse_range)]
    pub depths: (u32, u32),
    /// Probcut confidence in percent of the searches [default: the engine's, 95].
    #[arg(long, value_name = "PERCENT", value_parser = crate::cli::common::parse_selectivity)]
    pub selectivity: Option<crate::search::Selectivity>,
    /// The weights to calibrate (default: the shipped ones).
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<PathBuf>,
    /// Probcut parameters to search with, a `train probcut` file (default: the shipped ones).
    #[arg(long, value_name = "FILE")]
    pub probcut_file: Option<PathBuf>,
    /// Transposition table of each search thread, in megabytes.
    #[arg(long = "hash", value_name = "MB", default_value_t = 64,
          value_parser = crate::cli::common::hash_range())]
    pub hash_mb: usize,
    /// The calibrated weights file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `outflank train data`.
#[derive(ClapArgs, Debug)]
pub struct DataArgs {
    /// WTHOR files or directories of `.wtb` files (self-play files too).
    #[arg(long, num_args = 1.., required_unless_present_any = ["selfplay", "manifest"])]
    pub wthor: Vec<PathBuf>,
    /// Self-play shard files of one run, or directories of them (`train selfplay --shard`):
    /// their games with each one's opening, whose positions are left out.
    #[arg(long, num_args = 1.., value_name = "SHARD|DIR")]
    pub selfplay: Vec<PathBuf>,
    /// The games of the self-play shards this manifest lists, in its order, from the store;
    /// each shard is checked against its sha256 first.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The data store (default: $XDG_CACHE_HOME/outflank, else ~/.cache/outflank).
    #[arg(long, value_name = "DIR", requires = "manifest")]
    pub store: Option<PathBuf>,
    /// Leave out the positions of every game's first N plies (for WTHOR files of self-play
    /// games, which do not record each game's opening; self-play shards do).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_plies: u32,
    /// How the games are labelled.
    #[command(flatten)]
    pub label: LabelArgs,
    /// The sample file to write (without --shard).
    #[arg(long, required_unless_present = "shard", conflicts_with = "shard")]
    pub out: Option<PathBuf>,
    /// Use only the first N games (after removing repeats).
    #[arg(long)]
    pub max_games: Option<usize>,
    /// Label only some of the games (game i, from 0, belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Arguments of `outflank train selfplay`.
#[derive(ClapArgs, Clone, Debug)]
pub struct SelfplayArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// The WTHOR file to write (without --shard or --manifest). It does not record each
    /// game's opening: label it with `train data --skip-plies`.
    #[arg(long, required_unless_present_any = ["shard", "manifest"],
          conflicts_with_all = ["shard", "manifest"])]
    pub out: Option<PathBuf>,
    /// Search depth of the moves, 1-60 (an exact endgame from 14 empties).
    #[arg(long, default_value_t = 6, value_parser = crate::cli::common::depth_range())]
    pub depth: u32,
    /// Play at this level instead of --depth: its midgame depth and its exact (and
    /// win/loss/draw) endgame, as `outflank play --level` does.
    #[arg(long, value_name = "L", conflicts_with = "depth",
          value_parser = crate::cli::common::depth_range())]
    pub level: Option<u32>,
    /// Random opening moves of each game: N, or A-B for a number drawn per game from the
    /// seed. Their positions are left out of the samples.
    #[arg(long, value_name = "A-B", default_value = "6-24", value_parser = parse_range)]
    pub random_moves: (u32, u32),
    /// Opening lines instead of random moves, one transcript a line (an XOT file): game i
    /// plays line i mod count. Their positions are left out of the samples.
    #[arg(long, value_name = "FILE", conflicts_with = "random_moves")]
    pub openings: Option<PathBuf>,
    /// Seed (the same seed and weights give the same games; game i depends only on them).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Weights to play with (default: the shipped ones).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Probcut parameters to search with, a `train probcut` file (default: the shipped ones).
    #[arg(long, value_name = "FILE")]
    pub probcut_file: Option<PathBuf>,
    /// Play only some of the games (game i belongs to shard i mod N).
    #[command(flatten)]
    pub shard: ShardArgs,
    /// Write the shards into the data store and list them in this manifest (the
    /// repository's is data/manifest.json). Shards already there and matching it are
    /// skipped: a run that stopped resumes.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The data store (default: $XDG_CACHE_HOME/outflank, else ~/.cache/outflank).
    #[arg(long, value_name = "DIR", requires = "manifest")]
    pub store: Option<PathBuf>,
    /// With --manifest: play the run's shards 0/N to N-1/N, one after the other (default:
    /// 1, the whole run in one shard; --shard K/N plays just one).
    #[arg(long, value_name = "N", requires = "manifest", conflicts_with = "shard",
          value_parser = clap::value_parser!(u32).range(1..=crate::shard::MAX_SHARDS as i64))]
    pub shards: Option<u32>,
    /// The commit recorded in the manifest (default: $OUTFLANK_COMMIT, else `git rev-parse
    /// HEAD`, else `unknown`).
    #[arg(long, requires = "manifest")]
    pub commit: Option<String>,
}

/// The depths of a parsed `--depths A-B` (or `--calibrate-depths`): from A, or 1 for 0, to B.
pub fn search_depths((a, b): (u32, u32)) -> std::ops::RangeInclusive<u32> {
    a.max(1)..=b
}

/// `N` or `A-B` (A <= B <= 60): a range of numbers of moves or of empties.
fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("a number N or a range A-B with A <= B <= 60, got `{s}`");
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a > b || b > 60 {
        return Err(bad());
    }
    Ok((a, b))
}

/// Arguments of `outflank train store`.
#[derive(ClapArgs, Debug)]
pub struct StoreArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: StoreAction,
}

/// What `outflank train store` does.
#[derive(Subcommand, Debug)]
pub enum StoreAction {
    /// Check that every shard the manifest lists is in the store, whole, of this build's
    /// format version and with the manifest's sha256: one line for each that is not, exit
    /// status 2.
    Verify(StoreLocation),
    /// Make the shards missing from the store (or damaged) again, by running their steps
    /// with the recorded settings, and check each against the manifest's sha256.
    Regenerate(StoreLocation),
}

/// Where the store and its manifest are.
#[derive(ClapArgs, Debug)]
pub struct StoreLocation {
    /// The data store (default: $XDG_CACHE_HOME/outflank, else ~/.cache/outflank).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// The manifest.
    #[arg(long, value_name = "FILE", default_value = crate::train::store::DEFAULT_MANIFEST)]
    pub manifest: PathBuf,
}

/// Arguments of `outflank train fit`.
#[derive(ClapArgs, Debug)]
pub struct FitArgs {
    /// Sample files written by `outflank train data`.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the subsample (with --max-samples).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Conjugate-gradient iterations (each a pass over the data).
    #[arg(long, default_value_t = 60)]
    pub epochs: usize,
    /// L2 penalty per weight (squared discs).
    #[arg(long, default_value_t = 4.0)]
    pub lambda: f64,
    /// Extra empties on each side of a phase's range that also train it.
    #[arg(long, default_value_t = 2)]
    pub window: u32,
    /// Percentage of games held out.
    #[arg(long, default_value_t = 5)]
    pub holdout: u32,
    /// Train on a random subset of at most this many samples.
    #[arg(long)]
    pub max_samples: Option<usize>,
    /// Empty squares per phase of the weights: 4 (15 phases, the default) or down to 1 (one
    /// phase per number of empties).
    #[arg(long, default_value_t = crate::eval::EMPTIES_PER_PHASE, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub empties_per_phase: u32,
    /// Optional terms fitted beside the classic patterns, comma-separated: `discs` (the side
    /// to move's disc count), `potential-mobility` (each side's empty squares next to an
    /// opponent disc), `mobility-pair` (each side's legal moves), `parity-quadrants` (the
    /// odd quadrants by who can play there), `parity-regions` (the same over the regions of
    /// empty squares), and the ten-square pattern
    /// families `triangle`, `edge-block`, `cross`; `none` (the default) for the classic
    /// patterns, mobility difference and parity bias alone.
    #[arg(long, default_value = "none", value_parser = parse_terms)]
    pub terms: crate::eval::Terms,
}

/// Reads `--terms`.
fn parse_terms(s: &str) -> Result<crate::eval::Terms, String> {
    crate::eval::Terms::parse(s).map_err(|e| e.to_string())
}

/// Arguments of `outflank train eval-error`.
#[derive(ClapArgs, Debug)]
pub struct EvalErrorArgs {
    /// WTHOR files or directories (their held-out games give the positions).
    #[arg(long, num_args = 1..)]
    pub wthor: Vec<PathBuf>,
    /// Weights files to measure (the hand-set and shipped weights are always measured).
    #[arg(long = "eval-file", num_args = 1..)]
    pub eval_files: Vec<PathBuf>,
    /// Percentage of games held out (as in the fit).
    #[arg(long, default_value_t = 5)]
    pub holdout: u32,
    /// Reference positions per number of empties.
    #[arg(long, default_value_t = 200)]
    pub per_empties: usize,
    /// Depth of the deep searches that score positions with 30-50 empties (1-60).
    #[arg(long, default_value_t = 14, value_parser = crate::cli::common::depth_range())]
    pub depth: u32,
    /// Cache of the reference positions: read if it exists, else built and written.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Also print the error for each number of empties, with its mean sign and slope.
    #[arg(long)]
    pub by_empties: bool,
    /// Weights of the deep reference searches (default: the shipped ones).
    #[arg(long)]
    pub reference_eval: Option<PathBuf>,
    /// The numbers of empties of the exactly solved reference positions, A-B (default
    /// 14-24; from 1).
    #[arg(long, value_name = "A-B", default_value = "14-24", value_parser = parse_range)]
    pub exact_empties: (u32, u32),
}

/// Arguments of `outflank train hand`.
#[derive(ClapArgs, Debug)]
pub struct HandArgs {
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// How games are labelled: the options of `train data` and `train all` alike.
#[derive(ClapArgs, Debug)]
pub struct LabelArgs {
    /// Solve positions with at most this many empties exactly.
    #[arg(long, default_value_t = 18)]
    pub exact_empties: u32,
    /// Label the positions without an exact score of their own with an exact result where
    /// the same side is to move (one more solve a game), so that labels carry no parity bias
    /// (docs/training.md).
    #[arg(long)]
    pub parity_labels: bool,
    /// Positions off each game's line to add, each solved exactly: from a game's position
    /// 1 to 8 random moves, down to 4 to `--exact-empties` empties (docs/training.md).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub deviations: u32,
    /// Label the positions without an exact score of their own (above `--exact-empties`)
    /// with a search to depth D instead of a later exact result of their game
    /// (docs/training.md).
    #[arg(long, value_name = "D", value_parser = crate::cli::common::depth_range())]
    pub search_depth: Option<u32>,
    /// Weights the searches of `--search-depth` use (default: the shipped ones).
    #[arg(long, value_name = "FILE", requires = "search_depth")]
    pub eval_file: Option<PathBuf>,
    /// Probcut parameters the searches of `--search-depth` use, a `train probcut` file
    /// (default: the shipped ones).
    #[arg(long, value_name = "FILE", requires = "search_depth")]
    pub probcut_file: Option<PathBuf>,
}
