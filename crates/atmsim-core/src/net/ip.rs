//! The IP layer of the running network: sending by destination address, forwarding at
//! routers, local delivery to transports, and the packet-level interfaces below IP.
//!
//! Owns: `ip_output` (a datagram leaves node `n`: delivered locally, or handed to the
//! interface of its next hop — an ATM adapter's IP-over-ATM driver, a serial line, a LAN),
//! `ip_input` (a datagram arrives at node `n` from an interface: for this node, forwarded
//! by a router, or dropped), `ip_local` (the transport demultiplexing by destination port:
//! TCP, UDP, cell-source sinks), the handling of [`IfaceEv`] (packet lines finishing a
//! datagram and delivering it; driver timers), and carrying out the driver's actions.
//!
//! A datagram reaches the ATM fabric only through an adapter's driver (DESIGN §7): the
//! driver chooses its VC (declared PVCs, or VCs it opens through signalling).

use super::Due;
use super::{AppEv, Ev, IfaceEv, Network};
use crate::ids::{DatagramId, NodeId};
use crate::iface::atm::NO_VCI;
use crate::iface::ipoa::Action;
use crate::iface::pipe::{OnLine, Pushed};
use crate::iface::Iface;
use crate::ip::datagram::IpDrop;
use crate::transport::socket::Socket;
use crate::transport::Payload;

impl Network {
    /// Dispatch of the interfaces' events.
    pub(super) fn on_iface(&mut self, ev: IfaceEv) {
        match ev {
            IfaceEv::LineTx(l) => self.line_tx_done(l),
            IfaceEv::LineArrive(l) => self.line_arrive(l),
            IfaceEv::DriverTimer(slot) => self.driver_timer(slot),
        }
    }

    /// Datagram `d`, which entered node `n` from `from`, leaves its IP layer.
    pub(super) fn ip_output(&mut self, n: NodeId, d: DatagramId, from: IpInput) {
        let dst = self.ip.datagrams.get(d).hdr.dst;
        if dst == n {
            return self.ip_local(n, d);
        }
        let Some(hop) = self.ip.hosts[n.idx()].route(dst) else {
            return self.ip.datagrams.drop_ip(d, IpDrop::NoRoute);
        };
        match self.iface.list[hop.iface.idx()] {
            Iface::Atm { .. } => self.atm_output(n, hop.next, d),
            Iface::Serial { line } | Iface::Lan { line } => self.line_push(line, hop.next, d, from),
        }
    }

    /// Datagram `d` arrives at node `n` from one of its interfaces (`from`).
    pub(super) fn ip_input(&mut self, n: NodeId, d: DatagramId, from: IpInput) {
        if self.ip.datagrams.get(d).hdr.dst == n {
            self.ip_local(n, d);
        } else if self.ip.hosts[n.idx()].transit() {
            self.ip_output(n, d, from);
        } else {
            // A host is never a transit hop (routes never ask it to be).
            self.ip.datagrams.drop_ip(d, IpDrop::NoRoute);
        }
    }

    /// Datagram `d` is for node `n`: hand it to its transport.
    /// Datagram `d` is for node `n`: its socket's transport takes it (cell sources' frames
    /// go straight to their sink).
    fn ip_local(&mut self, n: NodeId, d: DatagramId) {
        let dg = self.ip.datagrams.get(d);
        if let Payload::Raw { source } = dg.payload {
            let bytes = self.ip.datagrams.deliver(d).ip_bytes;
            self.apps.sources[source as usize].received(bytes);
            return;
        }
        match self.sockets.demux(n, &dg.hdr) {
            // The segment names its conversation's generation: TCP drops a stale one.
            Some(Socket::Tcp { .. }) => self.deliver_tcp(d),
            Some(Socket::Udp { flow }) => {
                let dg = self.ip.datagrams.deliver(d);
                self.apps.udp[flow as usize].delivered(dg.ip_bytes, dg.born, self.eng.now);
            }
            None => {
                self.ip.hosts[n.idx()].no_socket();
                self.ip.datagrams.deliver(d);
            }
        }
    }

