//! The controller's unit tests: a session and a controller built in-process.
use super::*;
use crate::search::EngineConfig;
use std::io;

fn sq(s: &str) -> Move {
    Move::Play(s.parse().unwrap())
}

/// A game that reaches a position where the side to move must pass, and the position.
fn game_before_a_pass() -> (Game, Position) {
    let mut rng = Rng::new(7);
    loop {
        let mut g = Game::default();
        while !g.is_over() {
            let pos = g.position();
            if pos.board.must_pass() {
                return (g, pos);
            }
            let moves = pos.legal_moves();
            let mv = moves[rng.below(moves.len() as u64) as usize];
            g.play(mv).unwrap();
        }
    }
}

#[test]
fn implicit_passes_are_undone_with_their_move() {
    let (g, pos) = game_before_a_pass();
    let other = pos.to_move.opposite();
    let mv = pos.play(Move::Pass).unwrap().legal_moves()[0];
    let mut c = Controller::new(Options::default());
    c.set_game(g.clone());
    assert_eq!(
        c.mover_of(mv),
        other,
        "a square for the side after the pass"
    );
    c.play_as(other, mv, Mover::Other).unwrap();
    assert_eq!(c.game().len(), g.len() + 2, "the pass, then the move");
    assert!(c.undo());
    assert_eq!(c.game(), &g, "undo takes the move and its implicit pass");
    // An explicit pass is a move of its own.
    c.play(Move::Pass, Mover::Other).unwrap();
    c.play(mv, Mover::Other).unwrap();
    assert!(c.undo());
    assert_eq!(c.game().len(), g.len() + 1);
}

/// Waits for the session's running search to finish and returns it.
fn wait<T>(session: &mut Session<T>, events: &std::sync::mpsc::Receiver<Event>) -> Finished<T> {
    loop {
        let event = events
            .recv_timeout(Duration::from_secs(60))
            .expect("the search reports");
        if let Some(done) = session.finished(event) {
            return done;
        }
    }
}

#[test]
fn choose_and_searched_without_a_process() {
    let config = EngineConfig {
        threads: 1,
        hash_mb: 4,
    };
    let mut out = Vec::new();
    let (mut session, events) = Session::detached(&mut out, config).unwrap();
    let mut options = Options::default();
    options.plan.depth = Some(4);
    options.book = false;
    let mut c = Controller::new(options);
    c.play(sq("f5"), Mover::Other).unwrap();
    let Ok(Answer::Searching) = c.choose(Color::White, &mut session, "second") else {
        panic!("a search for white's second move");
    };
    assert!(session.busy());
    assert_eq!(session.searching(), Some(&"second"));
    let (tag, Searched::Move(choice)) = c.searched(wait(&mut session, &events)) else {
        panic!("a choice");
    };
    assert_eq!(
        tag, "second",
        "the request's tag comes back with its result"
    );
    assert!(!session.busy());
    assert_eq!(choice.color, Color::White);
    assert!(c.position().legal_moves().contains(&choice.mv));
    assert!(matches!(choice.source, Source::Search(ref i) if i.depth == 4));
    c.commit(&choice).unwrap();
    assert_eq!(c.game().len(), 2);
    assert_eq!(
        c.choose(Color::White, &mut session, "wrong side")
            .unwrap_err(),
        Refusal::NotToMove(Color::Black)
    );
    // A budget of the request's own: a depth-2 plan instead of the options' depth 4.
    let plan = MovePlan {
        depth: Some(2),
        ..MovePlan::default()
    };
    c.choose_within(Color::Black, MoveBudget::Plan(plan), &mut session, "plan")
        .unwrap();
    let done = wait(&mut session, &events);
    assert_eq!(done.info.depth, 2);
    // A hint searches at the analysis level.
    assert_eq!(c.hint(3, &mut session, "hint"), Hints::Searching);
    let (tag, Searched::Analysis(info)) = c.searched(wait(&mut session, &events)) else {
        panic!("an analysis");
    };
    assert_eq!((tag, info.lines.len()), ("hint", 3));
    // A move request's result for a game set anew since is stale.
    c.choose(Color::Black, &mut session, "before").unwrap();
    c.set_game(Game::default());
    let (_, searched) = c.searched(wait(&mut session, &events));
    assert!(matches!(searched, Searched::Stale), "{searched:?}");
    // So is one for a position the game has left (a server's board came meanwhile).
    c.choose(Color::Black, &mut session, "left").unwrap();
    c.play(sq("f5"), Mover::Other).unwrap();
    let (_, searched) = c.searched(wait(&mut session, &events));
    assert!(matches!(searched, Searched::Stale), "{searched:?}");
    c.set_game(Game::default());
    let mut options = c.options().clone();
    options.book = true;
    *c.options_mut() = options;
    let Ok(Answer::Now(choice)) = c.choose(Color::Black, &mut session, "book") else {
        panic!("a book move at the start");
    };
    assert!(matches!(choice.source, Source::Book(_)));
    drop(session);
    assert!(out.is_empty(), "the controller writes nothing itself");
}

