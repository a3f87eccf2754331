//! The weights file: what `outflank train fit` writes, `--eval-file` reads and the crate ships.
//!
//! A file is, all integers little-endian: the 8-byte magic `OFLKEVAL`, the `u32` file format
//! version (3), the `u32` length of the DEFLATE stream (raw, no zlib header) that follows,
//! the stream, then a `u64` FNV-1a checksum of everything before it. So a truncated file,
//! junk after the end and a changed byte are each refused with one line naming the fault.
//! The stream holds the payload:
//!
//! - `u32` format version (2, or 3 for weights with optional terms), `u32` phases, `u32`
//!   empties per phase (4 for 15 phases, 1 for one phase per number of empties), `u32`
//!   families, then for each family its name (`u8` length, bytes) and its number of squares
//!   (`u8`), then `u32` mobility span; in version 3 then `u32` terms and for each term
//!   ([`super::terms`]) its name (`u8` length, bytes) and its table size (`u32`);
//! - for each phase: each family's table, listing only the entries whose index is its own
//!   canonical index ([`super::pattern::canonical_map`]; the others are copies), then the
//!   mobility table and the two biases (even and odd empties), then (version 3) each term's
//!   table, every entry an `i16` in 1/64 disc.
//!
//! Decoding checks that the layout is the one this build evaluates with. Files of format 1
//! and 2 (the stream right after the magic, no length or checksum) are refused: nothing
//! would tell a damaged one from a sound one.

use super::pattern::{FAMILIES, FAMILY_COUNT, canonical_map, table_size};
use super::{LAYOUT, MOBILITY_SPAN, Term, Terms, Weights, phases_of};
use crate::checksum::fnv1a;
use anyhow::{Context, bail, ensure};
use std::path::Path;

/// The first bytes of a weights file.
pub const MAGIC: &[u8; 8] = b"OFLKEVAL";

/// The file format version: magic, version, stream length, stream, checksum.
pub const FILE_VERSION: u32 = 3;

/// The payload's layout version (version 1, with one bias per phase, is still read; weights
/// with no optional terms are written as version 2, byte for byte as before those).
pub const VERSION: u32 = 3;

/// Bytes before the stream: magic, file version, stream length.
const HEADER: usize = MAGIC.len() + 8;

/// DEFLATE level used when writing (fixed, so that the same weights give the same file).
const LEVEL: u8 = 9;

