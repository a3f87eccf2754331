//! `outflank ggs`: play on GGS, the Generic Game Server's Othello service, as a bot.

use super::common::open_append;
use super::frontend::FrontendArgs;
use crate::protocol::ggs::{
    self, AcceptPolicy, Ask, Config, GameType, GamesFile, GgsClock, Secret,
};
use anyhow::Context;
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::time::Duration;

/// The environment variable that may hold the password.
pub const PASSWORD_ENV: &str = "OUTFLANK_GGS_PASSWORD";

/// Arguments of `outflank ggs`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The server.
    #[arg(long, default_value = "skatgame.net")]
    pub host: String,
    /// The server's port (GGS listens on 5000 and 4000).
    #[arg(long, default_value_t = 5000)]
    pub port: u16,
    /// The login (2-8 characters).
    #[arg(long, value_name = "NAME")]
    pub user: String,
    /// A file whose first line is the password (else the environment variable
    /// OUTFLANK_GGS_PASSWORD; never on the command line).
    #[arg(long, value_name = "PATH")]
    pub password_file: Option<PathBuf>,
    /// Matches at once (`tell /os open N`; a synchro match is one match of two games).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub open: u32,
    /// Ask for a match after logging in and after each match: USER (`*` for anyone), TYPE
    /// (`8`, `s8`, `s8r20`, ...), CLOCK (`05:00//02:00`).
    #[arg(long, num_args = 3, value_names = ["USER", "TYPE", "CLOCK"])]
    pub ask: Option<Vec<String>>,
    /// Log out after this many matches have ended.
    #[arg(long, value_name = "N")]
    pub matches: Option<usize>,
    /// Which requests to accept by their rating flag.
    #[arg(long, value_name = "any|rated|unrated", default_value = "any",
          value_parser = ["any", "rated", "unrated"])]
    pub rated: String,
    /// Decline synchro matches.
    #[arg(long)]
    pub no_synchro: bool,
    /// Decline random starts (`r<n>` types).
    #[arg(long)]
    pub no_random: bool,
    /// Decline a clock (main time and extension) shorter than this, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub min_time: f64,
    /// Decline a clock longer than this, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 86400.0)]
    pub max_time: f64,
    /// Append each finished game to this file as GGF, one game a line. It is opened at
    /// start: a path that cannot be written is refused (exit status 2); a game that cannot
    /// be written later is an error on stderr, and the run ends with exit status 2.
    #[arg(long, value_name = "FILE")]
    pub games: Option<PathBuf>,
    /// Give up after N failed attempts in a row to connect and log in (refused, closed
    /// before the login, no login within --login-timeout, not a GGS server), with one line
    /// on stderr and exit status 2; only a successful login resets the count (default:
    /// never give up).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub retries: Option<u32>,
    /// The longest wait between two attempts, in seconds: the first wait is 1 s, and it
    /// doubles after each failed attempt up to this.
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_backoff: u64,
    /// An attempt fails when the login prompt, then a successful login, has not come
    /// within this many seconds of connecting.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub login_timeout: f64,
    /// Send a keep-alive (`tell /os continue`) after this many seconds without a line sent.
    #[arg(long, value_name = "SECONDS", default_value_t = 50,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_alive: u64,
    /// Engine options.
    #[command(flatten)]
    pub engine: FrontendArgs,
}

/// The password: the first line of `--password-file`, else the environment variable.
fn password(a: &Args) -> anyhow::Result<Secret> {
    let text = match &a.password_file {
        Some(p) => std::fs::read_to_string(p)
            .with_context(|| format!("--password-file {}", p.display()))?
            .lines()
            .next()
            .unwrap_or("")
            .to_string(),
        None => std::env::var(PASSWORD_ENV).map_err(|_| {
            anyhow::anyhow!("no password: give --password-file or set {PASSWORD_ENV}")
        })?,
    };
    anyhow::ensure!(!text.trim().is_empty(), "the password is empty");
    Ok(Secret::new(text.trim().to_string()))
}

/// The `--ask` values.
fn ask(values: &[String]) -> anyhow::Result<Ask> {
    let [user, kind, clock] = values else {
        anyhow::bail!("--ask wants USER TYPE CLOCK");
    };
    let game_type: GameType = kind
        .parse()
        .map_err(|e| anyhow::anyhow!("--ask: game type {kind:?}: {e}"))?;
    game_type
        .playable()
        .map_err(|e| anyhow::anyhow!("--ask {kind}: {e}"))?;
    let clock: GgsClock = clock
        .parse()
        .map_err(|e| anyhow::anyhow!("--ask: clock {clock:?}: {e}"))?;
    Ok(Ask {
        user: (user != "*").then(|| user.clone()),
        game_type,
        clock,
    })
}

/// Runs `outflank ggs` until it logs out.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let user = a.user.trim().to_string();
    anyhow::ensure!(
        (2..=8).contains(&user.chars().count())
            && !user.starts_with(['.', '_'])
            && user
                .chars()
                .all(|c| c.is_ascii_graphic() && c != ',' && c != '\\'),
        "--user {user:?}: a GGS login has 2-8 characters, not starting with . or _, without , or \\"
    );
    anyhow::ensure!(
        a.min_time >= 0.0 && a.min_time <= a.max_time,
        "--min-time must be at most --max-time"
    );
    anyhow::ensure!(
        a.login_timeout.is_finite() && a.login_timeout > 0.0 && a.login_timeout <= 86400.0,
        "--login-timeout must be more than 0 and at most 86400 seconds"
    );
    let password = password(&a)?;
    let ask = a.ask.as_deref().map(ask).transpose()?;
    let games = match &a.games {
        Some(p) => Some(GamesFile::new(p.clone(), open_append(p)?)),
        None => None,
    };
    let config = Config {
        host: a.host.clone(),
        port: a.port,
        user,
        password,
        open: a.open,
        accept: AcceptPolicy {
            rated: a.rated != "unrated",
            unrated: a.rated != "rated",
            synchro: !a.no_synchro,
            random: !a.no_random,
            min_time: a.min_time,
            max_time: a.max_time,
        },
        ask,
        matches: a.matches,
        games,
        options: a.engine.options()?,
        max_backoff: Duration::from_secs(a.max_backoff),
        retries: a.retries,
        login_timeout: Duration::from_secs_f64(a.login_timeout),
        keep_alive: Duration::from_secs(a.keep_alive),
    };
    ggs::run(config)?;
    Ok(0)
}
