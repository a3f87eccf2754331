//! An engine as a child process: spawn it, write lines to its stdin, read lines from its
//! stdout with a deadline, notice a crash, kill it (and whatever it started).
//!
//! A reader thread turns stdout into a channel of lines, so a read can time out; stderr is
//! read by another thread and logged at `debug` level (never mixed with the protocol).

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// Why an engine could not go on with a game. Each ends the game as a loss for that engine.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineFailure {
    /// The process could not be started, or failed its handshake.
    Start(String),
    /// The process ended (or closed its output) unasked; the text says how.
    Crashed(String),
    /// No answer before the deadline.
    TimedOut {
        /// What the runner was waiting for (`genmove b`, `pong 3`, ...).
        waiting_for: String,
        /// How long it waited.
        waited: Duration,
    },
    /// The engine said something the protocol does not allow, or refused a legal command.
    Protocol(String),
}

impl fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineFailure::Start(s) => write!(f, "failed to start: {s}"),
            EngineFailure::Crashed(s) => write!(f, "crashed: {s}"),
            EngineFailure::TimedOut {
                waiting_for,
                waited,
            } => write!(
                f,
                "timed out: no answer to `{waiting_for}` within {:.2} s",
                waited.as_secs_f64()
            ),
            EngineFailure::Protocol(s) => write!(f, "protocol error: {s}"),
        }
    }
}

impl std::error::Error for EngineFailure {}

/// How to start an engine: the program, its arguments and an optional working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The directory to run it in (the runner's own when `None`).
    pub dir: Option<PathBuf>,
}

impl CommandLine {
    /// Splits a command line into words as a shell would for simple cases: blanks separate
    /// words, single quotes keep everything literally, double quotes keep blanks, a
    /// backslash escapes the next character. Errors on an empty command or an open quote.
    pub fn parse(s: &str) -> Result<CommandLine, String> {
        let mut argv = Vec::new();
        let mut word = String::new();
        let mut in_word = false;
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            match c {
                '\'' => {
                    in_word = true;
                    loop {
                        match chars.next() {
                            Some('\'') => break,
                            Some(c) => word.push(c),
                            None => return Err(format!("unclosed ' in command {s:?}")),
                        }
                    }
                }
                '"' => {
                    in_word = true;
                    loop {
                        match chars.next() {
                            Some('"') => break,
                            Some('\\') => match chars.next() {
                                Some(c) => word.push(c),
                                None => return Err(format!("trailing \\ in command {s:?}")),
                            },
                            Some(c) => word.push(c),
                            None => return Err(format!("unclosed \" in command {s:?}")),
                        }
                    }
                }
                '\\' => {
                    in_word = true;
                    match chars.next() {
                        Some(c) => word.push(c),
                        None => return Err(format!("trailing \\ in command {s:?}")),
                    }
                }
                c if c.is_whitespace() => {
                    if in_word {
                        argv.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                c => {
                    in_word = true;
                    word.push(c);
                }
            }
        }
        if in_word {
            argv.push(word);
        }
        if argv.is_empty() {
            return Err("empty engine command".to_string());
        }
        Ok(CommandLine { argv, dir: None })
    }
}

impl fmt::Display for CommandLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.argv.join(" "))
    }
}

/// A running engine process with line-based I/O.
pub struct EngineProcess {
    /// Name used in logs.
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Set once the process is known to be gone.
    dead: bool,
    /// Set once the process has been waited for: its pid (and process group id) may then
    /// belong to another process, so it must not be signalled any more.
    reaped: bool,
}

#[cfg(unix)]
mod signal {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }

    /// Sends SIGKILL to the process group `pgid` (the engine and whatever it started).
    pub fn kill_group(pgid: u32) {
        if let Ok(pid) = i32::try_from(pgid)
            && pid > 0
        {
            // SAFETY: kill(2) with a negative pid only sends a signal to that process group;
            // it touches no memory of ours.
            unsafe {
                kill(-pid, 9);
            }
        }
    }
}

