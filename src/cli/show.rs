//! `outflank show`: a readable board, the side to move, disc counts and legal moves.

use super::common::read_position_arg;
use crate::board::Move;
use crate::notation::board_string;
use clap::Args as ClapArgs;

/// Arguments of `outflank show`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The position: a board string, a transcript (`f5d6c3`) or a GGF game, or a file holding
    /// one (its first line).
    #[arg(allow_hyphen_values = true)]
    pub position: String,
}

/// Runs `outflank show`.
pub fn run(a: Args) -> anyhow::Result<i32> {
    let game = read_position_arg(&a.position)?;
    let pos = game.position();
    println!("{pos}");
    println!("board: {}", board_string(&pos));
    println!(
        "discs: black (X) {}, white (O) {}, empty {}",
        pos.black().count_ones(),
        pos.white().count_ones(),
        pos.board.empty_count()
    );
    if game.is_over() {
        let s = pos.black_final_score();
        let verdict = match s {
            0 => "draw".to_string(),
            s if s > 0 => format!("black wins by {s}"),
            s => format!("white wins by {}", -s),
        };
        println!("game over: {verdict} (empties to the winner)");
    } else {
        let moves: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
        println!("to move: {}", pos.to_move);
        println!("legal moves: {}", moves.join(" "));
    }
    Ok(0)
}
