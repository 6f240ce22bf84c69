//! The per-VC rate controller (regulator) of an RCSP output port.
//!
//! Owns: [`TrafficSpec`] (the (X_min, X_ave, I) traffic model of Ferrari & Verma, Mah Tab 4-3)
//! and [`Regulator`] (the eligibility times it assigns, and the cells that wait for them).
//!
//! **Rule** (Zhang & Ferrari, "Rate-Controlled Static-Priority Queueing", INFOCOM 1993: the
//! rate-jitter-controlling regulator for the (X_min, X_ave, I) model; spec `mah96.md` §4.1,
//! marked \[X\] there; the paper's own text was not at hand, so this is the spec's statement of
//! it, with the window taken half-open): the exact eligibility time of cell k arriving at
//! `a_k` is
//!
//! ```text
//! e_k = max(a_k, e_{k-1} + X_min, e_{k-n} + I),   n = ⌊I / X_ave⌋
//! ```
//!
//! so that consecutive eligibility times are at least X_min apart and no half-open window
//! `[t, t + I)` holds more than n of them (cells k-n..k-1 are n cells; cell k must fall at or
//! after `e_{k-n} + I`). Using the arrival time at *this* port makes it rate-jitter control:
//! the pattern is reconstructed at every hop (Mah §2.3, §4.3.1).
//!
//! **Granularity** (Mah §4.3.1: the regulators "imposed an additional worst-case delay of 8
//! cell times"; spec A-26): the time a cell is released is `e_k` rounded *up* to the next
//! point of a slotted clock of `slot` = 8 cell times of the port, with its origin at time 0.
//! The history keeps the exact `e_k`, so rounding delays each cell by less than one slot and
//! never accumulates; released times therefore conform to the spec to within one slot.
//!
//! **State** is bounded to 2 s (Mah §6.4.3 fn 1: each queue kept "up to two seconds' worth
//! of buffering and rate control information"; spec A-26): a cell whose exact eligibility
//! time would lie more than 2 s after its arrival is refused (the port counts it as a
//! regulator drop) and does not enter the history. The history itself is the last n exact
//! eligibility times in a ring (allocated once, when the VC's class is set).
//!
//! The bound is on the *eligibility time*, not on the number of waiting cells: it covers the
//! footnote's "rate control information" as well as its "buffering". The two readings differ
//! only under work-conserving RCSP, whose cells may leave before their eligibility time: a
//! source sending faster than its spec then runs ahead of its eligibility times without
//! holding cells here, and only this rule stops that debt at 2 s. A limit on waiting cells
//! (2 s at X_ave) was the first implementation; `docs/mah96.md` ("Rate-control state")
//! gives both readings' results at the thesis' scale.

use super::cell::Cell;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The 2 s of regulator buffering of A-26 \[ps\].
pub const REGULATOR_HORIZON: SimDuration = SimDuration::from_secs(2);

/// Largest window count n = I/X_ave accepted (bounds the ring's memory).
pub const MAX_WINDOW_CELLS: u64 = 1 << 20;

/// A connection's traffic specification (Mah Tab 4-3, Tab 4-5), exact durations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrafficSpec {
    /// Minimum spacing of cells (peak rate).
    pub x_min: SimDuration,
    /// Average spacing of cells over an interval `i` (average rate).
    pub x_ave: SimDuration,
    /// Averaging interval.
    pub i: SimDuration,
}

impl TrafficSpec {
    /// A checked spec: 0 < X_min ≤ X_ave ≤ I, and I/X_ave ≤ [`MAX_WINDOW_CELLS`].
    pub fn new(x_min: SimDuration, x_ave: SimDuration, i: SimDuration) -> Result<Self, String> {
        if x_min.as_ps() == 0 || x_min > x_ave || x_ave > i {
            return Err(format!("traffic spec needs 0 < X_min <= X_ave <= I (got {x_min}, {x_ave}, {i})"));
        }
        if i.as_ps() / x_ave.as_ps() > MAX_WINDOW_CELLS {
            return Err(format!("traffic spec: I/X_ave above {MAX_WINDOW_CELLS} cells"));
        }
        Ok(TrafficSpec { x_min, x_ave, i })
    }

    /// n = ⌊I/X_ave⌋: most cells eligible in any window of length I (at least 1).
    pub fn window_cells(&self) -> u32 {
        (self.i.as_ps() / self.x_ave.as_ps()) as u32
    }
}

/// Round `t` up to the slotted clock of period `slot` (origin 0); `slot` 0 = no rounding.
#[inline]
pub fn round_up(t: SimTime, slot: SimDuration) -> SimTime {
    let s = slot.as_ps();
    if s == 0 {
        return t;
    }
    SimTime(t.0.div_ceil(s).saturating_mul(s))
}