#[test]
fn a_search_replaced_while_running_is_stopped() {
    let config = EngineConfig {
        threads: 1,
        hash_mb: 4,
    };
    let (mut session, events) = Session::detached(io::sink(), config).unwrap();
    let options = Options {
        book: false,
        ..Options::default()
    };
    let mut c = Controller::new(options);
    c.play(sq("f5"), Mover::Other).unwrap();
    let infinite = MoveBudget::Infinite;
    c.choose_within(Color::White, infinite, &mut session, 1)
        .unwrap();
    // The first search runs with no limit; the second replaces it.
    std::thread::sleep(Duration::from_millis(50));
    let plan = MoveBudget::Plan(MovePlan {
        depth: Some(3),
        ..MovePlan::default()
    });
    c.choose_within(Color::White, plan, &mut session, 2)
        .unwrap();
    assert_eq!(session.searching(), Some(&2));
    // Both searches report back (the first, stopped, at once); only the second's result
    // is the session's, and the wait would time out if the first ran on.
    let mut seen = Vec::new();
    let done = loop {
        let event = events
            .recv_timeout(Duration::from_secs(60))
            .expect("the stopped search returns");
        if let Event::Done { info, .. } = &event {
            seen.push((info.stopped, info.depth));
        }
        if let Some(done) = session.finished(event) {
            break done;
        }
    };
    assert_eq!(done.job.tag, 2);
    assert_eq!(done.info.depth, 3);
    assert_eq!(seen.len(), 2, "the first search returned too: {seen:?}");
    assert!(seen[0].0, "the first search was stopped: {seen:?}");
    assert!(!session.busy());
}

#[test]
fn time_spent_waiting_comes_off_the_clock() {
    let mut c = Controller::new(Options::default());
    c.spend_since(Color::Black, Instant::now());
    assert_eq!(
        c.clock().left(Color::Black),
        None,
        "no clock: nothing to spend"
    );
    c.clock_mut().set_left(Color::Black, 10.0, 0);
    let since = Instant::now() - Duration::from_secs(3);
    c.spend_since(Color::Black, since);
    let left = c.clock().left(Color::Black).unwrap();
    assert!((6.5..=7.0).contains(&left), "{left}");
    c.spend_since(Color::Black, Instant::now() - Duration::from_secs(60));
    assert_eq!(c.clock().left(Color::Black), Some(0.01));
}

#[test]
fn take_back_keeps_the_given_moves() {
    let mut g = Game::default();
    g.play(sq("f5")).unwrap();
    let mut c = Controller::new(Options::default());
    c.set_game(g);
    assert!(!c.take_back(|_| true));
    c.play(sq("d6"), Mover::Other).unwrap();
    c.play(sq("c3"), Mover::Engine).unwrap();
    assert!(c.take_back(|color| color == Color::White));
    assert_eq!(c.game().len(), 1);
    assert_eq!(c.movers().collect::<Vec<_>>(), vec![Mover::Given]);
}

#[test]
fn take_back_goes_to_the_seats_last_move_whoever_chose_it() {
    let mut c = Controller::new(Options::default());
    // Black is the person's seat: f5 typed, c4 played for them by the engine (`go`).
    for (m, mover) in [
        ("f5", Mover::Other),
        ("d6", Mover::Engine),
        ("c4", Mover::Engine),
        ("g5", Mover::Engine),
    ] {
        c.play(sq(m), mover).unwrap();
    }
    let black = |color| color == Color::Black;
    assert!(c.take_back(black));
    assert_eq!(c.game().len(), 2, "back to before c4, black to move");
    assert!(c.take_back(black));
    assert_eq!(c.game().len(), 0);
    assert!(!c.take_back(black));
    // Two people: one ply at a time.
    c.play(sq("f5"), Mover::Other).unwrap();
    c.play(sq("d6"), Mover::Other).unwrap();
    assert!(c.take_back(|_| true));
    assert_eq!(c.game().len(), 1);
    // Nobody's seat (the engine plays both sides): nothing to take back.
    assert!(!c.take_back(|_| false));
    assert_eq!(c.game().len(), 1);
}
