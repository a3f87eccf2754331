//! WTHOR, the French Othello Federation's binary game database (little-endian).
//!
//! A `.wtb` file is a 16-byte header then 68-byte games: tournament, black player and white
//! player numbers (u16 each), black's discs at the end and black's theoretical discs (u8
//! each), then 60 moves as `10 * row + column` (1-based: a1 = 11, h1 = 18, a8 = 81, h8 = 88;
//! 0 ends the game). Passes are not recorded. The names of players and tournaments are in
//! `WTHOR.JOU` (20-byte records) and `WTHOR.TRN` (26-byte records) after the same 16-byte
//! header.

use std::fmt;

use crate::board::{Move, MoveError, Position, Square};
use crate::game::Game;

/// Size of the header of every WTHOR file.
const HEADER: usize = 16;
/// Size of one game record.
const GAME: usize = 68;
/// Size of a player name record (`WTHOR.JOU`).
pub const PLAYER_RECORD: usize = 20;
/// Size of a tournament name record (`WTHOR.TRN`).
pub const TOURNAMENT_RECORD: usize = 26;

/// Why WTHOR data could not be read or a game not replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WthorError {
    /// Shorter than the 16-byte header.
    NoHeader {
        /// The file's length in bytes.
        len: usize,
    },
    /// Fewer records than the header announces.
    Truncated {
        /// `"games"` or `"names"`.
        what: &'static str,
        /// The number the header announces.
        expected: usize,
        /// The number of whole records present.
        found: usize,
    },
    /// Bytes left after the records the header announces.
    ExtraBytes {
        /// `"games"` or `"names"`.
        what: &'static str,
        /// The number of records the header announces.
        records: usize,
        /// The number of bytes after them.
        extra: usize,
    },
    /// A board size other than 8 (or 0, which means 8).
    BoardSize(u8),
    /// A move byte that is not a square.
    BadMove {
        /// The game's number in the file, from 1, when known.
        game: Option<usize>,
        /// The move's number, from 1.
        number: usize,
        /// The byte.
        byte: u8,
    },
    /// A move that is not legal where it is played.
    Illegal {
        /// The game's number in the file, from 1, when known.
        game: Option<usize>,
        /// The move's number (passes not counted), from 1.
        number: usize,
        /// The square.
        square: Square,
        /// Why it is illegal.
        error: MoveError,
    },
}

impl WthorError {
    /// The same error, naming the game (its number in the file, from 1).
    pub fn in_game(self, number: usize) -> WthorError {
        match self {
            WthorError::BadMove {
                number: n, byte, ..
            } => WthorError::BadMove {
                game: Some(number),
                number: n,
                byte,
            },
            WthorError::Illegal {
                number: n,
                square,
                error,
                ..
            } => WthorError::Illegal {
                game: Some(number),
                number: n,
                square,
                error,
            },
            e => e,
        }
    }
}

impl fmt::Display for WthorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let game = |g: &Option<usize>| g.map(|n| format!("game {n}: ")).unwrap_or_default();
        match self {
            WthorError::NoHeader { len } => write!(
                f,
                "WTHOR: file too short for its 16-byte header ({len} bytes)"
            ),
            WthorError::Truncated {
                what,
                expected,
                found,
            } => write!(
                f,
                "WTHOR: file truncated: header says {expected} {what}, found {found}"
            ),
            WthorError::ExtraBytes {
                what,
                records,
                extra,
            } => write!(
                f,
                "WTHOR: {extra} unexpected bytes after the {records} {what} the header announces"
            ),
            WthorError::BoardSize(s) => {
                write!(f, "WTHOR: board size {s} is not supported (only 8x8)")
            }
            WthorError::BadMove {
                game: g,
                number,
                byte,
            } => write!(
                f,
                "WTHOR: {}move {number} is byte {byte}, not a square (11 to 88)",
                game(g)
            ),
            WthorError::Illegal {
                game: g,
                number,
                square,
                error,
            } => write!(f, "WTHOR: {}move {number} {square}: {error}", game(g)),
        }
    }
}

impl std::error::Error for WthorError {}

