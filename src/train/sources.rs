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

/// The games `train data` labels: WTHOR files, self-play shards and a manifest's shards.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameSources {
    /// WTHOR files or directories of `.wtb` files.
    pub wthor: Vec<PathBuf>,
    /// The shard files of one self-play run, or directories of them.
    pub selfplay: Vec<PathBuf>,
    /// A manifest whose self-play shards' games are read from the store.
    pub manifest: Option<PathBuf>,
    /// The data store of the manifest's shards (default: [`data_store::default_store`]).
    pub store: Option<PathBuf>,
    /// Only the first this many games (after removing repeats).
    pub max_games: Option<usize>,
}

impl GameSources {
    /// The games: the WTHOR files', then the self-play shards', then the manifest's, each
    /// repeat of an earlier game left out ([`append_new`]), cut to `max_games`.
    pub fn games(&self) -> anyhow::Result<Vec<data::GameRecord>> {
        let mut games = wthor_games(&self.wthor)?;
        let mut more = Vec::new();
        if !self.selfplay.is_empty() {
            more.extend(selfplay_shard_games(&self.selfplay)?);
        }
        if let Some(m) = &self.manifest {
            more.extend(manifest_games(m, self.store.as_deref())?);
        }
        append_new(&mut games, more);
        if let Some(n) = self.max_games {
            games.truncate(n);
        }
        Ok(games)
    }
}
