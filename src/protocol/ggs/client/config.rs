//! How the client runs ([`Config`]): the server, the login and its password ([`Secret`]),
//! which match requests it accepts ([`AcceptPolicy`]), the match it asks for ([`Ask`]), and
//! its limits (matches, retries, time-outs).

use super::super::games_file::GamesFile;
use super::super::message::{GameType, GgsClock, Rated, Request};
use crate::controller::Options;
use std::fmt;
use std::time::Duration;

/// A secret (the password): never shown by `Debug` or `Display`.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// Wraps `s`.
    pub fn new(s: String) -> Secret {
        Secret(s)
    }

    /// The secret itself.
    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<secret>")
    }
}

/// Which match requests the client accepts.
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptPolicy {
    /// Rated requests.
    pub rated: bool,
    /// Unrated requests.
    pub unrated: bool,
    /// Synchro matches (two games at once).
    pub synchro: bool,
    /// Random starts (`r<n>`).
    pub random: bool,
    /// The fewest seconds of main time a side may have.
    pub min_time: f64,
    /// The most seconds of main time a side may have.
    pub max_time: f64,
}

impl Default for AcceptPolicy {
    fn default() -> Self {
        AcceptPolicy {
            rated: true,
            unrated: true,
            synchro: true,
            random: true,
            min_time: 1.0,
            max_time: 24.0 * 3600.0,
        }
    }
}

impl AcceptPolicy {
    /// Whether to accept `r` (the reason when not). A stored game to resume is accepted.
    pub fn check(&self, r: &Request) -> Result<(), String> {
        if r.rated == Rated::Stored {
            return Ok(());
        }
        r.game_type.playable()?;
        let t = &r.game_type;
        if t.synchro && !self.synchro {
            return Err("I do not play synchro matches".into());
        }
        if t.random_discs.is_some() && !self.random {
            return Err("I do not play random starts".into());
        }
        match r.rated {
            Rated::Rated if !self.rated => return Err("I play unrated games only".into()),
            Rated::Unrated if !self.unrated => return Err("I play rated games only".into()),
            _ => {}
        }
        let clocks = std::iter::once(&r.challenger_clock).chain(r.challengee_clock.as_ref());
        for c in clocks {
            let main = c.main + c.extension;
            if main < self.min_time || main > self.max_time {
                return Err(format!(
                    "I play with {} to {} seconds on the clock, not {c}",
                    self.min_time, self.max_time
                ));
            }
        }
        Ok(())
    }
}

/// A match the client asks for after logging in (`--ask USER TYPE CLOCK`).
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    /// Whom to ask (`None`: anyone).
    pub user: Option<String>,
    /// The match type.
    pub game_type: GameType,
    /// The clock for both sides.
    pub clock: GgsClock,
}

/// How the client runs.
#[derive(Debug)]
pub struct Config {
    /// The server's host name.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The login.
    pub user: String,
    /// The password.
    pub password: Secret,
    /// Matches at once (`tell /os open N`).
    pub open: u32,
    /// The requests it accepts.
    pub accept: AcceptPolicy,
    /// A match to ask for, after each login and after each match ends.
    pub ask: Option<Ask>,
    /// Log out after this many matches have ended.
    pub matches: Option<usize>,
    /// Append each finished game to this file, one GGF game a line.
    pub games: Option<GamesFile>,
    /// The engine options.
    pub options: Options,
    /// The longest wait between two attempts to connect and log in.
    pub max_backoff: Duration,
    /// Give up after this many failed attempts in a row (`None`: never).
    pub retries: Option<u32>,
    /// An attempt that has not logged in this long after connecting fails.
    pub login_timeout: Duration,
    /// Send a keep-alive when nothing was sent for this long (GGS drops silent clients).
    pub keep_alive: Duration,
}
