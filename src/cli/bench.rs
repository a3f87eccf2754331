//! `outflank bench`: a fixed workload that measures speed and checks correctness.
//!
//! FFO #20-#39 (exact solves, 20-24 empties) and midgame positions after some XOT openings at
//! a fixed depth. Prints nodes, time, nodes/s and a node-count signature (stable for one
//! build at one thread: a change in search behaviour changes it). Exits with status 1 on a
//! wrong exact score.

use super::common::{EngineArgs, count_range, plural};
use crate::notation::{parse_obf, parse_transcript};
use crate::search::{Limits, Solve};
use clap::Args as ClapArgs;

/// FFO #20-#39: positions and their best scores (the public test set).
const FFO_20_39: &str = "
XXXOXXXXOXXXXXXXOOXXXXXXOOOXXXXXOOOXXOO-OOOOO---OOOOOOO-OOOOOOO- X; H5:+6; G6:-2; F6:-4; H6:-10;
OOOOOOOOXOOXXX--XXOOXOO-XOXOOO--XOOOOX--XOOXOO--XOOOOO--XXXX---- O; G5:+0; G2:-2; G4:-4; G6:-6;
--OOOO--X-OOOOO-XXOOXOXXXOXOXXXXXXXOXXXX-XXOXOXX--OXXX-X----X--- O; G8:+2; A6:+0; F8:-4; A7:-4; H2:-4; B2:-6; D8:-8; B7:-14; G7:-26;
--O-------OOX---OOOXXXO-OOOOXOXXXXXOOXOXXXXXXOOXX-XXXXOX--XXXX-- X; A2:+4; D1:-20; H3:-20; B1:-30; G2:-30; E1:-30; F2:-34; G8:-34; B2:-36; H2:-38;
--O--O-----OOOX--X-XOXOO--XXXOOOXXXXOOOOXXXOXXOOXXXXXX--XOXX-O-- O; C3:+0; B4:-4; C2:-8; E8:-12; G7:-14; H2:-16; G1:-24;
----X------XXXO--OOOXXXXXOOOOXXO-XXOOXXOOOXOXXXXOOOXX---X-XXXX-- O; G1:+0; A5:+0; F1:-4; D1:-6; F7:-8; C2:-10; G7:-10; H2:-12; H7:-16;
-OOOOO----OXXO---OOOOXXO-OOOXOXX-OOXOOXX-XOXXOXX--O-XXXX--O----O X; D8:+0; A6:-2; A4:-6; B7:-6; A5:-12; G1:-16; A2:-16; A3:-18; H2:-18; B8:-20; G2:-20; B2:-26;
--XO-O----OOOO--OOXOXXO-OOOOXXOOOOOXXOX-OXOXXXXX--XXXX----X-O-X- X; B7:-2; E1:-4; B1:-6; H2:-10; H5:-10; B2:-12; A2:-14; H3:-28; G1:-28; G2:-28;
--O-------OOO--X-XOOOOXXXXXXOXOX-XXOXOOXXXOXOOXX-OOOOO-X---OOO-- X; F1:+0; B2:+0; E1:+0; B1:-4; F2:-6; G7:-6; D1:-12; C8:-20; G8:-22; B8:-28;
-OXXXX----OXXO--XXOOXOOOXXXOOXOOXXOOXOOOXXXXOO-XX-XXO----------- X; G2:+10; A1:+4; G6:-10; H2:-12; F8:-12; E8:-12; G7:-24; G1:-24; B2:-30; F7:-34;
-XXX----X-XOO---XXOXOO--XOXOXO--XOOXOXXXXOOXXOX---OOOOO--XXXXX-- X; G3:+0; G2:-12; E1:-16; F2:-18; F1:-22; G4:-22; H6:-24; B7:-24; G8:-28;
-OOOOO----OOOO--OXXOOO---XXXOO--XXXXXXO-XXXOOO-OX-OOOO---OOOOO-- X; G6:-2; G3:-4; G4:-8; G7:-14; H5:-14; G2:-16; G1:-30; G8:-32;
--XX----O-XXOX--OOXOO---OXOXOOO-OOXXOOOXOOXXXOOX--XXXXOX--X--X-X X; G3:-4; B7:-6; E1:-8; H4:-10; F3:-10; H3:-10; B2:-14; A7:-22;
-XXXXXXX--XOOO----OXOOXX-OOXXOXX-OOOOOXX-X-XOOXX---O-X-X--OOOO-- X; E7:-8; A3:-8; A6:-12; B2:-12; G7:-12; G2:-12; A4:-14; C6:-20; A5:-22; B3:-28;
-------------O-O-OOOOOOOOOOOOXOOOXXOOOXO-XXXOXOO--XXXOXO--OXXXXO X; C2:-2; D2:-6; E2:-6; A3:-10; A2:-10; F1:-12; G2:-14; G1:-16; B2:-20; B8:-26;
--XXX-----XXXX-OOOXXOOOOOOOOOOXO-OOXXXXO-OOOXXXO---XOXX---X----- O; C7:+0; D8:-8; H8:-8; B2:-12; G1:-14; E8:-20; B1:-20; F8:-24; F1:-32; H7:-32; G8:-38;
---X-O----XXXO-XXXXXXXXXXOOXXOOXXOXOOOXXXXOOOO-XX--OOOO--------- O; B7:+0; B1:-2; E1:-4; C1:-6; G6:-8; G2:-10; A2:-22; B2:-24;
--OOOO--O-OOOO--OXXXOOO-OXXOXO--OOXXOXX-OOXXXX--O-XXX-----XX-O-- X; G2:-20; G4:-22; B7:-22; H3:-22; G1:-30; H2:-42; B1:-48;
--OOOO----OOOO---XOXXOOXOOXOOOOX-OOOOOXXXOOXXXXX--X-X----------- X; B2:+4; A5:+0; H2:-4; A3:-10; A7:-18; G2:-20; B7:-22; G1:-24; B1:-26;
O-OOOO--XOXXOX--XOOOXXX-XOOOXX--XOOXOX--XOXXX---X-XX------------ O; A8:+64; B1:+64; G1:+64; G5:+64; G6:+64; C8:+64; H3:+64; E8:+64; H4:+64; F7:+62; D8:+62; E7:+62; H2:+62; B8:+62; G2:+60; G4:+60; F6:+32;
";

