//! Simulation time, durations and bit rates.
//!
//! Owns: [`SimTime`] (an instant), [`SimDuration`] (a span), [`Rate`] (bits per second) and
//! [`Serializer`], which turns "send N bits at rate R" into durations without cumulative
//! rounding drift.
//!
//! **Resolution and range.** Both time types count integer **picoseconds** in a `u64`:
//! the range is 2^64 ps ≈ 213 days of simulated time, far beyond the 4000 s runs of the
//! studies. One OC-3c cell time (424 bits at 149.76 Mb/s) is 2 831 196.58 ps, so a
//! picosecond tick keeps per-cell rounding below one part in a million, and the
//! [`Serializer`] carries the remainder so that even that error never accumulates:
//! after `n` cells the departure time is exactly `floor(n·424·10¹² / R)` ps.
//!
//! **Never a silent wrap.** The scenario layer keeps every time-valued input, and the sums a
//! run forms from them, inside the range ([`crate::scenario::limits`]). Arithmetic here
//! saturates at [`SimTime::MAX`] as a second line of defence: an instant that would lie
//! beyond the range lies beyond every run's end, so it never happens — it cannot wrap
//! round to an early instant. [`SimDuration::try_from_secs_f64`] refuses what does not fit.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// An instant of simulated time [ps since the start of the run].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time \[ps\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds as a float, for reports only (never for simulation arithmetic).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// The instant `d` before this one (saturating at zero).
    pub fn saturating_sub(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
    /// The time elapsed since `earlier` (saturating at zero).
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_ps(ps: u64) -> Self {
        SimDuration(ps)
    }
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns.saturating_mul(1_000))
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us.saturating_mul(1_000_000))
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms.saturating_mul(1_000_000_000))
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s.saturating_mul(PS_PER_SEC))
    }
    /// From a number of seconds, rounded to the nearest picosecond; `None` unless
    /// `0 ≤ s` and the result fits in the range (NaN and infinities never fit).
    pub fn try_from_secs_f64(s: f64) -> Option<Self> {
        let ps = (s * PS_PER_SEC as f64).round();
        // 2^64 as f64 is exact; every f64 below it converts without saturating.
        (0.0..18_446_744_073_709_551_616.0).contains(&ps).then_some(SimDuration(ps as u64))
    }
    /// From a number of seconds, rounded to the nearest picosecond, for values already
    /// known to be in range (model constants, validated input, samples of distributions
    /// whose means were validated). Negative or NaN maps to zero; beyond the range to
    /// [`SimDuration::MAX`], which lies after the end of every run.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            return SimDuration(0);
        }
        Self::try_from_secs_f64(s).unwrap_or(SimDuration::MAX)
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// `k` times this span, saturating at [`SimDuration::MAX`].
    pub const fn mul(self, k: u64) -> Self {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    /// Saturates at [`SimTime::MAX`] (module docs: never a silent wrap).
    #[inline]
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    #[inline]
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for SimTime {
    type Output = SimDuration;
    /// The span from `o` to `self`; `o` must not be later (checked in debug builds; a
    /// release build gives zero rather than wrapping to a huge span).
    #[inline]
    fn sub(self, o: SimTime) -> SimDuration {
        debug_assert!(o.0 <= self.0, "SimTime subtraction out of order: {} - {}", self.0, o.0);
        SimDuration(self.0.saturating_sub(o.0))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    /// Saturates at [`SimDuration::MAX`].
    #[inline]
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

/// A transmission rate [bit/s], an exact integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn bps(b: u64) -> Self {
        Rate(b)
    }
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// Time to send `bits` at this rate, rounded down to the picosecond. Use a
    /// [`Serializer`] for a stream of back-to-back cells, so rounding does not accumulate.
    pub fn tx_time(self, bits: u64) -> SimDuration {
        let ps = (bits as u128 * PS_PER_SEC as u128) / self.0 as u128;
        SimDuration(u64::try_from(ps).unwrap_or(u64::MAX))
    }
}

/// Drift-free back-to-back serialization of fixed-size units (ATM cells) at a fixed rate.
///
/// Each call to [`Serializer::next_unit`] returns the duration of the next unit such that the
/// sum of the first `n` durations equals `floor(n·unit_bits·10¹²/rate)` exactly (the remainder
/// of the division is carried from one unit to the next). The quotient and remainder of one
/// unit are computed once, so a unit costs an addition and a comparison, not a division
/// (a 128-bit division per cell was 2–3 % of a cell-level run's instructions).
#[derive(Clone, Copy, Debug)]
pub struct Serializer {
    rate: u64,
    /// Carried remainder [bit·ps/s units], always `< rate`.
    rem: u64,
    /// `unit_bits·10¹² / rate` and `unit_bits·10¹² mod rate`.
    unit_q: u64,
    unit_r: u64,
}

impl Serializer {
    /// A serializer of `unit_bits`-bit units at `rate`.
    pub fn new(rate: Rate, unit_bits: u64) -> Self {
        assert!(rate.0 > 0 && rate.0 < 1 << 63, "rate in (0, 2⁶³) b/s (validated by the scenario layer)");
        let num = unit_bits as u128 * PS_PER_SEC as u128;
        let q = num / rate.0 as u128;
        Serializer {
            rate: rate.0,
            rem: 0,
            unit_q: u64::try_from(q).expect("a unit time within the time range (validated rates)"),
            unit_r: (num - q * rate.0 as u128) as u64,
        }
    }
    pub fn rate(&self) -> Rate {
        Rate(self.rate)
    }
    /// Duration of the next unit sent back to back with the previous one:
    /// `floor((unit_bits·10¹² + rem) / rate)`, carrying the new remainder.
    #[inline]
    pub fn next_unit(&mut self) -> SimDuration {
        // rem < rate and unit_r < rate, so the sum is below 2·rate < 2⁶⁴: at most one carry.
        let r = self.rem + self.unit_r;
        if r >= self.rate {
            self.rem = r - self.rate;
            SimDuration(self.unit_q + 1)
        } else {
            self.rem = r;
            SimDuration(self.unit_q)
        }
    }
    /// Forget the carried remainder (the line went idle: the next unit starts a new train).
    #[inline]
    pub fn reset(&mut self) {
        self.rem = 0;
    }

    /// Duration of the first unit of a train (after [`Serializer::reset`]).
    #[inline]
    pub fn first_unit(&self) -> SimDuration {
        SimDuration(self.unit_q)
    }

    /// Total duration of the next `k` units sent back to back, without drawing them: the sum
    /// of `k` calls of [`Serializer::next_unit`] is `k·q + floor((rem + k·r) / rate)`.
    #[inline]
    pub fn peek_units(&self, k: u64) -> SimDuration {
        let carry = (self.rem as u128 + k as u128 * self.unit_r as u128) / self.rate as u128;
        let ps = k as u128 * self.unit_q as u128 + carry;
        SimDuration(u64::try_from(ps).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peeking_k_units_sums_what_k_draws_would_give() {
        for bps in [1_536_000u64, 40_704_000, 100_000_000, 149_760_000, 599_040_000, 7] {
            let mut s = Serializer::new(Rate::bps(bps), 424);
            for warm in 0..5 {
                for k in [0u64, 1, 2, 3, 17, 192, 1000] {
                    let mut c = s;
                    let drawn: u64 = (0..k).map(|_| c.next_unit().as_ps()).sum();
                    assert_eq!(s.peek_units(k).as_ps(), drawn, "rate {bps}, after {warm} draws, k {k}");
                }
                s.next_unit();
            }
        }
    }

    #[test]
    fn unit_constructors_agree() {
        assert_eq!(SimDuration::from_secs(1).as_ps(), PS_PER_SEC);
        assert_eq!(SimDuration::from_millis(1500), SimDuration::from_secs_f64(1.5));
        assert_eq!(SimDuration::from_micros(3).as_ps(), 3_000_000);
        assert_eq!(SimDuration::from_secs_f64(-1.0), SimDuration::ZERO);
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let near_end = SimTime::MAX + SimDuration::ZERO;
        assert_eq!(near_end + SimDuration::from_secs(1), SimTime::MAX);
        let mut t = SimTime::from_ps(u64::MAX - 5);
        t += SimDuration::from_ps(10);
        assert_eq!(t, SimTime::MAX);
        assert_eq!(SimDuration::MAX + SimDuration::from_ps(1), SimDuration::MAX);
        assert_eq!(SimDuration::from_secs(u64::MAX / 2), SimDuration::MAX);
        assert_eq!(SimDuration::from_ps(3).mul(u64::MAX), SimDuration::MAX);
        assert_eq!(Rate::bps(1).tx_time(u64::MAX), SimDuration::MAX);
    }

    #[test]
    fn seconds_out_of_range_are_refused_or_saturate() {
        assert_eq!(SimDuration::try_from_secs_f64(1e300), None);
        assert_eq!(SimDuration::try_from_secs_f64(f64::NAN), None);
        assert_eq!(SimDuration::try_from_secs_f64(f64::INFINITY), None);
        assert_eq!(SimDuration::try_from_secs_f64(-1e-3), None);
        assert_eq!(SimDuration::try_from_secs_f64(18_446_744.0), Some(SimDuration(18_446_744 * PS_PER_SEC)));
        assert_eq!(SimDuration::try_from_secs_f64(18_446_745.0), None);
        assert_eq!(SimDuration::from_secs_f64(1e300), SimDuration::MAX);
        assert_eq!(SimDuration::from_secs_f64(f64::NAN), SimDuration::ZERO);
    }

    #[test]
    fn serializer_has_no_drift_over_a_million_cells() {
        let oc3 = Rate::bps(149_760_000);
        let mut s = Serializer::new(oc3, 424);
        let mut t = 0u64;
        for _ in 0..1_000_000 {
            t += s.next_unit().as_ps();
        }
        let exact = (1_000_000u128 * 424 * PS_PER_SEC as u128 / 149_760_000) as u64;
        assert_eq!(t, exact);
    }

    /// Every unit's duration is the long division with the carried remainder, for rates of
    /// every size the scenario limits allow (424 b/s to 1 Tb/s), odd and round, across resets.
    #[test]
    fn unit_durations_are_the_long_division_with_carry() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for rate in
            [424u64, 1_536_000, 44_736_000, 100_000_000, 149_760_000, 155_520_000, 999_999_937, 1_000_000_000_000]
        {
            let mut s = Serializer::new(Rate::bps(rate), 424);
            let mut rem: u128 = 0;
            for i in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 97 == 0 || x.is_multiple_of(1000) {
                    s.reset();
                    rem = 0;
                }
                let num = 424u128 * PS_PER_SEC as u128 + rem;
                let want = num / rate as u128;
                rem = num - want * rate as u128;
                assert_eq!(s.next_unit().as_ps() as u128, want, "rate {rate}, unit {i}");
            }
        }
    }

    #[test]
    fn t1_cell_time_is_276_us() {
        let d = Rate::bps(1_536_000).tx_time(424);
        assert!((d.as_secs_f64() - 276.04e-6).abs() < 0.01e-6, "{d}");
    }
}
