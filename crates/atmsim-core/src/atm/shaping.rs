//! Traffic shaping and policing: the GCRA (ITU-T I.371), shaper queues at host adapters and
//! switch inputs, and policers at switch inputs.
//!
//! Owns: [`Gcra`] (the Generic Cell Rate Algorithm in both of its equivalent forms),
//! [`Shaper`] (a cell queue released at conforming times), [`Policer`] (usage parameter
//! control at a switch input) and [`Shapers`] (the tables that say which adapter VC queue
//! is behind which shaper and which switch input VC is policed).
//!
//! **The GCRA** (ITU-T I.371; Koçyiğit §II) has two parameters: the increment `T` (the
//! spacing of cells at the contracted peak rate, `T = 1 / cell rate`) and the limit `τ`
//! (the jitter tolerated). I.371 gives it in two equivalent forms:
//! - *Virtual Scheduling*: a theoretical arrival time `TAT`; a cell at `t` conforms iff
//!   `t ≥ TAT − τ`; on acceptance `TAT ← max(t, TAT) + T`.
//! - *Continuous-state Leaky Bucket*: bucket content `X` drained at one unit per unit of
//!   time since the last conforming time `LCT`; with `X' = max(0, X − (t − LCT))` a cell
//!   conforms iff `X' ≤ τ`; on acceptance `X ← X' + T`, `LCT ← t`.
//!
//! They agree on every cell because `TAT = LCT + X` is an invariant (tested on random
//! arrival sequences below). A **policer** tests arriving cells and tags or drops the
//! non-conforming ones; a **shaper** (Koçyiğit: "bad cells are delayed and not
//! discarded") holds each cell until [`Gcra::earliest_conforming`] = `max(now, TAT − τ)`,
//! so its output always conforms.
//!
//! **Shapers in the simulator.** A shaper sits between IP and a host adapter's queues:
//! frames handed to the adapter for a shaped VC (or, for a host-level shaper, for any VC
//! of that host) are cut into cells that wait in the shaper's FIFO; each cell moves into
//! the adapter's normal per-VC queue and scheduler at its earliest conforming time. All
//! cells due at the same instant are released together by one event; O(1) per cell. With
//! batching, a host shaper takes no event per release: its port releases it when brought up
//! to date, and needs an event only for the release of a frame end, known exactly in
//! advance ([`Shaper::first_watched_release`]; `atm::fabric::ahead`). The
//! shaper queue is not subject to the adapter's `buffer_cells` admission; it has its own
//! bound (`shape.buffer_cells`, by default the socket buffers of the TCP senders behind
//! it: `scenario::build::shaping`). A frame that does not fit whole is refused, as a full
//! adapter refuses one; below the bound the shaper delays and never drops.
//!
//! - *VC shaping* (`[[vc]] shape`): one shaper per VC, in the VC's forward direction only
//!   (cells sent by `path[0]`); the reverse direction (e.g. TCP ACKs) is not shaped.
//! - *VP shaping* (`[[host]] shape`, Koçyiğit §II: one shaper for all of a user's traffic):
//!   one shaper for everything the host sends, a FIFO of frames, so a frame's cells leave
//!   consecutively and messages are not interleaved.
//! - *Pacing* (`[[vc]] pace_bps`, MAGIC §2.2 and Fig. 2): the OTTO adapter gives a paced VC
//!   slots of a transmission schedule and lends slots the VC does not use to other VCs.
//!   For one VC this is a peak-rate limit with no burst tolerance: a shaper with `τ = 0` and
//!   `T = 1 / (pace cell rate)`; cells of other VCs still use every slot the paced VC leaves
//!   idle, because the shaper holds only the paced VC's cells. What differs: the OTTO
//!   schedule is a grid of whole link slots, so a paced VC's cells fall on slot
//!   boundaries and its rate is a multiple of (link rate / schedule length); here `T` is
//!   exact to the picosecond and a released cell starts at once if the link is idle
//!   (or after the cell in transmission — a cell-time of jitter the grid also has).
//!   Released cells join the adapter's ordinary scheduler: with a `"round_robin"` adapter a
//!   paced cell waits at most one cell per other busy VC, close to owning its slot; with a
//!   FIFO adapter it waits behind every cell queued before it (whole frames of other VCs),
//!   which OTTO's slot schedule does not do.
//!
//! **Re-shaping** (`[[vc]] reshape = { at = "switch", … }`): a shaper at a switch input for
//! the VC's forward direction. Cells arriving there (after policing, if any) wait in its
//! FIFO and are offered to their output port at their earliest conforming times, where the
//! port's buffer and drop policy apply — I.371's re-shaping to undo the cell delay variation
//! that multiplexing adds before a downstream policer.
//!
//! **Policing** (`[[vc]] police`, I.371 usage parameter control): a GCRA on the aggregate
//! CLP=0+1 cell flow of the VC's forward direction where it enters a switch (the first, or
//! `at`), before the switch's translation. A non-conforming cell is dropped (`action = "drop"`) or tagged
//! CLP=1 (`"tag"`) and does not advance the GCRA. A switch with `clp1_threshold_cells`
//! drops arriving CLP=1 cells whenever its output queue already holds that many cells.

