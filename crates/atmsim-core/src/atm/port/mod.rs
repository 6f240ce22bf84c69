//! Output ports: buffer, admission (tail drop, PPD, EPD), scheduler and transmitter.
//!
//! Owns: [`OutPort`], [`DropPolicy`], [`PortStats`]. The same port serves a host adapter's
//! outgoing link and a switch output (DESIGN §2, `atm::fabric::switch`; MAGIC §2.2: the Fore
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
//! - *Static priority and RCSP ports* (`atm::priority`) put signalling below guaranteed
//!   levels 0–3 and above best effort (Mah Tab 4-2, spec A-33): the control FIFO waits while a
//!   guaranteed cell is eligible. FIFO and round-robin ports serve it first, as above.
//!
//! **Simultaneous events (DESIGN §2b).** At one instant the port first completes: the cell on
//! the wire leaves (freeing its buffer place) and the next one starts, chosen among the cells
//! present before the instant's arrivals; an RCSP port woken for a newly eligible cell
//! chooses likewise. Then the cells reaching the port at that instant enter in the
//! round-robin order of their inputs ([`OutPort::arbiter`]; input links, switch re-shapers and
//! signalling controllers are inputs), each through admission, an idle transmitter starting
//! the first admitted; an input's own cells keep their order. The network collects them
//! ([`OutPort::arrivals`]) and admits them together (`atm::fabric`, `admit_arrivals`). At a
//! host adapter the host's own frames enter after the port's completion, in the order of the
//! events that send them (kind, then entity: `net` module docs).
//!
//! **Serving ahead** (the port's bookkeeping in [`ahead`], carried out by `atm::fabric::ahead`).
//! With `simulation.batching` on, a port
//! ([`OutPort::lazy`]) takes no event per cell. Once a cell starts, its end
//! and its arrival at the far end of the link are known, so the arrival gets its event at once;
//! the port's completions are then carried out late, when something reaches or reads the port
//! — an arriving cell, a host queuing a frame, the link's next arrival, a probe, the end of the
//! run — each bringing it up to that instant first (`Network::advance`). Because every such
//! caller does so, a completion is carried out with the queue exactly as it was at its
//! instant, before that instant's arrivals (§2b above), and the results are bit-identical to
//! one event per cell (checked on every shipped scenario with batching on and off, and on
//! the static-priority and RCSP ports of Mah's internetwork: `tests/it/qos_policies.rs`). Two
//! effects cannot wait, so the port keeps one event for them ([`OutPort::next_due`],
//! [`OutPort::tx_event`]): an end-of-frame or RM cell bound for a host must be started by its
//! start time (its arrival event is made then), and a cell source that waits for its frames
//! to leave is told at the instant its last cell ends. A FIFO port without control cells
//! waiting or sources waiting on frames knows a watched cell's end exactly
//! ([`OutPort::watched_end`]: later arrivals join behind it), so it makes the cell's arrival
//! event at the far end at once and needs no event of its own; that arrival arms the next
//! (`atm::fabric::link::Link::armed_at`). For a FIFO or round robin the start of
//! a waiting cell follows from the service order of the cells present
//! ([`crate::time::Serializer::peek_units`]); beyond a few thousand places (64 for round
//! robin, whose places are spread over its VCs' queues), it is a lower bound and the event
//! looks again when it fires. Control cells go before every data cell, so a control frame's
//! end waiting at a FIFO or round-robin port ends exactly when the control cells before it
//! have gone: its arrival is armed at the far end as a FIFO's frame end is, and data's frame
//! ends behind control cells wait for it to arrive ([`OutPort::watched_end_bound`]). A host's
//! shapers feeding such a port (FIFO or round robin, no source waiting on frames) take no event
//! per cell either: the port releases them as it is brought up to date ([`OutPort::shapers`],
//! [`OutPort::release_at`]; a release is an arrival, after a completion at the same instant,
//! and at an instant it waits for its place in the instant's order), and the link's next
//! arrival event is armed for the first released cell. If the port watches frame ends, it
//! keeps one shaper event for the first frame end its shapers hold, whose release time
//! follows from the GCRA and the cells queued before it
//! ([`crate::atm::shaping::Shaper::first_watched_release`], [`OutPort::shape_watch`]). A
//! port with one shaper, idle and empty, passes each plain data cell the shaper releases
//! alone in one step when the cell ends before the next release
//! ([`OutPort::pass_released`]): a shaped VC's cells cost one step each, not a release, a
//! start and a completion. A static-priority
//! or RCSP port is served ahead alike: its choice at a completion needs the time (which
//! regulated cells are eligible), and it has it, since a completion is carried out with its
//! own time. Its watched cells' starts are lower bounds
//! ([`crate::atm::priority::Priority::watched_bound`]), and so are their ends: the first
//! watched cell's arrival event is armed at the far end at the bound on its end (with control
//! cells waiting, the sooner of theirs and the levels', since a guaranteed level's ready cell
//! goes before control cells), and if cells of a higher level went first meanwhile, that
//! event finds the cell not yet there (or started, with an arrival event of its own), brings
//! the port up to date and arms again, one event where the port's own event at the bound on
//! its start and the cell's arrival made two ([`OutPort::watched_end_bound`]); a
//! non-work-conserving RCSP port idle while its regulators hold cells starts the first at its
//! eligibility ([`OutPort::wake_at`])
//! when it is next read, and keeps an event only for the first held frame end or RM cell
//! ([`OutPort::held_watched_until`]) if it watches only those, else for the first held cell;
//! a class installed or removed at the port brings it up to date
//! first and re-arms it. Its host shapers keep their own events. A switch whose output ports
//! are all served ahead goes one step further: its arrivals
//! take no event each either, and are switched when something reads one of its ports
//! (`atm::fabric::drained`); the ports feeding such a switch then watch their frame ends as
//! a port bound for a host does ([`OutPort::watch_ends`]).

