//! A small GGS server for the tests, in the test process: a thread accepting connections on
//! 127.0.0.1, a thread per connection, and a ticker thread that moves the server's own
//! opponent (the "bot") and runs the clocks. It speaks the server's side of GGS's Othello
//! service `/os` as `docs/ggs.md` (shared folder) documents it:
//!
//! - login: a banner, `: Enter login (yours, or one you'd like to use).`, `: Enter your
//!   password.`; a wrong password (or a name in use) gets one `:` line and the connection is
//!   closed; a good one gets `READY` at once, then READY-terminated blocks (motd, news, faq)
//!   and `: + /os 1` (at login, or when the client sends `notify + /os`);
//! - every message is sent with CR LF line ends, after a blank line, and followed by
//!   `READY`;
//! - match requests `/os: +  .19 1735.1 sparring 05:00//02:00        8 U 1345.6 me`, the
//!   withdrawal `/os: -  .19 ...` when accepted or declined, `/os: + match`, a `join` per
//!   game in the verbose `client -` form, an `update` after every move (the client's too),
//!   `/os: end .N.k ( a vs. b ) score` for each game of a synchro match and `/os: - match
//!   ... result` at the end;
//! - the clocks: the server times each move; the main time may go negative (`/os: timeout
//!   .ID name` is sent when it does, and the player's result is then at best -1), and when
//!   the extension is spent too the game ends at once (`/os: fatal-timeout .ID name`), lost
//!   -64 by the player out of time (result suffix `:t`);
//! - `tell /os play .ID MOVE[/EVAL[/SECONDS]]` (`ts play ...`, `t /os play ...` too), an
//!   explicit pass (`pa`, `PA`, `pass`) is required; an illegal or out-of-turn move gets
//!   `/os: error .ID illegal move`; `tell /os ask TYPE [CLOCK [CLOCK]] [USER]` and `tell /os
//!   ask .ID` (a stored game), which the bot accepts; `tell /os continue`; `quit`;
//! - a dropped connection (or `quit`) adjourns the unfinished games of its matches: they
//!   are stored under the match id, and resume, through `tell /os ask .ID` or an `S`
//!   request the server offers, with a `join` that carries the moves so far.
//!
//! Choices where ggs.md leaves things open (UNCONFIRMED there): the match line lists the
//! challenger first; scores in `end` and `- match` lines are from the first-listed player's
//! side (a synchro match's is the average of its two games); with a plain type the
//! challenger is black (`b`/`w` give the challenger's colour; an offer may set the client's);
//! child `.N.0` has the first-listed player black, `.N.1` white; the match id differs from
//! the request id; the board of a finished game still shows a `to move` line; a `join` with
//! moves has `|N move(s)`, the start block (clock lines, board, `to move`), the moves
//! `|  k: mv/eval/time`, then the current block.
//!
//! Everything is recorded for the test: every line each side sent ([`FakeGgs::log`]), the
//! finished games ([`FinishedGame`]), the match results. No read or write waits without a
//! timeout.
//!
//! [`not_ggs`] has listeners that are not GGS servers (silent, closing at once, sending
//! junk), for the client's login deadline and retries.

#![allow(dead_code)]

pub mod not_ggs;

use outflank::{Color, Game, Move, Position, Square};
use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The longest client line the server reads, in bytes; longer ones are dropped.
pub const MAX_CLIENT_LINE: usize = 64 * 1024;

/// How the server's own opponent picks its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotPolicy {
    /// The first legal move (a1, b1, ... order).
    First,
    /// A random legal move, from this seed.
    Random(u64),
}

/// A clock setting in seconds: main time, increment, extension.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestClock {
    /// Main time, seconds.
    pub main: f64,
    /// Added after each move, seconds.
    pub increment: f64,
    /// Overtime once the main time is spent, seconds.
    pub extension: f64,
}

impl TestClock {
    /// A clock from its three parts in seconds.
    pub fn secs(main: f64, increment: f64, extension: f64) -> TestClock {
        TestClock {
            main,
            increment,
            extension,
        }
    }

    /// The GGS form: `05:00//02:00`, `00:10/00:01/00:05`.
    pub fn ggs(&self) -> String {
        let part = |s: f64| {
            if s == 0.0 {
                String::new()
            } else {
                time_text(s)
            }
        };
        format!(
            "{}/{}/{}",
            time_text(self.main),
            part(self.increment),
            part(self.extension)
        )
    }

    /// Reads `[[HH:]MM:]SS` fields separated by `/` (empty fields 0; `,` suffixes ignored).
    pub fn parse(s: &str) -> Option<TestClock> {
        let fields: Vec<&str> = s.split('/').collect();
        if fields.is_empty() || fields.len() > 3 || fields[0].is_empty() {
            return None;
        }
        let mut v = [0.0; 3];
        for (i, f) in fields.iter().enumerate() {
            let f = f.split(',').next().unwrap_or("");
            if f.is_empty() {
                continue;
            }
            let mut total = 0.0;
            for p in f.split(':') {
                if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                    return None;
                }
                total = total * 60.0 + p.parse::<f64>().ok()?;
            }
            v[i] = total;
        }
        Some(TestClock::secs(v[0], v[1], v[2]))
    }
}

/// `MM:SS`, `HH:MM:SS`, with `-` when negative (whole seconds, cut).
fn time_text(secs: f64) -> String {
    let sign = if secs <= -1.0 { "-" } else { "" };
    let t = secs.abs().min(1e9) as u64;
    let (h, m, s) = (t / 3600, (t / 60) % 60, t % 60);
    if h > 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else {
        format!("{sign}{m:02}:{s:02}")
    }
}

/// The server's settings.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Registered logins and their passwords.
    pub users: Vec<(String, String)>,
    /// Whether a name that is not registered may log in (with any password).
    pub allow_unregistered: bool,
    /// The server's own opponent's login.
    pub bot_name: String,
    /// Its rating.
    pub bot_rating: f64,
    /// The rating shown for every other login.
    pub user_rating: f64,
    /// How the bot picks its moves.
    pub bot: BotPolicy,
    /// How long the bot thinks before each move.
    pub bot_delay: Duration,
    /// Whether the bot accepts the requests addressed to it (or to anyone).
    pub bot_accepts_asks: bool,
    /// Whether `: + /os 1` is sent at login (else only after `notify + /os`).
    pub service_up_on_login: bool,
    /// Whether the bot offers (`S` request) to resume a user's stored games at login.
    pub offer_stored_on_login: bool,
    /// A client silent (nothing sent) this long is disconnected.
    pub idle_timeout: Option<Duration>,
    /// The clock of the bot's asks and offers when the test gives none.
    pub default_clock: TestClock,
    /// Seed for random starts (`r<n>` types).
    pub seed: u64,
    /// Clock lines as `name(rating mark)` with no space when the name has 8 characters
    /// (whether GGS does so is unconfirmed; by default one space is left, as in ggs.md's
    /// sample `alice    (1720.0 *)`).
    pub tight_names: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            users: vec![("outflank".to_string(), "secret".to_string())],
            allow_unregistered: false,
            bot_name: "sparring".to_string(),
            bot_rating: 1735.1,
            user_rating: 1345.6,
            bot: BotPolicy::First,
            bot_delay: Duration::from_millis(5),
            bot_accepts_asks: true,
            service_up_on_login: true,
            offer_stored_on_login: false,
            idle_timeout: None,
            default_clock: TestClock::secs(300.0, 0.0, 120.0),
            seed: 1,
            tight_names: false,
        }
    }
}

