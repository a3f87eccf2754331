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

criterion_group!(benches, bench_movegen, bench_perft);
criterion_main!(benches);
