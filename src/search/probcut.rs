//! Multi-ProbCut parameters: how well a shallow search predicts a deep one.
//!
//! For a deep search of depth `d` the shallow search has depth [`ProbcutParams::shallow_depth`];
//! the deep score is predicted as `a * shallow + b` with standard deviation `sigma`, where
//! `sigma` depends on the phase and both depths. A node is cut when the prediction lies
//! outside the window by `t` standard deviations (`t` set by the selectivity level).
//!
//! `outflank train probcut` measures the parameters (see `crate::train::probcut`): sigma per
//! deep depth and phase where measured ([`ProbcutParams::sigma_table`]), the linear formula
//! elsewhere. They are saved as JSON ([`ProbcutParams::to_json`]).

/// The shallowest midgame search that probcut may cut: depth 2, predicted by the evaluation
/// (shallow depth 0). The fit measures depths from 3 on (`outflank train probcut`); depth 2
/// takes the fitted linear formula's sigma.
pub const PROBCUT_MIN_DEPTH: i32 = 2;

/// Regression parameters of Multi-ProbCut.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbcutParams {
    /// Slope of the prediction.
    pub a: f64,
    /// Intercept of the prediction, in discs.
    pub b: f64,
    /// `sigma = s0 + s_empties * empties + s_depth * deep + s_shallow * shallow` (discs).
    pub sigma: [f64; 4],
    /// Sigma for the endgame: predicting an exact score from a shallow midgame search,
    /// `e0 + e_empties * empties + e_shallow * shallow`.
    pub end_sigma: [f64; 3],
    /// Measured sigma per deep depth and phase (`sigma_table[deep][phase]`, in discs); a
    /// missing or zero entry falls back to the formula.
    pub sigma_table: Vec<[f64; crate::eval::PHASES]>,
}

impl Default for ProbcutParams {
    /// Hand-set values, in the range published for pattern evaluations.
    fn default() -> Self {
        ProbcutParams {
            a: 1.0,
            b: 0.0,
            sigma: [2.0, 0.05, 0.35, -0.25],
            end_sigma: [3.0, 0.12, -0.25],
            sigma_table: Vec::new(),
        }
    }
}

impl ProbcutParams {
    /// The depth of the shallow search used to predict a search of `depth`.
    #[inline]
    pub fn shallow_depth(depth: i32) -> i32 {
        (depth / 4) * 2 + (depth & 1)
    }

    /// Standard deviation of the deep score given the shallow one.
    #[inline]
    pub fn sigma(&self, empties: u32, deep: i32, shallow: i32) -> f64 {
        if let Some(row) = self.sigma_table.get(deep as usize) {
            let v = row[crate::eval::phase(empties)];
            if v > 0.0 {
                return v.max(1.0);
            }
        }
        let [s0, se, sd, ss] = self.sigma;
        (s0 + se * empties as f64 + sd * deep as f64 + ss * shallow as f64).max(1.0)
    }

    /// Standard deviation of the exact score given a shallow search.
    #[inline]
    pub fn end_sigma(&self, empties: u32, shallow: i32) -> f64 {
        let [e0, ee, es] = self.end_sigma;
        (e0 + ee * empties as f64 + es * shallow as f64).max(1.0)
    }
}

impl ProbcutParams {
    /// The parameters as JSON: `{"a", "b", "sigma": [4], "end_sigma": [3], "sigma_table":
    /// [[phases] per deep depth]}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "a": self.a,
            "b": self.b,
            "sigma": self.sigma,
            "end_sigma": self.end_sigma,
            "sigma_table": self.sigma_table.iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
        })
    }

    /// Parameters from JSON written by [`ProbcutParams::to_json`].
    pub fn from_json(v: &serde_json::Value) -> anyhow::Result<ProbcutParams> {
        let num = |x: &serde_json::Value| {
            x.as_f64()
                .ok_or_else(|| anyhow::anyhow!("a probcut parameter is not a number"))
        };
        let arr = |x: &serde_json::Value, n: usize| -> anyhow::Result<Vec<f64>> {
            let a = x
                .as_array()
                .ok_or_else(|| anyhow::anyhow!("a probcut parameter is not an array"))?;
            anyhow::ensure!(
                a.len() == n,
                "a probcut array has {} entries, expected {n}",
                a.len()
            );
            a.iter().map(num).collect()
        };
        let sigma = arr(&v["sigma"], 4)?;
        let end = arr(&v["end_sigma"], 3)?;
        let mut table = Vec::new();
        if let Some(rows) = v["sigma_table"].as_array() {
            for r in rows {
                let row = arr(r, crate::eval::PHASES)?;
                table.push(std::array::from_fn(|i| row[i]));
            }
        }
        Ok(ProbcutParams {
            a: num(&v["a"])?,
            b: num(&v["b"])?,
            sigma: [sigma[0], sigma[1], sigma[2], sigma[3]],
            end_sigma: [end[0], end[1], end[2]],
            sigma_table: table,
        })
    }

    /// What the search uses: the fitted parameters for the midgame (the regression, the
    /// measured sigmas and the fitted formula), the hand-set sigma for the selective endgame
    /// (with the fitted one the exact solves of FFO #20-#39 took 16% more nodes). Against the
    /// hand-set midgame formula this gained +72 Elo [+16, +126] at equal time (docs/match.md).
    pub fn searched() -> ProbcutParams {
        ProbcutParams::searched_from(ProbcutParams::shipped())
    }

    /// What the search uses of a fitted set `fitted` (a `train probcut` file): its midgame
    /// parameters, with the hand-set endgame sigma, as [`ProbcutParams::searched`] does with
    /// the shipped set.
    pub fn searched_from(fitted: ProbcutParams) -> ProbcutParams {
        ProbcutParams {
            end_sigma: ProbcutParams::default().end_sigma,
            ..fitted
        }
    }

    /// The parameters fitted by the training pipeline that ship with the crate
    /// (`weights/probcut.json`).
    pub fn shipped() -> ProbcutParams {
        ProbcutParams::parse(SHIPPED).expect("the shipped probcut parameters are valid")
    }

    /// Parameters from the text of a `train probcut` file (JSON, see
    /// [`ProbcutParams::to_json`]).
    pub fn parse(text: &str) -> anyhow::Result<ProbcutParams> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| anyhow::anyhow!("not JSON: {e}"))?;
        ProbcutParams::from_json(&v)
    }

    /// The parameters of a `train probcut` file; the error names the file.
    pub fn load(path: &std::path::Path) -> anyhow::Result<ProbcutParams> {
        use anyhow::Context;
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        ProbcutParams::parse(&text)
            .with_context(|| format!("{}: not probcut parameters", path.display()))
    }
}

/// The shipped parameters.
static SHIPPED: &str = include_str!("../../weights/probcut.json");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let p = ProbcutParams {
            sigma_table: vec![[1.5; crate::eval::PHASES]; 3],
            ..ProbcutParams::default()
        };
        let back = ProbcutParams::from_json(&p.to_json()).unwrap();
        assert_eq!(back, p);
        let _ = ProbcutParams::shipped();
    }

    #[test]
    fn shallow_is_shallower() {
        for d in 3..40 {
            let s = ProbcutParams::shallow_depth(d);
            assert!(s >= 0 && s < d - 1, "{d} {s}");
        }
    }
}
