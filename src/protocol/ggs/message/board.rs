//! The `join` and `update` board messages ([`BoardMessage`]) in the verbose `client -`
//! form, read leniently: lines are recognised by their shape rather than their place.

use super::values::rating;
use super::{GameId, GameType, MoveRecord, ParseError, PlayerClock, RawMessage, excerpt};
use crate::board::{Color, Move, Position, Square};
use crate::game::Game;
use crate::notation::{split_move_value, square_char};

/// A `join` or `update` board message (verbose `client -` form).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardMessage {
    /// `join` (the whole game) rather than `update` (one move).
    pub join: bool,
    /// The game's id (`.5`, or `.5.0` in a synchro match).
    pub id: GameId,
    /// The match type.
    pub game_type: GameType,
    /// The komi, when set (`K?` is none).
    pub komi: Option<f64>,
    /// The move just played (an update's first line).
    pub last_move: Option<MoveRecord>,
    /// The two players' clock lines, in the message's order (which says nothing of colour).
    pub clocks: [PlayerClock; 2],
    /// The current position, as printed.
    pub position: Position,
    /// False when the message had no `to move` line: the side to move was then inferred.
    pub to_move_shown: bool,
    /// A join's start position (the current one for a join without moves); `None` for an
    /// update, or a join whose start block was not there.
    pub start: Option<Position>,
    /// A join's moves, in order (empty for an update).
    pub moves: Vec<MoveRecord>,
}

impl BoardMessage {
    /// The clock line of the player of `color`.
    pub fn player(&self, color: Color) -> &PlayerClock {
        if self.clocks[0].color == color {
            &self.clocks[0]
        } else {
            &self.clocks[1]
        }
    }

    /// The colour `name` plays here, if it plays.
    pub fn color_of(&self, name: &str) -> Option<Color> {
        self.clocks.iter().find(|c| c.name == name).map(|c| c.color)
    }

    /// A join's game: its start and moves replayed (passes the list leaves out are added);
    /// `None` without a start. The position reached may differ from [`Self::position`]:
    /// the printed board is the one to trust.
    pub fn game(&self) -> Option<Game> {
        let mut game = Game::new(self.start?);
        for r in &self.moves {
            play_lenient(&mut game, r.mv).ok()?;
        }
        Some(game)
    }
}

/// Plays `mv`, first passing for the side to move when it must pass and `mv` is a square.
fn play_lenient(game: &mut Game, mv: Move) -> Result<(), ()> {
    if game.play(mv).is_ok() {
        return Ok(());
    }
    let pos = game.position();
    if matches!(mv, Move::Play(_)) && pos.board.must_pass() && !pos.board.is_game_over() {
        game.play(Move::Pass).map_err(|_| ())?;
        if game.play(mv).is_ok() {
            return Ok(());
        }
        game.undo();
    }
    Err(())
}

/// Reads `n: mv/eval/time`; `None` when the line is not one.
fn move_line(t: &str) -> Option<Result<MoveRecord, ParseError>> {
    let (n, rest) = t.split_once(':')?;
    let number: u32 = n.trim().parse().ok()?;
    let (word, eval, seconds) = split_move_value(rest);
    let mv = if word.starts_with(['P', 'p']) {
        Move::Pass
    } else {
        match word.parse::<Square>() {
            Ok(sq) => Move::Play(sq),
            Err(_) => return Some(Err(ParseError::bad("move", t))),
        }
    };
    Some(Ok(MoveRecord {
        number,
        mv,
        eval,
        seconds,
    }))
}

