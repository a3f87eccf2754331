//! Training positions: game records in, sample files out.
//!
//! A [`Sample`] is a position (side to move relative) and a score for the side to move, with
//! the kind of its label ([`LabelKind`]) and a 32-bit id of its game (a hash of the moves),
//! so that a game's positions all fall on the same side of the held-out split
//! ([`is_held_out`]). How games become samples is [`super::label`]'s.
//!
//! Scores in WTHOR files give the empty squares to the winner, as [`Board::final_score`] does.

use crate::board::{Board, Square};
use crate::notation::{WthorGame, parse_wtb};
use anyhow::{Context, bail, ensure};
use std::collections::HashSet;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// A game to learn from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The squares played from the start position, passes left out.
    pub moves: Vec<Square>,
    /// Black's final disc difference (empty squares to the winner).
    pub final_black: i32,
    /// `(empties, score)`: black's disc difference with perfect play from the position with
    /// that many empty squares, when the record has one.
    pub theoretical: Option<(u32, i32)>,
    /// The plies of the game that are its opening (random moves or an opening line): the
    /// positions before the last of them is played are not labelled. 0 for WTHOR games.
    pub opening: u32,
}

impl GameRecord {
    /// The record of a WTHOR game from a file whose header gives `depth` as the theoretical
    /// score's depth (0: none).
    pub fn from_wthor(g: &WthorGame, depth: u8) -> GameRecord {
        let final_black = 2 * g.black_discs as i32 - 64;
        let depth = depth as u32;
        let theoretical = (depth > 0 && g.moves.len() as u32 >= 60 - depth)
            .then(|| (depth, 2 * g.theoretical as i32 - 64));
        GameRecord {
            moves: g.moves.clone(),
            final_black,
            theoretical,
            opening: 0,
        }
    }

    /// The 32-bit id of the game: a hash of its moves.
    pub fn id(&self) -> u32 {
        game_id(&self.moves)
    }

    /// The positions of the game, each with true when black is to move; passes are played
    /// where needed; the final position is included. `None` when a move is illegal.
    pub fn positions(&self) -> Option<Vec<(Board, bool)>> {
        let mut out = Vec::with_capacity(self.moves.len() + 4);
        let mut b = crate::board::Position::start().board;
        let mut black = true;
        for &sq in &self.moves {
            if b.moves() == 0 {
                out.push((b, black));
                b = b.passed();
                black = !black;
            }
            out.push((b, black));
            b = b.play(sq).ok()?;
            black = !black;
        }
        out.push((b, black));
        Some(out)
    }
}

/// FNV-1a hash of a move list.
pub fn game_id(moves: &[Square]) -> u32 {
    let mut h = 0x811C_9DC5u32;
    for m in moves {
        h ^= m.index() as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// True when a game with this id belongs to the held-out split of `percent` percent.
pub fn is_held_out(game: u32, percent: u32) -> bool {
    // Mix the bits so that the split does not follow the hash's low bits.
    let x = (game as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    (x % 100) < percent as u64
}

/// The `.wtb` files named by `paths`: files as given, directories searched (not
/// recursively) for `*.wtb`, sorted by name.
pub fn wthor_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot list {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x.eq_ignore_ascii_case("wtb")))
                .collect();
            v.sort();
            ensure!(!v.is_empty(), "no .wtb file in {}", p.display());
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Reads the games of WTHOR files and directories (see [`wthor_files`]), dropping repeated
/// games (the same moves) after their first appearance.
pub fn read_games(paths: &[PathBuf]) -> anyhow::Result<Vec<GameRecord>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for f in wthor_files(paths)? {
        let bytes = std::fs::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
        let file = parse_wtb(&bytes).with_context(|| format!("in {}", f.display()))?;
        for g in &file.games {
            let rec = GameRecord::from_wthor(g, file.header.depth);
            if seen.insert(rec.moves.clone()) {
                out.push(rec);
            }
        }
    }
    Ok(out)
}

/// How a sample's score was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum LabelKind {
    /// The game's final result.
    Final = 0,
    /// The exact result of a later position of the game (a theoretical score or a solve).
    Outcome = 1,
    /// The exact score of this very position.
    Exact = 2,
    /// A deep search score.
    Search = 3,
}

impl LabelKind {
    fn from_u8(v: u8) -> Option<LabelKind> {
        Some(match v {
            0 => LabelKind::Final,
            1 => LabelKind::Outcome,
            2 => LabelKind::Exact,
            3 => LabelKind::Search,
            _ => return None,
        })
    }
}

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The position, side to move first.
    pub board: Board,
    /// Its score for the side to move, in discs.
    pub score: i8,
    /// Where the score comes from.
    pub kind: LabelKind,
    /// The id of its game ([`game_id`]).
    pub game: u32,
}

