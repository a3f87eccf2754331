//! The front-ends: the protocols GUIs, tournament managers and referees use to drive the
//! engine over stdin/stdout, [`gtp`], [`nboard`] and [`ugi`]; the [`ggs`] client, which
//! plays on a game server over TCP; and the [`terminal`] game a person plays by typing moves.
//! Each parses a line into a command enum first and then translates it into calls on the
//! one [`Controller`](crate::controller::Controller); they contain no game logic and no
//! search code.
//!
//! What they share lives here: a reader thread that turns stdin into
//! [`Input`] lines (at most [`MAX_LINE`] bytes, lossy UTF-8, CR LF or LF endings, EOF
//! reported), so that a search can be interrupted while it runs; the engine's name and
//! version.

pub mod format;
pub mod ggs;
pub mod gtp;
pub mod nboard;
pub mod terminal;
pub mod ugi;

use crate::controller::EngineSetup;
use crate::controller::{Event, Frontend, Input};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc::Sender;
use std::thread;

/// The longest input line accepted, in bytes (1 MiB, line ending excluded). Longer lines are
/// reported as [`Input::TooLong`].
pub const MAX_LINE: usize = 1 << 20;

/// The engine's name, as the protocols report it.
pub const NAME: &str = "Outflank";

/// The engine's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Reads `input` line by line on a new thread and sends each line, then [`Input::Eof`], to
/// `events`. The thread ends at EOF, on a read error, or when nobody listens any more.
pub fn spawn_reader<R: Read + Send + 'static>(input: R, events: Sender<Event>) {
    spawn_reader_as(input, events, "outflank-stdin", Event::Input);
}

/// Reads `input` line by line on a new thread named `name`, as [`spawn_reader`] does, and
/// sends each line, then [`Input::Eof`], to `events` as `wrap` makes it an event (a server
/// connection's lines: [`Event::Remote`]).
pub fn spawn_reader_as<R, F>(input: R, events: Sender<Event>, name: &str, wrap: F)
where
    R: Read + Send + 'static,
    F: Fn(Input) -> Event + Send + 'static,
{
    thread::Builder::new()
        .name(name.into())
        .spawn(move || read_lines(input, &mut |i| events.send(wrap(i)).is_ok()))
        .expect("a reader thread");
}

/// The reader thread's loop (see [`spawn_reader`]).
fn read_lines<R: Read>(input: R, send_input: &mut dyn FnMut(Input) -> bool) {
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
            Err(e) => {
                log::warn!("reading input: {e}");
                break;
            }
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

/// Runs a front-end on a line input (stdin) and an output (stdout): the input is read on
/// its own thread, the driver loop is [`crate::controller::run`].
pub fn run<F, R, W>(frontend: &mut F, input: R, output: W, setup: EngineSetup) -> io::Result<()>
where
    F: Frontend,
    R: Read + Send + 'static,
    W: Write,
{
    let (tx, rx) = crate::controller::events();
    spawn_reader(input, tx.clone());
    crate::controller::run(frontend, (tx, rx), output, setup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    fn lines(bytes: &[u8]) -> Vec<Input> {
        let (tx, rx) = channel();
        read_lines(bytes, &mut |i| tx.send(Event::Input(i)).is_ok());
        drop(tx);
        rx.iter()
            .map(|e| match e {
                Event::Input(i) => i,
                other => panic!("{other:?}"),
            })
            .collect()
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