use super::cell::Cell;
use crate::ids::{LinkId, PortId};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The Generic Cell Rate Algorithm, increment `t` and limit `tau`, in both I.371 forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gcra {
    /// Increment T: the cell spacing at the contracted rate.
    pub t: SimDuration,
    /// Limit τ: the tolerance.
    pub tau: SimDuration,
    /// Virtual Scheduling state: theoretical arrival time.
    tat: SimTime,
}

impl Gcra {
    pub fn new(t: SimDuration, tau: SimDuration) -> Self {
        Gcra { t, tau, tat: SimTime::ZERO }
    }

    /// Increment for a cell rate of `rate_bps / 424` cells per second (rounded to 1 ps).
    pub fn increment_for_bps(rate_bps: f64) -> SimDuration {
        SimDuration::from_ps((super::cell::CELL_BITS as f64 * crate::time::PS_PER_SEC as f64 / rate_bps).round() as u64)
    }

    /// Virtual Scheduling: does a cell arriving at `now` conform?
    #[inline]
    pub fn conforms(&self, now: SimTime) -> bool {
        now.0.saturating_add(self.tau.0) >= self.tat.0
    }

    /// Virtual Scheduling: account a cell accepted at `now` (conforming, or shaped to now).
    #[inline]
    pub fn accept(&mut self, now: SimTime) {
        self.tat = SimTime(self.tat.0.max(now.0) + self.t.0);
    }

    /// Police one cell: test and, if it conforms, accept it.
    pub fn police(&mut self, now: SimTime) -> bool {
        let ok = self.conforms(now);
        if ok {
            self.accept(now);
        }
        ok
    }

    /// The first time at or after `now` at which a cell would conform: `max(now, TAT − τ)`.
    #[inline]
    pub fn earliest_conforming(&self, now: SimTime) -> SimTime {
        SimTime(now.0.max(self.tat.0.saturating_sub(self.tau.0)))
    }

    pub fn tat(&self) -> SimTime {
        self.tat
    }
}

/// The continuous-state Leaky Bucket form of the GCRA (I.371), kept for cross-checking the
/// Virtual Scheduling form the shapers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeakyBucket {
    pub t: SimDuration,
    pub tau: SimDuration,
    /// Bucket content X \[ps\].
    x: u64,
    /// Last conformance time.
    lct: SimTime,
}

impl LeakyBucket {
    pub fn new(t: SimDuration, tau: SimDuration) -> Self {
        LeakyBucket { t, tau, x: 0, lct: SimTime::ZERO }
    }

    /// X' = max(0, X − (now − LCT)).
    #[inline]
    fn drained(&self, now: SimTime) -> u64 {
        self.x.saturating_sub(now.0.saturating_sub(self.lct.0))
    }

    pub fn conforms(&self, now: SimTime) -> bool {
        self.drained(now) <= self.tau.0
    }

    pub fn accept(&mut self, now: SimTime) {
        self.x = self.drained(now) + self.t.0;
        self.lct = SimTime(now.0.max(self.lct.0));
    }

    pub fn police(&mut self, now: SimTime) -> bool {
        let ok = self.conforms(now);
        if ok {
            self.accept(now);
        }
        ok
    }

    /// The first time at or after `now` at which a cell would conform.
    pub fn earliest_conforming(&self, now: SimTime) -> SimTime {
        let need = self.drained(now).saturating_sub(self.tau.0);
        SimTime(now.0.saturating_add(need))
    }
}

/// Counters of one shaper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShaperStats {
    /// Cells released to the adapter.
    pub cells_shaped: u64,
    /// Most cells held at once.
    pub max_queue_cells: u32,
    /// Σ (release − arrival) over released cells \[ps\].
    pub delay_ps: u128,
    /// Releases that a fresh GCRA fed with the release times found non-conforming
    /// (a self-check: always 0).
    pub nonconforming: u64,
    /// Cells refused because the shaper held `limit` cells (switch re-shapers only).
    pub dropped: u64,
    /// Frames a host shaper refused whole because they did not fit in `limit` (as a full
    /// adapter refuses one: never injected, counted in `refused_at_host`).
    pub frames_refused: u64,
    /// The cells of those frames.
    pub cells_refused: u64,
}

