//! The client's games: a board from the server brought into its game's controller, the
//! queue of games waiting for a search (one search at a time serves them all), the moves
//! sent, the errors the server answers with, and a game's end.

use super::super::budget::plan_time;
use super::super::message::{BoardMessage, GameId, GameResult, outgoing};
use super::super::outcome::{margin_text, mine_text, seen_from};
use super::game::{GameState, ggf_of, sync_game};
use super::{Ggs, MAX_ERRORS, Session};
use crate::board::Color;
use crate::controller::{Answer, Choice, Controller};
use std::collections::BTreeMap;
use std::io;
use std::time::Instant;

impl Ggs {
    /// A `join` or an `update`.
    pub(super) fn board(&mut self, b: BoardMessage, session: &mut Session) -> io::Result<()> {
        let Some(me) = b.color_of(&self.config.user) else {
            log::debug!("GGS: board of {}, which the client does not play", b.id);
            return Ok(());
        };
        if !self.games.contains_key(&b.id) {
            if !b.join {
                log::warn!(
                    "GGS: an update for {}, a game the client does not follow",
                    b.id
                );
                return Ok(());
            }
            if !self.matches.contains(&b.id.match_id()) {
                log::warn!("GGS: a join for {}, whose match did not start", b.id);
                return Ok(());
            }
            let black = b.player(Color::Black);
            let white = b.player(Color::White);
            // The game's clock: its request's, else the board's when the game starts now
            // (a resumed game's board shows the time left).
            let start_clock = match self.clocks.of(&b.id.match_id()) {
                Some(c) => Some(c.clone()),
                None => {
                    (b.moves.is_empty() && b.start.is_some()).then(|| b.player(me).clock.clone())
                }
            };
            let state = GameState {
                ctl: Controller::new(self.config.options.clone()),
                me,
                plays: me,
                komi: None,
                bidding: false,
                names: [black.name.clone(), white.name.clone()],
                ratings: [black.rating, white.rating],
                game_type: b.game_type.clone(),
                start_clock,
                notes: BTreeMap::new(),
                turn: None,
                sent_for: None,
                errors: 0,
            };
            self.games.insert(b.id.clone(), state);
        }
        let g = self.games.get_mut(&b.id).expect("inserted");
        if b.join {
            // A komi game's fresh join (the komi set) may give the client the other colour.
            g.me = me;
        }
        sync_game(g, &b);
        let pos = g.ctl.position();
        g.komi = b.komi;
        // Before a komi game's komi is set, both players bid for the side to move.
        let bidding = b.game_type.komi && b.komi.is_none();
        g.bidding = bidding;
        g.plays = if bidding { pos.to_move } else { me };
        let plays = g.plays;
        // The clock for the time manager: what the server shows, less a margin, shared with
        // the other game of a synchro match while both run (one search serves both).
        let clock = &b.player(me).clock;
        g.ctl.clock_mut().set_control(
            plays,
            // Past the main time, a control of nothing but zeros would read as untimed: the
            // extension keeps the clock on.
            Some(clock.to_time_control()),
        );
        let over = pos.board.is_game_over();
        let match_id = b.id.match_id();
        let others = self
            .games
            .iter()
            .filter(|(id, o)| {
                **id != b.id && id.match_id() == match_id && !o.ctl.position().board.is_game_over()
            })
            .count();
        let g = self.games.get_mut(&b.id).expect("inserted");
        let plan = plan_time(clock, 1 + others);
        g.ctl.clock_mut().set_left(plays, plan, 0);
        if over || pos.to_move != plays {
            g.turn = None;
            return Ok(());
        }
        log::debug!(
            "GGS: {}: plans with {plan:.2} s of {:.2} s main time ({} of its match's games running)",
            b.id,
            clock.main,
            1 + others
        );
        if g.sent_for == Some(pos) {
            return Ok(());
        }
        g.turn = Some(Instant::now());
        if !self.waiting.contains(&b.id) && session.searching() != Some(&b.id) {
            self.waiting.push_back(b.id);
        }
        self.next_search(session)
    }

