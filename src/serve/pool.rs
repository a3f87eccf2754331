//! The engine pool: a fixed number of worker threads, each owning an [`Engine`], that run the
//! searches of every game. The queue holds at most one search per game and serves the games in
//! turn (a game that asks again while queued keeps its place; its new search replaces the old
//! one), so no game waits behind another game's many requests. A game's new request, or its
//! cancellation, stops the search it has running.

use crate::board::Board;
use crate::controller::{EngineSetup, Finished, Job, Searcher};
use crate::search::{Engine, Info, Limits, TableTooLarge};
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// Where a finished search goes: the game it was for and its result.
pub type Done<K, T> = Box<dyn Fn(K, Finished<T>) + Send + Sync>;

/// A search waiting for a worker.
struct Pending<T> {
    board: Board,
    limits: Limits,
    job: Job<T>,
    asked: Instant,
    /// Search from a cleared hash table.
    fresh: bool,
}

/// The queue the workers share.
struct Queue<K, T> {
    /// The games with a search waiting, in the order they are served.
    order: VecDeque<K>,
    /// Each waiting game's search.
    pending: HashMap<K, Pending<T>>,
    /// The stop flags of the searches running, by game.
    running: HashMap<K, Vec<Arc<AtomicBool>>>,
    /// Set when the pool is dropped: the workers end.
    closed: bool,
}

struct Shared<K, T> {
    queue: Mutex<Queue<K, T>>,
    ready: Condvar,
    done: Done<K, T>,
}

impl<K, T> Shared<K, T> {
    fn lock(&self) -> MutexGuard<'_, Queue<K, T>> {
        // A worker that panicked while holding the lock left the queue consistent (every
        // change is one call on a collection): go on with it.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A pool of engines searching for many games, at most one search per worker at once.
pub struct Pool<K, T> {
    shared: Arc<Shared<K, T>>,
    workers: usize,
}

impl<K, T> Pool<K, T>
where
    K: Clone + Eq + Hash + Send + 'static,
    T: Send + 'static,
{
    /// Starts `workers` threads (at least one), each with an engine made by `setup`; every
    /// finished search goes to `done`, on the worker's thread. Fails when the system refuses
    /// the memory of a table.
    pub fn new(
        setup: &EngineSetup,
        workers: usize,
        done: Done<K, T>,
    ) -> Result<Self, TableTooLarge> {
        let workers = workers.max(1);
        let engines = (0..workers)
            .map(|_| setup.engine())
            .collect::<Result<Vec<_>, _>>()?;
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                order: VecDeque::new(),
                pending: HashMap::new(),
                running: HashMap::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            done,
        });
        for (i, engine) in engines.into_iter().enumerate() {
            let shared = shared.clone();
            thread::Builder::new()
                .name(format!("outflank-pool-{i}"))
                .spawn(move || work(engine, &shared))
                .expect("a pool thread");
        }
        Ok(Pool { shared, workers })
    }

    /// The number of worker threads: at most this many searches run at once.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Queues a search for `game`, replacing the one it has waiting (the game keeps its place
    /// in the queue) and stopping the one it has running.
    pub fn submit(&self, game: K, board: Board, limits: Limits, job: Job<T>) {
        self.queue(game, board, limits, job, false);
    }

    /// As [`Pool::submit`], but the search starts from a cleared hash table: its result does
    /// not depend on what the worker searched before (a game review's searches).
    pub fn submit_fresh(&self, game: K, board: Board, limits: Limits, job: Job<T>) {
        self.queue(game, board, limits, job, true);
    }

    fn queue(&self, game: K, board: Board, limits: Limits, job: Job<T>, fresh: bool) {
        let mut q = self.shared.lock();
        stop_running(&mut q, &game);
        let pending = Pending {
            board,
            limits,
            job,
            asked: Instant::now(),
            fresh,
        };
        if q.pending.insert(game.clone(), pending).is_none() {
            q.order.push_back(game);
        }
        drop(q);
        self.shared.ready.notify_one();
    }

    /// Drops `game`'s waiting search and stops its running one (its result still comes, as
    /// a stopped search's).
    pub fn cancel(&self, game: &K) {
        let mut q = self.shared.lock();
        stop_running(&mut q, game);
        if q.pending.remove(game).is_some() {
            q.order.retain(|g| g != game);
        }
    }

    /// The searches running now and those waiting.
    pub fn load(&self) -> (usize, usize) {
        let q = self.shared.lock();
        (q.running.values().map(Vec::len).sum(), q.pending.len())
    }

    /// The [`Searcher`] that the controller of `game` starts its searches on.
    pub fn searcher(&self, game: K) -> GameSearcher<'_, K, T> {
        GameSearcher { pool: self, game }
    }
}

impl<K, T> Drop for Pool<K, T> {
    fn drop(&mut self) {
        let mut q = self.shared.lock();
        q.closed = true;
        for flags in q.running.values() {
            for f in flags {
                f.store(true, Ordering::Relaxed);
            }
        }
        drop(q);
        self.shared.ready.notify_all();
    }
}

