//! The fabric's steps that take an event each: a cell reaching a switch that is not drained
//! by its readers, a port that is not served ahead finishing a cell, and a shaper's release.
//!
//! Owns a switch's arrival step (translation, the explicit-rate allocators, policing and
//! re-shaping at the input, then the output port: [`Fabric::switch_arrive`]), offering a cell
//! to an output port in the model's order (admitted at once if nothing else can reach the
//! port in this instant's arrival phase, else at the instant's admission phase, DESIGN §2b:
//! [`Fabric::offer`]), a stepped port's completion ([`Fabric::port_tx_done`]) and shaper
//! releases ([`Fabric::shaper_release`]). Busy servers take their next step inline when
//! nothing else can happen first ([`Clock::take_inline`]), but never after handing something
//! upward: whoever hears it (a controller, a cell source) acts before the fabric's next step.

use super::{AtmEv, Clock, Fabric, Input, Up};
use crate::atm::cell::Cell;
use crate::atm::link::Sink;
use crate::atm::shaping::ShaperKind;
use crate::ids::{LinkId, PortId};
use crate::signalling::SIG_VCI;
use crate::time::SimTime;

impl Fabric {
    /// The head cell of link `l` reaches its switch (one that takes an event per arrival) now,
    /// and the cells after it too while they can be taken inline.
    pub fn switch_arrive(&mut self, ck: &mut impl Clock, l: LinkId) {
        let link = &mut self.links[l.idx()];
        if link.armed_at == ck.now() {
            link.armed_at = SimTime::MAX;
        }
        loop {
            self.advance_feeder(ck, l);
            let now = ck.now();
            let link = &mut self.links[l.idx()];
            if link.pipe.head_time() > now {
                // An early event (a lower bound) or a stale one: wait for the cell.
                return self.rearm_link(ck, l);
            }
            let (_at, cell) = link.pipe.pop_front().expect("checked");
            debug_assert_eq!(_at, now, "the head cell of a link arrives at its event");
            link.cells_delivered += 1;
            let Sink::Switch { switch, .. } = link.to else { unreachable!("a host link stepped as a switch's") };
            if cell.vci == SIG_VCI {
                self.ctrl_cell(l, cell);
            } else {
                match link.route(cell.vci) {
                    Some(r) => self.switch_cell(ck, l, cell, r.port, r.vci),
                    None => self.no_route(switch.0, cell),
                }
            }
            let Some(next) = self.next_arrival(l) else { return };
            let armed_at = self.links[l.idx()].armed_at;
            if armed_at == SimTime::MAX && self.up.is_empty() && ck.take_inline(next, AtmEv::Arrive(l)) {
                continue;
            }
            if next < armed_at {
                self.links[l.idx()].armed_at = next;
                ck.schedule(next, AtmEv::Arrive(l));
            }
            return;
        }
    }

    /// Data cell `cell` arrived on switch input `l` and leaves by port `port` as VCI `vci`:
    /// the allocators meet it, the input's policer and re-shaper take it, then the port.
    #[inline]
    fn switch_cell(&mut self, ck: &mut impl Clock, l: LinkId, cell: Cell, port: PortId, vci: u32) {
        let now = ck.now();
        self.meet_allocators(l, cell, now);
        let mut cell = cell;
        if !self.shapers.police(l, now, &mut cell) {
            self.cells.dropped_police += 1;
            return self.cell_lost(cell);
        }
        let out = Cell { vci, ..cell };
        let Some(s) = self.shapers.reshaper(l, cell.vci) else {
            return self.offer(ck, port, out, Input::Link(l));
        };
        let sh = &mut self.shapers.list[s as usize];
        if sh.held() as u32 >= sh.limit {
            sh.stats.dropped += 1;
            self.cells.dropped_reshape += 1;
            self.cell_lost(cell);
        } else if let Some(at) = sh.push_cell(now, out) {
            ck.schedule(at, AtmEv::Shape(s));
        }
    }

