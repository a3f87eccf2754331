//! The threads under a front-end, and the loop that drives it:
//!
//! - a [`Worker`] thread that owns the [`Engine`] and runs one [`Engine::search`] at a time
//!   with a fresh stop flag, reporting progress and results as [`Event`]s;
//! - the [`Session`] a front-end writes to (every line flushed) and starts searches from;
//! - the driver [`run`]: inputs are queued and handled one after another while no search
//!   runs; inputs that must interrupt stop the running search when they arrive: those that
//!   end the exchange (NBoard's `ping`, `quit`: [`Interrupt::Session`]) also stop at once
//!   the searches started while they wait in the queue, while the terminal game's `stop`
//!   ([`Interrupt::Search`]) stops only the search it arrived during.

use super::MoveRequest;
use super::learn::{LearnJob, LearnOutcome};
use super::setup::EngineSetup;
use crate::board::Board;
use crate::search::{Engine, Info, Limits};
use std::collections::VecDeque;
use std::io::{self, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

/// One thing read from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line without its line ending (`\n` or `\r\n`), invalid UTF-8 replaced.
    Line(String),
    /// A line longer than [`MAX_LINE`](crate::protocol::MAX_LINE); `len` is its length in bytes.
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
    /// A learn returned ([`super::Controller::learn`]): its outcome, `None` when it was stopped.
    Learned {
        /// The job it belongs to.
        id: u64,
        /// The book learned and what became of it.
        outcome: Option<Box<LearnOutcome>>,
    },
    /// A line (or the end) from another source than the front-end's input: a server
    /// connection, numbered so that a front-end can tell a new connection from an old one.
    /// Handled when it arrives, even while a search runs.
    Remote {
        /// The connection it comes from.
        source: u64,
        /// What came.
        input: Input,
    },
    /// A timer's tick, for a front-end with things to do at times (keep-alives,
    /// reconnections). Handled when it arrives.
    Tick,
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
    Learn {
        id: u64,
        job: Box<LearnJob>,
        stop: Arc<AtomicBool>,
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
            Task::Learn { id, job, stop } => {
                let outcome = catch_unwind(AssertUnwindSafe(|| job.run(&engine, &stop)))
                    .unwrap_or_else(|_| {
                        log::error!("the learn panicked; the book is as it was");
                        None
                    });
                let outcome = outcome.map(Box::new);
                if events.send(Event::Learned { id, outcome }).is_err() {
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

/// What a search is for: the front-end's tag (the command it answers, the game it is for)
/// and, for a move request, what the controller makes a choice of its result with. It goes
/// with the search to the worker's thread and back, and is the only record of a search in
/// progress: front-ends keep none of their own.
#[derive(Clone, Debug)]
pub struct Job<T> {
    /// The front-end's tag.
    pub tag: T,
    /// The move request, for a search the controller started to choose a move.
    pub(crate) request: Option<MoveRequest>,
}

impl<T> Job<T> {
    /// True for a move request's search: one stopped before its first iteration must still
    /// give a move (a depth-1 search's) when the side to move has one.
    pub fn is_move(&self) -> bool {
        self.request.is_some()
    }
}

/// What the controller starts its searches on ([`Controller::choose_within`],
/// [`Controller::analyze`]): a [`Session`]'s one worker, or a front-end's own executor (the
/// browser board's pool of engines). The result comes back to the front-end as a
/// [`Finished`], which it hands to [`Controller::searched`].
///
/// [`Controller::choose_within`]: super::Controller::choose_within
/// [`Controller::analyze`]: super::Controller::analyze
/// [`Controller::searched`]: super::Controller::searched
pub trait Searcher<T> {
    /// Starts a search of `board` within `limits` for `job` (a move request's search that is
    /// stopped before its first iteration must still give a move: [`Job::is_move`]).
    fn search(&mut self, board: Board, limits: Limits, job: Job<T>);
}

impl<T> Searcher<T> for Session<'_, T> {
    fn search(&mut self, board: Board, limits: Limits, job: Job<T>) {
        Session::search(self, board, limits, job);
    }
}

/// What a finished job gives besides its search result: a learn's outcome.
#[derive(Debug)]
pub(crate) enum Extra {
    /// A search: nothing more.
    None,
    /// A learn: its outcome, `None` when it was stopped.
    Learned(Option<Box<LearnOutcome>>),
}

/// A search that returned: its job and its result ([`Session::finished`], [`Frontend::done`]).
#[derive(Debug)]
pub struct Finished<T> {
    /// What it was for.
    pub job: Job<T>,
    /// Its result (an empty one for a learn).
    pub info: Info,
    /// A learn's outcome.
    pub(crate) extra: Extra,
}

impl<T> Finished<T> {
    /// A search's result for `job`, from an executor other than the session's worker (the
    /// browser board's pool of engines).
    pub fn searched(job: Job<T>, info: Info) -> Finished<T> {
        Finished {
            job,
            info,
            extra: Extra::None,
        }
    }
}

/// The running search (or learn): its id, its stop flag, its job.
struct Running<T> {
    id: u64,
    stop: Arc<AtomicBool>,
    job: Job<T>,
    /// A learn: inputs are handled while it runs (those that start a job stop it), but the
    /// end of the input waits for it.
    background: bool,
}

/// The front-end's side of a session: the output, the worker, the running search and what it
/// is for (a job tagged with a `T` of the front-end's).
pub struct Session<'w, T = ()> {
    out: Box<dyn Write + 'w>,
    worker: Worker,
    next_id: u64,
    running: Option<Running<T>>,
    /// [`Interrupt::Session`] lines that wait in the queue.
    interrupts: usize,
    /// Inputs that arrived while a search ran, to handle once none runs.
    queue: VecDeque<Input>,
}

impl<'w, T> Session<'w, T> {
    /// A session that no driver loop runs: it writes to `output` and searches with an engine
    /// configured by `config` on a worker of its own, whose reports ([`Event::Progress`],
    /// [`Event::Done`]) come to the receiver returned with it. [`run`] builds its session so;
    /// tests and programs that drive a controller themselves use it directly. Fails when the
    /// system refuses the memory of the hash table.
    pub fn detached<W: Write + 'w>(
        output: W,
        setup: impl Into<EngineSetup>,
    ) -> io::Result<(Session<'w, T>, Receiver<Event>)> {
        let (sender, events) = channel();
        let session = Session::with_worker(output, setup.into(), sender)?;
        Ok((session, events))
    }

    fn with_worker<W: Write + 'w>(
        output: W,
        setup: EngineSetup,
        sender: Sender<Event>,
    ) -> io::Result<Session<'w, T>> {
        let engine = setup.engine().map_err(io::Error::other)?;
        Ok(Session {
            out: Box::new(output),
            worker: Worker::spawn(engine, sender),
            next_id: 0,
            running: None,
            interrupts: 0,
            queue: VecDeque::new(),
        })
    }

    /// The running search's job and result, when `event` is its [`Event::Done`] (the search
    /// is then over); `None` for any other event, and for the result of a search replaced
    /// since.
    pub fn finished(&mut self, event: Event) -> Option<Finished<T>> {
        match event {
            Event::Done { id, info } if self.running.as_ref().is_some_and(|r| r.id == id) => {
                let job = self.running.take()?.job;
                let extra = Extra::None;
                Some(Finished { job, info, extra })
            }
            Event::Learned { id, outcome } if self.running.as_ref().is_some_and(|r| r.id == id) => {
                let job = self.running.take()?.job;
                let info = Info::default();
                let extra = Extra::Learned(outcome);
                Some(Finished { job, info, extra })
            }
            _ => None,
        }
    }
}

