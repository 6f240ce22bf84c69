//! Signalling in the running network: controllers' messages as cells, their timers, and
//! the glue between the IP-over-ATM drivers and the controllers.
//!
//! Owns the handling, for the signalling plane ([`super::SigNet`]), of [`SigEv`] (controller timers), of control frames the fabric reassembled at a
//! switch or an adapter (`sig_frame`), and of every [`crate::signalling::Action`]:
//!
//! - `Transmit`: the message becomes one AAL5 frame of 1–2 control cells on the signalling
//!   VC ([`SIG_VCI`]) of the output port, served ahead of data cells (Mah §4.3.1: above best
//!   effort; [`crate::atm::port`]'s control class); a full control queue drops them and
//!   go-back-N recovers the message. When its last cell reaches the far end whole, the peer controller gets it.
//! - `Install`/`Remove`: the switch's VC translation table.
//! - `Connected`/`SetupFailed`: the origin's driver learns its VC's VCI, or that it has none.
//! - `Arm`: a controller timer ([`SigEv::Timer`]).
//!
//! Ledger: `messages sent = delivered + lost + in flight` (frames whose cells were dropped
//! or failed reassembly are lost).

use super::qos::{self, port_class};
use super::{ck, Ev, Network, SigEv, SigNet};
use crate::atm::aal5::NO_DATAGRAM;
use crate::atm::cell::{flags, Cell};
use crate::atm::fabric::Input;
use crate::atm::link::{Route, Sink};
use crate::ids::PortId;
use crate::ids::{LinkId, NodeId};
use crate::iface::atm::NO_VCI;
use crate::iface::ipoa::qos::Scheme;
use crate::iface::ipoa::{SetupOutcome, TrafficDescriptor, VcRef};
use crate::signalling::{Action, CallId, CtrlId, Descriptor, Frame, RejectReason, SIG_VCI};

impl Network {
    fn sig_mut(&mut self) -> &mut SigNet {
        self.sig.as_mut().expect("signalling is configured")
    }

    /// Dispatch of signalling events.
    pub(super) fn on_sig(&mut self, ev: SigEv) {
        match ev {
            SigEv::Timer(slot) => {
                let now = self.eng.now;
                let sig = self.sig_mut();
                let (c, timer) = sig.timers.take(slot);
                let mut out = std::mem::take(&mut sig.actions);
                sig.ctrls[c.idx()].on_timer(now, timer, &mut *sig.adm, &mut out);
                self.run_sig(c, out);
            }
        }
    }

    /// Driver of node `n` asks for a VC for its `vc` to `egress`, described by `td`: start a
    /// call. Without signalling the setup fails at once.
    pub(super) fn sig_request(&mut self, n: NodeId, vc: VcRef, egress: NodeId, td: TrafficDescriptor) {
        let now = self.eng.now;
        let target =
            self.sig.as_ref().and_then(|s| Some((s.ctrl_of_node[n.idx()]?, s.endpoint_of_node[egress.idx()]?)));
        let Some((c, dest)) = target else {
            let atm = self.ip.hosts[n.idx()].atm_mut().expect("driver");
            atm.setup_result(now, vc, SetupOutcome::Failed);
            return;
        };
        let sig = self.sig_mut();
        let d = qos::descriptor(td);
        let call = sig.calls.put((n, vc, d));
        let mut out = std::mem::take(&mut sig.actions);
        sig.ctrls[c.idx()].request_setup(now, CallId(call), dest, d, &mut *sig.adm, &mut out);
        self.ip.hosts[n.idx()].atm_mut().expect("driver").set_call(vc, call);
        self.run_sig(c, out);
    }

    /// Driver of node `n` tears down its `vc`.
    pub(super) fn sig_release(&mut self, n: NodeId, vc: VcRef) {
        let now = self.eng.now;
        let port = self.ip.hosts[n.idx()].port();
        let atm = self.ip.hosts[n.idx()].atm_mut().expect("driver");
        let call = atm.call(vc);
        let vci = atm.vci(vc);
        atm.release(vc);
        if let (Some(port), true) = (port, vci != NO_VCI) {
            self.qos_remove(port, vci);
        }
        let (Some(call), Some(c)) = (call, self.sig.as_ref().and_then(|s| s.ctrl_of_node[n.idx()])) else {
            return;
        };
        let sig = self.sig_mut();
        sig.calls.take(call);
        let mut out = std::mem::take(&mut sig.actions);
        sig.ctrls[c.idx()].release(now, CallId(call), &mut *sig.adm, &mut out);
        self.run_sig(c, out);
    }

    /// Carry out controller `c`'s actions, in order.
    fn run_sig(&mut self, c: CtrlId, mut out: Vec<Action>) {
        for a in out.drain(..) {
            self.sig_action(c, a);
        }
        let sig = self.sig_mut();
        if sig.actions.capacity() < out.capacity() {
            sig.actions = out;
        }
    }

