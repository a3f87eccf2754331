//! OBF, the format of the FFO endgame test files: one position a line,
//! `BOARD SIDE; MOVE:SCORE; MOVE:SCORE; ...`, where a score is the exact final disc
//! difference with perfect play after that move, from the side to move's view. `%` starts a
//! comment that runs to the end of the line; blank lines are skipped.
//!
//! A pass is written `PS` (or `PA`). Edax's sets (`problems/hard-20.obf`, ...) end each line
//! with `--:-127;`, Edax's mark for "no pass here" (`--` is its name for a pass, -127 no
//! score): that entry is skipped, so its files read unchanged.

use std::fmt;

use super::board_string::{BoardStringError, board_string, parse_board_string};
use crate::board::{Move, Position};

/// One OBF line: a position and the scores of some of its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfEntry {
    /// The position.
    pub position: Position,
    /// Moves with their exact scores (final disc difference for the side to move, empties to
    /// the winner), in the order of the line (usually best first).
    pub scores: Vec<(Move, i32)>,
}

/// What is wrong with an OBF line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObfErrorKind {
    /// The board and side are not a valid board string, or the board cannot arise in a game.
    Board(BoardStringError),
    /// A field that is not `MOVE:SCORE`.
    BadField(String),
    /// A move that is not a square or a pass.
    BadMove(String),
    /// A score that is not a whole number from -64 to 64.
    BadScore(String),
    /// A move that is not legal in the position.
    IllegalMove(Move),
}

/// Why OBF text could not be read: what is wrong, and on which line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfError {
    /// The line number, 1 for the first, when reading a whole file.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: ObfErrorKind,
}

impl ObfError {
    fn new(kind: ObfErrorKind) -> ObfError {
        ObfError { line: None, kind }
    }

    /// The message without the leading `OBF: ` or `OBF line N: `.
    pub(crate) fn detail(&self) -> String {
        match &self.kind {
            ObfErrorKind::Board(BoardStringError::Impossible(e)) => e.to_string(),
            ObfErrorKind::Board(e) => format!("bad board: {}", e.detail()),
            ObfErrorKind::BadField(s) => format!("expected MOVE:SCORE, found {s:?}"),
            ObfErrorKind::BadMove(s) => format!("unknown move {s:?}"),
            ObfErrorKind::BadScore(s) => {
                format!("bad score {s:?} (expected a whole number from -64 to +64)")
            }
            ObfErrorKind::IllegalMove(m) => format!("move {m} is not legal in this position"),
        }
    }
}

impl fmt::Display for ObfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "OBF line {n}: {}", self.detail()),
            None => write!(f, "OBF: {}", self.detail()),
        }
    }
}

impl std::error::Error for ObfError {}

/// Reads a score: `+18`, `-4`, `+0`, `0`.
fn parse_score(s: &str) -> Option<i32> {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if digits.starts_with('+') {
        return None;
    }
    digits
        .parse::<i32>()
        .ok()
        .filter(|v| (-64..=64).contains(v))
}

/// Edax's entry for a pass that is not there: `--:-127` (a pass named `--`, scored -127).
fn is_edax_no_pass(mv: &str, score: &str) -> bool {
    mv == "--" && score == "-127"
}

/// Reads one OBF line. Returns `None` for a line that is blank or only a comment.
pub fn parse_obf_line(line: &str) -> Result<Option<ObfEntry>, ObfError> {
    let text = line.split('%').next().unwrap_or("").trim();
    if text.is_empty() {
        return Ok(None);
    }
    let mut fields = text.split(';');
    let board = fields.next().unwrap_or("");
    let position = parse_board_string(board).map_err(|e| ObfError::new(ObfErrorKind::Board(e)))?;
    let legal = position.legal_moves();
    let mut scores = Vec::new();
    for field in fields.map(str::trim).filter(|f| !f.is_empty()) {
        let (mv, score) = field
            .split_once(':')
            .ok_or_else(|| ObfError::new(ObfErrorKind::BadField(field.to_string())))?;
        let (mv, score) = (mv.trim(), score.trim());
        if is_edax_no_pass(mv, score) {
            continue;
        }
        let mv = if mv.eq_ignore_ascii_case("ps") {
            Move::Pass
        } else {
            mv.parse::<Move>()
                .map_err(|_| ObfError::new(ObfErrorKind::BadMove(mv.to_string())))?
        };
        if !legal.contains(&mv) {
            return Err(ObfError::new(ObfErrorKind::IllegalMove(mv)));
        }
        let score = parse_score(score)
            .ok_or_else(|| ObfError::new(ObfErrorKind::BadScore(score.to_string())))?;
        scores.push((mv, score));
    }
    Ok(Some(ObfEntry { position, scores }))
}

/// Reads OBF text: one entry per line that is not blank or a comment. An error names the
/// line (counted from 1).
pub fn parse_obf(text: &str) -> Result<Vec<ObfEntry>, ObfError> {
    Ok(parse_obf_numbered(text)?
        .into_iter()
        .map(|(_, e)| e)
        .collect())
}

