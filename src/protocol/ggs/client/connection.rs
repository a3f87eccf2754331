//! The client's connection to the server: connecting (an attempt, its failure and the
//! wait before the next), reading the server's lines on the one line reader
//! ([`crate::protocol::lines`], with the rule that an unfinished login prompt comes when the
//! server waits), the login, and sending lines.

use super::super::excerpt::excerpt;
use super::super::message::{Framer, not_text, outgoing};
use super::super::retry::{Failure, Next, secs_text};
use super::Ggs;
use super::Session;
use crate::controller::{Event, Flow};
use crate::protocol::lines::{LineSource, spawn_reader_as};
use std::io::{self, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The time of a connection attempt.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes a server may send before its login prompt (a banner is a few lines):
/// past it, the attempt fails.
const BEFORE_PROMPT: usize = 64 * 1024;

/// How long the server may be quiet before an unfinished line that is a login prompt is
/// taken as a whole line (the prompts may come without a line end).
const PROMPT_WAIT: Duration = Duration::from_millis(300);

/// The server's lines: as stdin's, but when the server goes quiet after an unfinished line
/// that is a login prompt, the prompt is handed over as it is.
const SERVER_LINES: LineSource = LineSource {
    error_prefix: "GGS: reading failed: ",
    unfinished: Some(unfinished_prompt),
};

/// True for an unfinished line that is a login prompt (it may come without a line end).
fn unfinished_prompt(line: &[u8]) -> bool {
    line.starts_with(b": Enter")
}

/// Where the login stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Login {
    /// Waiting for the login prompt.
    Prompt,
    /// The name is sent; waiting for the password prompt.
    Name,
    /// The password is sent: `READY` means in, a `:` line means refused.
    Password,
    /// Logged in.
    In,
}

