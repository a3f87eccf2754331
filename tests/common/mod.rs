//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub mod requirements;

/// The options of a small `train all` run for the tests: no self-play, exact labels to 8
/// empties, 3 epochs, a probcut fit on a handful of positions.
pub const SMALL_TRAIN_ALL: &[&str] = &[
    "--selfplay-games",
    "0",
    "--exact-empties",
    "8",
    "--epochs",
    "3",
    "--probcut-positions",
    "8",
    "--probcut-end-positions",
    "4",
];

/// The shared data folder (see [`requirements::find_shared_data`]). A test that calls it
/// carries `#[cfg_attr(outflank_no_shared_data, ignore = "...")]`, so that it shows as ignored
/// where the data is missing; when it runs anyway (under `CI=true`, or the data went away
/// after the build) a missing folder fails it, naming the folder.
pub fn shared_data() -> PathBuf {
    requirements::find_shared_data(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|what| panic!("missing: {what}"))
}

/// A command's output bytes as text (invalid UTF-8 replaced).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `out`, after checking it exited with status 0 (else the failure shows its stderr).
pub fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out
}

/// A fresh, empty directory `outflank-<prefix>-<name>-<pid>` in the temporary folder.
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("outflank-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A bad input: exit status 2, one line on stderr that contains `needle`, no panic.
pub fn assert_clean_error(out: &Output, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(needle), "expected {needle:?} in {err:?}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Runs the binary under test with `args`.
pub fn outflank(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(args)
        .output()
        .expect("run outflank")
}

/// Runs the binary under test with `args`, `input` on its standard input.
pub fn outflank_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run outflank");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    child.wait_with_output().expect("wait")
}
