//! Admission control for deterministic delay bounds under Rate-Controlled Static Priority.
//!
//! Owns: the traffic specification of a guaranteed VC ([`TrafficSpec`]: Mah Tab 4-3's
//! `X_min`, `X_ave`, `I` and the priority level chosen from `d`), its worst-case envelope
//! ([`TrafficSpec::envelope`]), the level table of Mah Tab 4-2 ([`TAB_4_2_CELLS`],
//! [`level_for_delay`]) and [`DelayBoundAdmission`], an [`Admission`] hook that keeps, per
//! output port, the multiset of admitted descriptors and runs the RCSP schedulability test.
//!
//! # The test
//!
//! Zhang & Ferrari, "Rate-Controlled Static-Priority Queueing", Proc. IEEE INFOCOM '93 (Mah's
//! \[Zhang93a\]), the theorem on the delay bound of the static-priority scheduler behind the
//! rate controllers: with levels `1..n` of local bounds `d_1 < … < d_n`, link speed `l`,
//! largest packet `s_max`, and `b_j(t)` the most traffic connection `j` can make eligible in
//! any interval of length `t`, a level-`m` packet waits at most `d_m` in the scheduler if
//!
//! ```text
//!     Σ_{k ≤ m} Σ_{j ∈ C_k} b_j(d_m) / l + s_max / l  ≤  d_m .
//! ```
//!
//! Zhang's survey restates it for RCSP ("Service disciplines for guaranteed performance
//! service in packet-switching networks", Proc. IEEE 83(10), 1995), and Liebeherr, Wrege &
//! Ferrari ("Exact admission control for networks with a bounded delay service", IEEE/ACM
//! ToN 4(6):885–901, 1996) compare their exact static-priority condition (every `t`, not only
//! `t = d_m`) with such "existing, less accurate" ones: this test is sufficient, not
//! necessary. Verification status: our reference store holds neither paper's text (only the
//! 1996 abstract, and a Texas A&M report, Bettati TR97-006, saying RCSP admission is this one
//! equation per level), so the condition is taken from those restatements and the section of
//! the INFOCOM paper is not cited; what this module relies on is the derivation below, and
//! the tests check it against an independent brute-force schedule.
//!
//! In cells (`s_max` = one 48-byte payload, Mah Tab 4-3; `τ = 424 bit / l` the port's cell
//! time; `d_m = L_m·τ` with `L_m` from Tab 4-2, so `d_m/τ` is the integer `L_m`):
//!
//! ```text
//!   delay test, every level m that must be checked:   Σ_{k ≤ m} Σ_{j ∈ C_k} b_j(L_m·τ) + 1 ≤ L_m
//!   rate test:                                        Σ_j τ / X_ave,j ≤ 1
//!   b_j(t) = ⌊t / I_j⌋·n_j + min(⌈(t mod I_j) / X_min,j⌉, n_j),   n_j = ⌊I_j / X_ave,j⌋
//! ```
//!
//! This is the formula of the spec digest (`mah96.md` §4.6), with one deviation: `n_j` is
//! `⌊I/X_ave⌋`, see below.
//!
//! **Why `t = d_m` and `+1` (derivation, one cell = one packet).** Take a level-`m` busy
//! period starting at `t0` (a level-≤`m` cell becomes eligible while none is queued). A
//! lower-priority or best-effort cell may be on the wire: non-preemptive service makes it
//! finish first, at most `τ` later — the `+1`, and it is needed: 16 cells eligible at `t0`
//! behind such a cell leave the last one `17τ` after `t0` (the brute-force test shows the
//! miss). From `t0 + τ` at the latest the server sends level-≤`m` cells back to back while
//! any is waiting. In `[t0 + τ, t0 + d_m)` it has room for `L_m − 1` cells, each picked among
//! cells eligible before it starts, so before `t0 + d_m`. If the half-open window
//! `[t0, t0 + d_m)` holds at most `L_m − 1` level-≤`m` cells, the server either sends them all
//! by `t0 + d_m` or runs out of level-≤`m` work earlier, which ends the busy period (later
//! cells start a new one, analysed alike). Every cell of the busy period was eligible at or
//! after `t0`, so it waits at most `d_m`. A cell eligible exactly at `t0 + d_m` delays no
//! earlier cell past `t0 + d_m` — hence the window is `d_m` and half-open, with no
//! `+ something`.
//!
//! **Closed or half-open window (the `⌈⌉` convention).** Cells spaced exactly `X_min` from
//! `t = 0` sit at `0, X_min, 2·X_min, …`: the closed window `[0, k·X_min]` holds `k + 1` of them
//! (`⌊t/X_min⌋ + 1`), the half-open `[0, k·X_min)` holds `k` (`⌈t/X_min⌉`). By the argument
//! above the test needs the half-open count, so `b_j` uses `⌈⌉`; the closed count would refuse
//! admissible sets (test `half_open_window_is_the_right_count`). The same holds for the
//! averaging interval: the regulator allows `n_j` cells in every half-open interval of length
//! `I_j` (a closed one would forbid even a steady stream at spacing `X_ave`).
//!
//! **`b_j` is exact.** Cutting `[s, s+t)` into `⌊t/I⌋` intervals of length `I` (at most `n`
//! cells each) and a remainder of length `r < I` (at most `⌈r/X_min⌉` cells, and at most `n`)
//! gives the bound; the greedy pattern — `n` cells `X_min` apart at the start of every
//! interval `[kI, (k+1)I)` — attains it from `s = 0` and conforms (`n·X_min ≤ I`).
//!
//! **Non-integer `I/X_ave` (deviation from the digest).** Tab 4-5's video row has
//! `I/X_ave = 2000/3.5 = 571.43`. Refusing such a spec would refuse a thesis row, so a spec
//! is accepted and the regulator's cap is `n = ⌊I/X_ave⌋ = 571` whole cells per interval
//! (a count of cells cannot exceed 571.43 without exceeding 571). The rate test keeps the
//! nominal `1/X_ave` of Zhang–Ferrari's `(X_min, X_ave, I, s_max)` model, which is then a
//! little above the long-run rate `n/I`.
//!
//! **The rate test is implied when `I/X_ave` is an integer.** Then `b_j(t) ≥ t/X_ave,j` for
//! every `t`, so a set that passes the delay test of its lowest-priority occupied level `m`
//! has `Σ_j L_m·τ/X_ave,j ≤ L_m − 1`, i.e. a load below `1 − 1/L_m`. It can bind only
//! through the nominal rate of a non-integer `I/X_ave` (test `rate_test_binds_…`); it is kept
//! as Zhang–Ferrari state it, a cheap guard.
//!
//! **Which levels are tested.** A level-`k` connection appears in the sums of levels
//! `m ≥ k` only, so admitting it can break levels `≥ k` and never a level `< k`. `admit` tests
//! level `k` and every level `m > k` that has a connection (an empty level has no bound to
//! keep; when a connection later arrives there, its own test runs).
//!
//! **Exactness.** Times are integer picoseconds and `τ = 424·10¹²/R` ps is kept as that
//! fraction, so `b_j(L_m·τ)` is computed without rounding in `u128`; the rate test sums
//! `Σ 1/X_ave` as a reduced fraction and compares it exactly. Were that fraction ever to
//! overflow `u128` (no plausible table comes near: Tab 4-5's `X_ave` values have a least common
//! multiple of 7·10¹² ps ≈ 2⁴³), the request is refused.
//!
//! # Descriptors
//!
//! The table given at construction maps `Descriptor(i)` to `specs[i]`. [`BEST_EFFORT`]
//! (`Descriptor(u32::MAX)`) is always admitted and reserves nothing; a descriptor beyond the
//! table, or a port beyond the port list, is refused (the caller falls back to best effort,
//! spec A-36) and its release is a no-op, as is any release that matches no admission.
//!
//! The level of a spec is chosen from the requested local bound `d` on the "RCSP Delay
//! Bound" column of Tab 4-2: the largest bound not above `d` ([`level_for_delay`], spec
//! §4.4 "Derived", A-25). A `d` below level 0's 16 cell times cannot be met and is an error
//! ([`SpecError::DelayBelowLevel0`]): the caller must use best effort for that conversation.
//!
//! # Other readings (analysis only)
//!
//! `Reading` (crate-internal) holds the choices the thesis leaves to the reader: the `d_m`
//! the delay test uses (Tab 4-2's RCSP column, or its switch column, or another), whether
//! `b_j`, `s_max` and the rate test count 48-byte payloads against the link's 53-byte cells
//! (Tab 4-5's kb/s column), whether the delay test runs at all, and whether higher levels
//! count against a lower level's budget. `Reading::THESIS` is the reading above and the only
//! one a network uses: no scenario can choose another. The others exist so that the tests can
//! count, through this code, how many HTTP-down VCs each reading admits per T1 port
//! (`docs/mah96.md`, "Admission: which reading of the delay-bound test": none admits more than
//! 32, and none reconciles the thesis' failure rates).

