//! Making a book: [`Builder::build`] expands the best lines from the start position with
//! deep searches; [`Builder::learn`] adds the positions of finished games.
//!
//! Every position added gets a search that scores its best move leaving the book (the
//! *leaf*): a multi-PV search of one more move than the position has in the book, so that at
//! least one scored move leads out of it. When the leaf's own position joins the book, the
//! leaf is searched again. Values then propagate by negamax ([`Book::propagate`]).

use super::{Book, Entry, NO_LEAF};
use crate::board::{Board, Move, Square};
use crate::search::{Engine, Limits};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// How a book is built.
#[derive(Clone, Copy, Debug)]
pub struct BuildConfig {
    /// Positions are added up to this many moves from the start.
    pub plies: u32,
    /// Depth of the searches that score the leaves.
    pub depth: u32,
    /// How far below the best line, in discs summed over a line's deviations, a line may
    /// score and still be expanded (0: only the best lines).
    pub width: i32,
    /// Stop once the book holds this many positions.
    pub max_positions: usize,
}

/// Adds positions to a book, searching with an engine.
pub struct Builder<'a> {
    engine: &'a Engine,
    /// The book being built.
    pub book: Book,
    depth: u32,
    /// Called after each search with the book as it is.
    progress: Box<dyn FnMut(&Book) + 'a>,
    /// Stops the searches when set (their results then mean nothing).
    stop: Option<Arc<AtomicBool>>,
}

impl<'a> Builder<'a> {
    /// A builder that extends `book`, scoring leaves at `depth` with `engine`.
    pub fn new(engine: &'a Engine, book: Book, depth: u32) -> Builder<'a> {
        Builder {
            engine,
            book,
            depth: depth.clamp(1, 60),
            progress: Box::new(|_| {}),
            stop: None,
        }
    }

    /// Stops the searches as soon as `stop` is set: the book then holds their partial
    /// results, which the caller drops.
    pub fn stop_on(mut self, stop: Arc<AtomicBool>) -> Builder<'a> {
        self.stop = Some(stop);
        self
    }

    /// Calls `f` after each search (for a progress bar).
    pub fn on_progress(mut self, f: impl FnMut(&Book) + 'a) -> Builder<'a> {
        self.progress = Box::new(f);
        self
    }

    /// Searches the leaf of `board` and stores it, keeping the position's learned games.
    /// Positions whose side to move must pass, and finished games, are not stored.
    fn score(&mut self, board: &Board) -> bool {
        let stop = self.stop.clone();
        let Some(entry) = entry_of(self.engine, &self.book, board, self.depth, stop) else {
            return false;
        };
        (self.progress)(&self.book);
        self.book.insert(board, entry);
        true
    }

    /// Adds `board` if the book lacks it; true when it is (or was already) in the book.
    fn ensure(&mut self, board: &Board) -> bool {
        self.book.contains(board) || self.score(board)
    }

    /// Searches `board`'s leaf again if its leaf has joined the book.
    fn refresh_leaf(&mut self, board: &Board) {
        if let Some((sq, _)) = self.book.leaf(board)
            && self.book.contains(&board.play(sq).expect("legal"))
        {
            self.score(board);
        }
    }

    /// Expands the book from the start position: every line whose deviations from the best
    /// moves add up to at most `config.width` discs, up to `config.plies` moves, until no
    /// such line is left outside the book or the book reaches `config.max_positions`. The
    /// allowance grows a disc at a time (the best lines first, then those one disc worse,
    /// and so on), so that a book cut short by its size is as broad everywhere.
    pub fn build(&mut self, config: &BuildConfig) {
        let root = Board::start();
        self.ensure(&root);
        for width in 0..=config.width {
            loop {
                let before = self.book.len();
                let mut seen = HashMap::new();
                self.visit(&root, 0, 0, width, config, &mut seen);
                self.book.propagate();
                if self.book.len() >= config.max_positions {
                    return;
                }
                if self.book.len() == before {
                    break;
                }
            }
        }
    }

    /// One pass of [`Builder::build`] below `board`, reached `ply` moves from the start with
    /// deviations worth `loss` discs so far, expanding lines within `width`.
    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        board: &Board,
        ply: u32,
        loss: i32,
        width: i32,
        config: &BuildConfig,
        seen: &mut HashMap<(u64, u64), i32>,
    ) {
        if ply >= config.plies {
            return;
        }
        let (c, _) = board.canonical();
        if seen
            .get(&(c.player, c.opponent))
            .is_some_and(|&l| l <= loss)
        {
            return;
        }
        seen.insert((c.player, c.opponent), loss);
        // Bring the leaf into the book while it is close enough to the best.
        while self.book.len() < config.max_positions {
            let Some(value) = self.book.fresh_value(board) else {
                return;
            };
            let Some((sq, score)) = self.book.leaf(board) else {
                break;
            };
            if loss + (value - score) > width {
                break;
            }
            let child = board.play(sq).expect("a leaf is a legal move");
            if !self.ensure(&child) {
                break;
            }
            self.refresh_leaf(board);
        }
        let Some(value) = self.book.fresh_value(board) else {
            return;
        };
        for sq in Square::iter(board.moves()) {
            let child = board.play(sq).expect("legal");
            if let Some(e) = self.book.get(&child) {
                let l = loss + (value + e.value as i32);
                if l <= width {
                    self.visit(&child, ply + 1, l, width, config, seen);
                }
            }
        }
    }

