//! The one game controller every front-end stands on (Edax's `play.c` plays this part):
//! the game and its history, both clocks, passes (explicit and implicit), undo, the engine
//! options, and the move policy: the only move or a book move at once, else a search
//! budgeted by the time manager on the worker thread, which input can interrupt.
//!
//! A front-end (GTP, NBoard, the terminal game, the GGS client) parses its input into a
//! command and translates it into calls on a [`Controller`], then translates the answers
//! back into its protocol. The threads under it (the search [`Worker`], the driver loop
//! [`run`]) live in [`session`].
//!
//! - [`learn`]: NBoard's `learn`, run on the worker.
//! - [`options`]: the engine options, set by name, and the book they open.
//! - [`clock`]: both players' clocks and their time controls.
//! - [`seats`]: who plays each colour of a game people play at the engine, and its flow.
//! - [`session`]: the worker thread, the session a front-end writes to, the driver loop.
//! - [`setup`]: how the worker's engine is made (threads, table, weights).

pub mod clock;
pub mod learn;
pub mod options;
pub mod seats;
pub mod session;
pub mod setup;

pub use crate::time_control::TimeControl;
pub use clock::GameClock;
pub use learn::Learned;
pub use options::{OPTIONS, OptionKind, OptionSpec, Options};
pub use seats::{PlayedBy, Player, Seats, Step};
pub use session::{
    Event, Finished, Flow, Frontend, Input, Interrupt, Job, Searcher, Session, Worker, events, run,
};
pub use setup::EngineSetup;

use crate::board::{Board, Color, Move, MoveError, Position, Square};
use crate::book::BookMove;
use crate::game::Game;
use crate::rng::{Rng, random_seed};
use crate::search::{Info, Limits, MovePlan, single_reply};
use learn::LearnJob;
use session::Extra;
use std::time::{Duration, Instant};

/// Who played a move of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    /// It came with the game (a start position's moves, a GUI's `set game`): undo keeps it.
    Given,
    /// The engine chose it ([`Controller::commit`]).
    Engine,
    /// The other side: a person, a GUI, a server.
    Other,
}

/// What the controller knows of each move of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark {
    mover: Mover,
    /// A pass the controller inserted because a move came for the colour not to move while
    /// the side to move had to pass (GTP's implicit pass); undone with the move after it.
    implicit: bool,
}

/// Where a chosen move comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// The only legal move (or a forced pass): no search.
    Only,
    /// The opening book, with the move's value in discs for the side to move.
    Book(BookMove),
    /// A search, with its last report (a search that failed gives an empty one, and the
    /// move is then the first legal one).
    Search(Info),
}

/// A move the controller chose for a colour.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The colour it is for.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// Its value in discs for `color`, when a book or a search gave one.
    pub score: Option<i32>,
    /// Where it comes from.
    pub source: Source,
    /// The time from the request to the choice.
    pub elapsed: Duration,
}

/// The answer to a move request ([`Controller::choose`]).
#[derive(Clone, Debug)]
pub enum Answer {
    /// Chosen at once (the only move, a book move).
    Now(Choice),
    /// A search runs; its result comes to the front-end's `done` with the request's tag,
    /// which hands it to [`Controller::searched`].
    Searching,
}

/// What a finished search gives ([`Controller::searched`]).
#[derive(Clone, Debug)]
pub enum Searched {
    /// The choice for a move request.
    Move(Choice),
    /// An analysis's result (a hint, an analysis).
    Analysis(Info),
    /// The result of a move request for a game set anew, or moved on, since: not wanted.
    Stale,
    /// What a learn did with the book ([`Controller::learn`]).
    Learned(Learned),
}

/// How long a move request may search ([`Controller::choose_within`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MoveBudget {
    /// The options' level, depth and time per move, within the mover's clock.
    Options,
    /// This plan instead of the options' (a protocol's depth or time for one move), within
    /// the mover's clock.
    Plan(MovePlan),
    /// About this many nodes, deeper and deeper; no clock.
    Nodes(u64),
    /// Deeper and deeper until stopped (or solved); no clock.
    Infinite,
}

/// Why a move request has no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The game is over.
    GameOver,
    /// The other colour is to move and has a move.
    NotToMove(Color),
}

/// A move request whose search runs: what [`Controller::searched`] makes a choice of the
/// search's result with. It travels with the search ([`Job`]).
#[derive(Clone, Copy, Debug)]
pub struct MoveRequest {
    color: Color,
    board: Board,
    asked: Instant,
    /// The controller's game when it was asked ([`Controller::set_game`] starts another).
    game: u64,
}

