//! The browser board (`outflank serve`, issue 42; docs/serve.md) as a person uses it: headless
//! Chromium driven over WebDriver (chromedriver, through `fantoccini`) against the real
//! binary. Each test starts its own server (`--port 0`, a fresh database), chromedriver on a
//! free port, and Chromium with a fresh profile; they run one at a time.
//!
//! The tests read the page only through its DOM hooks: `#board .sq[data-sq][data-disc]
//! [data-legal][data-score]`, `#board`'s `data-ply`/`data-turn`/`data-you`/`data-position`,
//! `#moves .mv[data-move]`, `#status`, `#result`, `#black-count`, `#white-count`, `#pass`,
//! `#link`. Needs Debian's chromium and chromium-driver (see build.rs: missing, the tests show
//! as ignored; under `CI=true` they fail).

mod common;

use common::requirements;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use outflank::board::{Color, Move, Position, Square};
use outflank::game::Game;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NO_BROWSER: &str =
    "missing: chromium and chromedriver (apt-get install chromium chromium-driver)";

/// One browser test at a time: Chromium is heavy, and the machine may have two cores.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How long to wait for the page to reach a state (the engine's moves included).
const PATIENCE: Duration = Duration::from_secs(90);

// --- the processes ---------------------------------------------------------------------------

/// A process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `outflank serve` on a free port with its own database.
struct Server {
    _proc: Proc,
    url: String,
    dir: PathBuf,
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = common::temp_dir("browser", name);
        let log = std::fs::File::create(dir.join("serve.log")).unwrap();
        let db = dir.join("g.sqlite");
        let mut child = Command::new(env!("CARGO_BIN_EXE_outflank"))
            .args(["serve", "--port", "0", "--db", common::s(&db)])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start outflank serve");
        let stdout = child.stdout.take().unwrap();
        let proc = Proc(child);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("listening ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!(
                    "outflank serve did not print `listening http://...`; its stderr: {}",
                    std::fs::read_to_string(dir.join("serve.log")).unwrap_or_default()
                )
            });
        let url = url.trim_end_matches('/').to_string();
        Server {
            _proc: proc,
            url,
            dir,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("serve.log")).unwrap_or_default()
    }
}

/// chromedriver on a free port of the loopback.
struct Driver {
    _proc: Proc,
    port: u16,
    chromium: PathBuf,
    dir: PathBuf,
}

impl Driver {
    fn start(name: &str) -> Driver {
        let (chromium, chromedriver) = requirements::find_chromium().expect(NO_BROWSER);
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = common::temp_dir("browser-driver", name);
        let log = std::fs::File::create(dir.join("chromedriver.log")).unwrap();
        let proc = Proc(
            Command::new(chromedriver)
                .arg(format!("--port={port}"))
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .expect("start chromedriver"),
        );
        let t = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "chromedriver did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            _proc: proc,
            port,
            chromium,
            dir,
        }
    }

    /// A new browser (its own Chromium, with a fresh profile: its own localStorage).
    async fn browser(&self, name: &str) -> Client {
        let profile = self.dir.join(format!("profile-{name}"));
        let _ = std::fs::remove_dir_all(&profile);
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            // Without these, Chromium on a machine without a network waits on connections.
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1100,900",
            &format!("--user-data-dir={}", profile.display()),
        ];
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": self.chromium, "args": args},
        });
        let caps = caps.as_object().unwrap().clone();
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .unwrap_or_else(|e| panic!("a Chromium session: {e}"))
    }
}

// --- reading the page ------------------------------------------------------------------------

/// What the page shows, read through its DOM hooks in one round trip.
#[derive(Debug, Clone)]
struct Snap {
    ply: i64,
    view: i64,
    turn: String,
    you: String,
    over: bool,
    position: String,
    /// Each square: (name, disc, legal, score).
    squares: Vec<(String, String, bool, Option<i64>)>,
    moves: Vec<String>,
    status: String,
    result: Option<String>,
    pass: bool,
    black: i64,
    white: i64,
    link: String,
}

const SNAPSHOT_JS: &str = r#"
const b = document.getElementById('board');
if (!b || b.dataset.ply === undefined) return null;
const id = (x) => document.getElementById(x);
const shown = (x) => id(x) && !id(x).hidden ? id(x).textContent : null;
return {
  ply: Number(b.dataset.ply), view: Number(b.dataset.view), turn: b.dataset.turn,
  you: b.dataset.you, over: b.dataset.over === '1', position: b.dataset.position,
  squares: Array.from(b.querySelectorAll('.sq')).map((e) => [e.dataset.sq, e.dataset.disc,
    e.dataset.legal === '1', e.dataset.score === undefined ? null : Number(e.dataset.score)]),
  moves: Array.from(document.querySelectorAll('#moves .mv')).map((e) => e.dataset.move),
  status: id('status').textContent, result: shown('result'), pass: !id('pass').hidden,
  black: Number(id('black-count').textContent), white: Number(id('white-count').textContent),
  link: id('link').value,
};
"#;

