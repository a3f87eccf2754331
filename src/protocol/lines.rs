//! The one line reader every front-end's input goes through (stdin, and the GGS client's
//! server connection): bytes into [`Input`] lines on a thread of their own, so that a
//! search can be interrupted while it runs.
//!
//! The rules, the same for every source: `\n` ends a line and a `\r` before it is dropped;
//! bytes that are not UTF-8 become U+FFFD; a line over [`MAX_LINE`] bytes (its line ending
//! excluded) comes as [`Input::TooLong`] with its length; an unfinished last line is handed
//! over at the end; then [`Input::Eof`]. What differs between sources is in [`LineSource`]:
//! what the log says when reading fails, and whether a read time-out (a source that waits)
//! hands over an unfinished line.

use super::MAX_LINE;
use crate::controller::{Event, Input};
use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::Sender;
use std::thread;

/// What a [`read_lines`] source does beyond the common rules.
#[derive(Clone, Copy, Debug)]
pub struct LineSource {
    /// The start of the log line when reading fails (the error follows).
    pub error_prefix: &'static str,
    /// On a read time-out (the source is waiting), an unfinished line of at most
    /// [`MAX_LINE`] bytes for which this is true is handed over as it is. `None`: a time-out
    /// ends the reading as any other error does.
    pub unfinished: Option<fn(&[u8]) -> bool>,
}

/// Stdin: no time-outs.
pub const STDIN: LineSource = LineSource {
    error_prefix: "reading input: ",
    unfinished: None,
};

/// Reads `input` line by line on a new thread and sends each line, then [`Input::Eof`], to
/// `events`. The thread ends at EOF, on a read error, or when nobody listens any more.
pub fn spawn_reader<R: Read + Send + 'static>(input: R, events: Sender<Event>) {
    spawn_reader_as(input, STDIN, events, "outflank-stdin", Event::Input).expect("a reader thread");
}

/// Reads `input` line by line on a new thread named `name`, as [`spawn_reader`] does but
/// by the rules of `source`, and sends each line, then [`Input::Eof`], to `events` as
/// `wrap` makes it an event (a server connection's lines: [`Event::Remote`]). The error
/// is the thread's that could not start.
pub fn spawn_reader_as<R, F>(
    input: R,
    source: LineSource,
    events: Sender<Event>,
    name: &str,
    wrap: F,
) -> io::Result<()>
where
    R: Read + Send + 'static,
    F: Fn(Input) -> Event + Send + 'static,
{
    thread::Builder::new()
        .name(name.into())
        .spawn(move || read_lines(input, source, &mut |i| events.send(wrap(i)).is_ok()))?;
    Ok(())
}

/// The reader's loop (see the module's doc): hands each line of `input` to `send_input`,
/// then [`Input::Eof`]. Ends at the end of `input`, on a read error, or when `send_input`
/// says nobody listens.
pub fn read_lines<R: Read>(
    input: R,
    source: LineSource,
    send_input: &mut dyn FnMut(Input) -> bool,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    let mut len = 0usize;
    let mut send = |line: &mut Vec<u8>, len: &mut usize| -> bool {
        let input = if *len > MAX_LINE {
            Input::TooLong { len: *len }
        } else {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            Input::Line(String::from_utf8_lossy(line).into_owned())
        };
        line.clear();
        *len = 0;
        send_input(input)
    };
    loop {
        let buf = match reader.fill_buf() {
            Ok([]) => break,
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => match source.unfinished {
                Some(hand_over)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if hand_over(&line) && len <= MAX_LINE && !send(&mut line, &mut len) {
                        return;
                    }
                    continue;
                }
                _ => {
                    log::warn!("{}{e}", source.error_prefix);
                    break;
                }
            },
        };
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        len += chunk.len();
        if len <= MAX_LINE + 1 {
            // One byte more than the limit is kept so that a CR before LF can be dropped.
            let room = (MAX_LINE + 1).saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            // A CR before the LF is not part of the line's length.
            if line.last() == Some(&b'\r') && len == MAX_LINE + 1 {
                len -= 1;
            }
            if !send(&mut line, &mut len) {
                return;
            }
        }
    }
    if len > 0 && !send(&mut line, &mut len) {
        return;
    }
    let _ = send_input(Input::Eof);
}

/// Everything [`read_lines`] hands over for `input` read by the rules of `source`.
#[cfg(test)]
pub(crate) fn read_all<R: Read>(input: R, source: LineSource) -> Vec<Input> {
    let mut got = Vec::new();
    read_lines(input, source, &mut |i| {
        got.push(i);
        true
    });
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<Input> {
        read_all(bytes, STDIN)
    }

    fn line(s: &str) -> Input {
        Input::Line(s.to_string())
    }

    #[test]
    fn reader_splits_lines() {
        assert_eq!(
            lines(b"a\r\nb\n\nc"),
            vec![line("a"), line("b"), line(""), line("c"), Input::Eof]
        );
        assert_eq!(lines(b""), vec![Input::Eof]);
        assert_eq!(
            lines(b"\xff\xfeok\n"),
            vec![line("\u{fffd}\u{fffd}ok"), Input::Eof]
        );
    }

    #[test]
    fn reader_caps_long_lines() {
        let mut exact = vec![b'x'; MAX_LINE];
        exact.extend_from_slice(b"\r\nnext\n");
        let got = lines(&exact);
        assert!(matches!(&got[0], Input::Line(s) if s.len() == MAX_LINE));
        assert_eq!(got[1..], [line("next"), Input::Eof]);
        let mut long = vec![b'y'; MAX_LINE + 10];
        long.extend_from_slice(b"\nafter\n");
        let got = lines(&long);
        assert_eq!(got[0], Input::TooLong { len: MAX_LINE + 10 });
        assert_eq!(got[1..], [line("after"), Input::Eof]);
        let one_more = vec![b'z'; MAX_LINE + 1];
        assert_eq!(lines(&one_more)[0], Input::TooLong { len: MAX_LINE + 1 });
    }
}
