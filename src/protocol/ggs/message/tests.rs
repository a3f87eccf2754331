use super::*;
use crate::board::{Color, Position};
use proptest::prelude::*;

/// Frames `text` (CR LF lines) and flushes what is left.
fn frame(text: &str) -> Vec<RawMessage> {
    let mut f = Framer::new();
    let mut out = Vec::new();
    for line in text.split_inclusive('\n') {
        out.extend(f.push_line(line));
    }
    out.extend(f.flush());
    out
}

fn parse_one(text: &str) -> Result<Message, ParseError> {
    let msgs = frame(text);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    Message::parse(&msgs[0])
}

fn board(text: &str) -> BoardMessage {
    match parse_one(text) {
        Ok(Message::Board(b)) => *b,
        other => panic!("{other:?}"),
    }
}

fn sq(s: &str) -> Move {
    s.parse().unwrap()
}

const START_ROWS: &str = "\
|   A B C D E F G H\r
| 1 - - - - - - - - 1\r
| 2 - - - - - - - - 2\r
| 3 - - - - - - - - 3\r
| 4 - - - O * - - - 4\r
| 5 - - - * O - - - 5\r
| 6 - - - - - - - - 6\r
| 7 - - - - - - - - 7\r
| 8 - - - - - - - - 8\r
|   A B C D E F G H\r
";

const F5_ROWS: &str = "\
|   A B C D E F G H\r
| 1 - - - - - - - - 1\r
| 2 - - - - - - - - 2\r
| 3 - - - - - - - - 3\r
| 4 - - - O * - - - 4\r
| 5 - - - * * * - - 5\r
| 6 - - - - - - - - 6\r
| 7 - - - - - - - - 7\r
| 8 - - - - - - - - 8\r
|   A B C D E F G H\r
";

fn update_sample() -> String {
    format!(
        "\r\n/os: update .5 8b K?\r\n|  1: f5//3.47\r\n\
         |alice    (1720.0 *) 00:56,1:0//02:00,1:0\r\n\
         |bob      (1720.0 O) 01:00,0:0//02:00,0:0\r\n|\r\n{F5_ROWS}|\r\n|O to move\r\nREADY\r\n"
    )
}

#[test]
fn framing_ready_new_header_bel_and_blank_lines() {
    let msgs = frame(
        "\x07: Enter login (yours, or one you'd like to use).\r\nfoo\r\n\r\n: motd\r\n|line 1\r\n\r\n|line 2\r\nREADY\r\nREADY\r\n\
         : first\r\n: second\r\n|x\rREADY\n/os: tail",
    );
    let headers: Vec<&str> = msgs.iter().map(|m| m.header.as_str()).collect();
    assert_eq!(
        headers,
        [
            ": Enter login (yours, or one you'd like to use).",
            "foo",
            ": motd",
            ": first",
            ": second",
            "/os: tail"
        ]
    );
    assert_eq!(msgs[2].lines, ["line 1", "line 2"]);
    assert_eq!(msgs[4].lines, ["x"]);
    assert_eq!(Message::parse(&msgs[0]), Ok(Message::LoginPrompt));
    // Several lines in one piece of text, lone CRs.
    let mut f = Framer::new();
    let got = f.push_line(": a\r: b\n|c\r\nREADY");
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].lines, ["c"]);
    assert!(!f.pending());
}

#[test]
fn long_lines_damage_their_message() {
    let mut f = Framer::new();
    assert!(f.push_line("/os: update .5 8 K?").is_empty());
    f.push_too_long(10 << 20);
    let got = f.push_line("READY");
    assert_eq!(got.len(), 1);
    assert_eq!(Message::parse(&got[0]), Err(ParseError::Damaged));
    // A too-long line passed as text is caught as well, and swallows its `|` lines.
    let huge = "x".repeat(MAX_LINE + 1);
    assert!(f.push_line(&huge).is_empty());
    assert!(f.push_line("|row").is_empty());
    let got = f.push_line(": next");
    assert_eq!(got.len(), 1);
    assert!(got[0].damaged);
    assert_eq!(f.flush().map(|m| m.header), Some(": next".to_string()));
    // Too many lines.
    f.push_line("/os: join .5 8 K?");
    for _ in 0..=MAX_MESSAGE_LINES {
        f.push_line("|x");
    }
    assert!(f.flush().is_some_and(|m| m.damaged));
}

