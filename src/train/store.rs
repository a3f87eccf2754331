//! The data store: bulk shard files outside the repository (by default in the user's cache
//! directory), listed by a small manifest inside it (`data/manifest.json`).
//!
//! The manifest names each shard's file, what made it (the step, its seed, the shard `K/N`,
//! the options that run it again, the run's settings as the shard's header has them, the
//! commit) and what it must be (its items, its size, its sha256 and the shard format
//! version). A store is checked against it ([`check`]), and a store that lost files is made
//! again by running the recorded steps and comparing each file with its sha256.
//!
//! The manifest is JSON:
//!
//! ```text
//! {
//!   "manifest_version": 1,
//!   "shards": [
//!     { "file": "selfplay-seed1-0of2.shard", "step": "selfplay", "seed": 1, "shard": "0/2",
//!       "args": ["--games", "40", "--seed", "1", "--level", "3", "--random-moves", "8-20"],
//!       "params": "level=3 random=8-20 ...", "items": 20, "bytes": 1234,
//!       "sha256": "...", "commit": "...", "format_version": 1 }
//!   ]
//! }
//! ```

use crate::shard::{self, FORMAT_VERSION, Shard, ShardFile, Step};
use serde_json::{Value, json};
use std::fmt;
use std::path::{Path, PathBuf};

/// The version of the manifest's layout this build writes and reads.
pub const MANIFEST_VERSION: u64 = 1;

/// The manifest's path in the repository when none is given.
pub const DEFAULT_MANIFEST: &str = "data/manifest.json";

/// The store's directory when none is given: `$XDG_CACHE_HOME/outflank`, else
/// `~/.cache/outflank`, else `.outflank-store` in the current directory.
pub fn default_store() -> PathBuf {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    if let Some(d) = nonempty("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("outflank");
    }
    if let Some(h) = nonempty("HOME") {
        return PathBuf::from(h).join(".cache").join("outflank");
    }
    PathBuf::from(".outflank-store")
}

/// The commit the running build is made from: `$OUTFLANK_COMMIT` if set, else `git rev-parse
/// HEAD` in the current directory, else `unknown`.
pub fn current_commit() -> String {
    if let Some(c) = std::env::var("OUTFLANK_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
    {
        return c.trim().to_string();
    }
    std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// One shard of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its file name in the store.
    pub file: String,
    /// The step that made it.
    pub step: Step,
    /// The run's seed.
    pub seed: u64,
    /// Which shard of the run.
    pub shard: Shard,
    /// The step's options that make the run again (`--shard` apart).
    pub args: Vec<String>,
    /// The run's settings, as the shard's header has them.
    pub params: String,
    /// Its number of items.
    pub items: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// The sha256 of the whole file, 64 hex digits.
    pub sha256: String,
    /// The commit that made it (`unknown` when it was not known).
    pub commit: String,
    /// The shard format version of the file.
    pub format_version: u32,
}

impl Entry {
    /// The entry of a shard file whose bytes are `bytes`, made by the step's options `args`
    /// at `commit`.
    pub fn new(file: &ShardFile, bytes: &[u8], args: Vec<String>, commit: String) -> Entry {
        Entry {
            file: file.name(),
            step: file.run.step,
            seed: file.run.seed,
            shard: file.shard,
            args,
            params: file.run.params.clone(),
            items: file.items.len() as u64,
            bytes: bytes.len() as u64,
            sha256: shard::sha256_hex(bytes),
            commit,
            format_version: FORMAT_VERSION,
        }
    }

    /// True when `other` is the same shard of the same run (made again, it must have the same
    /// bytes).
    pub fn same_run(&self, other: &Entry) -> bool {
        self.file == other.file
            && self.step == other.step
            && self.seed == other.seed
            && self.shard == other.shard
            && self.args == other.args
    }

    fn to_json(&self) -> Value {
        json!({
            "file": self.file,
            "step": self.step.name(),
            "seed": self.seed,
            "shard": self.shard.to_string(),
            "args": self.args,
            "params": self.params,
            "items": self.items,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "commit": self.commit,
            "format_version": self.format_version,
        })
    }

    fn from_json(v: &Value) -> Result<Entry, String> {
        let text = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("a shard without its {k}"))
        };
        let number = |k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("a shard without its {k}"))
        };
        let file = text("file")?;
        if file.contains(['/', '\\']) || file.starts_with('.') {
            return Err(format!("a shard file name that is a path: {file}"));
        }
        let step = text("step")?;
        let sha256 = text("sha256")?;
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{file}: a sha256 that is not 64 hex digits"));
        }
        Ok(Entry {
            step: Step::from_name(&step).ok_or_else(|| format!("{file}: unknown step {step}"))?,
            seed: number("seed")?,
            shard: text("shard")?.parse().map_err(|e| format!("{file}: {e}"))?,
            args: v
                .get("args")
                .and_then(Value::as_array)
                .and_then(|a| {
                    a.iter()
                        .map(|x| x.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| format!("{file}: no args"))?,
            params: text("params")?,
            items: number("items")?,
            bytes: number("bytes")?,
            sha256: sha256.to_ascii_lowercase(),
            commit: text("commit")?,
            format_version: u32::try_from(number("format_version")?)
                .map_err(|_| format!("{file}: a format version out of range"))?,
            file,
        })
    }
}