impl EngineProcess {
    /// Starts `cmd` with piped stdin and stdout; stderr is logged at debug level. On Unix the
    /// engine gets its own process group, so killing it also kills the children of a
    /// wrapper script.
    pub fn spawn(name: &str, cmd: &CommandLine) -> Result<EngineProcess, EngineFailure> {
        let mut command = Command::new(&cmd.argv[0]);
        command
            .args(&cmd.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(d) = &cmd.dir {
            command.current_dir(d);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| EngineFailure::Start(format!("cannot run `{cmd}`: {e}")))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = channel();
        let thread_name = name.to_string();
        thread::Builder::new()
            .name(format!("{name}-stdout"))
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf);
                            let line = line.trim_end_matches(['\n', '\r']).to_string();
                            log::trace!("{thread_name} > {line}");
                            if tx.send(line).is_err() {
                                break;
                            }
                        }
                    }
                }
            })
            .map_err(|e| EngineFailure::Start(format!("cannot start a reader thread: {e}")))?;
        let err_name = name.to_string();
        let _ = thread::Builder::new()
            .name(format!("{name}-stderr"))
            .spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    match line {
                        Ok(l) => log::debug!("{err_name} stderr: {l}"),
                        Err(_) => break,
                    }
                }
            });
        let stdin = child.stdin.take();
        log::debug!("{name}: started `{cmd}` (pid {})", child.id());
        Ok(EngineProcess {
            name: name.to_string(),
            child,
            stdin,
            lines: rx,
            dead: false,
            reaped: false,
        })
    }

    /// The engine's name, as given to [`EngineProcess::spawn`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes one line (a newline is added) and flushes it.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        log::trace!("{} < {line}", self.name);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.crash_report());
        };
        let ok = stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush());
        if ok.is_err() {
            return Err(self.crash_report());
        }
        Ok(())
    }

    /// Reads the next line (without its line end), waiting until `deadline`. `waiting_for`
    /// names the awaited answer in a timeout error.
    pub fn recv(&mut self, deadline: Instant, waiting_for: &str) -> Result<String, EngineFailure> {
        let start = Instant::now();
        let wait = deadline.saturating_duration_since(start);
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(EngineFailure::TimedOut {
                waiting_for: waiting_for.to_string(),
                waited: start.elapsed(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(self.crash_report()),
        }
    }

    /// Describes why the engine is gone: its exit status if it has ended within a moment,
    /// else that it closed its pipes.
    fn crash_report(&mut self) -> EngineFailure {
        self.dead = true;
        let until = Instant::now() + Duration::from_millis(500);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.reaped = true;
                    return EngineFailure::Crashed(status.to_string());
                }
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
                _ => return EngineFailure::Crashed("the process closed its output".to_string()),
            }
        }
    }

    /// True once a read or write found the process gone.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// Kills the process (and its process group) and reaps it.
    pub fn kill(&mut self) {
        self.stdin = None;
        self.dead = true;
        if self.reaped {
            return;
        }
        // The group is signalled before the leader is reaped, while its id cannot have been
        // reused.
        #[cfg(unix)]
        signal::kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.reaped = true;
    }

    /// Asks the engine to leave: sends `quit_line` (if any), closes stdin, waits up to
    /// `patience` for it to exit, then kills it.
    pub fn shutdown(&mut self, quit_line: Option<&str>, patience: Duration) {
        if !self.dead {
            if let Some(q) = quit_line {
                let _ = self.send(q);
            }
            self.stdin = None;
            let until = Instant::now() + patience;
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    self.reaped = true;
                    break;
                }
                thread::sleep(Duration::from_millis(5));
            }
        }
        self.kill();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let c = CommandLine::parse("gtp-rhino -l 5").unwrap();
        assert_eq!(c.argv, ["gtp-rhino", "-l", "5"]);
        let c = CommandLine::parse(r#"  python3 'my dir/e.py' "a b" c\ d "#).unwrap();
        assert_eq!(c.argv, ["python3", "my dir/e.py", "a b", "c d"]);
        assert!(CommandLine::parse("  ").is_err());
        assert!(CommandLine::parse("a 'b").is_err());
        assert_eq!(CommandLine::parse("x ''").unwrap().argv, ["x", ""]);
    }

    #[cfg(unix)]
    #[test]
    fn lines_timeouts_and_crashes() {
        let cmd = CommandLine::parse("sh -c 'read x; echo got $x; sleep 5'").unwrap();
        let mut p = EngineProcess::spawn("t", &cmd).unwrap();
        p.send("hello").unwrap();
        let line = p
            .recv(Instant::now() + Duration::from_secs(5), "echo")
            .unwrap();
        assert_eq!(line, "got hello");
        let e = p
            .recv(Instant::now() + Duration::from_millis(100), "more")
            .unwrap_err();
        assert!(matches!(e, EngineFailure::TimedOut { .. }), "{e}");
        p.kill();

        let cmd = CommandLine::parse("sh -c 'exit 3'").unwrap();
        let mut p = EngineProcess::spawn("t", &cmd).unwrap();
        let e = p
            .recv(Instant::now() + Duration::from_secs(5), "x")
            .unwrap_err();
        assert!(
            matches!(&e, EngineFailure::Crashed(s) if s.contains('3')),
            "{e}"
        );

        let cmd = CommandLine::parse("/nonexistent/engine").unwrap();
        assert!(matches!(
            EngineProcess::spawn("t", &cmd),
            Err(EngineFailure::Start(_))
        ));
    }
}
