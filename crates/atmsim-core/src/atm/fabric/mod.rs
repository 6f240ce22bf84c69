//! The cell fabric of a running network: every output port, link and switch, the shapers and
//! policers beside them, the table of AAL5 frames in flight and the network's cell ledger.
//!
//! Owns: [`Fabric`], its events [`AtmEv`], its ledger [`CellCounts`], and what it hands to
//! the layers above ([`Up`]). The builder (`scenario::build`) fills it; the network (`net/`)
//! runs it, giving it a [`Clock`] (the time and the event queue) and routing what it delivers
//! upward.
//!
//! - [`adapter`] — host adapters: datagrams segmented onto a VC, ABR end systems' cells;
//! - [`ahead`] — ports served ahead: a FIFO or round-robin port takes no event per cell;
//! - [`drained`] — switches drained by their readers: their arrivals take no event each;
//! - [`due`] — drained switches of many inputs, which keep their inputs in order of their next
//!   arrivals instead of scanning them;
//! - [`link`] — the links: cells in flight and their arrival events;
//! - [`switch`] — the switches: output ports, inputs, and how far a drained one has switched;
//! - this module — admission at an output port in the model's order (DESIGN §2b), starting a
//!   transmitter, a cell's arrival event, and the ledger of lost cells.

use super::aal5::{Frames, Reassembled, Reassembler};
use super::cell::{flags, Cell};
use super::link::Sink;
use link::each;
use super::port::{DropReason, OutPort};
use super::shaping::{ShaperKind, Shapers};
use crate::abr::{ErPorts, RmCell, RmCells};
use crate::ids::{DatagramId, LinkId, NodeId, PortId};
use crate::signalling::SIG_VCI;
use crate::time::{SimDuration, SimTime};

pub mod adapter;
pub mod ahead;
pub mod drained;
pub mod due;
pub mod link;
pub mod stepped;
pub mod switch;

pub use link::Link;
pub use switch::Switch;

/// What the fabric needs of the event loop: the time, and a queue for its events.
pub trait Clock {
    /// The running instant.
    fn now(&self) -> SimTime;
    /// Move the running instant (a drained switch switches each arrival at its own instant).
    fn set_now(&mut self, t: SimTime);
    /// The instant of the event being run, however a drain has moved [`Clock::now`] back: the
    /// earliest time an event may be scheduled for.
    fn running(&self) -> SimTime;
    /// Schedule an event of the fabric.
    fn schedule(&mut self, at: SimTime, ev: AtmEv);
    /// The place in the order of events (a kernel key prefix: time, generation, rank) that a
    /// release event of shaper `s` for `at`, scheduled by an event at `armed` (the running
    /// instant, or earlier for work carried out late), would have. A shaper released by its
    /// port ([`crate::atm::shaping::Shaper::lazy`]) is released at its instant only once the
    /// running event has reached that place (a release is an arrival, DESIGN §2b).
    fn release_place(&self, at: SimTime, s: u32, armed: SimTime) -> u128;
    /// The place in the order of events of the running one ([`Clock::release_place`]).
    fn running_place(&self) -> u128;
    /// Whether the fabric may take its next step `ev` at `t` at once, inline, instead of
    /// scheduling it (batching, and nothing else comes first); if so the clock is at `t`.
    fn take_inline(&mut self, t: SimTime, ev: AtmEv) -> bool;
    /// Whether an event of the instant's arrival phase is still pending (DESIGN §2b): then
    /// a port offered a cell now admits it at the instant's admission phase.
    fn arrivals_pending(&self) -> bool;
    /// Port `p` holds arrivals of this instant ([`crate::atm::port::OutPort::arrivals`]): the
    /// engine calls [`Fabric::admit_arrivals`] at the port's place in the admission phase.
    fn admit_later(&mut self, p: PortId);
}

/// Who offers a cell to an output port: one input of the port's arbiter (DESIGN §2b).
#[derive(Clone, Copy, Debug)]
pub enum Input {
    /// A cell arriving on a switch's input link.
    Link(LinkId),
    /// A switch re-shaper (by its index in [`crate::atm::shaping::Shapers::list`]) releasing cells.
    Reshaper(u32),
    /// A signalling controller sending a message.
    Controller(u32),
}