#[test]
fn server_lines() {
    assert_eq!(
        parse_one(": Enter your password."),
        Ok(Message::PasswordPrompt)
    );
    assert_eq!(parse_one(": + /os 1"), Ok(Message::ServiceUp));
    assert_eq!(parse_one(": - /os 1"), Ok(Message::ServiceDown));
    assert_eq!(
        parse_one(": Sorry, wrong password."),
        Ok(Message::Server("Sorry, wrong password.".into()))
    );
    assert_eq!(
        parse_one("ERR unknown command"),
        Ok(Message::Error("unknown command".into()))
    );
    assert_eq!(
        parse_one("nyanyan: hello there"),
        Ok(Message::Tell {
            from: "nyanyan".into(),
            text: "hello there".into()
        })
    );
    assert_eq!(
        parse_one("/os: .5 A 1720 bob: good game"),
        Ok(Message::Other("/os: .5 A 1720 bob: good game".into()))
    );
    assert_eq!(
        parse_one("/os: error .5 illegal move"),
        Ok(Message::GameError {
            id: Some(".5".parse().unwrap()),
            text: "illegal move".into()
        })
    );
    assert_eq!(
        parse_one("/os: error corrupt move"),
        Ok(Message::GameError {
            id: None,
            text: "corrupt move".into()
        })
    );
    assert_eq!(
        parse_one("/os: fatal-timeout .7 bob"),
        Ok(Message::Timeout {
            id: ".7".parse().unwrap(),
            name: "bob".into(),
            fatal: true
        })
    );
    assert!(matches!(
        parse_one("/os: timeout .7 bob"),
        Ok(Message::Timeout { fatal: false, .. })
    ));
    let r = parse_one(
        "/os: rating_update .21\r\n|ant 1345.6 @ 50 +3.1 -> 1348.7 @ 49\r\n|x 1 @ 1 -1 -> 0 @ 1",
    );
    assert!(matches!(r, Ok(Message::RatingUpdate { ref lines, .. }) if lines.len() == 2));
}

#[test]
fn request_lines() {
    let Ok(Message::Request { added, request }) =
        parse_one("/os: +  .19 1735.1 pamphlet 15:00//02:00        8 U 1345.6 ant")
    else {
        panic!()
    };
    assert!(added);
    assert_eq!(request.id.as_str(), ".19");
    assert_eq!(
        request.challenger,
        Player {
            name: "pamphlet".into(),
            rating: 1735.1
        }
    );
    assert_eq!(request.challenger_clock, GgsClock::new(900.0, 0.0, 120.0));
    assert_eq!(request.game_type, "8".parse().unwrap());
    assert_eq!(request.rated, Rated::Unrated);
    assert_eq!(
        request.challengee.as_ref().map(|p| p.name.as_str()),
        Some("ant")
    );
    assert_eq!(request.challengee_clock, None);
    // Withdrawn, stored, with the challengee's own clock, synchro type.
    let Ok(Message::Request { added, request }) =
        parse_one("/os: -  .20 1735.1 pamphlet 05:00/10/02:00 s8r20 S 1345.6 ant 10:00//01:00")
    else {
        panic!()
    };
    assert!(!added);
    assert_eq!(request.rated, Rated::Stored);
    assert!(request.game_type.synchro);
    assert_eq!(request.game_type.random_discs, Some(20));
    assert_eq!(request.challenger_clock.increment, 10.0);
    assert_eq!(
        request.challengee_clock,
        Some(GgsClock::new(600.0, 0.0, 60.0))
    );
    // To anyone.
    let Ok(Message::Request { request, .. }) = parse_one("/os: + .21 1735.1 pamphlet 05:00 8 R")
    else {
        panic!()
    };
    assert_eq!(request.challengee, None);
    let Ok(Message::Request { request, .. }) =
        parse_one("/os: + .21 1735.1 pamphlet 05:00 8 R 0.0 *")
    else {
        panic!()
    };
    assert_eq!(request.challengee, None);
    // Broken ones.
    assert!(parse_one("/os: + .19 1735.1 pamphlet").is_err());
    assert!(parse_one("/os: + .19 abc pamphlet 15:00 8 U 1 ant").is_err());
    assert!(parse_one("/os: + .19 1735.1 pamphlet 15:00 8 Q 1 ant").is_err());
    assert!(parse_one("/os: + 19 1735.1 pamphlet 15:00 8 U 1 ant").is_err());
    assert!(parse_one("/os: + .19 1735.1 pamphlet 1x:00 8 U 1 ant").is_err());
}

