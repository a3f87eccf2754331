//! The client's matches: the service set up once logged in, the match it asks for, the
//! requests it accepts or declines, and a match's end (played out, or adjourned).

use super::super::message::{GameId, GameResult, MatchInfo, Rated, Request, outgoing};
use super::super::outcome::{mine_text, seen_from};
use super::connection::Login;
use super::{Ggs, Session};
use crate::controller::Flow;
use std::io;

impl Ggs {
    /// Matches playing or accepted, against `open`.
    pub(super) fn busy_matches(&self) -> usize {
        self.matches.len() + self.accepted.len()
    }

    pub(super) fn done_playing(&self) -> bool {
        self.config.matches.is_some_and(|n| self.ended >= n)
    }

    /// Logged in and /os up: set the service up, resume adjourned games, ask for a match.
    pub(super) fn service_up(&mut self) {
        for line in outgoing::service_setup(self.config.open) {
            self.send(&line);
        }
        // The server resumes a stored game as a new match: asked once, each is forgotten.
        let adjourned = std::mem::take(&mut self.adjourned);
        for id in &adjourned {
            self.send(&outgoing::ask_stored(id));
        }
        if adjourned.is_empty() {
            self.ask();
        }
    }

    /// Asks for the configured match, when there is room and matches to play.
    pub(super) fn ask(&mut self) {
        let Some(ask) = self.config.ask.clone() else {
            return;
        };
        let remaining = self
            .config
            .matches
            .map_or(usize::MAX, |n| n.saturating_sub(self.ended));
        if self.login == Login::In
            && self.busy_matches() < self.config.open as usize
            && self.busy_matches() < remaining
        {
            self.send(&outgoing::ask(
                &ask.game_type,
                &ask.clock,
                ask.user.as_deref(),
            ));
        }
    }

    /// A request offered or withdrawn.
    pub(super) fn request(&mut self, added: bool, r: &Request) {
        if !added {
            self.accepted.remove(&r.id);
            return;
        }
        let me = &self.config.user;
        let for_me = r.challengee.as_ref().is_some_and(|p| &p.name == me);
        if r.challenger.name == *me {
            // The client's own request (an ask, or one to resume a stored game).
            self.clocks.requested(r, me);
            return;
        }
        if !for_me {
            return;
        }
        let verdict = if self.done_playing() {
            Err("I am logging off".to_string())
        } else if r.rated != Rated::Stored && self.busy_matches() >= self.config.open as usize {
            Err(format!(
                "I play {} match{} at a time",
                self.config.open,
                if self.config.open == 1 { "" } else { "es" }
            ))
        } else {
            self.config.accept.check(r)
        };
        match verdict {
            Ok(()) => {
                log::info!("GGS: accepting {} from {}", r.id, r.challenger.name);
                self.clocks.requested(r, &self.config.user);
                self.accepted.insert(r.id.clone());
                self.send(&outgoing::accept(&r.id));
            }
            Err(why) => {
                log::info!("GGS: declining {} from {}: {why}", r.id, r.challenger.name);
                self.send(&outgoing::tell(&r.challenger.name, &why));
                self.send(&outgoing::decline(&r.id));
            }
        }
    }

    /// A match of the client's ended.
    pub(super) fn match_over(
        &mut self,
        info: &MatchInfo,
        result: &GameResult,
        session: &mut Session,
    ) -> io::Result<Flow> {
        let ids: Vec<GameId> = self
            .games
            .keys()
            .filter(|g| g.match_id() == info.id)
            .cloned()
            .collect();
        self.clocks.ended(&info.id);
        if let GameResult::Left(who) = result {
            // Adjourned: the games are stored and resume later.
            session.line(&format!("match {} adjourned ({who} left)", info.id))?;
            for id in &ids {
                self.forget(id, session);
            }
            self.matches.remove(&info.id);
            if who == &self.config.user {
                self.adjourned.insert(info.id.clone());
            }
            return Ok(Flow::Continue);
        }
        let first = &info.players[0].name;
        for id in &ids {
            self.game_over(id, result, first, session)?;
        }
        self.matches.remove(&info.id);
        self.ended += 1;
        let mine = seen_from(result, *first != self.config.user);
        session.line(&format!("match {} over: {}", info.id, mine_text(&mine)))?;
        if self.done_playing() && self.matches.is_empty() {
            return Ok(self.quit());
        }
        self.ask();
        Ok(Flow::Continue)
    }

    /// Drops a game without a result.
    pub(super) fn forget(&mut self, id: &GameId, session: &mut Session) {
        self.games.remove(id);
        self.waiting.retain(|w| w != id);
        if session.searching() == Some(id) {
            session.stop();
        }
    }
}