/// Where a shaper sits and what it does there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaperKind {
    /// One VC at a host adapter (`[[vc]] shape`).
    Vc,
    /// OTTO pacing of one VC at a host adapter (`[[vc]] pace_bps`).
    Pace,
    /// Everything a host sends (`[[host]] shape`, VP-based).
    Host,
    /// One VC at a switch input (`[[vc]] reshape`).
    Switch,
}

impl ShaperKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ShaperKind::Vc => "vc",
            ShaperKind::Pace => "pace",
            ShaperKind::Host => "host",
            ShaperKind::Switch => "switch",
        }
    }
}

/// A shaper: a FIFO of cells released at their earliest conforming times.
#[cfg_attr(test, derive(Clone))]
pub struct Shaper {
    /// What it shapes (the VC or the host name), for reports.
    pub name: String,
    pub kind: ShaperKind,
    pub rate_bps: f64,
    /// The adapter port its cells go to.
    pub port: PortId,
    pub gcra: Gcra,
    /// Most cells it may hold (`u32::MAX`: unlimited). A re-shaper drops a cell that finds
    /// it full; a host shaper refuses a frame that does not fit whole ([`Shaper::admit_frame`]).
    pub limit: u32,
    /// Independent check of the output (Leaky Bucket form).
    check: LeakyBucket,
    /// Cells waiting, with the time they entered.
    queue: VecDeque<(SimTime, Cell)>,
    /// A release event is pending.
    armed: bool,
    /// When the next release is due (`SimTime::MAX`: none pending).
    pub next_at: SimTime,
    /// Released without events of its own, by its port when that port is brought up to date
    /// (`atm::port` module docs, "Serving ahead").
    pub lazy: bool,
    /// A lazy shaper: the place in the order of events (`atm::fabric::Clock::release_place`)
    /// of its next release, the one its release event would have had.
    release_place: u128,
    pub stats: ShaperStats,
}

impl Shaper {
    /// A lazy shaper's next release was armed, at this place in the order of events.
    #[inline]
    pub fn arm_place(&mut self, place: u128) {
        self.release_place = place;
    }

    /// Whether a lazy shaper releases at `r` once the running event has reached the place
    /// `reached` in the order of events.
    #[inline]
    pub fn releases_at(&self, r: SimTime, reached: u128) -> bool {
        self.next_at == r && self.release_place <= reached
    }

    pub fn new(name: String, kind: ShaperKind, rate_bps: f64, port: PortId, gcra: Gcra) -> Self {
        Shaper {
            name,
            kind,
            rate_bps,
            port,
            check: LeakyBucket::new(gcra.t, gcra.tau),
            gcra,
            limit: u32::MAX,
            queue: VecDeque::new(),
            armed: false,
            next_at: SimTime::MAX,
            lazy: false,
            release_place: 0,
            stats: ShaperStats::default(),
        }
    }

    /// Queue one cell (a re-shaper at a switch input). Returns the time a release event must
    /// be scheduled, if none is pending.
    pub fn push_cell(&mut self, now: SimTime, cell: Cell) -> Option<SimTime> {
        self.queue.push_back((now, cell));
        self.stats.max_queue_cells = self.stats.max_queue_cells.max(self.queue.len() as u32);
        self.arm(now)
    }

    /// Whether a frame of `ncells` cells fits in the room left under `limit`; if not, it is
    /// counted as refused (the caller refuses it whole, as a full adapter does).
    pub fn admit_frame(&mut self, ncells: u32) -> bool {
        if self.limit == u32::MAX || self.queue.len() as u64 + ncells as u64 <= self.limit as u64 {
            return true;
        }
        self.stats.frames_refused += 1;
        self.stats.cells_refused += ncells as u64;
        false
    }

    /// Queue the `ncells` cells of frame `frame` on VC `vci`. Returns the time a release
    /// event must be scheduled, if none is pending.
    pub fn push_frame(&mut self, now: SimTime, vci: u32, frame: u32, ncells: u32) -> Option<SimTime> {
        for i in 0..ncells {
            let flags = if i + 1 == ncells { super::cell::flags::EOF } else { 0 };
            self.queue.push_back((now, Cell { vci, frame, flags }));
        }
        self.stats.max_queue_cells = self.stats.max_queue_cells.max(self.queue.len() as u32);
        self.arm(now)
    }