    /// Adds the positions of a game (from `start`, playing `moves`) up to `plies` moves in,
    /// counts the game at each of them, and searches again the leaves the game brought into
    /// the book. The game stops counting at a pass or an illegal move.
    pub fn learn(&mut self, start: &Board, moves: &[Move], plies: usize) {
        let mut path = Vec::new();
        let mut b = *start;
        for &mv in moves.iter().take(plies) {
            if b.moves() == 0 || !self.ensure(&b) {
                break;
            }
            self.book.add_game(&b);
            path.push(b);
            match b.play_move(mv) {
                Ok(next) => b = next,
                Err(_) => break,
            }
        }
        if path.len() == plies.min(moves.len()) && self.ensure(&b) {
            self.book.add_game(&b);
        }
        for p in path.iter().rev() {
            self.refresh_leaf(p);
        }
        self.book.propagate();
    }
}

/// The best move of `board` that leads out of `book`, with its score and the depth behind
/// it, by a search at `depth`; `None` when every move leads into the book or there is no move.
fn search_leaf(
    engine: &Engine,
    book: &Book,
    board: &Board,
    depth: u32,
    stop: Option<Arc<AtomicBool>>,
) -> Option<(Square, i32, u32)> {
    let moves = board.moves();
    if moves == 0 {
        return None;
    }
    let in_book = Square::iter(moves)
        .filter(|&sq| book.contains(&board.play(sq).expect("legal")))
        .count();
    if in_book == moves.count_ones() as usize {
        return None;
    }
    let limits = Limits {
        depth: Some(depth.clamp(1, 60)),
        multipv: in_book + 1,
        stop,
        ..Limits::default()
    };
    let info = engine.search(*board, &limits, &mut |_| {});
    let depth = if info.solve.is_some() {
        60
    } else {
        info.depth.min(60)
    };
    info.lines.iter().find_map(|l| match l.mv {
        Move::Play(sq) if !book.contains(&board.play(sq).expect("legal")) => {
            Some((sq, l.score, depth))
        }
        _ => None,
    })
}

/// The entry a book gets for `board` against `book` as it stands: its leaf searched at
/// `depth` with `engine`, the learned games kept (a position whose every move leads into the
/// book gets no leaf and its value from its children). `None` for a position with no move
/// (the side to move must pass, or the game is over), which a book never stores.
pub fn leaf_entry(engine: &Engine, book: &Book, board: &Board, depth: u32) -> Option<Entry> {
    entry_of(engine, book, board, depth, None)
}

/// [`leaf_entry`], its search stopped when `stop` is set.
fn entry_of(
    engine: &Engine,
    book: &Book,
    board: &Board,
    depth: u32,
    stop: Option<Arc<AtomicBool>>,
) -> Option<Entry> {
    if board.moves() == 0 {
        return None;
    }
    let games = book.get(board).map_or(0, |e| e.games);
    Some(match search_leaf(engine, book, board, depth, stop) {
        Some((sq, score, depth)) => Entry {
            value: score.clamp(-64, 64) as i8,
            leaf: sq.index() as u8,
            leaf_score: score.clamp(-64, 64) as i8,
            depth: depth as u8,
            games,
        },
        None => Entry {
            value: book.fresh_value(board).unwrap_or(0).clamp(-64, 64) as i8,
            leaf: NO_LEAF,
            leaf_score: 0,
            depth: book.get(board).map_or(0, |e| e.depth),
            games,
        },
    })
}