pub mod ahead;

use super::cell::{flags, Cell};
use super::link::CellPipe;
use super::priority::{Mode, Priority, Watch};
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

/// Most queue places [`OutPort::next_due`] looks at: beyond them it answers with a lower
/// bound, and the event it arms looks again when it fires.
const DUE_SCAN_MAX: usize = 4096;

/// The same for a round-robin port, whose places are spread over its VCs' queues (each look
/// a likely cache miss): about one look per cell served, at one event per this many cells.
const RR_DUE_SCAN_MAX: usize = 64;

/// What a full (or filling) switch buffer does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DropPolicy {
    #[default]
    Tail,
    Ppd,
    /// Early packet discard with its threshold \[cells\].
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
    /// An RCSP regulator refused the cell: it would become eligible more than 2 s ahead
    /// (`atm::regulator`; spec A-26). Under PPD or EPD the rest of its frame is dropped too.
    Regulator,
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
    /// Time the transmitter was busy \[ps\].
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
    /// Data cells refused by a full RCSP regulator queue (`atm::regulator`).
    pub drop_regulator: u64,
}

impl PortStats {
    /// Cells offered to the port and not queued, for any reason (both classes).
    pub fn drops(&self) -> u64 {
        self.drop_tail
            + self.drop_ppd
            + self.drop_epd
            + self.drop_host_queue
            + self.drop_clp1
            + self.dropped_ctrl
            + self.drop_regulator
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
/// settings last, so a network of thousands of ports misses the cache less per cell.
#[repr(C)]
pub struct OutPort {
    /// The cell now being transmitted.
    pub in_tx: Option<Cell>,
    /// When the cell in transmission ends (meaningful while [`OutPort::in_tx`] holds one).
    pub tx_done: SimTime,
    pub link: LinkId,
    /// Served ahead (module docs, "Serving ahead"): the port has no event per cell; the
    /// network brings it up to date when anything reaches or reads it.
    pub lazy: bool,
    /// End-of-frame and RM cells must start on time: the port's link ends at a host (whose
    /// reassembly needs them at their instant) or at a switch drained by its readers (whose
    /// frame ends carry the events that keep it on time: `atm::fabric::drained`).
    pub watch_ends: bool,
    /// The switch whose output port this is, if that switch is drained by its readers
    /// (`u32::MAX`: not; `atm::fabric::drained`).
    pub drained_by: u32,
    /// Some VC of this port is a cell source's that waits for its frames to leave.
    pub notify: bool,
    /// The earliest pending event of this served-ahead port, `SimTime::MAX` if none.
    pub tx_event: SimTime,
    /// A served-ahead port's next step: the end of the cell in transmission or the next
    /// shaper release, whichever comes first (`SimTime::MAX`: none, and always for a port
    /// that is not served ahead).
    pub due: SimTime,
    /// When the next of [`OutPort::shapers`] releases cells into the port (`SimTime::MAX`: none).
    pub release_at: SimTime,
    /// A served-ahead non-work-conserving RCSP port idle while its regulators hold cells: when
    /// the first becomes eligible and the port starts it (`SimTime::MAX`: not waiting).
    pub wake_at: SimTime,
    /// Host shapers released by the port itself as it is brought up to date, in index order.
    pub shapers: Vec<u32>,
    /// A port that watches frame ends and releases its shapers itself: the time of the
    /// pending event for the first frame end one of them holds (`SimTime::MAX`: none;
    /// `atm::fabric::ahead`, `arm_shapers`).
    pub shape_watch: SimTime,
    /// Data cells waiting (the cell in transmission and control cells excluded).
    pub occupancy: u32,
    /// Data buffer size \[cells\]; `u32::MAX` = unlimited.
    pub limit: u32,
    /// Arriving CLP=1 cells are dropped while the queue holds at least this many cells
    /// (`u32::MAX` = never).
    pub clp1_threshold: u32,
    /// Per-VC share of the data buffer \[cells\]: a VC holding this many cells has its next
    /// cell dropped as if the buffer were full (`u32::MAX` = no cap; Mah §5.5.4, spec A-4).
    pub vc_limit: u32,
    /// With EPD: a frame whose first cell finds its VC holding this many cells is refused
    /// whole (`u32::MAX` = none; spec A-5).
    pub vc_epd_threshold: u32,
    last_change: SimTime,
    pub ser: Serializer,
    pub policy: DropPolicy,
    pub sched: Scheduler,
    /// The port's static-priority or RCSP scheduler while it rests and [`OutPort::sched`] is a
    /// FIFO serving alike (`atm::priority`, `rest.rs`).
    pub(in crate::atm) classes_at_rest: Option<Box<Priority>>,
    /// Control cells waiting, in arrival order; served before any data cell.
    pub ctrl: VecDeque<Cell>,
    /// Cells offered at the current instant and not yet admitted, with their input's id
    /// (DESIGN §2b: the network admits them together, in the arbiter's order).
    pub arrivals: Vec<(u32, Cell)>,
    /// The input that goes first at the port's next tie between inputs: after a tie it moves to
    /// one past the input that went first (a round-robin arbiter), so no input is favoured by
    /// its index.
    pub arbiter: u32,
    pub vcs: Vec<VcState>,
    pub stats: PortStats,
    busy_since: SimTime,
    /// Control buffer size \[cells\]; `u32::MAX` = unlimited. Default
    /// [`DEFAULT_CTRL_BUFFER_CELLS`]; see [`OutPort::with_ctrl_buffer`].
    pub ctrl_limit: u32,
    pub name: String,
}

impl OutPort {
    /// Whether the cell source on VC `vci` waits to hear that its frames have left.
    #[inline]
    pub fn notifies_source(&self, vci: u32) -> bool {
        self.vcs.get(vci as usize).is_some_and(|v| v.notify_source)
    }

    pub fn new(name: String, link: LinkId, d: Discipline, limit: u32, policy: DropPolicy, ser: Serializer) -> Self {
        let mut port = OutPort {
            name,
            link,
            sched: Scheduler::new(d, ser.rate().tx_time(super::cell::CELL_BITS)),
            classes_at_rest: None,
            vcs: Vec::new(),
            occupancy: 0,
            limit,
            ctrl: VecDeque::new(),
            arrivals: Vec::new(),
            arbiter: 0,
            ctrl_limit: DEFAULT_CTRL_BUFFER_CELLS,
            policy,
            clp1_threshold: u32::MAX,
            vc_limit: u32::MAX,
            vc_epd_threshold: u32::MAX,
            in_tx: None,
            tx_done: SimTime::ZERO,
            lazy: false,
            watch_ends: false,
            drained_by: u32::MAX,
            notify: false,
            tx_event: SimTime::MAX,
            release_at: SimTime::MAX,
            wake_at: SimTime::MAX,
            due: SimTime::MAX,
            shapers: Vec::new(),
            shape_watch: SimTime::MAX,
            ser,
            stats: PortStats::default(),
            last_change: SimTime::ZERO,
            busy_since: SimTime::ZERO,
        };
        port.try_rest();
        port
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

    /// Queue a data cell; false if an RCSP regulator refused it (counted here). FIFO and
    /// round robin never refuse; the priority path is out of line, so theirs is as it was.
    #[inline(always)]
    fn enqueue(&mut self, now: SimTime, cell: Cell) -> bool {
        if self.classifies_at_rest(cell.vci) {
            return self.enqueue_waking(now, cell);
        }
        self.enqueue_awake(now, cell)
    }

    /// [`OutPort::enqueue`] of a data cell a switch admitted ([`OutPort::offer_cell`]), whose
    /// port is kicked at once: a cell of a classified VC at a static-priority port at rest
    /// that finds it idle and empty starts before anything else can join, as any discipline
    /// would start it, so it need not wake the scheduler (`atm::priority`, `rest.rs`).
    #[inline(always)]
    fn enqueue_offered(&mut self, now: SimTime, cell: Cell) -> bool {
        if self.classifies_at_rest(cell.vci) && !self.starts_alone() {
            return self.enqueue_waking(now, cell);
        }
        self.enqueue_awake(now, cell)
    }

    /// [`OutPort::enqueue`] of a cell that cannot wake a scheduler at rest (`atm::priority`,
    /// `rest.rs`): its VC has no class there, or the scheduler is awake.
    #[inline(always)]
    fn enqueue_awake(&mut self, now: SimTime, cell: Cell) -> bool {
        if let Err(cell) = self.sched.push_plain(cell) {
            return self.enqueue_priority(now, cell);
        }
        self.count_in(now, cell.vci);
        true
    }

    #[inline]
    fn count_in(&mut self, now: SimTime, vci: u32) {
        self.touch(now);
        self.occupancy += 1;
        if self.occupancy > self.stats.max_occupancy {
            self.stats.max_occupancy = self.occupancy;
        }
        self.vc(vci).queued += 1;
    }

    #[cold]
    #[inline(never)]
    pub(in crate::atm) fn enqueue_priority(&mut self, now: SimTime, cell: Cell) -> bool {
        if !self.sched.push(now, cell) {
            self.stats.drop_regulator += 1;
            return false;
        }
        self.count_in(now, cell.vci);
        true
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
        if !self.enqueue(now, cell) {
            return Some(DropReason::Regulator);
        }
        None
    }

    /// Switch admission of one cell (see the module docs): control cells to the control FIFO,
    /// data cells through the drop policy. Returns the reason if dropped. The caller starts an
    /// idle transmitter before it offers the next cell, as the model's admission does
    /// (DESIGN §2b; `Fabric::admit_current`): a static-priority port at rest counts on it
    /// (`OutPort::enqueue_offered`).
    #[inline]
    pub fn offer_cell(&mut self, now: SimTime, cell: Cell) -> Option<DropReason> {
        if cell.flags & (flags::CTRL | flags::RM) != 0 {
            return if cell.is_ctrl() { self.offer_ctrl(cell) } else { self.offer_rm(now, cell) };
        }
        let verdict = self.data_verdict(cell);
        if verdict.is_none() && !self.enqueue_offered(now, cell) {
            // A regulator refusal mid-frame is a lost cell like an overflow: under PPD or EPD
            // the rest of the frame goes too (its EOF cell still delimits it).
            if self.policy != DropPolicy::Tail && !cell.is_eof() {
                self.vc(cell.vci).discard = Discard::Partial;
            }
            return Some(DropReason::Regulator);
        }
        verdict
    }

    /// Admission of a data cell at a switch (module docs): counts it in, updates its VC's
    /// frame state and, if the cell is dropped, the drop counter of the reason returned.
    #[inline(always)]
    fn data_verdict(&mut self, cell: Cell) -> Option<DropReason> {
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
            None => {}
            Some(DropReason::Tail) => self.stats.drop_tail += 1,
            Some(DropReason::Ppd) => self.stats.drop_ppd += 1,
            Some(DropReason::Epd) => self.stats.drop_epd += 1,
            Some(DropReason::Clp1) => self.stats.drop_clp1 += 1,
            Some(_) => unreachable!(),
        }
        verdict
    }

    /// Whether a data cell reaching this port now would be alone in it: a served-ahead FIFO
    /// port, idle, nothing queued (control cells included), no source told of its frames,
    /// nothing held or released by it. Such a cell starts at its arrival and is the only
    /// cell in the port until it ends ([`OutPort::pass_idle`]).
    #[inline]
    pub fn is_idle_fifo(&self) -> bool {
        self.release_at == SimTime::MAX && self.is_idle_fifo_but_for_shapers()
    }

    /// [`OutPort::is_idle_fifo`] but for the shapers it releases: a cell one of them releases
    /// now is alone in the port until it ends, if the next release comes no sooner
    /// ([`OutPort::pass_released`]).
    #[inline]
    pub fn is_idle_fifo_but_for_shapers(&self) -> bool {
        self.lazy
            && self.in_tx.is_none()
            && !self.notify
            && self.wake_at == SimTime::MAX
            && self.ctrl.is_empty()
            && matches!(&self.sched, Scheduler::Fifo(q) if q.is_empty())
    }

    /// A data cell that is neither a frame end nor an RM cell reaches this port at `at` while
    /// [idle](OutPort::is_idle_fifo), and nothing else reaches or reads the port before it
    /// would end: admission, the start at `at` and the completion one first cell time later
    /// in one step, every counter and the serializer left as those three steps leave them.
    /// Returns the cell's transmission time, or why it was dropped. The caller puts the cell
    /// on the link (`atm::fabric::drained`, "Cells through idle ports").
    #[inline]
    pub fn pass_idle(&mut self, at: SimTime, cell: Cell) -> Result<SimDuration, DropReason> {
        debug_assert!(
            self.is_idle_fifo() && self.occupancy == 0 && cell.flags & (flags::EOF | flags::RM | flags::CTRL) == 0
        );
        if let Some(reason) = self.data_verdict(cell) {
            return Err(reason);
        }
        Ok(self.pass_admitted(at))
    }

    /// A data cell that is neither a frame end nor an RM cell, released at `at` by a shaper of
    /// this host port while it is [idle](OutPort::is_idle_fifo_but_for_shapers), and ending
    /// before its next release and before anything else reaches or reads the port: the queueing
    /// (no admission at a host, as [`OutPort::push_cell`]), start and completion in one step, as
    /// [`OutPort::pass_idle`]. Returns its transmission time; the caller puts it on the link.
    #[inline]
    pub fn pass_released(&mut self, at: SimTime) -> SimDuration {
        debug_assert!(self.is_idle_fifo_but_for_shapers() && self.occupancy == 0);
        self.stats.cells_in += 1;
        self.pass_admitted(at)
    }

    /// [`OutPort::pass_idle`] and [`OutPort::pass_released`] once the cell is in.
    #[inline(always)]
    fn pass_admitted(&mut self, at: SimTime) -> SimDuration {
        // Queued and started at `at`: an empty queue adds nothing to the occupancy integral.
        self.last_change = at;
        self.stats.max_occupancy = self.stats.max_occupancy.max(1);
        self.busy_since = at;
        self.ser.reset();
        let d = self.ser.next_unit();
        self.tx_done = at + d;
        // Ended at `at + d` with nothing behind it: sent, and idle again.
        self.stats.cells_tx += 1;
        self.stats.busy_ps += d.0;
        self.due = self.release_at;
        d
    }

    /// [`OutPort::pass_idle`] of the `n` next cells of the VC whose cell this port has just
    /// passed, one after another, the last arriving at `last`, all with that cell's flags (so
    /// not ending a frame): the VC's frame state is as that cell left it, so each is admitted
    /// too, and the serializer, reset and advanced by one unit for each, is left as it was.
    /// The counters as the `n` steps leave them.
    #[inline]
    pub fn pass_again_run(&mut self, last: SimTime, n: u64) {
        debug_assert!(self.is_idle_fifo() && self.occupancy == 0);
        let d = self.ser.first_unit();
        self.stats.cells_in += n;
        self.last_change = last;
        self.busy_since = last;
        self.tx_done = last + d;
        self.stats.cells_tx += n;
        self.stats.busy_ps += n * d.0;
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

    /// Queue the cells of a data frame at a host adapter (already admitted). Returns how many
    /// an RCSP regulator refused (0 at other ports), counted in [`PortStats::drop_regulator`].
    #[inline]
    pub fn push_frame(&mut self, now: SimTime, vci: u32, frame: u32, ncells: u32) -> u32 {
        self.stats.cells_in += ncells as u64;
        let classified = self.classifies_at_rest(vci);
        if let (Scheduler::Fifo(q), false) = (&mut self.sched, classified) {
            // One cell after another at one instant: the occupancy integral gains nothing
            // after the first, so the counts move once for the frame.
            q.extend((1..=ncells).map(|i| Cell { vci, frame, flags: if i == ncells { flags::EOF } else { 0 } }));
            self.touch(now);
            self.occupancy += ncells;
            self.stats.max_occupancy = self.stats.max_occupancy.max(self.occupancy);
            self.vc(vci).queued += ncells;
            return 0;
        }
        if classified {
            self.wake_classes();
        }
        let mut refused = 0;
        for i in 0..ncells {
            let flags = if i + 1 == ncells { flags::EOF } else { 0 };
            refused += !self.enqueue_awake(now, Cell { vci, frame, flags }) as u32;
        }
        refused
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
    /// False if an RCSP regulator refused the cell (counted in [`PortStats::drop_regulator`]).
    #[inline]
    pub fn push_cell(&mut self, now: SimTime, cell: Cell) -> bool {
        self.stats.cells_in += 1;
        if cell.is_ctrl() {
            self.stats.ctrl_in += 1;
            self.enqueue_ctrl(cell);
            true
        } else {
            self.enqueue(now, cell)
        }
    }

    /// A served-ahead FIFO port with nothing but data cells queued completes, one after another,
    /// the cells whose transmissions end by `t`, each going onto `pipe` (its link's) at its end
    /// plus `delay`, for as long as the cell to start next is neither a frame end nor an RM cell
    /// (that one may need its arrival event: the caller's general step starts it) and the cell
    /// ending is not a frame end whose source waits to be told (the general step tells it).
    /// Each step is
    /// the general completion and [`OutPort::start_next`] with the port's fields held across
    /// the run; the caller has checked the rest of what the general step would look at
    /// ([`OutPort::runs_plain_until`]). Returns how many cells were completed.
    #[inline]
    pub fn complete_plain_run(&mut self, t: SimTime, pipe: &mut CellPipe, delay: SimDuration) -> u64 {
        let Scheduler::Fifo(q) = &mut self.sched else { return 0 };
        let Some(mut cell) = self.in_tx else { return 0 };
        let mut done = self.tx_done;
        let mut n = 0;
        let (mut occupancy, mut area, mut since) = (self.occupancy, self.stats.occupancy_area, self.last_change);
        for &next in q.iter() {
            if done > t || next.flags & (flags::EOF | flags::RM) != 0 || (self.notify && cell.is_eof()) {
                break;
            }
            pipe.push_back((done + delay, cell));
            area += occupancy as u128 * (done.0 - since.0) as u128;
            since = done;
            occupancy -= 1;
            self.vcs[next.vci as usize].queued -= 1;
            cell = next;
            done += self.ser.next_unit();
            n += 1;
        }
        q.drain(..n);
        (self.occupancy, self.stats.occupancy_area, self.last_change) = (occupancy, area, since);
        let n = n as u64;
        if n > 0 {
            self.in_tx = Some(cell);
            self.tx_done = done;
            self.due = done.min(self.release_at);
            self.stats.cells_tx += n;
        }
        n
    }

    /// Whether [`OutPort::complete_plain_run`] may complete this port's cells up to `t`, and
    /// more than one (else the general step is cheaper): served ahead, FIFO, plain data cells
    /// next and after it, sending a cell that tells no source of its frame,
    /// no control cell waiting (it would go next) and no shaper release (the general step's
    /// other business) before `t`.
    #[inline(always)]
    pub fn runs_plain_until(&self, t: SimTime) -> bool {
        let Scheduler::Fifo(q) = &self.sched else { return false };
        let plain = |c: &Cell| c.flags & (flags::EOF | flags::RM) == 0;
        q.front().is_some_and(plain)
            && q.get(1).is_some_and(plain)
            && self.in_tx.is_some_and(|c| !(self.notify && c.is_eof()))
            && self.release_at > t
            && self.ctrl.is_empty()
    }

    /// Start the next control cell (the control FIFO is not empty), unless a guaranteed-level
    /// cell of a static-priority or RCSP port is eligible: then that cell.
    #[cold]
    #[inline(never)]
    fn start_ctrl(&mut self, now: SimTime) -> Option<SimTime> {
        if self.sched.guaranteed_ready(now) {
            return self.start_priority(now);
        }
        let cell = self.ctrl.pop_front().expect("start_ctrl on an empty control FIFO");
        self.in_tx = Some(cell);
        Some(now + self.ser.next_unit())
    }

    /// FIFO and round robin found no cell: the port goes idle; a priority port picks its own.
    #[inline(never)]
    fn start_idle(&mut self, now: SimTime) -> Option<SimTime> {
        if self.sched.has_classes() {
            return self.start_priority(now);
        }
        None
    }

    /// Start the data cell a static-priority or RCSP scheduler picks at `now`, if any.
    #[cold]
    #[inline(never)]
    fn start_priority(&mut self, now: SimTime) -> Option<SimTime> {
        let Some(cell) = self.sched.pop(now) else {
            self.try_rest();
            return None;
        };
        self.try_rest();
        Some(self.launch(now, cell))
    }

    /// Put data cell `cell`, just taken from the scheduler, on the wire; its completion time.
    #[inline]
    fn launch(&mut self, now: SimTime, cell: Cell) -> SimTime {
        self.touch(now);
        self.occupancy -= 1;
        let vs = &mut self.vcs[cell.vci as usize];
        vs.queued -= 1;
        self.in_tx = Some(cell);
        let d: SimDuration = self.ser.next_unit();
        now + d
    }

    /// Start sending the next cell if idle: the head of the control FIFO if there is one
    /// (at a static-priority or RCSP port, only if no guaranteed-level cell is eligible: Mah
    /// Tab 4-2, `atm::priority`), else the data scheduler's choice. Returns the completion
    /// time if a cell started; if not, a non-work-conserving port may hold cells for later
    /// ([`OutPort::wake_needed`]). Always inlined into its few callers: as a call it cost
    /// MAGIC 4.8 % of its instructions and the multiplexer 2.7 % (one call per cell-hop).
    #[inline(always)]
    pub fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        debug_assert!(self.in_tx.is_none());
        if !self.ctrl.is_empty() {
            return self.start_ctrl(now);
        }
        let Some(cell) = self.sched.pop_plain() else {
            return self.start_idle(now);
        };
        Some(self.launch(now, cell))
    }

    /// Whether `cell`, when it ends, has an effect beyond the port at that very instant: it
    /// ends a frame of a cell source that waits for its frames to leave.
    #[inline]
    fn notifies(&self, cell: Cell) -> bool {
        self.notify && cell.is_eof() && self.vcs.get(cell.vci as usize).is_some_and(|v| v.notify_source)
    }

    /// Whether a served-ahead port must have started `cell` by the time it starts, rather than
    /// whenever it is next brought up to date: it ends a frame (or is an RM cell) and the port
    /// [watches frame ends](OutPort::watch_ends), or it [notifies](OutPort::notifies) a source.
    #[inline]
    fn watched(&self, cell: Cell) -> bool {
        (self.watch_ends && cell.is_eof_or_rm()) || self.notifies(cell)
    }

    /// When a served-ahead port must next be brought up to date by an event of its own
    /// (module docs, "Serving ahead"): the end of the cell in transmission if that cell
    /// notifies a source; else no later than the start of the first watched cell waiting. For a
    /// FIFO or round-robin port without control cells waiting that start is exact (the
    /// service order of the cells present; later arrivals only delay it), unless the watched
    /// cell lies beyond the places looked at; otherwise it is a lower bound, and the event
    /// finds out more when it fires.
    pub fn next_due(&self) -> Option<SimTime> {
        let cell = self.in_tx?;
        if self.notifies(cell) || !self.ctrl.is_empty() {
            return Some(self.tx_done);
        }
        // A cell with k cells ahead of it in its queue starts no sooner than k cell times after
        // the current one ends (exactly then in a FIFO).
        let k = match &self.sched {
            Scheduler::Fifo(q) => match self.first_watched(q) {
                Some(found) => found?,
                None => DUE_SCAN_MAX,
            },
            Scheduler::RoundRobin { tokens, queues } => self.round_robin_due(tokens, queues)?,
            Scheduler::Priority(pr) => return self.priority_due(pr),
        };
        Some(self.tx_done + self.ser.peek_units(k as u64))
    }

    /// [`OutPort::next_due`] of a static-priority or RCSP port: the earliest start its first
    /// watched cell can have ([`crate::atm::priority::Priority::watched_bound`]), a lower
    /// bound. Out of line: FIFO and round robin pay nothing for it.
    #[cold]
    #[inline(never)]
    fn priority_due(&self, pr: &Priority) -> Option<SimTime> {
        self.priority_bounds(pr).map(|(start, _)| start)
    }

    /// Lower bounds on when the first watched cell of a static-priority or RCSP port starts
    /// and ends: a cell with `k` cells ahead of it (`watched_bound`) starts no sooner than `k`
    /// cell times after the current one ends and ends one more after that; a cell held by its
    /// regulator until `e` starts no sooner than `e` (RCSP-wc: or when the queued cells are
    /// gone) and ends a first cell time after (a line's units are never shorter).
    fn priority_bounds(&self, pr: &Priority) -> Option<(SimTime, SimTime)> {
        // Unless sources wait on their frames, `watched` is `watch_ends && is_eof_or_rm()`.
        let watch = if self.notify {
            Watch::Each(|c| self.watched(c))
        } else if self.watch_ends {
            Watch::Marked
        } else {
            Watch::Nothing
        };
        let (cells, eligible, queued) = pr.watched_bound(watch, DUE_SCAN_MAX);
        let in_queue = cells
            .map(|k| (self.tx_done + self.ser.peek_units(k as u64), self.tx_done + self.ser.peek_units(k as u64 + 1)));
        let held = eligible.map(|e| {
            let start = match pr.mode {
                Mode::RcspWc => e.min(self.tx_done + self.ser.peek_units(queued as u64)),
                _ => e,
            };
            let start = start.max(self.tx_done);
            (start, start + self.ser.first_unit())
        });
        match (in_queue, held) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.min(b.1))),
            (a, b) => a.or(b),
        }
    }