/// One VC's rate controller at one port.
#[derive(Clone, Debug)]
pub struct Regulator {
    pub spec: TrafficSpec,
    slot: SimDuration,
    /// Exact eligibility time of the previous cell.
    last: Option<SimTime>,
    /// The last `n` exact eligibility times, oldest at `head` once full.
    ring: Vec<SimTime>,
    head: usize,
    /// Cells waiting to become eligible, with their (rounded) eligibility times, in order.
    pub waiting: VecDeque<(SimTime, Cell)>,
}

impl Regulator {
    /// A regulator with no history, releasing on a clock of period `slot`.
    pub fn new(spec: TrafficSpec, slot: SimDuration) -> Self {
        Regulator {
            spec,
            slot,
            last: None,
            ring: Vec::with_capacity(spec.window_cells() as usize),
            head: 0,
            waiting: VecDeque::new(),
        }
    }

    /// Forget the history (a new connection on the VC); waiting cells keep their times.
    pub fn reset(&mut self, spec: TrafficSpec) {
        self.spec = spec;
        self.last = None;
        self.ring.clear();
        self.ring.reserve(spec.window_cells() as usize);
        self.head = 0;
    }

    /// The exact eligibility time a cell arriving at `now` would get (nothing recorded).
    #[inline]
    pub fn peek_exact(&self, now: SimTime) -> SimTime {
        let mut e = now;
        if let Some(last) = self.last {
            e = e.max(last + self.spec.x_min);
        }
        if self.ring.len() == self.spec.window_cells() as usize {
            e = e.max(self.ring[self.head] + self.spec.i);
        }
        e
    }

    /// The exact eligibility time of a cell arriving at `now`, recorded in the history.
    pub fn assign_exact(&mut self, now: SimTime) -> SimTime {
        let e = self.peek_exact(now);
        let n = self.spec.window_cells() as usize;
        if self.ring.len() == n {
            self.ring[self.head] = e;
            self.head = (self.head + 1) % n;
        } else {
            self.ring.push(e);
        }
        self.last = Some(e);
        e
    }

    /// The release time of a cell arriving at `now`: its exact eligibility time rounded up to
    /// the slotted clock.
    #[inline]
    pub fn assign(&mut self, now: SimTime) -> SimTime {
        let e = self.assign_exact(now);
        round_up(e, self.slot)
    }