    // ------------------------------------------------------------ packet-level lines

    /// Offer `d`, from `from`, to packet line `l` towards node `to` at this instant (DESIGN
    /// §2b): queued at once if nothing else can reach a queue in this instant's arrival phase,
    /// else collected and queued at the instant's admission phase in the round-robin order of
    /// the line's inputs ([`crate::arbiter`]).
    fn line_push(&mut self, l: u32, to: NodeId, d: DatagramId, from: IpInput) {
        let bytes = self.ip.datagrams.get(d).ip_bytes;
        let p = OnLine { datagram: d, bytes, to };
        if self.iface.lines[l as usize].arrivals.is_empty() {
            if !self.eng.arrivals_pending() {
                return self.line_enqueue(l, p);
            }
            self.eng.admit_later(Due::Line(l));
        }
        self.iface.lines[l as usize].arrivals.push((from.id(), p));
    }

    /// Line `l` queues this instant's collected datagrams in its arbiter's order.
    pub(super) fn line_admit_arrivals(&mut self, l: u32) {
        let line = &mut self.iface.lines[l as usize];
        let mut batch = std::mem::take(&mut line.arrivals);
        crate::arbiter::admit_order(&mut batch, &mut line.arbiter);
        for &(_, p) in &batch {
            self.line_enqueue(l, p);
        }
        batch.clear();
        self.iface.lines[l as usize].arrivals = batch;
    }

    /// Put `p` in line `l`'s FIFO (or drop it if the buffer is full). On a line served ahead
    /// (`iface::pipe` module docs), a serialization ending at this instant has ended if the
    /// running event comes after the place its `LineTx` event would have (a completion,
    /// generation 0).
    fn line_enqueue(&mut self, l: u32, p: OnLine) {
        let d = p.datagram;
        let now = self.eng.now;
        let line = &mut self.iface.lines[l as usize];
        let pushed = if line.lazy {
            let q = &self.eng.q;
            line.push_ahead(now, p, || {
                q.running_prefix() > q.prefix_of(now, crate::kernel::rank(super::kind::LINE_TX, l), false)
            })
        } else {
            line.push(now, p)
        };
        match pushed {
            Pushed::Started(t) => {
                self.eng.q.schedule(t, Ev::Iface(IfaceEv::LineTx(l)));
            }
            Pushed::Ahead(t) => {
                self.eng.q.schedule(t, Ev::Iface(IfaceEv::LineArrive(l)));
            }
            Pushed::Queued => {}
            Pushed::Dropped => self.ip.datagrams.drop_ip(d, IpDrop::LineFull),
        }
    }

    /// Line `l` finished serializing a datagram: it propagates, and the next one starts. On a
    /// line without delay it arrives at this instant, in the instant's arrival phase (after
    /// every queue's completion: DESIGN §2b).
    fn line_tx_done(&mut self, l: u32) {
        let (arrive, next) = self.iface.lines[l as usize].tx_done(self.eng.now);
        self.eng.q.schedule(arrive, Ev::Iface(IfaceEv::LineArrive(l)));
        if let Some(t) = next {
            self.eng.q.schedule(t, Ev::Iface(IfaceEv::LineTx(l)));
        }
    }

    fn line_arrive(&mut self, l: u32) {
        let p = self.iface.lines[l as usize].arrive(self.eng.now).expect("a line arrival with nothing due");
        self.ip_input(p.to, p.datagram, IpInput::Line(l));
    }

    // ------------------------------------------------------------ the IP-over-ATM driver

    /// Hand `d` to node `n`'s IP-over-ATM driver for egress `egress` on the ATM subnet.
    fn atm_output(&mut self, n: NodeId, egress: NodeId, d: DatagramId) {
        let now = self.eng.now;
        let hdr = self.ip.datagrams.get(d).hdr;
        let atm = self.ip.hosts[n.idx()].atm_mut().expect("an ATM route through a node without a driver");
        atm.transmit(now, &hdr, egress, d);
        self.run_driver(n);
    }