impl Input {
    /// Distinct ids for the arbiter's cyclic order: links, then re-shapers, then controllers.
    pub fn id(self) -> u32 {
        match self {
            Input::Link(l) => l.0,
            Input::Reshaper(s) => 0x8000_0000 | s,
            Input::Controller(c) => 0xC000_0000 | c,
        }
    }
}

/// What the fabric hands upward, collected in [`Fabric::up`] for the network to route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Up {
    /// Port `port` finished sending `cell`, the end of a frame whose sender waits for it
    /// (a cell source, `apps::cell_source`).
    FrameLeft { port: PortId, cell: Cell },
    /// A frame reassembled at host `host` (whose datagram it carries), for its IP layer.
    Frame { host: NodeId, dgram: DatagramId },
    /// A frame that failed reassembly at host `host` (a cell of it, or of the frame before,
    /// was lost).
    Corrupt { host: NodeId },
    /// An ABR RM cell reached node `host`, for its end system.
    Rm { host: NodeId, cell: Cell },
    /// A control (signalling) frame reassembled from the cells of link `link`, for the
    /// controller at its far end. Its record stays pinned until read
    /// ([`super::aal5::Frames::unpin`]).
    CtrlFrame { link: LinkId, frame: u32 },
}

/// Events of the ATM cell layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtmEv {
    /// Port `p` finished a cell: it enters the link; the next cell starts.
    PortTx(PortId),
    /// The head cell of link `l` reaches its far end: a switch or a host.
    Arrive(LinkId),
    /// Shaper `s` (index into [`Fabric::shapers`]`.list`) releases the cells that conform now.
    Shape(u32),
    /// ABR end system `e` (index into the ABR plane's end systems) may send its next cell.
    Abr(u32),
    /// Port `p` (non-work-conserving RCSP) has a held cell becoming eligible: start it if idle.
    PortWake(PortId),
    /// Every switch drained by its readers switches its arrivals up to now.
    Drain,
}

/// Network-wide cell counters (conservation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellCounts {
    /// Cells queued at host adapters (entered the network).
    pub injected: u64,
    /// Cells that reached their destination host's reassembler.
    pub delivered: u64,
    pub dropped_tail: u64,
    pub dropped_ppd: u64,
    pub dropped_epd: u64,
    pub dropped_no_route: u64,
    /// CLP=1 cells dropped at a switch's CLP=1 threshold.
    pub dropped_clp1: u64,
    /// Non-conforming cells discarded by a policer.
    pub dropped_police: u64,
    /// Cells that found a switch re-shaper's buffer full.
    pub dropped_reshape: u64,
    /// Control (signalling) cells that found a switch output port's control FIFO full.
    pub dropped_ctrl: u64,
    /// Cells of frames refused whole by a host adapter (never injected), data or control.
    pub refused_at_host: u64,
    /// Data cells refused by a full RCSP regulator queue (2 s at X_ave; spec A-26).
    pub dropped_regulator: u64,
}

impl CellCounts {
    pub fn dropped_in_network(&self) -> u64 {
        self.dropped_tail
            + self.dropped_ppd
            + self.dropped_epd
            + self.dropped_no_route
            + self.dropped_clp1
            + self.dropped_police
            + self.dropped_reshape
            + self.dropped_ctrl
            + self.dropped_regulator
    }
}

