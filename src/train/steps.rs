//! The runs of `train data`, `train fit` and `train probcut`: the whole run into one file, or
//! one shard of it into its shard file; and the merges of their shards into the bytes one
//! process writes.

use super::data::{self, GameRecord, Sample};
use super::label;
use super::probcut::{self, ProbcutConfig, ProbcutData};
use super::report::Report;
use super::sources::GameSources;
use super::{EpochReport, FitConfig, LabelConfig, fit};
use crate::eval::{Weights, file};
use crate::shard::{self, RunId, Shard, ShardFile};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a step's result goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// One file of the whole run, in the step's own format.
    File(PathBuf),
    /// The file of one shard of the run, written into this directory.
    Shard(Shard, PathBuf),
}

impl Output {
    /// The part of the run this output takes: the whole run for a file.
    pub fn shard(&self) -> Shard {
        match self {
            Output::File(_) => Shard::WHOLE,
            Output::Shard(s, _) => *s,
        }
    }
}

/// What a run of `train data` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataWritten {
    /// Samples written.
    pub samples: usize,
    /// Games labelled.
    pub games: usize,
    /// The file written.
    pub path: PathBuf,
}

/// `train data`: labels the games of `sources` (those of `out`'s shard) with `label` and
/// writes their samples, a sample file or the shard's file.
pub fn run_data(
    sources: &GameSources,
    label: &LabelConfig,
    out: &Output,
    report: &dyn Report,
) -> anyhow::Result<DataWritten> {
    let games = sources.games()?;
    report.say(None, &format!("{} games", games.len()));
    let shard = out.shard();
    if let Output::Shard(_, dir) = out {
        // Hours of labelling are not spent on a shard that could not be written.
        ShardFile {
            run: data_run(&games, label),
            shard,
            items: Vec::new(),
        }
        .check_place(dir)?;
    }
    let indices: Vec<usize> = shard
        .items(games.len() as u64)
        .map(|i| i as usize)
        .collect();
    let pb = report.bar(indices.len() as u64);
    let per_game = label::label_some(&games, &indices, label, &pb);
    pb.finish_and_clear();
    let samples = per_game.iter().map(Vec::len).sum();
    let path = match out {
        Output::File(path) => {
            let all: Vec<Sample> = per_game.into_iter().flatten().collect();
            data::write_samples(path, &all)?;
            path.clone()
        }
        Output::Shard(_, dir) => ShardFile {
            run: data_run(&games, label),
            shard,
            items: indices
                .iter()
                .zip(&per_game)
                .map(|(&i, s)| (i as u64, data::encode_samples(s)))
                .collect(),
        }
        .write_new_into(dir)?,
    };
    Ok(DataWritten {
        samples,
        games: indices.len(),
        path,
    })
}

/// The run of `train data` over `games` labelled with `label`: named for the games' hash.
pub fn data_run(games: &[GameRecord], label: &LabelConfig) -> RunId {
    let games_id = data::games_id(games);
    RunId {
        step: shard::Step::Data,
        seed: shard::hex_seed(&games_id),
        total: games.len() as u64,
        // The parity and deviation words only when on: the shards of earlier runs keep
        // their settings.
        params: format!(
            "exact_empties={} skip_plies={}{}{}{} games={games_id}",
            label.exact_empties,
            label.skip_plies,
            if label.parity_labels {
                " parity_labels=1"
            } else {
                ""
            },
            match label.deviations {
                0 => String::new(),
                n => format!(" deviations={n}"),
            },
            search_words(label)
        ),
    }
}

/// The words of a data run's searching labels, when it has them: their depth and the
/// weights and probcut parameters they search with.
fn search_words(label: &LabelConfig) -> String {
    let Some(s) = &label.search else {
        return String::new();
    };
    let weights = s
        .weights
        .clone()
        .unwrap_or_else(crate::eval::shipped_weights);
    let mut words = format!(
        " search_depth={} search_weights={}",
        s.depth,
        shard::weights_id(&weights)
    );
    if let Some(p) = &s.probcut {
        words.push_str(" search_probcut=");
        words.push_str(&shard::sha256_hex(p.to_json().to_string().as_bytes()));
    }
    words
}