    /// A lower bound on when the first watched cell waiting ends, for a port whose watched
    /// cells' arrivals may be armed ahead at such a bound instead of the port taking an event at
    /// the bound on their start ([`crate::atm::fabric::Fabric::arm`]): the port watches frame
    /// ends for its link, no source waits on its frames, the cell in transmission ends after
    /// `now` (the port is up to date), and its first watched cell is
    /// - a control cell at a FIFO or round-robin port: control cells go before every data cell,
    ///   so the `i`-th ends exactly `i + 1` cell times after the cell in transmission;
    /// - or waits at a static-priority or RCSP port: the sooner of that bound for its first
    ///   watched control cell (a guaranteed level's ready cell may go before control cells
    ///   there, so it is a bound) and the bound for its first watched data cell
    ///   (`OutPort::priority_bounds`), which may be a guaranteed level's and go first.
    ///
    /// `None` if the port needs its own event instead, `Some(None)` if no cell waiting is
    /// watched. A bound is after `now` by a cell time at least, so an arrival event armed at it
    /// that finds the cell not yet there finds the port further on, and a later bound.
    pub fn watched_end_bound(&self, now: SimTime) -> Option<Option<SimTime>> {
        if self.in_tx.is_none() || self.tx_done <= now || self.notify || !self.watch_ends {
            return None;
        }
        let ctrl_end = if self.ctrl.is_empty() {
            None
        } else {
            let i = self.ctrl.iter().position(|c| c.is_eof_or_rm())?;
            Some(self.tx_done + self.ser.peek_units(i as u64 + 1))
        };
        let Scheduler::Priority(pr) = &self.sched else { return ctrl_end.map(Some) };
        let data_end = self.priority_bounds(pr).map(|(_, end)| end);
        Some(match (ctrl_end, data_end) {
            (Some(c), Some(d)) => Some(c.min(d)),
            (c, d) => c.or(d),
        })
    }