#[test]
fn match_lines() {
    let Ok(Message::MatchStart(info)) = parse_one("/os: + match .5 1720 alice 1720 bob 8b U")
    else {
        panic!()
    };
    assert_eq!(info.id.as_str(), ".5");
    assert_eq!(info.players[0].name, "alice");
    assert_eq!(info.players[1].name, "bob");
    assert_eq!(info.game_type.color_pref, Some(Color::Black));
    assert!(info.has_player("bob") && !info.has_player("carol"));
    let end = |s: &str| match parse_one(s) {
        Ok(Message::MatchEnd { result, .. }) => result,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        end("/os: - match .5 1720 alice 1720 bob 8b U -64.00"),
        GameResult::Score {
            score: -64.0,
            how: ResultHow::Normal
        }
    );
    assert_eq!(
        end("/os: - match .2 1833 nasai 2342 booklet 8 R nasai left"),
        GameResult::Left("nasai".into())
    );
    assert_eq!(
        end("/os: - match .2 1833 nasai 2342 booklet 8 R +12.00:t"),
        GameResult::Score {
            score: 12.0,
            how: ResultHow::Timeout
        }
    );
    assert_eq!(
        end("/os: - match .2 1833 nasai 2342 booklet 8 R 0.00:r"),
        GameResult::Score {
            score: 0.0,
            how: ResultHow::Resigned
        }
    );
    assert_eq!(
        end("/os: - match .2 1 a 2 b 8 R aborted"),
        GameResult::Aborted
    );
    assert_eq!(
        end("/os: - match .2 1 a 2 b 8 R -3:l"),
        GameResult::Score {
            score: -3.0,
            how: ResultHow::Left
        }
    );
    assert_eq!(
        end("/os: - match .2 1 a 2 b 8 R"),
        GameResult::Other(String::new())
    );
    assert_eq!(
        end("/os: - match .2 1 a 2 b 8 R what:x"),
        GameResult::Other("what:x".into())
    );
    assert!(parse_one("/os: + match .5 1720 alice 1720").is_err());
    // The end of one game of a synchro match.
    assert_eq!(
        parse_one("/os: end .2.0 ( pamphlet vs. ant ) +46.00"),
        Ok(Message::GameEnd {
            id: ".2.0".parse().unwrap(),
            players: ["pamphlet".into(), "ant".into()],
            result: GameResult::Score {
                score: 46.0,
                how: ResultHow::Normal
            }
        })
    );
    assert!(parse_one("/os: end .2.0 ( pamphlet ) +46.00").is_err());
    assert!(parse_one("/os: end .2.0 ) pamphlet vs. ant ( +46.00").is_err());
}

#[test]
fn game_ids() {
    let id: GameId = ".5.1".parse().unwrap();
    assert_eq!(id.match_id().as_str(), ".5");
    assert_eq!(id.child(), Some(1));
    let m: GameId = ".5".parse().unwrap();
    assert_eq!(m.match_id(), m);
    assert_eq!(m.child(), None);
    for bad in ["", ".", "5", ".5.", "..5", ".5.0.1", ".a", ".5 "] {
        assert!(bad.parse::<GameId>().is_err(), "{bad}");
    }
}

