//! `outflank ggs` against the local GGS server of `tests/ggs_util` (no real GGS server is
//! reachable from the test machines): complete games through the real binary. A won game, a
//! synchro match, the client's own ask, a short clock it must not lose on time, a wrong
//! password, bad input from the server mid-game, a dropped connection (reconnect, resume),
//! `quit` on stdin, and the password kept out of every log.

mod ggs_util;

use ggs_util::not_ggs::{Behaviour, NotGgs, closed_port};
use ggs_util::{FakeGgs, Fault, FinishedGame, Offer, ServerConfig, TestClock};
use outflank::notation::parse_ggf_games;
use outflank::protocol::ggs::GgsClock;
use outflank::{Color, Game};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const ME: &str = "outflank";
const PASSWORD: &str = "secret";

/// How long a whole scenario may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(90);

/// A folder of the test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("outflank-ggs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The client process, its stdout and stderr going to files.
struct ClientProc {
    child: Child,
    stdin: Option<ChildStdin>,
    dir: PathBuf,
}

impl ClientProc {
    /// Starts `outflank -vv ggs --host 127.0.0.1 --port PORT --user ME --password-file F`
    /// with `args` after, the password in a file of `dir`.
    fn start(server: &FakeGgs, dir: &std::path::Path, password: &str, args: &[&str]) -> Self {
        ClientProc::start_at(server.port(), dir, password, Some("-vv"), args)
    }

    /// The same without logging (`-v` off): stderr has only what is said whatever the
    /// log level.
    fn start_quiet(port: u16, dir: &std::path::Path, args: &[&str]) -> Self {
        ClientProc::start_at(port, dir, PASSWORD, None, args)
    }

    fn start_at(
        port: u16,
        dir: &std::path::Path,
        password: &str,
        verbose: Option<&str>,
        args: &[&str],
    ) -> Self {
        let pw = dir.join("password");
        std::fs::write(&pw, format!("{password}\n")).unwrap();
        let port = port.to_string();
        let mut all: Vec<&str> = verbose.into_iter().collect();
        all.extend([
            "ggs",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--user",
            ME,
            "--password-file",
            pw.to_str().unwrap(),
            "--book",
            "off",
            "--max-backoff",
            "1",
        ]);
        all.extend_from_slice(args);
        let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
            .args(&all)
            .env_remove("RUST_LOG")
            .env_remove("OUTFLANK_GGS_PASSWORD")
            .stdin(Stdio::piped())
            .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
            .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
            .spawn()
            .expect("outflank starts");
        ClientProc {
            stdin: child.stdin.take(),
            child,
            dir: dir.to_path_buf(),
        }
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(self.dir.join("stdout")).unwrap_or_default()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
    }

    fn send(&mut self, line: &str) {
        if let Some(s) = &mut self.stdin {
            let _ = writeln!(s, "{line}");
            let _ = s.flush();
        }
    }

    /// Waits for the exit; fails the test (with the logs) after `PATIENCE`.
    fn wait(&mut self, server: &FakeGgs) -> ExitStatus {
        self.wait_for_exit(PATIENCE, &|| tail(&server.transcript(), 60))
    }

