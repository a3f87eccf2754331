//! Helpers for the protocol tests: the real `outflank` binary driven over pipes, and game
//! positions with passes to test against.

#![allow(dead_code)]

use outflank::{Board, Color, Game, Move, Square};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// How long a reply may take before a test fails (generous: debug build, loaded machine).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A running engine process with a thread collecting its stdout lines.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far, for failure messages.
    pub transcript: Vec<String>,
    /// How long [`Engine::line`] waits ([`PATIENCE`] unless changed).
    pub patience: Duration,
}

impl Engine {
    /// Starts `outflank ARGS` with piped stdin and stdout (stderr discarded).
    pub fn start(args: &[&str]) -> Engine {
        Self::start_program(env!("CARGO_BIN_EXE_outflank"), args)
    }

    /// Starts any program with piped stdin and stdout.
    pub fn start_program(program: &str, args: &[&str]) -> Engine {
        let mut child = Command::new(program)
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut s = String::from_utf8_lossy(&buf).into_owned();
                        if s.ends_with('\n') {
                            s.pop();
                        }
                        if tx.send(s).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            transcript: Vec::new(),
            patience: PATIENCE,
        }
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("the engine reads its input");
        stdin.flush().expect("flush");
    }

    /// Closes the engine's stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout` (or at EOF).
    pub fn try_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                self.transcript.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The next line; fails the test after [`Engine::patience`].
    pub fn line(&mut self) -> String {
        match self.try_line(self.patience) {
            Some(l) => l,
            None => panic!(
                "no line from the engine within {:?}; so far: {:#?}",
                self.patience,
                self.recent()
            ),
        }
    }

    /// Lines until (and including) the first for which `pred` holds.
    pub fn until(&mut self, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let l = self.line();
            let stop = pred(&l);
            out.push(l);
            if stop {
                return out;
            }
        }
    }

    /// The last lines received, for failure messages.
    pub fn recent(&self) -> &[String] {
        let n = self.transcript.len();
        &self.transcript[n.saturating_sub(20)..]
    }

    /// Sends a GTP command and reads its reply: success, the id after the sign (empty
    /// when none), and the text (lines joined by `\n`, without the sign, id and the space).
    pub fn gtp_full(&mut self, command: &str) -> (bool, String, String) {
        self.send(command);
        self.gtp_reply()
    }

    /// Sends a GTP command and reads its reply without failing the test: `None` when the
    /// program is gone (broken pipe, EOF) or silent for [`Engine::patience`]; else the
    /// success flag and the text.
    pub fn try_gtp(&mut self, command: &str) -> Option<(bool, String)> {
        let stdin = self.stdin.as_mut()?;
        let line = format!("{command}\n");
        stdin.write_all(line.as_bytes()).ok()?;
        stdin.flush().ok()?;
        let first = self.try_line(self.patience)?;
        let ok = first.starts_with('=');
        if !ok && !first.starts_with('?') {
            return None;
        }
        let rest = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        let mut text = rest.strip_prefix(' ').unwrap_or(rest).to_string();
        loop {
            let l = self.try_line(self.patience)?;
            if l.is_empty() {
                return Some((ok, text));
            }
            text.push('\n');
            text.push_str(&l);
        }
    }

    /// Reads one GTP reply (see [`Engine::gtp_full`]).
    pub fn gtp_reply(&mut self) -> (bool, String, String) {
        let first = self.line();
        let ok = match first.chars().next() {
            Some('=') => true,
            Some('?') => false,
            _ => panic!("not a GTP reply: {first:?}; recent {:#?}", self.recent()),
        };
        let rest = &first[1..];
        let id: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let mut text = rest[id.len()..].to_string();
        if text.starts_with(' ') {
            text.remove(0);
        }
        loop {
            let l = self.line();
            if l.is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(&l);
        }
        (ok, id, text)
    }

    /// Sends a GTP command that must succeed; returns its text.
    pub fn ok(&mut self, command: &str) -> String {
        let (ok, _, text) = self.gtp_full(command);
        assert!(ok, "{command:?} failed: {text:?}");
        text
    }

    /// Sends a GTP command that must fail; returns its message.
    pub fn err(&mut self, command: &str) -> String {
        let (ok, _, text) = self.gtp_full(command);
        assert!(!ok, "{command:?} succeeded: {text:?}");
        text
    }

    /// Waits for the process to exit; `None` after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if start.elapsed() > timeout {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `outflank ARGS` with `script` piped in and its stdin closed after it (a script's
/// `printf ... | outflank ...`); returns what it wrote, stdout and stderr, once it exits.
pub fn run_piped(args: &[&str], script: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let script = script.to_string();
    // Written from a thread: a long script must not wait on a full stdout pipe.
    let writer = thread::spawn(move || stdin.write_all(script.as_bytes()));
    let out = child.wait_with_output().expect("the engine exits");
    writer
        .join()
        .expect("the writer")
        .expect("the engine reads its input");
    out
}

/// A small deterministic random generator (xorshift).
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Plays one random legal move (or the forced pass); false when the game is over.
pub fn random_move(game: &mut Game, rng: &mut Rng) -> bool {
    let moves = game.position().legal_moves();
    if moves.is_empty() {
        return false;
    }
    let mv = moves[rng.below(moves.len())];
    game.play(mv).expect("a legal move");
    true
}

/// A game from the start whose last position has a forced pass (the side to move has no
/// move, the other side has), found among random games; without that final pass.
pub fn game_before_pass(seed: u64) -> Game {
    let mut rng = Rng(seed | 1);
    loop {
        let mut game = Game::default();
        loop {
            if game.position().board.must_pass() {
                return game;
            }
            if !random_move(&mut game, &mut rng) {
                break;
            }
        }
    }
}

/// A random game from the start stopped at `empties` empty squares, with the side to move
/// having at least two moves.
pub fn game_with_empties(seed: u64, empties: u32) -> Game {
    let mut rng = Rng(seed | 1);
    loop {
        let mut game = Game::default();
        while game.position().board.empty_count() > empties {
            if !random_move(&mut game, &mut rng) {
                break;
            }
        }
        let b: Board = game.position().board;
        if b.empty_count() == empties && b.moves().count_ones() >= 2 {
            return game;
        }
    }
}

/// A move in GTP form (`f5`, `pass`).
pub fn gtp_move(mv: Move) -> String {
    match mv {
        Move::Play(s) => s.to_string(),
        Move::Pass => "pass".to_string(),
    }
}

/// A colour in GTP form.
pub fn gtp_color(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// Reads a move as an engine wrote it (`F5`, `f5`, `pass`, `PA`).
pub fn read_move(s: &str) -> Move {
    s.trim()
        .parse::<Move>()
        .unwrap_or_else(|e| panic!("not a move: {s:?}: {e}"))
}

/// The first square of a mask.
pub fn square(mask: u64) -> Square {
    Square::first_of(mask)
}
