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

use super::cell::Cell;
use super::sched::{Discipline, Scheduler};
use crate::ids::LinkId;
use crate::time::{Serializer, SimDuration, SimTime};
use serde::{Deserialize, Serialize};

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
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PortStats {
    /// Cells offered to the port (accepted or dropped).
    pub cells_in: u64,
    /// Cells whose transmission completed.
    pub cells_tx: u64,
    pub drop_tail: u64,
    pub drop_ppd: u64,
    pub drop_epd: u64,
    pub drop_host_queue: u64,
    /// CLP=1 cells dropped at the CLP=1 threshold.
    pub drop_clp1: u64,
    /// Frames refused whole (EPD or host queue).
    pub frames_refused: u64,
    pub max_occupancy: u32,
    /// ∫ occupancy dt [cell·ps], for the time-average queue length.
    pub occupancy_area: u128,
    /// Time the transmitter was busy [ps].
    pub busy_ps: u64,
}

impl PortStats {
    pub fn drops(&self) -> u64 {
        self.drop_tail + self.drop_ppd + self.drop_epd + self.drop_host_queue + self.drop_clp1
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
    /// Greedy source on this VC: refill one frame of this many IP bytes per frame sent.
    pub greedy_frame_bytes: Option<u32>,
}

/// An output port and its transmitter.
pub struct OutPort {
    pub name: String,
    pub link: LinkId,
    pub sched: Scheduler,
    pub vcs: Vec<VcState>,
    /// Cells waiting (the cell in transmission excluded).
    pub occupancy: u32,
    /// Buffer size [cells]; `u32::MAX` = unlimited.
    pub limit: u32,
    pub policy: DropPolicy,
    /// Arriving CLP=1 cells are dropped while the queue holds at least this many cells
    /// (`u32::MAX` = never).
    pub clp1_threshold: u32,
    /// The cell now being transmitted.
    pub in_tx: Option<Cell>,
    pub ser: Serializer,
    pub stats: PortStats,
    last_change: SimTime,
    busy_since: SimTime,
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
            policy,
            clp1_threshold: u32::MAX,
            in_tx: None,
            ser,
            stats: PortStats::default(),
            last_change: SimTime::ZERO,
            busy_since: SimTime::ZERO,
        }
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

    /// Switch admission of one cell (see the module docs). Returns the reason if dropped.
    #[inline]
    pub fn offer_cell(&mut self, now: SimTime, cell: Cell) -> Option<DropReason> {
        self.stats.cells_in += 1;
        let occupancy = self.occupancy;
        let (limit, policy, clp1) = (self.limit, self.policy, self.clp1_threshold);
        let low_priority = cell.flags & super::cell::flags::CLP != 0;
        let eof = cell.is_eof();
        let vs = self.vc(cell.vci);
        let first = !vs.mid_frame;
        vs.mid_frame = !eof;
        let mut refused = false;
        if first {
            vs.discard = match policy {
                DropPolicy::Epd { threshold } if occupancy >= threshold => Discard::Whole,
                _ => Discard::No,
            };
            refused = vs.discard == Discard::Whole;
        }
        let verdict = match vs.discard {
            Discard::Whole => Some(DropReason::Epd),
            Discard::Partial if !eof => Some(DropReason::Ppd),
            _ if occupancy >= limit => {
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

    /// Host admission of a whole frame of `ncells` cells; false if refused.
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

    /// Queue the cells of a frame at a host adapter (already admitted).
    #[inline]
    pub fn push_frame(&mut self, now: SimTime, vci: u32, frame: u32, ncells: u32) {
        self.stats.cells_in += ncells as u64;
        for i in 0..ncells {
            let flags = if i + 1 == ncells { super::cell::flags::EOF } else { 0 };
            self.enqueue(now, Cell { vci, frame, flags });
        }
    }

    /// Queue one cell released by a shaper at a host adapter (no admission: the shaper
    /// already holds it).
    #[inline]
    pub fn push_cell(&mut self, now: SimTime, cell: Cell) {
        self.stats.cells_in += 1;
        self.enqueue(now, cell);
    }

    /// Start sending the next cell if idle. Returns the completion time if a cell started.
    #[inline]
    pub fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        debug_assert!(self.in_tx.is_none());
        let cell = self.sched.pop()?;
        self.touch(now);
        self.occupancy -= 1;
        let vs = &mut self.vcs[cell.vci as usize];
        vs.queued -= 1;
        self.in_tx = Some(cell);
        let d: SimDuration = self.ser.next(super::cell::CELL_BITS);
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
    use crate::atm::cell::flags::EOF;
    use crate::time::Rate;

    fn port(limit: u32, policy: DropPolicy) -> OutPort {
        OutPort::new("p".into(), LinkId(0), Discipline::Fifo, limit, policy, Serializer::new(Rate::bps(1_000_000)))
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