    /// How many cells a round-robin port serves before its first watched cell, if any: the
    /// service order of the cells waiting now (round r serves the r-th cell of every VC that
    /// has one, in token order; arrivals only add to it). Looks at most [`RR_DUE_SCAN_MAX`]
    /// places, and answers with a lower bound beyond them.
    fn round_robin_due(&self, tokens: &VecDeque<u32>, queues: &[VecDeque<Cell>]) -> Option<usize> {
        let (mut served, mut looked) = (0usize, 0usize);
        for r in 0.. {
            let mut any = false;
            for &v in tokens {
                looked += 1;
                if looked > RR_DUE_SCAN_MAX {
                    return Some(served);
                }
                let Some(&c) = queues[v as usize].get(r) else { continue };
                if self.watched(c) {
                    return Some(served);
                }
                served += 1;
                any = true;
            }
            if !any {
                return None;
            }
        }
        unreachable!("the rounds end when no VC has a cell left")
    }

    /// Whether the start of every waiting data cell is known exactly: a FIFO port without
    /// control cells waiting (they would go first) and without sources waiting on frames,
    /// sending a cell. Later arrivals join behind.
    #[inline]
    pub fn starts_exact(&self) -> bool {
        self.in_tx.is_some() && !self.notify && self.ctrl.is_empty() && matches!(self.sched, Scheduler::Fifo(_))
    }