async fn snap(c: &Client) -> Option<Snap> {
    let v = c.execute(SNAPSHOT_JS, vec![]).await.ok()?;
    if v.is_null() {
        return None;
    }
    let st = |k: &str| v[k].as_str().unwrap_or("").to_string();
    let strings = |k: &str| -> Vec<String> {
        v[k].as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let squares = v["squares"]
        .as_array()?
        .iter()
        .map(|s| {
            (
                s[0].as_str().unwrap_or("").to_string(),
                s[1].as_str().unwrap_or("").to_string(),
                s[2].as_bool().unwrap_or(false),
                s[3].as_f64().map(|x| x as i64),
            )
        })
        .collect();
    Some(Snap {
        ply: v["ply"].as_i64()?,
        view: v["view"].as_i64().unwrap_or(-1),
        turn: st("turn"),
        you: st("you"),
        over: v["over"].as_bool().unwrap_or(false),
        position: st("position"),
        squares,
        moves: strings("moves"),
        status: st("status"),
        result: v["result"].as_str().map(str::to_string),
        pass: v["pass"].as_bool().unwrap_or(false),
        black: v["black"].as_i64().unwrap_or(-1),
        white: v["white"].as_i64().unwrap_or(-1),
        link: st("link"),
    })
}

/// Waits until the page shows what `ok` wants; on a timeout, fails with what it showed.
async fn wait_for(c: &Client, what: &str, ok: impl Fn(&Snap) -> bool) -> Snap {
    let t = Instant::now();
    loop {
        let s = snap(c).await;
        if let Some(s) = &s
            && ok(s)
        {
            return s.clone();
        }
        if t.elapsed() > PATIENCE {
            panic!("timed out waiting for {what}; the page shows {s:#?}");
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("clicking {css}: {e}"));
}

/// Types text on the page (not into a field), as a person at the keyboard.
async fn type_keys(c: &Client, text: &str) {
    let mut keys = KeyActions::new("keyboard".to_string());
    for ch in text.chars() {
        keys = keys
            .then(KeyAction::Down { value: ch })
            .then(KeyAction::Up { value: ch });
    }
    c.perform_actions(keys).await.expect("typing");
}

/// Fills a number field.
async fn fill(c: &Client, css: &str, value: &str) {
    let e = c.find(Locator::Css(css)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(value).await.unwrap();
}

/// Makes a game with the new-game dialog that `/` opens; returns once its board is drawn.
async fn new_game(
    c: &Client,
    server: &Server,
    mode: &str,
    color: &str,
    level: Option<u32>,
    hints: bool,
) -> Snap {
    c.goto(&format!("{}/", server.url)).await.unwrap();
    click(c, &format!("#new-form input[name=mode][value={mode}]")).await;
    if mode != "local" {
        c.find(Locator::Css("#new-form select[name=color]"))
            .await
            .unwrap()
            .select_by_value(color)
            .await
            .unwrap();
    }
    if let Some(level) = level {
        click(c, "#new-form input[name=strength][value=level]").await;
        fill(c, "#new-form input[name=level]", &level.to_string()).await;
    }
    if hints {
        click(c, "#new-form input[name=hints]").await;
    }
    click(c, "#new-start").await;
    let want = if mode == "local" { "both" } else { color };
    wait_for(c, &format!("a new {mode} game as {want}"), |s| {
        s.you == want
    })
    .await
}

// --- checking against the library ------------------------------------------------------------

fn disc_name(c: Option<Color>) -> &'static str {
    match c {
        Some(Color::Black) => "black",
        Some(Color::White) => "white",
        None => "empty",
    }
}

/// The game of a move list (as the page lists it), replayed by the library.
fn replay(moves: &[String]) -> Game {
    let mut g = Game::default();
    for m in moves {
        let mv: Move = m
            .parse()
            .unwrap_or_else(|e| panic!("{m:?} in the move list: {e}"));
        g.play(mv)
            .unwrap_or_else(|e| panic!("{m} in the move list {moves:?} does not replay: {e}"));
    }
    g
}

/// The drawn board, square by square, is `pos`; with `legal`, the marked squares are its
/// legal moves.
fn assert_drawn(s: &Snap, pos: &Position, legal: bool, what: &str) {
    assert_eq!(s.squares.len(), 64, "{what}: 64 squares");
    for (name, disc, marked, _) in &s.squares {
        let sq: Square = name.parse().unwrap();
        assert_eq!(
            disc,
            disc_name(pos.at(sq)),
            "{what}: square {name} at ply {} (moves {:?})",
            s.view,
            s.moves
        );
        if legal {
            let is_legal = pos.legal_moves().contains(&Move::Play(sq));
            assert_eq!(
                *marked, is_legal,
                "{what}: {name} marked legal at ply {}",
                s.view
            );
        } else {
            assert!(
                !marked,
                "{what}: {name} marked legal when it is not the player's turn"
            );
        }
    }
}

fn legal_squares(s: &Snap) -> Vec<String> {
    s.squares
        .iter()
        .filter(|q| q.2)
        .map(|q| q.0.clone())
        .collect()
}

/// The counts on the board, and the score as the rules count it (empties to the winner).
fn final_counts(pos: &Position) -> ((u32, u32), (u32, u32)) {
    let b = pos.black().count_ones();
    let w = pos.white().count_ones();
    let e = 64 - b - w;
    let score = if b > w {
        (b + e, w)
    } else if w > b {
        (b, w + e)
    } else {
        (b + e / 2, w + e / 2)
    };
    ((b, w), score)
}

/// Checks the game's end as the page shows it: counts, the plain count and the score.
fn assert_result(s: &Snap, game: &Game) {
    let pos = game.position();
    assert!(
        pos.board.is_game_over(),
        "the page says over, the library does not: {s:#?}"
    );
    let ((b, w), (sb, sw)) = final_counts(&pos);
    assert_eq!(
        (s.black, s.white),
        (b as i64, w as i64),
        "disc counts at the end"
    );
    let result = s.result.clone().expect("#result shown at the end");
    assert!(
        result.contains(&format!("{sb}-{sw}")),
        "score {sb}-{sw} in {result:?}"
    );
    assert!(
        result.contains(&format!("{b}-{w}")),
        "count {b}-{w} in {result:?}"
    );
    let winner = if sb > sw {
        "Black wins"
    } else if sw > sb {
        "White wins"
    } else {
        "draw"
    };
    assert!(result.contains(winner), "{winner:?} in {result:?}");
}

/// Steps through the whole game with the page's back/forward buttons, checking the board
/// drawn at each ply against the library, and that the game itself did not change.
async fn assert_history(c: &Client, game: &Game) {
    let n = game.len() as i64;
    click(c, "#nav-first").await;
    for (ply, pos) in game.positions().iter().enumerate() {
        let ply = ply as i64;
        let s = wait_for(c, &format!("viewing ply {ply}"), |s| s.view == ply).await;
        assert_eq!(s.ply, n, "viewing an earlier ply leaves the game as it is");
        assert_drawn(&s, pos, false, "history");
        if ply < n {
            click(c, "#nav-forward").await;
        }
    }
}

// --- the tests ---------------------------------------------------------------------------

/// Runs `body` with a server, a driver and the lock; prints the server's log on a failure.
macro_rules! browser_test {
    ($name:literal, |$server:ident, $driver:ident| $body:block) => {{
        let _one = ONE_AT_A_TIME.lock().await;
        let $server = Server::start($name);
        let $driver = Driver::start($name);
        let guard = LogOnPanic(&$server);
        $body;
        std::mem::forget(guard);
    }};
}

struct LogOnPanic<'a>(&'a Server);

impl Drop for LogOnPanic<'_> {
    fn drop(&mut self) {
        eprintln!("outflank serve's log:\n{}", self.0.log());
    }
}

