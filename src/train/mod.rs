//! The training pipeline of the evaluation: from game records to a weights file.
//!
//! - [`data`]: reads WTHOR files (the French Othello Federation's tournament database, and
//!   self-play games written in the same format), replays the games and labels their
//!   positions: exact solves for the late ones, the game's theoretical or final result for the
//!   rest. Writes and reads sample files.
//! - [`selfplay`]: games of the engine against itself from randomised openings or opening
//!   lines, at a depth or a level.
//! - [`store`]: the data store outside the repository and its manifest inside it.
//! - [`sources`]: the games to label: WTHOR files, self-play shards, a manifest's shards.
//! - [`mod@fit`]: per-phase ridge regression of the pattern weights by preconditioned conjugate
//!   gradients on both cores, reproducible.
//! - [`error`]: mean absolute error per phase on a held-out split.
//! - [`probcut`]: Multi-ProbCut regressions from pairs of shallow and deep searches.
//! - [`steps`]: the runs of `train data`, `train fit` and `train probcut`, whole or one
//!   shard, and the merges of their shards.
//! - [`selfplay_run`]: the runs of `train selfplay`: into a file, a shard or the data store
//!   (resumed where it stopped), and the store's missing shards made again.
//! - [`calibrate`]: the two parity biases of a weights file calibrated on solved positions.
//! - [`pipeline`]: `train all`, every step in one run, resumable.
//! - [`report`]: how the steps show their progress.
//!
//! Every step is deterministic: the same inputs and seed give the same bytes.

pub mod calibrate;
pub mod data;
pub mod error;
pub mod fit;
pub mod label;
pub mod pipeline;
pub mod probcut;
pub mod report;
pub mod selfplay;
pub mod selfplay_run;
pub mod sources;
pub mod steps;
pub mod store;

pub use error::{ReferenceConfig, ReferenceSet, build_references};
pub use fit::{EpochReport, FitConfig, fit};
pub use label::{LabelConfig, SearchLabels, map_with_engines};
pub use probcut::ProbcutConfig;
pub use selfplay::{
    SelfPlayConfig, decode_game, decode_games, encode_game, parse_openings, run_params, self_play,
    self_play_games, to_wthor,
};
