//! The terminal game's commands that leave the game as it is: `help`, `board`, `moves`,
//! `save FILE` (the game as GGF, [`super::record`]) and `set [KEY VALUE]`; each is answered,
//! then the prompt comes again.

use super::record::record;
use super::{Command, HELP, Session, Terminal};
use crate::notation::transcript;
use std::io;

impl Terminal {
    /// Answers one of `help`, `board`, `moves`, `save`, `set` (any other command is not
    /// this function's: nothing is said).
    pub(super) fn inform(&mut self, command: Command, session: &mut Session) -> io::Result<()> {
        match command {
            Command::Help => {
                session.line(HELP)?;
            }
            Command::Board => {
                self.show(session)?;
            }
            Command::Moves => {
                let t = transcript(self.ctl.game());
                session.line(if t.is_empty() { "(no move yet)" } else { &t })?;
            }
            Command::Save(path) => match self.save(&path) {
                Ok(()) => session.line(&format!("Saved to {path}."))?,
                Err(why) => session.line(&format!("Not saved: {why}."))?,
            },
            Command::Set(None) => {
                session.line(&self.ctl.options().describe())?;
            }
            Command::Set(Some((key, value))) => {
                match self.ctl.set_option(&key, &value, session) {
                    // The value as it now is (`10` for `level 10`, `none` for `time off`).
                    Ok(()) => {
                        let now = self.ctl.options().describe();
                        let prefix = format!("{key} ");
                        let line = now.lines().find(|l| l.starts_with(&prefix));
                        session.line(line.unwrap_or(&key))?
                    }
                    Err(why) => session.line(&format!("Not set: {why}."))?,
                }
            }
            _ => return Ok(()),
        }
        self.prompt(session)
    }

    /// Writes the game as GGF to `path`.
    fn save(&self, path: &str) -> Result<(), String> {
        let ggf = record(&self.ctl, &self.seats, self.time);
        std::fs::write(path, ggf.to_ggf() + "\n").map_err(|e| format!("cannot write {path}: {e}"))
    }
}
