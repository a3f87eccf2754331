//! The text front-ends over stdin/stdout: the protocols GUIs and referees use to drive the
//! engine, [`gtp`] and [`nboard`], and the [`terminal`] game a person plays by typing moves.
//!
//! What they share lives here:
//!
//! - a reader thread that turns stdin into [`Input`] lines (at most [`MAX_LINE`] bytes,
//!   lossy UTF-8, CR LF or LF endings, EOF reported), so that a search can be interrupted
//!   while it runs;
//! - a [`Worker`] thread that owns the [`Engine`] and runs one [`Engine::search`] at a time
//!   with a fresh stop flag, reporting progress and results as [`Event`]s;
//! - the [`Session`] a front-end writes to (every line flushed) and starts searches from;
//! - the driver [`run`]: lines are queued and handled one after another while no search
//!   runs; lines that must interrupt stop the running search when they arrive: those that
//!   end the exchange (NBoard's `ping`, `quit`: [`Interrupt::Session`]) also stop at
//!   once the searches started while they wait in the queue, while the terminal game's
//!   `stop` ([`Interrupt::Search`]) stops only the search it arrived during;
//! - the engine [`Options`] every front-end accepts, and how to set them by name.
//!
//! Front-ends parse a line into a command enum first and then dispatch on it; they contain
//! no search code.

pub mod ggs;
pub mod gtp;
pub mod nboard;
pub mod terminal;

use crate::board::{Board, Move};
use crate::book::{Book, BookMove};
use crate::search::time::{Level, MovePlan};
use crate::search::tt::TranspositionTable;
use crate::search::{Engine, EngineConfig, Info, Limits};
use crate::train::Rng;
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

/// The longest input line accepted, in bytes (1 MiB, line ending excluded). Longer lines are
/// reported as [`Input::TooLong`].
pub const MAX_LINE: usize = 1 << 20;

/// The engine's name, as the protocols report it.
pub const NAME: &str = "Outflank";

/// The engine's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One thing read from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line without its line ending (`\n` or `\r\n`), invalid UTF-8 replaced.
    Line(String),
    /// A line longer than [`MAX_LINE`]; `len` is its length in bytes.
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The end of the input (or a read error): the controller is gone.
    Eof,
}

/// What the driver loop receives: input lines and search reports.
#[derive(Debug)]
pub enum Event {
    /// A line (or EOF) from the reader thread.
    Input(Input),
    /// A search finished an iteration.
    Progress {
        /// The search it belongs to.
        id: u64,
        /// The iteration's result.
        info: Info,
    },
    /// A search returned.
    Done {
        /// The search it belongs to.
        id: u64,
        /// Its result.
        info: Info,
    },
}

/// Reads `input` line by line on a new thread and sends each line, then [`Input::Eof`], to
/// `events`. The thread ends at EOF, on a read error, or when nobody listens any more.
pub fn spawn_reader<R: Read + Send + 'static>(input: R, events: Sender<Event>) {
    thread::Builder::new()
        .name("outflank-stdin".into())
        .spawn(move || read_lines(input, &events))
        .expect("a reader thread");
}

/// The reader thread's loop (see [`spawn_reader`]).
fn read_lines<R: Read>(input: R, events: &Sender<Event>) {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    let mut len = 0usize;
    let send = |line: &mut Vec<u8>, len: &mut usize| -> bool {
        let input = if *len > MAX_LINE {
            Input::TooLong { len: *len }
        } else {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            Input::Line(String::from_utf8_lossy(line).into_owned())
        };
        line.clear();
        *len = 0;
        events.send(Event::Input(input)).is_ok()
    };
    loop {
        let buf = match reader.fill_buf() {
            Ok([]) => break,
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log::warn!("reading input: {e}");
                break;
            }
        };
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        len += chunk.len();
        if len <= MAX_LINE + 1 {
            // One byte more than the limit is kept so that a CR before LF can be dropped.
            let room = (MAX_LINE + 1).saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            // A CR before the LF is not part of the line's length.
            if line.last() == Some(&b'\r') && len == MAX_LINE + 1 {
                len -= 1;
            }
            if !send(&mut line, &mut len) {
                return;
            }
        }
    }
    if len > 0 && !send(&mut line, &mut len) {
        return;
    }
    let _ = events.send(Event::Input(Input::Eof));
}