/// A match request the bot makes to a user ([`FakeGgs::offer`]).
#[derive(Clone, Debug)]
pub struct Offer {
    /// The type: `8`, `s8`, `s8r20`, `8k`, ...
    pub game_type: String,
    /// The clock of both sides.
    pub clock: TestClock,
    /// Rated (`R`) or not (`U`).
    pub rated: bool,
    /// The user's colour in a non-synchro game (else the bot, who asks, is black unless the
    /// type says `b`/`w`).
    pub client_color: Option<Color>,
    /// The start position, instead of the usual one (or the type's random one): a position
    /// near the end makes a short game, one where a side must pass tests passes.
    pub start: Option<Position>,
}

impl Offer {
    /// An unrated offer of `game_type` with `clock`, colours by the type.
    pub fn new(game_type: &str, clock: TestClock) -> Offer {
        Offer {
            game_type: game_type.to_string(),
            clock,
            rated: false,
            client_color: None,
            start: None,
        }
    }
}

/// A fault to inject into a user's connection ([`FakeGgs::inject`]).
#[derive(Clone, Debug)]
pub enum Fault {
    /// These bytes as they are.
    Raw(Vec<u8>),
    /// A line of this many `x` bytes, then CR LF and READY.
    HugeLine(usize),
    /// A line of binary junk (NULs, invalid UTF-8, control characters), then READY.
    Junk,
    /// An update for the user's first running game with a board row missing.
    MalformedUpdate,
    /// A well-formed update for a game id nobody plays.
    UnknownGameUpdate,
    /// `/os: error .ID illegal move` for the user's first running game, out of the blue.
    ErrorIllegalMove,
    /// The connection closed by the server (its games are adjourned).
    Disconnect,
}

/// A game that ended (not adjourned).
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    /// Its id (`.N`, or `.N.k` in a synchro match).
    pub id: String,
    /// Its match's id.
    pub match_id: String,
    /// Black's login.
    pub black: String,
    /// White's login.
    pub white: String,
    /// The start position.
    pub start: Position,
    /// Every move, passes included (those before an adjournment too).
    pub moves: Vec<Move>,
    /// The score the server gave, from black's side, time penalties included.
    pub black_score: i32,
    /// The score on the board (empties to the winner), from black's side.
    pub board_score: i32,
    /// Who lost on time (the extension spent too), if anyone.
    pub timed_out: Option<Color>,
    /// Who went past the main time (into the extension).
    pub over_time: Vec<Color>,
    /// How many times the server answered a move of this game with `/os: error`.
    pub errors: usize,
    /// The komi of a komi game: black wins when `board_score` is above it.
    pub komi: Option<f64>,
    /// The main time each side had left at the end (black's, white's), in seconds; below
    /// zero once into the extension.
    pub main_left: [f64; 2],
}

impl FinishedGame {
    /// The colour `name` played.
    pub fn color_of(&self, name: &str) -> Option<Color> {
        if self.black == name {
            Some(Color::Black)
        } else if self.white == name {
            Some(Color::White)
        } else {
            None
        }
    }
}

/// One line sent by one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// The connection's number (1 for the first).
    pub conn: usize,
    /// The login on it, once logged in.
    pub user: Option<String>,
    /// True for a line the client sent, false for one the server sent.
    pub from_client: bool,
    /// The line (long or binary lines summarised).
    pub text: String,
}

/// What a test looks at while waiting ([`FakeGgs::wait_until`]).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The logins connected now.
    pub logged_in: Vec<String>,
    /// How many connections were opened so far.
    pub connections: usize,
    /// How many logins succeeded so far.
    pub logins: usize,
    /// The games that ended.
    pub finished: Vec<FinishedGame>,
    /// The ids of the games being played.
    pub playing: Vec<String>,
    /// The ids of the stored (adjourned) matches.
    pub stored: Vec<String>,
    /// Ended matches: their id and the result text of their `- match` line.
    pub match_results: Vec<(String, String)>,
    /// Requests waiting for an answer: their ids.
    pub requests: Vec<String>,
    /// Every line.
    pub log: Vec<LogLine>,
}

impl Snapshot {
    /// The lines `user` sent, in order.
    pub fn client_lines(&self, user: &str) -> Vec<String> {
        self.log
            .iter()
            .filter(|l| l.from_client && l.user.as_deref() == Some(user))
            .map(|l| l.text.clone())
            .collect()
    }

    /// The lines sent to `user` (once logged in), in order.
    pub fn server_lines(&self, user: &str) -> Vec<String> {
        self.log
            .iter()
            .filter(|l| !l.from_client && l.user.as_deref() == Some(user))
            .map(|l| l.text.clone())
            .collect()
    }
}

/// The running server; stopped when dropped.
pub struct FakeGgs {
    port: u16,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    stop: AtomicBool,
}

struct Conn {
    user: Option<String>,
    out: Sender<Vec<u8>>,
    stream: TcpStream,
    last_heard: Instant,
    announced: bool,
}

#[derive(Clone)]
struct Req {
    id: String,
    challenger: String,
    challengee: Option<String>,
    clock: TestClock,
    game_type: String,
    rated: char,
    /// The stored match to resume.
    stored: Option<String>,
    /// Whether the challenger is black (the first game of a synchro match).
    challenger_black: bool,
    /// A start position chosen by the test.
    start: Option<Position>,
}

#[derive(Clone)]
struct ClockState {
    main: f64,
    increment: f64,
    extension: f64,
    moves: u32,
    over: bool,
}

impl ClockState {
    fn new(c: TestClock) -> ClockState {
        ClockState {
            main: c.main,
            increment: c.increment,
            extension: c.extension,
            moves: 0,
            over: false,
        }
    }

    fn text(&self) -> String {
        let inc = if self.increment == 0.0 {
            String::new()
        } else {
            time_text(self.increment)
        };
        format!(
            "{},{}:0/{}/{},{}:0",
            time_text(self.main),
            self.moves,
            inc,
            time_text(self.extension),
            self.moves
        )
    }
}