    fn arm(&mut self, now: SimTime) -> Option<SimTime> {
        if self.armed || self.queue.is_empty() {
            return None;
        }
        self.armed = true;
        self.next_at = self.gcra.earliest_conforming(now);
        Some(self.next_at)
    }

    /// The release event fired at `now`: hand every cell that conforms now to `out`, then
    /// return the time of the next release, if cells remain.
    pub fn release(&mut self, now: SimTime, out: &mut impl FnMut(Cell)) -> Option<SimTime> {
        self.armed = false;
        self.next_at = SimTime::MAX;
        while let Some(&(t0, cell)) = self.queue.front() {
            if !self.gcra.conforms(now) {
                break;
            }
            self.queue.pop_front();
            self.gcra.accept(now);
            if !self.check.police(now) {
                self.stats.nonconforming += 1;
            }
            self.stats.cells_shaped += 1;
            self.stats.delay_ps += (now.0 - t0.0) as u128;
            out(cell);
        }
        self.arm(now)
    }

    /// The release due at `r` ([`Shaper::next_at`]) if it hands out one cell alone, a plain
    /// data cell (no frame end, RM or control cell), and the release after it comes no sooner
    /// than `end` (a time after `r`): that cell, released as [`Shaper::release`] would have
    /// released it. None, and nothing changed, otherwise. The next release follows from the
    /// GCRA (`Shaper::release_of` of the second cell), and is not `r` itself since `end`
    /// comes after `r`.
    #[inline(always)]
    pub fn release_alone(&mut self, r: SimTime, end: SimTime) -> Option<Cell> {
        debug_assert!(r == self.next_at && end > r);
        let &(t0, cell) = self.queue.front()?;
        let f = super::cell::flags::EOF | super::cell::flags::RM | super::cell::flags::CTRL;
        if cell.flags & f != 0 || !self.gcra.conforms(r) {
            return None;
        }
        let next = if self.queue.len() > 1 {
            let at = self.release_of(1, r);
            if at < end {
                return None;
            }
            at
        } else {
            SimTime::MAX
        };
        self.queue.pop_front();
        self.gcra.accept(r);
        debug_assert!(next == SimTime::MAX || next == self.gcra.earliest_conforming(r));
        if !self.check.police(r) {
            self.stats.nonconforming += 1;
        }
        self.stats.cells_shaped += 1;
        self.stats.delay_ps += (r.0 - t0.0) as u128;
        self.armed = next != SimTime::MAX;
        self.next_at = next;
        Some(cell)
    }

    /// When the first frame end (or RM cell) it holds will be released, exactly, if it holds
    /// one: what its releases will do with the cells queued now (cells queued later go
    /// behind; `Shaper::release_of`, tested against the releases themselves).
    pub fn first_watched_release(&self) -> Option<SimTime> {
        if self.next_at == SimTime::MAX {
            return None;
        }
        let watched = super::cell::flags::EOF | super::cell::flags::RM;
        let j = self.queue.iter().position(|&(_, c)| c.flags & watched != 0)? as u64;
        if j == 0 {
            return Some(self.next_at);
        }
        Some(self.release_of(j, self.next_at))
    }

    /// When the `j`-th queued cell (`j ≥ 1`; the head is the 0th) goes, the head going at
    /// `r₀`: each release accepts a cell at `r` and sets `TAT ← max(r, TAT) + T`, the next cell
    /// conforming at `TAT − τ` or at once, so with `TAT₁ = max(r₀, TAT₀) + T` the `j`-th goes
    /// at `max(r₀, TAT₁ + (j − 1)·T − τ)`.
    #[inline(always)]
    fn release_of(&self, j: u64, r0: SimTime) -> SimTime {
        let tat1 = r0.max(self.gcra.tat) + self.gcra.t;
        r0.max((tat1 + self.gcra.t.mul(j - 1)).saturating_sub(self.gcra.tau))
    }

    /// Cells held now.
    pub fn held(&self) -> usize {
        self.queue.len()
    }

    pub fn mean_delay_s(&self) -> f64 {
        if self.stats.cells_shaped == 0 {
            0.0
        } else {
            self.stats.delay_ps as f64 / self.stats.cells_shaped as f64 / crate::time::PS_PER_SEC as f64
        }
    }
}