/// Reads `name (rating mark) clock`, split at the first `(`.
fn clock_line(t: &str) -> Result<PlayerClock, ParseError> {
    let bad = || ParseError::bad("clock line", t);
    let (name, rest) = t.split_once('(').ok_or_else(bad)?;
    let (inside, clock) = rest.split_once(')').ok_or_else(bad)?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(bad());
    }
    let mut inner = inside.split_whitespace();
    let r = rating(inner.next().ok_or_else(bad)?)?;
    let color = match inner.next() {
        Some("*" | "X" | "x") => Color::Black,
        Some("O" | "o") => Color::White,
        _ => return Err(bad()),
    };
    Ok(PlayerClock {
        name: name.to_string(),
        rating: r,
        color,
        clock: clock.trim().parse()?,
    })
}

/// A board row's cells, a to h.
type Row = [Option<Color>; 8];

/// A board block being read: rows by index, then the side to move.
#[derive(Default)]
struct Block {
    rows: [Option<Row>; 8],
    count: usize,
}

impl Block {
    fn position(&self, to_move: Option<Color>) -> Result<Position, ParseError> {
        if self.count != 8 {
            return Err(ParseError::Board(format!("{} rows, not 8", self.count)));
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (r, row) in self.rows.iter().enumerate() {
            for (c, cell) in row.iter().flatten().enumerate() {
                let Some(sq) = Square::from_coords(c as u8, r as u8) else {
                    continue;
                };
                match cell {
                    Some(Color::Black) => black |= sq.bit(),
                    Some(Color::White) => white |= sq.bit(),
                    None => {}
                }
            }
        }
        let color = to_move.unwrap_or_else(|| {
            // Not shown: the side that can move, else by the parity of the discs.
            let pos = Position::from_colors(black, white, Color::Black);
            if pos.board.moves() != 0 && pos.board.opponent_moves() == 0 {
                Color::Black
            } else if pos.board.moves() == 0 && pos.board.opponent_moves() != 0 {
                Color::White
            } else if (black | white).count_ones() % 2 == 0 {
                Color::Black
            } else {
                Color::White
            }
        });
        Ok(Position::from_colors(black, white, color))
    }
}

/// Reads a board row `r c c c c c c c c [r]` (the `|` removed); `None` when the line does
/// not start with a row number.
fn board_row(t: &str) -> Option<Result<(usize, Row), ParseError>> {
    let mut words = t.split_whitespace();
    let first = words.next()?;
    let r = match first.as_bytes() {
        [d @ b'1'..=b'8'] => (d - b'1') as usize,
        _ => return None,
    };
    let mut cells: Vec<char> = words.flat_map(str::chars).collect();
    if cells.len() == 9 && cells[8] == char::from(first.as_bytes()[0]) {
        cells.pop();
    }
    if cells.len() != 8 {
        return Some(Err(ParseError::Board(format!(
            "row {}: {:?}",
            r + 1,
            excerpt(t)
        ))));
    }
    let mut row = [None; 8];
    for (i, &c) in cells.iter().enumerate() {
        match square_char(c) {
            Some(cell) => row[i] = cell,
            None => {
                return Some(Err(ParseError::Board(format!(
                    "row {}: {:?}",
                    r + 1,
                    excerpt(t)
                ))));
            }
        }
    }
    Some(Ok((r, row)))
}

/// Reads a `join` or `update` (`words` are the header's words after `/os:`).
pub(super) fn parse_board(words: &[&str], raw: &RawMessage) -> Result<BoardMessage, ParseError> {
    let join = words[0] == "join";
    let id: GameId = words
        .get(1)
        .ok_or(ParseError::Missing("game id"))?
        .parse()?;
    let game_type: GameType = words
        .get(2)
        .ok_or(ParseError::Missing("game type"))?
        .parse()?;
    if game_type.size != 8 {
        return Err(ParseError::Board(format!(
            "a {0}x{0} board",
            game_type.size
        )));
    }
    let komi = match words.get(3).and_then(|k| k.strip_prefix('K')) {
        None | Some("?") | Some("") => None,
        Some(k) => Some(
            k.parse::<f64>()
                .ok()
                .filter(|k| k.is_finite())
                .ok_or_else(|| ParseError::bad("komi", k))?,
        ),
    };
    let mut clocks: Vec<PlayerClock> = Vec::new();
    let mut records: Vec<MoveRecord> = Vec::new();
    let mut blocks: Vec<Position> = Vec::new();
    let mut shown = true;
    let mut block = Block::default();
    let mut move_count: Option<u32> = None;
    for line in &raw.lines {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(side) = t.strip_suffix("to move") {
            let color = match side.trim() {
                "*" | "X" | "x" => Color::Black,
                "O" | "o" => Color::White,
                _ => return Err(ParseError::bad("side to move", t)),
            };
            blocks.push(block.position(Some(color))?);
            block = Block::default();
            continue;
        }
        if let Some(n) = t
            .strip_suffix("move(s)")
            .or_else(|| t.strip_suffix("moves"))
        {
            move_count = Some(
                n.trim()
                    .parse()
                    .map_err(|_| ParseError::bad("move count", t))?,
            );
            continue;
        }
        if let Some(rec) = move_line(t) {
            let rec = rec?;
            if rec.number > 0 {
                records.push(rec);
            }
            continue;
        }
        if t.contains('(') {
            clocks.push(clock_line(t)?);
            continue;
        }
        if let Some(row) = board_row(t) {
            let (r, cells) = row?;
            if block.rows[r].replace(cells).is_some() {
                return Err(ParseError::Board(format!("row {} twice", r + 1)));
            }
            block.count += 1;
            continue;
        }
        // Column letters, and any line of a layout not foreseen.
        if !t
            .split_whitespace()
            .all(|w| matches!(w, "A" | "B" | "C" | "D" | "E" | "F" | "G" | "H"))
        {
            log::debug!("GGS board {id}: line skipped: {:?}", excerpt(t));
        }
    }
    if block.count > 0 {
        // The last block had no `to move` line (the end of a game may look so).
        shown = false;
        blocks.push(block.position(None)?);
    }
    let position = *blocks
        .last()
        .ok_or(ParseError::Board("no board".to_string()))?;
    let n = clocks.len();
    if n < 2 {
        return Err(ParseError::Missing("clock lines"));
    }
    let second = clocks.pop().ok_or(ParseError::Missing("clock lines"))?;
    let first = clocks.pop().ok_or(ParseError::Missing("clock lines"))?;
    if first.color == second.color {
        return Err(ParseError::Board(
            "both players have the same colour".to_string(),
        ));
    }
    let mut msg = BoardMessage {
        join,
        id,
        game_type,
        komi,
        last_move: None,
        clocks: [first, second],
        position,
        to_move_shown: shown,
        start: None,
        moves: Vec::new(),
    };
    if !join {
        msg.last_move = records.last().copied();
        return Ok(msg);
    }
    // A join: moves numbered 1, 2, ... (a repeated number is the same move shown again).
    let mut moves: Vec<MoveRecord> = Vec::new();
    for r in records {
        if moves.iter().any(|m| m.number == r.number) {
            continue;
        }
        if r.number as usize != moves.len() + 1 {
            return Err(ParseError::bad("move number", &r.number.to_string()));
        }
        moves.push(r);
    }
    if let Some(n) = move_count
        && n as usize != moves.len()
    {
        return Err(ParseError::Board(format!(
            "{n} move(s) announced, {} listed",
            moves.len()
        )));
    }
    msg.start = if blocks.len() >= 2 {
        Some(blocks[0])
    } else if moves.is_empty() {
        Some(position)
    } else {
        None
    };
    if let Some(start) = msg.start {
        let mut game = Game::new(start);
        for r in &moves {
            play_lenient(&mut game, r.mv).map_err(|()| ParseError::IllegalMove {
                number: r.number,
                mv: r.mv,
            })?;
        }
        if game.position() != position {
            log::debug!(
                "GGS join {}: the moves do not reach the printed board",
                msg.id
            );
        }
    }
    msg.moves = moves;
    Ok(msg)
}
