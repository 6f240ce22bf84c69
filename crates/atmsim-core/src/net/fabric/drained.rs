//! Switches drained by their readers: a switch whose output ports are all served ahead takes
//! no event per arriving cell.
//!
//! Owns deciding which switches are drained (`prime_drained`), switching a drained switch's
//! arrivals up to an instant (`drain`), and the periodic drain that bounds how far behind a
//! ring of drained switches can fall (`drain_tick`).
//!
//! **Why it is exact.** A switch changes nothing but its output ports' queues (the routing
//! table is read, not written, by a cell), and a served-ahead port is already brought up to
//! date by whoever reaches or reads it (`ahead.rs`). So the arrivals on a switch's input links
//! can wait in the links' pipes until someone reads one of the switch's ports: that reader
//! first switches every arrival before its instant, in time order — each at its own instant,
//! after the port's completions of that instant and, within an instant, in the round-robin
//! order of the inputs (DESIGN §2b), exactly as the arrivals' own events and the admission
//! phase would have. Every cell with an effect at its instant beyond the port still has its
//! event: an end-of-frame or RM cell, so that it starts on time at its output port (whose
//! frame ends are watched, [`crate::atm::port::OutPort::watch_ends`]) and reaches the next
//! switch or host on time; signalling frames end in such a cell too, and reach the
//! controller at their instant.
//!
//! **Who reads.** A port of the switch brought up to `t` (`advance`): the arrivals before
//! `t` first (completions precede the instant's arrivals). An end-of-frame cell's arrival
//! event, a controller sending a cell through the switch, a route or a VC class installed or
//! removed at the switch: the arrivals up to and including the instant. Probes: up to the
//! instant's left limit. The end of the run: everything up to it.
//!
//! **Upstream.** The cells that arrive before `t` on input link `l` are all in its pipe once
//! the port feeding `l` is up to `t` less the link's delay (less a picosecond: a cell ending
//! exactly then arrives at `t`): draining brings that port there first, which, for a port of
//! another drained switch, drains that switch up to that instant. Every step back costs a
//! positive link delay, so the recursion ends; around a ring of drained switches it ends
//! within a few steps because a periodic drain (every four of the ring's shortest delays)
//! keeps every drained switch at most that far behind.
//!
//! **Which switches.** With batching on and no ABR in the network: at most 16 inputs (a drain
//! looks at each of them), every output port served
//! ahead (FIFO or round robin), no policer or re-shaper on an input, every input link from
//! another switch with a positive delay, no input fed by a port that releases a host shaper
//! itself, and every output
//! link ending at a host or at another drained switch (a cell started late by a drain must
//! not owe anyone an event). The ports feeding a drained switch watch their frame ends too.

use super::super::{AtmEv, Ev, Network};
use crate::atm::link::Sink;
use crate::ids::{LinkId, PortId};
use crate::signalling::SIG_VCI;
use crate::time::{SimDuration, SimTime};

const PS: SimDuration = SimDuration::from_ps(1);

/// A drained switch falls at most this many of its ring's shortest link delays behind.
const TICK_DELAYS: u64 = 4;

/// Most inputs a drained switch may have: a drain looks at every input (its head cell, the
/// port feeding it), so a switch with hundreds of inputs (a dumbbell's access side) is cheaper
/// with an event per arrival (TCP dumbbell of 500 flows, 0.5 s: 0.59 G instructions with an
/// event per arrival, 2.67 G drained).
const MAX_INPUTS: usize = 16;