use super::admission::Admission;
use super::Descriptor;
use crate::atm::cell::{CELL_BITS, CELL_BYTES, CELL_PAYLOAD_BYTES};
use crate::ids::PortId;
use crate::time::{Rate, SimDuration, PS_PER_SEC};
use std::collections::BTreeMap;

/// Number of guaranteed priority levels (Mah Tab 4-2: 0 highest … 3 lowest).
pub const LEVELS: usize = 4;

/// Tab 4-2: local delay bound of each level [cell times of the output port].
pub const TAB_4_2_CELLS: [u64; LEVELS] = [16, 32, 64, 128];

/// The descriptor that asks for best effort: admitted everywhere, reserves nothing.
pub const BEST_EFFORT: Descriptor = Descriptor(u32::MAX);

/// Picosecond·bit/s in one cell: `τ = CELL_PS_BPS / R` ps.
const CELL_PS_BPS: u128 = CELL_BITS as u128 * PS_PER_SEC as u128;

/// Picosecond·bit/s in one cell's payload (the rate test of [`Reading::payload_bytes`]).
const PAYLOAD_PS_BPS: u128 = 8 * CELL_PAYLOAD_BYTES as u128 * PS_PER_SEC as u128;

/// How the admission test is read (module docs, "Other readings"). Internal: a network
/// always uses [`Reading::THESIS`]; the other readings are for the analysis tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    /// `d_m` of the delay test per level [cell times of the port]; Tab 4-2's RCSP column.
    pub bounds: [u64; LEVELS],
    /// Count `b_j` and `s_max` in 48-byte payloads against `53·d_m/τ` bytes of line, and the
    /// rate test as `Σ 384 bit / X_ave ≤ R` (Tab 4-5's kb/s column against 1,536 kb/s).
    pub payload_bytes: bool,
    /// Run the delay test; when off only the rate test admits.
    pub delay_test: bool,
    /// Level `m`'s sum counts levels `k ≤ m` (Zhang–Ferrari); when off, level `m` only.
    pub higher_levels_count: bool,
}