    /// When the first watched cell waiting ends, exactly, if [`OutPort::starts_exact`] and it
    /// lies within the places looked at: `Some(None)` if no cell waiting is watched,
    /// `None` if not known exactly (then [`OutPort::next_due`] gives a bound on its start).
    pub fn watched_end(&self) -> Option<Option<SimTime>> {
        if !self.starts_exact() {
            return None;
        }
        let Scheduler::Fifo(q) = &self.sched else { unreachable!("starts_exact is FIFO only") };
        let found = self.first_watched(q)?;
        Some(found.map(|k| self.tx_done + self.ser.peek_units(k as u64 + 1)))
    }

    /// The place of the first watched cell in FIFO `q`, looking at most [`DUE_SCAN_MAX`]
    /// places: `Some(None)` if `q` holds none, `None` if none lies within the places looked at
    /// and `q` is longer.
    #[inline]
    fn first_watched(&self, q: &VecDeque<Cell>) -> Option<Option<usize>> {
        let (a, b) = q.as_slices();
        let a = &a[..a.len().min(DUE_SCAN_MAX)];
        let b = &b[..b.len().min(DUE_SCAN_MAX - a.len())];
        let found = a.iter().position(|&c| self.watched(c));
        match found.or_else(|| b.iter().position(|&c| self.watched(c)).map(|k| k + a.len())) {
            Some(k) => Some(Some(k)),
            None if q.len() <= DUE_SCAN_MAX => Some(None),
            None => None,
        }
    }

