//! Search: the [`Engine`], the one API every front-end uses.
//!
//! An engine holds the transposition table, the evaluation and the thread pool. Its
//! [`Engine::search`] runs iterative deepening from a board under [`Limits`] and reports each
//! finished iteration through a progress callback as an [`Info`]; the last one is returned.
//!
//! Inside (private modules): `midgame` (PVS, probcut, ordering), `endgame` (exact and
//! win/loss/draw solver), `shallow` (the solver's last plies), `pvs` (the shared move loop
//! with parallel splits), `root` (the root driver: iterative deepening, multi-PV, reports),
//! `tt` (the shared hash table), `probcut` (its parameters), `context` (per-thread state
//! and limits), `time` (the time manager).

/// Evaluates `$body` with `$k` naming the kernel module compiled for `$simd` (a
/// [`crate::board::Simd`]): `x86_512`, `x86` or `portable`, which the calling module must
/// hold. `$simd` must be a version that [`crate::board::Simd::available`] lists.
macro_rules! with_kernel {
    ($simd:expr, $k:ident => $body:expr) => {
        match $simd {
            // SAFETY: the caller passes only a version the CPU runs.
            #[cfg(target_arch = "x86_64")]
            crate::board::Simd::Avx512 => unsafe {
                use x86_512 as $k;
                $body
            },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            crate::board::Simd::Avx2 => unsafe {
                use x86 as $k;
                $body
            },
            _ => {
                use portable as $k;
                $body
            }
        }
    };
}

mod context;
mod endgame;
mod midgame;
mod probcut;
mod pvs;
mod root;
mod shallow;
mod time;
mod tt;

pub use probcut::ProbcutParams;
pub use time::{Budget, Clock, Level, LevelParams, MovePlan, budget, seconds, single_reply};
pub use tt::{TableTooLarge, TranspositionTable};

/// The hash table size, in megabytes, that front-ends and commands use unless told otherwise.
pub const DEFAULT_HASH_MB: usize = 64;

use crate::board::{Board, Move, Square};
use crate::eval::Weights;
use context::{NO_SELECTIVITY, SELECTIVITY_PERCENT, Shared};
use root::Root;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// How selective a search is: a level from 0 (the most probcut, cuts at 73% confidence) to
/// [`Selectivity::NONE`] (no probcut: 100%). The same type in [`Limits`] (what to search) and
/// [`Info`] (what was searched); engines print it in percent ([`Selectivity::percent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Selectivity(u8);

impl Selectivity {
    /// No probcut: every cut is exact (100%).
    pub const NONE: Selectivity = Selectivity(NO_SELECTIVITY);

    /// The level `level`, 0 (most selective) to 5 (none); larger numbers are taken as 5.
    pub const fn new(level: u8) -> Selectivity {
        Selectivity(if level > NO_SELECTIVITY {
            NO_SELECTIVITY
        } else {
            level
        })
    }

    /// The level, 0 to 5.
    pub fn level(self) -> u8 {
        self.0
    }

    /// The confidence of the cuts in percent, as engines print it: 73, 87, 95, 98, 99, 100.
    pub fn percent(self) -> u8 {
        SELECTIVITY_PERCENT[self.0 as usize]
    }

    /// The level whose confidence is `percent` (one of [`Selectivity::PERCENTS`]), or `None`
    /// for any other number.
    pub fn from_percent(percent: u8) -> Option<Selectivity> {
        SELECTIVITY_PERCENT
            .iter()
            .position(|&p| p == percent)
            .map(|level| Selectivity(level as u8))
    }

    /// The confidences of the levels in percent, from the most selective to none.
    pub const PERCENTS: [u8; NO_SELECTIVITY as usize + 1] = SELECTIVITY_PERCENT;
}

impl Default for Selectivity {
    fn default() -> Selectivity {
        Selectivity::NONE
    }
}

impl std::fmt::Display for Selectivity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}%", self.percent())
    }
}

/// What kind of endgame solve to run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Solve {
    /// The exact final disc difference.
    Exact,
    /// Only win, loss or draw (faster); scores are +1, 0 or -1.
    Wld,
}

/// Limits of one search. Every limit that is set applies; with none the search runs to the
/// end of the game (or until stopped).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum midgame depth in plies. When the depth reaches the end of the game, the search
    /// solves exactly.
    pub depth: Option<u32>,
    /// Hard time limit; no new iteration starts after half of it.
    pub time: Option<Duration>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Solve the endgame (exactly or win/loss/draw) instead of a depth-limited search.
    pub solve: Option<Solve>,
    /// How many best moves to score exactly (multi-PV); at least 1.
    pub multipv: usize,
    /// Selectivity level 0..=5 for depth-limited searches (5: no probcut).
    pub selectivity: Selectivity,
    /// Raised by the caller to stop the search; the best result so far is returned.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth: None,
            time: None,
            nodes: None,
            solve: None,
            multipv: 1,
            selectivity: Selectivity::new(2),
            stop: None,
        }
    }
}

