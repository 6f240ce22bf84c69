//! The network's side of the cell fabric ([`crate::atm::fabric`]): what the fabric cannot do
//! alone because it reaches other layers.
//!
//! Owns the dispatch of [`AtmEv`] to the fabric; a link's head cell reaching a switch that
//! takes an event per arrival (translation, ABR allocators, policing, re-shaping, then the
//! output port) or a host (the fabric reassembles, [`Network::drain_host_link`]); offering a cell to a switch port in the instant's admission phase (DESIGN
//! §2b, [`Network::admit_due`]); the top-level drains of switches drained by their readers,
//! which let a controller hear a control frame before the instant's admission; and routing
//! what the fabric hands upward ([`Up`]: a frame reassembled at a host for its IP layer, a
//! corrupt one, an RM cell for an ABR end system, a control frame for a controller, a frame a
//! cell source waits on has left). Busy non-lazy ports and links take their next step inline when
//! nothing else can happen first ([`Network::take_inline`]).

use super::ck;
use super::{kind, AtmEv, Ev, Network, Up};
use crate::atm::cell::Cell;
use crate::atm::link::Sink;
use crate::atm::shaping::ShaperKind;
use crate::ids::{LinkId, NodeId, PortId};
use crate::kernel::rank;
use crate::signalling::SIG_VCI;
use crate::time::{SimDuration, SimTime};

const PS: SimDuration = SimDuration::from_ps(1);

impl Network {
    /// Dispatch of the ATM layer's events.
    #[inline]
    pub(super) fn on_atm(&mut self, ev: AtmEv) {
        match ev {
            AtmEv::PortTx(p) if self.fabric.ports[p.idx()].lazy => self.fabric.port_due(ck!(self), p),
            AtmEv::PortTx(p) => self.port_tx_done(p),
            AtmEv::Arrive(l) => self.link_arrive(l),
            AtmEv::Shape(s) => self.shaper_release(s),
            AtmEv::Abr(e) => self.abr_tx(e),
            AtmEv::Drain => self.fabric.drain_tick(ck!(self)),
            AtmEv::PortWake(p) => {
                self.fabric.ports[p.idx()].woken(self.eng.now);
                self.fabric.kick(ck!(self), p);
            }
        }
    }