/// What a hint request gives ([`Controller::hint`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Hints {
    /// The best book moves, each with the book's line after it (the move first).
    Book(Vec<(BookMove, Vec<Move>)>),
    /// A search runs; its reports come to the front-end.
    Searching,
    /// The game is over: nothing to hint.
    GameOver,
}

/// The game controller: one game, its clocks, the engine options, the move policy.
pub struct Controller {
    options: Options,
    game: Game,
    marks: Vec<Mark>,
    clock: GameClock,
    /// A single legal move gets a short search, for the value a protocol reports with it.
    score_forced: bool,
    /// Counts the games set: a search's result for an earlier one is stale.
    game_number: u64,
    /// Picks among the book moves within the randomness of the best.
    rng: Rng,
}

/// The limits of the short search that scores a forced move ([`Controller::score_forced_moves`]).
fn forced_move_limits() -> Limits {
    Limits {
        depth: Some(8),
        time: Some(Duration::from_millis(50)),
        ..Limits::default()
    }
}

/// The choice a move request's search gives: its best move, or any legal move when the
/// search gave no result at all (any legal move beats no answer).
fn choice_of(p: MoveRequest, info: Info) -> Choice {
    let (mv, score) = match info.best() {
        Some(l) => (l.mv, Some(l.score)),
        // No result at all (the search failed): any legal move beats no answer.
        None => (
            single_reply(&p.board)
                .or_else(|| Square::iter(p.board.moves()).next().map(Move::Play))
                .unwrap_or(Move::Pass),
            None,
        ),
    };
    Choice {
        color: p.color,
        mv,
        score,
        source: Source::Search(info),
        elapsed: p.asked.elapsed(),
    }
}

impl Controller {
    /// A controller with these options, the start position and no clock.
    pub fn new(options: Options) -> Controller {
        Controller {
            options,
            game: Game::default(),
            marks: Vec::new(),
            clock: GameClock::untimed(),
            score_forced: false,
            game_number: 0,
            rng: Rng::new(random_seed()),
        }
    }

    /// Makes a single legal move get a short search (depth 8, at most 50 ms) for its value,
    /// for protocols that report one with each move (NBoard).
    pub fn score_forced_moves(mut self, on: bool) -> Controller {
        self.score_forced = on;
        self
    }

    /// The engine options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The engine options, to change (threads and hash size reach the engine only through
    /// [`Controller::set_option`]).
    pub fn options_mut(&mut self) -> &mut Options {
        &mut self.options
    }

    /// Sets one engine option by name (see [`Options::set`]); on error nothing changes.
    pub fn set_option<T>(
        &mut self,
        key: &str,
        value: &str,
        session: &Session<T>,
    ) -> Result<(), String> {
        self.options.set(key, value, session)
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The current position.
    pub fn position(&self) -> Position {
        self.game.position()
    }

    /// The clocks.
    pub fn clock(&self) -> &GameClock {
        &self.clock
    }

    /// The clocks, to set (a protocol's time settings and reports).
    pub fn clock_mut(&mut self) -> &mut GameClock {
        &mut self.clock
    }

    /// A new game: `game`, whose moves [`Controller::take_back`] keeps; the clocks restart.
    pub fn set_game(&mut self, game: Game) {
        self.marks = vec![
            Mark {
                mover: Mover::Given,
                implicit: false,
            };
            game.len()
        ];
        self.game = game;
        self.game_number += 1;
        self.clock.restart();
    }

    /// Who played each move of the game.
    pub fn movers(&self) -> impl Iterator<Item = Mover> + '_ {
        self.marks.iter().map(|m| m.mover)
    }

    /// Plays `mv` for the side to move; on error nothing changes.
    pub fn play(&mut self, mv: Move, mover: Mover) -> Result<(), MoveError> {
        self.game.play(mv)?;
        self.marks.push(Mark {
            mover,
            implicit: false,
        });
        Ok(())
    }

    /// Plays `mv` for `color`. When `color` is not to move but the side to move must pass,
    /// the pass is played first, marked implicit: [`Controller::undo`] takes it back with
    /// the move. On error nothing changes.
    pub fn play_as(&mut self, color: Color, mv: Move, mover: Mover) -> Result<(), MoveError> {
        let before = self.game.len();
        self.game.play_as(color, mv)?;
        if self.game.len() == before + 2 {
            self.marks.push(Mark {
                mover,
                implicit: true,
            });
        }
        self.marks.push(Mark {
            mover,
            implicit: false,
        });
        Ok(())
    }