/// What a policer does with a non-conforming cell (default: tag, as in scenarios).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PoliceAction {
    /// Set CLP = 1 and pass it.
    #[default]
    Tag,
    /// Discard it.
    Drop,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PolicerStats {
    pub cells_in: u64,
    pub tagged: u64,
    pub dropped: u64,
}

/// A GCRA policer on one VC at a switch input.
pub struct Policer {
    /// The VC's name.
    pub name: String,
    pub rate_bps: f64,
    pub action: PoliceAction,
    pub gcra: Gcra,
    pub stats: PolicerStats,
}

impl Policer {
    /// Police `cell` arriving at `now`; false = drop it.
    #[inline]
    pub fn police(&mut self, now: SimTime, cell: &mut Cell) -> bool {
        self.stats.cells_in += 1;
        if self.gcra.police(now) {
            return true;
        }
        match self.action {
            PoliceAction::Tag => {
                cell.flags |= super::cell::flags::CLP;
                self.stats.tagged += 1;
                true
            }
            PoliceAction::Drop => {
                self.stats.dropped += 1;
                false
            }
        }
    }
}

/// All shapers and policers of a network and their lookup tables.
#[derive(Default)]
pub struct Shapers {
    pub list: Vec<Shaper>,
    pub policers: Vec<Policer>,
    /// Policers by switch input: `police_by_link[link][vci]`.
    police_by_link: Vec<Vec<Option<u32>>>,
    /// Re-shapers by switch input: `reshape_by_link[link][vci]`.
    reshape_by_link: Vec<Vec<Option<u32>>>,
    /// Host-level shaper of each port (by port index).
    by_port: Vec<Option<u32>>,
    /// VC shapers: `by_vc[port][vci]`.
    by_vc: Vec<Vec<Option<u32>>>,
}

impl Shapers {
    /// Add a shaper for everything sent through `port` (`vci = None`) or for VC `vci`.
    pub fn add(&mut self, s: Shaper, vci: Option<u32>) -> u32 {
        let id = self.list.len() as u32;
        let p = s.port.idx();
        match vci {
            None => {
                if self.by_port.len() <= p {
                    self.by_port.resize(p + 1, None);
                }
                self.by_port[p] = Some(id);
            }
            Some(v) => {
                if self.by_vc.len() <= p {
                    self.by_vc.resize(p + 1, Vec::new());
                }
                let row = &mut self.by_vc[p];
                if row.len() <= v as usize {
                    row.resize(v as usize + 1, None);
                }
                row[v as usize] = Some(id);
            }
        }
        self.list.push(s);
        id
    }

    /// The shaper that frames for VC `vci` of adapter port `port` go through, if any.
    #[inline]
    pub fn find(&self, port: PortId, vci: u32) -> Option<u32> {
        if self.list.is_empty() {
            return None;
        }
        let p = port.idx();
        if let Some(Some(s)) = self.by_port.get(p) {
            return Some(*s);
        }
        self.by_vc.get(p).and_then(|row| row.get(vci as usize)).copied().flatten()
    }

    /// Add a re-shaper for VC `vci` arriving on switch input `link`; its cells (already
    /// translated by the switch's route) leave into the output port `s.port`.
    pub fn add_reshaper(&mut self, s: Shaper, link: LinkId, vci: u32) -> u32 {
        let id = self.list.len() as u32;
        put(&mut self.reshape_by_link, link.idx(), vci, id);
        self.list.push(s);
        id
    }

    /// The re-shaper of VC `vci` arriving on switch input `link`, if any.
    #[inline]
    pub fn reshaper(&self, link: LinkId, vci: u32) -> Option<u32> {
        if self.reshape_by_link.is_empty() {
            return None;
        }
        self.reshape_by_link.get(link.idx()).and_then(|r| r.get(vci as usize)).copied().flatten()
    }

    /// Whether some VC arriving on switch input `link` is policed or re-shaped there.
    pub fn guards(&self, link: LinkId) -> bool {
        let any = |t: &Vec<Vec<Option<u32>>>| t.get(link.idx()).is_some_and(|r| r.iter().any(Option::is_some));
        any(&self.police_by_link) || any(&self.reshape_by_link)
    }

    /// Police VC `vci` arriving on `link` at a switch; add one policer.
    pub fn add_policer(&mut self, p: Policer, link: LinkId, vci: u32) {
        put(&mut self.police_by_link, link.idx(), vci, self.policers.len() as u32);
        self.policers.push(p);
    }

