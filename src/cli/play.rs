//! `outflank play`: the terminal game, a person against the engine (or two people, or the
//! engine against itself) in a text terminal.

use super::common::read_position;
use super::gtp::FrontendArgs;
use crate::game::Game;
use crate::protocol::terminal::{self, Player};
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
    #[arg(long, value_name = "POS")]
    pub start: Option<String>,
    /// Engine options (`set` changes them during the game).
    #[command(flatten)]
    pub engine: FrontendArgs,
}

/// Runs `outflank play` until `quit` or the end of stdin.
pub fn run(a: Args) -> anyhow::Result<i32> {
    a.engine.load_eval()?;
    let game = match &a.start {
        Some(text) => read_position(text)?,
        None => Game::default(),
    };
    let (h, e) = (Player::Human, Player::Engine);
    let players = match a.human.as_str() {
        "black" => [h, e],
        "white" => [e, h],
        "both" => [h, h],
        _ => [e, e],
    };
    let tty = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    terminal::run(
        a.engine.options()?,
        players,
        game,
        tty,
        std::io::stdin(),
        std::io::stdout(),
    )?;
    Ok(0)
}
