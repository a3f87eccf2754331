//! The engine's side of a game: its moves (at once, or by a search in the pool), the
//! analyses and hints a connection asks for, and the results that come back from the pool.

use super::messages::{ScoredMove, ServerMessage};
use super::registry::{Note, Registry, Tag, Work};
use super::room::{Mode, Room, Seat, move_name};
use crate::controller::{Answer, Choice, Finished, Hints, Searched};
use crate::search::{Info, Limits};
use std::time::Duration;

/// The deepest analysis a connection may ask for.
pub const MAX_ANALYSIS_DEPTH: u32 = 20;
/// The longest an analysis may search.
const ANALYSIS_TIME: Duration = Duration::from_secs(60);

impl Registry {
    /// The checks an analysis or a hint passes: allowed in this game, and a position to
    /// search.
    fn may_search(&self, room: &Room) -> Result<(), String> {
        if room.thinking {
            return Err("the engine is thinking".into());
        }
        if room.game().is_over() {
            return Err("the game is over: no move to score".into());
        }
        Ok(())
    }

    pub(super) fn analyze(
        &self,
        room: &mut Room,
        conn: u64,
        depth: u32,
    ) -> Result<Option<ServerMessage>, String> {
        may_analyze(room, depth, "analysis")?;
        self.may_search(room)?;
        let pos = room.game().position();
        let limits = Limits {
            depth: Some(depth),
            time: Some(ANALYSIS_TIME),
            multipv: pos.legal_moves().len().max(1),
            ..Limits::default()
        };
        room.seq += 1;
        let tag = Tag {
            seq: room.seq,
            work: Work::Analysis {
                conn,
                ply: room.game().len(),
            },
        };
        let mut searcher = self.pool.searcher(room.id.clone());
        room.controller
            .analyze_within(pos.board, limits, &mut searcher, tag);
        room.search = Some(room.seq);
        room.asker = Some(conn);
        Ok(None)
    }

    pub(super) fn hint(
        &self,
        room: &mut Room,
        seat: Option<Seat>,
        conn: u64,
    ) -> Result<Option<ServerMessage>, String> {
        if room.mode != Mode::Engine || !room.hints || seat.is_none() {
            return Err("hints are off in this game".into());
        }
        self.may_search(room)?;
        room.seq += 1;
        let ply = room.game().len();
        let tag = Tag {
            seq: room.seq,
            work: Work::Analysis { conn, ply },
        };
        let mut searcher = self.pool.searcher(room.id.clone());
        match room.controller.hint(1, &mut searcher, tag) {
            Hints::Book(moves) => Ok(Some(ServerMessage::Analysis {
                ply,
                depth: 0,
                moves: moves
                    .into_iter()
                    .map(|(m, _)| ScoredMove {
                        mv: move_name(m.mv),
                        score: m.score,
                    })
                    .collect(),
            })),
            Hints::Searching => {
                room.search = Some(room.seq);
                room.asker = Some(conn);
                Ok(None)
            }
            Hints::GameOver => Err("the game is over".into()),
        }
    }

    /// Lets the engine move while it is its turn: at once (the only move, a book move) or
    /// by a search whose result comes to [`Registry::finished`].
    pub(super) fn start_engine(&self, room: &mut Room) {
        while room.engine_to_move() {
            let Some(color) = room.engine else { return };
            room.seq += 1;
            let tag = Tag {
                seq: room.seq,
                work: Work::Move,
            };
            let mut searcher = self.pool.searcher(room.id.clone());
            match room.controller.choose(color, &mut searcher, tag) {
                Ok(Answer::Now(choice)) => commit(room, &choice),
                Ok(Answer::Searching) => {
                    room.search = Some(room.seq);
                    room.thinking = true;
                    return;
                }
                Err(_) => return,
            }
        }
    }

    /// A search of game `id` finished: the engine's move is played, an analysis sent to the
    /// connection that asked; the result of a search replaced since is dropped.
    pub(super) fn finished(&self, id: &str, done: Finished<Tag>) {
        let Some(live) = self.live(id) else { return };
        let mut room = live.room();
        if room.search != Some(done.job.tag.seq) || self.flag_fall(&live, &mut room) {
            return;
        }
        room.search = None;
        room.thinking = false;
        let (tag, searched) = room.controller.searched(done);
        match (tag.work, searched) {
            (Work::Move, Searched::Move(choice)) => {
                commit(&mut room, &choice);
                self.start_engine(&mut room);
            }
            (Work::Analysis { conn, ply }, Searched::Analysis(info)) => {
                let text = analysis(&mut room, ply, &info).to_json();
                let _ = live.notes.send(Note::To {
                    conn,
                    text: text.into(),
                });
            }
            _ => self.start_engine(&mut room),
        }
        self.publish(&live, &mut room);
    }
}

/// Plays the engine's choice and notes its score.
fn commit(room: &mut Room, choice: &Choice) {
    let ply = room.game().len();
    if let Err(e) = room.controller.commit(choice) {
        log::error!("game {}: the engine's move {}: {e}", room.id, choice.mv);
        return;
    }
    room.sync_evals();
    if let Some(score) = choice.score {
        room.note_eval(ply, score);
    }
}

/// The analysis message of a search of the position at `ply`; its best score is noted.
fn analysis(room: &mut Room, ply: usize, info: &Info) -> ServerMessage {
    if let Some(best) = info.best() {
        room.note_eval(ply, best.score);
    }
    ServerMessage::Analysis {
        ply,
        depth: info.depth,
        moves: info
            .lines
            .iter()
            .map(|l| ScoredMove {
                mv: move_name(l.mv),
                score: l.score,
            })
            .collect(),
    }
}

/// Whether `room` may be searched for the players at `depth` (an analysis, a review): a depth
/// of 1 to [`MAX_ANALYSIS_DEPTH`], in a two-player game, a game against the engine with hints
/// on, or any game once over (never an online game under way). `what` names the request in
/// the error.
pub(super) fn may_analyze(room: &Room, depth: u32, what: &str) -> Result<(), String> {
    if !(1..=MAX_ANALYSIS_DEPTH).contains(&depth) {
        return Err(format!("depth must be 1 to {MAX_ANALYSIS_DEPTH}"));
    }
    let allowed = match room.mode {
        _ if room.is_over() => true,
        Mode::Local => true,
        Mode::Engine => room.hints,
        Mode::Online => false,
    };
    if allowed {
        Ok(())
    } else {
        Err(format!("{what} is off in this game until it ends"))
    }
}
