//! The test GGS server (`tests/ggs_util`) tested on its own, with a small scripted client
//! written here on the library's GGS message parser: login, accept, play the first legal
//! move each time, a whole game, a synchro match, the client's own ask, a wrong password,
//! a loss on time, illegal moves, injected faults, and a game adjourned by a dropped
//! connection and resumed.

mod ggs_util;

use ggs_util::{BotPolicy, FakeGgs, Fault, Offer, ServerConfig, TestClock};
use outflank::protocol::ggs::message::{
    BoardMessage, Framer, GameId, GameResult, MatchInfo, Message, ParseError, Rated, Request,
    ResultHow, outgoing,
};
use outflank::{Color, Move, Position};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How long any one wait may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

const ME: &str = "outflank";
const PASSWORD: &str = "secret";

/// A scripted client: the real framer and parser over a socket.
struct Client {
    stream: TcpStream,
    framer: Framer,
    buf: Vec<u8>,
    queue: VecDeque<Result<Message, ParseError>>,
    closed: bool,
    /// Every message received (shortened), for failure messages.
    seen: Vec<String>,
}

impl Client {
    fn connect(port: u16) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        Client {
            stream,
            framer: Framer::new(),
            buf: Vec::new(),
            queue: VecDeque::new(),
            closed: false,
            seen: Vec::new(),
        }
    }

    /// Connects and logs in as `ME`, reading up to the service's `: + /os 1`.
    fn login(port: u16) -> Client {
        let mut c = Client::connect(port);
        c.expect(|m| *m == Message::LoginPrompt);
        c.send(&outgoing::login(ME));
        c.expect(|m| *m == Message::PasswordPrompt);
        c.send(&outgoing::password(PASSWORD));
        c.expect(|m| *m == Message::ServiceUp);
        for l in outgoing::setup()
            .into_iter()
            .chain(outgoing::service_setup(1))
        {
            c.send(&l);
        }
        c
    }

    fn send(&mut self, line: &str) {
        self.stream
            .write_all(format!("{line}\n").as_bytes())
            .expect("send");
    }

    /// The next message (a parse error included), or `None` once the server closed.
    fn next(&mut self) -> Option<Result<Message, ParseError>> {
        let end = Instant::now() + PATIENCE;
        loop {
            if let Some(m) = self.queue.pop_front() {
                let text = format!("{m:?}");
                self.seen.push(text.chars().take(300).collect());
                return Some(m);
            }
            if self.closed {
                return None;
            }
            assert!(
                Instant::now() < end,
                "no message from the server in time; seen:\n{}",
                self.seen.join("\n")
            );
            let mut chunk = [0u8; 65536];
            match self.stream.read(&mut chunk) {
                Ok(n) if n > 0 => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                _ => {
                    self.closed = true;
                    self.queue
                        .extend(self.framer.flush().map(|m| Message::parse(&m)));
                }
            }
            while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let msgs = if line.len() > outflank::protocol::MAX_LINE {
                    self.framer.push_too_long(line.len());
                    Vec::new()
                } else {
                    self.framer.push_line(&String::from_utf8_lossy(&line))
                };
                self.queue.extend(msgs.iter().map(Message::parse));
            }
        }
    }

    /// Skips messages until one that `pred` accepts.
    fn expect(&mut self, mut pred: impl FnMut(&Message) -> bool) -> Message {
        loop {
            match self.next() {
                Some(Ok(m)) if pred(&m) => return m,
                Some(_) => {}
                None => panic!(
                    "the server closed the connection; seen:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Plays the first legal move whenever a board shows `ME` to move, until the match
    /// `match_id` ends; returns its result and every board seen.
    fn play_out(&mut self, match_id: &GameId) -> (GameResult, Vec<BoardMessage>) {
        let mut boards = Vec::new();
        loop {
            match self.next() {
                Some(Ok(Message::Board(b))) => {
                    if b.color_of(ME) == Some(b.position.to_move)
                        && let Some(&mv) = b.position.legal_moves().first()
                    {
                        self.send(&outgoing::play(&b.id, mv, Some(0.0), 0.01));
                    }
                    boards.push(*b);
                }
                Some(Ok(Message::MatchEnd { info, result })) if info.id == *match_id => {
                    return (result, boards);
                }
                Some(_) => {}
                None => panic!("closed before the end of the match"),
            }
        }
    }
}

fn server() -> FakeGgs {
    FakeGgs::start(ServerConfig::default())
}

/// A clock of a minute and 30 s of extension: no test game comes near it.
fn minute() -> TestClock {
    TestClock::secs(60.0, 0.0, 30.0)
}

/// Skips to the next request offered (`+`).
fn expect_request(c: &mut Client) -> Request {
    match c.expect(|m| matches!(m, Message::Request { added: true, .. })) {
        Message::Request { request, .. } => request,
        _ => unreachable!(),
    }
}

/// Skips to the next match start.
fn expect_match(c: &mut Client) -> MatchInfo {
    match c.expect(|m| matches!(m, Message::MatchStart(_))) {
        Message::MatchStart(info) => info,
        _ => unreachable!(),
    }
}

fn accept_offer(ggs: &FakeGgs, c: &mut Client, offer: Offer) -> GameId {
    let rid = ggs.offer(ME, offer).expect("logged in");
    let request = expect_request(c);
    assert_eq!(request.id.as_str(), rid);
    assert_eq!(request.challenger.name, "sparring");
    assert_eq!(
        request.challengee.as_ref().map(|p| p.name.as_str()),
        Some(ME)
    );
    c.send(&outgoing::accept(&request.id));
    c.expect(|m| matches!(m, Message::Request { added: false, request: r } if r.id == request.id));
    let info = expect_match(c);
    assert!(info.has_player(ME));
    info.id
}

/// Replays a finished game from its start: every move legal, the game over at the end.
fn check_replay(start: Position, moves: &[Move]) -> Position {
    let mut pos = start;
    for &m in moves {
        pos = pos.play(m).expect("a legal move");
    }
    assert!(pos.legal_moves().is_empty(), "the game is over");
    pos
}

#[test]
fn a_whole_game_after_login_and_accept() {
    let ggs = server();
    let mut c = Client::login(ggs.port());
    let mut offer = Offer::new("8", minute());
    offer.client_color = Some(Color::White);
    let id = accept_offer(&ggs, &mut c, offer);
    let (result, boards) = c.play_out(&id);
    let join = &boards[0];
    assert!(join.join && join.id == id);
    assert_eq!(join.start, Some(Position::start()));
    assert_eq!(join.color_of(ME), Some(Color::White));
    assert_eq!(join.color_of("sparring"), Some(Color::Black));
    assert!(boards[1..].iter().all(|b| !b.join && b.last_move.is_some()));
    let games = ggs.finished();
    assert_eq!(games.len(), 1, "{}", ggs.transcript());
    let g = &games[0];
    assert_eq!((g.black.as_str(), g.white.as_str()), ("sparring", ME));
    let end = check_replay(g.start, &g.moves);
    assert_eq!(g.board_score, end.black_final_score());
    assert_eq!(g.black_score, g.board_score);
    assert_eq!((g.timed_out, g.over_time.len(), g.errors), (None, 0, 0));
    // The last board is the final position; the result is from the first-listed (the bot).
    assert_eq!(boards.last().unwrap().position.board, end.board);
    assert_eq!(
        result,
        GameResult::Score {
            score: g.black_score as f64,
            how: ResultHow::Normal
        }
    );
    // Every line the client sent is there, the password excepted.
    let lines = ggs.client_lines(ME);
    for l in [
        "vt100 -",
        "notify + /os",
        "tell /os client -",
        "tell /os open 1",
    ] {
        assert!(lines.iter().any(|x| x == l), "{l} in {lines:?}");
    }
    assert!(!ggs.log().iter().any(|l| l.text.contains(PASSWORD)));
    c.send(&outgoing::quit());
    assert!(ggs.wait_until(PATIENCE, |s| s.logged_in.is_empty()));
}

#[test]
fn a_synchro_match_with_a_random_start() {
    let ggs = FakeGgs::start(ServerConfig {
        bot: BotPolicy::Random(7),
        ..ServerConfig::default()
    });
    let mut c = Client::login(ggs.port());
    let id = accept_offer(&ggs, &mut c, Offer::new("s8r20", minute()));
    let (result, boards) = c.play_out(&id);
    let joins: Vec<&BoardMessage> = boards.iter().filter(|b| b.join).collect();
    assert_eq!(joins.len(), 2);
    assert_eq!(joins[0].id.match_id(), id);
    assert_eq!(
        (joins[0].id.child(), joins[1].id.child()),
        (Some(0), Some(1))
    );
    assert_eq!(joins[0].start, joins[1].start);
    let start = joins[0].start.unwrap();
    assert_eq!((start.black() | start.white()).count_ones(), 20);
    assert_ne!(joins[0].color_of(ME), joins[1].color_of(ME));
    let games = ggs.finished();
    assert_eq!(games.len(), 2, "{}", ggs.transcript());
    for g in &games {
        check_replay(g.start, &g.moves);
        assert_eq!(g.start, start);
    }
    // The match score is the average of the games', from the first-listed (the bot).
    let avg = games
        .iter()
        .map(|g| if g.black == "sparring" { g.black_score } else { -g.black_score } as f64)
        .sum::<f64>()
        / 2.0;
    assert!(
        matches!(result, GameResult::Score { score, .. } if score == avg),
        "{result:?}"
    );
    let log = ggs.snapshot().server_lines(ME);
    assert_eq!(log.iter().filter(|l| l.starts_with("/os: end ")).count(), 2);
}

#[test]
fn the_clients_own_ask_is_accepted_by_the_bot() {
    let ggs = server();
    let mut c = Client::login(ggs.port());
    let t = "8w".parse().unwrap();
    let clock = "00:30//00:10".parse().unwrap();
    c.send(&outgoing::ask(&t, &clock, Some("sparring")));
    let request = expect_request(&mut c);
    assert_eq!(request.challenger.name, ME);
    assert_eq!(request.rated, Rated::Unrated);
    let info = expect_match(&mut c);
    assert_eq!(info.players[0].name, ME);
    let (_, boards) = c.play_out(&info.id);
    assert_eq!(boards[0].color_of(ME), Some(Color::White));
    assert_eq!(boards[0].player(Color::White).clock.main, 30.0);
    assert_eq!(ggs.finished().len(), 1);
}

#[test]
fn a_wrong_password_gets_a_line_and_the_door() {
    let ggs = server();
    let mut c = Client::connect(ggs.port());
    c.expect(|m| *m == Message::LoginPrompt);
    c.send(ME);
    c.expect(|m| *m == Message::PasswordPrompt);
    c.send("guess");
    let m = c.next();
    assert!(
        matches!(m, Some(Ok(Message::Server(ref t))) if t.contains("Wrong password")),
        "{m:?}"
    );
    let start = Instant::now();
    if let Some(m) = c.next() {
        panic!("after a wrong password: {m:?}");
    }
    assert!(start.elapsed() < PATIENCE);
    assert_eq!(ggs.snapshot().logins, 0);
}

#[test]
fn a_client_out_of_time_loses() {
    let ggs = server();
    let mut c = Client::login(ggs.port());
    let mut offer = Offer::new("8", TestClock::secs(0.3, 0.0, 0.3));
    offer.client_color = Some(Color::Black);
    let id = accept_offer(&ggs, &mut c, offer);
    // The client never moves.
    let Message::Timeout { fatal, name, .. } = c.expect(|m| matches!(m, Message::Timeout { .. }))
    else {
        unreachable!()
    };
    assert!(!fatal && name == ME);
    c.expect(|m| matches!(m, Message::Timeout { fatal: true, .. }));
    let Message::MatchEnd { result, info } = c.expect(|m| matches!(m, Message::MatchEnd { .. }))
    else {
        unreachable!()
    };
    assert_eq!(info.id, id);
    assert!(
        matches!(result, GameResult::Score { score, how: ResultHow::Timeout } if score == 64.0),
        "{result:?}"
    );
    let g = &ggs.finished()[0];
    assert_eq!(g.timed_out, Some(Color::Black));
    assert_eq!(g.black_score, -64);
}

#[test]
fn illegal_moves_and_faults() {
    let ggs = FakeGgs::start(ServerConfig {
        bot_delay: Duration::from_millis(50),
        ..ServerConfig::default()
    });
    let mut c = Client::login(ggs.port());
    let mut offer = Offer::new("8", minute());
    offer.client_color = Some(Color::Black);
    let id = accept_offer(&ggs, &mut c, offer);
    let Message::Board(join) = c.expect(|m| matches!(m, Message::Board(_))) else {
        unreachable!()
    };
    // Illegal: a1, a pass with moves, out of turn in an unknown game.
    for mv in ["a1", "pa", "zz"] {
        c.send(&format!("tell /os play {id} {mv}"));
        let m = c.expect(|m| matches!(m, Message::GameError { .. }));
        assert_eq!(
            m,
            Message::GameError {
                id: Some(id.clone()),
                text: "illegal move".into()
            }
        );
    }
    // Faults: each is an error or Other for the parser, and the game goes on.
    for fault in [
        Fault::HugeLine(10 << 20),
        Fault::Junk,
        Fault::MalformedUpdate,
        Fault::UnknownGameUpdate,
        Fault::ErrorIllegalMove,
    ] {
        assert!(ggs.inject(ME, fault.clone()));
        let mut seen = false;
        let want = |m: &Result<Message, ParseError>| match (&fault, m) {
            (Fault::HugeLine(_), Err(ParseError::Damaged)) => true,
            (Fault::Junk, Ok(Message::Other(_))) => true,
            (Fault::MalformedUpdate, Err(ParseError::Board(_))) => true,
            (Fault::UnknownGameUpdate, Ok(Message::Board(b))) => b.id.as_str() == ".99999",
            (Fault::ErrorIllegalMove, Ok(Message::GameError { .. })) => true,
            _ => false,
        };
        while !seen {
            let m = c.next().expect("open");
            seen = want(&m);
        }
    }
    c.send(&outgoing::play(
        &id,
        join.position.legal_moves()[0],
        None,
        0.5,
    ));
    let (_, _) = c.play_out(&id);
    let g = &ggs.finished()[0];
    assert_eq!(g.errors, 3);
    check_replay(g.start, &g.moves);
}

#[test]
fn the_client_passes_in_any_spelling() {
    let ggs = server();
    let mut c = Client::login(ggs.port());
    // White a1 b1, black c1, black to move: black must pass, white then ends it with d1.
    let sq = |s: &str| s.parse::<outflank::Square>().unwrap().bit();
    let start = Position::from_colors(sq("c1"), sq("a1") | sq("b1"), Color::Black);
    for pass in ["pa", "PA", "pass"] {
        let mut offer = Offer::new("8", minute());
        offer.client_color = Some(Color::Black);
        offer.start = Some(start);
        let id = accept_offer(&ggs, &mut c, offer);
        let b = match c.expect(|m| matches!(m, Message::Board(_))) {
            Message::Board(b) => b,
            _ => unreachable!(),
        };
        assert_eq!(
            (b.start, b.position.legal_moves()),
            (Some(start), vec![Move::Pass])
        );
        c.send(&format!("tell /os play {id} {pass}"));
        let Message::MatchEnd { result, .. } = c.expect(|m| matches!(m, Message::MatchEnd { .. }))
        else {
            unreachable!()
        };
        assert!(matches!(result, GameResult::Score { score, .. } if score == 64.0));
    }
    let games = ggs.finished();
    assert_eq!(games.len(), 3);
    for g in &games {
        assert_eq!(g.moves, [Move::Pass, "d1".parse().unwrap()]);
        assert_eq!((g.black_score, g.errors), (-64, 0));
    }
}

#[test]
fn a_dropped_connection_adjourns_and_the_game_resumes() {
    let ggs = FakeGgs::start(ServerConfig {
        bot_delay: Duration::from_millis(30),
        ..ServerConfig::default()
    });
    let mut c = Client::login(ggs.port());
    let id = accept_offer(&ggs, &mut c, Offer::new("s8", minute()));
    // A few moves in each game, then the server drops the client.
    let mut mine = 0;
    while mine < 6 {
        if let Some(Ok(Message::Board(b))) = c.next()
            && b.color_of(ME) == Some(b.position.to_move)
        {
            c.send(&outgoing::play(
                &b.id,
                b.position.legal_moves()[0],
                None,
                0.1,
            ));
            mine += 1;
        }
    }
    assert!(ggs.wait_until(PATIENCE, |s| {
        s.log
            .iter()
            .filter(|l| l.from_client && l.text.starts_with("tell /os play"))
            .count()
            >= 6
    }));
    assert!(ggs.inject(ME, Fault::Disconnect));
    while c.next().is_some() {}
    assert!(ggs.wait_until(PATIENCE, |s| s.stored == [id.as_str().to_string()]));
    let played_before: usize = ggs
        .snapshot()
        .log
        .iter()
        .filter(|l| !l.from_client && l.text.starts_with("/os: update"))
        .count();
    assert!(played_before >= 6);
    // Back again: ask for the stored match; the joins carry the moves so far.
    let mut c = Client::login(ggs.port());
    c.send(&outgoing::ask_stored(&id));
    let request = expect_request(&mut c);
    assert_eq!(request.rated, Rated::Stored);
    let info = expect_match(&mut c);
    let (_, boards) = c.play_out(&info.id);
    let joins: Vec<&BoardMessage> = boards.iter().filter(|b| b.join).collect();
    assert_eq!(joins.len(), 2);
    for j in &joins {
        assert!(!j.moves.is_empty());
        assert_eq!(j.start, Some(Position::start()));
        assert_eq!(j.game().unwrap().position(), j.position);
    }
    let games = ggs.finished();
    assert_eq!(games.len(), 2, "{}", ggs.transcript());
    for g in &games {
        assert_eq!(g.match_id, info.id.as_str());
        check_replay(g.start, &g.moves);
    }
}

#[test]
fn the_server_offers_a_stored_game_at_login() {
    let ggs = FakeGgs::start(ServerConfig {
        offer_stored_on_login: true,
        bot_delay: Duration::from_millis(30),
        ..ServerConfig::default()
    });
    let mut c = Client::login(ggs.port());
    let id = accept_offer(&ggs, &mut c, Offer::new("8", minute()));
    c.expect(|m| matches!(m, Message::Board(b) if !b.join));
    assert!(ggs.inject(ME, Fault::Disconnect));
    while c.next().is_some() {}
    assert!(ggs.wait_until(PATIENCE, |s| s.stored.len() == 1));
    let mut c = Client::connect(ggs.port());
    c.expect(|m| *m == Message::LoginPrompt);
    c.send(ME);
    c.expect(|m| *m == Message::PasswordPrompt);
    c.send(PASSWORD);
    let request = expect_request(&mut c);
    assert_eq!(request.rated, Rated::Stored);
    c.send(&outgoing::accept(&request.id));
    let info = expect_match(&mut c);
    assert_ne!(info.id, id);
    c.play_out(&info.id);
    assert_eq!(ggs.finished().len(), 1);
}

#[test]
fn an_idle_client_is_dropped_and_keep_alive_holds() {
    let ggs = FakeGgs::start(ServerConfig {
        idle_timeout: Some(Duration::from_millis(400)),
        ..ServerConfig::default()
    });
    let mut c = Client::login(ggs.port());
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(150));
        c.send(&outgoing::keep_alive());
    }
    assert_eq!(ggs.snapshot().logged_in, [ME.to_string()]);
    assert!(ggs.wait_until(PATIENCE, |s| s.logged_in.is_empty()));
    while c.next().is_some() {}
}