/// The 16-byte header of a WTHOR file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct WthorHeader {
    /// Creation date: century, year in the century, month, day (bytes 0-3).
    pub created: [u8; 4],
    /// Number of games (bytes 4-7); 0 in the names files.
    pub game_count: u32,
    /// Number of records of a names file (bytes 8-9); 0 in game files.
    pub record_count: u16,
    /// Year of the games (bytes 10-11).
    pub year: u16,
    /// Board size, 8 (or 0, meaning 8) (byte 12).
    pub board_size: u8,
    /// Game type, 0 for normal games (byte 13).
    pub game_type: u8,
    /// Depth (empties) from which the theoretical score is exact (byte 14).
    pub depth: u8,
    /// Reserved (byte 15).
    pub reserved: u8,
}

impl WthorHeader {
    /// Reads the header at the start of `data`.
    pub fn parse(data: &[u8]) -> Result<WthorHeader, WthorError> {
        let h: &[u8; HEADER] = data
            .get(..HEADER)
            .and_then(|h| h.try_into().ok())
            .ok_or(WthorError::NoHeader { len: data.len() })?;
        Ok(WthorHeader {
            created: [h[0], h[1], h[2], h[3]],
            game_count: u32::from_le_bytes([h[4], h[5], h[6], h[7]]),
            record_count: u16::from_le_bytes([h[8], h[9]]),
            year: u16::from_le_bytes([h[10], h[11]]),
            board_size: h[12],
            game_type: h[13],
            depth: h[14],
            reserved: h[15],
        })
    }

    /// The 16 bytes of the header.
    pub fn to_bytes(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[..4].copy_from_slice(&self.created);
        h[4..8].copy_from_slice(&self.game_count.to_le_bytes());
        h[8..10].copy_from_slice(&self.record_count.to_le_bytes());
        h[10..12].copy_from_slice(&self.year.to_le_bytes());
        h[12] = self.board_size;
        h[13] = self.game_type;
        h[14] = self.depth;
        h[15] = self.reserved;
        h
    }
}

/// One game of a `.wtb` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    /// Tournament number (a record of `WTHOR.TRN`).
    pub tournament: u16,
    /// Black player's number (a record of `WTHOR.JOU`).
    pub black: u16,
    /// White player's number.
    pub white: u16,
    /// Black's discs at the end, as recorded.
    pub black_discs: u8,
    /// Black's discs with perfect play from the header's depth on.
    pub theoretical: u8,
    /// The squares played, in order, passes left out.
    pub moves: Vec<Square>,
}

/// A `.wtb` file: its header and its games.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct WthorFile {
    /// The header (its game count is that of the file read; the writer uses the number of
    /// games instead).
    pub header: WthorHeader,
    /// The games.
    pub games: Vec<WthorGame>,
}

/// The square of a move byte `10 * row + column`, or `None`.
fn square_of_byte(b: u8) -> Option<Square> {
    let (row, col) = (b / 10, b % 10);
    if (1..=8).contains(&row) && (1..=8).contains(&col) {
        Square::from_coords(col - 1, row - 1)
    } else {
        None
    }
}

/// The move byte of a square.
fn byte_of_square(sq: Square) -> u8 {
    10 * (sq.row() + 1) + sq.column() + 1
}

/// Checks that `data` holds `count` records of `size` bytes after the header.
fn check_size(
    data: &[u8],
    count: usize,
    size: usize,
    what: &'static str,
) -> Result<(), WthorError> {
    let body = data.len().saturating_sub(HEADER);
    let found = body / size;
    if found < count {
        return Err(WthorError::Truncated {
            what,
            expected: count,
            found,
        });
    }
    let extra = body - count.saturating_mul(size);
    if extra > 0 {
        return Err(WthorError::ExtraBytes {
            what,
            records: count,
            extra,
        });
    }
    Ok(())
}

/// Reads one 68-byte game record; `number` (from 1) names it in errors.
fn parse_game(r: &[u8; GAME], number: usize) -> Result<WthorGame, WthorError> {
    let mut moves = Vec::with_capacity(60);
    // A 0 ends the game; whatever follows it is ignored.
    for (i, &b) in r[8..].iter().take_while(|&&b| b != 0).enumerate() {
        let sq = square_of_byte(b).ok_or(WthorError::BadMove {
            game: Some(number),
            number: i + 1,
            byte: b,
        })?;
        moves.push(sq);
    }
    Ok(WthorGame {
        tournament: u16::from_le_bytes([r[0], r[1]]),
        black: u16::from_le_bytes([r[2], r[3]]),
        white: u16::from_le_bytes([r[4], r[5]]),
        black_discs: r[6],
        theoretical: r[7],
        moves,
    })
}