impl Ggs {
    /// Opens a connection and starts reading it.
    pub(super) fn connect(&mut self) -> io::Result<()> {
        let addr = (self.config.host.as_str(), self.config.port)
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::other(format!("no address for {}", self.config.host)))?;
        let stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)?;
        stream.set_nodelay(true)?;
        let reader = stream.try_clone()?;
        reader.set_read_timeout(Some(PROMPT_WAIT))?;
        self.source += 1;
        let source = self.source;
        spawn_reader_as(
            reader,
            SERVER_LINES,
            self.events.clone(),
            "outflank-ggs",
            move |input| Event::Remote { source, input },
        )?;
        log::info!("GGS: connected to {addr}");
        self.stream = Some(stream);
        self.login = Login::Prompt;
        self.login_deadline = Some(Instant::now() + self.config.login_timeout);
        self.before_prompt = 0;
        self.attempts += 1;
        self.framer = Framer::new();
        self.last_sent = Instant::now();
        Ok(())
    }

    /// `host:port`.
    pub(super) fn server(&self) -> String {
        format!("{}:{}", self.config.host, self.config.port)
    }

    /// One attempt: connects (the stdout line says so); a failure is counted.
    pub(super) fn attempt(&mut self, session: &mut Session) -> io::Result<Flow> {
        let again = self.attempts > 0;
        match self.connect() {
            Ok(()) => {
                let what = if again { "reconnected" } else { "connected" };
                session.line(&format!("{what} to {}", self.server()))?;
                Ok(Flow::Continue)
            }
            Err(e) => self.failed(Failure::Connect(e), session),
        }
    }

    /// The attempt under way failed: its connection (if any) is closed and what it still
    /// sends ignored, the failure counted, and the next attempt planned; or, after the
    /// failures in a row allowed, the client gives up (the error).
    pub(super) fn failed(&mut self, why: Failure, session: &mut Session) -> io::Result<Flow> {
        if let Some(s) = self.stream.take() {
            let _ = s.shutdown(Shutdown::Both);
        }
        self.source += 1;
        self.login = Login::Prompt;
        self.login_deadline = None;
        log::warn!("GGS: attempt to log in at {} failed: {why}", self.server());
        match self.retry.failed() {
            Next::GiveUp(n) => Err(io::Error::other(format!(
                "GGS at {}: gave up after {} in a row to log in (the last: {why})",
                self.server(),
                if n == 1 {
                    "1 failed attempt".to_string()
                } else {
                    format!("{n} failed attempts")
                }
            ))),
            Next::Wait(wait) => {
                self.reconnect_at = Some(Instant::now() + wait);
                session.line(&format!(
                    "cannot log in at {}: {why}; trying again in {} s",
                    self.server(),
                    secs_text(wait)
                ))?;
                Ok(Flow::Continue)
            }
        }
    }

    /// A line that arrived before the login prompt: `Some` (why) when it shows that the
    /// server is not GGS.
    pub(super) fn not_ggs(&mut self, line: &str) -> Option<String> {
        self.before_prompt += line.len() + 1;
        if not_text(line) {
            return Some(format!(
                "binary data instead of the login prompt: {:?}",
                excerpt(line)
            ));
        }
        (self.before_prompt > BEFORE_PROMPT)
            .then(|| format!("over {BEFORE_PROMPT} bytes and no login prompt"))
    }

    /// Sends one line (its newline in the same write); logged unless `secret`.
    pub(super) fn send_line(&mut self, line: &str, secret: bool) {
        let Some(stream) = &mut self.stream else {
            return;
        };
        if secret {
            log::info!("GGS > <password>");
        } else {
            log::info!("GGS > {line}");
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        if let Err(e) = stream.write_all(&bytes) {
            log::warn!("GGS: sending failed: {e}");
            // The reader sees the end of the connection and reconnects.
            let _ = stream.shutdown(Shutdown::Both);
        }
        self.last_sent = Instant::now();
    }

    pub(super) fn send(&mut self, line: &str) {
        self.send_line(line, false);
    }

    /// A raw line while the password's answer is awaited: `READY` is in, `:` is refused.
    pub(super) fn password_answer(
        &mut self,
        line: &str,
        session: &mut Session,
    ) -> io::Result<bool> {
        let t = line.trim_matches(|c: char| c.is_whitespace() || c == '\x07');
        if t == "READY" {
            self.login = Login::In;
            self.login_deadline = None;
            self.retry.logged_in();
            log::info!("GGS: logged in as {}", self.config.user);
            session.line(&format!("logged in as {}", self.config.user))?;
            for line in outgoing::setup() {
                self.send(&line);
            }
            return Ok(true);
        }
        if let Some(why) = t.strip_prefix(':') {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "GGS refused the login of {}: {}",
                    self.config.user,
                    why.trim()
                ),
            ));
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Input;
    use crate::protocol::MAX_LINE;
    use crate::protocol::lines::{read_all, read_lines};
    use std::io::Read;

    fn read(bytes: &[u8]) -> Vec<Input> {
        read_all(bytes, SERVER_LINES)
    }

    #[test]
    fn server_lines_are_split_capped_and_end() {
        let line = |s: &str| Input::Line(s.to_string());
        assert_eq!(
            read(b"a\r\nb\n\xffc"),
            vec![line("a"), line("b"), line("\u{fffd}c"), Input::Eof]
        );
        let mut long = vec![b'x'; MAX_LINE + 5];
        long.extend_from_slice(b"\nnext\n");
        let got = read(&long);
        assert_eq!(got[0], Input::TooLong { len: MAX_LINE + 5 });
        assert_eq!(got[1..], [line("next"), Input::Eof]);
    }

    /// A stream that gives its bytes, then times out (a server waiting) three times, then
    /// ends; `timeouts` counts the time-outs so far.
    struct Quiet(Vec<u8>, std::rc::Rc<std::cell::Cell<usize>>);

    impl Read for Quiet {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                self.1.set(self.1.get() + 1);
                return if self.1.get() > 3 {
                    Ok(0)
                } else {
                    Err(io::ErrorKind::WouldBlock.into())
                };
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0.drain(..n);
            Ok(n)
        }
    }

    /// What the reader hands over for `text`, each with the time-outs seen by then.
    fn read_quiet(text: &[u8]) -> Vec<(Input, usize)> {
        let timeouts = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut got = Vec::new();
        read_lines(
            Quiet(text.to_vec(), timeouts.clone()),
            SERVER_LINES,
            &mut |i| {
                got.push((i, timeouts.get()));
                true
            },
        );
        got
    }

    #[test]
    fn a_prompt_without_a_line_end_comes_when_the_server_waits() {
        let prompt = ": Enter login (yours, or one you'd like to use).";
        let got = read_quiet(format!("Welcome\r\n{prompt}").as_bytes());
        assert_eq!(
            got,
            vec![
                (Input::Line("Welcome".into()), 0),
                (Input::Line(prompt.into()), 1),
                (Input::Eof, 4)
            ]
        );
        // Other unfinished text waits for its line end (here, the end of the stream).
        let got = read_quiet(b"partial");
        assert_eq!(
            got,
            vec![(Input::Line("partial".into()), 4), (Input::Eof, 4)]
        );
    }
}