    /// Waits `patience` for the exit; fails the test with the logs and `more` after it.
    fn wait_for_exit(&mut self, patience: Duration, more: &dyn Fn() -> String) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            if start.elapsed() > patience {
                let _ = self.child.kill();
                panic!(
                    "the client did not exit within {patience:?}\nstdout:\n{}\nstderr (end):\n{}\n{}",
                    self.stdout(),
                    tail(&self.stderr(), 40),
                    more()
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ClientProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Waits for a state of the server; fails with the server's transcript after `PATIENCE`.
fn wait_for(server: &FakeGgs, what: &str, pred: impl FnMut(&ggs_util::Snapshot) -> bool) {
    assert!(
        server.wait_until(PATIENCE, pred),
        "waited for {what}\nserver:\n{}",
        tail(&server.transcript(), 60)
    );
}

/// The client's result in `g`, from its side, as the server scored it.
fn my_score(g: &FinishedGame) -> i32 {
    match g.color_of(ME) {
        Some(Color::Black) => g.black_score,
        Some(Color::White) => -g.black_score,
        None => panic!("{ME} did not play {g:?}"),
    }
}

/// The game the server recorded, replayed: every move legal, the game over.
fn replay(g: &FinishedGame) -> Game {
    let mut game = Game::new(g.start);
    for &mv in &g.moves {
        game.play(mv)
            .unwrap_or_else(|e| panic!("{mv}: {e} in {g:?}"));
    }
    game
}

/// Every finished game was played out with no refused move and no time trouble.
fn clean(games: &[FinishedGame]) {
    for g in games {
        assert!(replay(g).is_over(), "{g:?}");
        assert_eq!(g.errors, 0, "moves refused: {g:?}");
        assert_eq!(g.timed_out, None, "{g:?}");
        assert!(
            g.color_of(ME).is_none_or(|c| !g.over_time.contains(&c)),
            "past the main time: {g:?}"
        );
    }
}

fn offer_once_logged_in(server: &FakeGgs, offer: Offer) -> String {
    wait_for(server, "the login", |s| s.logged_in.iter().any(|u| u == ME));
    // The client sets itself up before it can accept: wait for its `open`.
    wait_for(server, "the client's set-up", |s| {
        s.client_lines(ME)
            .iter()
            .any(|l| l.starts_with("tell /os open"))
    });
    server.offer(ME, offer).expect("an offer")
}

#[test]
fn a_game_offered_is_accepted_played_out_won_and_written_as_ggf() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("won");
    let games = dir.join("games.ggf");
    let mut client = ClientProc::start(
        &server,
        &dir,
        PASSWORD,
        &[
            "--depth",
            "4",
            "--matches",
            "1",
            "--games",
            games.to_str().unwrap(),
        ],
    );
    offer_once_logged_in(&server, Offer::new("8", TestClock::secs(60.0, 0.0, 30.0)));
    let status = client.wait(&server);
    assert!(status.success(), "exit {status:?}\n{}", client.stderr());
    let finished = server.finished();
    assert_eq!(finished.len(), 1, "{finished:?}");
    clean(&finished);
    assert!(
        my_score(&finished[0]) > 0,
        "a first-move bot beats depth 4? {finished:?}"
    );
    // The GGF has the same game.
    let text = std::fs::read_to_string(&games).unwrap();
    let ggf = parse_ggf_games(&text).unwrap();
    assert_eq!(ggf.len(), 1, "{text}");
    let moves: Vec<_> = ggf[0].moves.iter().map(|m| m.mv).collect();
    assert_eq!(moves, finished[0].moves, "{text}");
    assert_eq!(ggf[0].to_game().position(), replay(&finished[0]).position());
    // What the client said, in order: the login, the set-up, the accept, the moves, quit.
    let lines = server.client_lines(ME);
    for want in [
        "vt100 -",
        "notify + /os",
        "tell /os trust +",
        "tell /os client -",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want} missing: {lines:?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("tell /os accept .")));
    let plays = lines
        .iter()
        .filter(|l| l.starts_with("tell /os play "))
        .count();
    let mine = finished[0]
        .moves
        .iter()
        .zip(replay(&finished[0]).positions())
        .filter(|(_, p)| Some(p.to_move) == finished[0].color_of(ME))
        .count();
    assert_eq!(plays, mine, "one play line per move of mine: {lines:?}");
    assert_eq!(lines.last().map(String::as_str), Some("quit"));
    // Each move carries its evaluation and its time.
    let play = lines
        .iter()
        .find(|l| l.starts_with("tell /os play "))
        .unwrap();
    let field = play.rsplit(' ').next().unwrap();
    let parts: Vec<&str> = field.split('/').collect();
    assert_eq!(parts.len(), 3, "{play}");
    assert!(
        parts[1].parse::<f64>().is_ok() && parts[2].parse::<f64>().is_ok(),
        "{play}"
    );
    // People watching see the match and the result on stdout, both lines from the
    // client's side (the server's `- match` score is from the challenger's).
    let out = client.stdout();
    assert!(out.contains("logged in as outflank"), "{out}");
    let won = format!("won by {}", my_score(&finished[0]));
    let game_line = out.lines().find(|l| l.starts_with("game ")).unwrap_or("");
    let match_line = out
        .lines()
        .find(|l| l.starts_with("match .") && l.contains(" over: "));
    assert!(game_line.ends_with(&won), "{out}");
    assert!(match_line.is_some_and(|l| l.ends_with(&won)), "{out}");
}

#[test]
fn a_synchro_match_is_two_games_at_once_with_colours_swapped() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("synchro");
    let games = dir.join("games.ggf");
    let mut client = ClientProc::start(
        &server,
        &dir,
        PASSWORD,
        &[
            "--depth",
            "4",
            "--matches",
            "1",
            "--games",
            games.to_str().unwrap(),
        ],
    );
    offer_once_logged_in(&server, Offer::new("s8", TestClock::secs(60.0, 0.0, 30.0)));
    assert!(client.wait(&server).success(), "{}", client.stderr());
    let finished = server.finished();
    assert_eq!(finished.len(), 2, "{finished:?}");
    clean(&finished);
    let colours: Vec<_> = finished.iter().map(|g| g.color_of(ME).unwrap()).collect();
    assert!(colours.contains(&Color::Black) && colours.contains(&Color::White));
    assert!(
        finished.iter().all(|g| g.id.matches('.').count() == 2),
        "{finished:?}"
    );
    let text = std::fs::read_to_string(&games).unwrap();
    assert_eq!(parse_ggf_games(&text).unwrap().len(), 2, "{text}");
}