/// The sample file of `train data` from the items of its shards, in order: the same bytes
/// as one process.
pub fn merge_data(m: &shard::Merged) -> anyhow::Result<Vec<u8>> {
    let mut count = 0;
    let mut records = Vec::new();
    for (i, item) in m.items.iter().enumerate() {
        let s = data::decode_samples(item)
            .map_err(|why| anyhow::anyhow!("data shards: game {i} has {why}"))?;
        count += s.len();
        records.extend_from_slice(item);
    }
    Ok(data::sample_file_bytes(count, &records))
}

/// `train fit`: fits weights to the samples of the sample files `data` and writes them to
/// `out`, saying each epoch's losses and the last one's per phase.
pub fn run_fit(
    data: &[PathBuf],
    cfg: &FitConfig,
    out: &Path,
    report: &dyn Report,
) -> anyhow::Result<()> {
    let samples = data::read_sample_files(data)?;
    report.say(None, &format!("{} samples", samples.len()));
    let w = fit_saying(&samples, cfg, report, &|r| {
        let held = r
            .heldout_mse
            .map(|m| format!(", held-out MSE {m:.3} (RMSE {:.3})", m.sqrt()))
            .unwrap_or_default();
        format!(
            "epoch {:3}: train MSE {:.3} (RMSE {:.3}){held}",
            r.epoch,
            r.train_mse,
            r.train_mse.sqrt()
        )
    });
    file::save(&w, out)
}

/// Fits weights to `samples` under a progress bar, saying `line` of each epoch and the last
/// epoch's losses per phase.
pub(super) fn fit_saying(
    samples: &[Sample],
    cfg: &FitConfig,
    report: &dyn Report,
    line: &dyn Fn(&EpochReport) -> String,
) -> Weights {
    let pb = report.bar(cfg.epochs as u64);
    let w = fit(samples, cfg, &pb, &mut |r| {
        report.say(Some(&pb), &line(r));
        if r.epoch == cfg.epochs {
            for l in phase_lines(r) {
                report.say(Some(&pb), &l);
            }
        }
    });
    pb.finish_and_clear();
    w
}

/// The per-phase losses of an epoch, a table's lines.
fn phase_lines(r: &EpochReport) -> Vec<String> {
    let mut lines = vec!["phase  train rows  RMSE  held-out rows  RMSE".to_string()];
    for (p, &(n, mse, tn, tmse)) in r.phases.iter().enumerate() {
        lines.push(format!(
            "{p:>5} {n:>11} {:>5.2} {tn:>14} {:>5.2}",
            mse.sqrt(),
            tmse.sqrt()
        ));
    }
    lines
}

/// What one shard of a run wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardWritten {
    /// Its items.
    pub items: usize,
    /// The items of the whole run.
    pub total: u64,
    /// Its file.
    pub path: PathBuf,
}