    /// Police a cell arriving on switch input `link`, if its VC is policed there;
    /// false = drop it (it may come back tagged CLP=1).
    #[inline]
    pub fn police(&mut self, link: LinkId, now: SimTime, cell: &mut Cell) -> bool {
        if self.policers.is_empty() {
            return true;
        }
        let id = self.police_by_link.get(link.idx()).and_then(|r| r.get(cell.vci as usize)).copied().flatten();
        match id {
            Some(i) => self.policers[i as usize].police(now, cell),
            None => true,
        }
    }

    /// Cells held by all shapers.
    pub fn held(&self) -> u64 {
        self.list.iter().map(|s| s.held() as u64).sum()
    }
}

/// `table[row][col] = Some(id)`, growing the table as needed.
fn put(table: &mut Vec<Vec<Option<u32>>>, row: usize, col: u32, id: u32) {
    if table.len() <= row {
        table.resize(row + 1, Vec::new());
    }
    let r = &mut table[row];
    if r.len() <= col as usize {
        r.resize(col as usize + 1, None);
    }
    r[col as usize] = Some(id);
}

/// A GCRA's parameters as a value: the traffic contract a shaper or policer enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contract {
    /// The increment T: the cell spacing at the contracted rate.
    pub increment: SimDuration,
    /// The limit τ: the tolerance.
    pub tolerance: SimDuration,
}

impl Gcra {
    /// The algorithm's parameters (T, τ).
    pub fn contract(&self) -> Contract {
        Contract { increment: self.t, tolerance: self.tau }
    }
}

impl Shaper {
    /// The contract the shaper's output conforms to.
    pub fn contract(&self) -> Contract {
        self.gcra.contract()
    }
}