/// The payload of `w` before compression.
fn payload(w: &Weights) -> Vec<u8> {
    let mut out = Vec::new();
    let put32 = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    let terms = w.terms();
    put32(&mut out, if terms.is_empty() { 2 } else { VERSION });
    put32(&mut out, w.phases() as u32);
    put32(&mut out, w.empties_per_phase());
    put32(&mut out, FAMILY_COUNT as u32);
    for f in FAMILIES.iter() {
        out.push(f.name.len() as u8);
        out.extend_from_slice(f.name.as_bytes());
        out.push(f.squares.len() as u8);
    }
    put32(&mut out, MOBILITY_SPAN as u32);
    if !terms.is_empty() {
        put32(&mut out, terms.iter().count() as u32);
        for t in terms.iter() {
            out.push(t.name().len() as u8);
            out.extend_from_slice(t.name().as_bytes());
            put32(&mut out, t.span() as u32);
        }
    }
    let canon = canonical_map();
    for p in 0..w.phases() {
        let b = w.block(p);
        for (f, map) in canon.iter().enumerate() {
            let t = &b[LAYOUT.offsets[f]..LAYOUT.offsets[f] + table_size(f)];
            for (i, &c) in map.iter().enumerate() {
                if c as usize == i {
                    out.extend_from_slice(&t[i].to_le_bytes());
                }
            }
        }
        for v in &b[LAYOUT.mobility..LAYOUT.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in w.terms_block(p) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Encodes weights as a file's bytes. Weights whose tables give different values to
/// symmetric indices (see [`canonical_map`]) keep the canonical index's value.
pub fn encode(w: &Weights) -> Vec<u8> {
    wrap(&payload(w))
}

/// A file's bytes around a payload: magic, version, compressed length, stream, checksum.
fn wrap(payload: &[u8]) -> Vec<u8> {
    let stream = miniz_oxide::deflate::compress_to_vec(payload, LEVEL);
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FILE_VERSION.to_le_bytes());
    out.extend_from_slice(&(stream.len() as u32).to_le_bytes());
    out.extend_from_slice(&stream);
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The DEFLATE stream of a file's bytes, once magic, version, length and checksum hold.
fn stream(bytes: &[u8]) -> anyhow::Result<&[u8]> {
    ensure!(
        bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] == MAGIC,
        "not an Outflank weights file (no OFLKEVAL magic)"
    );
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    };
    let version = word(MAGIC.len()).context("the weights file is truncated (no header)")?;
    ensure!(
        version == FILE_VERSION,
        if version > 255 {
            "an older weights file (format 1 or 2, without a checksum): fit it again".to_string()
        } else {
            format!("weights file format {version}: this build reads format {FILE_VERSION}")
        }
    );
    let len = word(MAGIC.len() + 4).context("the weights file is truncated (no header)")?;
    let expected = HEADER + len as usize + 8;
    ensure!(
        bytes.len() >= expected,
        "the weights file is truncated: {} bytes where its header calls for {expected}",
        bytes.len()
    );
    ensure!(
        bytes.len() == expected,
        "the weights file has {} bytes of junk after its end",
        bytes.len() - expected
    );
    let (body, sum) = bytes.split_at(expected - 8);
    ensure!(
        fnv1a(body) == u64::from_le_bytes(sum.try_into().expect("8 bytes")),
        "the weights file is damaged: its checksum does not match"
    );
    Ok(&body[HEADER..])
}

/// A little-endian reader over the payload.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> anyhow::Result<&[u8]> {
        ensure!(
            self.pos + n <= self.data.len(),
            "the weights file is truncated"
        );
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> anyhow::Result<u8> {
        Ok(self.bytes(1)?[0])
    }
    fn u32(&mut self) -> anyhow::Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i16(&mut self) -> anyhow::Result<i16> {
        let b = self.bytes(2)?;
        Ok(i16::from_le_bytes([b[0], b[1]]))
    }
}

/// Decodes a file's bytes.
pub fn decode(bytes: &[u8]) -> anyhow::Result<Weights> {
    // Not the error itself: its Debug form holds the whole output buffer.
    let data = miniz_oxide::inflate::decompress_to_vec(stream(bytes)?).map_err(|_| {
        anyhow::anyhow!("the weights file is damaged: its data does not decompress")
    })?;
    let mut r = Reader {
        data: &data,
        pos: 0,
    };
    let version = r.u32()?;
    ensure!(
        (1..=VERSION).contains(&version),
        "weights file version {version}: this build reads versions 1 to {VERSION}"
    );
    let (phases, per_phase, families) = (r.u32()?, r.u32()?, r.u32()?);
    ensure!(
        (1..=60).contains(&per_phase) && phases as usize == phases_of(per_phase),
        "the weights file has {phases} phases of {per_phase} empties: this build reads phases \
         of 1 to 60 empties that cover 60 empties"
    );
    ensure!(
        families as usize == FAMILY_COUNT,
        "the weights file has {families} pattern families, this build {FAMILY_COUNT}"
    );
    for f in FAMILIES.iter() {
        let n = r.u8()? as usize;
        let name = r.bytes(n)?.to_vec();
        let squares = r.u8()? as usize;
        if name != f.name.as_bytes() || squares != f.squares.len() {
            bail!(
                "the weights file's pattern {:?} ({squares} squares) is not this build's {} ({})",
                String::from_utf8_lossy(&name),
                f.name,
                f.squares.len()
            );
        }
    }
    ensure!(
        r.u32()? as usize == MOBILITY_SPAN,
        "the mobility table size differs"
    );
    let mut terms = Vec::new();
    if version >= 3 {
        let n = r.u32()?;
        ensure!(
            n as usize <= Term::ALL.len(),
            "the weights file names {n} optional terms"
        );
        for _ in 0..n {
            let len = r.u8()? as usize;
            let name = String::from_utf8_lossy(r.bytes(len)?).into_owned();
            let t = Term::parse(&name).context("in the weights file")?;
            ensure!(
                r.u32()? as usize == t.span(),
                "the weights file's term {name} has another table size than this build's"
            );
            ensure!(
                terms.last().is_none_or(|&l| l < t),
                "the weights file lists its terms out of order"
            );
            terms.push(t);
        }
    }
    let canon = canonical_map();
    let mut w = Weights::zero_with_terms(per_phase, Terms::new(&terms));
    for p in 0..w.phases() {
        let b = w.block_mut(p);
        for (f, map) in canon.iter().enumerate() {
            let t = &mut b[LAYOUT.offsets[f]..LAYOUT.offsets[f] + table_size(f)];
            for (i, &c) in map.iter().enumerate() {
                // Canonical indices are never larger, so theirs is already read.
                t[i] = if c as usize == i {
                    r.i16()?
                } else {
                    t[c as usize]
                };
            }
        }
        if version == 1 {
            // One bias for both parities.
            for v in &mut b[LAYOUT.mobility..LAYOUT.bias + 1] {
                *v = r.i16()?;
            }
            b[LAYOUT.bias + 1] = b[LAYOUT.bias];
        } else {
            for v in &mut b[LAYOUT.mobility..LAYOUT.size] {
                *v = r.i16()?;
            }
        }
        for v in w.terms_block_mut(p) {
            *v = r.i16()?;
        }
    }
    ensure!(r.pos == data.len(), "the weights file has trailing data");
    Ok(w)
}

