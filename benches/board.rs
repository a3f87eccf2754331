//! Move generation and perft benchmarks.

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use outflank::board::{Board, flips, legal_moves};
use outflank::perft::{PassRule, perft, perft_portable};

fn bench_movegen(c: &mut Criterion) {
    let b = Board::start().play("f5".parse().unwrap()).unwrap();
    c.bench_function("legal_moves", |x| {
        x.iter(|| legal_moves(black_box(b.player), black_box(b.opponent)))
    });
    c.bench_function("flips", |x| {
        x.iter(|| flips(black_box(b.player), black_box(b.opponent), black_box(37)))
    });
    // Every empty square of a midgame position: the scalar flips against the AVX2 ones.
    let mid = outflank::notation::parse_transcript("f5d6c3d3c4f4f6f3e6e7d7g6f7c5b6")
        .expect("a legal transcript")
        .position()
        .board;
    let empties: Vec<usize> = (0..64).filter(|&s| mid.empties() >> s & 1 == 1).collect();
    c.bench_function("flips_all_empties_scalar", |x| {
        x.iter(|| {
            empties.iter().fold(0u64, |acc, &s| {
                acc ^ flips(black_box(mid.player), black_box(mid.opponent), s)
            })
        })
    });
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        c.bench_function("flips_all_empties_avx2", |x| {
            x.iter(|| {
                empties.iter().fold(0u64, |acc, &s| {
                    // SAFETY: AVX2 was detected above.
                    acc ^ unsafe {
                        outflank::board::avx2::flips(
                            black_box(mid.player),
                            black_box(mid.opponent),
                            s,
                        )
                    }
                })
            })
        });
        // Every move of a set of endgame positions with the child's moves (the endgame's
        // move-list kernel): the fused version against flips then moves.
        let mut rng = outflank::rng::Rng::new(42);
        let boards: Vec<(u64, u64, u64)> = (0..500)
            .map(|_| {
                let empties = 6 + rng.below(20) as u32;
                let b = outflank::rng::random_board(&mut rng, empties);
                (b.player, b.opponent, b.moves())
            })
            .collect();
        let children = |fused: bool| {
            let mut acc = 0u64;
            for &(p, o, moves) in &boards {
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    // SAFETY: AVX2 was detected above.
                    let (np, no, r) = unsafe {
                        if fused {
                            outflank::board::avx2::play_and_moves(p, o, sq)
                        } else {
                            let f = outflank::board::avx2::flips(p, o, sq);
                            let (np, no) = (o ^ f, p ^ f ^ (1u64 << sq));
                            (np, no, outflank::board::avx2::legal_moves(np, no))
                        }
                    };
                    acc = acc.wrapping_add(np ^ no.rotate_left(7) ^ r);
                }
            }
            acc
        };
        c.bench_function("children_flips_then_moves_avx2", |x| {
            x.iter(|| children(black_box(false)))
        });
        c.bench_function("children_play_and_moves_avx2", |x| {
            x.iter(|| children(black_box(true)))
        });
    }
}

fn bench_perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.bench_function("perft9_fast", |x| {
        x.iter(|| perft(black_box(Board::start()), 9, PassRule::Ply))
    });
    g.bench_function("perft9_portable", |x| {
        x.iter(|| perft_portable(black_box(Board::start()), 9, PassRule::Ply))
    });
    g.finish();
}

fn bench_eval(c: &mut Criterion) {
    // Every move of 1000 positions of 14-17 empties (the endgame's evaluation ordering):
    // each child evaluated from scratch, and through the parent's indices (`Weights::after`).
    let w = outflank::eval::shipped_weights();
    let mut rng = outflank::rng::Rng::new(7);
    let boards: Vec<(Board, Vec<Board>)> = (0..1000)
        .map(|_| {
            let empties = 14 + rng.below(4) as u32;
            let b = outflank::rng::random_board(&mut rng, empties);
            let children = outflank::board::Square::iter(b.moves())
                .map(|s| b.play(s).expect("a legal move"))
                .collect();
            (b, children)
        })
        .collect();
    // Every child evaluated from scratch with `w`.
    let from_scratch = |w: &outflank::eval::Weights| {
        let mut acc = 0i32;
        for (_, children) in &boards {
            for c in children {
                acc = acc.wrapping_add(w.evaluate(black_box(c)));
            }
        }
        acc
    };
    c.bench_function("evaluate_children_full", |x| x.iter(|| from_scratch(&w)));
    // The same children evaluated with weights that carry optional terms (zero weights: the
    // same work as fitted ones), beside none: what each whole-board term costs.
    let mut g = c.benchmark_group("evaluate_children_terms");
    for name in [
        "none",
        "discs",
        "discs,potential-mobility,mobility-pair",
        "parity-quadrants",
        "parity-regions",
    ] {
        let terms = outflank::eval::Terms::parse(name).expect("known terms");
        let wt = outflank::eval::Weights::zero_with_terms(4, terms);
        g.bench_function(name, |x| x.iter(|| from_scratch(&wt)));
    }
    g.finish();
    c.bench_function("evaluate_children_after", |x| {
        x.iter(|| {
            let mut acc = 0i32;
            for (b, children) in &boards {
                let after = w.after(black_box(b));
                for c in children {
                    acc = acc.wrapping_add(after.evaluate(black_box(c)));
                }
            }
            acc
        })
    });
}

criterion_group!(benches, bench_movegen, bench_perft, bench_eval);
criterion_main!(benches);
