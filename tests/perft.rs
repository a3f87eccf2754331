//! Perft against the published counts (shared/data/perft.md), through the library and the
//! real binary. Depths 12-13 are behind `--ignored`.

use outflank::board::Board;
use outflank::perft::{PassRule, perft, perft_parallel, perft_portable};
use std::process::Command;

/// Pass counts as a ply, depths 0..=13.
const PLY: [u64; 14] = [
    1,
    4,
    12,
    56,
    244,
    1396,
    8200,
    55092,
    390216,
    3005288,
    24571284,
    212258800,
    1939886636,
    18429641748,
];

/// Pass does not count as a ply, depths 0..=13.
const FREE: [u64; 14] = [
    1,
    4,
    12,
    56,
    244,
    1396,
    8200,
    55092,
    390216,
    3005320,
    24571420,
    212260880,
    1939899208,
    18429791868,
];

#[test]
fn perft_to_depth_10_both_conventions() {
    for d in 0..=10 {
        assert_eq!(
            perft(Board::start(), d, PassRule::Ply),
            PLY[d as usize],
            "ply {d}"
        );
        assert_eq!(
            perft(Board::start(), d, PassRule::Free),
            FREE[d as usize],
            "free {d}"
        );
    }
}

#[test]
fn portable_path_equals_fast_path() {
    for d in 0..=9 {
        assert_eq!(
            perft_portable(Board::start(), d, PassRule::Ply),
            PLY[d as usize]
        );
        assert_eq!(
            perft_portable(Board::start(), d, PassRule::Free),
            FREE[d as usize]
        );
    }
    // Also from a few other positions, where passes come early.
    let b = Board::new(0x0000_0000_0000_00FF, 0x0000_0000_0000_FF00);
    for d in 0..=6 {
        assert_eq!(
            perft_portable(b, d, PassRule::Ply),
            perft(b, d, PassRule::Ply)
        );
    }
}

#[test]
fn depth_11_through_the_binary_with_two_threads() {
    let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["perft", "11", "--threads", "2"])
        .output()
        .expect("run outflank");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("= 212258800"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["perft", "11", "--pass-is-ply", "false"])
        .output()
        .expect("run outflank");
    assert!(String::from_utf8_lossy(&out.stdout).contains("= 212260880"));
}

#[test]
fn parallel_equals_serial() {
    for d in [7, 9] {
        for rule in [PassRule::Ply, PassRule::Free] {
            assert_eq!(
                perft_parallel(Board::start(), d, rule, 2),
                perft(Board::start(), d, rule)
            );
        }
    }
}

#[test]
#[ignore = "deep perft: a few seconds per depth in release"]
fn perft_12_and_13() {
    for d in 12..=13 {
        assert_eq!(
            perft_parallel(Board::start(), d, PassRule::Ply, 2),
            PLY[d as usize]
        );
        assert_eq!(
            perft_parallel(Board::start(), d, PassRule::Free, 2),
            FREE[d as usize]
        );
    }
}

#[test]
fn bad_arguments_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_outflank"))
        .args(["perft", "5", "--position", "zz9"])
        .output()
        .expect("run outflank");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read position"), "{err}");
    assert!(!err.contains("panicked"));
}