impl Network {
    /// Decide which switches are drained by their readers (module docs, "Which switches"),
    /// and start the periodic drain if any drained switch feeds another.
    pub(in crate::net) fn prime_drained(&mut self) {
        for l in 0..self.fabric.links.len() {
            if let Sink::Switch { switch, .. } = self.fabric.links[l].to {
                self.fabric.switches[switch.idx()].inputs.push(LinkId(l as u32));
            }
        }
        let abr = !self.abr.ends.is_empty() || !self.abr.allocators.is_empty() || self.abr.count_cells;
        if !self.batching || abr {
            return;
        }
        let mut of_switch = vec![false; self.fabric.ports.len()];
        for sw in &self.fabric.switches {
            for p in &sw.ports {
                of_switch[p.idx()] = true;
            }
        }
        let mut ok: Vec<bool> = (0..self.fabric.switches.len()).map(|s| self.may_drain(s, &of_switch)).collect();
        loop {
            let mut changed = false;
            for s in 0..ok.len() {
                if ok[s] && self.feeds(s).any(|s2| !ok[s2]) {
                    ok[s] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut ring_delay = SimDuration::MAX;
        for s in (0..ok.len()).filter(|&s| ok[s]) {
            self.fabric.switches[s].drained = true;
            for i in 0..self.fabric.switches[s].ports.len() {
                let p = self.fabric.switches[s].ports[i];
                let port = &mut self.fabric.ports[p.idx()];
                port.drained_by = s as u32;
                if let Sink::Switch { switch, .. } = self.fabric.links[port.link.idx()].to {
                    if ok[switch.idx()] {
                        ring_delay = ring_delay.min(self.fabric.links[port.link.idx()].delay);
                    }
                }
            }
            // Whatever feeds the switch starts its frame ends on time (module docs).
            for i in 0..self.fabric.switches[s].inputs.len() {
                let l = self.fabric.switches[s].inputs[i];
                self.fabric.ports[self.fabric.links[l.idx()].from.idx()].watch_ends = true;
            }
        }
        if ring_delay != SimDuration::MAX {
            self.fabric.drain_period = ring_delay.mul(TICK_DELAYS);
            self.q.schedule(SimTime::ZERO + self.fabric.drain_period, Ev::Atm(AtmEv::Drain));
        }
    }

    /// Whether switch `s` could be drained on its own account (module docs, "Which switches").
    fn may_drain(&self, s: usize, of_switch: &[bool]) -> bool {
        let sw = &self.fabric.switches[s];
        !sw.inputs.is_empty()
            && sw.inputs.len() <= MAX_INPUTS
            && sw.ports.iter().all(|p| self.fabric.ports[p.idx()].lazy)
            && sw.inputs.iter().all(|l| {
                let link = &self.fabric.links[l.idx()];
                // A host shaper released by its port would hide a frame end from the port.
                let from_switch = of_switch[link.from.idx()];
                (link.delay > SimDuration::ZERO || !from_switch)
                    && !self.fabric.shapers.guards(*l)
                    && self.fabric.ports[link.from.idx()].shapers.is_empty()
            })
    }

    /// The switches that switch `s`'s output links lead to.
    fn feeds(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        self.fabric.switches[s].ports.iter().filter_map(|p| {
            match self.fabric.links[self.fabric.ports[p.idx()].link.idx()].to {
                Sink::Switch { switch, .. } => Some(switch.idx()),
                Sink::Host(_) => None,
            }
        })
    }

    /// Switch every cell that arrives at drained switch `s` before `before` (at most a
    /// picosecond after now), in time order (module docs). Does nothing while `s` is
    /// switching an instant's arrivals: whoever calls from inside that instant (a controller
    /// answering a signalling cell) is already in order.
    #[inline(never)]
    pub(in crate::net) fn drain(&mut self, s: u32, before: SimTime) {
        let sw = &self.fabric.switches[s as usize];
        if sw.drained_to >= before || sw.switching {
            return;
        }
        for i in 0..sw.inputs.len() {
            let link = &self.fabric.links[self.fabric.switches[s as usize].inputs[i].idx()];
            let (from, reach) = (link.from, link.delay + PS);
            self.advance(from, before.saturating_sub(reach));
        }
        let now = self.now;
        self.fabric.switches[s as usize].switching = true;
        while let Some((at, alone)) = self.next_arrival_at(s, before) {
            self.fabric.switches[s as usize].drained_to = at;
            self.now = at;
            match alone {
                Some(l) => self.switch_alone(s, l, now),
                None => self.switch_instant(s, at, now),
            }
        }
        self.now = now;
        let sw = &mut self.fabric.switches[s as usize];
        sw.switching = false;
        sw.drained_to = sw.drained_to.max(before);
    }

    /// The earliest arrival on drained switch `s`'s inputs before `before`, and its input if
    /// it is the instant's only one.
    #[inline]
    fn next_arrival_at(&self, s: u32, before: SimTime) -> Option<(SimTime, Option<LinkId>)> {
        let sw = &self.fabric.switches[s as usize];
        let mut at = before;
        let mut alone = None;
        for &l in &sw.inputs {
            if let Some(&(t, _)) = self.fabric.links[l.idx()].pipe.front() {
                if t < at {
                    at = t;
                    alone = Some(l);
                } else if t == at {
                    alone = None;
                }
            }
        }
        (at < before).then_some((at, alone))
    }

    /// Drained switch `s` switches the head cell of input `l`, the only cell arriving at this
    /// instant: no arbiter is needed.
    #[inline]
    fn switch_alone(&mut self, s: u32, l: LinkId, now: SimTime) {
        let link = &mut self.fabric.links[l.idx()];
        let &(at, cell) = link.pipe.front().expect("an arrival");
        if cell.vci == SIG_VCI {
            // The controller may answer at once: the instant's general case.
            return self.switch_instant(s, at, now);
        }
        link.pipe.pop_front();
        link.cells_delivered += 1;
        match link.route(cell.vci) {
            Some(r) => self.admit(r.port, crate::atm::cell::Cell { vci: r.vci, ..cell }),
            None => self.no_route(s, cell),
        }
    }

    /// Drained switch `s` switches the cells arriving at `at`: each input's cell, in the
    /// inputs' index order, is translated (or goes to the controller), then each output port
    /// admits its cells of the instant in its arbiter's order — the arrival events and the
    /// admission phase of the instant (`fabric` module). `now` is the caller's instant: only
    /// there can a signalling frame end (its last cell has an event of its own).
    fn switch_instant(&mut self, s: u32, at: SimTime, now: SimTime) {
        let mut dirty = std::mem::take(&mut self.fabric.drain_dirty);
        for i in 0..self.fabric.switches[s as usize].inputs.len() {
            let l = self.fabric.switches[s as usize].inputs[i];
            let link = &mut self.fabric.links[l.idx()];
            if link.pipe.front().is_none_or(|&(t, _)| t != at) {
                continue;
            }
            let (_, cell) = link.pipe.pop_front().expect("checked");
            link.cells_delivered += 1;
            if cell.vci == SIG_VCI {
                debug_assert!(!cell.is_eof() || at == now, "a signalling frame ended before its event");
                self.sig_cell(l, cell);
                continue;
            }
            match self.fabric.links[l.idx()].route(cell.vci) {
                Some(r) => {
                    let port = &mut self.fabric.ports[r.port.idx()];
                    if port.arrivals.is_empty() {
                        dirty.push(r.port);
                    }
                    port.arrivals.push((l.0, crate::atm::cell::Cell { vci: r.vci, ..cell }));
                }
                None => self.no_route(s, cell),
            }
        }
        // A controller answering a signalling cell of this instant offered its cells too.
        dirty.append(&mut self.fabric.drain_offered);
        dirty.sort_unstable();
        dirty.dedup();
        for &p in &dirty {
            self.admit_arrivals(p);
        }
        dirty.clear();
        self.fabric.drain_dirty = dirty;
    }

    /// Port `p`, whose drained switch is switching an instant's arrivals, is offered a cell by
    /// a controller: it joins the instant's arrivals.
    pub(in crate::net) fn offer_while_switching(&mut self, p: PortId, cell: crate::atm::cell::Cell, input: u32) {
        let port = &mut self.fabric.ports[p.idx()];
        if port.arrivals.is_empty() {
            self.fabric.drain_offered.push(p);
        }
        port.arrivals.push((input, cell));
    }

    /// Drain the switch of port `p`, if drained, up to and including now.
    #[inline]
    pub(in crate::net) fn drain_port_switch(&mut self, p: PortId) {
        let s = self.fabric.ports[p.idx()].drained_by;
        if s != u32::MAX {
            self.drain(s, self.now + PS);
        }
    }

    /// Drain the switch at the far end of link `l`, if drained, up to and including now.
    pub(in crate::net) fn drain_link_switch(&mut self, l: LinkId) {
        if let Sink::Switch { switch, .. } = self.fabric.links[l.idx()].to {
            if self.fabric.switches[switch.idx()].drained {
                self.drain(switch.0, self.now + PS);
            }
        }
    }

    /// Drain every drained switch up to `before`.
    pub(in crate::net) fn drain_all(&mut self, before: SimTime) {
        for s in 0..self.fabric.switches.len() {
            if self.fabric.switches[s].drained {
                self.drain(s as u32, before);
            }
        }
    }

    /// The periodic drain (module docs, "Upstream"): every drained switch up to now.
    pub(in crate::net) fn drain_tick(&mut self) {
        self.drain_all(self.now);
        self.q.schedule(self.now + self.fabric.drain_period, Ev::Atm(AtmEv::Drain));
    }
}