impl Reading {
    /// The test of the module docs: Tab 4-2's bounds, whole cells, both tests, every level
    /// at or above `m` counted in level `m`'s sum.
    pub const THESIS: Reading =
        Reading { bounds: TAB_4_2_CELLS, payload_bytes: false, delay_test: true, higher_levels_count: true };
}

/// A bad traffic specification or port table; each message names the field and what it
/// must be. Construction fails; nothing is half-built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("{field} must be positive, got 0")]
    Zero { field: &'static str },
    #[error("x_min ({x_min}) must not exceed x_ave ({x_ave}): the peak spacing is the smaller")]
    PeakBelowAverage { x_min: SimDuration, x_ave: SimDuration },
    #[error("interval ({interval}) must be at least x_ave ({x_ave}): one cell per interval at least")]
    IntervalBelowAverage { interval: SimDuration, x_ave: SimDuration },
    #[error("level must be 0..{LEVELS} (Tab 4-2), got {0}")]
    NoSuchLevel(u8),
    #[error("d ({d}) is below level 0's bound of 16 cell times ({level0}); use best effort")]
    DelayBelowLevel0 { d: SimDuration, level0: SimDuration },
    #[error("port_rates[{port}]: link rate must be positive, got 0 bit/s")]
    ZeroRate { port: usize },
    #[error("specs: at most {max} entries (Descriptor(u32::MAX) is BEST_EFFORT), got {len}")]
    TableTooLarge { len: usize, max: usize },
}