/// One scored root move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The move.
    pub mv: Move,
    /// Its score in discs for the side to move (exact, or +1/0/-1 for a WLD solve).
    pub score: i32,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<Move>,
}

/// The state of a search after an iteration.
#[derive(Clone, Debug, Default)]
pub struct Info {
    /// Depth of the last finished iteration (plies; the empties for a solve).
    pub depth: u32,
    /// Selectivity of that iteration in percent (100: no probcut).
    pub selectivity: Selectivity,
    /// Set when the scores are an endgame solve.
    pub solve: Option<Solve>,
    /// The scored moves, best first (as many as the multi-PV asked for).
    pub lines: Vec<Line>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// True when the search was stopped before its limits.
    pub stopped: bool,
}

impl Info {
    /// The best line, if the side to move has a move (or must pass).
    pub fn best(&self) -> Option<&Line> {
        self.lines.first()
    }

    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Engine settings.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Search threads.
    pub threads: usize,
    /// Transposition table size in megabytes.
    pub hash_mb: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
        }
    }
}

/// The engine: hash table, evaluation, threads. One search at a time.
pub struct Engine {
    tt: TranspositionTable,
    eval: Arc<Weights>,
    probcut: ProbcutParams,
    threads: usize,
    pool: rayon::ThreadPool,
}

fn make_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("outflank-search-{i}"))
        .build()
        .expect("a thread pool")
}

impl Engine {
    /// An engine with the given settings and the default evaluation.
    pub fn new(config: EngineConfig) -> Engine {
        Self::with_table(&config, TranspositionTable::new(config.hash_mb))
    }

    /// An engine with these settings, or the error when the system refuses the memory of
    /// its hash table ([`Engine::new`] aborts then).
    pub fn try_new(config: EngineConfig) -> Result<Engine, tt::TableTooLarge> {
        let table = TranspositionTable::try_new(config.hash_mb)?;
        Ok(Self::with_table(&config, table))
    }

    fn with_table(config: &EngineConfig, tt: TranspositionTable) -> Engine {
        Engine {
            tt,
            eval: Arc::new(crate::eval::default_weights()),
            probcut: ProbcutParams::searched(),
            threads: config.threads.max(1),
            pool: make_pool(config.threads),
        }
    }

    /// Uses these evaluation weights from now on.
    pub fn set_eval(&mut self, w: Arc<Weights>) {
        self.eval = w;
        self.tt.clear();
    }

    /// The evaluation in use.
    pub fn eval(&self) -> &Weights {
        &self.eval
    }

    /// Uses these probcut parameters from now on.
    pub fn set_probcut(&mut self, p: ProbcutParams) {
        self.probcut = p;
        self.tt.clear();
    }

    /// Sets the number of search threads.
    pub fn set_threads(&mut self, threads: usize) {
        let t = threads.max(1);
        if t != self.threads {
            self.threads = t;
            self.pool = make_pool(t);
        }
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Replaces the hash table by an empty one of `mb` megabytes; when the system refuses
    /// that memory, the old table stays and the error says so.
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), tt::TableTooLarge> {
        self.set_table(TranspositionTable::try_new(mb)?);
        Ok(())
    }

    /// Uses `table` (made with [`TranspositionTable::try_new`], where a refusal of memory
    /// can be reported) as the hash table from now on.
    pub fn set_table(&mut self, table: TranspositionTable) {
        self.tt = table;
    }

    /// Hash table size in megabytes.
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// Forgets every stored result.
    pub fn clear_hash(&self) {
        self.tt.clear();
    }

    /// The static evaluation of a board for the side to move, in discs.
    pub fn evaluate(&self, board: &Board) -> i32 {
        self.eval.evaluate(board)
    }

    /// Searches `board` under `limits`, calling `progress` after each finished iteration.
    /// Returns the last finished iteration (with no lines when the game is over; with a
    /// single `Pass` line when the side to move must pass).
    pub fn search(
        &self,
        board: Board,
        limits: &Limits,
        progress: &mut (dyn FnMut(&Info) + Send),
    ) -> Info {
        let start = Instant::now();
        self.tt.new_search();
        let shared = Shared {
            tt: &self.tt,
            eval: &self.eval,
            probcut: &self.probcut,
            abort: AtomicBool::new(false),
            user_stop: limits.stop.as_deref(),
            deadline: limits.time.map(|t| start + t),
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            nodes: AtomicU64::new(0),
            threads: self.threads,
            simd: crate::board::Simd::detect(),
            search: SEARCHES.fetch_add(1, Relaxed) + 1,
        };
        let mut root = Root::new(&shared, limits, start, progress);
        self.pool.install(|| root.run(board))
    }
}

