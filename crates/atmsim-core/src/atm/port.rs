//! Output ports: buffer, admission (tail drop, PPD, EPD), scheduler and transmitter.
//!
//! Owns: [`OutPort`], [`DropPolicy`], [`PortStats`]. The same port serves a host adapter's
//! outgoing link and a switch output (DESIGN §2, `atm::switch`; MAGIC §2.2: the Fore
//! ASX-100 has 256-cell output buffers per port).
//!
//! **Admission at a switch** is per cell, with per-VC frame state (a VC is "between frames"
//! after an end-of-frame cell):
//! - *tail*: a cell that finds the buffer full is dropped; the rest of its frame still
//!   enters and wastes bandwidth (Romanow & Floyd 1994);
//! - *PPD* (partial packet discard): after a drop, the rest of that frame is discarded except
//!   its end-of-frame cell, which keeps frame boundaries for the receiver;
//! - *EPD* (early packet discard): when the first cell of a frame arrives and the buffer
//!   holds at least `threshold` cells, the whole frame is refused; overflow of a frame
//!   already admitted falls back to PPD.
//!
//! **Admission at a host adapter** is per frame: a datagram that does not fit whole is
//! refused (as an IP interface queue refuses a packet).
//!
//! **Control class.** Cells marked [`flags::CTRL`] (signalling; Mah §4.3.1, spec `mah96.md`
//! §1.6: signalling PVCs "prioritized higher than best-effort traffic") wait in a FIFO of
//! their own, [`OutPort::ctrl`], which the transmitter empties before it asks the data
//! scheduler (FIFO or round robin) for a cell: strict priority, non-preemptive — a control
//! cell that arrives while a data cell is on the wire leaves one cell time after that cell
//! ends, whatever the data backlog. Control cells keep their arrival order among themselves.
//! - *Buffer*: the control FIFO has its own limit, [`OutPort::ctrl_limit`] (default
//!   [`DEFAULT_CTRL_BUFFER_CELLS`]), and drops by tail: per cell at a switch
//!   ([`OutPort::offer_cell`], [`DropReason::Ctrl`]), per frame at an adapter
//!   ([`OutPort::push_ctrl_frame`]); both are counted in [`PortStats::dropped_ctrl`]. Frames
//!   are 1–2 cells and go-back-N repairs losses, so frame-aware discard buys nothing here.
//! - *Data admission is blind to control cells*: the data limit, the EPD and CLP=1
//!   thresholds and the per-VC frame state see data cells only, so signalling load never
//!   makes a data frame refused, and data load never makes a control cell dropped.
//! - *Measures*: [`OutPort::occupancy`] — hence the `queue_cells` probe series,
//!   `max_queue_cells` and `mean_queue_cells` — counts data cells only, exactly as before the
//!   class existed; the control FIFO is reported by [`PortStats::ctrl_in`],
//!   [`PortStats::max_ctrl_occupancy`] and [`PortStats::dropped_ctrl`]. `cells_in`, the cells
//!   transmitted and [`PortStats::drops`] count both classes (every cell offered to the port
//!   is queued, sent or counted in exactly one drop counter).
//! - *Cost*: a data cell pays one flag test on entry and one emptiness test of the control
//!   FIFO when the transmitter starts a cell; the control paths are out of line.

use super::cell::{flags, Cell};
use super::sched::{Discipline, Scheduler};
use crate::ids::LinkId;
use crate::time::{Serializer, SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Default size of a port's control (signalling) FIFO \[cells\]. Its normal load is tiny: one
/// signalling link per port, with at most a go-back-N window of 8 messages of at most 2 cells
/// in flight (`crate::signalling`), twice that while a window is retransmitted. 256 cells —
/// the size of a Fore ASX-100 output buffer (MAGIC §2.2) — never overflows under that load,
/// so a `dropped_ctrl` count means signalling was driven far beyond its design, while the
/// limit still bounds memory if it is.
pub const DEFAULT_CTRL_BUFFER_CELLS: u32 = 256;

/// What a full (or filling) switch buffer does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DropPolicy {
    #[default]
    Tail,
    Ppd,
    /// Early packet discard with its threshold [cells].
    Epd {
        threshold: u32,
    },
}

/// Drop-policy names in scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DropPolicyName {
    #[default]
    Tail,
    Ppd,
    Epd,
}

/// Why a cell was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Buffer full.
    Tail,
    /// Rest of a frame after a drop (partial packet discard).
    Ppd,
    /// Whole frame refused at the EPD threshold.
    Epd,
    /// Host adapter refused the whole datagram.
    HostQueue,
    /// No VC translation entry at a switch (misrouted cell).
    NoRoute,
    /// A CLP=1 cell arrived with the queue at the CLP=1 threshold.
    Clp1,
    /// A policer discarded a non-conforming cell.
    Police,
    /// A control (signalling) cell found the port's control FIFO full.
    Ctrl,
}

