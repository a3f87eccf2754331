//! The GGS client: a front-end whose commands come from the server. It logs in, sets its client
//! options, accepts the match requests that fit its [`AcceptPolicy`] (or asks an opponent itself),
//! plays every game it has at once, one search at a time, each game on a
//! [`Controller`](crate::controller::Controller) of its own, keeps the connection alive, reconnects
//! with backoff when it drops and resumes the games the server adjourned, and writes each finished
//! game as GGF.
//!
//! Connecting: each attempt (a connection up to a successful login) must log in within the
//! login deadline; an attempt that fails (refused, closed before the login, no login in
//! time, text that is not GGS's) is counted and followed by a longer wait, and after the
//! number of failures in a row the configuration allows, the client gives up with an error
//! ([`super::retry`]).
//!
//! The server is the authority on each game: the controller's game follows the boards the
//! server sends (a board that the moves do not reach replaces the game), and a move is sent
//! only for a position the server showed with the client to move.
//!
//! Clocks: a game's budget is the main time the server shows for the client, less a margin
//! for the network, split between the games of a synchro match still running
//! ([`super::budget`]).
//!
//! stdout gets one line for each thing a person watching wants to know (logged in, a match
//! starts, a game ends, the connection drops), every result from the client's side; `-v`
//! logs every line exchanged to stderr, the password masked, long lines cut
//! ([`super::excerpt`]).
//!
//! Here: the client's state ([`Ggs`]), the server's messages dispatched, the connection's
//! end and the front-end's events. Apart: its configuration (`config`), the connection, the
//! login and sending (`connection`), its matches and requests (`matches`), its games, their
//! boards, searches and moves (`games`), and one game's state (`game`).

mod config;
mod connection;
mod game;
mod games;
mod matches;

pub use config::{AcceptPolicy, Ask, Config, Secret};

use super::excerpt::excerpt;
use super::match_clocks::MatchClocks;
use super::message::{Framer, GameId, Message, outgoing};
use super::retry::{Failure, Retry, secs_text};
use crate::controller::{Event, Finished, Flow, Frontend, Input, Interrupt, Searched};
use crate::search::Info;
use connection::Login;
use game::GameState;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// The session, its searches tagged with the game they are for.
type Session<'w> = crate::controller::Session<'w, GameId>;

/// A move whose sending fails this many times in one game stops the client playing it.
const MAX_ERRORS: u32 = 3;

/// The GGS client (a [`Frontend`] driven by [`crate::controller::run`]).
pub struct Ggs {
    config: Config,
    events: Sender<Event>,
    stream: Option<TcpStream>,
    source: u64,
    login: Login,
    framer: Framer,
    /// The matches the client plays.
    matches: BTreeSet<GameId>,
    games: BTreeMap<GameId, GameState>,
    /// Games waiting for a search, in order (the game searched is the session's tag).
    waiting: VecDeque<GameId>,
    /// Requests accepted whose match has not started yet.
    accepted: BTreeSet<GameId>,
    /// Matches adjourned by a dropped connection, to resume.
    adjourned: BTreeSet<GameId>,
    /// The clocks the client's matches started with.
    clocks: MatchClocks,
    last_sent: Instant,
    reconnect_at: Option<Instant>,
    retry: Retry,
    /// The attempt under way fails if it has not logged in by then.
    login_deadline: Option<Instant>,
    /// Bytes received on this connection before the login prompt.
    before_prompt: usize,
    /// Connections opened so far.
    attempts: u64,
    ended: usize,
    quitting: bool,
}

impl Ggs {
    /// A client with `config`; `events` is the channel its connection's lines go to.
    pub fn new(config: Config, events: Sender<Event>) -> Ggs {
        Ggs {
            retry: Retry::new(config.retries, config.max_backoff),
            config,
            events,
            stream: None,
            source: 0,
            login: Login::Prompt,
            framer: Framer::new(),
            matches: BTreeSet::new(),
            games: BTreeMap::new(),
            waiting: VecDeque::new(),
            accepted: BTreeSet::new(),
            adjourned: BTreeSet::new(),
            clocks: MatchClocks::new(),
            last_sent: Instant::now(),
            reconnect_at: None,
            login_deadline: None,
            before_prompt: 0,
            attempts: 0,
            ended: 0,
            quitting: false,
        }
    }

