//! Deterministic shards: a long step cut into `N` independent parts that any machines (or a
//! scheduler's job array) run, and a merge that gives the bytes one process would have
//! written.
//!
//! A step that runs as shard `K/N` does the items `i` of the whole run with `i % N == K`
//! (self-play game `i`, input line `i`, ...). Each item depends only on the run's settings,
//! its seed and `i`, never on `N`, the shard or the threads, so that any `N` gives the same
//! items. The shard writes one file, [`ShardFile::file_name`] (`selfplay-seed1-2of4.shard`),
//! and [`collect`] reads a full set of them back in item order.
//!
//! The file, all little-endian:
//!
//! ```text
//! magic        8 bytes  "OFSHARD\n"
//! version      u32      FORMAT_VERSION
//! length       u64      the whole file's size in bytes
//! step         u8 length, then the step's name (`selfplay`, `solve`, ...)
//! seed         u64      the run's seed (for input-driven steps: a hash of the input)
//! shard        u32 K, u32 N
//! total        u64      items in the whole run (all shards)
//! params       u32 length, then UTF-8 text: the run's settings, equal in every shard
//! items        u64 count, then per item: u64 index in the run, u32 length, bytes
//! sha256       32 bytes of everything before it
//! ```

use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The first 8 bytes of a shard file.
pub const MAGIC: &[u8; 8] = b"OFSHARD\n";

/// The version of the shard file format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The file name extension of shard files.
pub const EXTENSION: &str = "shard";

/// The most shards a run can be cut into.
pub const MAX_SHARDS: u32 = 1_000_000;

/// Part `index` of `count` of a run (`K/N` on the command line, `K` from 0 to `N - 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    /// Which part, from 0.
    pub index: u32,
    /// How many parts.
    pub count: u32,
}

impl Shard {
    /// The whole run as one shard (`0/1`).
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// True when item `i` of the run belongs to this shard.
    pub fn owns(&self, i: u64) -> bool {
        i % self.count as u64 == self.index as u64
    }

    /// The number of items of a run of `total` that belong to this shard.
    pub fn len(&self, total: u64) -> u64 {
        total
            .saturating_sub(self.index as u64)
            .div_ceil(self.count as u64)
    }

    /// True when the shard has no item of a run of `total`.
    pub fn is_empty(&self, total: u64) -> bool {
        self.len(total) == 0
    }

    /// The items of a run of `total` that belong to this shard, in order.
    pub fn items(&self, total: u64) -> impl Iterator<Item = u64> + use<> {
        (self.index as u64..total).step_by(self.count as usize)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("a shard is K/N with K from 0 to N-1 (0/4 .. 3/4), got `{s}`");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        if count > MAX_SHARDS {
            return Err(format!("at most {MAX_SHARDS} shards, got {count}"));
        }
        Ok(Shard { index, count })
    }
}

/// The long steps that run in shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// `outflank train selfplay`: games of the engine against itself.
    Selfplay,
    /// `outflank train data`: labelled positions of games.
    Data,
    /// `outflank train probcut`: shallow and deep searches of positions for the probcut fit.
    Probcut,
    /// `outflank book learn`: the leaf searches of the positions games bring into a book.
    BookLearn,
    /// `outflank book build`: the leaf searches of one round of expansion of a book.
    BookBuild,
    /// `outflank solve`: solves of an OBF file's positions.
    Solve,
    /// `outflank analyze`: the best moves of positions, one a line.
    Analyze,
}

impl Step {
    /// Every step, in a fixed order.
    pub const ALL: [Step; 7] = [
        Step::Selfplay,
        Step::Data,
        Step::Probcut,
        Step::BookLearn,
        Step::BookBuild,
        Step::Solve,
        Step::Analyze,
    ];