/// Reads a `.wtb` file. The size must match the header's game count; a move byte that is
/// not a square is an error naming the game and move (legality is checked by
/// [`WthorGame::to_game`]).
pub fn parse_wtb(data: &[u8]) -> Result<WthorFile, WthorError> {
    let header = WthorHeader::parse(data)?;
    if header.board_size != 0 && header.board_size != 8 {
        return Err(WthorError::BoardSize(header.board_size));
    }
    let count = usize::try_from(header.game_count).unwrap_or(usize::MAX);
    check_size(data, count, GAME, "games")?;
    let body = data.get(HEADER..).unwrap_or_default();
    let games = body
        .chunks_exact(GAME)
        .enumerate()
        .map(|(i, r)| match <&[u8; GAME]>::try_from(r) {
            Ok(r) => parse_game(r, i + 1),
            Err(_) => Err(WthorError::Truncated {
                what: "games",
                expected: count,
                found: i,
            }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WthorFile { header, games })
}

/// Writes a `.wtb` file: the header with its game count set to the number of games, then
/// each game (its first 60 moves, which is all a game can have).
pub fn write_wtb(file: &WthorFile) -> Vec<u8> {
    let mut header = file.header;
    header.game_count = u32::try_from(file.games.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(HEADER + GAME * file.games.len());
    out.extend_from_slice(&header.to_bytes());
    for g in &file.games {
        out.extend_from_slice(&g.tournament.to_le_bytes());
        out.extend_from_slice(&g.black.to_le_bytes());
        out.extend_from_slice(&g.white.to_le_bytes());
        out.push(g.black_discs);
        out.push(g.theoretical);
        let mut moves = [0u8; 60];
        for (b, &sq) in moves.iter_mut().zip(&g.moves) {
            *b = byte_of_square(sq);
        }
        out.extend_from_slice(&moves);
    }
    out
}

impl WthorGame {
    /// Replays the game from the start position, playing the passes the record leaves out.
    /// An error names the move (the game too after [`WthorError::in_game`]).
    pub fn to_game(&self) -> Result<Game, WthorError> {
        let mut game = Game::default();
        for (i, &sq) in self.moves.iter().enumerate() {
            let pos = game.position();
            let mv = Move::Play(sq);
            let result = if pos.board.must_pass() {
                game.play_as(pos.to_move.opposite(), mv)
            } else {
                game.play(mv)
            };
            result.map_err(|error| WthorError::Illegal {
                game: None,
                number: i + 1,
                square: sq,
                error,
            })?;
        }
        Ok(game)
    }

    /// A record of `game`, which must start from the standard position (else `None`), with
    /// player and tournament numbers 0. Black's discs are counted at the end with the empty
    /// squares given to the winner (the convention of the WTHOR files); the theoretical
    /// score is set to the same.
    pub fn from_game(game: &Game) -> Option<WthorGame> {
        if game.start() != Position::start() {
            return None;
        }
        let moves: Vec<Square> = game
            .moves()
            .iter()
            .filter_map(|m| match m {
                Move::Play(sq) => Some(*sq),
                Move::Pass => None,
            })
            .collect();
        let discs = black_discs_won(&game.position());
        Some(WthorGame {
            tournament: 0,
            black: 0,
            white: 0,
            black_discs: discs,
            theoretical: discs,
            moves,
        })
    }
}

/// Black's discs in `pos` with the empty squares given to the side with more discs (split
/// evenly on a tie), as WTHOR records a finished game.
pub fn black_discs_won(pos: &Position) -> u8 {
    let b = pos.black().count_ones();
    let w = pos.white().count_ones();
    let e = 64 - b - w;
    let discs = if b > w {
        b + e
    } else if b < w {
        b
    } else {
        b + e / 2
    };
    u8::try_from(discs).unwrap_or(u8::MAX)
}

/// Reads a names file (`WTHOR.JOU`, `WTHOR.TRN`): records of `record_len` bytes after the
/// header, each a latin-1 name ended by a NUL (or filling the record).
pub fn parse_names(data: &[u8], record_len: usize) -> Result<Vec<String>, WthorError> {
    let header = WthorHeader::parse(data)?;
    let count = if header.record_count == 0 {
        usize::try_from(header.game_count).unwrap_or(usize::MAX)
    } else {
        usize::from(header.record_count)
    };
    check_size(data, count, record_len.max(1), "names")?;
    let body = data.get(HEADER..).unwrap_or_default();
    Ok(body
        .chunks_exact(record_len.max(1))
        .map(|r| {
            r.iter()
                .take_while(|&&b| b != 0)
                .map(|&b| char::from(b))
                .collect()
        })
        .collect())
}

/// Reads `WTHOR.JOU`: the player names, by number.
pub fn parse_jou(data: &[u8]) -> Result<Vec<String>, WthorError> {
    parse_names(data, PLAYER_RECORD)
}

/// Reads `WTHOR.TRN`: the tournament names, by number.
pub fn parse_trn(data: &[u8]) -> Result<Vec<String>, WthorError> {
    parse_names(data, TOURNAMENT_RECORD)
}

/// Writes a names file with records of `record_len` bytes: each name in latin-1 (`?` for a
/// character outside it), cut to the record and padded with NULs. The header's record count
/// is the number of names (at most 65,535 are written).
pub fn write_names(names: &[String], record_len: usize) -> Vec<u8> {
    let names = names
        .get(..names.len().min(usize::from(u16::MAX)))
        .unwrap_or_default();
    let header = WthorHeader {
        record_count: u16::try_from(names.len()).unwrap_or(u16::MAX),
        ..WthorHeader::default()
    };
    let mut out = Vec::with_capacity(HEADER + record_len * names.len());
    out.extend_from_slice(&header.to_bytes());
    for name in names {
        let mut rec = vec![0u8; record_len];
        for (b, c) in rec.iter_mut().zip(name.chars()) {
            *b = u8::try_from(u32::from(c)).unwrap_or(b'?');
        }
        out.extend_from_slice(&rec);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_bytes() {
        assert_eq!(square_of_byte(11), "a1".parse().ok());
        assert_eq!(square_of_byte(18), "h1".parse().ok());
        assert_eq!(square_of_byte(81), "a8".parse().ok());
        assert_eq!(square_of_byte(88), "h8".parse().ok());
        for bad in [0, 10, 19, 9, 90, 255] {
            assert_eq!(square_of_byte(bad), None);
        }
        for sq in Square::all() {
            assert_eq!(square_of_byte(byte_of_square(sq)), Some(sq));
        }
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_wtb(&[0; 10]).unwrap_err().to_string(),
            "WTHOR: file too short for its 16-byte header (10 bytes)"
        );
        let mut data = vec![0u8; HEADER + 37 * GAME + 5];
        data[4] = 100;
        assert_eq!(
            parse_wtb(&data).unwrap_err().to_string(),
            "WTHOR: file truncated: header says 100 games, found 37"
        );
        data[4] = 37;
        assert!(matches!(
            parse_wtb(&data),
            Err(WthorError::ExtraBytes { extra: 5, .. })
        ));
        data.truncate(HEADER + 37 * GAME);
        data[12] = 10;
        assert_eq!(parse_wtb(&data), Err(WthorError::BoardSize(10)));
        data[12] = 8;
        data[HEADER + GAME + 8] = 99;
        assert_eq!(
            parse_wtb(&data).unwrap_err().to_string(),
            "WTHOR: game 2: move 1 is byte 99, not a square (11 to 88)"
        );
        data[HEADER + GAME + 8] = 11;
        let f = parse_wtb(&data).unwrap();
        assert_eq!(
            f.games[1].to_game().unwrap_err().in_game(2).to_string(),
            "WTHOR: game 2: move 1 a1: illegal move a1: it outflanks no disc"
        );
        let huge = [0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(parse_wtb(&huge).is_err());
        assert!(parse_jou(&huge).is_err());
    }

    #[test]
    fn names_round_trip() {
        let names = vec![
            "Tastet Marc".to_string(),
            "Müller".to_string(),
            String::new(),
        ];
        let data = write_names(&names, PLAYER_RECORD);
        assert_eq!(data.len(), HEADER + 3 * PLAYER_RECORD);
        assert_eq!(parse_jou(&data).unwrap(), names);
        assert!(parse_trn(&data).is_err());
    }
}