#[test]
fn clocks() {
    let c: GgsClock = "00:56,1:0//02:00,1:0".parse().unwrap();
    assert_eq!((c.main, c.increment, c.extension), (56.0, 0.0, 120.0));
    assert_eq!(
        c.suffixes,
        ["1:0".to_string(), String::new(), "1:0".to_string()]
    );
    let c: GgsClock = "-00:05,12:0//02:00".parse().unwrap();
    assert_eq!(c.main, -5.0);
    assert_eq!(c.total_left(), 115.0);
    let c: GgsClock = "1.02:03:04,N20/5,N1/".parse().unwrap();
    assert_eq!(c.main, 86_400.0 + 2.0 * 3600.0 + 3.0 * 60.0 + 4.0);
    assert_eq!(c.increment, 5.0);
    assert_eq!(c.suffixes[0], "N20");
    assert_eq!(
        "15:00//02:00".parse::<GgsClock>().unwrap().to_string(),
        "15:00//02:00"
    );
    assert_eq!(
        "05:00/00:10/02:00".parse::<GgsClock>().unwrap().to_string(),
        "05:00/00:10/02:00"
    );
    assert_eq!("2:00".parse::<GgsClock>().unwrap().to_string(), "02:00");
    assert_eq!("1:00:00".parse::<GgsClock>().unwrap().main, 3600.0);
    let control = GgsClock::new(5.0, 0.0, 0.0).to_time_control();
    assert_eq!(control.main, std::time::Duration::from_secs(5));
    // One method each way: a board's spent main time is none, suffixes are dropped.
    let c: GgsClock = "-00:05,12:0/00:02/02:00".parse().unwrap();
    let control = c.to_time_control();
    assert_eq!(control.main, std::time::Duration::ZERO);
    assert_eq!(control.extension, std::time::Duration::from_secs(120));
    let back = GgsClock::from_time_control(&control);
    assert_eq!(back, GgsClock::new(0.0, 2.0, 120.0));
    assert_eq!(back.to_string(), "00:00/00:02/02:00");
    for bad in ["", "a", "1/2/3/4", "--5", "-", "1:2:3:4:5", "5, x"] {
        assert!(bad.parse::<GgsClock>().is_err(), "{bad:?}");
    }
    assert_eq!(format_time(-5.4), "-00:05");
    assert_eq!(format_time(-0.5), "00:00");
    assert_eq!(format_time(3725.0), "01:02:05");
    assert_eq!(format_time(90_061.0), "1.01:01:01");
    assert_eq!(format_time(f64::NAN), "00:00");
    assert_eq!(parse_time("-01:00"), Some(-60.0));
}

#[test]
fn game_types() {
    let t = |s: &str| s.parse::<GameType>();
    let s8r20 = t("s8r20").unwrap();
    assert!(s8r20.synchro && s8r20.size == 8 && s8r20.random_discs == Some(20));
    assert_eq!(s8r20.to_string(), "s8r20");
    assert_eq!(t("8w").unwrap().color_pref, Some(Color::White));
    assert!(t("8k").unwrap().komi && t("k8").unwrap().komi);
    assert!(t("8a").unwrap().anti);
    assert_eq!(t("10").unwrap().size, 10);
    for bad in ["", "s", "8x", "8r", "8bw", "800", "2", "8r1234", "é8"] {
        assert!(t(bad).is_err(), "{bad}");
    }
    assert_eq!(t("8").unwrap().playable(), Ok(()));
    assert_eq!(t("s8r18").unwrap().playable(), Ok(()));
    assert_eq!(t("8b").unwrap().playable(), Ok(()));
    assert_eq!(t("8k").unwrap().playable(), Ok(()));
    for no in ["10", "8a", "s6"] {
        assert!(t(no).unwrap().playable().is_err(), "{no}");
    }
}

#[test]
fn update_sample_from_the_doc() {
    let b = board(&update_sample());
    assert!(!b.join);
    assert_eq!(b.id.as_str(), ".5");
    assert_eq!(b.game_type.color_pref, Some(Color::Black));
    assert_eq!(b.komi, None);
    assert_eq!(
        b.last_move,
        Some(MoveRecord {
            number: 1,
            mv: sq("f5"),
            eval: None,
            seconds: Some(3.47)
        })
    );
    assert_eq!(b.color_of("alice"), Some(Color::Black));
    assert_eq!(b.color_of("bob"), Some(Color::White));
    assert_eq!(b.color_of("carol"), None);
    assert_eq!(b.player(Color::White).clock.main, 60.0);
    assert_eq!(b.player(Color::Black).clock.main, 56.0);
    assert_eq!(b.position, Position::start().play(sq("f5")).unwrap());
    assert!(b.to_move_shown);
    assert_eq!(b.start, None);
    assert!(b.moves.is_empty());
}

#[test]
fn clock_lines_split_at_the_parenthesis() {
    // Names of 8 characters leave no space before `(`; `X` marks black too; white listed first.
    let text = format!(
        "/os: update .5 8 K0.5\r\n|  1: f5/1.5/3.47\r\n\
         |bobbobbo(1720.0 O) 01:00,0:0//02:00,0:0\r\n\
         |alicealx(1720.0 X) 00:56,1:0//02:00,1:0\r\n{F5_ROWS}|O to move\r\nREADY\r\n"
    );
    let b = board(&text);
    assert_eq!(b.color_of("alicealx"), Some(Color::Black));
    assert_eq!(b.player(Color::White).name, "bobbobbo");
    assert_eq!(b.komi, Some(0.5));
    assert_eq!(b.last_move.unwrap().eval, Some(1.5));
}