/// The ports, links and switches of a network and the cells in them.
pub struct Fabric {
    /// Output ports, of host adapters and switches ([`PortId`]).
    pub ports: Vec<OutPort>,
    /// Simplex links, each fed by one port ([`LinkId`]).
    pub links: Vec<Link>,
    pub switches: Vec<Switch>,
    /// Shapers and pacing at host adapters, re-shapers and policers at switch inputs.
    pub shapers: Shapers,
    /// AAL5 frames in flight.
    pub frames: Frames,
    /// The cell ledger.
    pub cells: CellCounts,
    /// Cell transmissions completed by all ports (one per cell per hop).
    pub cell_hops: u64,
    /// Reused buffer for cells a switch re-shaper releases at once.
    pub scratch_cells: Vec<Cell>,
    /// Period of the drain of drained switches feeding each other ([`drained`]).
    pub drain_period: SimDuration,
    /// Scratch: ports with arrivals in the instant a drained switch is switching.
    pub drain_dirty: Vec<PortId>,
    /// Ports a controller offered cells to while its drained switch was switching.
    pub drain_offered: Vec<PortId>,
    /// RM cells of ABR VCs in flight: their records ([`flags::RM`] cells index them).
    pub rm: RmCells,
    /// The explicit-rate allocators of ABR ports, met by the cells a switch switches.
    pub er: ErPorts,
    /// Reassembly of control (signalling) cells, per link (empty without signalling).
    pub ctrl_reasm: Vec<Reassembler>,
    /// Reassembly at host adapters: by host, then by incoming VCI (grown as VCIs appear).
    pub host_reasm: Vec<Vec<Reassembler>>,
    /// What the fabric delivered upward and the network has not routed yet.
    pub up: Vec<Up>,
    /// By link, into a switch drained through its inputs' next arrivals ([`each::DUE`]): the
    /// arrival time under which the link is entered in the switch's due inputs
    /// (`SimTime::MAX`: not entered; [`due`]). Beside the links, not in them: a link's record
    /// stays 128 bytes, indexed by a shift.
    pub link_due: Vec<SimTime>,
    /// By switch: a drained switch of many inputs keeps them in order of their next arrivals
    /// ([`due`]); `None` for a drained switch that scans its inputs, and for one that is not
    /// drained.
    pub due_inputs: Vec<Option<Box<due::DueInputs>>>,
}

impl Fabric {
    /// A fabric of these ports, links, switches, shapers and allocators, with no cell in it
    /// yet.
    pub fn new(ports: Vec<OutPort>, links: Vec<Link>, switches: Vec<Switch>, shapers: Shapers, er: ErPorts) -> Self {
        let due_inputs = switches.iter().map(|_| None).collect();
        Fabric {
            ports,
            links,
            switches,
            shapers,
            frames: Frames::default(),
            cells: CellCounts::default(),
            cell_hops: 0,
            scratch_cells: Vec::new(),
            drain_period: SimDuration::MAX,
            drain_dirty: Vec::new(),
            drain_offered: Vec::new(),
            rm: RmCells::default(),
            er,
            ctrl_reasm: Vec::new(),
            host_reasm: Vec::new(),
            up: Vec::new(),
            link_due: Vec::new(),
            due_inputs,
        }
    }

    /// The RM cells in flight and their ledger.
    pub fn rm_cells(&self) -> &RmCells {
        &self.rm
    }

    /// An RM cell leaves its source: the frame id its cell carries.
    #[inline]
    pub fn alloc_rm(&mut self, rm: RmCell) -> u32 {
        self.rm.alloc(rm)
    }

    /// The RM cell of frame id `f` reached its end.
    #[inline]
    pub fn deliver_rm(&mut self, f: u32) -> RmCell {
        self.rm.deliver(f)
    }

    /// Whether switch `s` is drained by its readers ([`drained`]).
    #[inline]
    pub fn is_drained(&self, s: u32) -> bool {
        self.switches[s as usize].drained
    }

    /// The drained switch port `p` belongs to, if any.
    #[inline]
    pub fn drainer_of(&self, p: PortId) -> Option<u32> {
        self.ports[p.idx()].drainer()
    }

    /// Whether drained switch `s` is switching an instant's arrivals now.
    #[inline]
    pub fn is_switching(&self, s: u32) -> bool {
        self.switches[s as usize].switching
    }

    /// Before the run: ports are served ahead if `batching` (watching frame ends on links into
    /// hosts, telling cell sources of frames sent if one asks), reassembly for `hosts` hosts
    /// and, with `signalling`, for control cells on every link; switches drained by their
    /// readers are chosen ([`drained`]); and host shapers whose port is served ahead, FIFO
    /// or round robin, with no source waiting on frames, are released by the port (if the
    /// port watches frame ends, it keeps an event for the first frame end its shapers hold:
    /// [`ahead`]).
    pub fn prime(&mut self, ck: &mut impl Clock, batching: bool, hosts: usize, signalling: bool) {
        for p in &mut self.ports {
            let into_host = matches!(self.links[p.link.idx()].to, Sink::Host(_));
            p.prime_ahead(batching, into_host);
        }
        self.host_reasm = vec![Vec::new(); hosts];
        if signalling {
            self.ctrl_reasm = vec![Default::default(); self.links.len()];
        }
        self.prime_drained(ck, batching);
        for (i, sh) in self.shapers.list.iter_mut().enumerate() {
            let p = &mut self.ports[sh.port.idx()];
            if sh.kind != ShaperKind::Switch && p.may_release_shapers() {
                sh.lazy = true;
                p.add_own_shaper(i as u32);
            }
        }
    }