    /// Bring the port feeding link `l` up to the instant its cells reach the far end now.
    #[inline]
    pub fn advance_feeder(&mut self, ck: &mut impl Clock, l: LinkId) {
        let link = &self.links[l.idx()];
        let (from, t) = (link.from, ck.now().saturating_sub(link.delay));
        self.advance(ck, from, t);
    }

    /// A cell offered to output port `p` by `input` at this instant, the port's switch not
    /// being drained (or switching now): admitted at once if nothing else can reach the port
    /// in this instant's arrival phase, else collected until the engine has the port admit
    /// them at the instant's admission phase ([`Fabric::admit_arrivals`]).
    #[inline]
    pub fn offer(&mut self, ck: &mut impl Clock, p: PortId, cell: Cell, input: Input) {
        let port = &mut self.ports[p.idx()];
        if port.arrivals.is_empty() {
            if !ck.arrivals_pending() {
                return self.admit(ck, p, cell);
            }
            ck.admit_later(p);
        }
        self.ports[p.idx()].arrivals.push((input.id(), cell));
    }

    /// Port `p`, which takes an event per cell, finished transmitting its cell now: the cell
    /// enters the link and the next one starts, inline while nothing else comes first.
    pub fn port_tx_done(&mut self, ck: &mut impl Clock, p: PortId) {
        loop {
            let port = &mut self.ports[p.idx()];
            let (_, cell) = port.complete();
            self.cell_hops += 1;
            let link = port.link;
            self.put_on_link(ck, link, cell);
            let now = ck.now();
            let port = &mut self.ports[p.idx()];
            let next = port.start_next(now);
            if next.is_none() && port.rests(now) {
                self.schedule_wake(ck, p);
            }
            if self.ports[p.idx()].frame_left_notifies(cell) {
                self.up.push(Up::FrameLeft { port: p, cell });
            }
            if let Some(done) = next {
                if self.up.is_empty() && ck.take_inline(done, AtmEv::PortTx(p)) {
                    continue;
                }
                ck.schedule(done, AtmEv::PortTx(p));
            }
            return;
        }
    }

    /// Shaper `s` releases its conforming cells into its adapter port, or, for a re-shaper at
    /// a switch input, offers them to the switch output port (which may drop them).
    pub fn shaper_release(&mut self, ck: &mut impl Clock, s: u32) {
        let now = ck.now();
        if self.shapers.list[s as usize].kind == ShaperKind::Switch {
            let mut cells = std::mem::take(&mut self.scratch_cells);
            let sh = &mut self.shapers.list[s as usize];
            let next = sh.release(now, &mut |cell| cells.push(cell));
            let p = sh.port;
            if let Some(at) = next {
                ck.schedule(at, AtmEv::Shape(s));
            }
            for cell in cells.drain(..) {
                self.offer(ck, p, cell, Input::Reshaper(s));
            }
            self.scratch_cells = cells;
            return;
        }
        if self.shapers.list[s as usize].lazy {
            // Released by its port: the event of a frame end it holds (`ahead.rs`).
            return self.shaper_watched(ck, s);
        }
        let p = self.shapers.list[s as usize].port;
        self.advance(ck, p, now);
        let sh = &mut self.shapers.list[s as usize];
        let port = &mut self.ports[p.idx()];
        let mut refused = std::mem::take(&mut self.scratch_cells);
        let next = sh.release(now, &mut |cell| {
            if !port.push_cell(now, cell) {
                refused.push(cell);
            }
        });
        for cell in refused.drain(..) {
            self.cells.dropped_regulator += 1;
            self.cell_lost(cell);
        }
        self.scratch_cells = refused;
        if let Some(at) = next {
            ck.schedule(at, AtmEv::Shape(s));
        }
        self.arm(ck, p);
        self.kick(ck, p);
    }
}
