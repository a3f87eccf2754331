//! Helpers shared by the integration tests.

use std::path::PathBuf;

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
