//! Every line the client sends, without its line ending (the client adds `\n` and sends
//! the line and its newline in one write), one function each.

use super::{GameId, GameType, GgsClock};
use crate::board::Move;

/// The login name, bare (there is no `login` keyword).
pub fn login(name: &str) -> String {
    name.to_string()
}

/// The password line (never log it).
pub fn password(password: &str) -> String {
    password.to_string()
}

/// The set-up lines sent right after the password, as Edax and ODK do: no terminal
/// codes, no bells, no news, no `+ack` echoes, tell me when /os comes and goes, and the
/// Othello service as the default for `ts`.
pub fn setup() -> Vec<String> {
    [
        "vt100 -",
        "bell -t -tc -tg -n -nc -ng -ni -nn",
        "verbose -news -faq -help -ack",
        "notify + /os",
        "mso",
    ]
    .map(String::from)
    .to_vec()
}

/// The /os set-up once the service is up (`: + /os 1`): trust my times, verbose boards,
/// and accept up to `open` matches at once.
pub fn service_setup(open: u32) -> Vec<String> {
    vec![
        "tell /os trust +".to_string(),
        "tell /os client -".to_string(),
        self::open(open),
    ]
}

/// `tell /os open N`: at most `n` matches at once (0: watch only).
pub fn open(n: u32) -> String {
    format!("tell /os open {n}")
}

/// Accepts a request.
pub fn accept(id: &GameId) -> String {
    format!("tell /os accept {id}")
}

/// Declines a request.
pub fn decline(id: &GameId) -> String {
    format!("tell /os decline {id}")
}

/// A tell to a user (the reason of a decline, say).
pub fn tell(user: &str, text: &str) -> String {
    format!("tell {user} {text}")
}

/// Plays a move in a game (the child id in a synchro match): the square in lower case
/// or `pa`, the evaluation when there is one (2 decimals), and the seconds spent (2
/// decimals): `tell /os play .5 f5/3.00/1.27`, `tell /os play .5 pa//0.01`.
pub fn play(id: &GameId, mv: Move, eval: Option<f64>, seconds: f64) -> String {
    let mv = match mv {
        Move::Play(sq) => sq.name(),
        Move::Pass => "pa".to_string(),
    };
    let eval = eval
        .filter(|e| e.is_finite())
        .map(|e| format!("{e:.2}"))
        .unwrap_or_default();
    let seconds = if seconds.is_finite() {
        seconds.max(0.0)
    } else {
        0.0
    };
    format!("tell /os play {id} {mv}/{eval}/{seconds:.2}")
}

/// Asks `user` (or anyone, with `None`) for a match of `game_type` with `clock` for
/// both sides.
pub fn ask(game_type: &GameType, clock: &GgsClock, user: Option<&str>) -> String {
    match user {
        Some(u) => format!("tell /os ask {game_type} {clock} {u}"),
        None => format!("tell /os ask {game_type} {clock}"),
    }
}

/// Asks to resume a stored game.
pub fn ask_stored(id: &GameId) -> String {
    format!("tell /os ask {id}")
}

/// The keep-alive line.
pub fn keep_alive() -> String {
    "tell /os continue".to_string()
}

/// Logs out.
pub fn quit() -> String {
    "quit".to_string()
}
