//! Multi-ProbCut parameters: how well a shallow search predicts a deep one.
//!
//! For a deep search of depth `d` the shallow search has depth [`ProbcutParams::shallow_depth`];
//! the deep score is predicted as `a * shallow + b` with standard deviation `sigma`, where
//! `sigma` depends on the phase and both depths. A node is cut when the prediction lies
//! outside the window by `t` standard deviations (`t` set by the selectivity level).

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
}

impl Default for ProbcutParams {
    /// Hand-set values, in the range published for pattern evaluations.
    fn default() -> Self {
        ProbcutParams {
            a: 1.0,
            b: 0.0,
            sigma: [2.0, 0.05, 0.35, -0.25],
            end_sigma: [3.0, 0.12, -0.25],
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_is_shallower() {
        for d in 3..40 {
            let s = ProbcutParams::shallow_depth(d);
            assert!(s >= 0 && s < d - 1, "{d} {s}");
        }
    }
}
