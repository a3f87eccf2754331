//! Search benchmarks: exact endgame solves, a midgame search, and the stop latency (time
//! from raising the stop flag to the search returning).

use criterion::{Criterion, criterion_group, criterion_main};
use outflank::notation::parse_board_string;
use outflank::search::{Engine, EngineConfig, Limits, Solve};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// FFO #1 and #2 (14 empties each).
const ENDGAMES: [&str; 2] = [
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
    "-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X",
];

fn engine(threads: usize) -> Engine {
    Engine::new(EngineConfig {
        threads,
        hash_mb: 64,
    })
}

fn bench_endgame(c: &mut Criterion) {
    let mut g = c.benchmark_group("endgame");
    g.sample_size(10);
    for threads in [1, 2] {
        let e = engine(threads);
        g.bench_function(format!("ffo1_ffo2_{threads}t"), |x| {
            x.iter(|| {
                for s in ENDGAMES {
                    let b = parse_board_string(s).expect("board").board;
                    e.clear_hash();
                    let limits = Limits {
                        solve: Some(Solve::Exact),
                        ..Limits::default()
                    };
                    e.search(b, &limits, &mut |_| {});
                }
            })
        });
    }
    g.finish();
}

fn bench_midgame(c: &mut Criterion) {
    let mut g = c.benchmark_group("midgame");
    g.sample_size(10);
    let e = engine(1);
    let b = outflank::notation::parse_transcript("f5d6c4d3c2b3b4b5")
        .expect("opening")
        .position()
        .board;
    g.bench_function("depth10", |x| {
        x.iter(|| {
            e.clear_hash();
            let limits = Limits {
                depth: Some(10),
                ..Limits::default()
            };
            e.search(b, &limits, &mut |_| {})
        })
    });
    g.finish();
}

/// Stop latency: a deep search is started, the flag raised after 20 ms, and the time until
/// `search` returns is what is measured.
fn bench_stop_latency(c: &mut Criterion) {
    let mut g = c.benchmark_group("stop");
    g.sample_size(10);
    let e = engine(2);
    let b = outflank::notation::parse_transcript("f5d6c4d3c2b3b4b5")
        .expect("opening")
        .position()
        .board;
    g.bench_function("latency_2t", |x| {
        x.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let stop = Arc::new(AtomicBool::new(false));
                let limits = Limits {
                    solve: Some(Solve::Exact),
                    stop: Some(stop.clone()),
                    ..Limits::default()
                };
                let flag = stop.clone();
                let raiser = std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(20));
                    flag.store(true, Ordering::Relaxed);
                    Instant::now()
                });
                e.search(b, &limits, &mut |_| {});
                let done = Instant::now();
                let raised = raiser.join().expect("raiser");
                total += done.saturating_duration_since(raised);
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench_endgame, bench_midgame, bench_stop_latency);
criterion_main!(benches);
