//! The games the server holds: each a [`Room`] behind its own lock with a broadcast channel to
//! its connections, the engine pool that searches for all of them, and the store that keeps
//! them. Every change goes the same way: the game's old search is stopped, the engine moves
//! if it is its turn, the game is written to the store, and its connections are told.

use super::messages::{CreateRequest, Listed, Seated, ServerMessage};
use super::pool::Pool;
use super::record::Record;
use super::room::{Mode, Room, Seat, Strength, parse_color};
use super::store::{Store, StoreError};
use crate::board::{ByColor, Color};
use crate::controller::{Finished, Options};
use crate::notation::{GgfGame, ggf_date, parse_position};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use tokio::sync::broadcast;

/// The most games the server holds at once; more are refused until the server restarts.
pub const MAX_GAMES: usize = 100_000;

/// What a search is for.
#[derive(Clone, Debug)]
pub enum Work {
    /// The engine's move.
    Move,
    /// An analysis (every legal move scored) or a hint, for connection `conn`.
    Analysis {
        /// The connection that asked.
        conn: u64,
        /// The ply of the position.
        ply: usize,
    },
    /// A position of a game review ([`super::review`]).
    Review,
}

/// A search's tag: its number in its game (only the latest one's result is wanted) and its
/// work.
#[derive(Clone, Debug)]
pub struct Tag {
    pub(super) seq: u64,
    pub(super) work: Work,
}

/// What a game's connections are told.
#[derive(Clone, Debug)]
pub enum Note {
    /// The game changed: each connection sends its own view of the state.
    State,
    /// A message for one connection.
    To {
        /// The connection.
        conn: u64,
        /// The message, as JSON.
        text: Arc<str>,
    },
}

/// A game held by the server: its room and its connections' channel.
pub struct Live {
    room: Mutex<Room>,
    /// The game's notes to its connections.
    pub notes: broadcast::Sender<Note>,
}

impl Live {
    /// The room, locked.
    pub fn room(&self) -> MutexGuard<'_, Room> {
        self.room.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A refused HTTP request: its status and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The HTTP status.
    pub status: u16,
    /// Why.
    pub message: String,
}

pub(super) fn refused(status: u16, message: impl Into<String>) -> Refused {
    Refused {
        status,
        message: message.into(),
    }
}

/// 128 random bits as 32 hex digits (the system's random source).
pub fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The games, the engine pool and the store.
pub struct Registry {
    games: Mutex<HashMap<String, Arc<Live>>>,
    pub(super) pool: Pool<String, Tag>,
    pub(super) reviews: super::review::Reviews,
    store: Store,
    options: Options,
    conns: AtomicU64,
    /// The deadlines of the running clocks.
    pub(super) referee: super::clocks::Referee,
}

impl Registry {
    /// A registry over `store`, searching with `threads` engines made from `options`; the
    /// games of the store are resumed (the engine searches where it is to move).
    pub fn open(store: Store, options: Options, threads: usize) -> anyhow::Result<Arc<Registry>> {
        let (tx, rx) = mpsc::channel::<(String, Finished<Tag>)>();
        let tx = Mutex::new(tx);
        let done = Box::new(move |id: String, f: Finished<Tag>| {
            let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send((id, f));
        });
        let mut setup = options.engine_setup();
        setup.config.threads = 1;
        let pool = Pool::new(&setup, threads, done)?;
        let registry = Arc::new(Registry {
            games: Mutex::new(HashMap::new()),
            pool,
            reviews: Default::default(),
            store,
            options,
            conns: AtomicU64::new(0),
            referee: Default::default(),
        });
        let r = registry.clone();
        std::thread::Builder::new()
            .name("outflank-results".into())
            .spawn(move || {
                while let Ok((id, done)) = rx.recv() {
                    match done.job.tag.work {
                        Work::Review => r.reviewed(&id, done),
                        _ => r.finished(&id, done),
                    }
                }
            })?;
        registry.resume()?;
        Ok(registry)
    }

    fn games(&self) -> MutexGuard<'_, HashMap<String, Arc<Live>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads every game of the store; the engine moves where it is to.
    fn resume(&self) -> Result<(), StoreError> {
        let records = self.store.load()?;
        let mut resumed = 0;
        for record in records {
            match record.room(self.options.clone()) {
                Ok(room) => {
                    let live = self.insert(room);
                    let mut room = live.room();
                    if room.engine_to_move() {
                        self.start_engine(&mut room);
                    }
                    self.keep_time(&mut room);
                    resumed += 1;
                }
                Err(e) => log::warn!("game {}: cannot resume it ({e})", record.id),
            }
        }
        log::info!("{resumed} games resumed");
        Ok(())
    }