    /// Cell `cell` will reach the far end of link `l` at `at`: the event it needs, if any. Into
    /// a switch: one event per cell, chained from the head (`Link::armed_at`); into a switch
    /// drained by its readers, or a host: only end-of-frame cells (and ABR RM cells), whose
    /// effects cannot wait — the cells before them are delivered in order when it fires —, and
    /// none if its port armed it ahead (`ahead.rs`, `arm_arrival`).
    #[inline(always)]
    pub fn arrival_event(&mut self, ck: &mut impl Clock, l: LinkId, at: SimTime, cell: Cell) {
        if cell.flags & (flags::EOF | flags::RM) != 0 || self.links[l.idx()].each != 0 {
            self.arrival_event_for(ck, l, at, cell);
        }
    }

    /// [`Fabric::arrival_event`] for a cell that may need one: a frame end, an RM cell, or any
    /// cell into a switch that takes an event per arrival; a cell into a switch drained
    /// through its inputs' next arrivals is told to it ([`Fabric::due_at`]).
    #[inline(never)]
    fn arrival_event_for(&mut self, ck: &mut impl Clock, l: LinkId, at: SimTime, cell: Cell) {
        let link = &mut self.links[l.idx()];
        if link.each == each::DUE && cell.flags & (flags::EOF | flags::RM) == 0 {
            return self.due_at(l, at);
        }
        let (wake, due) = match link.to {
            Sink::Switch { switch, .. } if self.switches[switch.idx()].drained => {
                (cell.flags & (flags::EOF | flags::RM) != 0 && at != link.armed_at, link.each & each::DUE != 0)
            }
            Sink::Switch { .. } if at < link.armed_at => {
                link.armed_at = at;
                (true, false)
            }
            Sink::Switch { .. } => (false, false),
            Sink::Host(_) => (cell.flags & (flags::EOF | flags::RM) != 0 && at != link.armed_at, false),
        };
        if due {
            self.due_at(l, at);
        }
        if wake {
            debug_assert!(at >= ck.now(), "an arrival event in the past on link {}", self.links[l.idx()].name);
            ck.schedule(at, AtmEv::Arrive(l));
        }
    }

    /// `cell` leaves the port feeding link `l` onto it now.
    #[inline]
    pub fn put_on_link(&mut self, ck: &mut impl Clock, l: LinkId, cell: Cell) {
        let link = &mut self.links[l.idx()];
        let at = ck.now() + link.delay;
        link.pipe.push_back((at, cell));
        self.arrival_event(ck, l, at, cell);
    }

    /// Port `p` admits the cells offered to it at this instant in the round-robin order of
    /// their inputs, starting at its arbiter; an input's own cells keep their order. After a
    /// tie between inputs the arbiter moves to one past the input that went first (DESIGN §2b).
    pub fn admit_arrivals(&mut self, ck: &mut impl Clock, p: PortId) {
        let port = &mut self.ports[p.idx()];
        let mut batch = std::mem::take(&mut port.arrivals);
        crate::arbiter::admit_order(&mut batch, &mut port.arbiter);
        for &(_, cell) in &batch {
            self.admit(ck, p, cell);
        }
        batch.clear();
        self.ports[p.idx()].arrivals = batch;
    }

    /// Port `p` takes `cell` through its admission (drop policy, control FIFO) and starts it
    /// if idle.
    #[inline]
    pub fn admit(&mut self, ck: &mut impl Clock, p: PortId, cell: Cell) {
        let now = ck.now();
        self.advance(ck, p, now);
        self.admit_current(ck, p, cell);
    }