    /// The colour a move given as a bare square is for: the side to move, or the other side
    /// when the side to move must pass and the square is legal for the other side (the
    /// implicit pass of NBoard and of transcripts).
    pub fn mover_of(&self, mv: Move) -> Color {
        let pos = self.game.position();
        match mv {
            Move::Play(_) if pos.play(mv).is_err() && pos.board.must_pass() => {
                pos.to_move.opposite()
            }
            _ => pos.to_move,
        }
    }

    /// Takes back the last move, and the implicit passes before it. False at the start.
    pub fn undo(&mut self) -> bool {
        if self.game.undo().is_none() {
            return false;
        }
        self.marks.pop();
        while self.marks.last().is_some_and(|m| m.implicit) {
            self.game.undo();
            self.marks.pop();
        }
        true
    }

    /// Takes back the last move played for a colour that `seat` names (a person's seat in the
    /// terminal game, whoever chose the move: the person, or the engine for them) and every
    /// move after it, so that the game is back where that colour chose. Passes and the moves
    /// the game was given are never its target, and a given move is never taken back. False
    /// (and nothing changes) when there is no such move.
    pub fn take_back(&mut self, seat: impl Fn(Color) -> bool) -> bool {
        let positions = self.game.positions();
        let target = self.game.moves().iter().enumerate().rposition(|(i, mv)| {
            self.marks[i].mover != Mover::Given && *mv != Move::Pass && seat(positions[i].to_move)
        });
        let Some(last) = target else {
            return false;
        };
        while self.game.len() > last {
            self.game.undo();
            self.marks.pop();
        }
        true
    }

    /// The book move of `board`, when the book is on and holds it.
    fn book_move(&mut self, board: &Board) -> Option<BookMove> {
        self.options.book_move(board, &mut self.rng)
    }

    /// Asks for `color`'s move, to be played now (when the other colour is to move and must
    /// pass, the move after its pass). The only move and a book move come at once; otherwise
    /// a search starts on `session`, budgeted by the time manager within `color`'s clock
    /// and the options' level, depth and time per move, and its result comes back through
    /// the front-end's `done`, tagged `tag`, to [`Controller::searched`]. Nothing is played:
    /// the front-end plays the choice with [`Controller::commit`], or not (GTP's
    /// `reg_genmove`).
    pub fn choose<T, S: Searcher<T> + ?Sized>(
        &mut self,
        color: Color,
        session: &mut S,
        tag: T,
    ) -> Result<Answer, Refusal> {
        self.choose_within(color, MoveBudget::Options, session, tag)
    }

    /// [`Controller::choose`] with a search budget of the request's own (UGI's `go depth`,
    /// `go nodes`, `go infinite`) instead of the options'.
    pub fn choose_within<T, S: Searcher<T> + ?Sized>(
        &mut self,
        color: Color,
        budget: MoveBudget,
        session: &mut S,
        tag: T,
    ) -> Result<Answer, Refusal> {
        let asked = Instant::now();
        let pos = self.game.position();
        if pos.board.is_game_over() {
            return Err(Refusal::GameOver);
        }
        let board = if pos.to_move == color {
            pos.board
        } else if pos.board.must_pass() {
            pos.board.passed()
        } else {
            return Err(Refusal::NotToMove(pos.to_move));
        };
        let now = |mv, score, source| {
            Ok(Answer::Now(Choice {
                color,
                mv,
                score,
                source,
                elapsed: asked.elapsed(),
            }))
        };
        let single = single_reply(&board);
        if let (Some(mv), false) = (single, self.score_forced) {
            return now(mv, None, Source::Only);
        }
        if let Some(m) = self.book_move(&board) {
            log::info!("{color}: book move {} ({:+})", m.mv, m.score);
            return now(m.mv, Some(m.score), Source::Book(m));
        }
        let clock = self.clock.for_search(color);
        let threads = self.options.threads;
        let limits = match budget {
            _ if single.is_some() => forced_move_limits(),
            MoveBudget::Options => self.options.plan.limits(&board, clock.as_ref(), threads),
            MoveBudget::Plan(plan) => plan.limits(&board, clock.as_ref(), threads),
            MoveBudget::Nodes(n) => Limits {
                nodes: Some(n.max(1)),
                ..Limits::default()
            },
            MoveBudget::Infinite => Limits::default(),
        };
        log::debug!("{color} to move: {limits:?}");
        let request = MoveRequest {
            color,
            board,
            asked,
            game: self.game_number,
        };
        let job = Job {
            tag,
            request: Some(request),
        };
        session.search(board, limits, job);
        Ok(Answer::Searching)
    }

