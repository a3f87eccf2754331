//! `outflank train calibrate`: a weights file's two parity biases calibrated on exactly
//! solved positions ([`crate::train::calibrate`]), with a table of the errors before, as the
//! model says after, and after.

use super::Stderr;
use super::args::CalibrateArgs;
use crate::cli::common::{plural, read_obf};
use crate::notation::{ObfEntry, write_obf};
use crate::search::{Limits, ProbcutParams};
use crate::train::calibrate::{self, Cell, Measured, Measuring, ParityErrors, measure_all};
use crate::train::report::Report;
use crate::train::sources::wthor_games;
use anyhow::Context;
use std::sync::Arc;
use std::time::Instant;

/// Runs `outflank train calibrate`.
pub fn run(a: CalibrateArgs) -> anyhow::Result<i32> {
    let start = Instant::now();
    let depths = super::args::search_depths(a.depths);
    let weights = crate::eval::load_or_shipped(a.eval_file.as_deref())?;
    let probcut = a
        .probcut_file
        .as_deref()
        .map(|p| ProbcutParams::load(p).map(ProbcutParams::searched_from))
        .transpose()?;
    let entries = positions(&a, &depths)?;
    let before = Measuring {
        weights,
        probcut,
        hash_mb: a.hash_mb,
        selectivity: a.selectivity.unwrap_or(Limits::default().selectivity),
    };
    let pb = searches_bar(&entries, &depths, "measuring");
    let done = calibrate::calibrate(&entries, &depths, &before, &pb)?;
    pb.finish_and_clear();
    crate::eval::save(&done.weights, &a.out)?;
    let after = Measuring {
        weights: Arc::new(done.weights),
        ..before
    };
    let pb = searches_bar(&entries, &depths, "checking");
    let checked = measure_all(&entries, depths.clone(), &after, &pb)?;
    pb.finish_and_clear();
    print!(
        "{}",
        report(&entries, &done.measured, &done.model, &checked)
    );
    println!(
        "written to {} in {:.1} s",
        a.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// The positions: `--obf`'s, or those drawn from `--wthor`'s games and solved (written to
/// `--positions-out` when asked), once `--empties` and `depths` are known to calibrate.
fn positions(
    a: &CalibrateArgs,
    depths: &std::ops::RangeInclusive<u32>,
) -> anyhow::Result<Vec<ObfEntry>> {
    if let Some(path) = &a.obf {
        let file = path.display().to_string();
        let (_, numbered) = read_obf(&file)?;
        for (line, e) in &numbered {
            crate::accuracy::check_scores(&e.scores)
                .with_context(|| format!("in {file} line {line}"))?;
        }
        return Ok(numbered.into_iter().map(|(_, e)| e).collect());
    }
    calibrate::check_plan(&a.empties, depths)?;
    let games = wthor_games(&a.wthor)?;
    let drawn = calibrate::draw_positions(&games, &a.empties, a.count)?;
    let pb = Stderr.bar(drawn.len() as u64);
    pb.set_message("solving");
    let solved = calibrate::solve_positions(&drawn, a.hash_mb, &pb);
    pb.finish_and_clear();
    if let Some(out) = &a.positions_out {
        std::fs::write(out, write_obf(&solved))
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(solved)
}

/// A bar counting the searches of every position to every depth.
fn searches_bar(
    entries: &[ObfEntry],
    depths: &std::ops::RangeInclusive<u32>,
    what: &'static str,
) -> indicatif::ProgressBar {
    let pb = Stderr.bar((entries.len() * depths.clone().count()) as u64);
    pb.set_message(what);
    pb
}

/// The report: the positions, the errors by depth and parity before, as the model predicts
/// them after, and measured after; the model and the shifts.
fn report(
    entries: &[ObfEntry],
    before: &[Measured],
    model: &ParityErrors,
    after: &[Measured],
) -> String {
    let mut by_empties: Vec<u32> = entries
        .iter()
        .map(|e| e.position.board.empty_count())
        .collect();
    by_empties.sort_unstable();
    by_empties.dedup();
    let counts: Vec<String> = by_empties
        .iter()
        .map(|&e| {
            let n = entries
                .iter()
                .filter(|x| x.position.board.empty_count() == e)
                .count();
            format!("{n} at {e} empties")
        })
        .collect();
    let mut s = format!(
        "{} ({})\n",
        plural(entries.len(), "solved position"),
        counts.join(", ")
    );
    s += "mean signed error / MAE in discs (search minus exact, for the side to move)\n";
    s += &format!(
        "{:>5} {:>5} {:>9} {:>16} {:>10} {:>16}\n",
        "depth", "root", "searches", "before", "predicted", "after"
    );
    for (c, d) in calibrate::cells(before).iter().zip(calibrate::cells(after)) {
        let root = if c.odd { "odd" } else { "even" };
        // The model's error after the shift: what it predicts before, less its own
        // prediction.
        let predicted = c.mean - model.predict(c.depth, if c.odd { 1 } else { 0 });
        s += &format!(
            "{:>5} {:>5} {:>9} {:>16} {:>+10.2} {:>16}\n",
            c.depth,
            root,
            c.count,
            pair(c),
            predicted,
            pair(&d)
        );
    }
    let (even, odd) = model.shifts();
    let scale = f64::from(crate::eval::SCALE);
    s += &format!(
        "leaf error for the side to move: {:+.2} at even empties, {:+.2} at odd (a {:+.2}, b {:+.2})\n",
        model.at_leaf(0),
        model.at_leaf(1),
        model.a,
        model.b
    );
    s += &format!(
        "bias shifts: {:+.2} disc at even empties ({even:+}/{u}), {:+.2} at odd ({odd:+}/{u})\n",
        f64::from(even) / scale,
        f64::from(odd) / scale,
        u = crate::eval::SCALE
    );
    s
}

/// `mean / mae` of a cell.
fn pair(c: &Cell) -> String {
    format!("{:+.2} / {:.2}", c.mean, c.mae)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::calibrate::CalibrateConfig;
    use clap::Parser;

    #[derive(Parser)]
    #[command(no_binary_name = true)]
    struct Calibrate {
        #[command(flatten)]
        a: CalibrateArgs,
    }

    #[derive(Parser)]
    #[command(no_binary_name = true)]
    struct All {
        #[command(flatten)]
        a: super::super::args::AllArgs,
    }

    #[test]
    fn the_defaults_are_those_of_the_pipeline() {
        let c = CalibrateConfig::default();
        let a = Calibrate::try_parse_from(["--obf", "p.obf", "--out", "w.ofw"])
            .unwrap()
            .a;
        assert_eq!(
            (a.empties, a.count, a.hash_mb),
            (c.empties.clone(), c.count, c.hash_mb)
        );
        assert_eq!(a.depths, (*c.depths.start(), *c.depths.end()));
        let all = All::try_parse_from(["--wthor", "g", "--out", "o", "--work", "w"])
            .unwrap()
            .a;
        assert_eq!(all.calibrate_games, 0);
        assert_eq!((all.calibrate_seed, all.calibrate_count), (c.seed, c.count));
        assert_eq!(all.calibrate_empties, c.empties);
        assert_eq!(all.calibrate_depths, (*c.depths.start(), *c.depths.end()));
    }
}
