//! The network's side of the cell fabric ([`crate::atm::fabric`]): what the fabric cannot do
//! alone because it reaches other layers.
//!
//! Owns a link's head cell reaching a host (the fabric reassembles,
//! [`Network::drain_host_link`]) or a switch (the fabric switches it, `atm::fabric::stepped`,
//! and a controller hears a control frame it completes); the top-level drains of switches
//! drained by their readers, which let a controller hear a control frame before the
//! instant's admission; a controller's cells offered to a port; and routing what the fabric
//! hands upward ([`Up`]: a frame reassembled at a host for its IP layer, a corrupt one, an RM
//! cell for an ABR end system, a control frame for a controller, a frame a cell source waits
//! on has left).

use super::ck;
use super::Network;
use crate::atm::cell::Cell;
use crate::atm::fabric::Input;
use crate::atm::link::Sink;
use crate::ids::{LinkId, NodeId, PortId};
use crate::time::{SimDuration, SimTime};

const PS: SimDuration = SimDuration::from_ps(1);

impl Network {
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

    /// The head cell of link `l` arrives at `self.eng.now`: at a host, the cells that have
    /// arrived are delivered; at a drained switch, it is switched with every arrival before
    /// it; at a switch that takes an event per arrival, the fabric switches it, and a
    /// controller hears a control frame it completes.
    pub(super) fn link_arrive(&mut self, l: LinkId) {
        match self.fabric.links[l.idx()].to {
            Sink::Host(h) => {
                self.fabric.advance_feeder(ck!(self), l);
                self.drain_host_link(l, h);
                self.fabric.arrived(ck!(self), l);
            }
            Sink::Switch { switch, .. } if self.fabric.is_drained(switch.0) => {
                self.drain_switch(switch.0, self.eng.now + PS);
                self.fabric.arrived(ck!(self), l);
            }
            Sink::Switch { .. } => {
                self.fabric.switch_arrive(ck!(self), l);
                self.route_up();
                self.messages_lost();
            }
        }
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
        if let Some(s) = self.fabric.drainer_of(p) {
            self.drain_switch(s, self.eng.now + PS);
        }
    }

    /// Drain the switch at the far end of link `l`, if drained, up to and including now.
    pub(super) fn drain_link_switch(&mut self, l: LinkId) {
        if let Sink::Switch { switch, .. } = self.fabric.links[l.idx()].to {
            if self.fabric.is_drained(switch.0) {
                self.drain_switch(switch.0, self.eng.now + PS);
            }
        }
    }

    /// A controller offers a cell to output port `p` at this instant: a drained switch first
    /// switches its arrivals up to and including now (or, switching this instant, takes the
    /// cell into it), then the fabric offers it in the model's order ([`Fabric::offer`]).
    #[inline]
    pub(super) fn offer_to_port(&mut self, p: PortId, cell: Cell, input: Input) {
        if let Some(s) = self.fabric.drainer_of(p) {
            if self.fabric.is_switching(s) {
                return self.fabric.offer_while_switching(p, cell, input.id());
            }
            self.drain_switch(s, self.eng.now + PS);
        }
        self.fabric.offer(ck!(self), p, cell, input);
    }
}

/// What this file hands upward while it runs the fabric, routed by the network (`run.rs`):
/// draining a switch may complete frames that the layers above must hear at once (a
/// controller answers before the instant's admission), so they are routed then, through
/// this interface, and this file names no layer above the fabric.
pub(super) trait FabricUp {
    /// Route what the fabric handed upward ([`super::Up`]), in the order it did.
    fn route_up(&mut self);
    /// The fabric lost or discarded control frames: their signalling messages end.
    fn messages_lost(&mut self);
}
