//! Framing: the server's lines, as they arrive, turned into [`RawMessage`]s (a header line
//! and its `|` continuation lines) by the [`Framer`]; and [`not_text`], which tells a
//! server's text from binary data.

use std::fmt;

use crate::protocol::MAX_LINE;

/// The most continuation lines kept in one message; a message with more is damaged (a join
/// of a full game has about 100).
pub const MAX_MESSAGE_LINES: usize = 1024;

/// One framed server message: its header line and its continuation lines.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RawMessage {
    /// The first line, BEL characters removed, trailing spaces trimmed.
    pub header: String,
    /// The `|` lines that followed, without the `|` and trailing spaces.
    pub lines: Vec<String>,
    /// True when a line of it was too long or it had too many lines: it is not parsed.
    pub damaged: bool,
}

impl fmt::Display for RawMessage {
    /// The message as the server sent it (without READY), lines joined with `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.header)?;
        for l in &self.lines {
            write!(f, "\n|{l}")?;
        }
        Ok(())
    }
}

/// Turns the server's lines, as they arrive, into [`RawMessage`]s (see the
/// [`message`](super) module's doc).
#[derive(Debug, Default)]
pub struct Framer {
    current: Option<RawMessage>,
}

/// True for the prompts that wait for the client's answer: they end their message at once.
fn is_prompt(header: &str) -> bool {
    header.starts_with(": Enter login") || header.starts_with(": Enter your password")
}

impl Framer {
    /// A framer with nothing pending.
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Takes some received text: one line, or several separated by CR, LF or CR LF (line
    /// endings are optional). Returns the messages it completed, in order.
    pub fn push_line(&mut self, text: &str) -> Vec<RawMessage> {
        let mut done = Vec::new();
        for piece in text.split(['\r', '\n']) {
            self.push_one(piece, &mut done);
        }
        done
    }

    /// Takes the news that a line was too long to be read (`len` bytes): it is dropped, and
    /// the message it falls in is damaged.
    pub fn push_too_long(&mut self, len: usize) {
        log::warn!("GGS: a line of {len} bytes dropped");
        match &mut self.current {
            Some(m) => m.damaged = true,
            // It may have been the header of a message: its `|` lines are swallowed too.
            None => {
                self.current = Some(RawMessage {
                    damaged: true,
                    ..RawMessage::default()
                })
            }
        }
    }

    /// Ends the message being collected, if any (at the end of the stream, or when the
    /// server has been quiet for a while and the message had no READY).
    pub fn flush(&mut self) -> Option<RawMessage> {
        self.current.take()
    }

    /// True when a message is being collected.
    pub fn pending(&self) -> bool {
        self.current.is_some()
    }

    fn push_one(&mut self, piece: &str, done: &mut Vec<RawMessage>) {
        if piece.len() > MAX_LINE {
            self.push_too_long(piece.len());
            return;
        }
        let line: String = piece.chars().filter(|&c| c != '\x07').collect();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        if trimmed == "READY" {
            done.extend(self.current.take());
            return;
        }
        if let Some(rest) = line.trim_start().strip_prefix('|')
            && let Some(m) = &mut self.current
        {
            if m.lines.len() < MAX_MESSAGE_LINES {
                m.lines.push(rest.trim_end().to_string());
            } else {
                m.damaged = true;
            }
            return;
        }
        done.extend(self.current.take());
        let msg = RawMessage {
            header: line.trim_end().to_string(),
            lines: Vec::new(),
            damaged: false,
        };
        if is_prompt(&msg.header) {
            done.push(msg);
        } else {
            self.current = Some(msg);
        }
    }
}

/// True when `line` cannot be text from a GGS server: it holds a control character other
/// than those of text and terminals (tab, BEL, backspace, form feed, escape, CR): a NUL,
/// say, in binary data.
pub fn not_text(line: &str) -> bool {
    line.chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\x07' | '\x08' | '\x0c' | '\x1b' | '\r'))
}
