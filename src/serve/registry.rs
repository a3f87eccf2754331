//! The games the server holds: each a [`Room`] behind its own lock with a broadcast channel to
//! its connections, the engine pool that searches for all of them, and the store that keeps
//! them. Every change goes the same way: the game's old search is stopped, the engine moves
//! if it is its turn, the game is written to the store, and its connections are told.

use super::messages::{CreateRequest, Listed, ScoredMove, Seated, ServerMessage};
use super::pool::Pool;
use super::record::Record;
use super::room::{Mode, Room, Seat, move_name, parse_color};
use super::store::{Store, StoreError};
use crate::board::{ByColor, Color};
use crate::controller::{Answer, Choice, Finished, Hints, Options, Searched};
use crate::notation::{GgfGame, ggf_date, parse_position};
use crate::search::{Info, Limits};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::Duration;
use tokio::sync::broadcast;

/// The most games the server holds at once; more are refused until the server restarts.
pub const MAX_GAMES: usize = 100_000;
/// The deepest analysis a connection may ask for.
pub const MAX_ANALYSIS_DEPTH: u32 = 20;
/// The longest an analysis may search.
const ANALYSIS_TIME: Duration = Duration::from_secs(60);

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
}

/// A search's tag: its number in its game (only the latest one's result is wanted) and its
/// work.
#[derive(Clone, Debug)]
pub struct Tag {
    seq: u64,
    work: Work,
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

fn refused(status: u16, message: impl Into<String>) -> Refused {
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
    pool: Pool<String, Tag>,
    store: Store,
    options: Options,
    conns: AtomicU64,
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
            store,
            options,
            conns: AtomicU64::new(0),
        });
        let r = registry.clone();
        std::thread::Builder::new()
            .name("outflank-results".into())
            .spawn(move || {
                while let Ok((id, done)) = rx.recv() {
                    r.finished(&id, done);
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
        let level = req.level.unwrap_or(10);
        if !(1..=60).contains(&level) {
            return Err(refused(400, "level must be 1 to 60"));
        }
        let time = match (req.time.unwrap_or(0.0), req.increment.unwrap_or(0.0)) {
            _ if mode != Mode::Engine => None,
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
        self.open_room(mode, color, game, engine, level, time, hints)
    }

    /// Loads a GGF game or a transcript as a `local` game.
    pub fn load_text(&self, text: &str) -> Result<Seated, Refused> {
        let game = parse_position(text.trim()).map_err(|e| refused(400, e.to_string()))?;
        self.open_room(Mode::Local, Color::Black, game, None, 10, None, true)
    }

    #[allow(clippy::too_many_arguments)]
    fn open_room(
        &self,
        mode: Mode,
        color: Color,
        game: crate::game::Game,
        engine: Option<Color>,
        level: u32,
        time: Option<(f64, f64)>,
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
            level,
            time,
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
        let games: Vec<Arc<Live>> = self.games().values().cloned().collect();
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
        if let Some(o) = room.outcome() {
            let margin = o.black as i32 - o.white as i32;
            g.result = Some(match o.reason.as_str() {
                "resign" => format!("{margin:+}:r"),
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
        let seat_or = |what: &str| seat.ok_or_else(|| format!("a spectator cannot {what}"));
        match msg {
            M::Hello { .. } => return Err("hello was said already".into()),
            M::Move { mv } => room.play(seat_or("play")?, &mv)?,
            M::Undo => room.undo(seat_or("undo")?)?,
            M::Resign => room.resign(seat_or("resign")?)?,
            M::Analyze { depth } => return self.analyze(&mut room, conn, depth),
            M::Hint => return self.hint(&mut room, seat, conn),
        }
        self.changed(live, &mut room);
        Ok(None)
    }

    /// The checks an analysis or a hint passes: allowed in this game, and a position to
    /// search.
    fn may_search(&self, room: &Room) -> Result<(), String> {
        if room.thinking {
            return Err("the engine is thinking".into());
        }
        if room.game().is_over() {
            return Err("the game is over: no move to score".into());
        }
        Ok(())
    }

    fn analyze(
        &self,
        room: &mut Room,
        conn: u64,
        depth: u32,
    ) -> Result<Option<ServerMessage>, String> {
        if !(1..=MAX_ANALYSIS_DEPTH).contains(&depth) {
            return Err(format!("depth must be 1 to {MAX_ANALYSIS_DEPTH}"));
        }
        let allowed = match room.mode {
            _ if room.is_over() => true,
            Mode::Local => true,
            Mode::Engine => room.hints,
            Mode::Online => false,
        };
        if !allowed {
            return Err("analysis is off in this game until it ends".into());
        }
        self.may_search(room)?;
        let pos = room.game().position();
        let limits = Limits {
            depth: Some(depth),
            time: Some(ANALYSIS_TIME),
            multipv: pos.legal_moves().len().max(1),
            ..Limits::default()
        };
        room.seq += 1;
        let tag = Tag {
            seq: room.seq,
            work: Work::Analysis {
                conn,
                ply: room.game().len(),
            },
        };
        let mut searcher = self.pool.searcher(room.id.clone());
        room.controller
            .analyze_within(pos.board, limits, &mut searcher, tag);
        room.search = Some(room.seq);
        room.asker = Some(conn);
        Ok(None)
    }

    fn hint(
        &self,
        room: &mut Room,
        seat: Option<Seat>,
        conn: u64,
    ) -> Result<Option<ServerMessage>, String> {
        if room.mode != Mode::Engine || !room.hints || seat.is_none() {
            return Err("hints are off in this game".into());
        }
        self.may_search(room)?;
        room.seq += 1;
        let ply = room.game().len();
        let tag = Tag {
            seq: room.seq,
            work: Work::Analysis { conn, ply },
        };
        let mut searcher = self.pool.searcher(room.id.clone());
        match room.controller.hint(1, &mut searcher, tag) {
            Hints::Book(moves) => Ok(Some(ServerMessage::Analysis {
                ply,
                depth: 0,
                moves: moves
                    .into_iter()
                    .map(|(m, _)| ScoredMove {
                        mv: move_name(m.mv),
                        score: m.score,
                    })
                    .collect(),
            })),
            Hints::Searching => {
                room.search = Some(room.seq);
                room.asker = Some(conn);
                Ok(None)
            }
            Hints::GameOver => Err("the game is over".into()),
        }
    }

    /// Connection `conn` left: its analysis, if one runs, stops.
    pub fn left(&self, live: &Live, conn: u64) {
        let mut room = live.room();
        if room.search.is_some() && !room.thinking && room.asker == Some(conn) {
            self.pool.cancel(&room.id);
            room.search = None;
            room.asker = None;
        }
    }

    /// After a change: the old search stops, the engine moves when it is its turn, the game
    /// is kept and its connections told.
    fn changed(&self, live: &Live, room: &mut Room) {
        if room.search.take().is_some() {
            self.pool.cancel(&room.id);
        }
        room.thinking = false;
        room.asker = None;
        self.start_engine(room);
        self.publish(live, room);
    }

    /// Writes the game to the store and tells its connections.
    fn publish(&self, live: &Live, room: &mut Room) {
        room.mark_finished(now());
        if let Err(e) = self.store.save(&Record::of(room)) {
            log::error!("game {}: not saved: {e}", room.id);
        }
        let _ = live.notes.send(Note::State);
    }

    /// Lets the engine move while it is its turn: at once (the only move, a book move) or
    /// by a search whose result comes to [`Registry::finished`].
    fn start_engine(&self, room: &mut Room) {
        while room.engine_to_move() {
            let Some(color) = room.engine else { return };
            room.seq += 1;
            let tag = Tag {
                seq: room.seq,
                work: Work::Move,
            };
            let mut searcher = self.pool.searcher(room.id.clone());
            match room.controller.choose(color, &mut searcher, tag) {
                Ok(Answer::Now(choice)) => commit(room, &choice),
                Ok(Answer::Searching) => {
                    room.search = Some(room.seq);
                    room.thinking = true;
                    return;
                }
                Err(_) => return,
            }
        }
    }

    /// A search of game `id` finished: the engine's move is played, an analysis sent to the
    /// connection that asked; the result of a search replaced since is dropped.
    fn finished(&self, id: &str, done: Finished<Tag>) {
        let Some(live) = self.live(id) else { return };
        let mut room = live.room();
        if room.search != Some(done.job.tag.seq) {
            return;
        }
        room.search = None;
        room.thinking = false;
        let (tag, searched) = room.controller.searched(done);
        match (tag.work, searched) {
            (Work::Move, Searched::Move(choice)) => {
                commit(&mut room, &choice);
                self.start_engine(&mut room);
            }
            (Work::Analysis { conn, ply }, Searched::Analysis(info)) => {
                let text = analysis(&mut room, ply, &info).to_json();
                let _ = live.notes.send(Note::To {
                    conn,
                    text: text.into(),
                });
            }
            _ => self.start_engine(&mut room),
        }
        self.publish(&live, &mut room);
    }
}

/// Plays the engine's choice and notes its score.
fn commit(room: &mut Room, choice: &Choice) {
    let ply = room.game().len();
    if let Err(e) = room.controller.commit(choice) {
        log::error!("game {}: the engine's move {}: {e}", room.id, choice.mv);
        return;
    }
    room.sync_evals();
    if let Some(score) = choice.score {
        room.note_eval(ply, score);
    }
}

/// The analysis message of a search of the position at `ply`; its best score is noted.
fn analysis(room: &mut Room, ply: usize, info: &Info) -> ServerMessage {
    if let Some(best) = info.best() {
        room.note_eval(ply, best.score);
    }
    ServerMessage::Analysis {
        ply,
        depth: info.depth,
        moves: info
            .lines
            .iter()
            .map(|l| ScoredMove {
                mv: move_name(l.mv),
                score: l.score,
            })
            .collect(),
    }
}
