//! The ATM layer of the running network: cells through ports, links and switches.
//!
//! Owns the handling of [`AtmEv`]: a port finishing a cell (`PortTx`; for a port served
//! ahead, the one event it keeps: `atm::port` module docs, "Serving ahead"), the head cell of a link
//! reaching its far end (`Arrive`: a switch forwards it — translation, policing, re-shaping,
//! the output port's drop policy — or a host's reassembler takes it), and a shaper releasing
//! conforming cells (`Shape`). Busy ports and links take their next step inline when nothing
//! else can happen first ([`Network::take_inline`]). Cells reaching a host are handed to
//! [`Network::host_receive_cell`] (the adapter, `net/adapter.rs`).

use super::{kind, AtmEv, Ev, Network};
use crate::atm::cell::{flags, Cell};
use crate::atm::link::Sink;
use crate::atm::port::DropReason;
use crate::atm::shaping::ShaperKind;
use crate::ids::{LinkId, NodeId, PortId};
use crate::kernel::rank;
use crate::signalling::SIG_VCI;
use crate::time::{SimDuration, SimTime};

mod ahead;
mod drained;

impl Network {
    /// Dispatch of the ATM layer's events.
    #[inline]
    pub(super) fn on_atm(&mut self, ev: AtmEv) {
        match ev {
            AtmEv::PortTx(p) if self.fabric.ports[p.idx()].lazy => self.port_due(p),
            AtmEv::PortTx(p) => self.port_tx_done(p),
            AtmEv::Arrive(l) => self.link_arrive(l),
            AtmEv::Shape(s) => self.shaper_release(s),
            AtmEv::Abr(e) => self.abr_tx(e),
            AtmEv::Drain => self.drain_tick(),
            AtmEv::PortWake(p) => {
                self.fabric.ports[p.idx()].woken(self.now);
                self.kick(p);
            }
        }
    }

    /// Port `p` finished transmitting its cell at `self.now`.
    pub(super) fn port_tx_done(&mut self, p: PortId) {
        loop {
            let port = &mut self.fabric.ports[p.idx()];
            let cell = port.in_tx.take().expect("PortTx without a cell in transmission");
            port.stats.cells_tx += 1;
            self.fabric.cell_hops += 1;
            let link = port.link;
            self.put_on_link(link, cell);
            let now = self.now;
            let port = &mut self.fabric.ports[p.idx()];
            let next = port.start_next(now);
            if next.is_none() {
                port.sleep(now);
                if port.sched.may_hold_cells() {
                    self.schedule_wake(p);
                }
            }
            if let Some(src) = self.source_after_tx(p, cell) {
                self.source_frame_left(src);
            }
            if let Some(done) = next {
                let ev = Ev::Atm(AtmEv::PortTx(p));
                if self.take_inline(done, ev) {
                    continue;
                }
                self.q.schedule(done, ev);
            }
            return;
        }
    }

    #[inline]
    pub(super) fn put_on_link(&mut self, l: LinkId, cell: Cell) {
        let link = &mut self.fabric.links[l.idx()];
        let at = self.now + link.delay;
        link.pipe.push_back((at, cell));
        self.arrival_event(l, at, cell);
    }

    /// Cell `cell` will reach the far end of link `l` at `at`: the event it needs, if any. Into
    /// a switch: one event per cell, chained from the head ([`Link::armed_at`]). Into a host: only
    /// end-of-frame cells (and ABR RM cells) have effects beyond the reassembly buffer, so
    /// only they get an event; the cells before them are delivered in order when it fires.
    #[inline]
    fn arrival_event(&mut self, l: LinkId, at: SimTime, cell: Cell) {
        let link = &mut self.fabric.links[l.idx()];
        let wake = match link.to {
            // Drained by its readers: only what must be on time (`drained.rs`).
            Sink::Switch { switch, .. } if self.fabric.switches[switch.idx()].drained => {
                cell.flags & (flags::EOF | flags::RM) != 0
            }
            Sink::Switch { .. } if at < link.armed_at => {
                link.armed_at = at;
                true
            }
            Sink::Switch { .. } => false,
            Sink::Host(_) => cell.flags & (flags::EOF | flags::RM) != 0,
        };
        if wake {
            debug_assert!(at >= self.now, "an arrival event in the past on link {}", link.name);
            self.q.schedule(at, Ev::Atm(AtmEv::Arrive(l)));
        }
    }