#[test]
fn a_komi_game_is_bid_for_then_played_against_the_komi() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("komi");
    let games = dir.join("games.ggf");
    let mut client = ClientProc::start(
        &server,
        &dir,
        PASSWORD,
        &[
            "--depth",
            "4",
            "--matches",
            "1",
            "--games",
            games.to_str().unwrap(),
        ],
    );
    offer_once_logged_in(&server, Offer::new("8k", TestClock::secs(60.0, 0.0, 30.0)));
    assert!(client.wait(&server).success(), "{}", client.stderr());
    let finished = server.finished();
    assert_eq!(finished.len(), 1, "{finished:?}");
    clean(&finished);
    let komi = finished[0].komi.expect("the komi was set");
    // The client's first line in the game is its bid: a move and the result it expects.
    let lines = server.client_lines(ME);
    let bid = lines
        .iter()
        .find(|l| l.starts_with("tell /os play "))
        .unwrap();
    let expected: f64 = bid
        .rsplit(' ')
        .next()
        .unwrap()
        .split('/')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(komi, expected / 2.0, "the mean of the bot's 0 and {bid}");
    let text = std::fs::read_to_string(&games).unwrap();
    assert!(text.contains("KM["), "{text}");
    assert!(client.stdout().contains("komi"), "{}", client.stdout());
}

#[test]
fn the_client_asks_for_a_match_itself() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("ask");
    let mut client = ClientProc::start(
        &server,
        &dir,
        PASSWORD,
        &[
            "--depth",
            "3",
            "--matches",
            "1",
            "--ask",
            "sparring",
            "8",
            "01:00//00:30",
        ],
    );
    assert!(client.wait(&server).success(), "{}", client.stderr());
    let lines = server.client_lines(ME);
    assert!(
        lines
            .iter()
            .any(|l| l == "tell /os ask 8 01:00//00:30 sparring"),
        "{lines:?}"
    );
    let finished = server.finished();
    assert_eq!(finished.len(), 1);
    clean(&finished);
}

#[test]
fn a_short_clock_is_never_lost_on_time() {
    // 6 seconds for the whole game at full strength (no level, no depth): the time manager
    // must fit ~30 moves in the main time, less the network's margin.
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("clock");
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--matches", "1"]);
    offer_once_logged_in(&server, Offer::new("8", TestClock::secs(6.0, 0.0, 2.0)));
    assert!(client.wait(&server).success(), "{}", client.stderr());
    let finished = server.finished();
    assert_eq!(finished.len(), 1);
    clean(&finished);
}

#[test]
fn a_wrong_password_is_a_clear_error_with_exit_status_2() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("password");
    let mut client = ClientProc::start(&server, &dir, "not-the-password", &[]);
    let status = client.wait(&server);
    assert_eq!(status.code(), Some(2));
    let err = client.stderr();
    let last = err.lines().last().unwrap_or("");
    assert!(
        last.contains("refused the login") && last.contains("Wrong password"),
        "{err}"
    );
    assert!(
        !err.contains("not-the-password"),
        "the password in the log: {err}"
    );
}