    /// Starts the next waiting game's move when no search runs.
    pub(super) fn next_search(&mut self, session: &mut Session) -> io::Result<()> {
        while !session.busy() {
            let Some(id) = self.waiting.pop_front() else {
                return Ok(());
            };
            let Some(g) = self.games.get_mut(&id) else {
                continue;
            };
            let Some(turn) = g.turn else { continue };
            // Time spent waiting for the other game's search counts.
            let plays = g.plays;
            g.ctl.spend_since(plays, turn);
            match g.ctl.choose(plays, session, id.clone()) {
                Ok(Answer::Now(choice)) => self.send_move(&id, &choice),
                Ok(Answer::Searching) => {}
                Err(e) => log::debug!("GGS: no move to make in {id}: {e:?}"),
            }
        }
        Ok(())
    }

    /// Sends `choice` as the move of game `id`.
    pub(super) fn send_move(&mut self, id: &GameId, choice: &Choice) {
        let Some(g) = self.games.get_mut(id) else {
            return;
        };
        let spent = g.turn.map_or(choice.elapsed, |t| t.elapsed());
        g.sent_for = Some(g.ctl.position());
        // A komi bid must carry the result expected (0 when nothing scored the move).
        let eval = choice.score.map(f64::from).or(g.bidding.then_some(0.0));
        let line = outgoing::play(id, choice.mv, eval, spent.as_secs_f64());
        log::info!(
            "GGS: {id}: {} ({:?}) in {:.2} s",
            choice.mv,
            choice.score,
            spent.as_secs_f64()
        );
        self.send(&line);
    }

    /// `/os: error`: a move refused (or another error of a game).
    pub(super) fn game_error(&mut self, id: Option<GameId>, text: &str) {
        log::warn!(
            "GGS error in {}: {text}",
            id.as_ref().map_or("?", |i| i.as_str())
        );
        let Some(id) = id else { return };
        let Some(g) = self.games.get_mut(&id) else {
            return;
        };
        g.errors += 1;
        g.sent_for = None;
        if g.errors >= MAX_ERRORS {
            log::error!("GGS: {id}: {MAX_ERRORS} moves refused; no more moves in this game");
            g.turn = None;
        } else if g.turn.is_some() && !self.waiting.contains(&id) {
            self.waiting.push_back(id);
        }
    }

    /// A game ended (`/os: end`, or the end of a one-game match); `result` is from the side
    /// of `first`, the player the server listed first.
    pub(super) fn game_over(
        &mut self,
        id: &GameId,
        result: &GameResult,
        first: &str,
        session: &mut Session,
    ) -> io::Result<()> {
        let Some(g) = self.games.remove(id) else {
            return Ok(());
        };
        self.waiting.retain(|w| w != id);
        if session.searching() == Some(id) {
            // Its answer is of no use now.
            session.stop();
        }
        let pos = g.ctl.position();
        let (me, other) = (g.me, g.me.opposite());
        let how = if pos.board.is_game_over() {
            let black = f64::from(pos.black_final_score()) - g.komi.unwrap_or(0.0);
            let mine = if me == Color::Black { black } else { -black };
            let komi = g.komi.map_or(String::new(), |k| format!(" (komi {k})"));
            format!("{}{komi}", margin_text(mine))
        } else {
            let mine = seen_from(result, first != self.config.user);
            format!("not played out, {}", mine_text(&mine))
        };
        session.line(&format!(
            "game {id} over: {} ({me}) against {} ({other}): {how}",
            self.config.user,
            g.names[other.index()],
        ))?;
        if let Some(file) = &mut self.config.games {
            let black = seen_from(result, first != g.names[0]);
            file.append(&ggf_of(&g, &black).to_ggf(), &format!("game {id}"));
        }
        Ok(())
    }
}