/// Raises the stop flags of `game`'s running searches.
fn stop_running<K: Eq + Hash, T>(q: &mut Queue<K, T>, game: &K) {
    if let Some(flags) = q.running.get(game) {
        for f in flags {
            f.store(true, Ordering::Relaxed);
        }
    }
}

/// One game's door to the pool: what [`crate::controller::Controller`] searches through.
pub struct GameSearcher<'p, K, T> {
    pool: &'p Pool<K, T>,
    game: K,
}

impl<K, T> Searcher<T> for GameSearcher<'_, K, T>
where
    K: Clone + Eq + Hash + Send + 'static,
    T: Send + 'static,
{
    fn search(&mut self, board: Board, limits: Limits, job: Job<T>) {
        self.pool.submit(self.game.clone(), board, limits, job);
    }
}

/// A worker's loop: takes the first game's search, runs it, hands the result on.
fn work<K: Clone + Eq + Hash, T>(mut engine: Engine, shared: &Shared<K, T>) {
    loop {
        let mut q = shared.lock();
        let (game, pending, stop) = loop {
            if q.closed {
                return;
            }
            let mut next = None;
            while let Some(game) = q.order.pop_front() {
                if let Some(p) = q.pending.remove(&game) {
                    next = Some((game, p));
                    break;
                }
            }
            if let Some((game, p)) = next {
                let stop = Arc::new(AtomicBool::new(false));
                q.running
                    .entry(game.clone())
                    .or_default()
                    .push(stop.clone());
                break (game, p, stop);
            }
            q = shared.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        };
        drop(q);
        let Pending {
            board,
            mut limits,
            job,
            asked,
            fresh,
        } = pending;
        if fresh {
            engine.clear_hash();
        }
        // The time waited in the queue counts against the search's time (it is the mover's
        // clock's time too).
        if let Some(t) = limits.time {
            limits.time = Some(
                t.saturating_sub(asked.elapsed())
                    .max(Duration::from_millis(1)),
            );
        }
        limits.stop = Some(stop.clone());
        let info = search(&mut engine, board, &limits, job.is_move());
        let mut q = shared.lock();
        if let Some(flags) = q.running.get_mut(&game) {
            flags.retain(|f| !Arc::ptr_eq(f, &stop));
            if flags.is_empty() {
                q.running.remove(&game);
            }
        }
        drop(q);
        (shared.done)(game, Finished::searched(job, info));
    }
}

/// Runs one search; a move request's search stopped before its first iteration gets a
/// depth-1 search's move, and a search that panics gives an empty result.
fn search(engine: &mut Engine, board: Board, limits: &Limits, ensure_move: bool) -> Info {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut info = engine.search(board, limits, &mut |_| {});
        if ensure_move && info.lines.is_empty() && board.moves() != 0 {
            let quick = Limits {
                depth: Some(1),
                ..Limits::default()
            };
            let q = engine.search(board, &quick, &mut |_| {});
            info.lines = q.lines;
            info.depth = q.depth;
        }
        info
    }));
    result.unwrap_or_else(|_| {
        log::error!("a search panicked; answering without it");
        Info::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::EngineConfig;
    use std::sync::mpsc;

    fn job(tag: &'static str) -> Job<&'static str> {
        Job { tag, request: None }
    }

    #[test]
    fn games_are_served_in_turn_and_a_new_request_replaces_the_old() {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let done: Done<&'static str, &'static str> = Box::new(move |game, f| {
            let _ = tx.lock().unwrap().send((game, f.job.tag, f.info.stopped));
        });
        let setup = EngineSetup::from(EngineConfig {
            threads: 1,
            hash_mb: 1,
        });
        let pool = Pool::new(&setup, 1, done).unwrap();
        let board = crate::board::Board::start();
        let shallow = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        // The one worker is busy with x's endless search while the others queue.
        pool.submit("x", board, Limits::default(), job("x1"));
        std::thread::sleep(Duration::from_millis(100));
        pool.submit("b", board, shallow.clone(), job("b1"));
        pool.submit("c", board, shallow.clone(), job("c1"));
        pool.submit("b", board, shallow.clone(), job("b2"));
        assert_eq!(
            pool.load(),
            (1, 2),
            "one running, one waiting search a game"
        );
        pool.cancel(&"x");
        let got: Vec<_> = (0..3)
            .map(|_| rx.recv_timeout(Duration::from_secs(60)).unwrap())
            .collect();
        assert_eq!(got[0], ("x", "x1", true), "x's search was stopped");
        assert_eq!(
            (got[1].0, got[1].1),
            ("b", "b2"),
            "b keeps its place, with its new search"
        );
        assert_eq!((got[2].0, got[2].1), ("c", "c1"));
        assert!(
            rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "b1 never ran"
        );
    }
}