/// The manifest: the shards of the store, in a fixed order (the order they were added in),
/// which is the order the steps that read them take them in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The shards.
    pub shards: Vec<Entry>,
}

impl Manifest {
    /// Reads a manifest; a file that is not there is an empty manifest.
    pub fn load(path: &Path) -> anyhow::Result<Manifest> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
        };
        Manifest::parse(&text).map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))
    }

    /// The manifest of a JSON text.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let version = v.get("manifest_version").and_then(Value::as_u64);
        if version != Some(MANIFEST_VERSION) {
            return Err(format!(
                "manifest version {}, this build reads version {MANIFEST_VERSION}",
                version.map_or("none".into(), |v| v.to_string())
            ));
        }
        let shards = v
            .get("shards")
            .and_then(Value::as_array)
            .ok_or("no list of shards")?
            .iter()
            .map(Entry::from_json)
            .collect::<Result<Vec<_>, _>>()?;
        let mut names: Vec<&str> = shards.iter().map(|e| e.file.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("{} is listed twice", w[0]));
        }
        Ok(Manifest { shards })
    }

    /// The manifest as JSON text (one shard's fields on a few lines, for reviews).
    pub fn to_text(&self) -> String {
        let v = json!({
            "manifest_version": MANIFEST_VERSION,
            "shards": self.shards.iter().map(Entry::to_json).collect::<Vec<_>>(),
        });
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
    }

    /// Writes the manifest (whole or not at all), creating its directory.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        shard::write_atomically(path, self.to_text().as_bytes())
    }

    /// The entry of a file name.
    pub fn get(&self, file: &str) -> Option<&Entry> {
        self.shards.iter().find(|e| e.file == file)
    }

    /// Adds an entry, or replaces the one of the same file in its place.
    pub fn put(&mut self, entry: Entry) {
        match self.shards.iter_mut().find(|e| e.file == entry.file) {
            Some(e) => *e = entry,
            None => self.shards.push(entry),
        }
    }
}

/// What is wrong with a shard of the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The file is not in the store.
    Missing,
    /// The file is there but cannot be read as a shard of this build: truncated, damaged,
    /// of another format version.
    Unreadable(shard::ShardError),
    /// The manifest records another shard format version than this build's.
    OtherVersion(u32),
    /// A whole shard, but not the one the manifest lists (other bytes).
    Mismatch {
        /// The sha256 found.
        found: String,
        /// The manifest's.
        expected: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing => write!(
                f,
                "missing from the store (`outflank train store regenerate --manifest \
                 MANIFEST` makes the listed shards again)"
            ),
            Problem::Unreadable(e) => e.fmt(f),
            Problem::OtherVersion(v) => write!(
                f,
                "the manifest lists it at shard format version {v}, this build reads version \
                 {FORMAT_VERSION}"
            ),
            Problem::Mismatch { found, expected } => write!(
                f,
                "sha256 {found} differs from the manifest's {expected} (another run, other \
                 weights or another engine version made it)"
            ),
        }
    }
}