    /// Carry out what node `n`'s driver asked for, in order; an action may make the driver
    /// ask for more (a setup that fails at once drops its queue), which is carried out after
    /// it by the same loop (a nested call returns at once).
    pub(super) fn run_driver(&mut self, n: NodeId) {
        if !self.ip.hosts[n.idx()].atm_mut().expect("driver").begin_actions() {
            return;
        }
        let mut i = 0;
        loop {
            let Some(a) = self.ip.hosts[n.idx()].atm_mut().expect("driver").action(i) else { return };
            i += 1;
            self.driver_action(n, a);
        }
    }

    fn driver_action(&mut self, n: NodeId, a: Action) {
        match a {
            Action::Send { datagram, vc } => {
                let host = &self.ip.hosts[n.idx()];
                let vci = host.atm().expect("driver").vci(vc);
                debug_assert_ne!(vci, NO_VCI, "the driver sent on a VC with no fabric VCI");
                let port = host.port().expect("an ATM-attached node has an adapter");
                self.send_datagram(n, port, vci, datagram);
            }
            Action::RequestSetup { vc, egress, descriptor, .. } => self.sig_request(n, vc, egress, descriptor),
            Action::Release { vc } => self.sig_release(n, vc),
            Action::ArmTimer { at, token } => {
                let slot = self.iface.arm_driver_timer(n, token);
                self.eng.q.schedule(at, Ev::Iface(IfaceEv::DriverTimer(slot)));
            }
            Action::Drop { datagram, .. } => self.ip.datagrams.drop_ip(datagram, IpDrop::NoVc),
        }
    }

    fn driver_timer(&mut self, slot: u32) {
        let (n, token) = self.iface.take_driver_timer(slot);
        let now = self.eng.now;
        let atm = self.ip.hosts[n.idx()].atm_mut().expect("driver");
        atm.timer_fired(now, token);
        self.run_driver(n);
    }

    // ------------------------------------------------------------ UDP

    /// UDP flow `f` sends its next datagram and schedules the one after.
    pub(super) fn udp_send(&mut self, f: u32) {
        let now = self.eng.now;
        let flow = &mut self.apps.udp[f as usize];
        flow.stats.sent += 1;
        let hdr = flow.hdr;
        let (bytes, next) = flow.emit(now);
        if let Some(t) = next {
            self.eng.q.schedule(t, Ev::App(AppEv::Udp(f)));
        }
        let d = self.new_datagram(hdr, Payload::Udp { flow: f }, bytes);
        self.ip_output(hdr.src, d, IpInput::Local(hdr.src));
    }

    /// A frame reassembled at host `h`'s adapter hands its datagram to IP.
    pub(super) fn host_frame(&mut self, h: NodeId, d: DatagramId) {
        self.ip.hosts[h.idx()].frame_received();
        if let Some(t) = self.ip.hosts[h.idx()].tap() {
            self.capture(t, false, d);
        }
        self.ip_input(h, d, IpInput::Adapter(h));
    }
}

/// Where a datagram entered a node's IP layer: one input of the round-robin arbiter of the
/// packet line it leaves by (DESIGN §2b).
#[derive(Clone, Copy, Debug)]
pub(super) enum IpInput {
    /// From packet line `l` (a serial line direction or a LAN medium).
    Line(u32),
    /// From the node's ATM adapter (a reassembled frame).
    Adapter(NodeId),
    /// Sent by the node itself (a transport or an application).
    Local(NodeId),
}

impl IpInput {
    /// Distinct ids for the arbiter's cyclic order: lines, then adapters, then local senders.
    fn id(self) -> u32 {
        match self {
            IpInput::Line(l) => l,
            IpInput::Adapter(n) => 0x8000_0000 | n.0,
            IpInput::Local(n) => 0xC000_0000 | n.0,
        }
    }
}