#[test]
fn joins() {
    // No moves yet: `0 move(s)` and `0: PASS` first.
    let b = board(&format!(
        "/os: join .7 8 K?\r\n|0 move(s)\r\n|  0: PASS\r\n\
         |alice    (1720.0 *) 05:00,0:0//02:00,0:0\r\n\
         |bob      (1720.0 O) 05:00,0:0//02:00,0:0\r\n|\r\n{START_ROWS}|\r\n|* to move\r\nREADY\r\n"
    ));
    assert!(b.join);
    assert_eq!(b.position, Position::start());
    assert_eq!(b.start, Some(Position::start()));
    assert!(b.moves.is_empty());
    assert_eq!(b.game().unwrap().len(), 0);
    // With moves: start block, moves, current block; a synchro child id.
    let b = board(&format!(
        "/os: join .5.0 s8 K?\r\n|1 move(s)\r\n\
         |alice    (1720.0 *) 05:00,0:0//02:00,0:0\r\n\
         |bob      (1720.0 O) 05:00,0:0//02:00,0:0\r\n|\r\n{START_ROWS}|\r\n|* to move\r\n\
         |  1: F5/2/1.00\r\n\
         |alice    (1720.0 *) 04:59,1:0//02:00,0:0\r\n\
         |bob      (1720.0 O) 05:00,0:0//02:00,0:0\r\n|\r\n{F5_ROWS}|\r\n|O to move\r\nREADY\r\n"
    ));
    assert_eq!(b.id.child(), Some(0));
    assert!(b.game_type.synchro);
    assert_eq!(b.start, Some(Position::start()));
    assert_eq!(b.moves.len(), 1);
    assert_eq!(b.moves[0].mv, sq("f5"));
    assert_eq!(b.player(Color::Black).clock.main, 299.0);
    assert_eq!(b.game().unwrap().position(), b.position);
    // An illegal move in the list.
    let bad = format!(
        "/os: join .5 8 K?\r\n|1 move(s)\r\n\
         |alice    (1720.0 *) 05:00//02:00\r\n|bob      (1720.0 O) 05:00//02:00\r\n\
         {START_ROWS}|* to move\r\n|  1: a1//1\r\n{F5_ROWS}|O to move\r\nREADY\r\n"
    );
    assert_eq!(
        parse_one(&bad),
        Err(ParseError::IllegalMove {
            number: 1,
            mv: sq("a1")
        })
    );
    // A count that does not match the list, a gap in the numbers.
    assert!(parse_one(&bad.replace("|1 move(s)", "|2 move(s)")).is_err());
    assert!(parse_one(&bad.replace("|  1: a1//1", "|  2: f5//1")).is_err());
}

#[test]
fn broken_boards_are_errors() {
    let good = update_sample();
    assert!(parse_one(&good).is_ok());
    let seven_rows = good.replace("| 6 - - - - - - - - 6\r\n", "");
    assert!(matches!(parse_one(&seven_rows), Err(ParseError::Board(_))));
    let twice = good.replace("| 6 - - - - - - - - 6", "| 5 - - - - - - - - 5");
    assert!(parse_one(&twice).is_err());
    let short_row = good.replace("| 6 - - - - - - - - 6", "| 6 - - - - - - - 6");
    assert!(parse_one(&short_row).is_err());
    let bad_cell = good.replace("| 6 - - - - - - - - 6", "| 6 - - - ? - - - - 6");
    assert!(parse_one(&bad_cell).is_err());
    let one_clock = good.replace("|bob      (1720.0 O) 01:00,0:0//02:00,0:0\r\n", "");
    assert!(parse_one(&one_clock).is_err());
    let same_colour = good.replace("(1720.0 O)", "(1720.0 *)");
    assert!(parse_one(&same_colour).is_err());
    let bad_side = good.replace("|O to move", "|Q to move");
    assert!(parse_one(&bad_side).is_err());
    let bad_move = good.replace("f5//3.47", "z9//3.47");
    assert!(parse_one(&bad_move).is_err());
    let bad_clock = good.replace("01:00,0:0//02:00,0:0", "soon");
    assert!(parse_one(&bad_clock).is_err());
    assert!(parse_one("/os: update").is_err());
    assert!(parse_one("/os: update .5").is_err());
    assert!(parse_one("/os: update .5 10 K?").is_err());
    assert!(parse_one("/os: update .5 8 Kx").is_err());
    assert!(parse_one("/os: update .5 8 K?\r\n|  1: f5").is_err());
    // Truncated anywhere: an error, never a panic, and never a wrong board.
    let lines: Vec<&str> = good.split_inclusive('\n').collect();
    for n in 0..lines.len() {
        let cut: String = lines[..n].concat();
        for m in frame(&cut) {
            if let Ok(Message::Board(b)) = Message::parse(&m) {
                assert_eq!(b.position, Position::start().play(sq("f5")).unwrap(), "{n}");
            }
        }
    }
    // Without the `to move` line the side is inferred.
    let no_side = good.replace("|O to move\r\n", "");
    let b = board(&no_side);
    assert!(!b.to_move_shown);
    assert_eq!(b.position.to_move, Color::White);
}

