//! A game review on the server: `{"type": "review", "depth": D}` from any connection of a
//! game scores every move played so far against the best move of its position, as
//! `outflank analyze --game --depth D` does ([`crate::review`]: the same code, each position
//! searched from a cleared hash table, so the numbers are the command's).
//!
//! The review's searches run on the engine pool one position at a time, queued as one more
//! game's (under the key `{id}/review`), so a review takes its turn with the other games'
//! searches. One review runs per game at a time; the connection that asked may ask again
//! (the old one stops), another is refused until it ends. A review stops when its connection
//! goes. Each position searched sends the asker `{"type": "reviewing", "done", "total"}`; the
//! last one `{"type": "review", "depth", "moves": [...]}`.

use super::engine::may_analyze;
use super::registry::{Live, Note, Registry, Tag, Work};
use super::room::{Room, move_name};
use crate::controller::{Finished, Job};
use crate::review::{Review, Reviewed};
use crate::search::Limits;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The longest the search of one position of a review may take.
const POSITION_TIME: Duration = Duration::from_secs(60);

/// The ending of a review's key in the engine pool: `{id}/review`.
const KEY_SUFFIX: &str = "/review";

/// One move of a review as the page gets it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReviewedMove {
    /// The move's number in the game, from 1 (passes count, but are not reviewed).
    pub ply: usize,
    /// Who played it: `black` or `white`.
    pub player: &'static str,
    /// The move played.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its score in discs for the player, or null when the search did not get to it.
    pub score: Option<i32>,
    /// The position's best move.
    pub best: Option<String>,
    /// The best move's score.
    pub best_score: Option<i32>,
    /// Discs given away against the best move (0 for a best move).
    pub loss: Option<i32>,
}

impl From<&Reviewed> for ReviewedMove {
    fn from(r: &Reviewed) -> ReviewedMove {
        let best = r.best();
        ReviewedMove {
            ply: r.ply,
            player: r.player.name(),
            mv: move_name(r.played),
            score: r.score,
            best: best.map(|l| move_name(l.mv)),
            best_score: best.map(|l| l.score),
            loss: r.loss(),
        }
    }
}

/// The server's messages of a review.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ReviewMessage {
    /// The review, done: every move played but the passes, in order.
    Review {
        /// The depth asked for.
        depth: u32,
        /// The moves reviewed.
        moves: Vec<ReviewedMove>,
    },
    /// A review's progress: `done` moves of `total` reviewed.
    Reviewing {
        /// Moves reviewed so far.
        done: usize,
        /// Moves to review.
        total: usize,
    },
}

/// A review running: who asked, its number, the review so far.
struct Running {
    conn: u64,
    seq: u64,
    depth: u32,
    review: Review,
}

/// The reviews running, by game id.
#[derive(Default)]
pub struct Reviews {
    running: Mutex<HashMap<String, Running>>,
    seq: AtomicU64,
}

impl Reviews {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The pool key of game `id`'s review.
fn key(id: &str) -> String {
    format!("{id}{KEY_SUFFIX}")
}

/// The game id of a pool key, when it is a review's.
pub fn review_of(key: &str) -> Option<&str> {
    key.strip_suffix(KEY_SUFFIX)
}

fn send(live: &Live, conn: u64, msg: &ReviewMessage) {
    let text = serde_json::to_string(msg).unwrap_or_default();
    let _ = live.notes.send(Note::To {
        conn,
        text: text.into(),
    });
}

impl Registry {
    /// Starts a review of `room`'s moves at `depth` for connection `conn`; the answer comes
    /// as notes to that connection.
    pub(super) fn review(
        &self,
        live: &Live,
        room: &mut Room,
        conn: u64,
        depth: u32,
    ) -> Result<(), String> {
        may_analyze(room, depth, "the review")?;
        let limits = Limits {
            depth: Some(depth),
            time: Some(POSITION_TIME),
            ..Limits::default()
        };
        let review = Review::new(room.game().clone(), limits);
        let mut running = self.reviews.lock();
        if running.get(&room.id).is_some_and(|r| r.conn != conn) {
            return Err("a review of this game is running: try again when it ends".into());
        }
        let Some((board, limits)) = review.next() else {
            running.remove(&room.id);
            drop(running);
            self.pool.cancel(&key(&room.id));
            let msg = ReviewMessage::Review {
                depth,
                moves: Vec::new(),
            };
            send(live, conn, &msg);
            return Ok(());
        };
        let seq = self.reviews.seq.fetch_add(1, Ordering::Relaxed) + 1;
        running.insert(
            room.id.clone(),
            Running {
                conn,
                seq,
                depth,
                review,
            },
        );
        let job = Job {
            tag: Tag {
                seq,
                work: Work::Review,
            },
            request: None,
        };
        self.pool.submit_fresh(key(&room.id), board, limits, job);
        Ok(())
    }

    /// A review's search finished (`key` is its pool key): the move is reviewed, and the
    /// next position searched, or the review sent.
    pub(super) fn reviewed(&self, key_: &str, done: Finished<Tag>) {
        let Some(id) = review_of(key_) else { return };
        let mut running = self.reviews.lock();
        let Some(r) = running.get_mut(id) else { return };
        if r.seq != done.job.tag.seq {
            return;
        }
        r.review.record(done.info);
        let conn = r.conn;
        let msg = match r.review.next() {
            Some((board, limits)) => {
                self.pool.submit_fresh(key(id), board, limits, done.job);
                ReviewMessage::Reviewing {
                    done: r.review.moves().len(),
                    total: r.review.total(),
                }
            }
            None => {
                let r = running.remove(id).expect("the review running");
                ReviewMessage::Review {
                    depth: r.depth,
                    moves: r.review.moves().iter().map(ReviewedMove::from).collect(),
                }
            }
        };
        drop(running);
        if let Some(live) = self.live(id) {
            send(&live, conn, &msg);
        }
    }

    /// Connection `conn` of game `id` left: the review it asked for, if one runs, stops.
    pub(super) fn stop_review(&self, id: &str, conn: u64) {
        let mut running = self.reviews.lock();
        if running.get(id).is_some_and(|r| r.conn == conn) {
            running.remove(id);
            drop(running);
            self.pool.cancel(&key(id));
        }
    }
}