    /// Deliver every cell of host link `l` that has arrived by `self.now` (a served-ahead
    /// port feeding it must be up to date).
    pub(super) fn drain_host_link(&mut self, l: LinkId, h: NodeId) {
        while let Some(&(t, cell)) = self.fabric.links[l.idx()].pipe.front() {
            if t > self.now {
                break;
            }
            self.fabric.links[l.idx()].pipe.pop_front();
            self.fabric.links[l.idx()].cells_delivered += 1;
            if cell.vci == SIG_VCI {
                self.sig_cell(l, cell);
            } else {
                self.host_receive_cell(h, cell);
            }
        }
    }

    /// Bring every host link up to date (before reading counters; served-ahead ports first).
    pub(super) fn drain_host_links(&mut self) {
        for l in 0..self.fabric.links.len() {
            if let Sink::Host(h) = self.fabric.links[l].to {
                self.drain_host_link(LinkId(l as u32), h);
            }
        }
    }

    /// The head cell of link `l` arrives at `self.now`.
    pub(super) fn link_arrive(&mut self, l: LinkId) {
        if let Sink::Host(h) = self.fabric.links[l.idx()].to {
            let link = &self.fabric.links[l.idx()];
            self.advance(link.from, self.now.saturating_sub(link.delay));
            return self.drain_host_link(l, h);
        }
        if let Sink::Switch { switch, .. } = self.fabric.links[l.idx()].to {
            if self.fabric.switches[switch.idx()].drained {
                return self.drain(switch.0, self.now + SimDuration::from_ps(1));
            }
        }
        let link = &mut self.fabric.links[l.idx()];
        if link.armed_at == self.now {
            link.armed_at = SimTime::MAX;
        }
        loop {
            let link = &self.fabric.links[l.idx()];
            self.advance(link.from, self.now.saturating_sub(link.delay));
            let link = &mut self.fabric.links[l.idx()];
            if link.pipe.front().is_none_or(|&(t, _)| t > self.now) {
                // An early event (a lower bound) or a stale one: wait for the cell.
                return self.rearm_link(l);
            }
            let (_at, cell) = link.pipe.pop_front().expect("checked");
            debug_assert_eq!(_at, self.now, "the head cell of a link arrives at its event");
            link.cells_delivered += 1;
            match link.to {
                Sink::Host(_) => unreachable!("host links are drained, not stepped"),
                Sink::Switch { .. } if cell.vci == SIG_VCI => self.sig_cell(l, cell),
                Sink::Switch { switch, .. } => match link.route(cell.vci) {
                    Some(r) => {
                        if cell.is_rm() || self.abr.count_cells {
                            self.abr_at_switch(l, cell);
                        }
                        let mut cell = cell;
                        if self.fabric.shapers.police(l, self.now, &mut cell) {
                            let out = Cell { vci: r.vci, ..cell };
                            match self.fabric.shapers.reshaper(l, cell.vci) {
                                None => self.offer_to_port(r.port, out, Input::Link(l)),
                                Some(s) => {
                                    let sh = &mut self.fabric.shapers.list[s as usize];
                                    if sh.held() as u32 >= sh.limit {
                                        sh.stats.dropped += 1;
                                        self.fabric.cells.dropped_reshape += 1;
                                        self.cell_lost(cell);
                                    } else if let Some(at) = sh.push_cell(self.now, out) {
                                        self.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
                                    }
                                }
                            }
                        } else {
                            self.fabric.cells.dropped_police += 1;
                            self.cell_lost(cell);
                        }
                    }
                    None => self.no_route(switch.0, cell),
                },
            }
            let Some(next) = self.next_arrival(l) else { return };
            let ev = Ev::Atm(AtmEv::Arrive(l));
            let armed_at = self.fabric.links[l.idx()].armed_at;
            if armed_at == SimTime::MAX && self.take_inline(next, ev) {
                continue;
            }
            if next < armed_at {
                self.fabric.links[l.idx()].armed_at = next;
                self.q.schedule(next, ev);
            }
            return;
        }
    }