/// An entry that holds a place in a [`Plan`]'s book until its search: no leaf, depth 0.
const UNSEARCHED: Entry = Entry {
    value: 0,
    leaf: NO_LEAF,
    leaf_score: 0,
    depth: 0,
    games: 0,
};

/// Positions to add to a book and leaves to search, fixed beforehand so that the searches are
/// independent of each other (for shards): the book with the positions to come already in
/// it, and the positions to search against it.
///
/// [`Builder::learn`] and [`Builder::build`] search as they go, each new position against
/// the book as it is at that moment. A plan fixes the book's positions first ([`Plan::learn`]:
/// every game walked in; [`Plan::round`]: one round of expansion); then each position to
/// search is searched against them ([`leaf_entry`]), in any order and on any machine, and
/// the values are propagated once at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The book with the planned positions added (the new ones with no leaf and depth 0
    /// until searched) and, when learning, the games counted.
    pub book: Book,
    /// The positions to search, canonical and sorted: the new ones, and those of the book
    /// whose leaf has joined the book.
    pub to_score: Vec<Board>,
}

impl Plan {
    /// The plan of learning `games` (each a start position and the moves played) into
    /// `book`, up to `plies` moves into each game, with the rules of [`Builder::learn`] (a
    /// game stops counting at a pass or an illegal move). The book's positions on a game's
    /// path whose leaf has joined the book are searched again.
    pub fn learn(book: &Book, games: &[(Board, &[Move])], plies: usize) -> Plan {
        let mut out = book.clone();
        let mut fresh: Vec<Board> = Vec::new();
        let mut on_path: Vec<Board> = Vec::new();
        let mut add = |out: &mut Book, b: &Board| {
            if !out.contains(b) {
                out.insert(b, UNSEARCHED);
                fresh.push(b.canonical().0);
            }
            out.add_game(b);
        };
        for (start, moves) in games {
            let mut b = *start;
            let mut walked = 0;
            for &mv in moves.iter().take(plies) {
                if b.moves() == 0 {
                    break;
                }
                add(&mut out, &b);
                on_path.push(b);
                walked += 1;
                match b.play_move(mv) {
                    Ok(next) => b = next,
                    Err(_) => break,
                }
            }
            if walked == plies.min(moves.len()) && b.moves() != 0 {
                add(&mut out, &b);
            }
        }
        let mut to_score = fresh;
        for b in on_path {
            if book.contains(&b)
                && let Some((sq, _)) = book.leaf(&b)
                && out.contains(&b.play(sq).expect("a leaf is a legal move"))
            {
                to_score.push(b.canonical().0);
            }
        }
        to_score.sort_by_key(|b| (b.player, b.opponent));
        to_score.dedup();
        Plan {
            book: out,
            to_score,
        }
    }

