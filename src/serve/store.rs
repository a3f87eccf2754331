//! The games on disk: one SQLite table, a row a game holding its [`Record`] as JSON, written
//! after every change, so that a server restarted (or killed) mid-game resumes every game.

use super::record::Record;
use rusqlite::{Connection, params};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why the store failed.
#[derive(Debug)]
pub enum StoreError {
    /// The database's folder could not be made.
    Folder(PathBuf, std::io::Error),
    /// SQLite refused.
    Sqlite(rusqlite::Error),
    /// A record did not read or write as JSON.
    Json(serde_json::Error),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Folder(p, e) => write!(f, "cannot make folder {}: {e}", p.display()),
            StoreError::Sqlite(e) => write!(f, "game store: {e}"),
            StoreError::Json(e) => write!(f, "game store record: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sqlite(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Json(e)
    }
}

/// The games' database.
pub struct Store {
    conn: Mutex<Connection>,
}

/// The default database: `outflank/games.sqlite` in the user's data folder
/// (`$XDG_DATA_HOME`, else `~/.local/share`), or in the working folder when neither is set.
pub fn default_path() -> PathBuf {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("outflank").join("games.sqlite")
}

impl Store {
    /// Opens (or creates) the database at `path`, making its folder when missing.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Folder(dir.to_path_buf(), e))?;
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS games (
                id TEXT PRIMARY KEY,
                created INTEGER NOT NULL,
                finished INTEGER,
                data TEXT NOT NULL
            )",
        )?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `record` (a new game or a change).
    pub fn save(&self, record: &Record) -> Result<(), StoreError> {
        let data = serde_json::to_string(record)?;
        self.conn().execute(
            "INSERT INTO games (id, created, finished, data) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(id) DO UPDATE SET finished = excluded.finished, data = excluded.data",
            params![
                record.id,
                record.created as i64,
                record.finished.map(|f| f as i64),
                data
            ],
        )?;
        Ok(())
    }

    /// Every game kept, oldest first; a row that does not read is skipped with a warning.
    pub fn load(&self) -> Result<Vec<Record>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT id, data FROM games ORDER BY created, id")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut records = Vec::new();
        for row in rows {
            let (id, data) = row?;
            match serde_json::from_str(&data) {
                Ok(r) => records.push(r),
                Err(e) => log::warn!("game {id}: cannot read its record ({e}); skipped"),
            }
        }
        Ok(records)
    }
}