#[derive(Clone)]
struct GameState {
    id: String,
    /// Black, white.
    players: [String; 2],
    game: Game,
    /// Each move's `mv/eval/time` text.
    records: Vec<String>,
    /// Black's, white's.
    clocks: [ClockState; 2],
    turn_started: Instant,
    timed_out: Option<Color>,
    errors: usize,
    done: bool,
    /// A komi game (`k` in its type): the players bid before the first move.
    komi_game: bool,
    /// The komi, once both bids are in.
    komi: Option<f64>,
    /// The bids so far: who, the first move, the result expected for black.
    bids: Vec<(String, Move, f64)>,
}

impl GameState {
    fn to_move_name(&self) -> &str {
        &self.players[idx(self.game.to_move())]
    }
}

struct Match {
    id: String,
    /// In the server's order (the challenger first).
    players: [String; 2],
    game_type: String,
    rated: char,
    clock: TestClock,
    games: Vec<GameState>,
}

struct Stored {
    id: String,
    players: [String; 2],
    game_type: String,
    clock: TestClock,
    games: Vec<GameState>,
}

struct State {
    config: ServerConfig,
    next_id: u64,
    next_conn: usize,
    connections: usize,
    logins: usize,
    conns: HashMap<usize, Conn>,
    requests: Vec<Req>,
    matches: Vec<Match>,
    stored: Vec<Stored>,
    finished: Vec<FinishedGame>,
    match_results: Vec<(String, String)>,
    log: Vec<LogLine>,
    rng: u64,
}

