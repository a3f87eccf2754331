//! Where the games to label come from: WTHOR files, the shards of a self-play run, the
//! store's shards a manifest lists; and how they are put together without repeats.

use super::data;
use super::store::{self as data_store, Manifest};
use crate::shard;
use std::path::{Path, PathBuf};

/// The games of a full set of self-play shards, with their openings.
pub fn selfplay_shard_games(paths: &[PathBuf]) -> anyhow::Result<Vec<data::GameRecord>> {
    let merged = shard::collect(paths)?;
    anyhow::ensure!(
        merged.run.step == shard::Step::Selfplay,
        "{}: shards of {}, not of selfplay",
        paths[0].display(),
        merged.run.step
    );
    super::decode_games(&merged.items)
        .map_err(|i| anyhow::anyhow!("self-play game {i} of the shards is not a game"))
}

/// The games of WTHOR files and directories ([`data::read_games`]); none for no path.
pub fn wthor_games(paths: &[PathBuf]) -> anyhow::Result<Vec<data::GameRecord>> {
    if paths.is_empty() {
        Ok(Vec::new())
    } else {
        data::read_games(paths)
    }
}

/// Appends the games of `more` that are not repeats (the same moves) of a game before them,
/// in `games` or earlier in `more`, as within WTHOR files.
pub fn append_new(games: &mut Vec<data::GameRecord>, more: Vec<data::GameRecord>) {
    let mut seen: std::collections::HashSet<Vec<crate::board::Square>> =
        games.iter().map(|g| g.moves.clone()).collect();
    games.extend(more.into_iter().filter(|g| seen.insert(g.moves.clone())));
}

/// The self-play games of a manifest's shards in the store (`store`, else the default one),
/// each shard checked against the manifest first.
pub fn manifest_games(
    manifest: &Path,
    store: Option<&Path>,
) -> anyhow::Result<Vec<data::GameRecord>> {
    let store = store.map_or_else(data_store::default_store, Path::to_path_buf);
    data_store::selfplay_games(&store, &load_manifest(manifest)?)
}

/// A manifest that must be there.
pub fn load_manifest(path: &Path) -> anyhow::Result<Manifest> {
    anyhow::ensure!(path.is_file(), "{}: no manifest there", path.display());
    Manifest::load(path)
}
