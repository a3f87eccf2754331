//! What some tests need from outside the repository (the shared data sets, gtp-rhino, a
//! Slurm installation, a system that can refuse memory, Chromium), found the same way by the
//! build script and by the tests.
//!
//! The build script (`build.rs`) marks each missing requirement with a `cfg`, and a test that
//! needs it carries `#[cfg_attr(outflank_no_..., ignore = "...")]`: `cargo test` then lists it
//! as ignored, with the reason, in its summary instead of counting it as passed. Under
//! `CI=true` nothing is marked: the test runs and fails, naming what is missing. A test that
//! runs although its requirement is gone (removed after the build) fails the same way.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Whether this is a CI run (`CI=true`), where a missing requirement is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The shared data folder: `$OUTFLANK_SHARED/data` (or `$OUTFLANK_SHARED` itself when it is
/// the data folder, holding `ffo/`), else `../shared/data` beside the crate. `Err` names the
/// folder looked for.
pub fn find_shared_data(manifest_dir: &Path) -> Result<PathBuf, String> {
    let root = std::env::var_os("OUTFLANK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir.join("../shared"));
    let data = root.join("data");
    if data.is_dir() {
        Ok(data)
    } else if root.join("ffo").is_dir() {
        Ok(root)
    } else {
        Err(format!(
            "the shared data folder {} (set OUTFLANK_SHARED to the folder holding data/)",
            data.display()
        ))
    }
}

/// gtp-rhino (Debian package grhino): on `PATH`, or in `/usr/games` where Debian puts it.
pub fn find_gtp_rhino() -> Option<PathBuf> {
    find_program("gtp-rhino")
}

/// Chromium and its WebDriver server (Debian packages chromium and chromium-driver), for the
/// browser tests: `(chromium, chromedriver)`.
pub fn find_chromium() -> Option<(PathBuf, PathBuf)> {
    Some((find_program("chromium")?, find_program("chromedriver")?))
}

/// Whether Slurm's and munge's daemons are installed (Debian packages slurm-wlm and munge).
pub fn slurm_installed() -> bool {
    ["slurmctld", "slurmd", "munged"]
        .iter()
        .all(|p| find_program(p).is_some())
}

/// Whether the system promises any amount of memory (`vm.overcommit_memory` = 1), so that
/// no hash table size is ever refused.
pub fn overcommits_always() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() == "1")
}

/// A program on `PATH` or in the system folders Debian uses for daemons and games.
fn find_program(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/games", "/usr/sbin", "/sbin"].map(PathBuf::from));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}