    /// Port `p` finished transmitting its cell at `self.eng.now`.
    pub(super) fn port_tx_done(&mut self, p: PortId) {
        loop {
            let port = &mut self.fabric.ports[p.idx()];
            let cell = port.in_tx.take().expect("PortTx without a cell in transmission");
            port.stats.cells_tx += 1;
            self.fabric.cell_hops += 1;
            let link = port.link;
            self.fabric.put_on_link(ck!(self), link, cell);
            let now = self.eng.now;
            let port = &mut self.fabric.ports[p.idx()];
            let next = port.start_next(now);
            if next.is_none() {
                port.sleep(now);
                if port.sched.may_hold_cells() {
                    self.fabric.schedule_wake(ck!(self), p);
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
                self.eng.q.schedule(done, ev);
            }
            return;
        }
    }

    /// Deliver every cell of host link `l` that has arrived by `self.eng.now` (a served-ahead
    /// port feeding it must be up to date).
    pub(super) fn drain_host_link(&mut self, l: LinkId, h: NodeId) {
        self.fabric.deliver_to_host(ck!(self), l, h);
        self.route_up();
    }

    /// Bring every host link up to date (before reading counters; served-ahead ports first).
    pub(super) fn drain_host_links(&mut self) {
        for l in 0..self.fabric.links.len() {
            if let Sink::Host(h) = self.fabric.links[l].to {
                self.drain_host_link(LinkId(l as u32), h);
            }
        }
    }

    /// The head cell of link `l` arrives at `self.eng.now`.
    pub(super) fn link_arrive(&mut self, l: LinkId) {
        if let Sink::Host(h) = self.fabric.links[l.idx()].to {
            self.advance_feeder(l);
            return self.drain_host_link(l, h);
        }
        if let Sink::Switch { switch, .. } = self.fabric.links[l.idx()].to {
            if self.fabric.switches[switch.idx()].drained {
                return self.drain_switch(switch.0, self.eng.now + PS);
            }
        }
        let link = &mut self.fabric.links[l.idx()];
        if link.armed_at == self.eng.now {
            link.armed_at = SimTime::MAX;
        }
        loop {
            self.advance_feeder(l);
            let link = &mut self.fabric.links[l.idx()];
            if link.pipe.front().is_none_or(|&(t, _)| t > self.eng.now) {
                // An early event (a lower bound) or a stale one: wait for the cell.
                return self.fabric.rearm_link(ck!(self), l);
            }
            let (_at, cell) = link.pipe.pop_front().expect("checked");
            debug_assert_eq!(_at, self.eng.now, "the head cell of a link arrives at its event");
            link.cells_delivered += 1;
            match link.to {
                Sink::Host(_) => unreachable!("host links are drained, not stepped"),
                Sink::Switch { .. } if cell.vci == SIG_VCI => self.sig_cell(l, cell),
                Sink::Switch { switch, .. } => match link.route(cell.vci) {
                    Some(r) => {
                        if self.fabric.er.wants(cell) {
                            self.fabric.er.at_switch(&mut self.fabric.rm, l, cell, self.eng.now);
                        }
                        let mut cell = cell;
                        if self.fabric.shapers.police(l, self.eng.now, &mut cell) {
                            let out = Cell { vci: r.vci, ..cell };
                            match self.fabric.shapers.reshaper(l, cell.vci) {
                                None => self.offer_to_port(r.port, out, Input::Link(l)),
                                Some(s) => {
                                    let sh = &mut self.fabric.shapers.list[s as usize];
                                    if sh.held() as u32 >= sh.limit {
                                        sh.stats.dropped += 1;
                                        self.fabric.cells.dropped_reshape += 1;
                                        self.fabric.cell_lost(cell);
                                    } else if let Some(at) = sh.push_cell(self.eng.now, out) {
                                        self.eng.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
                                    }
                                }
                            }
                        } else {
                            self.fabric.cells.dropped_police += 1;
                            self.fabric.cell_lost(cell);
                        }
                    }
                    None => self.fabric.no_route(switch.0, cell),
                },
            }
            let Some(next) = self.fabric.next_arrival(l) else { return };
            let ev = Ev::Atm(AtmEv::Arrive(l));
            let armed_at = self.fabric.links[l.idx()].armed_at;
            if armed_at == SimTime::MAX && self.take_inline(next, ev) {
                continue;
            }
            if next < armed_at {
                self.fabric.links[l.idx()].armed_at = next;
                self.eng.q.schedule(next, ev);
            }
            return;
        }
    }

    /// Bring the port feeding link `l` up to the instant its cells reach the far end now.
    #[inline]
    fn advance_feeder(&mut self, l: LinkId) {
        let link = &self.fabric.links[l.idx()];
        let (from, t) = (link.from, self.eng.now.saturating_sub(link.delay));
        self.fabric.advance(ck!(self), from, t);
    }

    /// Drain drained switch `s` up to `before` (at most a picosecond after now); a control
    /// frame completed in the last instant reaches its controller before the instant's
    /// admission, so that an answer joins it (`atm::fabric::drained`, [`crate::atm::fabric::Fabric::drain`]).
    pub(super) fn drain_switch(&mut self, s: u32, before: SimTime) {
        let mut held = self.fabric.drain(ck!(self), s, before, true);
        while held {
            self.route_up();
            held = self.fabric.finish_held(ck!(self), s, before);
        }
    }

    /// Drain the switch of port `p`, if drained, up to and including now.
    pub(super) fn drain_port_switch(&mut self, p: PortId) {
        let s = self.fabric.ports[p.idx()].drained_by;
        if s != u32::MAX {
            self.drain_switch(s, self.eng.now + PS);
        }
    }

    /// Drain the switch at the far end of link `l`, if drained, up to and including now.
    pub(super) fn drain_link_switch(&mut self, l: LinkId) {
        if let Sink::Switch { switch, .. } = self.fabric.links[l.idx()].to {
            if self.fabric.switches[switch.idx()].drained {
                self.drain_switch(switch.0, self.eng.now + PS);
            }
        }
    }

    /// Route what the fabric handed upward ([`Up`]), in the order it did.
    pub(super) fn route_up(&mut self) {
        while !self.fabric.up.is_empty() {
            let mut ups = std::mem::replace(&mut self.fabric.up, std::mem::take(&mut self.up_spare));
            for up in ups.drain(..) {
                match up {
                    Up::FrameLeft { port, cell } => {
                        if let Some(src) = self.source_after_tx(port, cell) {
                            self.source_frame_left(src);
                        }
                    }
                    Up::Frame { host, dgram } => self.host_frame(host, dgram),
                    Up::Corrupt { host } => self.hosts[host.idx()].frames_corrupt += 1,
                    Up::Rm { host, cell } => self.abr_at_host(host, cell),
                    Up::CtrlFrame { link, frame } => self.sig_frame(link, frame),
                }
            }
            self.up_spare = ups;
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
                return self.fabric.offer_while_switching(p, cell, input.id());
            }
            self.drain_switch(s, self.eng.now + PS);
        }
        let port = &mut self.fabric.ports[p.idx()];
        if port.arrivals.is_empty() {
            if !self.eng.q.pending_before(rank(kind::ADMIT, 0)) {
                return self.fabric.admit(ck!(self), p, cell);
            }
            let at = self.eng.q.prefix_now(rank(kind::ADMIT, p.0));
            self.admit_due.push((at, Due::Port(p)));
        }
        self.fabric.ports[p.idx()].arrivals.push((input.id(), cell));
    }

    /// Admit, in the instant's order, the queues' collected arrivals that are due before the
    /// next pending event; true if any was.
    #[inline(never)]
    pub(super) fn admit_due_now(&mut self) -> bool {
        let next = self.eng.q.next_prefix();
        if self.admit_due.len() > 1 {
            self.admit_due.sort_unstable_by_key(|d| std::cmp::Reverse(d.0));
        }
        let mut any = false;
        while let Some(&(at, due)) = self.admit_due.last() {
            if next.is_some_and(|n| n < at) {
                break;
            }
            self.admit_due.pop();
            self.eng.q.enter(at);
            match due {
                Due::Port(p) => self.fabric.admit_arrivals(ck!(self), p),
                Due::Line(l) => self.line_admit_arrivals(l),
            }
            any = true;
        }
        any
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
        let now = self.eng.now;
        if self.fabric.shapers.list[s as usize].kind == ShaperKind::Switch {
            let mut cells = std::mem::take(&mut self.fabric.scratch_cells);
            let sh = &mut self.fabric.shapers.list[s as usize];
            let next = sh.release(now, &mut |cell| cells.push(cell));
            let p = sh.port;
            if let Some(at) = next {
                self.eng.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
            }
            for cell in cells.drain(..) {
                self.offer_to_port(p, cell, Input::Reshaper(s));
            }
            self.fabric.scratch_cells = cells;
            return;
        }
        let p = self.fabric.shapers.list[s as usize].port;
        self.fabric.advance(ck!(self), p, now);
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
            self.fabric.cell_lost(cell);
        }
        self.fabric.scratch_cells = refused;
        if let Some(at) = next {
            self.eng.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
        }
        self.fabric.arm(ck!(self), p);
        self.fabric.kick(ck!(self), p);
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
