//! The range of every number and string a scenario may hold, and the checks that enforce it.
//!
//! Owns: the limits (constants below, listed for users in `docs/scenario.md`, "Limits") and
//! the field validators [`super::build()`] uses: each takes the dotted field path and returns
//! either the value in simulator units or an [`Error`] that names the field, the limit and
//! the value given. Nothing is clamped, wrapped or rounded away silently.
//!
//! **Why these bounds.** Two kinds of reason:
//!
//! * *Representable range.* Simulated time is a `u64` count of picoseconds
//!   ([`crate::time`]), which ends after 2⁶⁴ ps ≈ 1.84·10⁷ s (213 days). A run forms sums of
//!   its inputs: an event is scheduled at `now + x`, with `now ≤ duration` and `x` one link or
//!   access delay, one CPU job, one GCRA limit τ, one sample interval or one TCP timer
//!   (≤ 64 s, BSD's `TCPTV_REXMTMAX`). With every `x` bounded as below, the largest such sum,
//!   `MAX_DURATION_S + MAX_DELAY_S + MAX_CPU_JOB_S + MAX_TAU_S + 64 s`, stays below the end
//!   of the range (asserted at compile time: [`LARGEST_SUM_S`]). Beyond that the time
//!   arithmetic saturates rather than wraps (a second line of defence, never reached by a
//!   valid scenario).
//! * *Physics and progress.* A rate is at least one cell per second (424 b/s) and at most
//!   [`MAX_RATE_BPS`] (1 Tb/s, above any ATM interface, and a cell time of 424 ps stays
//!   well above the picosecond tick); a cell source cannot offer more than the link it
//!   sends on carries (beyond that its adapter queue only grows); a sample interval is at
//!   least [`MIN_SAMPLE_INTERVAL_S`] (1 µs) and a run takes at most [`MAX_SAMPLES`]
//!   samples and records at most [`MAX_SAMPLE_VALUES`] values in them (the default interval
//!   widens to stay within it), so the probes cannot stand still or fill memory; names are at most
//!   [`MAX_NAME_BYTES`] bytes, so every message that quotes one stays one short line.

use crate::error::{Error, Result};
use crate::time::SimDuration;

/// Longest run \[s\] (about 115.7 days).
pub const MAX_DURATION_S: f64 = 1e7;
/// Shortest run \[s\]: 1 µs (a few cell times at OC-3c).
pub const MIN_DURATION_S: f64 = 1e-6;
/// Longest one-way propagation delay of a link or access link \[s\].
pub const MAX_DELAY_S: f64 = 1e4;
/// Longest host CPU job \[s\]: per-segment cost plus per-byte cost × the host's MTU.
pub const MAX_CPU_JOB_S: f64 = 10.0;
/// Largest GCRA limit τ of a shaper or policer \[s\].
pub const MAX_TAU_S: f64 = 1e3;
/// Lowest rate of a cell-carrying link, shaper, policer or cell source \[b/s\]: one cell per second.
pub const MIN_CELL_RATE_BPS: f64 = 424.0;
/// Lowest rate of a packet-level access link \[b/s\].
pub const MIN_PACKET_RATE_BPS: f64 = 1.0;
/// Highest rate of anything \[b/s\].
pub const MAX_RATE_BPS: f64 = 1e12;
/// Shortest sampling interval of the time-series probes \[s\].
pub const MIN_SAMPLE_INTERVAL_S: f64 = 1e-6;
/// Most probe instants one run may take (duration / sample interval).
pub const MAX_SAMPLES: f64 = 1e6;
/// Most values the periodic probes may record in one run (instants × values per instant,
/// `scenario::build::simulation::bound_samples`): 22 bytes each, recorded and in the run's
/// output alike (`measure::Series` stores each name once), so about 220 MB.
pub const MAX_SAMPLE_VALUES: f64 = 1e7;
/// Longest name of any object (host, switch, link, VC, connection, source, capture, scenario) \[bytes\].
pub const MAX_NAME_BYTES: usize = 256;
/// Longest free-text `description` \[bytes\].
pub const MAX_DESCRIPTION_BYTES: usize = 65_536;

/// The largest time sum a valid run can form \[s\] (module docs).
pub const LARGEST_SUM_S: f64 = MAX_DURATION_S + MAX_DELAY_S + MAX_CPU_JOB_S + MAX_TAU_S + 64.0;
const _: () = assert!(LARGEST_SUM_S < 18_446_744.0, "limits exceed the u64-picosecond time range");

pub fn invalid<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T> {
    Err(Error::invalid(field, msg))
}

/// A number in `[lo, hi]` (finite). `what` names the quantity and its unit for the message,
/// e.g. "a delay in milliseconds".
pub fn f64_in(field: impl Into<String>, v: f64, lo: f64, hi: f64, what: &str) -> Result<f64> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        invalid(field, format!("expected {what} between {} and {}, got {}", num(lo), num(hi), num(v)))
    }
}

/// A positive number (> 0, finite).
pub fn positive_f64(field: impl Into<String>, v: f64, what: &str) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        invalid(field, format!("expected a positive {what}, got {}", num(v)))
    }
}

/// An integer in `[lo, hi]`.
pub fn int_in(field: impl Into<String>, v: i64, lo: i64, hi: i64, what: &str) -> Result<i64> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        invalid(field, format!("expected {what} between {lo} and {hi}, got {v}"))
    }
}

