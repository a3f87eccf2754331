//! The players' clocks through the real binary (docs/serve.md, Clocks): a clock that runs out
//! ends the game on time for every connection without anyone sending anything, the increment,
//! undo, and a restart. Tolerances are wide: the machine may be loaded.

use super::*;

/// The state's clock of `color`, in seconds.
fn clock(state: &Value, color: &str) -> f64 {
    state["clocks"][color]
        .as_f64()
        .unwrap_or_else(|| panic!("a number on {color}'s clock: {state}"))
}

/// Waits (sending nothing) for the state whose result says the game ended.
fn final_state(ws: &mut Socket) -> Value {
    loop {
        let s = next_of(ws, "state");
        if !s["result"].is_null() {
            return s;
        }
    }
}

#[test]
fn an_online_clock_runs_out_and_every_connection_is_told() {
    let server = start(&temp_db("clock-online"), &[]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "online", "color": "black", "time": 4, "increment": 3}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let (mut black, s) = hello(&server, &id, created["token"].as_str());
    assert_eq!(clock(&s, "black"), 4.0);
    assert!(
        s["clocks"]["running"].is_null(),
        "no clock runs before the second player: {s}"
    );
    let joined = post(&server, &format!("/api/games/{id}/join"), json!({}));
    let s = next_of(&mut black, "state");
    assert_eq!(s["clocks"]["running"], "black", "{s}");
    let (mut white, _) = hello(&server, &id, joined["token"].as_str());
    let (mut watcher, _) = hello(&server, &id, None);
    send(&mut black, json!({"type": "move", "move": "f5"}));
    let s = next_of(&mut black, "state");
    let moved = Instant::now();
    assert_eq!(s["ply"], 1);
    assert_eq!(s["clocks"]["running"], "white", "{s}");
    assert_eq!(clock(&s, "white"), 4.0);
    let b = clock(&s, "black");
    assert!(
        b > 4.0 && b <= 7.0,
        "4 s less the turn, plus the 3 s increment: {s}"
    );
    // White lets its clock run out; nobody sends anything.
    for (name, ws) in [
        ("black", &mut black),
        ("white", &mut white),
        ("watcher", &mut watcher),
    ] {
        let end = final_state(ws);
        assert_eq!(end["result"]["reason"], "time", "{name}: {end}");
        assert_eq!(end["result"]["winner"], "black", "{name}: {end}");
        assert_eq!(
            end["result"]["score"], "63-1",
            "{name}: the empties to the winner: {end}"
        );
        assert!(end["clocks"]["running"].is_null(), "{name}: {end}");
        assert_eq!(clock(&end, "white"), 0.0, "{name}: {end}");
        assert!(end["legal"].as_array().unwrap().is_empty(), "{end}");
    }
    let waited = moved.elapsed();
    assert!(
        waited >= Duration::from_secs(3),
        "white had 4 s, not less: {waited:?}"
    );
    send(&mut white, json!({"type": "move", "move": "d6"}));
    let e = next_of(&mut white, "error");
    assert!(e["message"].as_str().unwrap().contains("over"), "{e}");
    let (status, _, ggf) = http(&server, "GET", &format!("/api/games/{id}/ggf"), None);
    assert_eq!(status, 200);
    assert!(ggf.contains("RE[+62:t]"), "the result in the GGF: {ggf}");
    let game = outflank::notation::ggf::parse_ggf(&ggf).expect("a GGF game");
    for color in [outflank::board::Color::Black, outflank::board::Color::White] {
        let clock = game.clock(color).expect("the clock in the GGF");
        assert_eq!(
            (clock.main, clock.increment),
            (Duration::from_secs(4), Duration::from_secs(3)),
            "{ggf}"
        );
    }
}

