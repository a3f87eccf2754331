//! Perft: counts the leaves of the game tree to a fixed depth, the standard test of move
//! generation.
//!
//! Two conventions exist for passes (see `shared/data/perft.md`): in the most quoted one a
//! forced pass uses up a ply; in the other, depth counts discs placed. Either way a position
//! where neither side can move is one leaf. The last ply is counted in bulk: at depth 1 the
//! number of legal moves is the number of leaves.

use crate::board::{Board, fast_path_available, legal_moves};
use rayon::prelude::*;

/// How passes count towards the depth.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PassRule {
    /// A forced pass uses up a ply (Aart Bik's definition).
    Ply,
    /// A forced pass does not use a ply: depth is the number of discs placed.
    Free,
}

/// Generates the recursive counter, once portable and once compiled for x86-64 v3 features.
macro_rules! perft_kernel {
    ($(#[$attr:meta])*) => {
        /// Leaves below `(p, o)` at `depth`; `passed` tells that the last move was a pass.
        $(#[$attr])*
        pub(super) fn count(p: u64, o: u64, depth: u32, passed: bool, pass_is_ply: bool) -> u64 {
            use crate::board::legal_moves;
            if depth == 0 {
                return 1;
            }
            let moves = legal_moves(p, o);
            if moves == 0 {
                if passed {
                    return 1;
                }
                let d = if pass_is_ply { depth - 1 } else { depth };
                return count(o, p, d, true, pass_is_ply);
            }
            if depth == 1 {
                return moves.count_ones() as u64;
            }
            let mut total = 0;
            let mut m = moves;
            if depth == 2 {
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let f = flips(p, o, sq);
                    let np = o ^ f;
                    let no = p ^ f ^ (1u64 << sq);
                    let m2 = legal_moves(np, no);
                    total += if m2 != 0 {
                        m2.count_ones() as u64
                    } else if pass_is_ply {
                        1
                    } else {
                        (legal_moves(no, np).count_ones() as u64).max(1)
                    };
                }
                return total;
            }
            while m != 0 {
                let sq = m.trailing_zeros() as usize;
                m &= m - 1;
                let f = flips(p, o, sq);
                total += count(o ^ f, p ^ f ^ (1u64 << sq), depth - 1, false, pass_is_ply);
            }
            total
        }
    };
}

mod portable {
    use crate::board::flips;
    perft_kernel!();
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::board::avx2::flips;
    perft_kernel!(#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]);
}

fn count(board: Board, depth: u32, passed: bool, rule: PassRule, fast: bool) -> u64 {
    let ply = rule == PassRule::Ply;
    #[cfg(target_arch = "x86_64")]
    if fast && fast_path_available() {
        // SAFETY: the CPU has every feature the kernel was compiled for (checked just above).
        return unsafe { x86::count(board.player, board.opponent, depth, passed, ply) };
    }
    let _ = fast;
    portable::count(board.player, board.opponent, depth, passed, ply)
}

/// Leaves of the game tree below `board` at `depth`, on one thread, with the fastest code
/// path this CPU supports.
pub fn perft(board: Board, depth: u32, rule: PassRule) -> u64 {
    count(board, depth, false, rule, true)
}

/// Like [`perft`] but always on the portable code path (no CPU-specific instructions); the
/// tests compare the two.
pub fn perft_portable(board: Board, depth: u32, rule: PassRule) -> u64 {
    count(board, depth, false, rule, false)
}

/// A subtree still to count: board, remaining depth, whether the last move was a pass.
type Task = (Board, u32, bool);

/// Expands the tree breadth-first until there are at least `want` subtrees (or the tree ends),
/// following the same pass rules as the counter. Leaves found on the way are returned as a
/// count.
fn split(board: Board, depth: u32, rule: PassRule, want: usize) -> (Vec<Task>, u64) {
    let mut tasks = vec![(board, depth, false)];
    let mut leaves = 0;
    while tasks.len() < want {
        let mut next = Vec::new();
        let mut grew = false;
        for (b, d, passed) in tasks {
            if d <= 3 {
                next.push((b, d, passed));
                continue;
            }
            grew = true;
            let moves = legal_moves(b.player, b.opponent);
            if moves == 0 {
                if passed {
                    leaves += 1;
                } else {
                    let nd = if rule == PassRule::Ply { d - 1 } else { d };
                    next.push((b.passed(), nd, true));
                }
                continue;
            }
            for sq in crate::board::Square::iter(moves) {
                next.push((b.play_flips(sq, b.flips(sq)), d - 1, false));
            }
        }
        tasks = next;
        if !grew {
            break;
        }
    }
    (tasks, leaves)
}

/// Like [`perft`], spread over `threads` worker threads with rayon.
pub fn perft_parallel(board: Board, depth: u32, rule: PassRule, threads: usize) -> u64 {
    if threads <= 1 {
        return perft(board, depth, rule);
    }
    let (tasks, leaves) = split(board, depth, rule, 64 * threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    leaves
        + pool.install(|| {
            tasks
                .par_iter()
                .map(|&(b, d, passed)| count(b, d, passed, rule, true))
                .sum::<u64>()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLY: [u64; 9] = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216];

    #[test]
    fn shallow_counts() {
        for (d, &n) in PLY.iter().enumerate() {
            assert_eq!(perft(Board::start(), d as u32, PassRule::Ply), n);
            assert_eq!(perft(Board::start(), d as u32, PassRule::Free), n);
            assert_eq!(perft_portable(Board::start(), d as u32, PassRule::Ply), n);
        }
    }

    #[test]
    fn passes_differ_at_depth_9() {
        assert_eq!(perft(Board::start(), 9, PassRule::Ply), 3_005_288);
        assert_eq!(perft(Board::start(), 9, PassRule::Free), 3_005_320);
        assert_eq!(
            perft_parallel(Board::start(), 9, PassRule::Ply, 2),
            3_005_288
        );
        assert_eq!(
            perft_parallel(Board::start(), 9, PassRule::Free, 2),
            3_005_320
        );
    }
}
