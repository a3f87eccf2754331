//! Property tests of the board on random reachable positions.

use outflank::board::{
    Board, Move, Position, Square, Symmetry, flips, flips_reference, legal_moves,
    legal_moves_reference,
};
use outflank::game::Game;
use outflank::perft::{PassRule, perft};
use proptest::prelude::*;

/// Plays random legal moves (picked by `choices`) from the start; returns the game.
fn random_game(choices: &[u8]) -> Game {
    let mut g = Game::default();
    for &c in choices {
        let moves = g.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        g.play(moves[c as usize % moves.len()]).expect("legal");
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fast_flips_equal_reference(choices in prop::collection::vec(any::<u8>(), 0..60)) {
        let g = random_game(&choices);
        let b = g.position().board;
        prop_assert_eq!(legal_moves(b.player, b.opponent), legal_moves_reference(b.player, b.opponent));
        for sq in 0..64 {
            if b.empties() >> sq & 1 == 1 {
                prop_assert_eq!(flips(b.player, b.opponent, sq), flips_reference(b.player, b.opponent, sq));
            }
        }
    }

    #[test]
    fn play_then_undo_round_trips(choices in prop::collection::vec(any::<u8>(), 0..60)) {
        let mut g = random_game(&choices);
        let positions = g.positions().to_vec();
        let n = g.len();
        for i in (0..n).rev() {
            g.undo().expect("a move to undo");
            prop_assert_eq!(g.position(), positions[i]);
        }
        prop_assert!(g.undo().is_none());
    }

    #[test]
    fn symmetries_preserve_moves_and_counts(choices in prop::collection::vec(any::<u8>(), 0..50)) {
        let g = random_game(&choices);
        let b = g.position().board;
        let base = perft(b, 3, PassRule::Ply);
        for s in Symmetry::ALL {
            let t = b.transformed(s);
            let moved: u64 = Square::iter(b.moves()).fold(0, |m, q| m | s.square(q).bit());
            prop_assert_eq!(t.moves(), moved);
            prop_assert_eq!(t.player_count(), b.player_count());
            prop_assert_eq!(perft(t, 3, PassRule::Ply), base);
            prop_assert_eq!(t.canonical().0, b.canonical().0);
        }
    }

    #[test]
    fn discs_are_conserved(choices in prop::collection::vec(any::<u8>(), 0..60)) {
        let g = random_game(&choices);
        for w in g.positions().windows(2) {
            let (a, b): (Position, Position) = (w[0], w[1]);
            let before = a.board.player_count() + a.board.opponent_count();
            let after = b.board.player_count() + b.board.opponent_count();
            prop_assert!(after == before + 1 || (after == before && a.board.moves() == 0));
        }
    }
}

#[test]
fn a_pass_is_only_legal_when_forced() {
    // Random games reach forced passes; find some and check the rules there.
    let mut found = 0;
    let mut seed = 7u64;
    for _ in 0..2000 {
        let choices: Vec<u8> = (0..60)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        let g = random_game(&choices);
        for p in g.positions() {
            let b = p.board;
            if b.must_pass() {
                found += 1;
                assert_eq!(b.moves(), 0);
                assert!(b.play_move(Move::Pass).is_ok());
                assert_eq!(b.play_move(Move::Pass).unwrap(), b.passed());
            }
        }
    }
    assert!(found > 0);
    assert!(Board::start().play_move(Move::Pass).is_err());
}