#[test]
fn a_local_clock_runs_out_on_the_side_to_move() {
    let server = start(&temp_db("clock-local"), &[]);
    let created = post(&server, "/api/games", json!({"mode": "local", "time": 2}));
    let id = created["id"].as_str().unwrap().to_string();
    let (mut seat, s) = hello(&server, &id, created["token"].as_str());
    assert_eq!(s["clocks"]["running"], "black", "{s}");
    let (mut watcher, _) = hello(&server, &id, None);
    for ws in [&mut seat, &mut watcher] {
        let end = final_state(ws);
        assert_eq!(end["result"]["reason"], "time", "{end}");
        assert_eq!(end["result"]["winner"], "white", "{end}");
        assert_eq!(end["result"]["score"], "2-62", "{end}");
        assert_eq!(clock(&end, "black"), 0.0, "{end}");
        assert_eq!(clock(&end, "white"), 2.0, "{end}");
    }
    send(&mut seat, json!({"type": "undo"}));
    next_of(&mut seat, "error");
    let list: Value = serde_json::from_str(&http(&server, "GET", "/api/games", None).2).unwrap();
    assert_eq!(list[0]["id"], id.as_str(), "finished: listed");
}

#[test]
fn undo_keeps_the_time_spent() {
    let server = start(&temp_db("clock-undo"), &[]);
    let created = post(&server, "/api/games", json!({"mode": "local", "time": 60}));
    let id = created["id"].as_str().unwrap().to_string();
    let (mut ws, _) = hello(&server, &id, created["token"].as_str());
    std::thread::sleep(Duration::from_millis(1200));
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    let s = next_of(&mut ws, "state");
    let black = clock(&s, "black");
    assert!(black <= 59.0 && black > 40.0, "{s}");
    std::thread::sleep(Duration::from_millis(1200));
    send(&mut ws, json!({"type": "undo"}));
    let s = next_of(&mut ws, "state");
    assert_eq!(s["ply"], 0);
    assert_eq!(
        s["clocks"]["running"], "black",
        "the turn starts again: {s}"
    );
    assert!(
        clock(&s, "black") <= black,
        "no time given back to black: {s}"
    );
    let white = clock(&s, "white");
    assert!(
        white <= 59.0 && white > 40.0,
        "white's turn was charged: {s}"
    );
}