    /// When `cell`, which just joined the tail of the data FIFO, ends, exactly, if it is
    /// watched and [`OutPort::starts_exact`].
    #[inline]
    pub fn pushed_end(&self, cell: Cell) -> Option<SimTime> {
        if !self.watched(cell) || cell.is_ctrl() || !self.starts_exact() {
            return None;
        }
        let Scheduler::Fifo(q) = &self.sched else { unreachable!("starts_exact is FIFO only") };
        Some(self.tx_done + self.ser.peek_units(q.len() as u64))
    }

    /// When `cell`, which just joined the tail of its queue (data or control), needs the port's
    /// event, if it is watched: no later than its start (a lower bound, as in
    /// [`OutPort::next_due`]; the needs of the cells queued before it are already armed).
    #[inline]
    pub fn next_due_after_push(&self, cell: Cell) -> Option<SimTime> {
        if self.in_tx.is_none() || !self.watched(cell) {
            return None;
        }
        if cell.is_ctrl() || !self.ctrl.is_empty() {
            return Some(self.tx_done);
        }
        let ahead = match &self.sched {
            Scheduler::Fifo(q) => q.len(),
            Scheduler::RoundRobin { queues, .. } => queues[cell.vci as usize].len(),
            Scheduler::Priority(_) => return self.next_due(),
        };
        Some(self.tx_done + self.ser.peek_units(ahead.saturating_sub(1) as u64))
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

    /// Time spent transmitting from the start of the run to `now` \[ps\].
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

/// What the builder sets on a port before the run and what the run's readers (the
/// measurements, the report) ask of it as values.
impl OutPort {
    /// The same port with a CLP=1 threshold (`u32::MAX`: none) and per-VC buffer limit and
    /// EPD threshold (`u32::MAX`: unlimited, none), all in cells.
    pub fn with_vc_limits(mut self, clp1_threshold: u32, vc_limit: u32, vc_epd_threshold: u32) -> Self {
        self.clp1_threshold = clp1_threshold;
        self.vc_limit = vc_limit;
        self.vc_epd_threshold = vc_epd_threshold;
        self
    }

    /// Give the control FIFO room for `cells` cells (`u32::MAX` = unlimited).
    pub fn set_ctrl_buffer(&mut self, cells: u32) {
        self.ctrl_limit = cells;
    }

    /// A cell source sends on VC `vci`: it hears when each of its frames has left
    /// ([`OutPort::notifies_source`]).
    pub fn notify_source(&mut self, vci: u32) {
        self.vc(vci).notify_source = true;
    }

    /// The rate of the port's link.
    pub fn link_rate(&self) -> crate::time::Rate {
        self.ser.rate()
    }

    /// Whether the port's scheduler is plain FIFO.
    pub fn is_fifo(&self) -> bool {
        matches!(self.sched, Scheduler::Fifo(_))
    }

    /// Cells in the data buffer now \[cells\] (the control FIFO and the cell in transmission
    /// excluded).
    pub fn occupancy(&self) -> u32 {
        self.occupancy
    }

    /// Data cells of VC `vci` not yet sent: those in the buffer and the one in transmission.
    pub fn unsent_cells_of(&self, vci: u32) -> u64 {
        let queued = self.vcs.get(vci as usize).map_or(0, |v| v.queued as u64);
        let on_wire = self.in_tx.is_some_and(|c| c.vci == vci && !c.is_ctrl()) as u64;
        queued + on_wire
    }
}

#[cfg(test)]
mod tests;