    /// [`Fabric::admit`] at port `p` already brought up to now.
    #[inline(always)]
    pub fn admit_current(&mut self, ck: &mut impl Clock, p: PortId, cell: Cell) {
        let now = ck.now();
        let port = &mut self.ports[p.idx()];
        match port.offer_cell(now, cell) {
            None => {
                self.arm_after_push(ck, p, cell);
                self.kick(ck, p)
            }
            Some(reason) => self.dropped_at_port(cell, reason),
        }
    }

    /// A switch port dropped `cell` for `reason`: counted in the cell ledger, and its frame
    /// (or RM record) told.
    #[cold]
    pub fn dropped_at_port(&mut self, cell: Cell, reason: DropReason) {
        match reason {
            DropReason::Tail => self.cells.dropped_tail += 1,
            DropReason::Ppd => self.cells.dropped_ppd += 1,
            DropReason::Epd => self.cells.dropped_epd += 1,
            DropReason::Clp1 => self.cells.dropped_clp1 += 1,
            DropReason::Ctrl => self.cells.dropped_ctrl += 1,
            DropReason::Regulator => self.cells.dropped_regulator += 1,
            DropReason::HostQueue | DropReason::NoRoute | DropReason::Police => unreachable!(),
        }
        self.cell_lost(cell);
    }

    /// Data cell `cell`, arriving at `at` on switch input `l` and routed onward, meets the
    /// explicit-rate allocators of the switch's ports ([`ErPorts::at_switch`]); one flag test
    /// for a cell that is neither an RM cell nor counted by ERICA.
    #[inline(always)]
    pub fn meet_allocators(&mut self, l: LinkId, cell: Cell, at: SimTime) {
        if self.er.wants(cell) {
            self.er.at_switch(&mut self.rm, l, cell, at);
        }
    }

    /// A cell reached switch `s` on a VCI without a translation entry: it is dropped.
    #[cold]
    pub fn no_route(&mut self, s: u32, cell: Cell) {
        self.switches[s as usize].misrouted += 1;
        self.cells.dropped_no_route += 1;
        self.cell_lost(cell);
    }

    /// A cell was dropped in the network: its AAL5 frame loses a cell, or, for an RM cell,
    /// its record is freed.
    #[inline]
    pub fn cell_lost(&mut self, cell: Cell) {
        if cell.is_rm() {
            self.rm.lose(cell.frame);
        } else {
            self.frames.cell_dropped(cell.frame);
        }
    }

    /// A control (signalling) cell reached the far end of link `l`: into the link's control
    /// reassembler; a frame it completes is handed upward ([`Up::CtrlFrame`]), its record
    /// pinned until the network has read it ([`Frames::pin`]).
    pub fn ctrl_cell(&mut self, l: LinkId, cell: Cell) {
        self.cells.delivered += 1;
        let eof = cell.is_eof();
        if eof {
            self.frames.pin(cell.frame);
        }
        match self.ctrl_reasm[l.idx()].push(&mut self.frames, cell.frame, eof) {
            Reassembled::Frame(_) => self.up.push(Up::CtrlFrame { link: l, frame: cell.frame }),
            Reassembled::Corrupt => self.frames.unpin(cell.frame),
            Reassembled::Pending => {}
        }
    }