/// A shard of the store at fault: its path and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: Problem,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for StoreError {}

/// Checks that `bytes` are the shard the manifest's `entry` lists: readable by this build,
/// of its format version, with the manifest's sha256.
pub fn check_bytes(entry: &Entry, bytes: &[u8]) -> Result<ShardFile, Problem> {
    if entry.format_version != FORMAT_VERSION {
        return Err(Problem::OtherVersion(entry.format_version));
    }
    let file = ShardFile::from_bytes(bytes).map_err(Problem::Unreadable)?;
    let found = shard::sha256_hex(bytes);
    if found != entry.sha256 {
        return Err(Problem::Mismatch {
            found,
            expected: entry.sha256.clone(),
        });
    }
    Ok(file)
}

/// Checks the store's file of `entry` (see [`check_bytes`]) and returns the shard.
pub fn check(store: &Path, entry: &Entry) -> Result<ShardFile, StoreError> {
    let path = store.join(&entry.file);
    let fault = |problem| StoreError {
        path: path.clone(),
        problem,
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(fault(Problem::Missing)),
        Err(e) => {
            return Err(fault(Problem::Unreadable(shard::ShardError::Unreadable(
                e.to_string(),
            ))));
        }
    };
    check_bytes(entry, &bytes).map_err(fault)
}

/// Every fault of the store against the manifest, in the manifest's order (none: the store
/// holds every shard, whole).
pub fn verify(store: &Path, manifest: &Manifest) -> Vec<StoreError> {
    manifest
        .shards
        .iter()
        .filter_map(|e| check(store, e).err())
        .collect()
}

/// The games of the manifest's self-play shards, run after run in the manifest's order (a
/// run's games in game order), each shard checked against the manifest first. The first
/// fault is the error: a shard missing, truncated, damaged, of another version or another
/// sha256, or a run whose shards are not all listed.
pub fn selfplay_games(
    store: &Path,
    manifest: &Manifest,
) -> anyhow::Result<Vec<super::data::GameRecord>> {
    // The runs, in the order of their first shard: (seed, params, count) and its files.
    type Run<'a> = ((u64, &'a str, u32), Vec<PathBuf>);
    let mut runs: Vec<Run> = Vec::new();
    for e in manifest.shards.iter().filter(|e| e.step == Step::Selfplay) {
        check(store, e)?;
        let key = (e.seed, e.params.as_str(), e.shard.count);
        let path = store.join(&e.file);
        match runs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, files)) => files.push(path),
            None => runs.push((key, vec![path])),
        }
    }
    let mut games = Vec::new();
    for (_, files) in runs {
        let merged = shard::collect(&files)?;
        games.extend(super::selfplay::decode_games(&merged.items).map_err(|i| {
            anyhow::anyhow!(
                "{}: self-play game {i} of the run is not a game",
                files[0].display()
            )
        })?);
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str) -> Entry {
        let s = ShardFile {
            run: shard::RunId {
                step: Step::Selfplay,
                seed: 3,
                total: 2,
                params: "level=2".into(),
            },
            shard: Shard::WHOLE,
            items: vec![(0, vec![1]), (1, vec![2])],
        };
        let mut e = Entry::new(
            &s,
            &s.to_bytes(),
            vec!["--games".into(), "2".into()],
            "c".into(),
        );
        e.file = file.into();
        e
    }

    #[test]
    fn manifest_round_trips_and_refuses_nonsense() {
        let mut m = Manifest::default();
        m.put(entry("a.shard"));
        m.put(entry("b.shard"));
        m.put(entry("a.shard"));
        assert_eq!(m.shards.len(), 2);
        assert_eq!(Manifest::parse(&m.to_text()), Ok(m.clone()));
        let twice = m.to_text().replace("b.shard", "a.shard");
        assert!(Manifest::parse(&twice).unwrap_err().contains("twice"));
        let path = m.to_text().replace("b.shard", "../b.shard");
        assert!(Manifest::parse(&path).is_err());
        assert!(Manifest::parse("{}").unwrap_err().contains("version"));
        assert!(Manifest::parse("[").is_err());
    }
}