/// Reads OBF text as [`parse_obf`] does, each entry with its line number (from 1), for
/// messages that name the line of an entry.
pub fn parse_obf_numbered(text: &str) -> Result<Vec<(usize, ObfEntry)>, ObfError> {
    let mut entries = Vec::new();
    for (i, line) in super::without_bom(text).lines().enumerate() {
        match parse_obf_line(line) {
            Ok(Some(e)) => entries.push((i + 1, e)),
            Ok(None) => {}
            Err(mut e) => {
                e.line = Some(i + 1);
                return Err(e);
            }
        }
    }
    Ok(entries)
}

/// Writes one OBF line, like the FFO files: `BOARD X; G8:+18; H1:+12;` (moves in upper case,
/// scores signed). A position without scores is written `BOARD X;`.
pub fn obf_line(entry: &ObfEntry) -> String {
    let mut s = board_string(&entry.position);
    s.push(';');
    for (mv, score) in &entry.scores {
        let name = mv.to_string().to_ascii_uppercase();
        s.push_str(&format!(" {name}:{score:+};"));
    }
    s
}

/// Writes OBF text: one line per entry, each ending in a newline.
pub fn write_obf(entries: &[ObfEntry]) -> String {
    entries.iter().map(|e| obf_line(e) + "\n").collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FFO1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6; A2:+6; A3:+4; B1:-4; A4:-22; G2:-24;";

    #[test]
    fn ffo_line_round_trip() {
        let e = parse_obf_line(FFO1).unwrap().unwrap();
        assert_eq!(e.scores.len(), 8);
        assert_eq!(e.scores[0], (Move::Play("g8".parse().unwrap()), 18));
        assert_eq!(obf_line(&e), FFO1);
        let with_comment = format!("{FFO1} % ffo #1");
        assert_eq!(parse_obf_line(&with_comment).unwrap().unwrap(), e);
        assert_eq!(parse_obf_line("  % only a comment").unwrap(), None);
        assert_eq!(parse_obf(&format!("\n%c\n{FFO1}\n\n")).unwrap(), vec![e]);
    }

    #[test]
    fn edax_lines_skip_the_no_pass_entry() {
        let edax = "-OOO------OOOO--XXXOOXXX-XOOOXX-XXXXOOOOOXXOOOO---OXOO---OOOO--- X; E1:+0; F8:-2; H6:-6; F1:-6; G8:-6; A7:-6; G1:-8; B7:-10; G7:-20; --:-127;";
        let e = parse_obf_line(edax).unwrap().unwrap();
        assert_eq!(e.scores.len(), 9);
        assert_eq!(e.scores[0], (Move::Play("e1".parse().unwrap()), 0));
        assert_eq!(e.scores[8], (Move::Play("g7".parse().unwrap()), -20));
        // Every legal move is scored.
        assert_eq!(e.position.legal_moves().len(), 9);
        let numbered = parse_obf_numbered(&format!("% Edax\n\n{edax}\n")).unwrap();
        assert_eq!(numbered, vec![(3, e.clone())]);
        // Written back without it.
        assert_eq!(obf_line(&e), edax.replace(" --:-127;", ""));
        // -127 is no score for anything else, and `--` with a score is no move of ours.
        let bad = edax.replace("G7:-20", "G7:-127");
        assert!(matches!(
            parse_obf_line(&bad).unwrap_err().kind,
            ObfErrorKind::BadScore(_)
        ));
        let bad = edax.replace("--:-127", "--:+4");
        assert!(matches!(
            parse_obf_line(&bad).unwrap_err().kind,
            ObfErrorKind::BadMove(_)
        ));
        // A real pass is `PS`.
        let pass = format!("{}O- O; PS:-64; --:-127;", "X".repeat(62));
        let e = parse_obf_line(&pass).unwrap().unwrap();
        assert_eq!(e.scores, vec![(Move::Pass, -64)]);
    }

    #[test]
    fn scores() {
        assert_eq!(parse_score("+18"), Some(18));
        assert_eq!(parse_score("-4"), Some(-4));
        assert_eq!(parse_score("+0"), Some(0));
        assert_eq!(parse_score("0"), Some(0));
        assert_eq!(parse_score("++1"), None);
        assert_eq!(parse_score("66"), None);
        assert_eq!(parse_score(""), None);
    }

    #[test]
    fn errors() {
        let empty = format!("{} X; A1:+2;", "-".repeat(64));
        let e = parse_obf(&format!("%x\n{empty}")).unwrap_err().to_string();
        assert!(e.starts_with("OBF line 2: impossible board: "), "{e}");
        let bad = FFO1.replace("G8:+18", "G8+18");
        assert_eq!(
            parse_obf_line(&bad).unwrap_err().to_string(),
            "OBF: expected MOVE:SCORE, found \"G8+18\""
        );
        let bad = FFO1.replace("G8:+18", "Z8:+18");
        assert!(parse_obf_line(&bad).unwrap_err().to_string().contains("Z8"));
        let bad = FFO1.replace("G8:+18", "G8:x");
        assert!(parse_obf_line(&bad).is_err());
        let bad = FFO1.replace("G8:+18", "A1:+18");
        assert_eq!(
            parse_obf_line(&bad).unwrap_err().to_string(),
            "OBF: move a1 is not legal in this position"
        );
    }
}