/// A guaranteed VC's traffic specification (Mah Tab 4-3, Zhang–Ferrari's regulator) and its
/// priority level. Valid by construction: `0 < x_min ≤ x_ave ≤ interval`, level < 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrafficSpec {
    /// Minimum spacing of consecutive cells \[ps\].
    x_min: SimDuration,
    /// Average spacing over any interval of length `interval` \[ps\].
    x_ave: SimDuration,
    /// Averaging interval `I` \[ps\].
    interval: SimDuration,
    /// Tab 4-2 level, 0 highest.
    level: u8,
}

impl TrafficSpec {
    /// A spec at an explicit level.
    pub fn new(x_min: SimDuration, x_ave: SimDuration, interval: SimDuration, level: u8) -> Result<Self, SpecError> {
        for (field, v) in [("x_min", x_min), ("x_ave", x_ave), ("interval", interval)] {
            if v.as_ps() == 0 {
                return Err(SpecError::Zero { field });
            }
        }
        if x_min > x_ave {
            return Err(SpecError::PeakBelowAverage { x_min, x_ave });
        }
        if interval < x_ave {
            return Err(SpecError::IntervalBelowAverage { interval, x_ave });
        }
        if level as usize >= LEVELS {
            return Err(SpecError::NoSuchLevel(level));
        }
        Ok(TrafficSpec { x_min, x_ave, interval, level })
    }

    /// A spec whose level is chosen from the requested local bound `d` on links of `rate`
    /// ([`level_for_delay`]).
    pub fn for_delay(
        x_min: SimDuration,
        x_ave: SimDuration,
        interval: SimDuration,
        d: SimDuration,
        rate: Rate,
    ) -> Result<Self, SpecError> {
        Self::new(x_min, x_ave, interval, 0)?;
        Self::new(x_min, x_ave, interval, level_for_delay(d, rate)?)
    }

    pub fn x_min(&self) -> SimDuration {
        self.x_min
    }
    pub fn x_ave(&self) -> SimDuration {
        self.x_ave
    }
    pub fn interval(&self) -> SimDuration {
        self.interval
    }
    pub fn level(&self) -> u8 {
        self.level
    }

    /// `n = ⌊I / X_ave⌋`: the most cells in any half-open interval of length `I`.
    pub fn cells_per_interval(&self) -> u64 {
        self.interval.as_ps() / self.x_ave.as_ps()
    }

    /// `b(t)`: the most cells this connection can make eligible in any half-open window of
    /// length `t` (module docs).
    pub fn envelope(&self, t: SimDuration) -> u64 {
        self.envelope_frac(t.as_ps() as u128, 1)
    }

    /// `b(t)` for `t = num/den` ps, exactly.
    fn envelope_frac(&self, num: u128, den: u128) -> u64 {
        let n = self.cells_per_interval() as u128;
        let i = self.interval.as_ps() as u128 * den;
        let (whole, rest) = (num / i, num % i);
        let x = self.x_min.as_ps() as u128 * den;
        let tail = rest.div_ceil(x).min(n);
        u64::try_from(whole * n + tail).unwrap_or(u64::MAX)
    }

    /// `b(L·τ)` on a port of `rate`: the window of `cells` cell times.
    fn envelope_cells(&self, cells: u64, rate: Rate) -> u64 {
        self.envelope_frac(cells as u128 * CELL_PS_BPS, rate.as_bps() as u128)
    }
}