#[tokio::test]
#[cfg_attr(
    outflank_no_chromium,
    ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver), missing when the tests were built"
)]
async fn a_game_against_the_engine_by_clicks_and_keys() {
    browser_test!("engine", |server, driver| {
        let c = driver.browser("engine").await;
        new_game(&c, &server, "engine", "black", Some(1), false).await;
        let mut acted = -1;
        let mut reloaded = false;
        let mut typed = 0;
        loop {
            let s = wait_for(&c, "my turn or the end", |s| {
                s.over || (s.turn == "you" && s.ply > acted)
            })
            .await;
            let game = replay(&s.moves);
            assert_eq!(s.ply as usize, game.len(), "data-ply and the move list");
            assert_eq!(s.view, s.ply, "the page shows the current position");
            if s.over {
                assert_drawn(&s, &game.position(), false, "the end");
                assert_result(&s, &game);
                assert_history(&c, &game).await;
                break;
            }
            let pos = game.position();
            assert_eq!(pos.to_move, Color::Black, "my turn, I am black: {s:#?}");
            assert_drawn(&s, &pos, true, "my turn");
            assert_eq!((s.black, s.white), {
                let b = pos.black().count_ones() as i64;
                (b, pos.white().count_ones() as i64)
            });
            if s.ply >= 12 && !reloaded {
                // A reload takes the player back to their seat (the token in localStorage).
                reloaded = true;
                c.refresh().await.unwrap();
                let again = wait_for(&c, "the seat after a reload", |t| t.ply == s.ply).await;
                assert_eq!(again.you, "black", "the seat after a reload");
                assert_eq!(again.turn, "you");
            }
            acted = s.ply;
            if s.pass {
                assert_eq!(pos.legal_moves(), vec![Move::Pass], "{s:#?}");
                assert!(
                    s.status.contains("pass"),
                    "the pass announced: {:?}",
                    s.status
                );
                click(&c, "#pass").await;
                continue;
            }
            let legal = legal_squares(&s);
            assert!(
                !legal.is_empty(),
                "no legal move marked and no pass: {s:#?}"
            );
            let mv = &legal[(s.ply as usize * 7) % legal.len()];
            if s.ply % 4 == 2 {
                type_keys(&c, &format!("{mv}{}", char::from(Key::Enter))).await;
                typed += 1;
            } else {
                click(&c, &format!("#board .sq[data-sq={mv}]")).await;
            }
        }
        assert!(
            reloaded && typed > 0,
            "the game was too short to test a reload and typing"
        );
        c.close().await.unwrap();
    });
}

