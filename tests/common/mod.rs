//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The shared data folder: `$OUTFLANK_SHARED/data`, else `../shared/data` beside the crate.
/// `None` (after a note) when it is not there.
pub fn shared_data() -> Option<PathBuf> {
    let root = std::env::var_os("OUTFLANK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let data = root.join("data");
    if data.is_dir() {
        Some(data)
    } else {
        eprintln!("shared data not found, skipping ({})", data.display());
        None
    }
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