/// A span given in `unit_s` seconds per unit (1e-3 for a `_ms` field), within
/// `[0, max_s]`, as a [`SimDuration`]. `unit` is the field's unit for the message.
pub fn span(field: impl Into<String>, v: f64, unit_s: f64, unit: &str, max_s: f64) -> Result<SimDuration> {
    let field = field.into();
    let max = max_s / unit_s;
    if !(v.is_finite() && v >= 0.0 && v <= max) {
        return invalid(
            field,
            format!("expected a time between 0 and {} {unit} ({}), got {}", num(max), secs(max_s), num(v)),
        );
    }
    Ok(SimDuration::try_from_secs_f64(v * unit_s).expect("bounded spans fit the time range"))
}

/// A rate \[b/s\] within `[lo, hi]`, rounded to a whole bit per second.
pub fn rate(field: impl Into<String>, v: f64, lo: f64, hi: f64) -> Result<u64> {
    let field = field.into();
    if !(v.is_finite() && v >= lo && v <= hi) {
        let why = if lo == MIN_CELL_RATE_BPS { " (one cell per second)" } else { "" };
        return invalid(
            field,
            format!("expected a rate between {} b/s{why} and {} b/s, got {}", num(lo), num(hi), num(v)),
        );
    }
    Ok(v.round() as u64)
}

/// A name: non-empty, no whitespace or control characters, at most [`MAX_NAME_BYTES`].
pub fn name(field: &str, v: &str) -> Result<()> {
    reference(field, v)?;
    if v.is_empty() || v.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return invalid(field, format!("expected a non-empty name without spaces, got `{}`", quoted(v)));
    }
    Ok(())
}

/// A string that refers to a named object: at most [`MAX_NAME_BYTES`] (checked before any
/// lookup, so a message quoting it stays short).
pub fn reference(field: &str, v: &str) -> Result<()> {
    if v.len() > MAX_NAME_BYTES {
        return invalid(
            field,
            format!("expected a name of at most {MAX_NAME_BYTES} bytes, got {} bytes (`{}`)", v.len(), quoted(v)),
        );
    }
    Ok(())
}

/// `s` for an error message: at most 40 characters, with an ellipsis when cut.
pub fn quoted(s: &str) -> String {
    const KEEP: usize = 40;
    if s.chars().count() <= KEEP {
        return s.to_string();
    }
    let head: String = s.chars().take(KEEP).collect();
    format!("{head}…")
}

/// A number as a person writes it: 1e7, 0.001, 424, 1e-6.
pub fn num(v: f64) -> String {
    if v.is_finite() && v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Seconds in a unit that reads well (for the "(…)" in span messages).
fn secs(s: f64) -> String {
    if s >= 86_400.0 {
        format!("{:.1} days", s / 86_400.0)
    } else if s >= 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{} s", num(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_refuse_what_does_not_fit_and_name_the_limit() {
        let e = span("link[0].delay_ms", 1e300, 1e-3, "ms", MAX_DELAY_S).unwrap_err();
        assert_eq!(e.field, "link[0].delay_ms");
        assert!(e.message.contains("between 0 and 1e7 ms (2.8 h)"), "{}", e.message);
        assert!(e.message.contains("got 1e300"), "{}", e.message);
        for bad in [f64::NAN, f64::INFINITY, -1.0, -0.0 - 1e-300] {
            assert!(span("x", bad, 1.0, "s", 1.0).is_err(), "{bad}");
        }
        assert_eq!(span("x", 1.5, 1e-3, "ms", 1.0).unwrap(), SimDuration::from_micros(1500));
        assert_eq!(span("x", 0.0, 1.0, "s", 1.0).unwrap(), SimDuration::ZERO);
    }

    #[test]
    fn rates_have_a_floor_and_a_ceiling() {
        assert_eq!(rate("r", 149.76e6, MIN_CELL_RATE_BPS, MAX_RATE_BPS).unwrap(), 149_760_000);
        let e = rate("r", 1e20, MIN_CELL_RATE_BPS, MAX_RATE_BPS).unwrap_err();
        assert!(e.message.contains("between 424 b/s (one cell per second) and 1e12 b/s, got 1e20"), "{}", e.message);
        assert!(rate("r", 5e-324, MIN_CELL_RATE_BPS, MAX_RATE_BPS).is_err());
        assert!(rate("r", f64::NAN, MIN_CELL_RATE_BPS, MAX_RATE_BPS).is_err());
    }

    #[test]
    fn long_names_are_refused_and_quoted_short() {
        let long = "x".repeat(1_000_000);
        let e = name("host[0].name", &long).unwrap_err();
        assert!(e.message.len() < 200, "{}", e.message.len());
        assert!(e.message.contains("at most 256 bytes, got 1000000 bytes"), "{}", e.message);
        assert!(name("h", &"é".repeat(128)).is_ok());
        assert!(name("h", &"é".repeat(129)).is_err());
        assert!(reference("tcp[0].client", &long).is_err());
        assert_eq!(quoted("short"), "short");
    }

    #[test]
    fn the_largest_sum_a_run_forms_fits_the_time_range() {
        let ps = LARGEST_SUM_S * crate::time::PS_PER_SEC as f64;
        assert!(ps < u64::MAX as f64, "{ps}");
    }
}