/// Counters of one port; `repr(C)`: those every cell updates first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct PortStats {
    /// ∫ occupancy dt [cell·ps] (data cells), for the time-average queue length.
    pub occupancy_area: u128,
    /// Cells offered to the port (accepted or dropped), control cells included.
    pub cells_in: u64,
    /// Cells whose transmission completed.
    pub cells_tx: u64,
    /// Most data cells waiting at once.
    pub max_occupancy: u32,
    /// Most control cells waiting at once.
    pub max_ctrl_occupancy: u32,
    /// Time the transmitter was busy [ps].
    pub busy_ps: u64,
    /// Control cells offered to the port (counted in `cells_in` too).
    pub ctrl_in: u64,
    pub drop_tail: u64,
    pub drop_ppd: u64,
    pub drop_epd: u64,
    pub drop_host_queue: u64,
    /// CLP=1 cells dropped at the CLP=1 threshold.
    pub drop_clp1: u64,
    /// Control cells dropped because the control FIFO was full (at an adapter, the cells of
    /// control frames refused whole).
    pub dropped_ctrl: u64,
    /// Frames refused whole (EPD or host queue).
    pub frames_refused: u64,
}

impl PortStats {
    /// Cells offered to the port and not queued, for any reason (both classes).
    pub fn drops(&self) -> u64 {
        self.drop_tail + self.drop_ppd + self.drop_epd + self.drop_host_queue + self.drop_clp1 + self.dropped_ctrl
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Discard {
    #[default]
    No,
    /// Drop every remaining cell of the frame (EPD).
    Whole,
    /// Drop remaining cells but the end-of-frame cell (PPD).
    Partial,
}

/// Per-VC state at a port.
#[derive(Clone, Copy, Debug, Default)]
pub struct VcState {
    /// The last cell seen on this VC was not an end-of-frame cell.
    mid_frame: bool,
    discard: Discard,
    /// Cells of this VC in the buffer.
    pub queued: u32,
    /// A cell source on this VC waits for each of its frames to leave (greedy: to refill;
    /// on/off: to start its off period).
    pub notify_source: bool,
}

/// An output port and its transmitter.
///
/// `repr(C)` keeps the fields in this order: those every cell touches first (about three cache
/// lines, with the hot counters at the head of [`PortStats`]), the name and rarely used
/// settings last, so a network of thousands of ports misses the cache less per cell
/// (issue 13, goal 2).
#[repr(C)]
pub struct OutPort {
    /// The cell now being transmitted.
    pub in_tx: Option<Cell>,
    pub link: LinkId,
    /// Data cells waiting (the cell in transmission and control cells excluded).
    pub occupancy: u32,
    /// Data buffer size [cells]; `u32::MAX` = unlimited.
    pub limit: u32,
    /// Arriving CLP=1 cells are dropped while the queue holds at least this many cells
    /// (`u32::MAX` = never).
    pub clp1_threshold: u32,
    /// Per-VC share of the data buffer [cells]: a VC holding this many cells has its next
    /// cell dropped as if the buffer were full (`u32::MAX` = no cap; Mah §5.5.4, spec A-4).
    pub vc_limit: u32,
    /// With EPD: a frame whose first cell finds its VC holding this many cells is refused
    /// whole (`u32::MAX` = none; spec A-5).
    pub vc_epd_threshold: u32,
    last_change: SimTime,
    pub ser: Serializer,
    pub policy: DropPolicy,
    pub sched: Scheduler,
    /// Control cells waiting, in arrival order; served before any data cell.
    pub ctrl: VecDeque<Cell>,
    pub vcs: Vec<VcState>,
    pub stats: PortStats,
    busy_since: SimTime,
    /// Control buffer size \[cells\]; `u32::MAX` = unlimited. Default
    /// [`DEFAULT_CTRL_BUFFER_CELLS`]; see [`OutPort::with_ctrl_buffer`].
    pub ctrl_limit: u32,
    pub name: String,
}

impl OutPort {
    pub fn new(name: String, link: LinkId, d: Discipline, limit: u32, policy: DropPolicy, ser: Serializer) -> Self {
        OutPort {
            name,
            link,
            sched: Scheduler::new(d),
            vcs: Vec::new(),
            occupancy: 0,
            limit,
            ctrl: VecDeque::new(),
            ctrl_limit: DEFAULT_CTRL_BUFFER_CELLS,
            policy,
            clp1_threshold: u32::MAX,
            vc_limit: u32::MAX,
            vc_epd_threshold: u32::MAX,
            in_tx: None,
            ser,
            stats: PortStats::default(),
            last_change: SimTime::ZERO,
            busy_since: SimTime::ZERO,
        }
    }

    /// The same port with a control FIFO of `cells` cells (`u32::MAX` = unlimited).
    pub fn with_ctrl_buffer(mut self, cells: u32) -> Self {
        self.ctrl_limit = cells;
        self
    }

    /// Cells waiting in both classes (the cell in transmission excluded).
    #[inline]
    pub fn queued_cells(&self) -> u64 {
        self.occupancy as u64 + self.ctrl.len() as u64
    }

    #[inline]
    fn vc(&mut self, vci: u32) -> &mut VcState {
        let v = vci as usize;
        if v >= self.vcs.len() {
            self.vcs.resize(v + 1, VcState::default());
        }
        &mut self.vcs[v]
    }

    #[inline]
    fn touch(&mut self, now: SimTime) {
        let dt = now.0 - self.last_change.0;
        self.stats.occupancy_area += self.occupancy as u128 * dt as u128;
        self.last_change = now;
    }

    #[inline]
    fn enqueue(&mut self, now: SimTime, cell: Cell) {
        self.touch(now);
        self.occupancy += 1;
        if self.occupancy > self.stats.max_occupancy {
            self.stats.max_occupancy = self.occupancy;
        }
        self.vc(cell.vci).queued += 1;
        self.sched.push(cell);
    }

    /// Queue a control cell (admission decided by the caller).
    #[inline]
    fn enqueue_ctrl(&mut self, cell: Cell) {
        self.ctrl.push_back(cell);
        let n = self.ctrl.len() as u32;
        if n > self.stats.max_ctrl_occupancy {
            self.stats.max_ctrl_occupancy = n;
        }
    }

    /// Switch admission of a control cell: tail drop at the control FIFO's own limit.
    #[cold]
    #[inline(never)]
    fn offer_ctrl(&mut self, cell: Cell) -> Option<DropReason> {
        self.stats.cells_in += 1;
        self.stats.ctrl_in += 1;
        if self.ctrl.len() as u32 >= self.ctrl_limit {
            self.stats.dropped_ctrl += 1;
            return Some(DropReason::Ctrl);
        }
        self.enqueue_ctrl(cell);
        None
    }

    /// Switch admission of an ABR RM cell: a data-class cell outside any AAL5 frame, so the
    /// per-VC frame state (PPD/EPD) neither sees nor affects it; dropped only by tail.
    #[cold]
    #[inline(never)]
    fn offer_rm(&mut self, now: SimTime, cell: Cell) -> Option<DropReason> {
        self.stats.cells_in += 1;
        if self.occupancy >= self.limit {
            self.stats.drop_tail += 1;
            return Some(DropReason::Tail);
        }
        self.enqueue(now, cell);
        None
    }

    /// Switch admission of one cell (see the module docs): control cells to the control FIFO,
    /// data cells through the drop policy. Returns the reason if dropped.
    #[inline]
    pub fn offer_cell(&mut self, now: SimTime, cell: Cell) -> Option<DropReason> {
        if cell.flags & (flags::CTRL | flags::RM) != 0 {
            return if cell.is_ctrl() { self.offer_ctrl(cell) } else { self.offer_rm(now, cell) };
        }
        self.stats.cells_in += 1;
        let occupancy = self.occupancy;
        let (limit, policy, clp1) = (self.limit, self.policy, self.clp1_threshold);
        let (vc_limit, vc_epd) = (self.vc_limit, self.vc_epd_threshold);
        let low_priority = cell.flags & flags::CLP != 0;
        let eof = cell.is_eof();
        let vs = self.vc(cell.vci);
        let first = !vs.mid_frame;
        vs.mid_frame = !eof;
        let mut refused = false;
        if first {
            vs.discard = match policy {
                DropPolicy::Epd { threshold } if occupancy >= threshold || vs.queued >= vc_epd => Discard::Whole,
                _ => Discard::No,
            };
            refused = vs.discard == Discard::Whole;
        }
        let verdict = match vs.discard {
            Discard::Whole => Some(DropReason::Epd),
            Discard::Partial if !eof => Some(DropReason::Ppd),
            _ if occupancy >= limit || vs.queued >= vc_limit => {
                if policy != DropPolicy::Tail && !eof {
                    vs.discard = Discard::Partial;
                }
                Some(DropReason::Tail)
            }
            _ if low_priority && occupancy >= clp1 => {
                if policy != DropPolicy::Tail && !eof {
                    vs.discard = Discard::Partial;
                }
                Some(DropReason::Clp1)
            }
            _ => None,
        };
        if refused {
            self.stats.frames_refused += 1;
        }
        match verdict {
            None => self.enqueue(now, cell),
            Some(DropReason::Tail) => self.stats.drop_tail += 1,
            Some(DropReason::Ppd) => self.stats.drop_ppd += 1,
            Some(DropReason::Epd) => self.stats.drop_epd += 1,
            Some(DropReason::Clp1) => self.stats.drop_clp1 += 1,
            Some(_) => unreachable!(),
        }
        verdict
    }

    /// Host admission of a whole data frame of `ncells` cells; false if refused.
    #[inline]
    pub fn has_room_for(&self, ncells: u32) -> bool {
        self.limit == u32::MAX || self.occupancy + ncells <= self.limit
    }

    /// Record a frame refused at a host adapter.
    pub fn refuse_frame(&mut self, ncells: u32) {
        self.stats.cells_in += ncells as u64;
        self.stats.drop_host_queue += ncells as u64;
        self.stats.frames_refused += 1;
    }

    /// Queue the cells of a data frame at a host adapter (already admitted).
    #[inline]
    pub fn push_frame(&mut self, now: SimTime, vci: u32, frame: u32, ncells: u32) {
        self.stats.cells_in += ncells as u64;
        for i in 0..ncells {
            let flags = if i + 1 == ncells { flags::EOF } else { 0 };
            self.enqueue(now, Cell { vci, frame, flags });
        }
    }

    /// Segment a control (signalling) frame of `ncells` cells onto VC `vci` of this adapter:
    /// every cell is marked [`flags::CTRL`] (the last also end-of-frame) and joins the control
    /// FIFO. Admission is per frame, against [`OutPort::ctrl_limit`]: a frame that does not
    /// fit whole is refused, its cells counted in `cells_in` and `dropped_ctrl`. Returns
    /// whether the frame was queued.
    pub fn push_ctrl_frame(&mut self, vci: u32, frame: u32, ncells: u32) -> bool {
        self.stats.cells_in += ncells as u64;
        self.stats.ctrl_in += ncells as u64;
        if self.ctrl_limit != u32::MAX && self.ctrl.len() as u32 + ncells > self.ctrl_limit {
            self.stats.dropped_ctrl += ncells as u64;
            return false;
        }
        for i in 0..ncells {
            let eof = if i + 1 == ncells { flags::EOF } else { 0 };
            self.enqueue_ctrl(Cell { vci, frame, flags: flags::CTRL | eof });
        }
        true
    }

    /// Queue one cell released by a shaper at a host adapter (no admission: the shaper
    /// already holds it). A control cell joins the control FIFO, likewise without a limit.
    #[inline]
    pub fn push_cell(&mut self, now: SimTime, cell: Cell) {
        self.stats.cells_in += 1;
        if cell.is_ctrl() {
            self.stats.ctrl_in += 1;
            self.enqueue_ctrl(cell);
        } else {
            self.enqueue(now, cell);
        }
    }

    /// Start the next control cell (the control FIFO is not empty).
    #[cold]
    #[inline(never)]
    fn start_ctrl(&mut self, now: SimTime) -> SimTime {
        let cell = self.ctrl.pop_front().expect("start_ctrl on an empty control FIFO");
        self.in_tx = Some(cell);
        now + self.ser.next_unit()
    }

    /// Start sending the next cell if idle: the head of the control FIFO if there is one,
    /// else the data scheduler's choice. Returns the completion time if a cell started.
    #[inline]
    pub fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        debug_assert!(self.in_tx.is_none());
        if !self.ctrl.is_empty() {
            return Some(self.start_ctrl(now));
        }
        let cell = self.sched.pop()?;
        self.touch(now);
        self.occupancy -= 1;
        let vs = &mut self.vcs[cell.vci as usize];
        vs.queued -= 1;
        self.in_tx = Some(cell);
        let d: SimDuration = self.ser.next_unit();
        Some(now + d)
    }

    /// Begin a busy period (the transmitter was idle).
    #[inline]
    pub fn wake(&mut self, now: SimTime) {
        self.busy_since = now;
        self.ser.reset();
    }

    /// The transmitter goes idle at `now`.
    #[inline]
    pub fn sleep(&mut self, now: SimTime) {
        self.stats.busy_ps += now.0 - self.busy_since.0;
    }

    pub fn is_busy(&self) -> bool {
        self.in_tx.is_some()
    }

    /// Time spent transmitting from the start of the run to `now` [ps].
    pub fn busy_ps_at(&self, now: SimTime) -> u64 {
        self.stats.busy_ps + if self.is_busy() { now.0.saturating_sub(self.busy_since.0) } else { 0 }
    }

    /// Close the time integrals at the end of a run.
    pub fn finish(&mut self, now: SimTime) {
        self.touch(now);
        if self.is_busy() {
            self.stats.busy_ps += now.0 - self.busy_since.0;
            self.busy_since = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::cell::flags::{CTRL, EOF};
    use crate::time::Rate;

    fn port(limit: u32, policy: DropPolicy) -> OutPort {
        OutPort::new(
            "p".into(),
            LinkId(0),
            Discipline::Fifo,
            limit,
            policy,
            Serializer::new(Rate::bps(1_000_000), crate::atm::cell::CELL_BITS),
        )
    }

    fn frame_cells(vci: u32, frame: u32, n: u32) -> Vec<Cell> {
        (0..n).map(|i| Cell { vci, frame, flags: if i + 1 == n { EOF } else { 0 } }).collect()
    }

    fn offer(p: &mut OutPort, cells: &[Cell]) -> Vec<Option<DropReason>> {
        cells.iter().map(|&c| p.offer_cell(SimTime::ZERO, c)).collect()
    }

    #[test]
    fn tail_drop_drops_only_cells_that_find_the_buffer_full() {
        let mut p = port(3, DropPolicy::Tail);
        let v = offer(&mut p, &frame_cells(1, 0, 5));
        assert_eq!(v.iter().filter(|d| d.is_some()).count(), 2);
        assert_eq!(p.occupancy, 3);
        assert_eq!(p.stats.drop_tail, 2);
    }

    #[test]
    fn ppd_drops_the_rest_of_the_frame_but_keeps_eof_when_room() {
        let mut p = port(3, DropPolicy::Ppd);
        offer(&mut p, &frame_cells(1, 0, 3)); // fills the buffer
        p.start_next(SimTime::ZERO); // one cell leaves: room for one
        p.in_tx = None;
        let v = offer(&mut p, &frame_cells(2, 1, 2).into_iter().chain(frame_cells(2, 2, 1)).collect::<Vec<_>>());
        // frame 1: first cell accepted (room for one), EOF dropped by tail;
        // frame 2 (a new frame): tail drop.
        assert_eq!(v, vec![None, Some(DropReason::Tail), Some(DropReason::Tail)]);
    }

    #[test]
    fn ppd_after_a_drop_discards_middle_cells_and_passes_eof() {
        let mut p = port(2, DropPolicy::Ppd);
        let v = offer(&mut p, &frame_cells(1, 0, 5));
        // cells 0,1 in; cell 2 tail-dropped -> PPD; cell 3 PPD; EOF: buffer still full -> tail.
        assert_eq!(v, vec![None, None, Some(DropReason::Tail), Some(DropReason::Ppd), Some(DropReason::Tail)]);
        p.start_next(SimTime::ZERO);
        p.in_tx = None;
        let v = offer(&mut p, &frame_cells(1, 1, 3));
        // previous frame ended with an EOF (dropped), so this is a new frame: first accepted.
        assert_eq!(v[0], None);
    }

    #[test]
    fn epd_refuses_whole_frames_above_threshold_and_admits_below() {
        let mut p = port(100, DropPolicy::Epd { threshold: 4 });
        let a = offer(&mut p, &frame_cells(1, 0, 6)); // starts at 0 < 4: admitted whole
        assert!(a.iter().all(|d| d.is_none()));
        let b = offer(&mut p, &frame_cells(2, 1, 3)); // starts at 6 >= 4: refused whole
        assert!(b.iter().all(|d| *d == Some(DropReason::Epd)));
        assert_eq!(p.stats.frames_refused, 1);
        assert_eq!(p.occupancy, 6);
    }

    /// Spec A-4: a VC at its share of the buffer loses its next cells while another VC is
    /// still admitted to the same, far from full, buffer.
    #[test]
    fn a_vc_at_its_buffer_share_loses_cells_others_do_not() {
        let mut p = port(100, DropPolicy::Tail);
        p.vc_limit = 3;
        let v = offer(&mut p, &frame_cells(1, 0, 5));
        assert_eq!(v, vec![None, None, None, Some(DropReason::Tail), Some(DropReason::Tail)]);
        let w = offer(&mut p, &frame_cells(2, 0, 3));
        assert_eq!(w, vec![None, None, None]);
        assert_eq!((p.occupancy, p.stats.drop_tail), (6, 2));
        p.start_next(SimTime::ZERO); // VC 1's first cell leaves: room for one more of VC 1
        p.in_tx = None;
        assert_eq!(offer(&mut p, &frame_cells(1, 1, 1)), vec![None]);
    }

    /// Spec A-5: with a per-VC EPD threshold, a frame whose first cell finds its VC holding
    /// that many cells is refused whole; the same frame on an idle VC is admitted.
    #[test]
    fn per_vc_epd_refuses_a_frame_of_a_loaded_vc_only() {
        let mut p = port(100, DropPolicy::Epd { threshold: 90 });
        p.vc_limit = 10;
        p.vc_epd_threshold = 4;
        assert!(offer(&mut p, &frame_cells(1, 0, 4)).iter().all(Option::is_none));
        let v = offer(&mut p, &frame_cells(1, 1, 3));
        assert_eq!(v, vec![Some(DropReason::Epd); 3]);
        assert!(offer(&mut p, &frame_cells(2, 0, 3)).iter().all(Option::is_none));
        assert_eq!((p.occupancy, p.stats.drop_epd, p.stats.frames_refused), (7, 3, 1));
    }

    #[test]
    fn epd_state_is_per_vc() {
        let mut p = port(100, DropPolicy::Epd { threshold: 2 });
        // VC 1 starts a frame while empty; VC 2 starts a frame once the buffer holds 2.
        let c1 = frame_cells(1, 0, 4);
        let c2 = frame_cells(2, 1, 2);
        assert_eq!(p.offer_cell(SimTime::ZERO, c1[0]), None);
        assert_eq!(p.offer_cell(SimTime::ZERO, c1[1]), None);
        assert_eq!(p.offer_cell(SimTime::ZERO, c2[0]), Some(DropReason::Epd));
        assert_eq!(p.offer_cell(SimTime::ZERO, c1[2]), None);
        assert_eq!(p.offer_cell(SimTime::ZERO, c2[1]), Some(DropReason::Epd));
        assert_eq!(p.offer_cell(SimTime::ZERO, c1[3]), None);
    }

    // ---- the control class ----

    fn ctrl_cell(vci: u32, frame: u32) -> Cell {
        Cell { vci, frame, flags: CTRL | EOF }
    }

    fn rr_port(limit: u32) -> OutPort {
        OutPort::new(
            "p".into(),
            LinkId(0),
            Discipline::RoundRobin,
            limit,
            DropPolicy::Tail,
            Serializer::new(Rate::bps(1_000_000), crate::atm::cell::CELL_BITS),
        )
    }

    /// One cell time at 1 Mb/s: 424 µs.
    const CELL_PS: u64 = 424_000_000;

    /// Let the transmitter run from `now` until the port is empty, with `during` called after
    /// each cell starts (to offer more cells mid-transmission). Returns (completion, cell).
    fn drain_with(
        p: &mut OutPort,
        mut now: SimTime,
        mut during: impl FnMut(&mut OutPort, SimTime),
    ) -> Vec<(SimTime, Cell)> {
        let mut out = Vec::new();
        while let Some(done) = p.start_next(now) {
            during(p, now);
            out.push((done, p.in_tx.take().unwrap()));
            now = done;
        }
        out
    }

    fn drain(p: &mut OutPort) -> Vec<(SimTime, Cell)> {
        drain_with(p, SimTime::ZERO, |_, _| {})
    }

    #[test]
    fn a_control_cell_behind_100_data_cells_leaves_one_cell_time_after_the_cell_in_transmission() {
        let mut p = port(u32::MAX, DropPolicy::Tail);
        p.wake(SimTime::ZERO);
        offer(&mut p, &frame_cells(40, 0, 101));
        let first_done = p.start_next(SimTime::ZERO).unwrap();
        assert_eq!(first_done, SimTime(CELL_PS));
        let on_wire = p.in_tx.unwrap();
        // Arrives mid-transmission, behind 100 waiting data cells.
        assert_eq!(p.offer_cell(SimTime(CELL_PS / 3), ctrl_cell(5, 900)), None);
        assert_eq!(p.occupancy, 100, "the control cell is not a data cell");
        assert_eq!(p.in_tx, Some(on_wire), "no preemption");
        p.in_tx = None;
        let out = drain_with(&mut p, first_done, |_, _| {});
        assert_eq!(out[0], (SimTime(2 * CELL_PS), ctrl_cell(5, 900)));
        // The data cells follow in order, each one cell time later.
        assert_eq!(out.len(), 101);
        for (i, &(t, c)) in out[1..].iter().enumerate() {
            assert_eq!(c.vci, 40);
            assert_eq!(t, SimTime((i as u64 + 3) * CELL_PS));
        }
    }

    #[test]
    fn control_cells_keep_fifo_order_among_themselves() {
        let mut p = port(u32::MAX, DropPolicy::Tail);
        for k in 0..6u32 {
            p.offer_cell(SimTime::ZERO, Cell { vci: 40 + k % 2, frame: 100 + k, flags: EOF });
            // Two signalling VCs interleaved; one 2-cell frame among them.
            let vci = 5 + k % 2;
            let c = if k == 3 { Cell { vci, frame: k, flags: CTRL } } else { ctrl_cell(vci, k) };
            p.offer_cell(SimTime::ZERO, c);
        }
        let out: Vec<Cell> = drain(&mut p).into_iter().map(|(_, c)| c).collect();
        let frames: Vec<u32> = out.iter().map(|c| c.frame).collect();
        assert_eq!(frames, vec![0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105]);
        assert!(out[..6].iter().all(Cell::is_ctrl));
        assert!(!out[6..].iter().any(Cell::is_ctrl));
    }

    #[test]
    fn a_full_control_queue_drops_and_counts_and_leaves_data_alone() {
        let mut p = port(6, DropPolicy::Epd { threshold: 3 }).with_ctrl_buffer(3);
        let ctrl: Vec<Cell> = (0..5).map(|k| ctrl_cell(5, k)).collect();
        let v = offer(&mut p, &ctrl);
        assert_eq!(v, vec![None, None, None, Some(DropReason::Ctrl), Some(DropReason::Ctrl)]);
        assert_eq!(p.ctrl.len(), 3);
        // A data frame arriving now sees an empty data buffer: admitted whole despite EPD.
        let d = offer(&mut p, &frame_cells(40, 10, 6));
        assert!(d.iter().all(Option::is_none));
        assert_eq!(p.occupancy, 6);
        let st = p.stats;
        assert_eq!((st.dropped_ctrl, st.ctrl_in, st.cells_in), (2, 5, 11));
        assert_eq!((st.drop_tail, st.drop_epd, st.frames_refused), (0, 0, 0));
        assert_eq!(st.drops(), 2);
        assert_eq!(st.max_ctrl_occupancy, 3);
        assert_eq!(st.max_occupancy, 6);
        // And a full data buffer does not stop control cells.
        assert_eq!(p.offer_cell(SimTime::ZERO, frame_cells(41, 11, 1)[0]), Some(DropReason::Epd));
        p.ctrl.clear();
        assert_eq!(p.offer_cell(SimTime::ZERO, ctrl_cell(5, 6)), None);
    }

    #[test]
    fn an_adapter_control_frame_is_flagged_and_admitted_whole_or_refused_whole() {
        let mut p = port(4, DropPolicy::Tail).with_ctrl_buffer(3);
        assert!(p.push_ctrl_frame(5, 7, 2));
        assert_eq!(
            p.ctrl.iter().copied().collect::<Vec<_>>(),
            vec![Cell { vci: 5, frame: 7, flags: CTRL }, Cell { vci: 5, frame: 7, flags: CTRL | EOF }]
        );
        assert!(!p.push_ctrl_frame(5, 8, 2), "2 + 2 > 3: refused whole");
        assert_eq!(p.ctrl.len(), 2);
        assert!(p.push_ctrl_frame(5, 9, 1));
        assert_eq!((p.stats.dropped_ctrl, p.stats.ctrl_in, p.stats.cells_in), (2, 5, 5));
        // The data side still has its whole buffer.
        assert!(p.has_room_for(4));
        assert_eq!(p.occupancy, 0);
    }

    #[test]
    fn round_robin_and_fifo_data_both_yield_to_control() {
        for d in [Discipline::Fifo, Discipline::RoundRobin] {
            let mk = || {
                let mut p = OutPort::new(
                    "p".into(),
                    LinkId(0),
                    d,
                    u32::MAX,
                    DropPolicy::Tail,
                    Serializer::new(Rate::bps(1_000_000), crate::atm::cell::CELL_BITS),
                );
                for c in frame_cells(33, 0, 4).into_iter().chain(frame_cells(40, 1, 4)) {
                    p.offer_cell(SimTime::ZERO, c);
                }
                p
            };
            let data_alone: Vec<Cell> = drain(&mut mk()).into_iter().map(|(_, c)| c).collect();
            // The same backlog, with two control cells offered while the 3rd cell is on the wire.
            let mut n = 0;
            let mixed = drain_with(&mut mk(), SimTime::ZERO, |p, now| {
                n += 1;
                if n == 3 {
                    p.offer_cell(now, ctrl_cell(5, 50));
                    p.offer_cell(now, ctrl_cell(5, 51));
                }
            });
            let cells: Vec<Cell> = mixed.iter().map(|&(_, c)| c).collect();
            assert_eq!(&cells[..3], &data_alone[..3], "{d:?}");
            assert_eq!(&cells[3..5], &[ctrl_cell(5, 50), ctrl_cell(5, 51)], "{d:?}");
            assert_eq!(&cells[5..], &data_alone[3..], "{d:?}: data order unchanged");
            // Back to back: the transmitter never idles.
            for (i, &(t, _)) in mixed.iter().enumerate() {
                assert_eq!(t, SimTime((i as u64 + 1) * CELL_PS));
            }
        }
        // Round robin keeps its tokens untouched by control cells.
        let mut p = rr_port(u32::MAX);
        p.offer_cell(SimTime::ZERO, frame_cells(33, 0, 1)[0]);
        p.offer_cell(SimTime::ZERO, ctrl_cell(5, 1));
        assert_eq!(p.sched.active_vcs(), 1);
    }

    #[test]
    fn a_shaper_released_control_cell_joins_the_control_fifo() {
        let mut p = rr_port(u32::MAX);
        p.push_cell(SimTime::ZERO, frame_cells(33, 0, 1)[0]);
        p.push_cell(SimTime::ZERO, ctrl_cell(5, 1));
        assert_eq!((p.occupancy, p.ctrl.len(), p.stats.ctrl_in, p.stats.cells_in), (1, 1, 1, 2));
        assert_eq!(drain(&mut p)[0].1, ctrl_cell(5, 1));
    }

    proptest::proptest! {
        /// Mixed classes under random offers and departures: every cell offered is waiting,
        /// on the wire, sent, or counted in exactly one drop counter; neither buffer overflows.
        #[test]
        fn every_offered_cell_is_queued_sent_or_dropped_once(
            ops in proptest::collection::vec((0u32..3, 1u32..4, proptest::bool::ANY, proptest::bool::ANY), 1..300),
            limit in 1u32..20,
            ctrl_limit in 1u32..6,
        ) {
            let mut p = port(limit, DropPolicy::Epd { threshold: (limit / 2).max(1) }).with_ctrl_buffer(ctrl_limit);
            let mut sent = 0u64;
            for (i, &(vc, n, is_ctrl, depart)) in ops.iter().enumerate() {
                if is_ctrl {
                    if vc == 0 {
                        p.push_ctrl_frame(5, i as u32, n.min(2));
                    } else {
                        let cells: Vec<Cell> = frame_cells(5, i as u32, n.min(2)).into_iter()
                            .map(|c| Cell { flags: c.flags | CTRL, ..c }).collect();
                        offer(&mut p, &cells);
                    }
                } else {
                    offer(&mut p, &frame_cells(32 + vc, i as u32, n));
                }
                proptest::prop_assert!(p.occupancy <= limit);
                proptest::prop_assert!(p.ctrl.len() as u32 <= ctrl_limit);
                if depart && p.start_next(SimTime::ZERO).is_some() {
                    p.in_tx = None;
                    sent += 1;
                }
                proptest::prop_assert_eq!(p.stats.cells_in, sent + p.queued_cells() + p.stats.drops());
            }
        }
    }

    proptest::proptest! {
        /// EPD on random interleavings of frames from several VCs and random departures:
        /// the buffer never overflows; a frame refused at its first cell loses every cell;
        /// an admitted frame keeps a prefix of its cells, plus its end-of-frame cell unless
        /// the buffer was full when that arrived.
        #[test]
        fn epd_discards_whole_frames_or_keeps_a_prefix(
            ops in proptest::collection::vec((0u32..4, 1u32..12, proptest::bool::ANY), 1..200),
            limit in 8u32..64,
            thr_frac in 0.2f64..1.0,
        ) {
            let threshold = ((limit as f64 * thr_frac) as u32).max(1);
            let mut p = port(limit, DropPolicy::Epd { threshold });
            // (vc, frame id, cells) for each frame, and the verdicts of its cells.
            let mut verdicts: Vec<Vec<Option<DropReason>>> = Vec::new();
            for (i, &(vc, n, depart)) in ops.iter().enumerate() {
                let mut v = Vec::new();
                for c in frame_cells(vc, i as u32, n) {
                    v.push(p.offer_cell(SimTime::ZERO, c));
                    proptest::prop_assert!(p.occupancy <= limit);
                    if depart && p.start_next(SimTime::ZERO).is_some() {
                        p.in_tx = None;
                    }
                }
                verdicts.push(v);
            }
            for v in &verdicts {
                if v[0] == Some(DropReason::Epd) {
                    proptest::prop_assert!(v.iter().all(|d| *d == Some(DropReason::Epd)));
                    continue;
                }
                let body = &v[..v.len() - 1];
                let first_drop = body.iter().position(|d| d.is_some()).unwrap_or(body.len());
                proptest::prop_assert!(body[..first_drop].iter().all(|d| d.is_none()));
                proptest::prop_assert!(body[first_drop..].iter().all(|d| d.is_some()));
                let eof = v[v.len() - 1];
                proptest::prop_assert!(eof.is_none() || eof == Some(DropReason::Tail));
            }
        }
    }
}