    /// What a finished search gives, with its tag: the choice for a request of
    /// [`Controller::choose`], an analysis's result, or nothing when the game was set anew
    /// or has moved on since the request.
    pub fn searched<T>(&mut self, done: Finished<T>) -> (T, Searched) {
        let Finished { job, info, extra } = done;
        if let Extra::Learned(outcome) = extra {
            let learned = match outcome {
                Some(o) => {
                    self.options.opening_book = o.book;
                    o.learned
                }
                None => Learned::Stopped,
            };
            return (job.tag, Searched::Learned(learned));
        }
        let searched = match job.request {
            None => Searched::Analysis(info),
            Some(r) if r.game != self.game_number || !self.still_at(&r) => Searched::Stale,
            Some(r) => Searched::Move(choice_of(r, info)),
        };
        (job.tag, searched)
    }

    /// True when the game is still at the position of move request `r`.
    fn still_at(&self, r: &MoveRequest) -> bool {
        let pos = self.game.position();
        let board = if pos.to_move == r.color {
            pos.board
        } else {
            pos.board.passed()
        };
        board == r.board
    }

    /// Charges a move's time as a front-end reports it (seconds; none, or one that is not
    /// a positive number, counts as nothing) to `color`'s clock.
    pub fn charge_reported(&mut self, color: Color, mv: Move, time: Option<f64>) {
        let secs = time.filter(|t| t.is_finite() && *t > 0.0).unwrap_or(0.0);
        self.clock
            .charge(color, crate::time_control::seconds(secs), mv != Move::Pass);
    }

    /// Takes the time since `since` (a turn that began before its search could start) off
    /// `color`'s time left, when its clock runs; at least 10 ms stay.
    pub fn spend_since(&mut self, color: Color, since: Instant) {
        if let Some(left) = self.clock.left(color) {
            let left = (left - since.elapsed().as_secs_f64()).max(0.01);
            self.clock.set_left(color, left, 0);
        }
    }

    /// Plays a choice of [`Controller::choose`] (after the other side's implicit pass when
    /// there is one) and charges its time to the colour's clock.
    pub fn commit(&mut self, choice: &Choice) -> Result<(), MoveError> {
        self.play_as(choice.color, choice.mv, Mover::Engine)?;
        self.clock
            .charge(choice.color, choice.elapsed, choice.mv != Move::Pass);
        Ok(())
    }

    /// The best `n` moves of the current position: from the book when it holds the position,
    /// else by a search at the analysis level (its reports come to the front-end; a forced
    /// pass is searched too, for its score).
    pub fn hint<T, S: Searcher<T> + ?Sized>(&mut self, n: usize, session: &mut S, tag: T) -> Hints {
        let board = self.game.position().board;
        if board.is_game_over() {
            return Hints::GameOver;
        }
        if let Some(hints) = self.options.book_hints(&board, n) {
            return Hints::Book(hints);
        }
        self.analyze(board, n, session, tag);
        Hints::Searching
    }

    /// Starts an analysis of `board` at the options' analysis level, scoring its best
    /// `multipv` moves, without the book (its reports come to the front-end, tagged `tag`).
    pub fn analyze<T, S: Searcher<T> + ?Sized>(
        &mut self,
        board: Board,
        multipv: usize,
        session: &mut S,
        tag: T,
    ) {
        let mut limits = self.options.analysis_limits(&board);
        limits.multipv = multipv.max(1);
        self.analyze_within(board, limits, session, tag);
    }

    /// Starts an analysis of `board` within limits of the caller's own (a depth, a multi-PV
    /// of every move), without the book; its result comes back tagged `tag`, and
    /// [`Controller::searched`] gives it as [`Searched::Analysis`].
    pub fn analyze_within<T, S: Searcher<T> + ?Sized>(
        &mut self,
        board: Board,
        limits: Limits,
        session: &mut S,
        tag: T,
    ) {
        log::debug!("analysis: {limits:?}");
        let job = Job { tag, request: None };
        session.search(board, limits, job);
    }
}

impl Controller {
    /// Starts adding the game's positions up to `plies` moves in to the book, each new one
    /// scored by a search of `depth`, on the session's worker; the book is then saved to the
    /// options' book file when there is one. What it did comes to the front-end's `done`,
    /// tagged `tag`, as [`Searched::Learned`].
    pub fn learn<T>(&mut self, depth: u32, plies: usize, session: &mut Session<T>, tag: T) {
        let learn = LearnJob {
            book: (*self.options.opening_book).clone(),
            start: self.game.start().board,
            moves: self.game.moves().to_vec(),
            depth,
            plies,
            file: self.options.book_file.clone(),
        };
        session.learn(learn, Job { tag, request: None });
    }
}

#[cfg(test)]
mod tests;