#[test]
fn the_password_is_never_logged_nor_on_the_command_line() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("secret");
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--depth", "2"]);
    wait_for(&server, "the login", |s| {
        s.logged_in.iter().any(|u| u == ME)
    });
    client.send("quit");
    assert!(client.wait(&server).success());
    let err = client.stderr();
    assert!(err.contains("GGS >"), "-vv logs every line sent: {err}");
    assert!(!err.contains(PASSWORD), "{err}");
    assert!(!client.stdout().contains(PASSWORD));
    // Without the file nor the variable, it says where the password goes.
    let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["ggs", "--host", "127.0.0.1", "--port", "1", "--user", ME])
        .env_remove("OUTFLANK_GGS_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--password-file") && err.contains("OUTFLANK_GGS_PASSWORD"));
}

#[test]
fn a_quiet_connection_is_kept_alive() {
    // The server drops a client silent for 2 s; the client says something every second.
    let server = FakeGgs::start(ServerConfig {
        idle_timeout: Some(Duration::from_secs(2)),
        ..ServerConfig::default()
    });
    let dir = scratch("alive");
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--keep-alive", "1"]);
    wait_for(&server, "the login", |s| {
        s.logged_in.iter().any(|u| u == ME)
    });
    thread::sleep(Duration::from_secs(5));
    let snap = server.snapshot();
    assert_eq!(
        snap.logins, 1,
        "dropped and logged in again: {}",
        snap.logins
    );
    assert!(snap.logged_in.iter().any(|u| u == ME));
    let alive = snap.client_lines(ME);
    assert!(
        alive.iter().filter(|l| *l == "tell /os continue").count() >= 3,
        "{alive:?}"
    );
    client.send("quit");
    assert!(client.wait(&server).success());
}

#[test]
fn ctrl_c_logs_out_cleanly() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("sigint");
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--depth", "2"]);
    wait_for(&server, "the login", |s| {
        s.logged_in.iter().any(|u| u == ME)
    });
    let pid = client.child.id().to_string();
    let kill = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(kill.success());
    let status = client.wait(&server);
    assert!(status.success(), "{status:?}");
    wait_for(&server, "the logout", |s| s.logged_in.is_empty());
    assert_eq!(
        server.client_lines(ME).last().map(String::as_str),
        Some("quit")
    );
}

#[test]
fn quit_on_stdin_logs_out() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("quit");
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--depth", "2"]);
    wait_for(&server, "the login", |s| {
        s.logged_in.iter().any(|u| u == ME)
    });
    client.send("quit");
    assert!(client.wait(&server).success());
    wait_for(&server, "the logout", |s| s.logged_in.is_empty());
    assert_eq!(
        server.client_lines(ME).last().map(String::as_str),
        Some("quit")
    );
}

