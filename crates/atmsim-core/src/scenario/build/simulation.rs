//! The `[simulation]` section: how long the run lasts and how it is measured.
//!
//! Owns [`Run`], the run-wide settings every later section may read: the end and the
//! warm-up of the run, the seed of all random streams (the document's, or the caller's
//! override), the spread of the link clocks, the probes' sampling interval, batching and the
//! order of simultaneous events.

use crate::error::Result;
use crate::kernel::TieOrder;
use crate::rng::{self, Purpose};
use crate::scenario::limits::{self, invalid, span};
use crate::scenario::model::{SimulationSec, TieOrderSpec};
use crate::time::{SimDuration, SimTime};

/// The checked `[simulation]` section.
pub(super) struct Run {
    /// Length of the run [s], as given.
    pub duration_s: f64,
    /// The end of the run.
    pub until: SimTime,
    /// Statistics start here.
    pub warmup: SimTime,
    /// Master seed of all random streams.
    pub seed: u64,
    /// Links without their own `clock_ppm` draw an offset in ± this [ppm]; 0 = nominal clocks.
    pub clock_spread_ppm: f64,
    /// Period of the time-series probes; `None` = no probes.
    pub sample_every: Option<SimDuration>,
    /// Serve busy ports and links inline up to the next event.
    pub batching: bool,
    /// Order of simultaneous events.
    pub ties: TieOrder,
}

/// Check `[simulation]`; the overrides replace the document's seed and batching.
pub(super) fn settings(
    sim: &SimulationSec,
    seed_override: Option<u64>,
    batching_override: Option<bool>,
) -> Result<Run> {
    let duration = limits::f64_in(
        "simulation.duration_s",
        sim.duration_s,
        limits::MIN_DURATION_S,
        limits::MAX_DURATION_S,
        "a duration in seconds",
    )?;
    let warmup = span("simulation.warmup_s", sim.warmup_s, 1.0, "s", limits::MAX_DURATION_S)?;
    if warmup.as_secs_f64() >= duration {
        return invalid(
            "simulation.warmup_s",
            format!("expected a warm-up shorter than duration_s ({duration} s), got {}", sim.warmup_s),
        );
    }
    if sim.seed < 0 {
        return invalid("simulation.seed", format!("expected a non-negative integer seed, got {}", sim.seed));
    }
    let seed = seed_override.unwrap_or(sim.seed as u64);
    let clock_spread_ppm = sim.link_clock_ppm;
    if !(clock_spread_ppm.is_finite() && (0.0..=1000.0).contains(&clock_spread_ppm)) {
        return invalid(
            "simulation.link_clock_ppm",
            format!("expected a clock tolerance between 0 and 1000 ppm, got {clock_spread_ppm}"),
        );
    }
    let until = SimTime::ZERO + SimDuration::from_secs_f64(duration);
    let sample_every = sample_interval(sim.sample_interval_ms, duration)?;
    Ok(Run {
        duration_s: duration,
        until,
        warmup: SimTime::ZERO + warmup,
        seed,
        clock_spread_ppm,
        sample_every,
        batching: batching_override.unwrap_or(sim.batching),
        ties: match sim.tie_order {
            TieOrderSpec::Fifo => TieOrder::Fifo,
            TieOrderSpec::Lifo => TieOrder::Lifo,
            TieOrderSpec::Random => TieOrder::Random(rng::derive(seed, Purpose::TieOrder, 0)),
        },
    })
}

/// `simulation.sample_interval_ms`: `None` = the default, duration / 500 but at least
/// [`limits::MIN_SAMPLE_INTERVAL_S`]; 0 = no probes; otherwise an interval of at least
/// that minimum, at most the run, and giving at most [`limits::MAX_SAMPLES`] samples.
fn sample_interval(ms: Option<f64>, duration_s: f64) -> Result<Option<SimDuration>> {
    const F: &str = "simulation.sample_interval_ms";
    let Some(ms) = ms else {
        return Ok(Some(SimDuration::from_secs_f64((duration_s / 500.0).max(limits::MIN_SAMPLE_INTERVAL_S))));
    };
    if ms == 0.0 {
        return Ok(None);
    }
    let lo_ms = (limits::MIN_SAMPLE_INTERVAL_S * 1e3).max(duration_s * 1e3 / limits::MAX_SAMPLES);
    let hi_ms = duration_s * 1e3;
    if !(ms.is_finite() && ms >= lo_ms && ms <= hi_ms) {
        return invalid(
            F,
            format!(
                "expected 0 (no probes) or an interval between {} ms (at least 1 µs, and at most {} samples per run) and the run's duration ({} ms), got {}",
                limits::num(lo_ms),
                limits::num(limits::MAX_SAMPLES),
                limits::num(hi_ms),
                limits::num(ms)
            ),
        );
    }
    Ok(Some(SimDuration::from_secs_f64(ms / 1000.0)))
}
