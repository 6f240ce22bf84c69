//! Entry points: parse a scenario, validate it, run it, hand back results.
//!
//! Owns: [`Format`], [`RunOptions`], [`RunOutput`], [`Series`], [`validate_str`] and
//! [`run_str`]. The Python extension (`crates/atmsim-py`) is a thin wrapper over these.

use crate::error::{Error, Result};

/// Text format of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// Overrides applied on top of the scenario file.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Replaces `simulation.seed`.
    pub seed: Option<u64>,
    /// Replaces `simulation.batching` (serve busy ports inline; results are identical).
    pub batching: Option<bool>,
}

/// Time series in tidy long form: one row per (time, entity, metric) sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub entity: Vec<String>,
    pub metric: Vec<String>,
    pub value: Vec<f64>,
}

/// What a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The summary document (per-connection, per-port, conservation, run statistics).
    pub summary: serde_json::Value,
    pub series: Series,
}

/// Parse and validate a scenario without running it.
pub fn validate_str(_text: &str, _format: Format, origin: &str) -> Result<()> {
    Err(Error::internal("not implemented yet").in_file(origin))
}

/// Parse, validate and run a scenario. `progress` is called with the fraction of simulated
/// time done (0.0 ..= 1.0), at most a few hundred times per run.
pub fn run_str(
    _text: &str,
    _format: Format,
    origin: &str,
    _opts: RunOptions,
    _progress: &mut dyn FnMut(f64),
) -> Result<RunOutput> {
    Err(Error::internal("not implemented yet").in_file(origin))
}