#[test]
fn junk_is_other_or_an_error() {
    let junk = "\u{0}\u{1}\u{fffd}\u{fffd}ÿþ garbage |||| READY? ::: /os:";
    for m in frame(junk) {
        let _ = Message::parse(&m);
    }
    assert!(matches!(
        parse_one("/os: whatever 1 2 3"),
        Ok(Message::Other(_))
    ));
    assert!(matches!(parse_one("hello world"), Ok(Message::Other(_))));
    assert!(matches!(parse_one("|orphan"), Ok(Message::Other(_))));
}

#[test]
fn outgoing_lines() {
    use outgoing::*;
    let id: GameId = ".5.1".parse().unwrap();
    assert_eq!(login("outflank"), "outflank");
    assert_eq!(password("secret"), "secret");
    assert_eq!(setup()[0], "vt100 -");
    assert!(setup().contains(&"notify + /os".to_string()));
    assert_eq!(
        service_setup(2),
        ["tell /os trust +", "tell /os client -", "tell /os open 2"]
    );
    assert_eq!(accept(&id), "tell /os accept .5.1");
    assert_eq!(decline(&id), "tell /os decline .5.1");
    assert_eq!(
        play(&id, sq("F5"), Some(3.0), 1.271),
        "tell /os play .5.1 f5/3.00/1.27"
    );
    assert_eq!(
        play(&id, Move::Pass, None, -1.0),
        "tell /os play .5.1 pa//0.00"
    );
    let t: GameType = "s8r20".parse().unwrap();
    let c: GgsClock = "05:00//02:00".parse().unwrap();
    assert_eq!(
        ask(&t, &c, Some("ant")),
        "tell /os ask s8r20 05:00//02:00 ant"
    );
    assert_eq!(ask(&t, &c, None), "tell /os ask s8r20 05:00//02:00");
    assert_eq!(
        ask_stored(&".42590".parse().unwrap()),
        "tell /os ask .42590"
    );
    assert_eq!(keep_alive(), "tell /os continue");
    assert_eq!(
        tell("ant", "I only play on an 8x8 board"),
        "tell ant I only play on an 8x8 board"
    );
    assert_eq!(open(0), "tell /os open 0");
    assert_eq!(quit(), "quit");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(text in "(?s).{0,400}") {
        let mut f = Framer::new();
        for m in f.push_line(&text).into_iter().chain(f.flush()) {
            let _ = Message::parse(&m);
        }
    }

    #[test]
    fn shuffled_board_lines_never_panic(
        keep in proptest::collection::vec(any::<bool>(), 20),
        noise in "[ |*OX.0-9:/()A-H-]{0,30}",
    ) {
        let sample = update_sample();
        let mut text = String::new();
        for (i, line) in sample.split_inclusive('\n').enumerate() {
            if keep.get(i).copied().unwrap_or(true) {
                text.push_str(line);
            } else {
                text.push_str(&noise);
                text.push_str("\r\n");
            }
        }
        for m in frame(&text) {
            let _ = Message::parse(&m);
        }
    }
}

#[test]
fn binary_data_is_not_server_text() {
    assert!(!not_text(
        ": Enter login (yours, or one you'd like to use)."
    ));
    assert!(!not_text("\x1b[1mWelcome\x1b[0m\x07\tto GGS\r"));
    assert!(!not_text("Caf\u{e9} \u{fffd}"));
    assert!(not_text("\0\0\x01junk"));
    assert!(not_text("SSH\x7f"));
}