    fn insert(&self, room: Room) -> Arc<Live> {
        let (notes, _) = broadcast::channel(64);
        let id = room.id.clone();
        let live = Arc::new(Live {
            room: Mutex::new(room),
            notes,
        });
        self.games().insert(id, live.clone());
        live
    }

    /// The game `id`.
    pub fn live(&self, id: &str) -> Option<Arc<Live>> {
        self.games().get(id).cloned()
    }

    /// Every game held.
    pub(super) fn lives(&self) -> Vec<Arc<Live>> {
        self.games().values().cloned().collect()
    }

    /// The games not finished.
    pub fn ongoing(&self) -> usize {
        self.lives()
            .iter()
            .filter(|live| live.room().finished.is_none())
            .count()
    }

    /// A new connection's number.
    pub fn connection(&self) -> u64 {
        self.conns.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The searches running and waiting.
    pub fn load(&self) -> (usize, usize) {
        self.pool.load()
    }

    /// Creates a game as `POST /api/games` asks.
    pub fn create(&self, req: CreateRequest) -> Result<Seated, Refused> {
        let mode = Mode::parse(&req.mode)
            .ok_or_else(|| refused(400, "mode must be engine, local or online"))?;
        let color = match req.color.as_deref() {
            None => Color::Black,
            Some(c) => {
                parse_color(c).ok_or_else(|| refused(400, "color must be black or white"))?
            }
        };
        // A level with a clock: the engine plays at the level and only the person has a
        // clock; a clock alone: the engine plays on its clock.
        let level_on_clock = req.level.is_some();
        let level = req.level.unwrap_or(10);
        if !(1..=60).contains(&level) {
            return Err(refused(400, "level must be 1 to 60"));
        }
        let time = match (req.time.unwrap_or(0.0), req.increment.unwrap_or(0.0)) {
            (t, i) if !(0.0..=86_400.0).contains(&t) || !(0.0..=3_600.0).contains(&i) => {
                return Err(refused(
                    400,
                    "time must be 0 to 86400 s, increment 0 to 3600 s",
                ));
            }
            (0.0, _) => None,
            (t, i) => Some((t, i)),
        };
        let game = match req.start.as_deref().map(str::trim) {
            None | Some("") => crate::game::Game::default(),
            Some(text) => parse_position(text).map_err(|e| refused(400, e.to_string()))?,
        };
        let engine = (mode == Mode::Engine).then(|| color.opposite());
        let hints = req.hints.unwrap_or(false);
        let strength = Strength {
            level,
            time,
            level_on_clock,
        };
        self.open_room(mode, color, game, engine, strength, hints)
    }

    /// Loads a GGF game or a transcript as a `local` game.
    pub fn load_text(&self, text: &str) -> Result<Seated, Refused> {
        let game = parse_position(text.trim()).map_err(|e| refused(400, e.to_string()))?;
        let strength = Strength {
            level: 10,
            time: None,
            level_on_clock: false,
        };
        self.open_room(Mode::Local, Color::Black, game, None, strength, true)
    }

    fn open_room(
        &self,
        mode: Mode,
        color: Color,
        game: crate::game::Game,
        engine: Option<Color>,
        strength: Strength,
        hints: bool,
    ) -> Result<Seated, Refused> {
        if self.games().len() >= MAX_GAMES {
            return Err(refused(503, "too many games on this server"));
        }
        let id = random_hex();
        let token = random_hex();
        let mut room = Room::new(
            id.clone(),
            mode,
            now(),
            self.options.clone(),
            game,
            engine,
            strength,
            hints,
        );
        let seat = match mode {
            Mode::Local => {
                room.tokens = ByColor::new(Some(token.clone()), Some(token.clone()));
                Seat::Both
            }
            _ => {
                room.tokens[color] = Some(token.clone());
                Seat::One(color)
            }
        };
        let live = self.insert(room);
        let mut room = live.room();
        self.changed(&live, &mut room);
        Ok(Seated {
            id: Some(id),
            token,
            color: seat.name().to_string(),
        })
    }

    /// Takes the free seat of online game `id`.
    pub fn join(&self, id: &str) -> Result<Seated, Refused> {
        let live = self.live(id).ok_or_else(|| refused(404, "no such game"))?;
        let mut room = live.room();
        if room.mode != Mode::Online {
            return Err(refused(409, "only an online game has a seat to join"));
        }
        let free = [Color::Black, Color::White]
            .into_iter()
            .find(|&c| room.tokens[c].is_none())
            .ok_or_else(|| refused(409, "both seats are taken"))?;
        let token = random_hex();
        room.tokens[free] = Some(token.clone());
        self.changed(&live, &mut room);
        Ok(Seated {
            id: None,
            token,
            color: free.name().to_string(),
        })
    }

    /// The finished games, newest first.
    pub fn list(&self) -> Vec<Listed> {
        let games = self.lives();
        let mut list: Vec<Listed> = games
            .iter()
            .filter_map(|live| {
                let room = live.room();
                let finished = room.finished?;
                Some(Listed {
                    id: room.id.clone(),
                    mode: room.mode.name().to_string(),
                    black: room.player(Color::Black, None),
                    white: room.player(Color::White, None),
                    result: room.outcome().map(|o| o.score),
                    moves: room.game().len(),
                    created: room.created,
                    finished: Some(finished),
                })
            })
            .collect();
        list.sort_by_key(|g| std::cmp::Reverse((g.finished, g.created)));
        list.truncate(500);
        list
    }

    /// Game `id` as GGF.
    pub fn ggf(&self, id: &str) -> Option<String> {
        let live = self.live(id)?;
        let room = live.room();
        let mut g = GgfGame::from_game(room.game());
        g.place = Some("outflank serve".into());
        g.date = Some(ggf_date(room.created));
        g.black = Some(room.player(Color::Black, None));
        g.white = Some(room.player(Color::White, None));
        g.time = room.time_control();
        if let Some(o) = room.outcome() {
            let margin = o.black as i32 - o.white as i32;
            g.result = Some(match o.reason.as_str() {
                "resign" => format!("{margin:+}:r"),
                "time" => format!("{margin:+}:t"),
                _ => format!("{margin:+}"),
            });
        }
        Some(g.to_ggf())
    }

    /// Handles a message of a connection with `seat` (none: a spectator): the change is
    /// made and told to every connection; an error (nothing changed) or an answer is for
    /// the sender.
    pub fn handle(
        &self,
        live: &Live,
        seat: Option<Seat>,
        conn: u64,
        msg: super::messages::ClientMessage,
    ) -> Result<Option<ServerMessage>, String> {
        use super::messages::ClientMessage as M;
        let mut room = live.room();
        // A clock that ran out ends the game before the message counts.
        self.flag_fall(live, &mut room);
        let seat_or = |what: &str| seat.ok_or_else(|| format!("a spectator cannot {what}"));
        match msg {
            M::Hello { .. } => return Err("hello was said already".into()),
            M::Move { mv } => room.play(seat_or("play")?, &mv)?,
            M::Undo => room.undo(seat_or("undo")?)?,
            M::Resign => room.resign(seat_or("resign")?)?,
            M::Analyze { depth } => return self.analyze(&mut room, conn, depth),
            M::Hint => return self.hint(&mut room, seat, conn),
            M::Review { depth } => return self.review(live, &mut room, conn, depth).map(|_| None),
        }
        self.changed(live, &mut room);
        Ok(None)
    }

    /// Connection `conn` left: its analysis or review, if one runs, stops.
    pub fn left(&self, live: &Live, conn: u64) {
        let mut room = live.room();
        self.stop_review(&room.id, conn);
        if room.search.is_some() && !room.thinking && room.asker == Some(conn) {
            self.pool.cancel(&room.id);
            room.search = None;
            room.asker = None;
        }
    }

    /// After a change: the old search stops, the engine moves when it is its turn, the game
    /// is kept and its connections told.
    pub(super) fn changed(&self, live: &Live, room: &mut Room) {
        if room.search.take().is_some() {
            self.pool.cancel(&room.id);
        }
        room.thinking = false;
        room.asker = None;
        self.start_engine(room);
        self.publish(live, room);
    }

    /// Writes the game to the store and tells its connections.
    pub(super) fn publish(&self, live: &Live, room: &mut Room) {
        self.keep_time(room);
        room.mark_finished(now());
        self.save(room);
        let _ = live.notes.send(Note::State);
    }

    /// Writes the game to the store.
    pub(super) fn save(&self, room: &Room) {
        if let Err(e) = self.store.save(&Record::of(room)) {
            log::error!("game {}: not saved: {e}", room.id);
        }
    }
}
