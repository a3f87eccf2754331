//! How a front-end's engine is made ([`EngineSetup`]): what the worker thread builds its
//! engine from. The options ([`super::options`]) make one; the session ([`super::session`])
//! uses it.

use crate::eval::Weights;
use crate::search::{Engine, EngineConfig, ProbcutParams};
use std::sync::Arc;

/// How a front-end's engine is made: its threads and table, and its evaluation weights and
/// probcut parameters when they are not the shipped ones (`--eval-file`, `--probcut-file`).
/// No process-wide setting is involved: each engine gets the ones it is given.
#[derive(Clone, Debug, Default)]
pub struct EngineSetup {
    /// Threads and table size.
    pub config: EngineConfig,
    /// The weights; the shipped ones when `None`.
    pub weights: Option<Arc<Weights>>,
    /// The probcut parameters as the search uses them (`--probcut-file`); the shipped ones
    /// when `None`.
    pub probcut: Option<ProbcutParams>,
}

impl From<EngineConfig> for EngineSetup {
    fn from(config: EngineConfig) -> EngineSetup {
        EngineSetup {
            config,
            weights: None,
            probcut: None,
        }
    }
}

impl EngineSetup {
    /// The engine, or the error when the system refuses the memory of its table.
    pub fn engine(&self) -> Result<Engine, crate::search::TableTooLarge> {
        let mut engine = Engine::try_new(self.config.clone())?;
        if let Some(w) = &self.weights {
            engine.set_eval(w.clone());
        }
        if let Some(p) = &self.probcut {
            engine.set_probcut(p.clone());
        }
        Ok(engine)
    }
}