/// `train probcut`: draws the positions of the games of `wthor`, searches them with the
/// weights of `eval_file` (else the shipped ones) and writes the fitted parameters (JSON,
/// their table said), or measures `out`'s shard of the positions into its shard file.
pub fn run_probcut(
    wthor: &[PathBuf],
    eval_file: Option<&Path>,
    cfg: &ProbcutConfig,
    out: &Output,
    report: &dyn Report,
) -> anyhow::Result<Option<ShardWritten>> {
    let games = data::read_games(wthor)?;
    let w = crate::eval::load_or_shipped(eval_file)?;
    let (shard, dir) = match out {
        Output::File(path) => {
            probcut_to_file(&games, cfg, w, path, report)?;
            return Ok(None);
        }
        Output::Shard(shard, dir) => (*shard, dir),
    };
    let (mid, end) = probcut::draw(&games, cfg);
    let total = (mid.len() + end.len()) as u64;
    let indices: Vec<usize> = shard.items(total).map(|i| i as usize).collect();
    let pb = report.bar(indices.len() as u64);
    let measured = probcut::measure_some(cfg, w.clone(), (&mid, &end), &indices, &pb);
    pb.finish_and_clear();
    let file = ShardFile {
        run: RunId {
            step: shard::Step::Probcut,
            seed: cfg.seed,
            total,
            params: format!(
                "mid={} end={} max_depth={} end_max_empties={} weights={} games={}",
                mid.len(),
                end.len(),
                cfg.max_depth,
                cfg.end_max_empties,
                shard::weights_id(&w),
                data::games_id(&games)
            ),
        },
        shard,
        items: indices
            .iter()
            .zip(&measured)
            .map(|(&i, m)| (i as u64, m.encode()))
            .collect(),
    };
    Ok(Some(ShardWritten {
        items: indices.len(),
        total,
        path: file.write_new_into(dir)?,
    }))
}

/// Measures the positions of `games`, fits the probcut parameters, says their table and
/// writes them to `out`.
pub(super) fn probcut_to_file(
    games: &[GameRecord],
    cfg: &ProbcutConfig,
    w: Arc<Weights>,
    out: &Path,
    report: &dyn Report,
) -> anyhow::Result<()> {
    let pb = report.bar(0);
    let measured = probcut::measure(games, cfg, w, &pb);
    pb.finish_and_clear();
    let (json, table) = probcut_fit(&measured, cfg.max_depth)?;
    for line in table.lines() {
        report.say(None, line);
    }
    std::fs::write(out, json).with_context(|| format!("cannot write {}", out.display()))
}