    fn sig_action(&mut self, c: CtrlId, a: Action) {
        let now = self.eng.now;
        match a {
            Action::Transmit { via, frame } => self.sig_transmit(c, via, frame),
            Action::Arm { at, timer } => {
                let slot = self.sig_mut().timers.put((c, timer));
                self.eng.q.schedule(at, Ev::Sig(SigEv::Timer(slot)));
            }
            Action::Install { in_link, in_vci, out_port, out_vci, descriptor } => {
                // A drained switch's arrivals of this instant so far use the old table.
                self.drain_link_switch(in_link);
                set_route(
                    &mut self.fabric.links[in_link.idx()].to,
                    in_vci,
                    Some(Route { port: out_port, vci: out_vci }),
                );
                self.qos_install(out_port, out_vci, descriptor);
            }
            Action::Remove { in_link, in_vci } => {
                self.drain_link_switch(in_link);
                if let Some(r) = set_route(&mut self.fabric.links[in_link.idx()].to, in_vci, None) {
                    self.qos_remove(r.port, r.vci);
                }
            }
            Action::Connected { call, port, vci } => {
                let (n, vc, d) = *self.sig_mut().calls.get(call.0);
                self.qos_install(port, vci, d);
                let atm = self.ip.hosts[n.idx()].atm_mut().expect("driver");
                atm.bind(vc, vci);
                atm.setup_result(now, vc, SetupOutcome::Connected);
                self.driver_answered(n);
            }
            Action::SetupFailed { call, reason } => {
                let (n, vc, _) = self.sig_mut().calls.take(call.0);
                let outcome = match reason {
                    RejectReason::Admission => SetupOutcome::Refused,
                    RejectReason::NoVci | RejectReason::NoRoute => SetupOutcome::Failed,
                };
                let atm = self.ip.hosts[n.idx()].atm_mut().expect("driver");
                atm.setup_result(now, vc, outcome);
                self.driver_answered(n);
            }
            // The destination adapter reassembles every VCI it receives: nothing to bind.
            Action::Incoming { .. } | Action::Released { .. } => {}
        }
    }

    /// A signalling message leaves by output port `via` as one frame on the signalling VC.
    fn sig_transmit(&mut self, c: CtrlId, via: crate::ids::PortId, frame: Frame) {
        let now = self.eng.now;
        // Frames lost since the last accounting have freed their ids: end their messages
        // before `alloc` may give one of those ids to this message.
        self.account_lost_messages();
        let f = self.fabric.frames.alloc(NO_DATAGRAM, NodeId(u32::MAX), frame.bytes(), now);
        let n = self.fabric.frames.get(f).ncells;
        debug_assert_eq!(n, frame.cells());
        let sig = self.sig_mut();
        sig.in_flight.insert(f, frame);
        sig.counts.sent += 1;
        sig.counts.cells += n as u64;
        self.fabric.cells.injected += n as u64;
        for k in 0..n {
            let eof = if k + 1 == n { flags::EOF | flags::CTRL } else { flags::CTRL };
            self.offer_to_port(via, Cell { vci: SIG_VCI, frame: f, flags: eof }, Input::Controller(c.0));
        }
        self.account_lost_messages();
    }

    /// A control frame reassembled from the cells of link `l` (`frame`: its id) reaches the
    /// controller at the link's far end.
    pub(super) fn sig_frame(&mut self, l: LinkId, frame: u32) {
        let now = self.eng.now;
        let sig = self.sig.as_mut().expect("a signalling frame without signalling");
        let msg = sig.in_flight.remove(&frame).expect("a signalling frame without its message");
        self.fabric.frames.unpin(frame);
        let sig = self.sig.as_mut().expect("checked");
        sig.counts.delivered += 1;
        let (c, p) = sig.link_rx[l.idx()].expect("a signalling link without a receiver");
        let mut out = std::mem::take(&mut sig.actions);
        sig.ctrls[c.idx()].on_frame(now, p, msg, &mut out);
        self.run_sig(c, out);
        self.account_lost_messages();
    }

    /// End the messages whose frames were lost or discarded.
    pub(super) fn account_lost_messages(&mut self) {
        let Some(sig) = self.sig.as_mut() else { return };
        let Some(lost) = self.fabric.frames.take_control_lost() else { return };
        for f in lost {
            if sig.in_flight.remove(&f).is_some() {
                sig.counts.lost += 1;
            }
        }
    }
}

/// Set or clear the translation of `vci` at switch input `sink`; returns the one replaced.
fn set_route(sink: &mut Sink, vci: u32, r: Option<Route>) -> Option<Route> {
    let Sink::Switch { table, .. } = sink else { unreachable!("a translation at a host") };
    let i = vci as usize;
    if i >= table.len() {
        table.resize(i + 1, None);
    }
    std::mem::replace(&mut table[i], r)
}

impl Network {
    fn qos_scheme(&self) -> Scheme {
        self.sig.as_ref().map_or(Scheme::Noqos, |s| s.qos.scheme)
    }

    /// A VC of descriptor `d` now leaves by `port` on `vci`: give it its class there.
    pub(super) fn qos_install(&mut self, port: PortId, vci: u32, d: Descriptor) {
        if let Some(class) = port_class(self.qos_scheme(), d) {
            self.drain_port_switch(port);
            let now = self.eng.now;
            self.fabric.advance(ck!(self), port, now);
            let r = self.fabric.ports[port.idx()].set_vc_class(vci, class);
            debug_assert!(r.is_ok(), "{r:?}");
            self.fabric.arm(ck!(self), port);
        }
    }

    /// The VC on `vci` of `port` is gone: later cells on that VCI are best effort.
    pub(super) fn qos_remove(&mut self, port: PortId, vci: u32) {
        if self.qos_scheme() != Scheme::Noqos {
            self.drain_port_switch(port);
            let now = self.eng.now;
            self.fabric.advance(ck!(self), port, now);
            self.fabric.ports[port.idx()].clear_vc_class(vci);
            self.fabric.arm(ck!(self), port);
        }
    }
}

/// What signalling hands upward, routed by the network (`run.rs`): a driver's setup was
/// answered (connected, refused or failed) and the driver acts on it at once.
pub(super) trait DriverUp {
    /// The driver of node `n` has a setup result to act on.
    fn driver_answered(&mut self, n: NodeId);
}