    /// A cell offered to output port `p` by `input` at this instant (DESIGN §2b; `net` module
    /// docs, "Simultaneous events"): admitted at once if nothing else can reach the port in
    /// this instant's arrival phase, else collected until the run loop admits them at the
    /// instant's admission phase ([`Network::admit_due`]).
    #[inline]
    pub(super) fn offer_to_port(&mut self, p: PortId, cell: Cell, input: Input) {
        let s = self.fabric.ports[p.idx()].drained_by;
        if s != u32::MAX {
            if self.fabric.switches[s as usize].switching {
                return self.offer_while_switching(p, cell, input.id());
            }
            self.drain(s, self.now + SimDuration::from_ps(1));
        }
        let port = &mut self.fabric.ports[p.idx()];
        if port.arrivals.is_empty() {
            if !self.q.pending_before(rank(kind::ADMIT, 0)) {
                return self.admit(p, cell);
            }
            let at = self.q.prefix_now(rank(kind::ADMIT, p.0));
            self.admit_due.push((at, Due::Port(p)));
        }
        self.fabric.ports[p.idx()].arrivals.push((input.id(), cell));
    }

    /// Admit, in the instant's order, the queues' collected arrivals that are due before the
    /// next pending event; true if any was.
    #[inline(never)]
    pub(super) fn admit_due_now(&mut self) -> bool {
        let next = self.q.next_prefix();
        if self.admit_due.len() > 1 {
            self.admit_due.sort_unstable_by_key(|d| std::cmp::Reverse(d.0));
        }
        let mut any = false;
        while let Some(&(at, due)) = self.admit_due.last() {
            if next.is_some_and(|n| n < at) {
                break;
            }
            self.admit_due.pop();
            self.q.enter(at);
            match due {
                Due::Port(p) => self.admit_arrivals(p),
                Due::Line(l) => self.line_admit_arrivals(l),
            }
            any = true;
        }
        any
    }

    /// Port `p` admits the cells offered to it at this instant in the round-robin order of
    /// their inputs, starting at its arbiter; an input's own cells keep their order. After a
    /// tie between inputs the arbiter moves to one past the input that went first.
    fn admit_arrivals(&mut self, p: PortId) {
        let port = &mut self.fabric.ports[p.idx()];
        let mut batch = std::mem::take(&mut port.arrivals);
        crate::arbiter::admit_order(&mut batch, &mut port.arbiter);
        for &(_, cell) in &batch {
            self.admit(p, cell);
        }
        batch.clear();
        self.fabric.ports[p.idx()].arrivals = batch;
    }

    /// Port `p` takes `cell` through its admission (drop policy, control FIFO) and starts it
    /// if idle.
    #[inline]
    fn admit(&mut self, p: PortId, cell: Cell) {
        let now = self.now;
        self.advance(p, now);
        let port = &mut self.fabric.ports[p.idx()];
        match port.offer_cell(now, cell) {
            None => {
                self.arm_after_push(p, cell);
                self.kick(p)
            }
            Some(reason) => {
                match reason {
                    DropReason::Tail => self.fabric.cells.dropped_tail += 1,
                    DropReason::Ppd => self.fabric.cells.dropped_ppd += 1,
                    DropReason::Epd => self.fabric.cells.dropped_epd += 1,
                    DropReason::Clp1 => self.fabric.cells.dropped_clp1 += 1,
                    DropReason::Ctrl => self.fabric.cells.dropped_ctrl += 1,
                    DropReason::Regulator => self.fabric.cells.dropped_regulator += 1,
                    DropReason::HostQueue | DropReason::NoRoute | DropReason::Police => unreachable!(),
                }
                self.cell_lost(cell);
            }
        }
    }

    /// A cell reached switch `s` on a VCI without a translation entry: it is dropped.
    #[cold]
    pub(super) fn no_route(&mut self, s: u32, cell: Cell) {
        self.fabric.switches[s as usize].misrouted += 1;
        self.fabric.cells.dropped_no_route += 1;
        self.cell_lost(cell);
    }

    /// A cell was dropped in the network: its AAL5 frame loses a cell, or, for an RM cell,
    /// its record is freed.
    #[inline]
    pub(super) fn cell_lost(&mut self, cell: Cell) {
        if cell.is_rm() {
            self.abr.rm.lose(cell.frame);
        } else {
            self.fabric.frames.cell_dropped(cell.frame);
        }
    }

    /// Start the transmitter of port `p` if it is idle and has cells (a served-ahead port is
    /// up to date: whoever queued the cells brought it there first).
    #[inline]
    pub(super) fn kick(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.fabric.ports[p.idx()];
        if port.is_busy() {
            return;
        }
        port.wake(now);
        match port.start_next(now) {
            Some(done) if port.lazy => {
                self.launched(p, done);
                self.arm(p);
            }
            Some(done) => {
                self.q.schedule(done, Ev::Atm(AtmEv::PortTx(p)));
            }
            None => {
                port.sleep(now);
                if port.sched.may_hold_cells() {
                    self.schedule_wake(p);
                }
            }
        }
    }