#[tokio::test]
#[cfg_attr(
    outflank_no_chromium,
    ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver), missing when the tests were built"
)]
async fn an_online_game_between_two_browsers() {
    browser_test!("online", |server, driver| {
        let a = driver.browser("a").await;
        let b = driver.browser("b").await;
        let first = new_game(&a, &server, "online", "black", None, false).await;
        let link = first.link.clone();
        assert!(link.contains("/g/"), "the link to send: {link:?}");
        b.goto(&link).await.unwrap();
        let joined = wait_for(&b, "the second browser in the free seat", |s| {
            s.you == "white"
        })
        .await;
        assert_eq!(joined.ply, 0);
        let mut acted = -1;
        loop {
            // Both pages at the same ply, one of them to play (or both at the end).
            let t = Instant::now();
            let (sa, sb) = loop {
                let sa = wait_for(&a, "a state", |_| true).await;
                let sb = wait_for(&b, "a state", |_| true).await;
                assert!(
                    t.elapsed() < PATIENCE,
                    "the two pages do not agree on whose turn it is: {sa:#?} {sb:#?}"
                );
                let settled = sa.ply == sb.ply
                    && (sa.over && sb.over
                        || sa.ply > acted && (sa.turn == "you") != (sb.turn == "you"));
                if settled {
                    break (sa, sb);
                }
                tokio::time::sleep(Duration::from_millis(60)).await;
            };
            let game = replay(&sa.moves);
            assert_eq!(sa.moves, sb.moves, "both browsers show the same game");
            let pos = game.position();
            assert_eq!(sa.you, "black");
            assert_eq!(sb.you, "white");
            if sa.over {
                assert_drawn(&sa, &pos, false, "black's page at the end");
                assert_drawn(&sb, &pos, false, "white's page at the end");
                assert_result(&sa, &game);
                assert_result(&sb, &game);
                assert_eq!(sa.result, sb.result);
                break;
            }
            let (me, other, s) = if sa.turn == "you" {
                (&a, &sb, &sa)
            } else {
                (&b, &sa, &sb)
            };
            let color = if sa.turn == "you" {
                Color::Black
            } else {
                Color::White
            };
            assert_eq!(pos.to_move, color, "{s:#?}");
            assert_drawn(s, &pos, true, "the player to move");
            assert_drawn(other, &pos, false, "the player waiting");
            acted = s.ply;
            if s.pass {
                assert!(
                    s.status.contains("pass"),
                    "the pass announced: {:?}",
                    s.status
                );
                click(me, "#pass").await;
            } else {
                let legal = legal_squares(s);
                let mv = &legal[(s.ply as usize * 5 + 3) % legal.len()];
                click(me, &format!("#board .sq[data-sq={mv}]")).await;
            }
        }
        a.close().await.unwrap();
        b.close().await.unwrap();
    });
}

