//! The file the client appends each finished game to (`--games`), one GGF game a line, one
//! write a line (a kill leaves whole lines only). The caller opens it before the client
//! starts, so that a path that cannot be written is refused at once. A write that fails
//! loses a game: it is said at once on stderr, whatever the log level, and counted, so that
//! the run can end with an error.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The games file, open for appending.
#[derive(Debug)]
pub struct GamesFile {
    path: PathBuf,
    file: File,
    lost: usize,
}

impl GamesFile {
    /// `file`, opened for appending from `path` (named in errors).
    pub fn new(path: PathBuf, file: File) -> GamesFile {
        GamesFile {
            path,
            file,
            lost: 0,
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `line` (one GGF game, without its newline), the game `what` names; a failure
    /// is reported on stderr and counted.
    pub fn append(&mut self, line: &str, what: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        if let Err(e) = self.file.write_all(&bytes).and_then(|()| self.file.flush()) {
            self.lost += 1;
            eprintln!(
                "outflank: cannot write {what} to {}: {e} (the game is not saved; \
                 the run will end with exit status 2)",
                self.path.display()
            );
        }
    }

    /// How many games could not be written.
    pub fn lost(&self) -> usize {
        self.lost
    }
}
