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
use crate::scenario::model::SimulationSec;
use crate::time::{SimDuration, SimTime};

/// The checked `[simulation]` section.
pub(super) struct Run {
    /// Length of the run \[s\], as given.
    pub duration_s: f64,
    /// The end of the run.
    pub until: SimTime,
    /// Statistics start here.
    pub warmup: SimTime,
    /// Master seed of all random streams.
    pub seed: u64,
    /// Links without their own `clock_ppm` draw an offset in ± this \[ppm\]; 0 = nominal clocks.
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
        ties: sim.tie_order.order(rng::derive(seed, Purpose::TieOrder, 0)),
    })
}

/// Keep the periodic probes of `run` within [`limits::MAX_SAMPLE_VALUES`] values, given how
/// many each instant records (`per_instant`: five per `[[tcp]]`, two per port, one per host;
/// `net::probes`). The default interval (`given` false) widens to fit; an interval the
/// document gives that does not fit is refused, with the shortest one that would.
pub(super) fn bound_samples(run: &mut Run, given: bool, per_instant: usize) -> Result<()> {
    let Some(every) = run.sample_every else { return Ok(()) };
    let (duration, per_instant) = (run.duration_s, per_instant.max(1) as f64);
    let instants = (duration / every.as_secs_f64()).floor() + 1.0;
    if instants * per_instant <= limits::MAX_SAMPLE_VALUES {
        return Ok(());
    }
    // The fewest instants that fit: one at the start and one every `shortest`.
    let shortest = duration / (limits::MAX_SAMPLE_VALUES / per_instant - 1.0);
    if !given {
        run.sample_every = (shortest > 0.0 && shortest <= duration)
            .then(|| SimDuration::from_secs_f64(shortest.max(every.as_secs_f64())));
        return Ok(());
    }
    let need = if shortest > 0.0 && shortest <= duration {
        format!("an interval of at least {} ms", limits::num(shortest * 1e3))
    } else {
        "0 (no probes: even two instants are too many)".to_string()
    };
    invalid(
        "simulation.sample_interval_ms",
        format!(
            "expected {need}: {} instants of {} probe values each (five per [[tcp]], two per port, one per host) \
             would record more than {} values",
            limits::num(instants),
            limits::num(per_instant),
            limits::num(limits::MAX_SAMPLE_VALUES)
        ),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(toml: &str) -> (Run, bool) {
        let sec: SimulationSec = toml::from_str(toml).unwrap();
        let given = sec.sample_interval_ms.is_some();
        (settings(&sec, None, None).unwrap(), given)
    }

    #[test]
    fn probes_within_the_bound_keep_their_interval() {
        let (mut run, given) = run_of("duration_s = 10.0\nsample_interval_ms = 1.0");
        // 10,001 instants of 999 values: 9,990,999 ≤ 10⁷.
        bound_samples(&mut run, given, 999).unwrap();
        assert_eq!(run.sample_every, Some(SimDuration::from_secs_f64(1e-3)));
    }

    #[test]
    fn a_given_interval_beyond_the_bound_is_refused_with_the_shortest_that_fits() {
        let (mut run, given) = run_of("duration_s = 10.0\nsample_interval_ms = 1.0");
        let e = bound_samples(&mut run, given, 1_001).unwrap_err();
        assert_eq!(e.field, "simulation.sample_interval_ms");
        // 10⁷ / 1,001 = 9,990 instants, one every 10 s / 9,989.
        assert!(e.message.starts_with("expected an interval of at least 1.001"), "{}", e.message);
        assert!(e.message.contains("10001 instants of 1001 probe values"), "{}", e.message);
        let (mut run, given) = run_of("duration_s = 10.0\nsample_interval_ms = 10000.0");
        let e = bound_samples(&mut run, given, 10_000_000).unwrap_err();
        assert!(e.message.starts_with("expected 0 (no probes"), "{}", e.message);
    }

    #[test]
    fn the_default_interval_widens_to_the_bound_and_stays_within_it() {
        for per_instant in [20_000, 20_001, 600_000, 1_800_000, 5_000_000] {
            let (mut run, given) = run_of("duration_s = 4000.0");
            bound_samples(&mut run, given, per_instant).unwrap();
            let every = run.sample_every.expect("probes stay on").as_secs_f64();
            let instants = (4000.0 / every).floor() + 1.0;
            assert!(instants * per_instant as f64 <= limits::MAX_SAMPLE_VALUES, "{per_instant}: {instants}");
            assert!((instants + 1.0) * per_instant as f64 > limits::MAX_SAMPLE_VALUES || every == 8.0, "{per_instant}");
        }
        let (mut run, given) = run_of("duration_s = 4000.0");
        bound_samples(&mut run, given, 15_000_000).unwrap();
        assert_eq!(run.sample_every, None, "not even two instants fit");
    }
}
