//! One game the client plays ([`GameState`]): its controller, colours, komi, players and
//! clock; how it follows the server's boards ([`sync_game`]); and the game written as GGF
//! once it is over ([`ggf_of`]).

use super::super::message::{BoardMessage, GameResult, GameType, GgsClock};
use super::super::outcome::ggf_result_text;
use crate::board::{Color, Position};
use crate::controller::{Controller, Mover};
use crate::game::Game;
use crate::notation::GgfGame;
use std::collections::BTreeMap;
use std::time::Instant;

/// One game the client plays.
pub(super) struct GameState {
    pub(super) ctl: Controller,
    pub(super) me: Color,
    /// The colour whose move the client sends next: its own, or in a komi game before the
    /// komi is set, the side to move's (the bid: a first move and the result expected).
    pub(super) plays: Color,
    /// The komi, in a komi game once it is set.
    pub(super) komi: Option<f64>,
    /// A komi game whose komi is not set: the next move sent is a bid.
    pub(super) bidding: bool,
    /// The players' names and ratings, Black first.
    pub(super) names: [String; 2],
    pub(super) ratings: [f64; 2],
    pub(super) game_type: GameType,
    /// The game's clock (its start, not a resumption's time left), for the GGF.
    pub(super) start_clock: Option<GgsClock>,
    /// Each move's eval and time, as the boards reported them, by ply.
    pub(super) notes: BTreeMap<usize, (Option<f64>, Option<f64>)>,
    /// The client's turn began (the board showing it arrived) at this time.
    pub(super) turn: Option<Instant>,
    /// A move was sent for this position: no other until the server answers.
    pub(super) sent_for: Option<Position>,
    pub(super) errors: u32,
}

/// Brings the controller's game to the server's board: the update's move played, or the
/// join's game; a board the moves do not reach replaces the game.
pub(super) fn sync_game(g: &mut GameState, b: &BoardMessage) {
    if b.join {
        let game = b
            .game()
            .filter(|game| game.position() == b.position)
            .unwrap_or_else(|| Game::new(b.position));
        g.ctl.set_game(game);
        for (ply, r) in b.moves.iter().enumerate() {
            g.notes.insert(ply, (r.eval, r.seconds));
        }
        return;
    }
    if g.ctl.position() == b.position {
        return;
    }
    if let Some(r) = &b.last_move {
        let color = g.ctl.mover_of(r.mv);
        if g.ctl.play_as(color, r.mv, Mover::Other).is_ok() && g.ctl.position() == b.position {
            let ply = g.ctl.game().len() - 1;
            g.notes.insert(ply, (r.eval, r.seconds));
            return;
        }
    }
    log::warn!(
        "GGS: {}: the board differs from the game; taking the board",
        b.id
    );
    g.ctl.set_game(Game::new(b.position));
    g.notes.clear();
}

/// A finished game as GGF; `result` is from Black's side.
pub(super) fn ggf_of(g: &GameState, result: &GameResult) -> GgfGame {
    let mut ggf = GgfGame::from_game(g.ctl.game());
    for (ply, m) in ggf.moves.iter_mut().enumerate() {
        if let Some(&(eval, time)) = g.notes.get(&ply) {
            m.eval = eval;
            m.time = time;
        }
    }
    ggf.place = Some("GGS/os".into());
    ggf.black = Some(g.names[0].clone());
    ggf.white = Some(g.names[1].clone());
    ggf.black_rating = Some(g.ratings[0]);
    ggf.white_rating = Some(g.ratings[1]);
    ggf.time = g.start_clock.as_ref().map(GgsClock::to_time_control);
    ggf.game_type = g.game_type.to_string();
    ggf.komi = g.komi.map(|k| k.to_string());
    // A game played out has the board's result (Black's view); one that ended otherwise
    // (time, resignation) has the server's words.
    if !g.ctl.game().is_over() {
        ggf.result = Some(ggf_result_text(result));
    }
    ggf
}