/// The first bytes of a sample file, then a `u64` count and 24-byte records: player and
/// opponent bitboards (`u64`), score (`i8`), kind (`u8`), two zero bytes, game id (`u32`), all
/// little-endian.
pub const SAMPLE_MAGIC: &[u8; 8] = b"OFLKDATA";

const RECORD: usize = 24;

/// A sample's record in a sample file.
fn sample_record(s: &Sample) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[0..8].copy_from_slice(&s.board.player.to_le_bytes());
    r[8..16].copy_from_slice(&s.board.opponent.to_le_bytes());
    r[16] = s.score as u8;
    r[17] = s.kind as u8;
    r[20..24].copy_from_slice(&s.game.to_le_bytes());
    r
}

/// The sample of a record ([`sample_record`]), or why it is not one.
fn parse_record(rec: &[u8; RECORD]) -> Result<Sample, &'static str> {
    let board = Board::new(
        u64::from_le_bytes(rec[0..8].try_into().expect("8 bytes")),
        u64::from_le_bytes(rec[8..16].try_into().expect("8 bytes")),
    );
    let kind = LabelKind::from_u8(rec[17]).ok_or("a bad label kind")?;
    if !board.is_valid() {
        return Err("overlapping discs");
    }
    Ok(Sample {
        board,
        score: rec[16] as i8,
        kind,
        game: u32::from_le_bytes(rec[20..24].try_into().expect("4 bytes")),
    })
}

/// Writes samples to a file.
pub fn write_samples(path: &Path, samples: &[Sample]) -> anyhow::Result<()> {
    let f =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut w = BufWriter::new(f);
    w.write_all(SAMPLE_MAGIC)?;
    w.write_all(&(samples.len() as u64).to_le_bytes())?;
    for s in samples {
        w.write_all(&sample_record(s))?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// A game's samples as a shard item's bytes: their records in a sample file, one after the
/// other.
pub fn encode_samples(samples: &[Sample]) -> Vec<u8> {
    samples.iter().flat_map(sample_record).collect()
}

/// The samples of a shard item's bytes ([`encode_samples`]), or why they are not samples.
pub fn decode_samples(bytes: &[u8]) -> Result<Vec<Sample>, &'static str> {
    if !bytes.len().is_multiple_of(RECORD) {
        return Err("a partial sample record");
    }
    bytes
        .chunks_exact(RECORD)
        .map(|r| parse_record(r.try_into().expect("a record")))
        .collect()
}

/// The bytes of a sample file holding `count` samples whose records are `records` (as
/// [`write_samples`] writes it).
pub fn sample_file_bytes(count: usize, records: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + records.len());
    out.extend_from_slice(SAMPLE_MAGIC);
    out.extend_from_slice(&(count as u64).to_le_bytes());
    out.extend_from_slice(records);
    out
}

/// The games' identity in a shard's settings: the sha256 of their moves and results.
pub fn games_id(games: &[GameRecord]) -> String {
    let mut bytes = Vec::new();
    for g in games {
        bytes.push(g.moves.len() as u8);
        bytes.extend(g.moves.iter().map(|s| s.index() as u8));
        bytes.extend_from_slice(&g.final_black.to_le_bytes());
        let (e, v) = g.theoretical.unwrap_or((255, 0));
        bytes.extend_from_slice(&e.to_le_bytes());
        bytes.extend_from_slice(&v.to_le_bytes());
        if g.opening > 0 {
            // Left out when 0, so that the WTHOR games' identities are as they were.
            bytes.push(0xFF);
            bytes.extend_from_slice(&g.opening.to_le_bytes());
        }
    }
    crate::shard::sha256_hex(&bytes)
}

/// Reads a sample file.
pub fn read_samples(path: &Path) -> anyhow::Result<Vec<Sample>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut r = BufReader::new(f);
    let mut head = [0u8; 16];
    r.read_exact(&mut head)
        .with_context(|| format!("{} is too short for a sample file", path.display()))?;
    ensure!(
        &head[..8] == SAMPLE_MAGIC,
        "{} is not a sample file (no OFLKDATA magic)",
        path.display()
    );
    let n = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes")) as usize;
    let mut out = Vec::with_capacity(n);
    let mut rec = [0u8; RECORD];
    for i in 0..n {
        r.read_exact(&mut rec)
            .with_context(|| format!("{} is truncated at record {i}", path.display()))?;
        match parse_record(&rec) {
            Ok(s) => out.push(s),
            Err(why) => bail!("{}: record {i} has {why}", path.display()),
        }
    }
    Ok(out)
}

/// Reads and concatenates sample files.
pub fn read_sample_files(paths: &[PathBuf]) -> anyhow::Result<Vec<Sample>> {
    let mut out = Vec::new();
    for p in paths {
        out.extend(read_samples(p)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_out_split_is_about_right() {
        let n = (0..10_000u32)
            .filter(|&g| is_held_out(g.wrapping_mul(2_654_435_761), 10))
            .count();
        assert!((800..1200).contains(&n), "{n}");
    }
}
