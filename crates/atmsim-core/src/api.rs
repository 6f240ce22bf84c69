//! Entry points: parse a scenario, validate it, run it, hand back results.
//!
//! Owns: [`RunOptions`], [`RunOutput`] (with its [`Capture`]s), [`Series`], [`validate_str`] and
//! [`run_str`]. The Python extension (`crates/atmsim-py`) is a thin wrapper over these.

use crate::error::{Error, ErrorKind, Result};
pub use crate::measure::Series;
use crate::net::Network;
pub use crate::pcap::Capture;
pub use crate::scenario::Format;
use crate::scenario::{self, ScenarioDoc};
use crate::summary::{self, Summary};
use std::ops::ControlFlow;

/// Overrides applied on top of the scenario file.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Replaces `simulation.seed`.
    pub seed: Option<u64>,
    /// Replaces `simulation.batching` (serve busy ports inline; results are identical).
    pub batching: Option<bool>,
}

/// What a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The summary document (per-connection, per-port, conservation, run statistics).
    pub summary: serde_json::Value,
    pub series: Series,
    /// One complete pcap file per `[[capture]]`, in scenario order.
    pub captures: Vec<Capture>,
}

/// Parse and validate a scenario without running it.
pub fn validate_str(text: &str, format: Format, origin: &str) -> Result<()> {
    validate_str_with(text, format, origin, &mut || ControlFlow::Continue(()))
}

/// [`validate_str`], calling `poll` at most every [`scenario::build::POLL_EVERY`] while it
/// builds; `ControlFlow::Break(())` stops it with an [`ErrorKind::Interrupted`] error.
pub fn validate_str_with(
    text: &str,
    format: Format,
    origin: &str,
    poll: &mut dyn FnMut() -> ControlFlow<()>,
) -> Result<()> {
    let doc = scenario::parse(text, format, origin)?;
    scenario::build::build_with(&doc, None, None, poll).map_err(|e| e.in_file(origin))?;
    Ok(())
}

/// Parse, validate and run a scenario. `progress` is called with the fraction of simulated
/// time done (0.0 ..= 1.0), at most a few hundred times per run; returning
/// `ControlFlow::Break(())` stops the run with an [`ErrorKind::Interrupted`] error. While the
/// network is built, `progress` is called with 0.0 (at most every
/// [`scenario::build::POLL_EVERY`]), so a caller can stop a long build the same way.
pub fn run_str(
    text: &str,
    format: Format,
    origin: &str,
    opts: RunOptions,
    progress: &mut dyn FnMut(f64) -> ControlFlow<()>,
) -> Result<RunOutput> {
    let doc = scenario::parse(text, format, origin)?;
    let name = doc.name.clone().unwrap_or_else(|| default_name(origin));
    let mut net = scenario::build::build_with(&doc, opts.seed, opts.batching, &mut || progress(0.0))
        .map_err(|e| e.in_file(origin))?;
    let seed = opts.seed.unwrap_or(doc.simulation.seed as u64);
    let wall = std::time::Instant::now();
    if !net.run(progress) {
        if net.engine().queue().generation_overflow() {
            return Err(Error {
                kind: ErrorKind::Invalid,
                file: origin.to_string(),
                field: String::new(),
                message: format!(
                    "a zero-delay loop: more than 255 events caused one another at t = {} s without time \
                     advancing (look for zero delays, processing times or timer periods)",
                    net.engine().now().as_secs_f64()
                ),
            });
        }
        return Err(Error {
            kind: ErrorKind::Interrupted,
            file: origin.to_string(),
            field: String::new(),
            message: "run stopped by the caller".into(),
        });
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let summary = Summary { scenario: Some(name), seed: Some(seed), ..Summary::of(&net, wall_s) }.to_value();
    Ok(RunOutput { summary, series: net.take_series(), captures: net.take_captures() })
}

/// Build and run a network from an already parsed document (for tests and benchmarks).
pub fn run_doc(doc: &ScenarioDoc, opts: RunOptions) -> Result<(Network, serde_json::Value)> {
    let mut net = scenario::build(doc, opts.seed, opts.batching)?;
    let wall = std::time::Instant::now();
    net.run(&mut |_| ControlFlow::Continue(()));
    let s = summary::summary(&net, wall.elapsed().as_secs_f64());
    Ok((net, s))
}

/// Run the TOML scenario `text` (from `origin`) for at most `cap_s` simulated seconds (the
/// warm-up cut to half of that if longer) with batching as given (`None`: the file's), and
/// return its [`results_digest`].
pub fn capped_digest(text: &str, origin: &str, cap_s: f64, batching: Option<bool>) -> Result<String> {
    capped_digest_with_ties(text, origin, cap_s, batching, None)
}

/// [`capped_digest`] with the engine's tie order set (`None`: the file's). The digest leaves
/// the tie order out: results must not depend on it (DESIGN §2b).
pub fn capped_digest_with_ties(
    text: &str,
    origin: &str,
    cap_s: f64,
    batching: Option<bool>,
    ties: Option<scenario::model::TieOrderSpec>,
) -> Result<String> {
    let mut doc = scenario::parse(text, Format::Toml, origin)?;
    if let Some(t) = ties {
        doc.simulation.tie_order = t;
    }
    if doc.simulation.duration_s > cap_s {
        doc.simulation.duration_s = cap_s;
        if doc.simulation.warmup_s >= cap_s {
            doc.simulation.warmup_s = cap_s / 2.0;
        }
        if doc.simulation.sample_interval_ms.is_some_and(|ms| ms * 1e-3 > cap_s) {
            doc.simulation.sample_interval_ms = Some(cap_s * 1e3 / 10.0);
        }
    }
    let (_, summary) = run_doc(&doc, RunOptions { seed: None, batching })?;
    Ok(results_digest(&summary))
}

/// A digest of a run's results: FNV-1a (64 bit) over the summary as compact JSON with its keys
/// sorted, the `run` section (wall-clock times and rates) and the `batching` and `tie_order`
/// settings (results are the same either way: DESIGN §2b) left out. Equal digests mean
/// bit-identical results; the determinism tests compare them before and after a change to a
/// hot path (`tests/it/results_are_unchanged.rs`).
pub fn results_digest(summary: &serde_json::Value) -> String {
    let mut s = summary.clone();
    if let Some(m) = s.as_object_mut() {
        m.remove("run");
        m.remove("batching");
        m.remove("tie_order");
    }
    // serde_json's map is ordered by key (no `preserve_order` feature): the text is canonical.
    let text = serde_json::to_string(&s).expect("a summary serializes");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn default_name(origin: &str) -> String {
    std::path::Path::new(origin)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.starts_with('<'))
        .unwrap_or("scenario")
        .to_string()
}