/// Engine settings shared by both protocols, from the command line (and, where the protocol
/// allows it, changed at run time).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Search threads.
    pub threads: usize,
    /// Hash table size in megabytes.
    pub hash_mb: usize,
    /// Level, depth and time per move.
    pub plan: MovePlan,
    /// Whether to play and hint from the opening book.
    pub book: bool,
    /// The opening book (the shipped one unless the command line names another).
    pub opening_book: Arc<Book>,
    /// Where NBoard's `learn` saves the book; without it, learned games last for the session.
    pub book_file: Option<PathBuf>,
    /// Book moves up to this many discs below the best are played too, picked at random
    /// (0: only the best, at random among equals).
    pub book_randomness: i32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            hash_mb: 64,
            plan: MovePlan::default(),
            book: true,
            opening_book: Arc::new(Book::shipped()),
            book_file: None,
            book_randomness: 0,
        }
    }
}

impl Options {
    /// The book move to play in `board` when the book is on and holds the position: one of
    /// the moves within [`Options::book_randomness`] of the best, picked by `rng` (variety in
    /// matches).
    pub fn book_move(&self, board: &Board, rng: &mut Rng) -> Option<BookMove> {
        if !self.book {
            return None;
        }
        self.opening_book.choose(board, self.book_randomness, |n| {
            rng.below(n as u64) as usize
        })
    }

    /// The best `n` book moves of `board`, each with the book's line after it (the move
    /// first), when the book is on and holds the position with at least one move.
    pub fn book_hints(&self, board: &Board, n: usize) -> Option<Vec<(BookMove, Vec<Move>)>> {
        if !self.book {
            return None;
        }
        let book = &self.opening_book;
        let moves = book.moves(board).filter(|m| !m.is_empty())?;
        Some(
            moves
                .into_iter()
                .take(n.max(1))
                .map(|m| {
                    let line = book.line_after(board, &m, 12);
                    (m, line)
                })
                .collect(),
        )
    }

    /// The limits of an analysis (hints): the level, or the fixed depth, without a clock.
    pub fn analysis_limits(&self, board: &Board) -> Limits {
        let plan = &self.plan;
        let level = plan
            .level
            .or(plan.depth.map(Level::new))
            .unwrap_or(Level::DEFAULT);
        let mut limits = level.limits(board.empty_count());
        if let (Some(d), None) = (plan.depth, limits.solve) {
            limits.depth = Some(d.max(1));
        }
        limits
    }

