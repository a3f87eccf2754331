//! The terminal game kept as GGF (`save FILE`): its moves, who played each colour, and the
//! engine's clock for the colours it plays.

use super::text::played_by_text;
use crate::board::Color;
use crate::controller::{Controller, Player, Seats, TimeControl};
use crate::notation::GgfGame;

/// The game of `ctl` as GGF, its players named from `seats` and the moves they made, with
/// the engine's clock setting `time` for the colours the engine plays.
pub(super) fn record(ctl: &Controller, seats: &Seats, time: Option<TimeControl>) -> GgfGame {
    let mut ggf = GgfGame::from_game(ctl.game());
    let name = |c| played_by_text(ctl.played_by(c, seats));
    ggf.black = Some(name(Color::Black));
    ggf.white = Some(name(Color::White));
    let clock = |c| time.filter(|_| seats.player(c) == Player::Engine);
    ggf.time_black = clock(Color::Black);
    ggf.time_white = clock(Color::White);
    ggf
}