/// The moves played before analysing, by clicks on a two-player board.
const OPENING: [&str; 6] = ["f5", "d6", "c3", "d3", "c4", "f4"];

/// Plays `OPENING` on a local game (both colours in one browser).
async fn play_opening(c: &Client, server: &Server) -> Snap {
    new_game(c, server, "local", "black", None, false).await;
    for (i, mv) in OPENING.iter().enumerate() {
        wait_for(c, "the board before a move", |s| s.ply == i as i64).await;
        click(c, &format!("#board .sq[data-sq={mv}]")).await;
    }
    let s = wait_for(c, "the opening played", |s| s.ply == OPENING.len() as i64).await;
    let moves: Vec<String> = OPENING.iter().map(|m| m.to_string()).collect();
    assert_eq!(s.moves, moves);
    assert_drawn(&s, &replay(&moves).position(), true, "after the opening");
    s
}

/// Asks the page to score every move at `depth`; returns the scores drawn on the squares.
async fn analyse(c: &Client, depth: u32) -> Vec<(String, i64)> {
    fill(c, "#depth", &depth.to_string()).await;
    click(c, "#analyze").await;
    let s = wait_for(c, "the scores on the squares", |s| {
        let legal = s.squares.iter().filter(|q| q.2).count();
        legal > 0 && s.squares.iter().filter(|q| q.2 && q.3.is_some()).count() == legal
    })
    .await;
    let mut scores: Vec<(String, i64)> = s
        .squares
        .iter()
        .filter_map(|q| q.3.map(|x| (q.0.clone(), x)))
        .collect();
    scores.sort();
    scores
}

#[tokio::test]
#[cfg_attr(
    outflank_no_chromium,
    ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver), missing when the tests were built"
)]
async fn the_analysis_shows_the_scores_of_outflank_analyze() {
    const DEPTH: u32 = 6;
    browser_test!("analysis", |server, driver| {
        let c = driver.browser("analysis").await;
        let s = play_opening(&c, &server).await;
        let page = analyse(&c, DEPTH).await;
        let out = common::ok(common::outflank(&[
            "analyze",
            &s.position,
            "--depth",
            &DEPTH.to_string(),
            "--multipv",
            "60",
            "--json",
        ]));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut cli: Vec<(String, i64)> = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_string(),
                    m["score"].as_i64().unwrap(),
                )
            })
            .collect();
        cli.sort();
        assert_eq!(
            page, cli,
            "the page's scores and `outflank analyze` at depth {DEPTH}"
        );
        // The analysed ply has a point on the evaluation graph.
        let dots = c.find_all(Locator::Css("#graph circle")).await.unwrap();
        assert!(!dots.is_empty(), "the analysed ply on the evaluation graph");
        c.close().await.unwrap();
    });
}

/// The README's picture of the page: a game against the engine (hints on, which allows the
/// analysis) after a few moves, with the analysis shown. It
/// is written to `docs/serve-screenshot.png` when `OUTFLANK_SCREENSHOT=1` (else into the
/// test's temporary folder, so that a test run leaves the tree unchanged).
#[tokio::test]
#[cfg_attr(
    outflank_no_chromium,
    ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver), missing when the tests were built"
)]
async fn a_screenshot_of_the_page() {
    browser_test!("screenshot", |server, driver| {
        let c = driver.browser("screenshot").await;
        new_game(&c, &server, "engine", "black", Some(1), true).await;
        let mut acted = -1;
        loop {
            let s = wait_for(&c, "my turn", |s| {
                s.over || (s.turn == "you" && s.ply > acted)
            })
            .await;
            if s.ply >= 16 || s.over {
                break;
            }
            acted = s.ply;
            let legal = legal_squares(&s);
            if legal.is_empty() {
                click(&c, "#pass").await;
            } else {
                let mv = &legal[(s.ply as usize * 3) % legal.len()];
                click(&c, &format!("#board .sq[data-sq={mv}]")).await;
            }
        }
        analyse(&c, 8).await;
        // Let the flip animations end.
        tokio::time::sleep(Duration::from_millis(600)).await;
        let png = c.screenshot().await.unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
        let path = if std::env::var("OUTFLANK_SCREENSHOT").is_ok_and(|v| v == "1") {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/serve-screenshot.png")
        } else {
            server.dir.join("serve-screenshot.png")
        };
        std::fs::write(&path, &png).unwrap();
        eprintln!("screenshot: {}", path.display());
        c.close().await.unwrap();
    });
}

#[path = "browser/clocks.rs"]
mod clocks;
#[path = "browser/review.rs"]
mod review;