impl<T> Session<'_, T> {
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

    /// Starts a search for `job`; its progress and result come back to the front-end with
    /// the job. A move request's search ([`Job::request`]) that is stopped before its first
    /// iteration still returns a move (from a depth-1 search) when the side to move has one.
    /// If an interrupting line is already waiting, the search is stopped from the start. A
    /// search still running is stopped first: its result is not wanted any more, and never
    /// comes.
    pub(crate) fn search(&mut self, board: Board, mut limits: Limits, job: Job<T>) {
        self.stop();
        self.next_id += 1;
        let id = self.next_id;
        let stop = Arc::new(AtomicBool::new(self.interrupts > 0));
        limits.stop = Some(stop.clone());
        let ensure_move = job.request.is_some();
        self.running = Some(Running {
            id,
            stop,
            job,
            background: false,
        });
        self.worker.send(Task::Search {
            id,
            board,
            limits,
            ensure_move,
            asked: Instant::now(),
        });
    }

    /// Starts a learn on the worker for `job` (see [`Session::search`]: a job still running
    /// is stopped first). While it runs, inputs are handled as they come (one that starts
    /// a job stops it), all but the end of the input, which waits for it.
    pub(crate) fn learn(&mut self, learn: LearnJob, job: Job<T>) {
        self.stop();
        self.next_id += 1;
        let id = self.next_id;
        let stop = Arc::new(AtomicBool::new(self.interrupts > 0));
        self.running = Some(Running {
            id,
            stop: stop.clone(),
            job,
            background: true,
        });
        let job = Box::new(learn);
        self.worker.send(Task::Learn { id, job, stop });
    }

    /// True while a learn runs: inputs are handled as they come.
    pub fn background(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.background)
    }

    /// The tag of the running search's job, if a search runs.
    pub fn searching(&self) -> Option<&T> {
        self.running.as_ref().map(|r| &r.job.tag)
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
        if let Some(r) = &self.running {
            r.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Runs `f` on the engine on the worker thread, after the searches already asked for.
    pub fn configure(&self, f: impl FnOnce(&mut Engine) + Send + 'static) {
        self.worker.send(Task::Configure(Box::new(f)));
    }
}

/// A protocol front-end, driven by [`run`].
pub trait Frontend {
    /// What the front-end tags its searches with: the command a search answers, the game it
    /// is for. It comes back with the search's reports.
    type Tag: Clone;
    /// Called once before any input: a front-end that acts first (the terminal game when
    /// the engine has the first move) starts here.
    fn start(&mut self, _session: &mut Session<Self::Tag>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    /// What `input` does to a running search when it arrives (it is still handled in
    /// order).
    fn interrupts(&self, input: &Input) -> Interrupt;
    /// True for an input to handle as soon as it arrives, even while a search runs, when
    /// nothing waits before it (UGI's `isready`, which must be answered during a search).
    /// Such an input must not start a search.
    fn at_once(&self, _input: &Input) -> bool {
        false
    }
    /// Handles one input while no search runs (it may start one), or one that
    /// [`Frontend::at_once`] names.
    fn input(&mut self, input: Input, session: &mut Session<Self::Tag>) -> io::Result<Flow>;
    /// The running search, tagged `tag`, finished an iteration.
    fn progress(
        &mut self,
        tag: &Self::Tag,
        info: &Info,
        session: &mut Session<Self::Tag>,
    ) -> io::Result<()>;
    /// The running search returned (the front-end may start another one).
    fn done(
        &mut self,
        done: Finished<Self::Tag>,
        session: &mut Session<Self::Tag>,
    ) -> io::Result<Flow>;
    /// Nothing runs and no input waits: a front-end that acts on its own (the engine
    /// playing itself) may go on here.
    fn idle(&mut self, _session: &mut Session<Self::Tag>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    /// A line from a connection of the front-end's ([`Event::Remote`]), handled when it
    /// arrives, even while a search runs.
    fn remote(
        &mut self,
        _source: u64,
        _input: Input,
        _session: &mut Session<Self::Tag>,
    ) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
    /// A timer's tick ([`Event::Tick`]).
    fn tick(&mut self, _session: &mut Session<Self::Tag>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// A channel of [`Event`]s: the sender goes to the threads that feed the driver (input
/// readers, timers), the receiver to [`run`].
pub fn events() -> (Sender<Event>, Receiver<Event>) {
    channel()
}

/// Runs a front-end: takes its inputs from `events` (fed by the caller's reader threads;
/// `sender` is a sender of the same channel, which the search worker reports through),
/// writes replies to `output`, and searches with an engine configured by `config` on a
/// worker thread. Returns at `quit`, at EOF, or when the output is closed (an error); fails
/// at once, before reading anything, when the system refuses the memory of the hash table.
pub fn run<F, W>(
    frontend: &mut F,
    (sender, events): (Sender<Event>, Receiver<Event>),
    output: W,
    setup: impl Into<EngineSetup>,
) -> io::Result<()>
where
    F: Frontend,
    W: Write,
{
    let mut session = Session::<F::Tag>::with_worker(output, setup.into(), sender)?;
    let result = drive(frontend, &events, &mut session);
    session.stop();
    result
}

fn drive<F: Frontend>(
    frontend: &mut F,
    events: &Receiver<Event>,
    session: &mut Session<F::Tag>,
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
                let now = session.background() && input != Input::Eof;
                if session.queue.is_empty() && (now || frontend.at_once(&input)) {
                    if frontend.input(input, session)? == Flow::Quit {
                        return Ok(());
                    }
                    continue;
                }
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
                if let Some(r) = session.running.as_ref().filter(|r| r.id == id) {
                    let tag = r.job.tag.clone();
                    frontend.progress(&tag, &info, session)?;
                }
            }
            done @ (Event::Done { .. } | Event::Learned { .. }) => {
                if let Some(done) = session.finished(done)
                    && frontend.done(done, session)? == Flow::Quit
                {
                    return Ok(());
                }
            }
            Event::Remote { source, input } => {
                if frontend.remote(source, input, session)? == Flow::Quit {
                    return Ok(());
                }
            }
            Event::Tick => {
                if frontend.tick(session)? == Flow::Quit {
                    return Ok(());
                }
            }
        }
    }
}