fn idx(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

fn color_of(i: usize) -> Color {
    if i == 0 { Color::Black } else { Color::White }
}

fn mark(c: Color) -> char {
    match c {
        Color::Black => '*',
        Color::White => 'O',
    }
}

fn score_text(s: f64) -> String {
    if s == 0.0 {
        "0.00".to_string()
    } else {
        format!("{s:+.2}")
    }
}

/// A summary of a line for the log: long or binary lines are not kept whole.
fn summary(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let clean = !text.contains('\u{fffd}')
        && text
            .chars()
            .all(|c| !c.is_control() || c == '\t' || c == '\x07');
    if bytes.len() <= 1000 && clean {
        text.into_owned()
    } else {
        format!("<{} bytes of junk>", bytes.len())
    }
}

impl State {
    fn rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn new_id(&mut self) -> String {
        self.next_id += 1;
        format!(".{}", self.next_id)
    }

    fn rating(&self, name: &str) -> f64 {
        if name == self.config.bot_name {
            self.config.bot_rating
        } else {
            self.config.user_rating
        }
    }

    fn conn_of(&self, user: &str) -> Option<usize> {
        self.conns
            .iter()
            .find(|(_, c)| c.user.as_deref() == Some(user))
            .map(|(&id, _)| id)
    }

    fn is_bot(&self, name: &str) -> bool {
        name == self.config.bot_name
    }

    /// Queues raw bytes on a connection, logging `lines`.
    fn write(&mut self, conn: usize, bytes: Vec<u8>, lines: Vec<String>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let user = c.user.clone();
        let _ = c.out.send(bytes);
        for text in lines {
            self.log.push(LogLine {
                conn,
                user: user.clone(),
                from_client: false,
                text,
            });
        }
    }

    /// Sends lines as they are, CR LF after each.
    fn send_lines(&mut self, conn: usize, lines: &[String]) {
        let mut bytes = Vec::new();
        for l in lines {
            bytes.extend_from_slice(l.as_bytes());
            bytes.extend_from_slice(b"\r\n");
        }
        self.write(conn, bytes, lines.to_vec());
    }

    /// Sends a message: a blank line, its lines, READY.
    fn send_msg(&mut self, conn: usize, lines: &[String]) {
        let mut all = vec![String::new()];
        all.extend_from_slice(lines);
        all.push("READY".to_string());
        self.send_lines(conn, &all);
    }

    /// Sends a message to a user, if connected.
    fn tell_user(&mut self, user: &str, lines: &[String]) {
        if let Some(c) = self.conn_of(user) {
            self.send_msg(c, lines);
        }
    }

    fn request_line(&self, sign: char, r: &Req) -> String {
        let opp = match &r.challengee {
            Some(n) => format!(" {:.1} {}", self.rating(n), n),
            None => String::new(),
        };
        format!(
            "/os: {sign}  {} {:.1} {} {} {:>8} {}{}",
            r.id,
            self.rating(&r.challenger),
            r.challenger,
            r.clock.ggs(),
            r.game_type,
            r.rated,
            opp
        )
    }

    fn match_line(&self, sign: char, m: &Match, result: &str) -> String {
        let mut s = format!(
            "/os: {sign} match {} {:.0} {} {:.0} {} {} {}",
            m.id,
            self.rating(&m.players[0]),
            m.players[0],
            self.rating(&m.players[1]),
            m.players[1],
            m.game_type,
            m.rated
        );
        if !result.is_empty() {
            s.push(' ');
            s.push_str(result);
        }
        s
    }

    fn block(
        &self,
        g: &GameState,
        pos: &Position,
        clocks: &[ClockState; 2],
        order: &[String; 2],
    ) -> Vec<String> {
        let mut lines = Vec::new();
        for name in order {
            let i = if g.players[0] == *name { 0 } else { 1 };
            let gap = if self.config.tight_names { "" } else { " " };
            lines.push(format!(
                "|{:<8}{gap}({:.1} {}) {}",
                name,
                self.rating(name),
                mark(color_of(i)),
                clocks[i].text()
            ));
        }
        lines.push("|".to_string());
        lines.push("|   A B C D E F G H".to_string());
        for row in 0..8u8 {
            let mut l = format!("| {}", row + 1);
            for col in 0..8u8 {
                let c = match Square::from_coords(col, row).and_then(|sq| pos.at(sq)) {
                    Some(Color::Black) => '*',
                    Some(Color::White) => 'O',
                    None => '-',
                };
                l.push(' ');
                l.push(c);
            }
            l.push_str(&format!(" {}", row + 1));
            lines.push(l);
        }
        lines.push("|   A B C D E F G H".to_string());
        lines.push("|".to_string());
        lines.push(format!("|{} to move", mark(pos.to_move)));
        lines
    }

    fn board_msg(
        &self,
        g: &GameState,
        game_type: &str,
        order: &[String; 2],
        join: bool,
    ) -> Vec<String> {
        let kind = if join { "join" } else { "update" };
        let komi = g.komi.map_or("K?".to_string(), |k| format!("K{k:.2}"));
        let mut lines = vec![format!("/os: {kind} {} {game_type} {komi}", g.id)];
        let n = g.game.len();
        if join {
            lines.push(format!("|{n} move(s)"));
            if n == 0 {
                lines.push("|  0: PASS".to_string());
            } else {
                lines.extend(self.block(g, &g.game.start(), &g.clocks, order));
                for (k, r) in g.records.iter().enumerate() {
                    lines.push(format!("|{:3}: {r}", k + 1));
                }
            }
        } else if let Some(r) = g.records.last() {
            lines.push(format!("|{n:3}: {r}"));
        }
        lines.extend(self.block(g, &g.game.position(), &g.clocks, order));
        lines
    }

    fn find_game(&self, id: &str) -> Option<(usize, usize)> {
        for (mi, m) in self.matches.iter().enumerate() {
            for (gi, g) in m.games.iter().enumerate() {
                if g.id == id {
                    return Some((mi, gi));
                }
            }
        }
        None
    }

    /// A random start with `discs` discs (fewer if 1000 tries do not reach it).
    fn random_start(&mut self, discs: u32) -> Position {
        let discs = discs.clamp(4, 60);
        let mut fallback = Position::start();
        for _ in 0..1000 {
            let mut pos = Position::start();
            while (pos.black() | pos.white()).count_ones() < discs {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(self.rand() % moves.len() as u64) as usize];
                pos = match pos.play(m) {
                    Ok(p) => p,
                    Err(_) => break,
                };
            }
            if !pos.legal_moves().is_empty() {
                if (pos.black() | pos.white()).count_ones() == discs {
                    return pos;
                }
                fallback = pos;
            }
        }
        fallback
    }

    /// Starts the match a request asked for (the request is withdrawn first).
    fn start_match(&mut self, r: Req) {
        self.requests.retain(|x| x.id != r.id);
        let Some(challengee) = r.challengee.clone() else {
            return;
        };
        let withdraw = self.request_line('-', &r);
        for u in [r.challenger.clone(), challengee.clone()] {
            self.tell_user(&u, std::slice::from_ref(&withdraw));
        }
        let id = self.new_id();
        let mut players = [r.challenger.clone(), challengee.clone()];
        let now = Instant::now();
        let games: Vec<GameState> = if let Some(sid) = &r.stored {
            let Some(pos) = self.stored.iter().position(|s| s.id == *sid) else {
                return;
            };
            let s = self.stored.remove(pos);
            players = s.players;
            s.games
                .into_iter()
                .map(|mut g| {
                    // `.20.1` becomes `.31.1`, `.20` becomes `.31`.
                    let child = g.id[1..].find('.').map_or("", |i| &g.id[i + 1..]);
                    g.id = format!("{id}{child}");
                    g.turn_started = now;
                    g
                })
                .collect()
        } else {
            let synchro = r.game_type.starts_with('s');
            let random = r
                .game_type
                .split_once('r')
                .map(|(_, n)| n.trim_end_matches(['b', 'w']));
            let start = match (r.start, random) {
                (Some(p), _) => p,
                (None, Some(n)) => self.random_start(n.parse().unwrap_or(4)),
                (None, None) => Position::start(),
            };
            let first = if r.challenger_black {
                [r.challenger.clone(), challengee.clone()]
            } else {
                [challengee.clone(), r.challenger.clone()]
            };
            let new_game = |gid: String, players: [String; 2]| GameState {
                id: gid,
                players,
                game: Game::new(start),
                records: Vec::new(),
                clocks: [ClockState::new(r.clock), ClockState::new(r.clock)],
                turn_started: now,
                timed_out: None,
                errors: 0,
                done: false,
                komi_game: r.game_type.contains('k'),
                komi: None,
                bids: Vec::new(),
            };
            if synchro {
                let swapped = [first[1].clone(), first[0].clone()];
                vec![
                    new_game(format!("{id}.0"), first),
                    new_game(format!("{id}.1"), swapped),
                ]
            } else {
                vec![new_game(id.clone(), first)]
            }
        };
        let m = Match {
            id,
            players: players.clone(),
            game_type: r.game_type.clone(),
            rated: if r.rated == 'S' { 'U' } else { r.rated },
            clock: r.clock,
            games,
        };
        let start_line = self.match_line('+', &m, "");
        for u in &players {
            self.tell_user(u, std::slice::from_ref(&start_line));
        }
        for g in &m.games {
            let msg = self.board_msg(g, &m.game_type, &m.players, true);
            for u in &players {
                self.tell_user(u, &msg);
            }
        }
        self.matches.push(m);
        // The bot bids at once in a komi game: its first legal move, a result of 0.
        let mi = self.matches.len() - 1;
        let bot = self.config.bot_name.clone();
        for gi in 0..self.matches[mi].games.len() {
            let g = &self.matches[mi].games[gi];
            if g.komi_game
                && g.komi.is_none()
                && self.matches[mi].players.contains(&bot)
                && let Some(&mv) = g.game.position().legal_moves().first()
            {
                self.bid(mi, gi, &bot, mv, 0.0);
            }
        }
    }

    /// A bid of a komi game: `user`'s first move and the result it expects for black. Once
    /// both are in, the komi is their mean, the higher bidder plays black (the first-listed
    /// player on a tie) with its move played, and a fresh `join` goes to both players.
    fn bid(&mut self, mi: usize, gi: usize, user: &str, mv: Move, eval: f64) {
        let first = self.matches[mi].players[0].clone();
        let g = &mut self.matches[mi].games[gi];
        if g.bids.iter().any(|b| b.0 == user) || g.game.position().play(mv).is_err() {
            g.errors += 1;
            let line = format!("/os: error {} illegal move", g.id);
            self.tell_user(user, &[line]);
            return;
        }
        g.bids.push((user.to_string(), mv, eval));
        if g.bids.len() < 2 {
            return;
        }
        let (a, b) = (g.bids[0].clone(), g.bids[1].clone());
        let komi = (a.2 + b.2) / 2.0;
        let a_black = a.2 > b.2 || (a.2 == b.2 && a.0 == first);
        let (black, white) = if a_black { (a, b) } else { (b, a) };
        g.players = [black.0.clone(), white.0.clone()];
        g.komi = Some(komi);
        if g.game.play(black.1).is_err() {
            return;
        }
        g.records.push(format!("{}/{:.2}/0.00", black.1, black.2));
        g.clocks[0].moves += 1;
        g.turn_started = Instant::now();
        let m = &self.matches[mi];
        let msg = self.board_msg(&m.games[gi], &m.game_type, &m.players, true);
        for u in m.players.clone() {
            self.tell_user(&u, &msg);
        }
    }

    /// Plays `mv` (text `mv[/eval[/time]]`) for `user` in game `gid`.
    fn play(&mut self, user: &str, gid: &str, text: &str) {
        let Some((mi, gi)) = self.find_game(gid) else {
            self.tell_user(user, &[format!("/os: error {gid} unknown game")]);
            return;
        };
        let mut parts = text.splitn(3, '/');
        let word = parts.next().unwrap_or("");
        let eval = parts.next().unwrap_or("").to_string();
        let g = &self.matches[mi].games[gi];
        if g.komi_game && g.komi.is_none() {
            let playing = self.matches[mi].players.iter().any(|p| p == user);
            match (word.parse::<Move>(), eval.parse::<f64>()) {
                (Ok(mv), Ok(e)) if playing && e.is_finite() => self.bid(mi, gi, user, mv, e),
                _ => {
                    self.matches[mi].games[gi].errors += 1;
                    self.tell_user(user, &[format!("/os: error {gid} a bid is MOVE/RESULT")]);
                }
            }
            return;
        }
        let mv = word.parse::<Move>().ok();
        let legal = g.to_move_name() == user
            && !g.done
            && mv.is_some_and(|m| g.game.position().play(m).is_ok());
        match mv {
            Some(mv) if legal => self.apply(mi, gi, mv, &eval),
            _ => {
                self.matches[mi].games[gi].errors += 1;
                self.tell_user(user, &[format!("/os: error {gid} illegal move")]);
            }
        }
    }

    /// Applies a legal move: clocks, the update to both players, the end of the game.
    fn apply(&mut self, mi: usize, gi: usize, mv: Move, eval: &str) {
        let now = Instant::now();
        let g = &mut self.matches[mi].games[gi];
        let color = g.game.to_move();
        let spent = now.duration_since(g.turn_started).as_secs_f64();
        let c = &mut g.clocks[idx(color)];
        c.main -= spent;
        if c.main < 0.0 {
            c.over = true;
        }
        c.main += c.increment;
        c.moves += 1;
        if g.game.play(mv).is_err() {
            return;
        }
        g.records.push(format!("{mv}/{eval}/{spent:.2}"));
        g.turn_started = now;
        let over = g.game.is_over();
        let m = &self.matches[mi];
        let msg = self.board_msg(&m.games[gi], &m.game_type, &m.players, false);
        for u in m.players.clone() {
            self.tell_user(&u, &msg);
        }
        if over {
            self.finish_game(mi, gi);
        }
    }

    /// Ends a game (played out, or lost on time): the result, `end` for a synchro game, and
    /// `- match` once every game of the match is over.
    fn finish_game(&mut self, mi: usize, gi: usize) {
        let m = &mut self.matches[mi];
        let g = &mut m.games[gi];
        g.done = true;
        let pos = g.game.position();
        let board_score = pos.black_final_score();
        let mut score = board_score;
        let over: Vec<Color> = [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| g.clocks[idx(c)].over)
            .collect();
        match g.timed_out {
            Some(Color::Black) => score = -64,
            Some(Color::White) => score = 64,
            None => {
                if over == [Color::Black] {
                    score = score.min(-1);
                } else if over == [Color::White] {
                    score = score.max(1);
                }
            }
        }
        let fin = FinishedGame {
            id: g.id.clone(),
            match_id: m.id.clone(),
            black: g.players[0].clone(),
            white: g.players[1].clone(),
            start: g.game.start(),
            moves: g.game.moves().to_vec(),
            black_score: score,
            board_score,
            timed_out: g.timed_out,
            over_time: over,
            errors: g.errors,
            komi: g.komi,
            main_left: [g.clocks[0].main, g.clocks[1].main],
        };
        let first_black = fin.black == m.players[0];
        let black_net = score as f64 - fin.komi.unwrap_or(0.0);
        let first_score = if first_black { black_net } else { -black_net };
        let suffix = if fin.timed_out.is_some() { ":t" } else { "" };
        let synchro = m.games.len() > 1;
        let all_done = m.games.iter().all(|g| g.done);
        let players = m.players.clone();
        let end_line = format!(
            "/os: end {} ( {} vs. {} ) {}{suffix}",
            fin.id,
            players[0],
            players[1],
            score_text(first_score)
        );
        self.finished.push(fin);
        if synchro {
            for u in &players {
                self.tell_user(u, std::slice::from_ref(&end_line));
            }
        }
        if all_done {
            let m = self.matches.remove(mi);
            let ids: Vec<&String> = m.games.iter().map(|g| &g.id).collect();
            let games: Vec<&FinishedGame> = self
                .finished
                .iter()
                .filter(|f| ids.contains(&&f.id) && f.match_id == m.id)
                .collect();
            let total: f64 = games
                .iter()
                .map(|f| {
                    let s = f.black_score as f64 - f.komi.unwrap_or(0.0);
                    if f.black == m.players[0] { s } else { -s }
                })
                .sum();
            let timeout = games.iter().any(|f| f.timed_out.is_some());
            let result = format!(
                "{}{}",
                score_text(total / games.len().max(1) as f64),
                if timeout { ":t" } else { "" }
            );
            let line = self.match_line('-', &m, &result);
            for u in &m.players {
                self.tell_user(u, std::slice::from_ref(&line));
            }
            self.match_results.push((m.id.clone(), result));
        }
    }

    /// A user is gone: its requests are dropped and its matches adjourned (stored).
    fn user_left(&mut self, user: &str) {
        self.requests
            .retain(|r| r.challenger != user && r.challengee.as_deref() != Some(user));
        let mut i = 0;
        while i < self.matches.len() {
            if !self.matches[i].players.iter().any(|p| p == user) {
                i += 1;
                continue;
            }
            let m = self.matches.remove(i);
            let line = self.match_line('-', &m, &format!("{user} left"));
            for u in &m.players {
                if u != user {
                    self.tell_user(u, std::slice::from_ref(&line));
                }
            }
            self.match_results
                .push((m.id.clone(), format!("{user} left")));
            // Games already over stay finished; the rest are stored.
            let games: Vec<GameState> = m.games.into_iter().filter(|g| !g.done).collect();
            if !games.is_empty() {
                self.stored.push(Stored {
                    id: m.id,
                    players: m.players,
                    game_type: m.game_type,
                    clock: m.clock,
                    games,
                });
            }
        }
    }

    /// The bot's request to `user` to resume stored match `sid`.
    fn offer_stored(&mut self, user: &str, sid: &str) -> Option<String> {
        let s = self.stored.iter().find(|s| s.id == sid)?;
        if !s.players.iter().any(|p| p == user) {
            return None;
        }
        let bot = self.config.bot_name.clone();
        if !s.players.contains(&bot) {
            return None;
        }
        let r = Req {
            id: String::new(),
            challenger: bot,
            challengee: Some(user.to_string()),
            clock: s.clock,
            game_type: s.game_type.clone(),
            rated: 'S',
            stored: Some(sid.to_string()),
            challenger_black: true,
            start: None,
        };
        let id = self.new_id();
        let r = Req {
            id: id.clone(),
            ..r
        };
        let line = self.request_line('+', &r);
        self.requests.push(r);
        self.tell_user(user, &[line]);
        Some(id)
    }

    /// `tell /os ask ...` from `user`.
    fn ask(&mut self, user: &str, args: &[&str]) {
        let id = self.new_id();
        let req = if let [sid] = args
            && sid.starts_with('.')
        {
            let Some(s) = self.stored.iter().find(|s| s.id == *sid) else {
                self.tell_user(user, &[format!("/os: error {sid} no such stored game")]);
                return;
            };
            let Some(opp) = s.players.iter().find(|p| *p != user).cloned() else {
                return;
            };
            if !s.players.iter().any(|p| p == user) {
                self.tell_user(user, &[format!("/os: error {sid} not your game")]);
                return;
            }
            Req {
                id,
                challenger: user.to_string(),
                challengee: Some(opp),
                clock: s.clock,
                game_type: s.game_type.clone(),
                rated: 'S',
                stored: Some(sid.to_string()),
                challenger_black: true,
                start: None,
            }
        } else {
            let Some((ty, rest)) = args.split_first() else {
                self.tell_user(user, &["/os: error ask: missing type".to_string()]);
                return;
            };
            let mut clocks = Vec::new();
            let mut who = None;
            for (i, a) in rest.iter().enumerate() {
                match TestClock::parse(a) {
                    Some(c) if who.is_none() => clocks.push(c),
                    _ if i + 1 == rest.len() => who = Some(a.to_string()),
                    _ => {
                        self.tell_user(user, &[format!("/os: error ask: bad argument {a}")]);
                        return;
                    }
                }
            }
            let ok_type = {
                let t = ty.trim_start_matches('s');
                t.starts_with(|c: char| c.is_ascii_digit())
            };
            if !ok_type {
                self.tell_user(user, &[format!("/os: error ask: bad type {ty}")]);
                return;
            }
            Req {
                id,
                challenger: user.to_string(),
                challengee: who,
                clock: clocks
                    .first()
                    .copied()
                    .unwrap_or(TestClock::secs(900.0, 0.0, 0.0)),
                game_type: ty.to_string(),
                rated: 'U',
                stored: None,
                challenger_black: !ty.ends_with('w'),
                start: None,
            }
        };
        let line = self.request_line('+', &req);
        self.tell_user(user, std::slice::from_ref(&line));
        let bot = self.config.bot_name.clone();
        match req.challengee.clone() {
            Some(c) if c == bot || c == "*" => {
                if self.config.bot_accepts_asks {
                    self.start_match(Req {
                        challengee: Some(bot),
                        ..req
                    });
                } else {
                    self.requests.push(req);
                }
            }
            None if self.config.bot_accepts_asks => self.start_match(Req {
                challengee: Some(bot),
                ..req
            }),
            Some(c) => {
                self.tell_user(&c, std::slice::from_ref(&line));
                self.requests.push(req);
            }
            None => self.requests.push(req),
        }
    }

    /// One line from a logged-in user.
    fn command(&mut self, conn: usize, user: &str, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let os: &[&str] = match words.as_slice() {
            ["tell" | "t", "/os", rest @ ..] => rest,
            ["ts", rest @ ..] => rest,
            ["quit" | "q"] => {
                self.send_lines(conn, &[": Goodbye.".to_string()]);
                self.drop_conn(conn);
                return;
            }
            ["notify", "+", "/os"] => {
                let announce = self.conns.get(&conn).is_some_and(|c| !c.announced);
                if announce {
                    if let Some(c) = self.conns.get_mut(&conn) {
                        c.announced = true;
                    }
                    self.send_msg(conn, &[": + /os 1".to_string()]);
                }
                return;
            }
            _ => return,
        };
        match os {
            ["accept", id] => {
                let Some(r) = self.requests.iter().find(|r| r.id == *id).cloned() else {
                    self.tell_user(user, &[format!("/os: error {id} no such request")]);
                    return;
                };
                if r.challenger == user || r.challengee.as_deref().is_some_and(|c| c != user) {
                    self.tell_user(user, &[format!("/os: error {id} not your request")]);
                    return;
                }
                self.start_match(Req {
                    challengee: Some(user.to_string()),
                    ..r
                });
            }
            ["decline", id] => {
                if let Some(r) = self.requests.iter().find(|r| r.id == *id).cloned() {
                    self.requests.retain(|x| x.id != *id);
                    let line = self.request_line('-', &r);
                    for u in [Some(r.challenger.clone()), r.challengee.clone()]
                        .into_iter()
                        .flatten()
                    {
                        self.tell_user(&u, std::slice::from_ref(&line));
                    }
                }
            }
            ["play", id, mv] => self.play(user, id, mv),
            ["play", ..] => self.tell_user(user, &["/os: error play: which game?".to_string()]),
            ["ask", args @ ..] => self.ask(user, args),
            _ => {}
        }
    }

    fn drop_conn(&mut self, conn: usize) {
        if let Some(c) = self.conns.remove(&conn) {
            let _ = c.stream.shutdown(Shutdown::Both);
            if let Some(u) = c.user {
                self.user_left(&u);
            }
        }
    }

    /// The bot's moves and the clocks.
    fn tick(&mut self) {
        let now = Instant::now();
        let bot = self.config.bot_name.clone();
        let mut k = 0;
        while k < self.matches.len() {
            let n = self.matches[k].games.len();
            let id = self.matches[k].id.clone();
            for gi in 0..n {
                let Some(m) = self.matches.get(k) else { break };
                if m.id != id {
                    break;
                }
                let g = &m.games[gi];
                if g.done || (g.komi_game && g.komi.is_none()) {
                    continue;
                }
                let color = g.game.to_move();
                let name = g.to_move_name().to_string();
                let elapsed = now.duration_since(g.turn_started).as_secs_f64();
                let c = &g.clocks[idx(color)];
                if name == bot {
                    if elapsed >= self.config.bot_delay.as_secs_f64() {
                        let moves = g.game.position().legal_moves();
                        let pick = match self.config.bot {
                            BotPolicy::First => 0,
                            BotPolicy::Random(_) => {
                                (self.rand() % moves.len().max(1) as u64) as usize
                            }
                        };
                        if let Some(&mv) = moves.get(pick) {
                            self.apply(k, gi, mv, "");
                        }
                    }
                } else if elapsed > c.main + c.extension {
                    let gid = g.id.clone();
                    let line = format!("/os: fatal-timeout {gid} {name}");
                    let players = m.players.clone();
                    let g = &mut self.matches[k].games[gi];
                    g.timed_out = Some(color);
                    g.clocks[idx(color)].main -= elapsed;
                    for u in &players {
                        self.tell_user(u, std::slice::from_ref(&line));
                    }
                    self.finish_game(k, gi);
                } else if elapsed > c.main && !c.over {
                    let line = format!("/os: timeout {} {name}", g.id);
                    let players = m.players.clone();
                    self.matches[k].games[gi].clocks[idx(color)].over = true;
                    for u in &players {
                        self.tell_user(u, std::slice::from_ref(&line));
                    }
                }
            }
            if self.matches.get(k).is_some_and(|m| m.id == id) {
                k += 1;
            }
        }
        if let Some(idle) = self.config.idle_timeout {
            let silent: Vec<usize> = self
                .conns
                .iter()
                .filter(|(_, c)| c.user.is_some() && now.duration_since(c.last_heard) > idle)
                .map(|(&id, _)| id)
                .collect();
            for c in silent {
                self.drop_conn(c);
            }
        }
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            logged_in: self.conns.values().filter_map(|c| c.user.clone()).collect(),
            connections: self.connections,
            logins: self.logins,
            finished: self.finished.clone(),
            playing: self
                .matches
                .iter()
                .flat_map(|m| m.games.iter().filter(|g| !g.done).map(|g| g.id.clone()))
                .collect(),
            stored: self.stored.iter().map(|s| s.id.clone()).collect(),
            match_results: self.match_results.clone(),
            requests: self.requests.iter().map(|r| r.id.clone()).collect(),
            log: self.log.clone(),
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in a server thread must not hide the state from the test.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl FakeGgs {
    /// Starts a server on 127.0.0.1 (a free port).
    pub fn start(config: ServerConfig) -> FakeGgs {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let port = listener.local_addr().expect("local address").port();
        let rng = config.seed.max(1) ^ 0x9e37_79b9_7f4a_7c15;
        let rng = match config.bot {
            BotPolicy::Random(s) => rng ^ s.rotate_left(17),
            BotPolicy::First => rng,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                config,
                next_id: 18,
                next_conn: 0,
                connections: 0,
                logins: 0,
                conns: HashMap::new(),
                requests: Vec::new(),
                matches: Vec::new(),
                stored: Vec::new(),
                finished: Vec::new(),
                match_results: Vec::new(),
                log: Vec::new(),
                rng: rng.max(1),
            }),
            stop: AtomicBool::new(false),
        });
        let accept = {
            let shared = shared.clone();
            thread::spawn(move || accept_loop(listener, shared))
        };
        let ticker = {
            let shared = shared.clone();
            thread::spawn(move || {
                while !shared.stop.load(Ordering::Relaxed) {
                    shared.lock().tick();
                    thread::sleep(Duration::from_millis(2));
                }
            })
        };
        FakeGgs {
            port,
            shared,
            threads: vec![accept, ticker],
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The bot asks `user` for a match; the request's id, or `None` when `user` is not
    /// logged in.
    pub fn offer(&self, user: &str, offer: Offer) -> Option<String> {
        let mut s = self.shared.lock();
        s.conn_of(user)?;
        let id = s.new_id();
        let bot = s.config.bot_name.clone();
        let challenger_black = match (offer.client_color, offer.game_type.ends_with('w')) {
            (Some(c), _) => c == Color::White,
            (None, w) => !w,
        };
        let r = Req {
            id: id.clone(),
            challenger: bot,
            challengee: Some(user.to_string()),
            clock: offer.clock,
            game_type: offer.game_type,
            rated: if offer.rated { 'R' } else { 'U' },
            stored: None,
            challenger_black,
            start: offer.start,
        };
        let line = s.request_line('+', &r);
        s.requests.push(r);
        s.tell_user(user, &[line]);
        Some(id)
    }

    /// The bot asks `user` to resume stored match `stored_id` (an `S` request); its id.
    pub fn offer_stored(&self, user: &str, stored_id: &str) -> Option<String> {
        self.shared.lock().offer_stored(user, stored_id)
    }

    /// Injects a fault into `user`'s connection; false when it is not connected (or the
    /// fault needs a running game and there is none).
    pub fn inject(&self, user: &str, fault: Fault) -> bool {
        let mut s = self.shared.lock();
        let Some(conn) = s.conn_of(user) else {
            return false;
        };
        let first_game = s.matches.iter().find_map(|m| {
            m.players
                .iter()
                .any(|p| p == user)
                .then(|| {
                    m.games
                        .iter()
                        .find(|g| !g.done)
                        .map(|g| (g.clone(), m.game_type.clone(), m.players.clone()))
                })
                .flatten()
        });
        match fault {
            Fault::Raw(bytes) => {
                let text = summary(&bytes);
                s.write(conn, bytes, vec![text]);
            }
            Fault::HugeLine(n) => {
                let mut bytes = vec![b'x'; n];
                bytes.extend_from_slice(b"\r\nREADY\r\n");
                s.write(
                    conn,
                    bytes,
                    vec![format!("<a line of {n} bytes>"), "READY".into()],
                );
            }
            Fault::Junk => {
                let mut bytes: Vec<u8> = (0..=255u8).cycle().take(700).collect();
                bytes.retain(|&b| b != b'\n' && b != b'\r');
                bytes.extend_from_slice(b"\xff\xfe\x00|\x07\r\nREADY\r\n");
                let text = summary(&bytes);
                s.write(conn, bytes, vec![text]);
            }
            Fault::MalformedUpdate => {
                let Some((g, ty, order)) = first_game else {
                    return false;
                };
                let mut msg = s.board_msg(&g, &ty, &order, false);
                if let Some(i) = msg.iter().position(|l| l.starts_with("| 5 ")) {
                    msg.remove(i);
                }
                s.send_msg(conn, &msg);
            }
            Fault::UnknownGameUpdate => {
                let Some((mut g, ty, order)) = first_game else {
                    return false;
                };
                g.id = ".99999".to_string();
                let msg = s.board_msg(&g, &ty, &order, false);
                s.send_msg(conn, &msg);
            }
            Fault::ErrorIllegalMove => {
                let Some((g, _, _)) = first_game else {
                    return false;
                };
                s.send_msg(conn, &[format!("/os: error {} illegal move", g.id)]);
            }
            Fault::Disconnect => s.drop_conn(conn),
        }
        true
    }

    /// What the server holds now.
    pub fn snapshot(&self) -> Snapshot {
        self.shared.lock().snapshot()
    }

    /// Waits until `pred` holds (true) or `timeout` passes (false), looking every 10 ms.
    pub fn wait_until(&self, timeout: Duration, mut pred: impl FnMut(&Snapshot) -> bool) -> bool {
        let end = Instant::now() + timeout;
        loop {
            if pred(&self.snapshot()) {
                return true;
            }
            if Instant::now() >= end {
                return false;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// The games that ended so far.
    pub fn finished(&self) -> Vec<FinishedGame> {
        self.shared.lock().finished.clone()
    }

    /// Every line each side sent so far.
    pub fn log(&self) -> Vec<LogLine> {
        self.shared.lock().log.clone()
    }

    /// The lines `user` sent so far.
    pub fn client_lines(&self, user: &str) -> Vec<String> {
        self.snapshot().client_lines(user)
    }

    /// The whole exchange as text (`>` client, `<` server), for failure messages.
    pub fn transcript(&self) -> String {
        self.log()
            .iter()
            .map(|l| {
                format!(
                    "{}{} {}\n",
                    l.conn,
                    if l.from_client { ">" } else { "<" },
                    l.text
                )
            })
            .collect()
    }
}

impl Drop for FakeGgs {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        {
            let mut s = self.shared.lock();
            for (_, c) in s.conns.drain() {
                let _ = c.stream.shutdown(Shutdown::Both);
            }
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    while !shared.stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = shared.clone();
                thread::spawn(move || serve(stream, shared));
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => thread::sleep(Duration::from_millis(5)),
            Err(_) => thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// The connection's writer thread: sends the queued bytes in order.
fn writer(mut stream: TcpStream, rx: Receiver<Vec<u8>>, shared: Arc<Shared>) {
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(bytes) => {
                if stream
                    .write_all(&bytes)
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    let _ = stream.shutdown(Shutdown::Both);
                    return;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if shared.stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Reads lines with a timeout: `Ok(Some(line))`, `Ok(None)` when the connection is closed
/// (or the server stops), never blocking past 100 ms between stop checks.
struct LineReader {
    stream: TcpStream,
    buf: Vec<u8>,
    skipping: bool,
}

impl LineReader {
    fn next(&mut self, shared: &Shared) -> Option<String> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=i).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if std::mem::take(&mut self.skipping) {
                    continue;
                }
                return Some(String::from_utf8_lossy(&line).into_owned());
            }
            if self.buf.len() > MAX_CLIENT_LINE {
                self.buf.clear();
                self.skipping = true;
            }
            if shared.stop.load(Ordering::Relaxed) {
                return None;
            }
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(_) => return None,
            }
        }
    }
}

/// One connection: login, then the commands, until it closes.
fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_nodelay(true);
    let (Ok(w), Ok(r), Ok(keep)) = (stream.try_clone(), stream.try_clone(), stream.try_clone())
    else {
        return;
    };
    let (tx, rx) = channel();
    {
        let shared = shared.clone();
        thread::spawn(move || writer(w, rx, shared));
    }
    let conn = {
        let mut s = shared.lock();
        s.next_conn += 1;
        s.connections += 1;
        let id = s.next_conn;
        s.conns.insert(
            id,
            Conn {
                user: None,
                out: tx,
                stream: keep,
                last_heard: Instant::now(),
                announced: false,
            },
        );
        s.send_lines(
            id,
            &[
                "Welcome to the fake GGS (Generic Game Server), for tests.".to_string(),
                ": Enter login (yours, or one you'd like to use).".to_string(),
            ],
        );
        id
    };
    let mut reader = LineReader {
        stream: r,
        buf: Vec::new(),
        skipping: false,
    };
    let mut name: Option<String> = None;
    let mut user: Option<String> = None;
    while let Some(line) = reader.next(&shared) {
        let mut s = shared.lock();
        if !s.conns.contains_key(&conn) {
            break;
        }
        s.log.push(LogLine {
            conn,
            user: user.clone(),
            from_client: true,
            text: if user.is_none() && name.is_some() {
                "<password>".to_string()
            } else {
                summary(line.as_bytes())
            },
        });
        if let Some(c) = s.conns.get_mut(&conn) {
            c.last_heard = Instant::now();
        }
        if let Some(u) = &user {
            let u = u.clone();
            s.command(conn, &u, line.trim());
            continue;
        }
        let text = line.trim().to_string();
        match name.take() {
            None => {
                let valid = (2..=8).contains(&text.chars().count())
                    && !text.starts_with(['.', '_'])
                    && text
                        .chars()
                        .all(|c| c.is_ascii_graphic() && c != ',' && c != '\\');
                if valid {
                    name = Some(text);
                    s.send_lines(conn, &[": Enter your password.".to_string()]);
                } else {
                    s.send_lines(
                        conn,
                        &[
                            ": Illegal login name.".to_string(),
                            ": Enter login (yours, or one you'd like to use).".to_string(),
                        ],
                    );
                }
            }
            Some(n) => {
                let registered = s
                    .config
                    .users
                    .iter()
                    .find(|(u, _)| *u == n)
                    .map(|(_, p)| p.clone());
                let refusal = match registered {
                    Some(p) if p != text => Some(": Wrong password."),
                    None if !s.config.allow_unregistered => Some(": Wrong password."),
                    _ if s.conn_of(&n).is_some() => Some(": This login is in use."),
                    _ => None,
                };
                if let Some(msg) = refusal {
                    s.send_lines(conn, &[msg.to_string()]);
                    // Let the writer send it before the connection goes.
                    drop(s);
                    thread::sleep(Duration::from_millis(50));
                    shared.lock().drop_conn(conn);
                    return;
                }
                s.logins += 1;
                if let Some(c) = s.conns.get_mut(&conn) {
                    c.user = Some(n.clone());
                }
                s.send_lines(conn, &["READY".to_string()]);
                s.send_msg(
                    conn,
                    &[
                        ": motd".to_string(),
                        "|Welcome to the fake GGS. It runs the tests of Outflank's client."
                            .to_string(),
                    ],
                );
                s.send_msg(conn, &[": news".to_string(), "|Nothing new.".to_string()]);
                s.send_msg(conn, &[": faq".to_string(), "|Ask the tests.".to_string()]);
                s.send_msg(conn, &[format!(": {n} logged in.")]);
                if s.config.service_up_on_login {
                    if let Some(c) = s.conns.get_mut(&conn) {
                        c.announced = true;
                    }
                    s.send_msg(conn, &[": + /os 1".to_string()]);
                }
                if s.config.offer_stored_on_login {
                    let ids: Vec<String> = s
                        .stored
                        .iter()
                        .filter(|st| st.players.contains(&n))
                        .map(|st| st.id.clone())
                        .collect();
                    for id in ids {
                        s.offer_stored(&n, &id);
                    }
                }
                user = Some(n);
            }
        }
    }
    shared.lock().drop_conn(conn);
}