/// A server stopped with SIGTERM (as Ctrl-C or a service manager stops it).
fn terminate(mut server: Server) {
    let pid = server.child.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    let t = Instant::now();
    while server.child.try_wait().unwrap().is_none() {
        assert!(t.elapsed() < Duration::from_secs(30), "the server stops");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn clocks_survive_a_restart() {
    let db = temp_db("clock-restart");
    let server = start(&db, &[]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "local", "time": 60, "increment": 0}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap().to_string();
    let (mut ws, _) = hello(&server, &id, Some(&token));
    std::thread::sleep(Duration::from_millis(1500));
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    next_of(&mut ws, "state");
    std::thread::sleep(Duration::from_millis(1500));
    send(&mut ws, json!({"type": "move", "move": "d6"}));
    let before = next_of(&mut ws, "state");
    let (b, w) = (clock(&before, "black"), clock(&before, "white"));
    assert!(b < 59.0 && w < 59.0, "both spent time: {before}");
    // Killed without warning: each clock as at the last change.
    drop(ws);
    drop(server);
    let server = start(&db, &[]);
    let (ws, after) = hello(&server, &id, Some(&token));
    assert_eq!(after["moves"], json!(["f5", "d6"]));
    assert_eq!(after["clocks"]["running"], "black");
    assert!(
        (clock(&after, "black") - b).abs() < 1.5,
        "black's time kept: {before} then {after}"
    );
    assert!(
        (clock(&after, "white") - w).abs() < 0.2,
        "white's time kept: {before} then {after}"
    );
    // Stopped with SIGTERM two seconds into black's turn: those seconds are kept too.
    std::thread::sleep(Duration::from_secs(2));
    drop(ws);
    terminate(server);
    let server = start(&db, &[]);
    let (_ws, again) = hello(&server, &id, Some(&token));
    let spent = clock(&after, "black") - clock(&again, "black");
    assert!(
        (1.5..6.0).contains(&spent),
        "the running turn's time written at the stop: {after} then {again}"
    );
    assert!((clock(&again, "white") - w).abs() < 0.2, "{again}");
    // Killed without warning seven seconds into black's turn: the running clocks are written
    // every five seconds, so at least five of those seconds are kept.
    std::thread::sleep(Duration::from_secs(7));
    drop(server);
    let server = start(&db, &[]);
    let (_ws, last) = hello(&server, &id, Some(&token));
    let spent = clock(&again, "black") - clock(&last, "black");
    assert!(
        (4.5..9.0).contains(&spent),
        "the running turn's time written while it ran: {again} then {last}"
    );
}

#[test]
fn bad_clocks_are_refused() {
    let server = start(&temp_db("clock-bad"), &[]);
    for body in [
        json!({"mode": "online", "time": -1}),
        json!({"mode": "local", "time": 100000}),
        json!({"mode": "local", "time": 60, "increment": 4000}),
        json!({"mode": "local", "time": "soon"}),
    ] {
        let (status, _, text) = http(&server, "POST", "/api/games", Some(&body.to_string()));
        assert_eq!(status, 400, "{body}: {text}");
        assert!(text.contains("error"), "{text}");
    }
    let untimed = post(&server, "/api/games", json!({"mode": "online", "time": 0}));
    let (_, s) = hello(&server, untimed["id"].as_str().unwrap(), None);
    assert!(s["clocks"].is_null(), "time 0: no clock: {s}");
}

#[test]
fn an_engine_at_a_level_has_no_clock_and_the_person_has_one() {
    let db = temp_db("clock-level");
    let server = start(&db, &["--book", "off"]);
    let created = post(
        &server,
        "/api/games",
        json!({"mode": "engine", "color": "black", "level": 1, "time": 60, "increment": 2}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["token"].as_str().unwrap().to_string();
    let (mut ws, s) = hello(&server, &id, Some(&token));
    assert_eq!(s["players"]["white"], "Outflank level 1", "{s}");
    assert!(
        s["clocks"]["white"].is_null(),
        "the engine has no clock: {s}"
    );
    assert_eq!(s["clocks"]["running"], "black", "{s}");
    std::thread::sleep(Duration::from_millis(1200));
    send(&mut ws, json!({"type": "move", "move": "f5"}));
    // The engine's reply: no clock runs while it thinks, and the person's turn starts again.
    let replied = loop {
        let s = next_of(&mut ws, "state");
        if s["ply"] == 2 {
            break s;
        }
        assert!(
            s["clocks"]["running"].is_null(),
            "no clock runs for the engine: {s}"
        );
    };
    assert!(replied["clocks"]["white"].is_null(), "{replied}");
    assert_eq!(replied["clocks"]["running"], "black", "{replied}");
    let black = clock(&replied, "black");
    assert!(
        (55.0..=60.9).contains(&black),
        "60 s, about one spent, 2 s added: {replied}"
    );
    // A restart keeps the engine at its level, without a clock.
    drop(ws);
    drop(server);
    let server = start(&db, &["--book", "off"]);
    let (mut ws, s) = hello(&server, &id, Some(&token));
    assert_eq!(s["players"]["white"], "Outflank level 1", "{s}");
    assert!(s["clocks"]["white"].is_null(), "{s}");
    assert_eq!(s["clocks"]["running"], "black", "{s}");
    let legal = legal(&s);
    send(&mut ws, json!({"type": "move", "move": legal[0]}));
    let s = loop {
        let s = next_of(&mut ws, "state");
        if s["ply"] == 4 {
            break s;
        }
    };
    assert_eq!(s["clocks"]["running"], "black", "{s}");
}