/// Reads a weights file.
pub fn load(path: &Path) -> anyhow::Result<Weights> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    decode(&bytes).with_context(|| format!("in {}", path.display()))
}

/// Writes a weights file.
pub fn save(w: &Weights, path: &Path) -> anyhow::Result<()> {
    std::fs::write(path, encode(w)).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let w = Weights::hand_set();
        let bytes = encode(&w);
        assert_eq!(decode(&bytes).unwrap(), w);
        // Deterministic.
        assert_eq!(encode(&w), bytes);
    }

    #[test]
    fn the_shipped_file_is_written_again_byte_for_byte() {
        let shipped: &[u8] = include_bytes!("../../weights/eval.ofw");
        let w = decode(shipped).unwrap();
        assert_eq!((w.phases(), w.empties_per_phase()), (15, 4));
        assert!(encode(&w) == shipped);
    }

    #[test]
    fn round_trip_of_one_phase_per_empties() {
        let mut w = Weights::zero_with(1);
        assert_eq!(w.phases(), 60);
        for p in 0..60 {
            w.block_mut(p)[LAYOUT.mobility + 40] = p as i16 - 30;
        }
        let back = decode(&encode(&w)).unwrap();
        assert_eq!(back, w);
        assert_eq!(back.phase(0), 0);
        assert_eq!(back.phase(1), 0);
        assert_eq!(back.phase(2), 1);
        assert_eq!(back.phase(60), 59);
        assert_ne!(back, Weights::zero());
    }

    #[test]
    fn round_trip_with_whole_board_terms() {
        for terms in [vec![Term::Discs], Term::ALL.to_vec()] {
            let random = crate::eval::tests::random_weights_with(2, Terms::new(&terms), 9);
            // Symmetric pattern entries tied, as a fit leaves them; the terms as they were.
            let w = decode(&encode(&random)).unwrap();
            assert_eq!(w.terms(), &Terms::new(&terms));
            for p in 0..w.phases() {
                assert!(w.terms_block(p) == random.terms_block(p), "phase {p}");
            }
            let bytes = encode(&w);
            assert!(decode(&bytes).unwrap() == w);
            assert!(encode(&w) == bytes);
            // Not the same file as without the terms.
            let mut plain = Weights::zero_with(2);
            for p in 0..w.phases() {
                plain.block_mut(p).copy_from_slice(w.block(p));
            }
            assert!(decode(&encode(&plain)).unwrap() != w);
        }
        // A term this build does not know is refused with its name.
        let w = Weights::zero_with_terms(4, Terms::new(&[Term::Discs]));
        let mut data = payload(&w);
        let at = data
            .windows(5)
            .position(|x| x == b"discs")
            .expect("the name");
        data[at..at + 5].copy_from_slice(b"dices");
        let err = format!("{:#}", decode(&wrap(&data)).unwrap_err());
        assert!(err.contains("\"dices\""), "{err}");
    }

    #[test]
    fn rejects_garbage() {
        assert!(decode(b"nonsense").is_err());
        let mut bytes = encode(&Weights::zero());
        bytes.truncate(bytes.len() / 2);
        assert!(decode(&bytes).is_err());
    }
}