    /// The step's name in file names and headers.
    pub fn name(self) -> &'static str {
        match self {
            Step::Selfplay => "selfplay",
            Step::Data => "data",
            Step::Probcut => "probcut",
            Step::BookLearn => "book-learn",
            Step::BookBuild => "book-build",
            Step::Solve => "solve",
            Step::Analyze => "analyze",
        }
    }

    /// The step of a name.
    pub fn from_name(name: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|s| s.name() == name)
    }

    /// True when the step's seed is a seed of random choices (it is a hash of the input for
    /// the steps that read one).
    pub fn is_seeded(self) -> bool {
        matches!(self, Step::Selfplay | Step::Probcut)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a run is: the step, its seed, the number of items and the settings. Every shard of
/// a run has the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunId {
    /// The step.
    pub step: Step,
    /// Its seed (a hash of the input for input-driven steps).
    pub seed: u64,
    /// Items in the whole run.
    pub total: u64,
    /// The settings that change the items, as text (`games=8 depth=4 ...`).
    pub params: String,
}

/// One shard's file: which run and shard, and the shard's items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFile {
    /// The run.
    pub run: RunId,
    /// Which shard of it.
    pub shard: Shard,
    /// `(index in the run, bytes)` of each item the shard owns, in index order.
    pub items: Vec<(u64, Vec<u8>)>,
}

/// Why a shard file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// The file cannot be read.
    Unreadable(String),
    /// The file does not start with [`MAGIC`].
    NotAShard,
    /// The file is of another version of the format.
    OtherVersion(u32),
    /// The file is shorter than its header says (cut off while written or copied), or longer
    /// (bytes after its end).
    WrongSize {
        /// The size the header gives.
        expected: u64,
        /// The size found.
        found: u64,
    },
    /// The checksum does not match the contents.
    BadChecksum,
    /// The checksum matches but the contents make no sense (written by a faulty program).
    Malformed(&'static str),
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Unreadable(why) => write!(f, "cannot read it: {why}"),
            ShardError::NotAShard => write!(f, "not an Outflank shard file (no OFSHARD header)"),
            ShardError::OtherVersion(v) => write!(
                f,
                "shard format version {v}, this build reads version {FORMAT_VERSION}"
            ),
            ShardError::WrongSize { expected, found } if found < expected => write!(
                f,
                "truncated: {found} bytes where its header calls for {expected}"
            ),
            ShardError::WrongSize { expected, found } => write!(
                f,
                "{} bytes too long: {found} bytes where its header calls for {expected} \
                 (something was written after its end)",
                found - expected
            ),
            ShardError::BadChecksum => write!(f, "damaged: the sha256 checksum does not match"),
            ShardError::Malformed(why) => write!(f, "malformed: {why}"),
        }
    }
}

impl std::error::Error for ShardError {}

impl ShardFile {
    /// The file name of shard `shard` of a run of `step` with `seed`:
    /// `selfplay-seed1-2of4.shard`, or `solve-input0123456789abcdef-2of4.shard` for the steps
    /// whose seed is a hash of their input.
    pub fn file_name(step: Step, seed: u64, shard: Shard) -> String {
        let tag = if step.is_seeded() {
            format!("seed{seed}")
        } else {
            format!("input{seed:016x}")
        };
        format!(
            "{}-{tag}-{}of{}.{EXTENSION}",
            step.name(),
            shard.index,
            shard.count
        )
    }

