//! The book file: `OFBOOK1\n`, the number of positions (u32), one 24-byte record per
//! position, then a 64-bit FNV-1a checksum of everything before it; all little-endian.
//!
//! A record: the canonical board's two bitboards (side to move, opponent; u64 each), then
//! value (i8), leaf square (u8, 255 for none), leaf score (i8), depth (u8) and learned games
//! (u32). [`read`] checks the size, the checksum and every record (discs that overlap, a
//! board that is not canonical, a leaf that is not a legal move, a score off the scale, a
//! position twice) and refuses the whole file on the first fault.

use super::{Book, Entry, NO_LEAF};
use crate::board::{Board, Square};
use crate::checksum::fnv1a;
use anyhow::Context;
use std::fmt;
use std::path::Path;

/// The first 8 bytes of a book file.
pub const MAGIC: &[u8; 8] = b"OFBOOK1\n";

/// Bytes per position.
const RECORD: usize = 24;

/// Why a book file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookError {
    /// The file does not start with [`MAGIC`].
    NotABook,
    /// The file's size does not match the count it gives (a truncated or padded file).
    WrongSize {
        /// The size the count calls for.
        expected: usize,
        /// The size found.
        found: usize,
    },
    /// The checksum does not match the contents (a damaged file).
    BadChecksum,
    /// Record `index` (from 0) is not a valid position entry.
    BadRecord {
        /// Which record.
        index: usize,
        /// What is wrong with it.
        why: &'static str,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::NotABook => write!(f, "not an Outflank book file (no OFBOOK1 header)"),
            BookError::WrongSize { expected, found } => write!(
                f,
                "book file truncated or damaged: {found} bytes where its header calls for {expected}"
            ),
            BookError::BadChecksum => write!(f, "book file damaged: the checksum does not match"),
            BookError::BadRecord { index, why } => {
                write!(f, "book file damaged: position {index}: {why}")
            }
        }
    }
}

impl std::error::Error for BookError {}

/// The book as a file's bytes, positions in the order of their boards (so that the same book
/// always gives the same bytes).
pub fn write(book: &Book) -> Vec<u8> {
    let mut items: Vec<(Board, &Entry)> = book.iter().collect();
    items.sort_by_key(|(b, _)| (b.player, b.opponent));
    let mut out = Vec::with_capacity(12 + items.len() * RECORD + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for (b, e) in items {
        out.extend_from_slice(&b.player.to_le_bytes());
        out.extend_from_slice(&b.opponent.to_le_bytes());
        out.push(e.value as u8);
        out.push(e.leaf);
        out.push(e.leaf_score as u8);
        out.push(e.depth);
        out.extend_from_slice(&e.games.to_le_bytes());
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads a book from a file's bytes, or says why it cannot.
pub fn read(bytes: &[u8]) -> Result<Book, BookError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(BookError::NotABook);
    }
    let Some(count) = bytes.get(8..12) else {
        return Err(BookError::WrongSize {
            expected: 12 + 8,
            found: bytes.len(),
        });
    };
    let count = u32::from_le_bytes(count.try_into().expect("4 bytes")) as usize;
    let expected = count
        .checked_mul(RECORD)
        .and_then(|n| n.checked_add(12 + 8))
        .unwrap_or(usize::MAX);
    if bytes.len() != expected {
        return Err(BookError::WrongSize {
            expected,
            found: bytes.len(),
        });
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv1a(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(BookError::BadChecksum);
    }
    let mut book = Book::new();
    for (index, r) in body[12..].chunks_exact(RECORD).enumerate() {
        let bad = |why| BookError::BadRecord { index, why };
        let word = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().expect("8 bytes"));
        let board = Board::new(word(0), word(8));
        let entry = Entry {
            value: r[16] as i8,
            leaf: r[17],
            leaf_score: r[18] as i8,
            depth: r[19],
            games: u32::from_le_bytes(r[20..24].try_into().expect("4 bytes")),
        };
        if !board.is_valid() {
            return Err(bad("the two sides' discs overlap"));
        }
        if board.canonical().0 != board {
            return Err(bad("the board is not in its canonical orientation"));
        }
        if !(-64..=64).contains(&entry.value) || !(-64..=64).contains(&entry.leaf_score) {
            return Err(bad("a score beyond 64 discs"));
        }
        if entry.depth > 60 {
            return Err(bad("a depth beyond 60"));
        }
        if entry.leaf != NO_LEAF {
            let legal = Square::new(entry.leaf).is_some_and(|sq| board.play(sq).is_ok());
            if !legal {
                return Err(bad("the leaf is not a legal move"));
            }
        }
        if book.contains(&board) {
            return Err(bad("a position listed twice"));
        }
        book.insert(&board, entry);
    }
    Ok(book)
}

/// Reads a book file, with the path in the error.
pub fn load(path: &Path) -> anyhow::Result<Book> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    read(&bytes).with_context(|| format!("in {}", path.display()))
}

/// Writes a book file whole or not at all: to a temporary file beside it, then renamed over
/// it, so that an interrupted write never leaves a truncated book
/// ([`crate::shard::write_atomically`]).
pub fn save(book: &Book, path: &Path) -> anyhow::Result<()> {
    crate::shard::write_atomically(path, &write(book))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Book {
        let entry = |leaf: &str, score: i8, games: u32| Entry {
            value: score,
            leaf: leaf.parse::<Square>().unwrap().index() as u8,
            leaf_score: score,
            depth: 16,
            games,
        };
        let start = Board::start();
        let mut book = Book::new();
        book.insert(&start, entry("f5", 0, 3));
        let child = start.play("f5".parse().unwrap()).unwrap();
        book.insert(&child, entry("d6", 1, 2));
        book.propagate();
        book
    }

    #[test]
    fn a_book_survives_the_round_trip() {
        let book = sample();
        let bytes = write(&book);
        assert_eq!(read(&bytes).unwrap(), book);
        assert_eq!(
            write(&read(&bytes).unwrap()),
            bytes,
            "same book, same bytes"
        );
        assert_eq!(read(&write(&Book::new())).unwrap(), Book::new());
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = write(&sample());
        for n in 0..bytes.len() {
            let e = read(&bytes[..n]).unwrap_err();
            assert!(!e.to_string().is_empty());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(read(&longer), Err(BookError::WrongSize { .. })));
        assert_eq!(read(b"garbage"), Err(BookError::NotABook));
    }

    #[test]
    fn every_flipped_byte_is_refused() {
        let bytes = write(&sample());
        for i in 8..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(read(&b).is_err(), "byte {i}");
        }
    }

    #[test]
    fn bad_records_are_named() {
        // A record with a correct checksum but overlapping discs.
        let mut body = MAGIC.to_vec();
        body.extend_from_slice(&1u32.to_le_bytes());
        body.extend_from_slice(&1u64.to_le_bytes());
        body.extend_from_slice(&1u64.to_le_bytes());
        body.extend_from_slice(&[0, NO_LEAF, 0, 10, 0, 0, 0, 0]);
        let sum = fnv1a(&body);
        body.extend_from_slice(&sum.to_le_bytes());
        let e = read(&body).unwrap_err();
        assert_eq!(
            e,
            BookError::BadRecord {
                index: 0,
                why: "the two sides' discs overlap"
            }
        );
        assert!(e.to_string().contains("position 0"));
    }

    #[test]
    fn the_shipped_book_reads() {
        let book = Book::shipped();
        assert!(book.len() > 100, "{} positions", book.len());
        assert!(book.contains(&Board::start()));
    }
}