    /// Sets one option by name, as GTP's `outflank-set` and the terminal game's `set` take
    /// them: `threads`, `hash` (MB), `level`, `depth`, `time` (seconds per move; `level`,
    /// `depth` and `time` also take `none`), `book` (on/off), `book-randomness` (discs).
    /// Threads and hash size reach the engine through `session`. On error nothing changes.
    pub fn set(&mut self, key: &str, value: &str, session: &Session) -> Result<(), String> {
        let none = value.eq_ignore_ascii_case("none") || value.eq_ignore_ascii_case("off");
        let number = |low: u32, high: u32| -> Result<u32, String> {
            value
                .parse::<u32>()
                .ok()
                .filter(|n| (low..=high).contains(n))
                .ok_or_else(|| {
                    format!("{key} wants a whole number from {low} to {high}, not {value:?}")
                })
        };
        match key {
            "threads" => {
                let t = number(1, 256)? as usize;
                self.threads = t;
                session.configure(move |e| e.set_threads(t));
            }
            "hash" => {
                let mb = number(1, 1 << 20)? as usize;
                if mb == self.hash_mb {
                    // The table there is kept (with what it holds): no new one to map.
                    return Ok(());
                }
                // Made here, so that a refusal of the memory is an answer, not a crash.
                let table = TranspositionTable::try_new(mb).map_err(|e| e.to_string())?;
                self.hash_mb = mb;
                session.configure(move |e| e.set_table(table));
            }
            "level" => {
                self.plan.level = if none {
                    None
                } else {
                    Some(Level::new(number(1, 60)?))
                }
            }
            "depth" => self.plan.depth = if none { None } else { Some(number(1, 60)?) },
            "time" => {
                self.plan.move_time = if none {
                    None
                } else {
                    let s: f64 = value
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s >= 0.001 && *s < 1e7)
                        .ok_or_else(|| {
                            format!("time wants seconds from 0.001 to 1e7, not {value:?}")
                        })?;
                    Some(Duration::from_secs_f64(s))
                }
            }
            "book" => {
                self.book = match value.to_ascii_lowercase().as_str() {
                    "on" | "1" | "true" => true,
                    "off" | "0" | "false" => false,
                    _ => return Err(format!("book wants on or off, not {value:?}")),
                }
            }
            "book-randomness" => {
                self.book_randomness = value
                    .parse::<i32>()
                    .ok()
                    .filter(|d| (0..=64).contains(d))
                    .ok_or_else(|| {
                    format!("book-randomness wants 0-64 discs, not {value:?}")
                })?;
            }
            _ => return Err(format!("unknown option {key:?}")),
        }
        Ok(())
    }

    /// The options [`Options::set`] takes, with their values, one `KEY VALUE` a line.
    pub fn describe(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        format!(
            "threads {}\nhash {}\nlevel {}\ndepth {}\ntime {}\nbook {}\nbook-randomness {}",
            self.threads,
            self.hash_mb,
            self.plan.level.map_or_else(
                || format!("none ({} without a clock, depth or time)", Level::DEFAULT),
                |l| l.to_string()
            ),
            opt(self.plan.depth.map(|d| d.to_string())),
            opt(self.plan.move_time.map(|t| t.as_secs_f64().to_string())),
            if self.book { "on" } else { "off" },
            self.book_randomness,
        )
    }

    /// The engine settings part.
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            threads: self.threads.max(1),
            hash_mb: self.hash_mb.max(1),
        }
    }
}

/// A job for the worker thread.
enum Task {
    Search {
        id: u64,
        board: Board,
        limits: Limits,
        ensure_move: bool,
        /// When the search was asked for: its time limit counts from then.
        asked: Instant,
    },
    Configure(Box<dyn FnOnce(&mut Engine) + Send>),
}

/// The thread that owns the engine and runs its searches, one at a time.
pub struct Worker {
    tasks: Sender<Task>,
}

impl Worker {
    /// Starts the worker with `engine`; it reports to `events`.
    pub fn spawn(engine: Engine, events: Sender<Event>) -> Worker {
        let (tasks, rx) = channel::<Task>();
        thread::Builder::new()
            .name("outflank-worker".into())
            .spawn(move || worker_loop(engine, rx, events))
            .expect("a worker thread");
        Worker { tasks }
    }

    fn send(&self, task: Task) {
        if self.tasks.send(task).is_err() {
            log::error!("the search worker is gone");
        }
    }
}

fn worker_loop(mut engine: Engine, tasks: Receiver<Task>, events: Sender<Event>) {
    // When the last configuration (a new table, a new thread pool) was done: a search asked
    // for before that counts its time from then.
    let mut configured = Instant::now();
    while let Ok(task) = tasks.recv() {
        match task {
            Task::Search {
                id,
                board,
                mut limits,
                ensure_move,
                asked,
            } => {
                // Time spent before the search starts waiting for the worker is the
                // controller's time too; the engine's configuration (a hash table made
                // and mapped, a thread pool) is not.
                if let Some(t) = limits.time {
                    let left = t.saturating_sub(asked.max(configured).elapsed());
                    limits.time = Some(left.max(Duration::from_millis(1)));
                }
                let progress_events = events.clone();
                let mut progress = move |info: &Info| {
                    let _ = progress_events.send(Event::Progress {
                        id,
                        info: info.clone(),
                    });
                };
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let mut info = engine.search(board, &limits, &mut progress);
                    if ensure_move && info.lines.is_empty() && board.moves() != 0 {
                        // Stopped before the first iteration: a depth-1 search still gives a
                        // sensible move at once.
                        let quick = Limits {
                            depth: Some(1),
                            ..Limits::default()
                        };
                        let q = engine.search(board, &quick, &mut |_| {});
                        info.lines = q.lines;
                        info.depth = q.depth;
                        info.selectivity = q.selectivity;
                        info.solve = q.solve;
                    }
                    info
                }));
                let info = result.unwrap_or_else(|_| {
                    log::error!("the search panicked; answering without it");
                    Info::default()
                });
                if events.send(Event::Done { id, info }).is_err() {
                    return;
                }
            }
            Task::Configure(f) => {
                if catch_unwind(AssertUnwindSafe(|| f(&mut engine))).is_err() {
                    log::error!("configuring the engine panicked");
                }
                configured = Instant::now();
            }
        }
    }
}