    /// This shard's file name.
    pub fn name(&self) -> String {
        ShardFile::file_name(self.run.step, self.run.seed, self.shard)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // the length, filled in below
        let step = self.run.step.name().as_bytes();
        out.push(step.len() as u8);
        out.extend_from_slice(step);
        out.extend_from_slice(&self.run.seed.to_le_bytes());
        out.extend_from_slice(&self.shard.index.to_le_bytes());
        out.extend_from_slice(&self.shard.count.to_le_bytes());
        out.extend_from_slice(&self.run.total.to_le_bytes());
        out.extend_from_slice(&(self.run.params.len() as u32).to_le_bytes());
        out.extend_from_slice(self.run.params.as_bytes());
        out.extend_from_slice(&(self.items.len() as u64).to_le_bytes());
        for (i, bytes) in &self.items {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        let len = (out.len() + 32) as u64;
        out[12..20].copy_from_slice(&len.to_le_bytes());
        let sum = Sha256::digest(&out);
        out.extend_from_slice(&sum);
        out
    }

    /// Reads a shard from a file's bytes, or says why it cannot.
    pub fn from_bytes(bytes: &[u8]) -> Result<ShardFile, ShardError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(ShardError::NotAShard);
        }
        let found = bytes.len() as u64;
        let short = ShardError::WrongSize {
            expected: 20,
            found,
        };
        let version = u32::from_le_bytes(
            bytes
                .get(8..12)
                .ok_or(short.clone())?
                .try_into()
                .expect("4"),
        );
        if version != FORMAT_VERSION {
            return Err(ShardError::OtherVersion(version));
        }
        let expected = u64::from_le_bytes(bytes.get(12..20).ok_or(short)?.try_into().expect("8"));
        if expected != found || found < 20 + 32 {
            return Err(ShardError::WrongSize { expected, found });
        }
        let (body, sum) = bytes.split_at(bytes.len() - 32);
        if Sha256::digest(body).as_slice() != sum {
            return Err(ShardError::BadChecksum);
        }
        let mut r = Reader { bytes: &body[20..] };
        let step_len = r.take(1)?[0] as usize;
        let step = std::str::from_utf8(r.take(step_len)?)
            .ok()
            .and_then(Step::from_name)
            .ok_or(ShardError::Malformed("an unknown step"))?;
        let seed = r.u64()?;
        let index = r.u32()?;
        let count = r.u32()?;
        if count == 0 || index >= count || count > MAX_SHARDS {
            return Err(ShardError::Malformed("a shard index out of range"));
        }
        let shard = Shard { index, count };
        let total = r.u64()?;
        if total > u32::MAX as u64 {
            return Err(ShardError::Malformed("more items than a run can have"));
        }
        let params_len = r.u32()? as usize;
        let params = String::from_utf8(r.take(params_len)?.to_vec())
            .map_err(|_| ShardError::Malformed("settings that are not UTF-8"))?;
        let n = r.u64()?;
        let mut items = Vec::new();
        let mut last = None;
        for _ in 0..n {
            let i = r.u64()?;
            if i >= total || !shard.owns(i) || last.is_some_and(|l| i <= l) {
                return Err(ShardError::Malformed(
                    "an item that is not the shard's or out of order",
                ));
            }
            last = Some(i);
            let len = r.u32()? as usize;
            items.push((i, r.take(len)?.to_vec()));
        }
        if !r.bytes.is_empty() {
            return Err(ShardError::Malformed("bytes after the last item"));
        }
        if items.len() as u64 != shard.len(total) {
            return Err(ShardError::Malformed("items missing"));
        }
        Ok(ShardFile {
            run: RunId {
                step,
                seed,
                total,
                params,
            },
            shard,
            items,
        })
    }

    /// Reads a shard file.
    pub fn read(path: &Path) -> Result<ShardFile, ShardError> {
        let bytes = std::fs::read(path).map_err(|e| ShardError::Unreadable(e.to_string()))?;
        ShardFile::from_bytes(&bytes)
    }

    /// Writes the shard into `dir` (created if needed) under [`ShardFile::name`], through a
    /// temporary file and a rename, so that the file is there whole or not at all. Returns
    /// its path.
    pub fn write_into(&self, dir: &Path) -> anyhow::Result<PathBuf> {
        use anyhow::Context;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(self.name());
        write_atomically(&path, &self.to_bytes())?;
        Ok(path)
    }

    /// [`ShardFile::write_into`], but a shard of another run already there under the same
    /// name (the same input labelled or searched with other settings or weights: file names
    /// tell runs apart by their seed or input alone) is refused, not replaced: a second run
    /// into the same directory would otherwise undo hours of the first one's work without a
    /// word. The same run's shard (a rerun) and a file that is not a readable shard are
    /// replaced.
    pub fn write_new_into(&self, dir: &Path) -> anyhow::Result<PathBuf> {
        self.check_place(dir)?;
        self.write_into(dir)
    }

    /// The refusal of [`ShardFile::write_new_into`] alone, for a step to call before its
    /// work (with no items yet) as well as at the write.
    pub fn check_place(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(self.name());
        if let Ok(there) = ShardFile::read(&path)
            && there.run != self.run
        {
            anyhow::bail!(
                "{} is a shard of another run ({}), not of this one ({}): remove it or choose \
                 another --shard-dir",
                path.display(),
                describe(&there.run),
                describe(&self.run)
            );
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename: a reader never
/// sees half of it, and a process killed midway leaves the old file (or none). A path that
/// is there and is not a regular file (`/dev/null`, a pipe) is written into as it is: a
/// rename would put a file in its place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::write(path, bytes)
            .with_context(|| format!("cannot write {}", path.display()));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}", path.display())
    })
}