    /// One message from the server.
    fn message(&mut self, msg: Message, session: &mut Session) -> io::Result<Flow> {
        match msg {
            Message::LoginPrompt => {
                if self.login == Login::Prompt || self.login == Login::Name {
                    let name = outgoing::login(&self.config.user);
                    self.send(&name);
                    self.login = Login::Name;
                }
            }
            Message::PasswordPrompt => {
                if self.login == Login::Name {
                    let pw = outgoing::password(self.config.password.expose());
                    self.send_line(&pw, true);
                    self.login = Login::Password;
                }
            }
            Message::ServiceUp => self.service_up(),
            Message::ServiceDown => log::warn!("GGS: the Othello service is down"),
            Message::Request { added, request } => self.request(added, &request),
            Message::MatchStart(info) => {
                if info.has_player(&self.config.user) {
                    self.accepted.clear();
                    self.adjourned.remove(&info.id);
                    self.clocks.started(&info, &self.config.user);
                    let other = info
                        .players
                        .iter()
                        .find(|p| p.name != self.config.user)
                        .map_or("?", |p| p.name.as_str());
                    session.line(&format!(
                        "match {} against {other} ({})",
                        info.id, info.game_type
                    ))?;
                    self.matches.insert(info.id.clone());
                }
            }
            Message::Board(b) => self.board(*b, session)?,
            Message::GameEnd {
                id,
                players,
                result,
            } => self.game_over(&id, &result, &players[0], session)?,
            Message::MatchEnd { info, result } => {
                if self.matches.contains(&info.id) {
                    return self.match_over(&info, &result, session);
                }
            }
            Message::GameError { id, text } => self.game_error(id, &excerpt(&text)),
            Message::Timeout { id, name, fatal } => {
                let level = if name == self.config.user {
                    log::Level::Error
                } else {
                    log::Level::Info
                };
                log::log!(level, "GGS: {name} out of time in {id} (fatal: {fatal})");
            }
            Message::Error(text) => log::warn!("GGS error: {}", excerpt(&text)),
            Message::Server(text) => log::info!("GGS: {}", excerpt(&text)),
            Message::Tell { from, text } => {
                log::info!("GGS: {} tells: {}", excerpt(&from), excerpt(&text))
            }
            Message::RatingUpdate { id, lines } => {
                log::info!("GGS: rating update {id}: {}", excerpt(&lines.join("; ")))
            }
            Message::Other(text) => log::debug!("GGS: {}", excerpt(&text)),
        }
        Ok(Flow::Continue)
    }

    /// Logs out.
    fn quit(&mut self) -> Flow {
        self.quitting = true;
        if self.stream.is_some() {
            self.send(&outgoing::quit());
            if let Some(s) = &self.stream {
                let _ = s.shutdown(Shutdown::Write);
            }
        }
        log::info!("GGS: logged out");
        Flow::Quit
    }

    /// The connection is gone: before the login, the attempt failed; after, the games
    /// are adjourned and the client reconnects.
    fn lost(&mut self, session: &mut Session) -> io::Result<Flow> {
        if self.quitting {
            self.stream = None;
            return Ok(Flow::Quit);
        }
        if self.login != Login::In {
            return self.failed(Failure::Closed, session);
        }
        self.stream = None;
        let playing: Vec<GameId> = self.matches.iter().cloned().collect();
        self.adjourned.extend(playing);
        let ids: Vec<GameId> = self.games.keys().cloned().collect();
        for id in &ids {
            self.forget(id, session);
        }
        self.matches.clear();
        self.accepted.clear();
        self.login = Login::Prompt;
        let wait = self.retry.wait();
        self.reconnect_at = Some(Instant::now() + wait);
        session.line(&format!(
            "connection lost; reconnecting in {} s",
            secs_text(wait)
        ))?;
        Ok(Flow::Continue)
    }
}

impl Frontend for Ggs {
    type Tag = GameId;

    fn start(&mut self, session: &mut Session) -> io::Result<Flow> {
        self.attempt(session)
    }

    fn interrupts(&self, input: &Input) -> Interrupt {
        match input {
            Input::Line(l) if l.trim() == "quit" => Interrupt::Session,
            _ => Interrupt::No,
        }
    }

    fn input(&mut self, input: Input, session: &mut Session) -> io::Result<Flow> {
        match input {
            Input::Line(l) if l.trim() == "quit" => Ok(self.quit()),
            Input::Line(l) if l.trim().is_empty() => Ok(Flow::Continue),
            Input::Line(l) => {
                session.line(&format!("unknown command {:?} (quit logs out)", l.trim()))?;
                Ok(Flow::Continue)
            }
            // Run without a terminal (stdin closed): play on.
            Input::Eof | Input::TooLong { .. } => Ok(Flow::Continue),
        }
    }