/// Openings for the midgame part.
const OPENINGS: [&str; 6] = [
    "f5d6c4d3c2b3b4b5",
    "f5f6d3c5d6c7b5e3",
    "f5f4e3d2c3e6e1g5",
    "f5f6e6d6f7g6h5g5",
    "f5d6c3g5e6f3g4g6",
    "f5d6c5f4e3c6f6g5",
];

/// Arguments of `outflank bench`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Depth of the midgame searches (1-60).
    #[arg(long, default_value_t = 14, value_parser = super::common::depth_range())]
    pub depth: u32,
    /// Only the first N FFO positions (all 20 by default).
    #[arg(long, default_value_t = 20, value_parser = count_range(20))]
    pub positions: usize,
    /// Engine options.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The bench's table size in megabytes, unless `--hash` says otherwise.
const BENCH_HASH_MB: usize = 256;

/// Runs `outflank bench`; exit status 1 on a wrong exact score.
pub fn run(mut a: Args) -> anyhow::Result<i32> {
    // The bench's table is part of its workload: its node counts and signature depend on it.
    a.engine.hash_mb.get_or_insert(BENCH_HASH_MB);
    let engine = a.engine.engine()?;
    let entries = parse_obf(FFO_20_39)?;
    let (mut nodes, mut secs, mut wrong) = (0u64, 0.0, 0);
    let mut signature = 0u64;
    println!("endgame: FFO #20-#39, exact");
    for (i, e) in entries.iter().take(a.positions).enumerate() {
        engine.clear_hash();
        let limits = Limits {
            solve: Some(Solve::Exact),
            ..Limits::default()
        };
        let info = engine.search(e.position.board, &limits, &mut |_| {});
        let want = e.scores.iter().map(|s| s.1).max();
        let got = info.best().map(|l| l.score);
        let ok = want == got;
        if !ok {
            wrong += 1;
        }
        nodes += info.nodes;
        secs += info.elapsed.as_secs_f64();
        signature = signature.wrapping_mul(31).wrapping_add(info.nodes);
        println!(
            "  #{:<2} {:>+4} {:>8.3} s {:>13} nodes {:>6.1} M nodes/s{}",
            20 + i,
            got.unwrap_or(0),
            info.elapsed.as_secs_f64(),
            info.nodes,
            info.nps() / 1e6,
            if ok { "" } else { "  WRONG" }
        );
    }
    let (end_nodes, end_secs) = (nodes, secs);
    println!("midgame: {} openings, depth {}", OPENINGS.len(), a.depth);
    for o in OPENINGS {
        let g = parse_transcript(o)?;
        engine.clear_hash();
        let limits = Limits {
            depth: Some(a.depth),
            ..Limits::default()
        };
        let info = engine.search(g.position().board, &limits, &mut |_| {});
        nodes += info.nodes;
        secs += info.elapsed.as_secs_f64();
        signature = signature.wrapping_mul(31).wrapping_add(info.nodes);
        let best = info.best().map(|l| format!("{} {:+}", l.mv, l.score));
        println!(
            "  {o:<18} {:>10} {:>8.3} s {:>13} nodes {:>6.1} M nodes/s",
            best.unwrap_or_default(),
            info.elapsed.as_secs_f64(),
            info.nodes,
            info.nps() / 1e6
        );
    }
    println!(
        "endgame: {end_nodes} nodes in {end_secs:.3} s ({:.1} M nodes/s)",
        end_nodes as f64 / end_secs.max(1e-9) / 1e6
    );
    println!(
        "total: {nodes} nodes in {secs:.3} s ({:.1} M nodes/s), {}, signature {signature:016x}, {wrong} wrong",
        nodes as f64 / secs.max(1e-9) / 1e6,
        plural(engine.threads(), "thread")
    );
    Ok(if wrong > 0 { 1 } else { 0 })
}