/// What a front-end does after handling an input or a finished search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on reading.
    Continue,
    /// Stop: the session ends.
    Quit,
}

/// What an input does to the running search when it arrives (it is handled in its turn
/// all the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// Nothing: it waits for the search to end.
    No,
    /// Stops the running search.
    Search,
    /// Stops the running search, and every search started before it is handled (it ends
    /// the exchange: quit, NBoard's ping; the end of the input only at a terminal, since
    /// piped commands before it are owed their full answers).
    Session,
}

/// The front-end's side of a session: the output, the worker, the running search.
pub struct Session<'w> {
    out: Box<dyn Write + 'w>,
    worker: Worker,
    next_id: u64,
    running: Option<(u64, Arc<AtomicBool>)>,
    /// [`Interrupt::Session`] lines that wait in the queue.
    interrupts: usize,
    /// Inputs that arrived while a search ran, to handle once none runs.
    queue: VecDeque<Input>,
}

impl Session<'_> {
    /// Writes one line (a newline is added) and flushes it.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    /// Writes raw text (no newline is added) and flushes it.
    pub fn raw(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }

    /// Starts a search; its progress and result come back to the front-end. With
    /// `ensure_move`, a search stopped before its first iteration still returns a move
    /// (from a depth-1 search) when the side to move has one. If an interrupting line is
    /// already waiting, the search is stopped from the start.
    pub fn search(&mut self, board: Board, mut limits: Limits, ensure_move: bool) {
        self.next_id += 1;
        let id = self.next_id;
        let stop = Arc::new(AtomicBool::new(self.interrupts > 0));
        limits.stop = Some(stop.clone());
        self.running = Some((id, stop));
        self.worker.send(Task::Search {
            id,
            board,
            limits,
            ensure_move,
            asked: Instant::now(),
        });
    }

    /// True while a search runs.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// True when lines wait to be handled (they come once no search runs); the end of the
    /// input does not count.
    pub fn input_waiting(&self) -> bool {
        self.queue.iter().any(|i| *i != Input::Eof)
    }

    /// True when an [`Interrupt::Session`] input waits: a search started now would stop at
    /// once.
    pub fn interrupt_pending(&self) -> bool {
        self.interrupts > 0
    }

    /// Asks the running search, if any, to stop (it returns its best result so far).
    pub fn stop(&self) {
        if let Some((_, stop)) = &self.running {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// Runs `f` on the engine on the worker thread, after the searches already asked for.
    pub fn configure(&self, f: impl FnOnce(&mut Engine) + Send + 'static) {
        self.worker.send(Task::Configure(Box::new(f)));
    }
}

/// A protocol front-end, driven by [`run`].
pub trait Frontend {
    /// Called once before any input: a front-end that acts first (the terminal game when
    /// the engine has the first move) starts here.
    fn start(&mut self, _session: &mut Session) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    /// What `input` does to a running search when it arrives (it is still handled in
    /// order).
    fn interrupts(&self, input: &Input) -> Interrupt;
    /// Handles one input while no search runs (it may start one).
    fn input(&mut self, input: Input, session: &mut Session) -> io::Result<Flow>;
    /// A running search finished an iteration.
    fn progress(&mut self, info: &Info, session: &mut Session) -> io::Result<()>;
    /// The running search returned (the front-end may start another one).
    fn done(&mut self, info: Info, session: &mut Session) -> io::Result<Flow>;
    /// Nothing runs and no input waits: a front-end that acts on its own (the engine
    /// playing itself) may go on here.
    fn idle(&mut self, _session: &mut Session) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// Runs a front-end: reads `input` on its own thread, writes replies to `output`, and
/// searches with an engine configured by `config` on a worker thread. Returns at `quit`,
/// at EOF, or when the output is closed (an error); fails at once, before reading
/// anything, when the system refuses the memory of the hash table.
pub fn run<F, R, W>(frontend: &mut F, input: R, output: W, config: EngineConfig) -> io::Result<()>
where
    F: Frontend,
    R: Read + Send + 'static,
    W: Write,
{
    let engine = Engine::try_new(config).map_err(io::Error::other)?;
    let (tx, rx) = channel::<Event>();
    spawn_reader(input, tx.clone());
    let worker = Worker::spawn(engine, tx);
    let mut session = Session {
        out: Box::new(output),
        worker,
        next_id: 0,
        running: None,
        interrupts: 0,
        queue: VecDeque::new(),
    };
    let result = drive(frontend, &rx, &mut session);
    session.stop();
    result
}

fn drive<F: Frontend>(
    frontend: &mut F,
    events: &Receiver<Event>,
    session: &mut Session,
) -> io::Result<()> {
    if frontend.start(session)? == Flow::Quit {
        return Ok(());
    }
    loop {
        while !session.busy() {
            let Some(input) = session.queue.pop_front() else {
                if frontend.idle(session)? == Flow::Quit {
                    return Ok(());
                }
                break;
            };
            if frontend.interrupts(&input) == Interrupt::Session {
                session.interrupts -= 1;
            }
            if frontend.input(input, session)? == Flow::Quit {
                return Ok(());
            }
        }
        let Ok(event) = events.recv() else {
            // Every sender is gone: nothing more can happen.
            return Ok(());
        };
        match event {
            Event::Input(input) => {
                match frontend.interrupts(&input) {
                    Interrupt::No => {}
                    Interrupt::Search => session.stop(),
                    Interrupt::Session => {
                        session.interrupts += 1;
                        session.stop();
                    }
                }
                session.queue.push_back(input);
            }
            Event::Progress { id, info } => {
                if session.running.as_ref().is_some_and(|r| r.0 == id) {
                    frontend.progress(&info, session)?;
                }
            }
            Event::Done { id, info } => {
                if session.running.as_ref().is_some_and(|r| r.0 == id) {
                    session.running = None;
                    if frontend.done(info, session)? == Flow::Quit {
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// Formats a duration in seconds with two decimals, as both protocols print times.
pub(crate) fn seconds_text(d: std::time::Duration) -> String {
    format!("{:.2}", d.as_secs_f64())
}

/// A seed for the book's random picks that differs from run to run.
pub fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ ((std::process::id() as u64) << 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<Input> {
        let (tx, rx) = channel();
        read_lines(bytes, &tx);
        drop(tx);
        rx.iter()
            .map(|e| match e {
                Event::Input(i) => i,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn line(s: &str) -> Input {
        Input::Line(s.to_string())
    }

    #[test]
    fn reader_splits_lines() {
        assert_eq!(
            lines(b"a\r\nb\n\nc"),
            vec![line("a"), line("b"), line(""), line("c"), Input::Eof]
        );
        assert_eq!(lines(b""), vec![Input::Eof]);
        assert_eq!(
            lines(b"\xff\xfeok\n"),
            vec![line("\u{fffd}\u{fffd}ok"), Input::Eof]
        );
    }

    #[test]
    fn reader_caps_long_lines() {
        let mut exact = vec![b'x'; MAX_LINE];
        exact.extend_from_slice(b"\r\nnext\n");
        let got = lines(&exact);
        assert!(matches!(&got[0], Input::Line(s) if s.len() == MAX_LINE));
        assert_eq!(got[1..], [line("next"), Input::Eof]);
        let mut long = vec![b'y'; MAX_LINE + 10];
        long.extend_from_slice(b"\nafter\n");
        let got = lines(&long);
        assert_eq!(got[0], Input::TooLong { len: MAX_LINE + 10 });
        assert_eq!(got[1..], [line("after"), Input::Eof]);
        let one_more = vec![b'z'; MAX_LINE + 1];
        assert_eq!(lines(&one_more)[0], Input::TooLong { len: MAX_LINE + 1 });
    }
}