#[test]
fn bad_input_from_the_server_is_logged_and_play_goes_on() {
    let server = FakeGgs::start(ServerConfig {
        bot_delay: Duration::from_millis(100),
        ..ServerConfig::default()
    });
    let dir = scratch("faults");
    let mut client =
        ClientProc::start(&server, &dir, PASSWORD, &["--depth", "3", "--matches", "1"]);
    offer_once_logged_in(&server, Offer::new("8", TestClock::secs(120.0, 0.0, 30.0)));
    wait_for(&server, "the game", |s| !s.playing.is_empty());
    for fault in [
        Fault::MalformedUpdate,
        Fault::HugeLine(10 << 20),
        Fault::Junk,
        Fault::UnknownGameUpdate,
        Fault::ErrorIllegalMove,
    ] {
        assert!(server.inject(ME, fault.clone()), "{fault:?}");
        thread::sleep(Duration::from_millis(150));
    }
    let status = client.wait(&server);
    assert!(status.success(), "{}", tail(&client.stderr(), 30));
    let finished = server.finished();
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert!(replay(&finished[0]).is_over());
    assert_eq!(finished[0].timed_out, None);
    let err = client.stderr();
    assert!(err.contains("unreadable message"), "{}", tail(&err, 30));
    assert!(
        err.contains("a game the client does not follow"),
        "{}",
        tail(&err, 30)
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_dropped_connection_reconnects_and_resumes_the_game() {
    let server = FakeGgs::start(ServerConfig {
        bot_delay: Duration::from_millis(50),
        ..ServerConfig::default()
    });
    let dir = scratch("drop");
    let games = dir.join("games.ggf");
    let mut client = ClientProc::start(
        &server,
        &dir,
        PASSWORD,
        &[
            "--depth",
            "3",
            "--matches",
            "1",
            "--games",
            games.to_str().unwrap(),
        ],
    );
    offer_once_logged_in(&server, Offer::new("8", TestClock::secs(120.0, 0.0, 30.0)));
    wait_for(&server, "a few moves", |s| {
        s.client_lines(ME)
            .iter()
            .filter(|l| l.starts_with("tell /os play"))
            .count()
            >= 3
    });
    assert!(server.inject(ME, Fault::Disconnect));
    let status = client.wait(&server);
    assert!(status.success(), "{}", tail(&client.stderr(), 30));
    let snap = server.snapshot();
    assert!(snap.logins >= 2, "a second login: {}", snap.logins);
    assert_eq!(snap.finished.len(), 1, "{:?}", snap.finished);
    assert!(replay(&snap.finished[0]).is_over());
    assert!(snap.stored.is_empty(), "{:?}", snap.stored);
    let out = client.stdout();
    assert!(
        out.contains("connection lost") && out.contains("reconnected"),
        "{out}"
    );
    let text = std::fs::read_to_string(&games).unwrap();
    let ggf = parse_ggf_games(&text).unwrap();
    assert_eq!(ggf.len(), 1, "{text}");
    assert_eq!(
        ggf[0].moves.iter().map(|m| m.mv).collect::<Vec<_>>(),
        snap.finished[0].moves,
        "the GGF has the whole game, before and after the drop"
    );
    // The game's clock, not what was left when it resumed.
    let clock: GgsClock = "02:00//00:30".parse().unwrap();
    assert_eq!(ggf[0].time, Some(clock.to_time_control()), "{text}");
}

#[test]
fn a_huge_line_from_the_server_is_logged_cut() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("huge-log");
    // -vv: every line received is logged, and the message it makes (not GGS's) once more.
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--depth", "1"]);
    wait_for(&server, "the login", |s| {
        s.logged_in.iter().any(|u| u == ME)
    });
    assert!(server.inject(ME, Fault::HugeLine(1 << 20)));
    thread::sleep(Duration::from_millis(500));
    client.send("quit");
    assert!(
        client.wait(&server).success(),
        "{}",
        tail(&client.stderr(), 20)
    );
    let err = client.stderr();
    assert!(
        err.contains(&format!("... ({} bytes)", 1 << 20)),
        "{}",
        tail(&err, 20)
    );
    assert!(err.len() < 64 * 1024, "stderr has {} bytes", err.len());
}

/// Runs the client without logging against a listener that is not a GGS server, with a
/// short login deadline, a 1 s backoff and `retries`; returns the exit status, stdout,
/// stderr and the time it took.
fn give_up(name: &str, port: u16, retries: &str) -> (ExitStatus, String, String, Duration) {
    let dir = scratch(name);
    let start = Instant::now();
    let mut client = ClientProc::start_quiet(
        port,
        &dir,
        &["--depth", "1", "--retries", retries, "--login-timeout", "1"],
    );
    let status = client.wait_for_exit(PATIENCE, &String::new);
    (status, client.stdout(), client.stderr(), start.elapsed())
}

/// Exit status 2 and one line on stderr that says it gave up after `n` attempts, and why.
fn gave_up_in_one_line(status: ExitStatus, err: &str, n: usize, why: &str) {
    assert_eq!(status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr: {err}");
    assert!(
        lines[0].contains(&format!("gave up after {n} failed attempts")) && lines[0].contains(why),
        "{err}"
    );
}

#[test]
fn a_silent_server_fails_each_login_in_time_and_the_client_gives_up() {
    let silent = NotGgs::start(Behaviour::Silent);
    let (status, out, err, took) = give_up("silent", silent.port(), "3");
    gave_up_in_one_line(status, &err, 3, "no login within 1 s");
    // Exactly 3 attempts: 3 deadlines of 1 s and 2 waits of 1 s.
    assert_eq!(silent.connections(), 3, "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(
        took >= Duration::from_secs(4),
        "the deadlines and waits kept: {took:?}"
    );
    assert_eq!(
        out.matches("trying again in 1 s").count(),
        2,
        "each failure said on stdout: {out}"
    );
}

#[test]
fn a_server_that_closes_at_once_is_a_failed_login_not_a_lost_game() {
    let closing = NotGgs::start(Behaviour::Close);
    let (status, out, err, took) = give_up("closing", closing.port(), "3");
    gave_up_in_one_line(status, &err, 3, "closed before the login");
    assert_eq!(closing.connections(), 3, "{out}");
    assert!(!out.contains("connection lost"), "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn junk_instead_of_the_login_prompt_fails_the_attempt() {
    let junk = NotGgs::start(Behaviour::Junk);
    let (status, out, err, took) = give_up("junk", junk.port(), "2");
    gave_up_in_one_line(status, &err, 2, "not a GGS server");
    assert_eq!(junk.connections(), 2, "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_refused_connection_counts_from_the_first_attempt() {
    let (status, out, err, took) = give_up("refused", closed_port(), "2");
    gave_up_in_one_line(status, &err, 2, "cannot connect");
    assert_eq!(out.matches("trying again").count(), 1, "{out}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    // One attempt is one attempt.
    let (status, _, err, _) = give_up("refused-once", closed_port(), "1");
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("gave up after 1 failed attempt in a row"),
        "{err}"
    );
}

#[test]
fn a_games_file_that_cannot_be_written_is_refused_at_start() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("games-dir");
    let mut client = ClientProc::start_quiet(
        server.port(),
        &dir,
        &["--depth", "1", "--games", "/nonexistent-dir/x.ggf"],
    );
    let status = client.wait_for_exit(Duration::from_secs(30), &String::new);
    assert_eq!(status.code(), Some(2));
    let err = client.stderr();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent-dir/x.ggf"), "{err}");
    assert_eq!(
        server.snapshot().connections,
        0,
        "refused before connecting"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_game_that_cannot_be_written_is_an_error_and_exit_status_2() {
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("games-full");
    let mut client = ClientProc::start_quiet(
        server.port(),
        &dir,
        &["--depth", "2", "--matches", "1", "--games", "/dev/full"],
    );
    offer_once_logged_in(&server, Offer::new("8", TestClock::secs(60.0, 0.0, 30.0)));
    let status = client.wait(&server);
    assert_eq!(status.code(), Some(2), "{}", client.stderr());
    assert_eq!(server.finished().len(), 1, "the game was played out");
    let err = client.stderr();
    assert!(
        err.lines()
            .next()
            .is_some_and(|l| l.contains("cannot write game .") && l.contains("/dev/full")),
        "the error when it happens: {err}"
    );
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.contains("1 game was not written to /dev/full")),
        "and at the end: {err}"
    );
    assert_eq!(
        server.client_lines(ME).last().map(String::as_str),
        Some("quit"),
        "it logged out as usual"
    );
}

#[test]
fn a_synchro_match_shares_the_clock_between_its_two_games() {
    // Both games wait for the client's one search at once, and each game's clock runs
    // while it thinks about the other: while both run, each plans with at most half its
    // main time (src/protocol/ggs/budget.rs), as its debug log says; how much of the clock
    // that uses depends on the machine's load, so only "not all of it" is checked.
    let server = FakeGgs::start(ServerConfig::default());
    let dir = scratch("synchro-clock");
    let mut client = ClientProc::start(&server, &dir, PASSWORD, &["--matches", "1"]);
    let main = 10.0;
    offer_once_logged_in(&server, Offer::new("s8", TestClock::secs(main, 0.0, 3.0)));
    assert!(client.wait(&server).success(), "{}", client.stderr());
    let finished = server.finished();
    assert_eq!(finished.len(), 2, "{finished:?}");
    clean(&finished);
    for g in &finished {
        let me = g.color_of(ME).unwrap();
        let used = main - g.main_left[if me == Color::Black { 0 } else { 1 }];
        assert!(used < main, "{}: {used:.2} s of {main} used", g.id);
    }
    let err = client.stderr();
    let plans: Vec<(f64, f64, usize)> = err
        .lines()
        .filter_map(|l| {
            let rest = l.split(" plans with ").nth(1)?;
            let n: Vec<&str> = rest.split_whitespace().collect();
            Some((
                n[0].parse().ok()?,
                n[3].parse().ok()?,
                n[7].trim_start_matches('(').parse().ok()?,
            ))
        })
        .collect();
    assert!(
        plans.iter().any(|p| p.2 == 2),
        "no move planned with both games running: {err}"
    );
    for &(plan, left, running) in &plans {
        assert!(running <= 2, "{plan} {left} {running}");
        assert!(
            plan * running as f64 <= left,
            "{plan:.2} s planned of {left:.2} s with {running} games running"
        );
    }
}