/// Searches started in this process: numbers each one for the threads' local tables.
static SEARCHES: AtomicU32 = AtomicU32::new(0);

/// The weights the engine uses by default.
pub fn default_weights() -> Weights {
    crate::eval::default_weights()
}

/// The exact score of `b` in `(alpha, beta)` (fail-soft) by plain alpha-beta to the end of
/// the game: no table, no ordering, no pruning beyond the window. Slow (fine up to about 14
/// empties); the reference the solver is tested against.
pub fn reference_score(b: Board, alpha: i32, beta: i32) -> i32 {
    // More plies than any game has left: no leaf is evaluated.
    reference_alpha_beta(b, 61, alpha, beta, &|_| {
        unreachable!("a game ends within 60 plies")
    })
}

/// Plain alpha-beta (fail-soft, no table, no ordering) to `depth` plies, counted as the
/// midgame search counts them: a position at depth 0 scores `leaf` (as the search's leaves
/// do, even a finished game), a pass costs no ply, a finished game above depth 0 scores its
/// discs.
fn reference_alpha_beta(
    b: Board,
    depth: i32,
    alpha: i32,
    beta: i32,
    leaf: &impl Fn(&Board) -> i32,
) -> i32 {
    if depth == 0 {
        return leaf(&b);
    }
    let moves = b.moves();
    if moves == 0 {
        if b.opponent_moves() == 0 {
            return b.final_score();
        }
        return -reference_alpha_beta(b.passed(), depth, -beta, -alpha, leaf);
    }
    let mut a = alpha;
    let mut best = -65;
    for sq in Square::iter(moves) {
        let child = b.play(sq).expect("a legal move");
        let v = -reference_alpha_beta(child, depth - 1, -beta, -a, leaf);
        best = best.max(v);
        a = a.max(v);
        if a >= beta {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, random_board};

    /// Reads a 64-square board string with `X` to move (enough for these tests).
    fn board(s: &str) -> Board {
        let (mut p, mut o) = (0, 0);
        for (i, c) in s.chars().take(64).enumerate() {
            match c {
                'X' => p |= 1u64 << i,
                'O' => o |= 1u64 << i,
                _ => {}
            }
        }
        Board::new(p, o)
    }

    #[test]
    fn selectivity_percent_round_trip() {
        for level in 0..=NO_SELECTIVITY {
            let s = Selectivity::new(level);
            assert_eq!(Selectivity::from_percent(s.percent()), Some(s));
        }
        assert_eq!(Selectivity::from_percent(100), Some(Selectivity::NONE));
        assert_eq!(
            Selectivity::from_percent(95),
            Some(Limits::default().selectivity)
        );
        assert_eq!(Selectivity::from_percent(96), None);
        assert_eq!(Selectivity::from_percent(0), None);
    }

    #[test]
    fn ffo_1_exact() {
        let b = board("--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--");
        let e = Engine::new(EngineConfig::default());
        let limits = Limits {
            solve: Some(Solve::Exact),
            ..Limits::default()
        };
        let info = e.search(b, &limits, &mut |_| {});
        let best = info.best().unwrap();
        assert_eq!(best.score, 18);
        assert_eq!(best.mv.to_string(), "g8");
    }

    #[test]
    fn midgame_search_without_probcut_is_minimax() {
        // Without selectivity a fixed-depth search from a cleared table is the minimax of
        // the evaluation: the table, enhanced transposition cutoffs, the ordering searches
        // and their windows change the work, never the score (every transposition of a
        // position lies at the same depth, its number of empties fixing its ply).
        let e = Engine::new(EngineConfig::default());
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for i in 0..8 {
            let b = random_board(&mut rng, 36 + i);
            if b.moves() == 0 {
                continue;
            }
            for depth in [1, 2, 5, 7] {
                e.clear_hash();
                let limits = Limits {
                    depth: Some(depth),
                    selectivity: Selectivity::NONE,
                    ..Limits::default()
                };
                let got = e.search(b, &limits, &mut |_| {});
                let want = reference_alpha_beta(b, depth as i32, -64, 64, &|b| e.evaluate(b));
                let score = got.best().map(|l| l.score);
                assert_eq!(score, Some(want), "depth {depth} on {b:?}");
            }
        }
    }

    #[test]
    fn small_endgames_match_reference() {
        let e = Engine::new(EngineConfig::default());
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for _ in 0..30 {
            let b = random_board(&mut rng, 12);
            let want = reference_score(b, -64, 64);
            let limits = Limits {
                solve: Some(Solve::Exact),
                ..Limits::default()
            };
            let got = e.search(b, &limits, &mut |_| {});
            let score = got.best().map_or(b.final_score(), |l| l.score);
            assert_eq!(score, want);
        }
    }
}