/// The level whose Tab 4-2 bound is the largest not above `d`, with cell times of `rate`
/// (Mah uses T1 everywhere: τ = 276.04 µs). `d` below 16 cell times is an error.
pub fn level_for_delay(d: SimDuration, rate: Rate) -> Result<u8, SpecError> {
    if rate.as_bps() == 0 {
        return Err(SpecError::Zero { field: "rate" });
    }
    // L·τ ≤ d  ⇔  L·424·10¹² ≤ d·R, exactly.
    let fits = |cells: u64| cells as u128 * CELL_PS_BPS <= d.as_ps() as u128 * rate.as_bps() as u128;
    match (0..LEVELS).rev().find(|&m| fits(TAB_4_2_CELLS[m])) {
        Some(m) => Ok(m as u8),
        None => Err(SpecError::DelayBelowLevel0 { d, level0: rate.tx_time(TAB_4_2_CELLS[0] * CELL_BITS) }),
    }
}

/// What one port holds: its link rate and the multiset of admitted descriptors.
#[derive(Clone, Debug)]
struct PortState {
    rate: Rate,
    admitted: BTreeMap<u32, u32>,
}

/// RCSP admission control (module docs): a [`TrafficSpec`] table indexed by
/// `Descriptor.0`, and per port the link rate and what has been admitted there.
#[derive(Clone, Debug)]
pub struct DelayBoundAdmission {
    specs: Vec<TrafficSpec>,
    ports: Vec<PortState>,
    reading: Reading,
}

impl DelayBoundAdmission {
    /// `port_rates[p]` is the link rate of `PortId(p)` (its cell time is `424 bit / rate`);
    /// `specs[i]` describes `Descriptor(i)`.
    pub fn new(port_rates: &[Rate], specs: Vec<TrafficSpec>) -> Result<Self, SpecError> {
        if let Some(port) = port_rates.iter().position(|r| r.as_bps() == 0) {
            return Err(SpecError::ZeroRate { port });
        }
        if specs.len() > BEST_EFFORT.0 as usize {
            return Err(SpecError::TableTooLarge { len: specs.len(), max: BEST_EFFORT.0 as usize });
        }
        let ports = port_rates.iter().map(|&rate| PortState { rate, admitted: BTreeMap::new() }).collect();
        Ok(DelayBoundAdmission { specs, ports, reading: Reading::THESIS })
    }

    /// The same admission under another reading of the test (analysis only; module docs).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn with_reading(mut self, reading: Reading) -> Self {
        self.reading = reading;
        self
    }

    /// The specification `d` stands for (`None` for best effort or an unknown descriptor).
    pub fn spec(&self, d: Descriptor) -> Option<&TrafficSpec> {
        self.specs.get(d.0 as usize)
    }

    /// The admitted descriptors at `port` and how many times each is held, in order.
    pub fn reserved(&self, port: PortId) -> Vec<(Descriptor, u32)> {
        self.ports
            .get(port.idx())
            .map_or_else(Vec::new, |p| p.admitted.iter().map(|(&d, &c)| (Descriptor(d), c)).collect())
    }

    /// `Σ_{k ≤ m} Σ_{j ∈ C_k} b_j(d_m)` at `port` for each level `m`, plus the level's own
    /// count of connections: the quantities of the delay test.
    pub fn level_load(&self, port: PortId) -> [(u64, u32); LEVELS] {
        let mut out = [(0u64, 0u32); LEVELS];
        if let Some(p) = self.ports.get(port.idx()) {
            for (&d, &count) in &p.admitted {
                let spec = &self.specs[d as usize];
                out[spec.level as usize].1 += count;
                let counted = if self.reading.higher_levels_count { LEVELS } else { spec.level as usize + 1 };
                for (m, slot) in out.iter_mut().enumerate().take(counted).skip(spec.level as usize) {
                    let cells = spec.envelope_cells(self.reading.bounds[m], p.rate);
                    slot.0 = slot.0.saturating_add(cells.saturating_mul(count as u64));
                }
            }
        }
        out
    }

    /// Would `spec` fit at `port` beside what is admitted there?
    fn fits(&self, port: &PortState, spec: &TrafficSpec, pid: PortId) -> bool {
        let load = self.level_load(pid);
        let k = spec.level as usize;
        let r = &self.reading;
        let last = if r.higher_levels_count { LEVELS } else { k + 1 };
        let delay_ok = !r.delay_test
            || (k..last).filter(|&m| m == k || load[m].1 > 0).all(|m| {
                let bound = r.bounds[m];
                self.delay_fits(load[m].0.saturating_add(spec.envelope_cells(bound, port.rate)), bound)
            });
        delay_ok && self.rate_ok(port, spec)
    }

    /// `Σ b + s_max ≤ l·d_m` with `cells = Σ b` and `d_m = bound` cell times: in cells
    /// `cells + 1 ≤ bound`; under [`Reading::payload_bytes`] `48·(cells + 1) ≤ 53·bound`.
    fn delay_fits(&self, cells: u64, bound: u64) -> bool {
        let need = cells.saturating_add(1) as u128;
        if self.reading.payload_bytes {
            need * CELL_PAYLOAD_BYTES as u128 <= bound as u128 * CELL_BYTES as u128
        } else {
            need <= bound as u128
        }
    }

    /// `Σ τ/X_ave ≤ 1` with the candidate, i.e. `Σ 1/X_ave ≤ R / (424·10¹²)`, exactly
    /// (`384·10¹²` under [`Reading::payload_bytes`]).
    fn rate_ok(&self, port: &PortState, spec: &TrafficSpec) -> bool {
        let held = port.admitted.iter().map(|(&d, &c)| (self.specs[d as usize].x_ave, c));
        let mut sum = Frac::ZERO;
        for (x_ave, count) in held.chain(std::iter::once((spec.x_ave, 1))) {
            match sum.add(count as u128, x_ave.as_ps() as u128) {
                Some(s) => sum = s,
                None => return false,
            }
        }
        let per_cell = if self.reading.payload_bytes { PAYLOAD_PS_BPS } else { CELL_PS_BPS };
        frac_le(sum.num, sum.den, port.rate.as_bps() as u128, per_cell)
    }
}

