//! Ports served ahead (`atm::port` module docs, "Serving ahead"): a FIFO or
//! round-robin port takes no event per cell.
//!
//! Owns bringing such a port up to an instant (`advance`: its completions, and the releases of
//! the host shapers it drains, carried out late with the times they had), the arrival event a
//! started cell needs at the far end of its link (`launched`, the link's chain armed at a time:
//! `next_arrival`, `rearm_link`), and the one event the port keeps for what cannot wait — an
//! end-of-frame or RM cell bound for a host must have started by its start time, and a cell
//! source is told at the instant its frame's last cell ends (`arm`, `port_due`). Every caller
//! that reaches or reads a served-ahead port brings it up to its own instant first: arrivals
//! and pushes at the instant (after its completions, DESIGN §2b), the link's arrival chain at
//! the instant less the propagation delay, probes at the instant's left limit, the end of the
//! run at its end.

use super::super::{AtmEv, Ev, Network};
use crate::atm::cell::Cell;
use crate::atm::link::Sink;
use crate::ids::{LinkId, PortId};
use crate::time::SimTime;

impl Network {
    /// A served-ahead port (`atm::port` module docs, "Serving ahead") started a cell that
    /// ends at `done`: the cell's arrival at the far end gets its event now, since no port
    /// event will put it on the link in time.
    #[inline]
    pub(in crate::net) fn launched(&mut self, p: PortId, done: SimTime) {
        let port = &mut self.fabric.ports[p.idx()];
        port.tx_done = done;
        port.due = done.min(port.release_at);
        let cell = port.in_tx.expect("launched without a cell");
        let l = port.link;
        let at = done + self.fabric.links[l.idx()].delay;
        self.arrival_event(l, at, cell);
    }

    /// Bring served-ahead port `p` up to `t` (at most `self.now`): every cell whose
    /// transmission ends at or before `t` leaves onto the link, and the next one starts at that
    /// instant, chosen from the cells present then — what the port's own events would have
    /// done, in the model's order (completions before the instant's arrivals, DESIGN §2b),
    /// since every arrival to the port and every reader of it brings it up to date first.
    #[inline]
    pub(in crate::net) fn advance(&mut self, p: PortId, t: SimTime) {
        let port = &self.fabric.ports[p.idx()];
        let s = port.drained_by;
        if s != u32::MAX && self.fabric.switches[s as usize].drained_to < t {
            // Its switch's arrivals before `t` first (`drained.rs`).
            self.drain(s, t);
        }
        let port = &self.fabric.ports[p.idx()];
        if port.due <= t {
            self.advance_to(p, t);
        }
    }

    /// Bring host port `p` up to now before the host queues a frame into it or into one of its
    /// shapers: its completions up to now, and its shapers' releases at now only if the
    /// running event comes after the shapers' place in the instant (kind `SHAPE`; a release
    /// is an arrival, DESIGN §2b). A frame queued by an earlier event of the instant (a CPU
    /// finishing a job) goes in before them, as with their own events.
    pub(in crate::net) fn advance_for_push(&mut self, p: PortId) {
        let now = self.now;
        if self.fabric.ports[p.idx()].due <= now {
            let releases_now = self.q.running_kind() >= super::super::kind::SHAPE;
            self.advance_until(p, now, releases_now);
        }
    }

    /// [`Network::advance`] once something is due: completions and shaper releases up to `t`,
    /// in time order.
    pub(in crate::net) fn advance_to(&mut self, p: PortId, t: SimTime) {
        self.advance_until(p, t, true);
    }

    /// Completions up to `t`, and shaper releases before `t`, or at `t` too if
    /// `releases_at_t`, in time order.
    fn advance_until(&mut self, p: PortId, t: SimTime, releases_at_t: bool) {
        loop {
            let port = &mut self.fabric.ports[p.idx()];
            if port.due > t {
                break;
            }
            if port.in_tx.is_none() || port.release_at < port.tx_done {
                // A shaper's release is an arrival: after a completion at the same instant.
                let r = port.release_at;
                if r == t && !releases_at_t {
                    break;
                }
                self.release_shapers(p, r);
                continue;
            }
            let d = port.tx_done;
            let cell = port.in_tx.take().expect("advance_to a busy port");
            port.stats.cells_tx += 1;
            self.fabric.cell_hops += 1;
            let link = &mut self.fabric.links[port.link.idx()];
            link.pipe.push_back((d + link.delay, cell));
            match port.start_next(d) {
                Some(done) => self.launched(p, done),
                None => {
                    port.sleep(d);
                    port.due = port.release_at;
                }
            }
            if self.fabric.ports[p.idx()].notify {
                if let Some(src) = self.source_after_tx(p, cell) {
                    debug_assert_eq!(d, self.now, "a source's frame left before its port's event");
                    self.source_frame_left(src);
                }
            }
        }
        // No re-arming: the cells still waiting were armed for when they were queued (the
        // pending event comes no later than any of their starts), and a port event re-arms.
    }