    /// One round of building in independent searches, from `book` as it stands: the
    /// leaves [`Builder::build`] would bring into the book next, all at once. A line's *loss*
    /// is the sum, over its moves, of how far each falls below the best move of its
    /// position; the round adds the leaf of every book position reached in fewer than
    /// `config.plies` moves by a line of loss at most `config.width` whose leaf keeps the
    /// loss within the width (a leaf whose position has no move is left out, as the book
    /// stores none), and searches again every book position whose leaf is then in the book.
    ///
    /// The start position alone when the book lacks it. When `config.max_positions` leaves
    /// room for fewer, the leaves of least loss are added (ties by board). An empty plan
    /// (nothing to search) when no line is left to expand: the book is built.
    pub fn round(book: &Book, config: &BuildConfig) -> Plan {
        let mut out = book.clone();
        let root = Board::start();
        if !book.contains(&root) {
            out.insert(&root, UNSEARCHED);
            return Plan {
                book: out,
                to_score: vec![root.canonical().0],
            };
        }
        let key = |b: &Board| {
            let (c, _) = b.canonical();
            (c.player, c.opponent)
        };
        // The least loss of a line to each book position, a move at a time (every line to a
        // position is as long: each move adds a disc, and a book position never passes),
        // and of the lines to the leaves to add.
        let mut level: BTreeMap<(u64, u64), i32> = BTreeMap::from([(key(&root), 0)]);
        let mut leaves: BTreeMap<(u64, u64), i32> = BTreeMap::new();
        for _ in 0..config.plies {
            let mut next = BTreeMap::new();
            for (&(p, o), &loss) in &level {
                let b = Board::new(p, o);
                let Some(moves) = book.moves(&b) else {
                    continue;
                };
                let Some(best) = moves.first().map(|m| m.score) else {
                    continue;
                };
                for m in &moves {
                    let l = loss + (best - m.score);
                    let Move::Play(sq) = m.mv else { continue };
                    let child = b.play(sq).expect("a book move is legal");
                    let to = if m.in_book {
                        &mut next
                    } else if child.moves() != 0 {
                        &mut leaves
                    } else {
                        continue;
                    };
                    if l <= config.width {
                        let least = to.entry(key(&child)).or_insert(l);
                        *least = (*least).min(l);
                    }
                }
            }
            level = next;
        }
        let mut fresh: Vec<(i32, u64, u64)> =
            leaves.into_iter().map(|((p, o), l)| (l, p, o)).collect();
        fresh.sort_unstable();
        fresh.truncate(config.max_positions.saturating_sub(book.len()));
        let mut to_score = Vec::with_capacity(fresh.len());
        for (_, p, o) in fresh {
            let b = Board::new(p, o);
            out.insert(&b, UNSEARCHED);
            to_score.push(b);
        }
        for (b, _) in book.iter() {
            if let Some((sq, _)) = book.leaf(&b)
                && out.contains(&b.play(sq).expect("a leaf is a legal move"))
            {
                to_score.push(b);
            }
        }
        to_score.sort_by_key(|b| (b.player, b.opponent));
        to_score.dedup();
        Plan {
            book: out,
            to_score,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::EngineConfig;

    fn engine() -> Engine {
        Engine::new(EngineConfig {
            threads: 1,
            hash_mb: 16,
        })
    }

    #[test]
    fn a_built_book_holds_the_best_lines_and_consistent_values() {
        let engine = engine();
        let mut b = Builder::new(&engine, Book::new(), 4);
        let config = BuildConfig {
            plies: 4,
            depth: 4,
            width: 2,
            max_positions: 60,
        };
        b.build(&config);
        let book = b.book;
        assert!(
            book.len() > 4 && book.len() <= 60,
            "{} positions",
            book.len()
        );
        let start = Board::start();
        // Every value is the negamax of its children and leaf.
        for (board, e) in book.iter() {
            assert_eq!(book.fresh_value(&board), Some(e.value as i32));
        }
        // The best line runs inside the book for a few moves.
        let line = book.line(&start, 10);
        assert!(line.len() >= 3, "{line:?}");
        let best = book.moves(&start).unwrap()[0];
        assert!(best.in_book);
        assert_eq!(best.score, book.get(&start).unwrap().value as i32);
        // Building again with the same settings adds nothing.
        let mut again = Builder::new(&engine, book.clone(), 4);
        again.build(&config);
        assert_eq!(again.book, book);
    }

    #[test]
    fn a_learn_plan_has_the_positions_and_counts_of_learning_one_by_one() {
        let engine = engine();
        let mut base = Builder::new(&engine, Book::new(), 2);
        base.build(&BuildConfig {
            plies: 2,
            depth: 2,
            width: 0,
            max_positions: 4,
        });
        let book = base.book;
        let games: Vec<Vec<Move>> = ["f5d6c3d3c4f4f6", "f5f6e6f4", "c4c3d3c5b4", "f5d6c5"]
            .iter()
            .map(|t| {
                crate::notation::parse_transcript(t)
                    .unwrap()
                    .moves()
                    .to_vec()
            })
            .collect();
        let walks: Vec<(Board, &[Move])> = games
            .iter()
            .map(|m| (Board::start(), m.as_slice()))
            .collect();
        let plan = Plan::learn(&book, &walks, 5);
        let mut one_by_one = Builder::new(&engine, book.clone(), 2);
        for m in &games {
            one_by_one.learn(&Board::start(), m, 5);
        }
        let counts = |b: &Book| {
            let mut v: Vec<_> = b
                .iter()
                .map(|(board, e)| (board.player, board.opponent, e.games))
                .collect();
            v.sort();
            v
        };
        assert_eq!(counts(&plan.book), counts(&one_by_one.book));
        // Every position the games brought is to be searched, once, in board order.
        let new: Vec<Board> = plan
            .book
            .iter()
            .map(|(b, _)| b)
            .filter(|b| !book.contains(b))
            .collect();
        assert!(!new.is_empty());
        assert!(new.iter().all(|b| plan.to_score.contains(b)));
        assert!(
            plan.to_score
                .windows(2)
                .all(|w| (w[0].player, w[0].opponent) < (w[1].player, w[1].opponent))
        );
        // Searching them against the planned book scores every one.
        for b in &plan.to_score {
            let e = leaf_entry(&engine, &plan.book, b, 2).unwrap();
            assert_eq!(e.games, plan.book.get(b).unwrap().games);
        }
    }

    #[test]
    fn a_round_adds_the_leaves_a_build_would_and_nothing_once_built() {
        let engine = engine();
        let config = BuildConfig {
            plies: 4,
            depth: 3,
            width: 1,
            max_positions: 100,
        };
        // From nothing: the start position alone.
        let first = Plan::round(&Book::new(), &config);
        assert_eq!(first.to_score, [Board::start().canonical().0]);
        assert_eq!(first.book.len(), 1);
        // A finished build leaves nothing to add.
        let mut b = Builder::new(&engine, Book::new(), 3);
        b.build(&config);
        let book = b.book;
        assert_eq!(Plan::round(&book, &config).book.len(), book.len());
        // Wider and deeper: new leaves, each the leaf of a book position, searched with the
        // positions whose leaf they are.
        let wider = BuildConfig {
            plies: 6,
            width: 3,
            ..config
        };
        let plan = Plan::round(&book, &wider);
        let new: Vec<&Board> = plan.to_score.iter().filter(|b| !book.contains(b)).collect();
        assert!(!new.is_empty());
        for n in &new {
            let parent = book.iter().find(|(p, _)| {
                book.leaf(p)
                    .is_some_and(|(sq, _)| p.play(sq).unwrap().canonical().0 == **n)
            });
            let (parent, _) = parent.expect("a new position is a book position's leaf");
            assert!(plan.to_score.contains(&parent));
        }
        let mut scored = plan.book.clone();
        for b in &plan.to_score {
            scored.insert(b, leaf_entry(&engine, &plan.book, b, 3).unwrap());
        }
        scored.propagate();
        for (board, e) in scored.iter() {
            assert_eq!(scored.fresh_value(&board), Some(e.value as i32));
            if let Some((sq, _)) = scored.leaf(&board) {
                assert!(
                    !scored.contains(&board.play(sq).unwrap()),
                    "a leaf in the book"
                );
            }
        }
        // Room for one more position: the leaf of least loss alone.
        let tight = BuildConfig {
            max_positions: book.len() + 1,
            ..wider
        };
        assert_eq!(Plan::round(&book, &tight).book.len(), book.len() + 1);
    }

    #[test]
    fn learning_a_game_adds_its_positions() {
        let engine = engine();
        let mut b = Builder::new(&engine, Book::new(), 3);
        let game = crate::notation::parse_transcript("f5d6c3d3c4f4f6f3e6e7").unwrap();
        let moves: Vec<Move> = game.moves().to_vec();
        b.learn(&Board::start(), &moves, 6);
        b.learn(&Board::start(), &moves, 6);
        let book = b.book;
        assert_eq!(book.len(), 7);
        let mut pos = Board::start();
        for &mv in &moves[..6] {
            assert_eq!(book.get(&pos).unwrap().games, 2);
            let listed = book.moves(&pos).unwrap();
            assert!(listed.iter().any(|m| m.mv == mv && m.in_book), "{mv}");
            pos = pos.play_move(mv).unwrap();
        }
        assert_eq!(book.get(&pos).unwrap().games, 2);
        for (board, e) in book.iter() {
            assert_eq!(book.fresh_value(&board), Some(e.value as i32));
        }
    }
}