/// The probcut parameters of `train probcut` from the items of its shards, in order: the
/// same JSON text (and the same table of the fit) as one process.
pub fn merge_probcut(m: &shard::Merged) -> anyhow::Result<(String, String)> {
    let max_depth: u32 = shard::param(&m.run.params, "max_depth")
        .and_then(|d| d.parse().ok())
        .context("probcut shards without their max_depth")?;
    let measured = m
        .items
        .iter()
        .enumerate()
        .map(|(i, b)| {
            probcut::Measured::decode(b)
                .with_context(|| format!("probcut shards: position {i} is damaged"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    probcut_fit(&ProbcutData::from_measured(measured), max_depth)
}

/// The fitted parameters as JSON text, and the table of the fit.
fn probcut_fit(measured: &ProbcutData, max_depth: u32) -> anyhow::Result<(String, String)> {
    use std::fmt::Write as _;
    let (params, cells) = probcut::fit_params(measured, max_depth);
    let mut t = String::from("deep shallow phase     n      a      b  sigma\n");
    for c in &cells {
        let _ = writeln!(
            t,
            "{:>4} {:>7} {:>5} {:>5} {:>6.3} {:>6.2} {:>6.2}",
            c.deep, c.shallow, c.phase, c.n, c.a, c.b, c.sigma
        );
    }
    let _ = writeln!(
        t,
        "pooled a {:.4} b {:.3}; sigma = {:.3} + {:.4} e + {:.3} d + {:.3} s; end sigma = {:.3} + {:.4} e + {:.3} s",
        params.a,
        params.b,
        params.sigma[0],
        params.sigma[1],
        params.sigma[2],
        params.sigma[3],
        params.end_sigma[0],
        params.end_sigma[1],
        params.end_sigma[2]
    );
    let json = serde_json::to_string_pretty(&params.to_json())? + "\n";
    Ok((json, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn merged(items: Vec<Vec<u8>>) -> shard::Merged {
        shard::Merged {
            run: RunId {
                step: shard::Step::Data,
                seed: 1,
                total: items.len() as u64,
                params: "max_depth=4".into(),
            },
            count: 1,
            items,
        }
    }

    #[test]
    fn an_output_takes_its_shard_or_the_whole_run() {
        assert_eq!(Output::File("x".into()).shard(), Shard::WHOLE);
        let s = Shard { index: 1, count: 3 };
        assert_eq!(Output::Shard(s, ".".into()).shard(), s);
    }

    #[test]
    fn a_data_run_names_its_parity_labels_only_when_on() {
        let label = LabelConfig {
            exact_empties: 12,
            skip_plies: 3,
            ..LabelConfig::default()
        };
        let off = data_run(&[], &label);
        assert_eq!(off.step, shard::Step::Data);
        assert_eq!(off.total, 0);
        assert!(
            off.params
                .starts_with("exact_empties=12 skip_plies=3 games=")
        );
        let on = data_run(
            &[],
            &LabelConfig {
                parity_labels: true,
                ..label.clone()
            },
        );
        assert!(
            on.params
                .starts_with("exact_empties=12 skip_plies=3 parity_labels=1 games=")
        );
        assert_eq!(on.seed, off.seed);
        let dev = data_run(
            &[],
            &LabelConfig {
                deviations: 4,
                ..label.clone()
            },
        );
        assert!(
            dev.params
                .starts_with("exact_empties=12 skip_plies=3 deviations=4 games=")
        );
    }

    #[test]
    fn a_data_run_with_search_labels_names_their_depth_and_weights() {
        let label = LabelConfig {
            exact_empties: 12,
            ..LabelConfig::default()
        };
        let plain = data_run(&[], &label);
        let searched = |depth, weights: Option<Arc<crate::eval::Weights>>, probcut| {
            data_run(
                &[],
                &LabelConfig {
                    search: Some(label::SearchLabels {
                        depth,
                        weights,
                        probcut,
                    }),
                    ..label.clone()
                },
            )
            .params
        };
        let shipped = crate::eval::shipped_weights();
        let id = shard::weights_id(&shipped);
        let d6 = searched(6, None, None);
        assert!(
            d6.starts_with(&format!(
                "exact_empties=12 skip_plies=0 search_depth=6 search_weights={id} games="
            )),
            "{d6}"
        );
        // The shipped weights given or not: the same run; other depths, weights or probcut
        // parameters: another.
        assert_eq!(searched(6, Some(shipped.clone()), None), d6);
        assert_ne!(searched(8, None, None), d6);
        let mut other = (*shipped).clone();
        other.block_mut(3)[0] += 1;
        assert_ne!(searched(6, Some(Arc::new(other)), None), d6);
        let pc = searched(6, None, Some(crate::search::ProbcutParams::default()));
        assert!(pc.contains(" search_probcut="), "{pc}");
        assert_ne!(pc, d6);
        assert!(
            plain
                .params
                .starts_with("exact_empties=12 skip_plies=0 games=")
        );
    }

    #[test]
    fn data_shards_merge_to_the_sample_file_and_a_damaged_one_is_named() {
        let sample = Sample {
            board: Board::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000),
            score: 4,
            kind: data::LabelKind::Exact,
            game: 7,
        };
        let items = vec![
            data::encode_samples(&[sample]),
            data::encode_samples(&[]),
            data::encode_samples(&[sample, sample]),
        ];
        let records: Vec<u8> = items.concat();
        let bytes = merge_data(&merged(items.clone())).unwrap();
        assert_eq!(bytes, data::sample_file_bytes(3, &records));
        let mut bad = items;
        bad[2].pop();
        let why = merge_data(&merged(bad)).unwrap_err().to_string();
        assert!(why.starts_with("data shards: game 2 has"), "{why}");
    }

    #[test]
    fn probcut_shards_need_their_max_depth_and_whole_items() {
        let mut m = merged(vec![vec![1, 2, 3]]);
        let why = merge_probcut(&m).unwrap_err().to_string();
        assert_eq!(why, "probcut shards: position 0 is damaged");
        m.run.params = "mid=1".into();
        let why = merge_probcut(&m).unwrap_err().to_string();
        assert_eq!(why, "probcut shards without their max_depth");
    }
}