    /// The shapers of served-ahead port `p` due at `r` release their conforming cells into it,
    /// in index order, each followed by the transmitter starting if idle — what their `Shape`
    /// events would have done at `r`.
    pub(in crate::net) fn release_shapers(&mut self, p: PortId, r: SimTime) {
        let mut next = SimTime::MAX;
        for i in 0..self.fabric.ports[p.idx()].shapers.len() {
            let s = self.fabric.ports[p.idx()].shapers[i] as usize;
            let sh = &mut self.fabric.shapers.list[s];
            if sh.next_at == r {
                let port = &mut self.fabric.ports[p.idx()];
                sh.release(r, &mut |cell| {
                    let queued = port.push_cell(r, cell);
                    debug_assert!(queued, "only a priority port refuses, and it is not served ahead");
                });
                let port = &mut self.fabric.ports[p.idx()];
                if !port.is_busy() {
                    port.wake(r);
                    if let Some(done) = port.start_next(r) {
                        self.launched(p, done);
                    } else {
                        port.sleep(r);
                    }
                }
            }
            next = next.min(self.fabric.shapers.list[s].next_at);
        }
        let port = &mut self.fabric.ports[p.idx()];
        port.release_at = next;
        port.due = next.min(if port.in_tx.is_some() { port.tx_done } else { SimTime::MAX });
    }

    /// A shaper that port `p` releases itself ([`crate::atm::port::OutPort::shapers`]) has
    /// cells due at `at`: the port releases them when brought up to date, and the port's link
    /// is armed for the first of them.
    pub(in crate::net) fn shaper_due(&mut self, p: PortId, at: SimTime) {
        let port = &mut self.fabric.ports[p.idx()];
        port.release_at = port.release_at.min(at);
        port.due = port.due.min(at);
        let l = port.link;
        self.rearm_link(l);
    }

    /// The earliest time the next cell can reach the far end of switch-bound link `l`: its
    /// head, else the end of the cell its served-ahead port is sending, else the first cell of
    /// the port's next shaper release (exact when the port is idle until then: a train starts
    /// with a first unit). None if nothing is on its way.
    #[inline]
    pub(in crate::net) fn next_arrival(&self, l: LinkId) -> Option<SimTime> {
        let link = &self.fabric.links[l.idx()];
        if let Some(&(t, _)) = link.pipe.front() {
            return Some(t);
        }
        let from = &self.fabric.ports[link.from.idx()];
        if !from.lazy {
            return None;
        }
        if from.in_tx.is_some() {
            return Some(from.tx_done + link.delay);
        }
        (from.release_at != SimTime::MAX).then(|| from.release_at + from.ser.first_unit() + link.delay)
    }

    /// Give switch-bound link `l` an arrival event for its next cell unless one no later is
    /// pending.
    pub(in crate::net) fn rearm_link(&mut self, l: LinkId) {
        match self.fabric.links[l.idx()].to {
            Sink::Switch { switch, .. } if !self.fabric.switches[switch.idx()].drained => {}
            _ => return,
        }
        if let Some(t) = self.next_arrival(l) {
            let link = &mut self.fabric.links[l.idx()];
            if t < link.armed_at {
                link.armed_at = t;
                self.q.schedule(t, Ev::Atm(AtmEv::Arrive(l)));
            }
        }
    }

    /// Bring every served-ahead port up to `t`, every drained switch's arrivals up to `t`
    /// included first.
    pub(in crate::net) fn advance_all(&mut self, t: SimTime) {
        self.drain_all(t + crate::time::SimDuration::from_ps(1));
        for p in 0..self.fabric.ports.len() {
            self.advance(PortId(p as u32), t);
        }
    }

    /// The event of served-ahead port `p`: bring it up to now (a source whose frame left is
    /// told at this instant) and arm its next event.
    pub(in crate::net) fn port_due(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.fabric.ports[p.idx()];
        if port.tx_event == now {
            port.tx_event = SimTime::MAX;
        }
        self.advance(p, now);
        self.arm(p);
    }

    /// Give served-ahead port `p` the event it needs next
    /// ([`crate::atm::port::OutPort::next_due`]), unless one
    /// that comes no later is pending.
    #[inline]
    pub(in crate::net) fn arm(&mut self, p: PortId) {
        let port = &mut self.fabric.ports[p.idx()];
        if !port.lazy || !(port.watch_ends || port.notify) {
            return;
        }
        if let Some(t) = port.next_due() {
            self.port_event_at(p, t);
        }
    }

    /// [`Network::arm`] after `cell` joined the tail of served-ahead port `p`'s queue.
    #[inline]
    pub(in crate::net) fn arm_after_push(&mut self, p: PortId, cell: Cell) {
        let port = &self.fabric.ports[p.idx()];
        if !port.lazy || !(port.watch_ends || port.notify) {
            return;
        }
        if let Some(t) = port.next_due_after_push(cell) {
            self.port_event_at(p, t);
        }
    }

    #[inline]
    pub(in crate::net) fn port_event_at(&mut self, p: PortId, t: SimTime) {
        let port = &mut self.fabric.ports[p.idx()];
        if t < port.tx_event {
            port.tx_event = t;
            self.q.schedule(t, Ev::Atm(AtmEv::PortTx(p)));
        }
    }
}