impl Policer {
    /// The contract the policer checks arriving cells against.
    pub fn contract(&self) -> Contract {
        self.gcra.contract()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(ps: u64) -> SimDuration {
        SimDuration::from_ps(ps)
    }

    #[test]
    fn tau_zero_spaces_cells_by_t() {
        let mut g = Gcra::new(d(10), d(0));
        assert!(g.police(SimTime(0)));
        assert!(!g.conforms(SimTime(9)));
        assert_eq!(g.earliest_conforming(SimTime(3)), SimTime(10));
        assert!(g.police(SimTime(10)));
        assert!(g.police(SimTime(25)));
        assert_eq!(g.tat(), SimTime(35));
    }

    #[test]
    fn tau_allows_a_burst_of_one_plus_tau_over_t_minus_one() {
        // τ = 3T: at the same instant, cells conform while TAT − τ ≤ t: 4 cells.
        let mut g = Gcra::new(d(10), d(30));
        let n = (0..10).take_while(|_| g.police(SimTime(100))).count();
        assert_eq!(n, 4);
    }

    #[test]
    fn shaper_releases_at_conforming_times() {
        let mut s = Shaper::new("v".into(), ShaperKind::Vc, 0.0, PortId(0), Gcra::new(d(10), d(0)));
        let at = s.push_frame(SimTime(5), 32, 0, 3);
        assert_eq!(at, Some(SimTime(5)));
        let mut out = Vec::new();
        let next = s.release(SimTime(5), &mut |c| out.push(c));
        assert_eq!((out.len(), next), (1, Some(SimTime(15))));
        assert_eq!(s.release(SimTime(15), &mut |c| out.push(c)), Some(SimTime(25)));
        assert_eq!(s.release(SimTime(25), &mut |c| out.push(c)), None);
        assert!(out[2].is_eof() && !out[1].is_eof());
        assert_eq!(s.stats.delay_ps, 30);
        assert_eq!(s.stats.nonconforming, 0);
    }

    #[test]
    fn a_vp_shaper_sends_whole_frames_without_interleaving() {
        // One shaper for a user's VCs (Koçyiğit §II, VP-based): frames leave one after the
        // other, each frame's cells contiguous, spaced by T.
        let mut s = Shaper::new("user".into(), ShaperKind::Host, 0.0, PortId(0), Gcra::new(d(10), d(0)));
        s.push_frame(SimTime(0), 32, 0, 3);
        s.push_frame(SimTime(0), 33, 0, 2);
        s.push_frame(SimTime(1), 32, 1, 2);
        let mut out = Vec::new();
        let mut t = Some(SimTime(0));
        let mut times = Vec::new();
        while let Some(now) = t {
            let before = out.len();
            t = s.release(now, &mut |c| out.push(c));
            times.extend(std::iter::repeat_n(now.0, out.len() - before));
        }
        let order: Vec<(u32, u32)> = out.iter().map(|c| (c.vci, c.frame)).collect();
        assert_eq!(order, [(32, 0), (32, 0), (32, 0), (33, 0), (33, 0), (32, 1), (32, 1)]);
        assert_eq!(times, [0, 10, 20, 30, 40, 50, 60]);
        assert_eq!(out.iter().filter(|c| c.is_eof()).count(), 3);
    }

    /// Sorted arrival times from random gaps.
    fn arrivals() -> impl Strategy<Value = Vec<u64>> {
        proptest::collection::vec(0u64..300, 1..300).prop_map(|gaps| {
            gaps.iter()
                .scan(0u64, |t, g| {
                    *t += g;
                    Some(*t)
                })
                .collect()
        })
    }

    /// Frame `i` of `size(i)` cells arriving at `ts[i]`, and the releases they cause, in time
    /// order; `step` sees the shaper after each push (`None`) and each release (its time and
    /// cells).
    fn drive(
        s: &mut Shaper,
        ts: &[u64],
        size: impl Fn(usize) -> u32,
        mut step: impl FnMut(&Shaper, Option<(SimTime, &[Cell])>),
    ) {
        let mut pending: Option<SimTime> = None;
        let mut frames = ts.iter().enumerate().peekable();
        loop {
            let next_arrival = frames.peek().map(|(_, &a)| SimTime(a));
            match (next_arrival, pending) {
                (None, None) => break,
                (Some(a), p) if p.is_none_or(|p| a < p) => {
                    let (i, _) = frames.next().unwrap();
                    if let Some(at) = s.push_frame(a, 32, i as u32, size(i)) {
                        assert!(pending.is_none(), "armed twice");
                        pending = Some(at);
                    }
                    step(s, None);
                }
                (_, Some(p)) => {
                    let mut got = Vec::new();
                    pending = s.release(p, &mut |c| got.push(c));
                    assert!(!got.is_empty(), "a release of nothing");
                    step(s, Some((p, &got)));
                }
                _ => unreachable!(),
            }
        }
    }

    proptest! {
        /// Virtual Scheduling and the continuous-state Leaky Bucket give the same verdict on
        /// every cell of a random arrival sequence, and the same earliest conforming time.
        #[test]
        fn both_forms_agree(ts in arrivals(), t in 1u64..200, tau in 0u64..600) {
            let mut vs = Gcra::new(d(t), d(tau));
            let mut lb = LeakyBucket::new(d(t), d(tau));
            for &a in &ts {
                let now = SimTime(a);
                prop_assert_eq!(vs.earliest_conforming(now), lb.earliest_conforming(now));
                prop_assert_eq!(vs.police(now), lb.police(now));
            }
        }

        /// A shaper's output conforms: its release times, fed to a fresh GCRA, all pass;
        /// and it keeps FIFO order and loses nothing.
        #[test]
        fn shaper_output_conforms(ts in arrivals(), t in 1u64..200, tau in 0u64..600, n in 1u32..4) {
            let mut s = Shaper::new("v".into(), ShaperKind::Vc, 0.0, PortId(0), Gcra::new(d(t), d(tau)));
            let mut out: Vec<(SimTime, Cell)> = Vec::new();
            drive(&mut s, &ts, |_| n, |_, released| {
                if let Some((p, got)) = released {
                    out.extend(got.iter().map(|&c| (p, c)));
                }
            });
            prop_assert_eq!(out.len(), ts.len() * n as usize);
            let mut fresh = Gcra::new(d(t), d(tau));
            for (k, (at, c)) in out.iter().enumerate() {
                prop_assert!(fresh.police(*at), "cell {} at {:?} does not conform", k, at);
                prop_assert_eq!(c.frame as usize, k / n as usize);
            }
            prop_assert_eq!(s.stats.nonconforming, 0);
        }

        /// The predicted release of the first frame end a shaper holds, made after every push
        /// and every release of a random run, is the time that frame end is released.
        #[test]
        fn first_frame_end_release_is_predicted_exactly(
            ts in arrivals(), t in 1u64..200, tau in 0u64..600, sizes in proptest::collection::vec(1u32..6, 1..300),
        ) {
            let mut s = Shaper::new("v".into(), ShaperKind::Vc, 0.0, PortId(0), Gcra::new(d(t), d(tau)));
            // (frame, predicted release of its end) and the actual releases of frame ends.
            let mut predicted: Vec<(u32, SimTime)> = Vec::new();
            let mut released: std::collections::HashMap<u32, SimTime> = Default::default();
            drive(&mut s, &ts, |i| sizes[i % sizes.len()], |s, got| {
                for c in got.into_iter().flat_map(|(_, got)| got).filter(|c| c.is_eof()) {
                    released.insert(c.frame, got.expect("released").0);
                }
                if let Some(at) = s.first_watched_release() {
                    let first = s.queue.iter().find(|(_, c)| c.is_eof()).unwrap().1.frame;
                    predicted.push((first, at));
                }
            });
            for (frame, at) in predicted {
                prop_assert_eq!(released[&frame], at, "frame {}", frame);
            }
        }

        /// Before every release of a random run, `release_alone` (on a copy, with a random
        /// bound for the next release) either declines and changes nothing, the release
        /// handing out more than one cell, a frame end, or a next release before the bound;
        /// or it hands out the release's one cell and leaves the shaper as the release does.
        #[test]
        fn a_release_alone_is_the_release(
            ts in arrivals(), t in 1u64..200, tau in 0u64..600,
            sizes in proptest::collection::vec(1u32..6, 1..300), ends in proptest::collection::vec(1u64..400, 1..50),
        ) {
            let mut s = Shaper::new("v".into(), ShaperKind::Vc, 0.0, PortId(0), Gcra::new(d(t), d(tau)));
            let state = |s: &Shaper| (s.next_at, s.armed, s.queue.clone(), s.gcra, s.check, s.stats);
            // Before the next release: its time, the bound, and what `release_alone` made of it.
            let mut predicted: Option<(SimTime, SimTime, Option<Cell>, Shaper)> = None;
            let (mut k, mut alone, mut declined) = (0, 0, 0);
            drive(&mut s, &ts, |i| sizes[i % sizes.len()], |s, got| {
                if let Some((p, got)) = got {
                    let (at, end, cell, copy) = predicted.take().expect("a release was due");
                    assert_eq!(at, p);
                    if let Some(c) = cell {
                        assert_eq!(got, &[c][..]);
                        assert!(state(&copy) == state(s), "left otherwise than the release at {:?}", p);
                        alone += 1;
                    } else {
                        assert!(got.len() > 1 || got[0].is_eof() || s.next_at < end, "declined at {:?}", p);
                        declined += 1;
                    }
                }
                if s.next_at != SimTime::MAX {
                    let end = s.next_at + d(ends[k % ends.len()]);
                    k += 1;
                    let mut copy = s.clone();
                    let cell = copy.release_alone(s.next_at, end);
                    if cell.is_none() {
                        assert!(state(&copy) == state(s), "declined but changed");
                    }
                    predicted = Some((s.next_at, end, cell, copy));
                }
            });
            prop_assert!(predicted.is_none());
            prop_assert!(alone + declined > 0);
        }

        /// A policer never passes a non-conforming cell: every passed cell conforms to an
        /// independent GCRA fed only the passed cells, and every refused cell was early.
        #[test]
        fn policer_passes_only_conforming_cells(ts in arrivals(), t in 1u64..200, tau in 0u64..600) {
            let mut p = Gcra::new(d(t), d(tau));
            let mut check = LeakyBucket::new(d(t), d(tau));
            for &a in &ts {
                let now = SimTime(a);
                let early = now < p.earliest_conforming(now) || !p.conforms(now);
                let passed = p.police(now);
                prop_assert_eq!(passed, !early);
                if passed {
                    prop_assert!(check.police(now));
                }
            }
        }

        /// A tagging policer passes every cell, and every cell it leaves untagged (CLP=0)
        /// conforms to a fresh GCRA fed the untagged cells; a dropping one passes only those.
        #[test]
        fn policer_never_passes_a_nonconforming_cell_untagged(
            ts in arrivals(), t in 1u64..200, tau in 0u64..600, drop in proptest::bool::ANY,
        ) {
            let action = if drop { PoliceAction::Drop } else { PoliceAction::Tag };
            let mut p = Policer { name: "v".into(), rate_bps: 0.0, action, gcra: Gcra::new(d(t), d(tau)), stats: Default::default() };
            let mut fresh = Gcra::new(d(t), d(tau));
            for &a in &ts {
                let mut c = Cell { vci: 32, frame: 0, flags: 0 };
                let passed = p.police(SimTime(a), &mut c);
                let tagged = c.flags & super::super::cell::flags::CLP != 0;
                prop_assert!(passed || drop);
                prop_assert!(!(drop && tagged));
                if passed && !tagged {
                    prop_assert!(fresh.police(SimTime(a)));
                }
            }
            prop_assert_eq!(p.stats.cells_in, ts.len() as u64);
        }
    }
}