impl Admission for DelayBoundAdmission {
    fn admit(&mut self, port: PortId, d: &Descriptor) -> bool {
        if *d == BEST_EFFORT {
            return true;
        }
        let (Some(spec), Some(state)) = (self.specs.get(d.0 as usize), self.ports.get(port.idx())) else {
            return false;
        };
        if !self.fits(state, spec, port) {
            return false;
        }
        *self.ports[port.idx()].admitted.entry(d.0).or_insert(0) += 1;
        true
    }

    fn release(&mut self, port: PortId, d: &Descriptor) {
        let Some(state) = self.ports.get_mut(port.idx()) else { return };
        if let Some(count) = state.admitted.get_mut(&d.0) {
            *count -= 1;
            if *count == 0 {
                state.admitted.remove(&d.0);
            }
        }
    }
}

/// A non-negative fraction `num/den`, kept reduced.
#[derive(Clone, Copy, Debug)]
struct Frac {
    num: u128,
    den: u128,
}

impl Frac {
    const ZERO: Frac = Frac { num: 0, den: 1 };

    /// `self + c/x`, or `None` if it does not fit in `u128`.
    fn add(self, c: u128, x: u128) -> Option<Frac> {
        let l = (self.den / gcd(self.den, x)).checked_mul(x)?;
        let num = self.num.checked_mul(l / self.den)?.checked_add(c.checked_mul(l / x)?)?;
        let g = gcd(num, l);
        Some(Frac { num: num / g, den: l / g })
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `a/b ≤ c/d` for positive `b`, `d`, exactly and without overflow (continued fractions).
fn frac_le(mut a: u128, mut b: u128, mut c: u128, mut d: u128) -> bool {
    loop {
        let (qa, qc) = (a / b, c / d);
        if qa != qc {
            return qa < qc;
        }
        let (ra, rc) = (a % b, c % d);
        if ra == 0 {
            return true;
        }
        if rc == 0 {
            return false;
        }
        // ra/b ≤ rc/d  ⇔  d/rc ≤ b/ra
        (a, b, c, d) = (d, rc, b, ra);
    }
}

#[cfg(test)]
#[path = "delay_bound_tests.rs"]
mod tests;
