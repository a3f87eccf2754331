//! The GGS client: a front-end whose commands come from the server. It logs in, sets its
//! client options, accepts the match requests that fit its [`AcceptPolicy`] (or asks an
//! opponent itself), plays every game it has at once, one search at a time, each game on
//! a [`Controller`] of its own, keeps the connection alive, reconnects with backoff when it
//! drops and resumes the games the server adjourned, and writes each finished game as GGF.
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
//! Here: the client's state ([`Ggs`]) and its translation of the server's messages into
//! games, searches and moves. Apart: its configuration (`config`), the connection, the
//! login and sending (`connection`), and one game's state (`game`).

mod config;
mod connection;
mod game;

pub use config::{AcceptPolicy, Ask, Config, Secret};

use super::budget::plan_time;
use super::excerpt::excerpt;
use super::match_clocks::MatchClocks;
use super::message::{
    BoardMessage, Framer, GameId, GameResult, MatchInfo, Message, Rated, Request, outgoing,
};
use super::outcome::{margin_text, mine_text, seen_from};
use super::retry::{Failure, Retry, secs_text};
use crate::board::Color;
use crate::controller::{
    Answer, Choice, Controller, Event, Finished, Flow, Frontend, Input, Interrupt, Searched,
};
use crate::search::Info;
use connection::Login;
use game::{GameState, ggf_of, sync_game};
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
    /// Matches playing or accepted, against `open`.
    fn busy_matches(&self) -> usize {
        self.matches.len() + self.accepted.len()
    }

    fn done_playing(&self) -> bool {
        self.config.matches.is_some_and(|n| self.ended >= n)
    }

    /// Logged in and /os up: set the service up, resume adjourned games, ask for a match.
    fn service_up(&mut self) {
        for line in outgoing::service_setup(self.config.open) {
            self.send(&line);
        }
        // The server resumes a stored game as a new match: asked once, each is forgotten.
        let adjourned = std::mem::take(&mut self.adjourned);
        for id in &adjourned {
            self.send(&outgoing::ask_stored(id));
        }
        if adjourned.is_empty() {
            self.ask();
        }
    }

    /// Asks for the configured match, when there is room and matches to play.
    fn ask(&mut self) {
        let Some(ask) = self.config.ask.clone() else {
            return;
        };
        let remaining = self
            .config
            .matches
            .map_or(usize::MAX, |n| n.saturating_sub(self.ended));
        if self.login == Login::In
            && self.busy_matches() < self.config.open as usize
            && self.busy_matches() < remaining
        {
            self.send(&outgoing::ask(
                &ask.game_type,
                &ask.clock,
                ask.user.as_deref(),
            ));
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

    /// A request offered or withdrawn.
    fn request(&mut self, added: bool, r: &Request) {
        if !added {
            self.accepted.remove(&r.id);
            return;
        }
        let me = &self.config.user;
        let for_me = r.challengee.as_ref().is_some_and(|p| &p.name == me);
        if r.challenger.name == *me {
            // The client's own request (an ask, or one to resume a stored game).
            self.clocks.requested(r, me);
            return;
        }
        if !for_me {
            return;
        }
        let verdict = if self.done_playing() {
            Err("I am logging off".to_string())
        } else if r.rated != Rated::Stored && self.busy_matches() >= self.config.open as usize {
            Err(format!(
                "I play {} match{} at a time",
                self.config.open,
                if self.config.open == 1 { "" } else { "es" }
            ))
        } else {
            self.config.accept.check(r)
        };
        match verdict {
            Ok(()) => {
                log::info!("GGS: accepting {} from {}", r.id, r.challenger.name);
                self.clocks.requested(r, &self.config.user);
                self.accepted.insert(r.id.clone());
                self.send(&outgoing::accept(&r.id));
            }
            Err(why) => {
                log::info!("GGS: declining {} from {}: {why}", r.id, r.challenger.name);
                self.send(&outgoing::tell(&r.challenger.name, &why));
                self.send(&outgoing::decline(&r.id));
            }
        }
    }

    /// A `join` or an `update`.
    fn board(&mut self, b: BoardMessage, session: &mut Session) -> io::Result<()> {
        let Some(me) = b.color_of(&self.config.user) else {
            log::debug!("GGS: board of {}, which the client does not play", b.id);
            return Ok(());
        };
        if !self.games.contains_key(&b.id) {
            if !b.join {
                log::warn!(
                    "GGS: an update for {}, a game the client does not follow",
                    b.id
                );
                return Ok(());
            }
            if !self.matches.contains(&b.id.match_id()) {
                log::warn!("GGS: a join for {}, whose match did not start", b.id);
                return Ok(());
            }
            let black = b.player(Color::Black);
            let white = b.player(Color::White);
            // The game's clock: its request's, else the board's when the game starts now
            // (a resumed game's board shows the time left).
            let start_clock = match self.clocks.of(&b.id.match_id()) {
                Some(c) => Some(c.clone()),
                None => {
                    (b.moves.is_empty() && b.start.is_some()).then(|| b.player(me).clock.clone())
                }
            };
            let state = GameState {
                ctl: Controller::new(self.config.options.clone()),
                me,
                plays: me,
                komi: None,
                bidding: false,
                names: [black.name.clone(), white.name.clone()],
                ratings: [black.rating, white.rating],
                game_type: b.game_type.clone(),
                start_clock,
                notes: BTreeMap::new(),
                turn: None,
                sent_for: None,
                errors: 0,
            };
            self.games.insert(b.id.clone(), state);
        }
        let g = self.games.get_mut(&b.id).expect("inserted");
        if b.join {
            // A komi game's fresh join (the komi set) may give the client the other colour.
            g.me = me;
        }
        sync_game(g, &b);
        let pos = g.ctl.position();
        g.komi = b.komi;
        // Before a komi game's komi is set, both players bid for the side to move.
        let bidding = b.game_type.komi && b.komi.is_none();
        g.bidding = bidding;
        g.plays = if bidding { pos.to_move } else { me };
        let plays = g.plays;
        // The clock for the time manager: what the server shows, less a margin, shared with
        // the other game of a synchro match while both run (one search serves both).
        let clock = &b.player(me).clock;
        g.ctl.clock_mut().set_control(
            plays,
            // Past the main time, a control of nothing but zeros would read as untimed: the
            // extension keeps the clock on.
            Some(clock.to_time_control()),
        );
        let over = pos.board.is_game_over();
        let match_id = b.id.match_id();
        let others = self
            .games
            .iter()
            .filter(|(id, o)| {
                **id != b.id && id.match_id() == match_id && !o.ctl.position().board.is_game_over()
            })
            .count();
        let g = self.games.get_mut(&b.id).expect("inserted");
        g.ctl
            .clock_mut()
            .set_left(plays, plan_time(clock, 1 + others), 0);
        if over || pos.to_move != plays {
            g.turn = None;
            return Ok(());
        }
        if g.sent_for == Some(pos) {
            return Ok(());
        }
        g.turn = Some(Instant::now());
        if !self.waiting.contains(&b.id) && session.searching() != Some(&b.id) {
            self.waiting.push_back(b.id);
        }
        self.next_search(session)
    }

    /// Starts the next waiting game's move when no search runs.
    fn next_search(&mut self, session: &mut Session) -> io::Result<()> {
        while !session.busy() {
            let Some(id) = self.waiting.pop_front() else {
                return Ok(());
            };
            let Some(g) = self.games.get_mut(&id) else {
                continue;
            };
            let Some(turn) = g.turn else { continue };
            // Time spent waiting for the other game's search counts.
            let plays = g.plays;
            if let Some(left) = g.ctl.clock().left(plays) {
                let left = (left - turn.elapsed().as_secs_f64()).max(0.01);
                g.ctl.clock_mut().set_left(plays, left, 0);
            }
            match g.ctl.choose(plays, session, id.clone()) {
                Ok(Answer::Now(choice)) => self.send_move(&id, &choice),
                Ok(Answer::Searching) => {}
                Err(e) => log::debug!("GGS: no move to make in {id}: {e:?}"),
            }
        }
        Ok(())
    }

    /// Sends `choice` as the move of game `id`.
    fn send_move(&mut self, id: &GameId, choice: &Choice) {
        let Some(g) = self.games.get_mut(id) else {
            return;
        };
        let spent = g.turn.map_or(choice.elapsed, |t| t.elapsed());
        g.sent_for = Some(g.ctl.position());
        // A komi bid must carry the result expected (0 when nothing scored the move).
        let eval = choice.score.map(f64::from).or(g.bidding.then_some(0.0));
        let line = outgoing::play(id, choice.mv, eval, spent.as_secs_f64());
        log::info!(
            "GGS: {id}: {} ({:?}) in {:.2} s",
            choice.mv,
            choice.score,
            spent.as_secs_f64()
        );
        self.send(&line);
    }

    /// `/os: error`: a move refused (or another error of a game).
    fn game_error(&mut self, id: Option<GameId>, text: &str) {
        log::warn!(
            "GGS error in {}: {text}",
            id.as_ref().map_or("?", |i| i.as_str())
        );
        let Some(id) = id else { return };
        let Some(g) = self.games.get_mut(&id) else {
            return;
        };
        g.errors += 1;
        g.sent_for = None;
        if g.errors >= MAX_ERRORS {
            log::error!("GGS: {id}: {MAX_ERRORS} moves refused; no more moves in this game");
            g.turn = None;
        } else if g.turn.is_some() && !self.waiting.contains(&id) {
            self.waiting.push_back(id);
        }
    }

    /// A game ended (`/os: end`, or the end of a one-game match); `result` is from the side
    /// of `first`, the player the server listed first.
    fn game_over(
        &mut self,
        id: &GameId,
        result: &GameResult,
        first: &str,
        session: &mut Session,
    ) -> io::Result<()> {
        let Some(g) = self.games.remove(id) else {
            return Ok(());
        };
        self.waiting.retain(|w| w != id);
        if session.searching() == Some(id) {
            // Its answer is of no use now.
            session.stop();
        }
        let pos = g.ctl.position();
        let (me, other) = (g.me, g.me.opposite());
        let how = if pos.board.is_game_over() {
            let black = f64::from(pos.black_final_score()) - g.komi.unwrap_or(0.0);
            let mine = if me == Color::Black { black } else { -black };
            let komi = g.komi.map_or(String::new(), |k| format!(" (komi {k})"));
            format!("{}{komi}", margin_text(mine))
        } else {
            let mine = seen_from(result, first != self.config.user);
            format!("not played out, {}", mine_text(&mine))
        };
        session.line(&format!(
            "game {id} over: {} ({me}) against {} ({other}): {how}",
            self.config.user,
            g.names[other.index()],
        ))?;
        if let Some(file) = &mut self.config.games {
            let black = seen_from(result, first != g.names[0]);
            file.append(&ggf_of(&g, &black).to_ggf(), &format!("game {id}"));
        }
        Ok(())
    }

    /// A match of the client's ended.
    fn match_over(
        &mut self,
        info: &MatchInfo,
        result: &GameResult,
        session: &mut Session,
    ) -> io::Result<Flow> {
        let ids: Vec<GameId> = self
            .games
            .keys()
            .filter(|g| g.match_id() == info.id)
            .cloned()
            .collect();
        self.clocks.ended(&info.id);
        if let GameResult::Left(who) = result {
            // Adjourned: the games are stored and resume later.
            session.line(&format!("match {} adjourned ({who} left)", info.id))?;
            for id in &ids {
                self.forget(id, session);
            }
            self.matches.remove(&info.id);
            if who == &self.config.user {
                self.adjourned.insert(info.id.clone());
            }
            return Ok(Flow::Continue);
        }
        let first = &info.players[0].name;
        for id in &ids {
            self.game_over(id, result, first, session)?;
        }
        self.matches.remove(&info.id);
        self.ended += 1;
        let mine = seen_from(result, *first != self.config.user);
        session.line(&format!("match {} over: {}", info.id, mine_text(&mine)))?;
        if self.done_playing() && self.matches.is_empty() {
            return Ok(self.quit());
        }
        self.ask();
        Ok(Flow::Continue)
    }

    /// Drops a game without a result.
    fn forget(&mut self, id: &GameId, session: &mut Session) {
        self.games.remove(id);
        self.waiting.retain(|w| w != id);
        if session.searching() == Some(id) {
            session.stop();
        }
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
        match self.games.get(&id).map(|g| g.ctl.searched(done).1) {
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