    /// Admit a cell arriving at `now`: `Some(its release time)` (the cell waits), or `None`
    /// if its eligibility time would lie more than [`REGULATOR_HORIZON`] ahead (the cell is
    /// refused and leaves no trace).
    pub fn admit(&mut self, now: SimTime, cell: Cell) -> Option<SimTime> {
        if self.peek_exact(now) > now + REGULATOR_HORIZON {
            return None;
        }
        let t = self.assign(now);
        self.waiting.push_back((t, cell));
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One "cell time" of these tests: 1 µs.
    const T: u64 = 1_000_000;

    fn d(cells: u64) -> SimDuration {
        SimDuration::from_ps(cells * T)
    }

    fn spec(x_min: u64, x_ave: u64, i: u64) -> TrafficSpec {
        TrafficSpec::new(d(x_min), d(x_ave), d(i)).unwrap()
    }

    fn exact(r: &mut Regulator, arrivals: &[u64]) -> Vec<u64> {
        arrivals.iter().map(|&a| r.assign_exact(SimTime(a * T)).0 / T).collect()
    }

    /// Greedy source, 10 cells at time 0, X_min = 2, X_ave = 4, I = 8 (n = 2): pairs two
    /// apart, each pair 8 after the previous one. By hand: 0 2 | 8 10 | 16 18 | 24 26 | 32 34.
    #[test]
    fn greedy_burst_follows_peak_spacing_and_window_count() {
        let mut r = Regulator::new(spec(2, 4, 8), SimDuration::ZERO);
        assert_eq!(exact(&mut r, &[0; 10]), vec![0, 2, 8, 10, 16, 18, 24, 26, 32, 34]);
    }

    /// X_min = 1, X_ave = 2, I = 8 (n = 4): bursts of four at peak rate, one burst per 8.
    #[test]
    fn window_rule_limits_bursts_to_n_per_interval() {
        let mut r = Regulator::new(spec(1, 2, 8), SimDuration::ZERO);
        assert_eq!(exact(&mut r, &[0; 9]), vec![0, 1, 2, 3, 8, 9, 10, 11, 16]);
    }

    /// Conforming arrivals are eligible on arrival; at 13 the window rule (8 + I) binds,
    /// not the spacing (12 + X_min); a late cell restarts from its arrival.
    #[test]
    fn conforming_arrivals_are_eligible_on_arrival() {
        let mut r = Regulator::new(spec(2, 4, 8), SimDuration::ZERO);
        assert_eq!(exact(&mut r, &[0, 4, 8, 12, 13, 30]), vec![0, 4, 8, 12, 16, 30]);
    }

    /// Release times are the exact ones rounded up to slots of 8 (origin 0), and the exact
    /// history, not the rounded one, constrains the next cell.
    #[test]
    fn release_times_round_up_to_the_slotted_clock_without_accumulating() {
        let mut r = Regulator::new(spec(3, 3, 30), d(8));
        let got: Vec<u64> = [1u64, 1, 1, 1, 1].iter().map(|&a| r.assign(SimTime(a * T)).0 / T).collect();
        // exact: 1 4 7 10 13 -> rounded: 8 8 8 16 16
        assert_eq!(got, vec![8, 8, 8, 16, 16]);
        assert_eq!(round_up(SimTime(16 * T), d(8)), SimTime(16 * T), "slot points stay");
        assert_eq!(round_up(SimTime(0), d(8)), SimTime(0));
    }

    /// The ring holds exactly n times; a long burst's state does not grow.
    #[test]
    fn history_is_bounded_by_the_window_count() {
        let s = spec(1, 4, 40); // n = 10
        let mut r = Regulator::new(s, SimDuration::ZERO);
        for _ in 0..1000 {
            r.assign_exact(SimTime::ZERO);
        }
        assert_eq!(r.ring.len(), 10);
        assert!(r.ring.capacity() <= 16);
    }

    /// A greedy audio source (Tab 4-5: X_min 4 ms, X_ave 5 ms, I 100 ms; 20 cells per 100 ms)
    /// at time 0: cell k is eligible at 100·⌊k/20⌋ + 4·(k mod 20) ms, so cells 0..=400 (the
    /// last at exactly 2 s) are admitted and cell 401 (2.004 s) is refused, leaving no trace.
    /// Sending waiting cells early (work-conserving RCSP) does not make room: the bound is on
    /// the rate-control state, which only time frees.
    #[test]
    fn eligibility_times_are_bounded_to_two_seconds_ahead() {
        let ms = |m: u64| SimDuration::from_millis(m);
        let s = TrafficSpec::new(ms(4), ms(5), ms(100)).unwrap();
        let mut r = Regulator::new(s, SimDuration::ZERO);
        let c = Cell { vci: 1, frame: 0, flags: 0 };
        for k in 0..=400u64 {
            let t = r.admit(SimTime::ZERO, c).expect("within 2 s");
            assert_eq!(t, SimTime::ZERO + ms(100 * (k / 20) + 4 * (k % 20)));
        }
        let last = r.last;
        assert_eq!(r.admit(SimTime::ZERO, c), None);
        assert_eq!(r.last, last, "a refused cell leaves no trace");
        r.waiting.clear(); // all sent early
        assert_eq!(r.admit(SimTime::ZERO, c), None, "early service frees no rate-control state");
        assert_eq!(r.admit(SimTime::ZERO + ms(4), c), Some(SimTime::ZERO + ms(2004)), "4 ms later: one more");
    }

    #[test]
    fn bad_specs_are_errors_not_panics() {
        assert!(TrafficSpec::new(d(0), d(1), d(2)).is_err());
        assert!(TrafficSpec::new(d(3), d(2), d(8)).is_err());
        assert!(TrafficSpec::new(d(1), d(9), d(8)).is_err());
        assert!(TrafficSpec::new(SimDuration::from_ps(1), SimDuration::from_ps(1), SimDuration::from_secs(1)).is_err());
    }

    proptest::proptest! {
        /// Against a brute-force checker: exact eligibility times are non-decreasing, never
        /// before arrival, X_min apart, and no window [t, t + I) holds more than n of them.
        #[test]
        fn exact_times_conform(gaps in proptest::collection::vec(0u64..6, 1..120),
                               x_min in 1u64..4, extra in 0u64..4, k in 1u64..5) {
            let x_ave = x_min + extra;
            let s = spec(x_min, x_ave, x_ave * k + extra);
            let n = s.window_cells() as usize;
            let mut r = Regulator::new(s, SimDuration::ZERO);
            let mut a = 0;
            let mut es = Vec::new();
            for g in gaps {
                a += g;
                let e = r.assign_exact(SimTime(a * T)).0 / T;
                proptest::prop_assert!(e >= a);
                es.push(e);
            }
            for w in es.windows(2) {
                proptest::prop_assert!(w[1] >= w[0] + x_min);
            }
            for (i, &t) in es.iter().enumerate() {
                let inside = es[i..].iter().take_while(|&&u| u < t + s.i.as_ps() / T).count();
                proptest::prop_assert!(inside <= n);
            }
        }
    }
}