    /// Port `p` went idle: if it holds cells not yet eligible (non-work-conserving RCSP),
    /// wake it when the first becomes eligible. A wake-up that finds the port busy, or its
    /// cell already sent, does nothing ([`Network::kick`]).
    #[inline(never)]
    fn schedule_wake(&mut self, p: PortId) {
        if let Some(at) = self.fabric.ports[p.idx()].wake_needed() {
            self.q.schedule(at, Ev::Atm(AtmEv::PortWake(p)));
        }
    }

    /// `n` cells a host adapter's RCSP regulator refused (already counted at the port): the
    /// network's ledger and their frame lose them.
    #[cold]
    pub(super) fn regulator_refused(&mut self, frame: u32, n: u32) {
        self.fabric.cells.dropped_regulator += n as u64;
        for _ in 0..n {
            self.fabric.frames.cell_dropped(frame);
        }
    }

    /// Shaper `s` releases its conforming cells into its adapter port, or, for a re-shaper at
    /// a switch input, offers them to the switch output port (which may drop them).
    pub(super) fn shaper_release(&mut self, s: u32) {
        let now = self.now;
        if self.fabric.shapers.list[s as usize].kind == ShaperKind::Switch {
            let mut cells = std::mem::take(&mut self.fabric.scratch_cells);
            let sh = &mut self.fabric.shapers.list[s as usize];
            let next = sh.release(now, &mut |cell| cells.push(cell));
            let p = sh.port;
            if let Some(at) = next {
                self.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
            }
            for cell in cells.drain(..) {
                self.offer_to_port(p, cell, Input::Reshaper(s));
            }
            self.fabric.scratch_cells = cells;
            return;
        }
        let p = self.fabric.shapers.list[s as usize].port;
        self.advance(p, now);
        let sh = &mut self.fabric.shapers.list[s as usize];
        let port = &mut self.fabric.ports[p.idx()];
        let mut refused = std::mem::take(&mut self.fabric.scratch_cells);
        let next = sh.release(now, &mut |cell| {
            if !port.push_cell(now, cell) {
                refused.push(cell);
            }
        });
        for cell in refused.drain(..) {
            self.fabric.cells.dropped_regulator += 1;
            self.cell_lost(cell);
        }
        self.fabric.scratch_cells = refused;
        if let Some(at) = next {
            self.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
        }
        self.arm(p);
        self.kick(p);
    }
}

/// A queue whose arrivals of this instant wait for the admission phase ([`Network::admit_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// An ATM output port.
    Port(PortId),
    /// A packet line (serial line direction or LAN medium), by index in [`Network::lines`].
    Line(u32),
}

/// Who offers a cell to an output port: one input of the port's arbiter (DESIGN §2b).
#[derive(Clone, Copy, Debug)]
pub(super) enum Input {
    /// A cell arriving on a switch's input link.
    Link(LinkId),
    /// A switch re-shaper (by its index in [`crate::atm::shaping::Shapers::list`]) releasing cells.
    Reshaper(u32),
    /// A signalling controller sending a message.
    Controller(u32),
}

impl Input {
    /// Distinct ids for the arbiter's cyclic order: links, then re-shapers, then controllers.
    fn id(self) -> u32 {
        match self {
            Input::Link(l) => l.0,
            Input::Reshaper(s) => 0x8000_0000 | s,
            Input::Controller(c) => 0xC000_0000 | c,
        }
    }
}

impl Network {
    /// Cells inside the network now: held by a shaper, queued (data or control), in
    /// transmission, or on a link.
    pub fn cells_in_flight(&self) -> u64 {
        let q: u64 = self.fabric.ports.iter().map(|p| p.queued_cells() + p.in_tx.is_some() as u64).sum();
        let l: u64 = self.fabric.links.iter().map(|l| l.pipe.len() as u64).sum();
        q + l + self.fabric.shapers.held()
    }

    /// Cells delivered to hosts but waiting in reassembly buffers for an end-of-frame cell.
    pub fn cells_in_reassembly(&self) -> u64 {
        self.hosts.iter().flat_map(|h| h.reasm.iter()).map(|r| r.held_cells()).sum()
    }
}