    fn progress(&mut self, _: &GameId, _info: &Info, _: &mut Session) -> io::Result<()> {
        Ok(())
    }

    fn done(&mut self, done: Finished<GameId>, session: &mut Session) -> io::Result<Flow> {
        let id = done.job.tag.clone();
        match self.games.get_mut(&id).map(|g| g.ctl.searched(done).1) {
            Some(Searched::Move(choice)) => self.send_move(&id, &choice),
            // A search for a position the game has left (a board came meanwhile): the game
            // waits for a search of the position it is at.
            Some(Searched::Stale) if !self.waiting.contains(&id) => self.waiting.push_back(id),
            _ => {}
        }
        self.next_search(session)?;
        Ok(Flow::Continue)
    }

    fn remote(&mut self, source: u64, input: Input, session: &mut Session) -> io::Result<Flow> {
        if source != self.source {
            return Ok(Flow::Continue);
        }
        match input {
            Input::Line(line) => {
                log::info!("GGS < {}", excerpt(&line));
                if self.login == Login::Prompt
                    && let Some(why) = self.not_ggs(&line)
                {
                    return self.failed(Failure::NotGgs(why), session);
                }
                if self.login == Login::Password {
                    self.password_answer(&line, session)?;
                    return Ok(Flow::Continue);
                }
                for raw in self.framer.push_line(&line) {
                    let flow = match Message::parse(&raw) {
                        Ok(msg) => self.message(msg, session)?,
                        Err(e) => {
                            let head: String = raw.header.chars().take(80).collect();
                            log::warn!("GGS: unreadable message ({e}): {head:?}");
                            Flow::Continue
                        }
                    };
                    if flow == Flow::Quit {
                        return Ok(Flow::Quit);
                    }
                }
                Ok(Flow::Continue)
            }
            Input::TooLong { len } if self.login != Login::In => self.failed(
                Failure::NotGgs(format!("a line of {len} bytes before the login")),
                session,
            ),
            Input::TooLong { len } => {
                self.framer.push_too_long(len);
                Ok(Flow::Continue)
            }
            Input::Eof => {
                if let Some(raw) = self.framer.flush()
                    && let Ok(msg) = Message::parse(&raw)
                    && self.message(msg, session)? == Flow::Quit
                {
                    return Ok(Flow::Quit);
                }
                self.lost(session)
            }
        }
    }

    fn tick(&mut self, session: &mut Session) -> io::Result<Flow> {
        if self.stream.is_some() {
            if self.login != Login::In {
                if self.login_deadline.is_some_and(|d| Instant::now() >= d) {
                    return self.failed(Failure::Timeout(self.config.login_timeout), session);
                }
            } else if self.last_sent.elapsed() >= self.config.keep_alive {
                self.send(&outgoing::keep_alive());
            }
            return Ok(Flow::Continue);
        }
        let Some(at) = self.reconnect_at else {
            return Ok(Flow::Continue);
        };
        if Instant::now() < at {
            return Ok(Flow::Continue);
        }
        self.reconnect_at = None;
        self.attempt(session)
    }
}

/// Runs the client until it logs out (`quit` on stdin, Ctrl-C, `--matches` played) or
/// fails (a refused login, attempts to log in given up, a game that could not be written
/// to the games file: the error says so at the end).
pub fn run(config: Config) -> io::Result<()> {
    let engine_setup = config.options.engine_setup();
    let (tx, rx) = crate::controller::events();
    crate::protocol::spawn_reader(io::stdin(), tx.clone());
    // Ctrl-C: log out as `quit` does.
    let ctrl_c = tx.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = ctrl_c.send(Event::Input(Input::Line("quit".into())));
    }) {
        log::warn!("Ctrl-C will not log out cleanly: {e}");
    }
    let ticks = tx.clone();
    std::thread::Builder::new()
        .name("outflank-ggs-ticks".into())
        .spawn(move || {
            while ticks.send(Event::Tick).is_ok() {
                std::thread::sleep(Duration::from_millis(250));
            }
        })?;
    let mut client = Ggs::new(config, tx.clone());
    crate::controller::run(&mut client, (tx, rx), io::stdout(), engine_setup)?;
    match &client.config.games {
        Some(file) if file.lost() > 0 => Err(io::Error::other(format!(
            "{} not written to {} (see the errors above)",
            if file.lost() == 1 {
                "1 game was".to_string()
            } else {
                format!("{} games were", file.lost())
            },
            file.path().display()
        ))),
        _ => Ok(()),
    }
}