    /// Deliver every cell of link `l` that has reached host `h` by now (the port feeding the
    /// link is up to date): control cells to the link's control reassembler, RM cells upward
    /// as they are, data cells to the host's reassembler for their VCI; what completes goes
    /// upward ([`Up`]).
    pub fn deliver_to_host(&mut self, ck: &mut impl Clock, l: LinkId, h: NodeId) {
        let now = ck.now();
        while let Some(&(t, cell)) = self.links[l.idx()].pipe.front() {
            if t > now {
                break;
            }
            self.links[l.idx()].pipe.pop_front();
            self.links[l.idx()].cells_delivered += 1;
            if cell.vci == SIG_VCI {
                self.ctrl_cell(l, cell);
                continue;
            }
            self.cells.delivered += 1;
            if cell.is_rm() {
                self.up.push(Up::Rm { host: h, cell });
                continue;
            }
            let reasm = &mut self.host_reasm[h.idx()];
            let v = cell.vci as usize;
            if v >= reasm.len() {
                reasm.resize_with(v + 1, Reassembler::default);
            }
            if !cell.is_eof() {
                // The frame's next cells that have arrived, up to its end, join it in one step.
                let link = &mut self.links[l.idx()];
                let same = |&&(t, next): &&(SimTime, Cell)| {
                    t <= now && next.vci == cell.vci && next.frame == cell.frame && next.flags == cell.flags
                };
                // Interleaved frames (a multiplexer's) have none: one look at the head first.
                let more = if link.pipe.front().is_some_and(|c| same(&c)) {
                    link.pipe.iter().take_while(same).count()
                } else {
                    0
                };
                link.pipe.drop_front(more);
                let n = 1 + more as u32;
                link.cells_delivered += n as u64 - 1;
                self.cells.delivered += n as u64 - 1;
                reasm[v].push_cells(cell.frame, n);
                continue;
            }
            match reasm[v].push(&mut self.frames, cell.frame, true) {
                Reassembled::Pending => {}
                Reassembled::Corrupt => self.up.push(Up::Corrupt { host: h }),
                Reassembled::Frame(f) => self.up.push(Up::Frame { host: h, dgram: f.dgram }),
            }
        }
    }

    /// Cells delivered to hosts but waiting in reassembly buffers for an end-of-frame cell.
    pub fn cells_in_reassembly(&self) -> u64 {
        self.host_reasm.iter().flatten().map(|r| r.held_cells()).sum()
    }

    /// Start the transmitter of port `p` if it is idle and has cells (a served-ahead port is
    /// up to date: whoever queued the cells brought it there first). The test is inlined; a
    /// busy port, the usual case at a switch, costs no call.
    #[inline(always)]
    pub fn kick(&mut self, ck: &mut impl Clock, p: PortId) {
        if !self.ports[p.idx()].is_busy() {
            self.kick_idle(ck, p);
        }
    }

    /// [`Fabric::kick`] of idle port `p`.
    #[inline(never)]
    fn kick_idle(&mut self, ck: &mut impl Clock, p: PortId) {
        let now = ck.now();
        let port = &mut self.ports[p.idx()];
        port.wake(now);
        match port.start_next(now) {
            Some(done) if port.lazy => {
                self.launched(ck, p, done);
                let port = &self.ports[p.idx()];
                // With nothing left waiting (an RCSP regulator's cells are waiting too), a port
                // has no watched cell to arm for, and the cell it started needs no port event
                // unless it notifies.
                if port.needs_arming() {
                    self.arm(ck, p);
                }
            }
            Some(done) => ck.schedule(done, AtmEv::PortTx(p)),
            None => {
                if port.rests(now) {
                    if port.lazy {
                        self.hold(ck, p, now);
                    } else {
                        self.schedule_wake(ck, p);
                    }
                }
            }
        }
    }

    /// Port `p` went idle: if it holds cells not yet eligible (non-work-conserving RCSP),
    /// wake it when the first becomes eligible. A wake-up that finds the port busy, or its
    /// cell already sent, does nothing ([`Fabric::kick`]).
    #[inline(never)]
    pub fn schedule_wake(&mut self, ck: &mut impl Clock, p: PortId) {
        if let Some(at) = self.ports[p.idx()].wake_needed() {
            ck.schedule(at, AtmEv::PortWake(p));
        }
    }

    /// Cells inside the network now: held by a shaper, queued (data or control), in
    /// transmission, or on a link.
    pub fn cells_in_flight(&self) -> u64 {
        let q: u64 = self.ports.iter().map(|p| p.queued_cells() + p.is_busy() as u64).sum();
        let l: u64 = self.links.iter().map(|l| l.pipe.len() as u64).sum();
        q + l + self.shapers.held()
    }

    /// `n` cells a host adapter's RCSP regulator refused (already counted at the port): the
    /// fabric's ledger and their frame lose them.
    #[cold]
    pub fn regulator_refused(&mut self, frame: u32, n: u32) {
        self.cells.dropped_regulator += n as u64;
        for _ in 0..n {
            self.frames.cell_dropped(frame);
        }
    }
}
