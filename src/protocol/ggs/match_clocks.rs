//! The clock each of the client's matches was played with, for the games file's `TI[...]`.
//!
//! A board message shows the time *left*: the `join` of a resumed (stored) game shows the
//! clocks at the resumption, not the game's. The clock of a match is the one of the request
//! it started from: a request the client accepted, or its own (the server shows the client
//! its own requests too, the asks for a stored game included). `+ match` does not name its
//! request, so a match is paired with the latest request between the same two players of
//! the same type. Pure bookkeeping, no I/O.

use super::message::{GameId, GgsClock, MatchInfo, Request};
use std::collections::{BTreeMap, VecDeque};

/// The most requests remembered while their match has not started.
const PENDING: usize = 32;

/// Requests waiting for their match, and the clocks of the matches under way.
#[derive(Debug, Default)]
pub struct MatchClocks {
    /// The opponent, the type as written, and the client's clock.
    pending: VecDeque<(String, String, GgsClock)>,
    matches: BTreeMap<GameId, GgsClock>,
}

impl MatchClocks {
    /// Nothing known.
    pub fn new() -> MatchClocks {
        MatchClocks::default()
    }

    /// A request that may start a match of `me`'s: one `me` made, or one it accepts.
    pub fn requested(&mut self, r: &Request, me: &str) {
        let (opponent, clock) = if r.challenger.name == me {
            let Some(c) = &r.challengee else { return };
            (c.name.clone(), r.challenger_clock.clone())
        } else if r.challengee.as_ref().is_some_and(|c| c.name == me) {
            let clock = r.challengee_clock.as_ref().unwrap_or(&r.challenger_clock);
            (r.challenger.name.clone(), clock.clone())
        } else {
            return;
        };
        if self.pending.len() >= PENDING {
            self.pending.pop_front();
        }
        self.pending
            .push_back((opponent, r.game_type.to_string(), clock));
    }

    /// `info`, a match of `me`'s, started: it takes the clock of its request, if one was seen.
    pub fn started(&mut self, info: &MatchInfo, me: &str) {
        let Some(opponent) = info.players.iter().find(|p| p.name != me) else {
            return;
        };
        let kind = info.game_type.to_string();
        let found = self
            .pending
            .iter()
            .rposition(|(o, t, _)| *o == opponent.name && *t == kind);
        if let Some((_, _, clock)) = found.and_then(|i| self.pending.remove(i)) {
            self.matches.insert(info.id.clone(), clock);
        }
    }

    /// The clock match `id` started with, if its request was seen.
    pub fn of(&self, id: &GameId) -> Option<&GgsClock> {
        self.matches.get(id)
    }

    /// Match `id` ended (or was adjourned): it is forgotten.
    pub fn ended(&mut self, id: &GameId) {
        self.matches.remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::super::message::Message;
    use super::*;

    fn request(line: &str) -> Request {
        let raw = super::super::message::Framer::new()
            .push_line(&format!("{line}\nREADY"))
            .remove(0);
        match Message::parse(&raw).unwrap() {
            Message::Request { request, .. } => request,
            m => panic!("{m:?}"),
        }
    }

    fn start(line: &str) -> MatchInfo {
        let raw = super::super::message::Framer::new()
            .push_line(&format!("{line}\nREADY"))
            .remove(0);
        match Message::parse(&raw).unwrap() {
            Message::MatchStart(info) => info,
            m => panic!("{m:?}"),
        }
    }

    #[test]
    fn a_match_takes_the_clock_of_its_request() {
        let mut c = MatchClocks::new();
        // Someone else's request is not remembered.
        c.requested(
            &request("/os: +  .7 1700.0 ann 01:00//00:10        8 U 1500.0 bob"),
            "me",
        );
        // A stored game the client asks to resume: its clock is the game's, not the time
        // left at the adjournment.
        c.requested(
            &request("/os: +  .19 1345.6 me 02:00//00:30        8 S 1735.1 sparring"),
            "me",
        );
        c.requested(
            &request("/os: +  .20 1735.1 sparring 05:00//01:00        s8 U 1345.6 me"),
            "me",
        );
        let first = start("/os: + match .21 1346 me 1735 sparring 8 S");
        c.started(&first, "me");
        assert_eq!(c.of(&first.id), Some(&"02:00//00:30".parse().unwrap()));
        let second = start("/os: + match .22 1735 sparring 1346 me s8 U");
        c.started(&second, "me");
        assert_eq!(c.of(&second.id), Some(&"05:00//01:00".parse().unwrap()));
        c.ended(&first.id);
        assert_eq!(c.of(&first.id), None);
        // A match whose request was not seen has no clock.
        let other = start("/os: + match .23 1735 sparring 1346 me 8 U");
        c.started(&other, "me");
        assert_eq!(c.of(&other.id), None);
    }

    #[test]
    fn the_challengee_has_its_own_clock_when_the_request_gives_one() {
        let mut c = MatchClocks::new();
        c.requested(
            &request("/os: +  .5 1700.0 ann 01:00//00:10        8 U 1500.0 me 02:00//00:20"),
            "me",
        );
        let m = start("/os: + match .6 1700 ann 1500 me 8 U");
        c.started(&m, "me");
        assert_eq!(c.of(&m.id), Some(&"02:00//00:20".parse().unwrap()));
    }
}