/// A cursor over a shard's body.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ShardError> {
        if n > self.bytes.len() {
            return Err(ShardError::Malformed("a field runs past the end"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, ShardError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64, ShardError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

/// Why a set of shards cannot be merged: one line naming the file at fault.
#[derive(Debug)]
pub struct MergeError {
    /// The file at fault (for a missing shard: the file that should be there).
    pub path: PathBuf,
    /// What is wrong with it.
    pub why: String,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for MergeError {}

/// The shard files among `paths`: a file is taken as it is, a directory gives its
/// `*.shard` files; sorted by path, each once.
pub fn shard_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, MergeError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p).map_err(|e| MergeError {
                path: p.clone(),
                why: format!("cannot read the directory: {e}"),
            })?;
            for e in entries.flatten() {
                let path = e.path();
                let name = e.file_name();
                let name = name.to_string_lossy();
                if !name.starts_with('.') && path.extension().is_some_and(|x| x == EXTENSION) {
                    out.push(path);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// A whole run read back from its shards.
#[derive(Debug)]
pub struct Merged {
    /// The run.
    pub run: RunId,
    /// Its number of shards.
    pub count: u32,
    /// Every item's bytes, in item order.
    pub items: Vec<Vec<u8>>,
}

/// Reads a full set of shards of one run, in any order, and returns the run's items in order:
/// the same whatever the number of shards. The first fault is the error, naming its file: a
/// file that cannot be read, is truncated, damaged or of another format version, a shard of
/// another run, a shard given twice, or a missing one (named as the file that should be
/// there, beside the others).
pub fn collect(given: &[PathBuf]) -> Result<Merged, MergeError> {
    let paths = shard_paths(given)?;
    let mut shards: Vec<(PathBuf, ShardFile)> = Vec::with_capacity(paths.len());
    for p in paths {
        let s = ShardFile::read(&p).map_err(|e| MergeError {
            path: p.clone(),
            why: e.to_string(),
        })?;
        shards.push((p, s));
    }
    let Some((first_path, first)) = shards.first() else {
        return Err(MergeError {
            path: given.first().cloned().unwrap_or_else(|| PathBuf::from(".")),
            why: "no shard files (*.shard) there".into(),
        });
    };
    let (run, count) = (first.run.clone(), first.shard.count);
    let dir = first_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    for (p, s) in &shards[1..] {
        if s.run != run || s.shard.count != count {
            return Err(MergeError {
                path: p.clone(),
                why: format!(
                    "a shard of another run than {} ({} {}/{} with {}; this is {} {} with {})",
                    first_path.display(),
                    run.step,
                    first.shard.index,
                    count,
                    describe(&run),
                    s.run.step,
                    s.shard,
                    describe(&s.run)
                ),
            });
        }
    }
    shards.sort_by_key(|(_, s)| s.shard.index);
    for w in shards.windows(2) {
        if w[0].1.shard.index == w[1].1.shard.index {
            return Err(MergeError {
                path: w[1].0.clone(),
                why: format!(
                    "shard {} given twice (also {})",
                    w[1].1.shard,
                    w[0].0.display()
                ),
            });
        }
    }
    let mut present = shards.iter().map(|(_, s)| s.shard.index).peekable();
    for k in 0..count {
        if present.peek() == Some(&k) {
            present.next();
        } else {
            let shard = Shard { index: k, count };
            return Err(MergeError {
                path: dir.join(ShardFile::file_name(run.step, run.seed, shard)),
                why: format!("shard {shard} is missing"),
            });
        }
    }
    let mut slots: Vec<Option<Vec<u8>>> = vec![None; run.total as usize];
    for (_, s) in shards {
        for (i, bytes) in s.items {
            slots[i as usize] = Some(bytes);
        }
    }
    // Every shard holds all its items (checked when read), so every slot is filled.
    let items = slots.into_iter().map(Option::unwrap_or_default).collect();
    Ok(Merged { run, count, items })
}

/// A run's seed and settings, for an error.
fn describe(run: &RunId) -> String {
    format!("seed {}, {} items, {}", run.seed, run.total, run.params)
}

/// The shards of `0..count` that are not in `dir` as valid files of one run with `count`
/// shards: what a resubmission must run again. A directory holding valid shards of two runs
/// with `count` shards is an error naming a file of each (one directory a run: a merge of
/// it could only fail).
pub fn missing(dir: &Path, count: u32) -> Result<Vec<u32>, MergeError> {
    let mut good = vec![false; count as usize];
    let mut first: Option<(PathBuf, RunId)> = None;
    for p in shard_paths(&[dir.to_path_buf()])? {
        let Ok(s) = ShardFile::read(&p) else { continue };
        if s.shard.count != count {
            continue;
        }
        match &first {
            Some((path, run)) if *run != s.run => {
                return Err(MergeError {
                    why: format!(
                        "a shard of another run than {} ({}): one directory a run",
                        path.display(),
                        describe(run)
                    ),
                    path: p,
                });
            }
            Some(_) => {}
            None => first = Some((p.clone(), s.run.clone())),
        }
        good[s.shard.index as usize] = true;
    }
    Ok((0..count).filter(|&k| !good[k as usize]).collect())
}

/// The seed of a run of a step driven by its input (`solve`, `analyze`): the first 8 bytes of
/// the input's sha256, so that shards of different inputs do not merge.
pub fn input_seed(input: &[u8]) -> u64 {
    u64::from_le_bytes(Sha256::digest(input)[..8].try_into().expect("8 bytes"))
}

/// A seed from an identity of 64 hex digits ([`sha256_hex`]): its first 16 as a number.
pub fn hex_seed(id: &str) -> u64 {
    id.get(..16)
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .unwrap_or(0)
}

/// The value of `key` in a run's settings (`key=value` words).
pub fn param<'a>(params: &'a str, key: &str) -> Option<&'a str> {
    params
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

/// The sha256 of some bytes, as 64 hex digits (to name weights or inputs in a run's
/// settings).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The identity of a set of weights in a run's settings: the sha256 of all its values.
pub fn weights_id(w: &crate::eval::Weights) -> String {
    let mut bytes: Vec<u8> = (0..w.phases())
        .flat_map(|p| w.block(p).iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    // Weights with optional terms: their names and tables too (none: the same id as
    // before the terms existed).
    if !w.terms().is_empty() {
        bytes.extend_from_slice(w.terms().to_string().as_bytes());
        for p in 0..w.phases() {
            bytes.extend(w.terms_block(p).iter().flat_map(|v| v.to_le_bytes()));
        }
    }
    sha256_hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(total: u64) -> RunId {
        RunId {
            step: Step::Selfplay,
            seed: 7,
            total,
            params: "games=10 depth=2".into(),
        }
    }

    fn shard(k: u32, n: u32, total: u64) -> ShardFile {
        let s = Shard { index: k, count: n };
        ShardFile {
            run: run(total),
            shard: s,
            items: s.items(total).map(|i| (i, vec![i as u8; 3])).collect(),
        }
    }

    #[test]
    fn reads_settings() {
        assert_eq!(param("wld=0 json=1 hash_mb=4", "json"), Some("1"));
        assert_eq!(param("wld=0 json=1", "js"), None);
        assert_eq!(param("wld=0", "json"), None);
    }

    #[test]
    fn parses_shards() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("0/1".parse(), Ok(Shard::WHOLE));
        for bad in ["4/4", "1/0", "x", "1", "-1/3", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(
            Shard { index: 1, count: 3 }.items(8).collect::<Vec<_>>(),
            [1, 4, 7]
        );
    }

    #[test]
    fn round_trips_and_refuses_damage() {
        let s = shard(1, 3, 10);
        let bytes = s.to_bytes();
        assert_eq!(ShardFile::from_bytes(&bytes), Ok(s));
        let short = ShardFile::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(short.to_string().starts_with("truncated: "), "{short}");
        let mut long = bytes.clone();
        long.extend_from_slice(b"xyz");
        let long = ShardFile::from_bytes(&long).unwrap_err();
        assert!(long.to_string().starts_with("3 bytes too long: "), "{long}");
        let mut damaged = bytes.clone();
        damaged[30] ^= 1;
        assert_eq!(
            ShardFile::from_bytes(&damaged),
            Err(ShardError::BadChecksum)
        );
        let mut other = bytes.clone();
        other[8] = 9;
        assert_eq!(
            ShardFile::from_bytes(&other),
            Err(ShardError::OtherVersion(9))
        );
        assert_eq!(
            ShardFile::from_bytes(b"WTHOR..."),
            Err(ShardError::NotAShard)
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_into_not_replaced() {
        let dir = std::env::temp_dir().join(format!("outflank-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("out");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(
            made.is_ok_and(|s| s.success()),
            "mkfifo (coreutils) makes a pipe"
        );
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"merged").unwrap();
        assert_eq!(reader.join().unwrap(), b"merged");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn any_number_of_shards_merges_to_the_same_items() {
        let dir = std::env::temp_dir().join(format!("outflank-shard-{}", std::process::id()));
        let whole = |n: u32| {
            let d = dir.join(n.to_string());
            for k in 0..n {
                shard(k, n, 10).write_into(&d).unwrap();
            }
            collect(&[d]).unwrap().items
        };
        let one = whole(1);
        assert_eq!(one.len(), 10);
        assert_eq!(whole(3), one);
        assert_eq!(whole(4), one);
        let d = dir.join("4");
        std::fs::remove_file(d.join(ShardFile::file_name(
            Step::Selfplay,
            7,
            Shard { index: 2, count: 4 },
        )))
        .unwrap();
        let e = collect(std::slice::from_ref(&d)).unwrap_err();
        assert!(
            e.to_string()
                .contains("selfplay-seed7-2of4.shard: shard 2/4 is missing")
        );
        assert_eq!(missing(&d, 4).unwrap(), [2]);
        // A shard of another run (another seed) in the same directory: an error, not a
        // silent "nothing missing".
        let mut other = shard(2, 4, 10);
        other.run.seed = 8;
        other.write_into(&d).unwrap();
        let e = missing(&d, 4).unwrap_err().to_string();
        assert!(e.contains("a shard of another run"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_shard_of_another_run_under_the_same_name_is_not_replaced() {
        let dir = std::env::temp_dir().join(format!("outflank-shard-new-{}", std::process::id()));
        let first = shard(1, 4, 10);
        let path = first.write_new_into(&dir).unwrap();
        // The same run again: replaced.
        assert_eq!(first.write_new_into(&dir).unwrap(), path);
        // Other settings, the same seed, so the same file name: refused, the file untouched.
        let mut other = shard(1, 4, 10);
        other.run.params = "other settings".into();
        assert_eq!(other.name(), first.name());
        let e = other.write_new_into(&dir).unwrap_err().to_string();
        assert!(e.contains("a shard of another run"), "{e}");
        assert!(e.contains("other settings"), "{e}");
        assert_eq!(ShardFile::read(&path).unwrap().run, first.run);
        // Not a shard: replaced.
        std::fs::write(&path, b"junk").unwrap();
        other.write_new_into(&dir).unwrap();
        assert_eq!(ShardFile::read(&path).unwrap().run, other.run);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
