//! `outflank play`: the terminal game, a person against the engine (or two people, or the
//! engine against itself) in a text terminal.

use super::common::read_position_arg;
use super::frontend::FrontendArgs;
use crate::game::Game;
use crate::notation::parse_ggf_clock;
use crate::protocol::terminal::{self, Player, Setup};
use crate::time_control::TimeControl;
use clap::Args as ClapArgs;
use std::io::IsTerminal;

/// Arguments of `outflank play`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The colour you play: black, white, both (two people, with the engine's hints) or
    /// none (the engine plays itself).
    #[arg(long, default_value = "black", value_parser = ["black", "white", "both", "none"])]
    pub human: String,
    /// Start from this position (board string, transcript or GGF) instead of the start.
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub start: Option<String>,
    /// The engine's clock for each game, as GGF writes it: the whole game's time, and
    /// optionally seconds added after each move (`5:00`, `2:00/3`). Without a level, depth
    /// or time per move, the engine plays at full strength within it.
    #[arg(long, value_name = "TIME[/INCREMENT]", value_parser = parse_clock)]
    pub clock: Option<TimeControl>,
    /// Engine options (`set` changes them during the game).
    #[command(flatten)]
    pub engine: FrontendArgs,
}

/// Runs `outflank play` until `quit` or the end of stdin.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let game = match &a.start {
        Some(text) => read_position_arg(text)?,
        None => Game::default(),
    };
    let (h, e) = (Player::Human, Player::Engine);
    let players = match a.human.as_str() {
        "black" => [h, e],
        "white" => [e, h],
        "both" => [h, h],
        _ => [e, e],
    };
    let setup = Setup {
        players,
        game,
        clock: a.clock,
        tty: std::io::stdout().is_terminal() && std::io::stdin().is_terminal(),
    };
    terminal::run(
        a.engine.options()?,
        setup,
        std::io::stdin(),
        std::io::stdout(),
    )?;
    Ok(0)
}

fn parse_clock(s: &str) -> Result<TimeControl, String> {
    match parse_ggf_clock(s) {
        Some(c) if !c.main.is_zero() || !c.increment.is_zero() => Ok(c),
        _ => Err(format!(
            "{s:?} is not a clock: minutes:seconds, then optionally /seconds added a move (5:00, 2:00/3)"
        )),
    }
}
