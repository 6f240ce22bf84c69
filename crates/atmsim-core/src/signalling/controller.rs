//! The signalling controller of a switch or of an ATM-attached endpoint.
//!
//! Owns: [`Controller`] — Mah's `SigRcsp` process on the outboard switch control computer
//! (thesis §3.6.1), together with the `CellGoBackN` ends in front of it, one pair per port —
//! its configuration ([`SigConfig`]) and how its ports attach ([`PortSpec`]).
//!
//! An endpoint controller (router or host adapter, "slightly different", §3.6.1) is the same
//! machine with a local [`EndpointId`]: it originates SETUPs for its driver
//! ([`Controller::request_setup`]), terminates SETUPs addressed to it (answering CONNECT),
//! and reports to its driver. A switch controller only transits.
//!
//! **Processing.** Every message *received* from a signalling link waits in one FIFO and
//! takes `processing` to handle (a [`Timer::Processing`] marks the end of the head's
//! service). Driver calls (`request_setup`, `release`) are handled at once: the origin sends
//! its SETUP immediately and frees a released VC immediately (spec A-8). ACKs are produced and
//! consumed by the go-back-N ends without processing time.
//!
//! **Per hop, on SETUP** (arrived on port `i` with VCI `v`): route the destination
//! (`routes[dest]`, one indexed load) to port `o`; refuse if `o` has no free VCI, then if the
//! admission hook refuses; otherwise allocate the lowest free VCI `w` on `o`, install the
//! translation `(link in on i, v) → (port o, w)` and forward the SETUP with `w`. A refusal
//! sends REJECT back on `i`. Each hop's call record is found again by the VCI on the link a
//! message arrives on: `inbound[i][v]` for SETUP/RELEASE, the owner of `w` on `o` for
//! CONNECT/REJECT; a message whose call id differs from the record's is stale and ignored.

use super::action::{Action, Timer};
use super::admission::Admission;
use super::gbn::{GbnConfig, GbnReceiver, GbnSender, GbnSink};
use super::msg::{Frame, Msg, RejectReason, Setup};
use super::vci::{VciSpace, VciTable};
use super::{CallId, CtrlId, Descriptor, EndpointId, PortIx};
use crate::ids::{LinkId, PortId};
use crate::time::{SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

/// Parameters shared by all controllers of a network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigConfig {
    /// Service time per received message \[ps\]. Default 1 ms (spec A-8, to calibrate).
    pub processing: SimDuration,
    /// Go-back-N window and timeout (spec A-8: 8 messages, 200 ms).
    pub gbn: GbnConfig,
    /// VCIs per outgoing port, `0..vci_space` \[VCIs\]. Default 8192 (Mah §6.6).
    pub vci_space: u32,
    /// First allocatable VCI; `0..first_vci` are reserved. Default 32 (ATM practice).
    pub first_vci: u32,
}

impl Default for SigConfig {
    fn default() -> Self {
        SigConfig { processing: SimDuration::from_millis(1), gbn: GbnConfig::default(), vci_space: 8192, first_vci: 32 }
    }
}

/// How one controller port attaches to the network (global ids the actions carry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortSpec {
    /// The output port towards the peer: data VCs allocated here, signalling frames sent here.
    pub out: PortId,
    /// The link arriving from the peer (the key of translation entries for calls from it).
    pub link_in: LinkId,
    /// The controller at the other end.
    pub peer: CtrlId,
}

/// Controller counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtrlStats {
    /// Messages served by the processing queue.
    pub processed: u64,
    /// Longest processing queue seen \[messages\].
    pub max_queue: usize,
    /// Origin: setups requested, connected, failed (by [`RejectReason::index`]), released.
    pub requested: u64,
    pub connected: u64,
    pub failed: [u64; 3],
    pub released: u64,
    /// SETUPs this controller refused (by reason).
    pub refused: [u64; 3],
    /// Destination: VCs accepted.
    pub incoming: u64,
    /// Messages for calls this controller no longer holds (races with RELEASE).
    pub stale: u64,
}

/// This hop's part of one call.
#[derive(Clone, Copy, Debug)]
struct HopCall {
    call: CallId,
    descriptor: Descriptor,
    /// Port and VCI towards the origin (`None` at the origin).
    up: Option<(PortIx, u32)>,
    /// Port and VCI towards the destination (`None` at the destination).
    down: Option<(PortIx, u32)>,
}

struct Port {
    spec: PortSpec,
    tx: GbnSender,
    rx: GbnReceiver,
    vcis: VciSpace,
    inbound: VciTable,
}

/// Go-back-N output of one port, turned into actions.
struct LinkOut<'a> {
    via: PortId,
    port: PortIx,
    out: &'a mut Vec<Action>,
}

impl GbnSink for LinkOut<'_> {
    fn transmit(&mut self, frame: Frame) {
        self.out.push(Action::Transmit { via: self.via, frame });
    }
    fn arm(&mut self, at: SimTime) {
        self.out.push(Action::Arm { at, timer: Timer::Retransmit(self.port) });
    }
}

/// A signalling controller.
pub struct Controller {
    id: CtrlId,
    local: Option<EndpointId>,
    cfg: SigConfig,
    ports: Vec<Port>,
    /// Destination endpoint → outgoing port.
    routes: Vec<Option<PortIx>>,
    calls: Vec<Option<HopCall>>,
    free_slots: Vec<u32>,
    /// Origin: the driver's call id → record (one insert per call, not per message).
    originated: BTreeMap<CallId, u32>,
    jobs: VecDeque<(PortIx, Msg)>,
    pub stats: CtrlStats,
}

impl Controller {
    /// A controller with `ports` (local numbers in this order); `local` is the endpoint it
    /// serves, `None` at a switch. Routes start empty ([`Controller::set_route`]).
    pub fn new(id: CtrlId, local: Option<EndpointId>, cfg: SigConfig, ports: &[PortSpec]) -> Self {
        let ports = ports
            .iter()
            .map(|&spec| Port {
                spec,
                tx: GbnSender::new(cfg.gbn),
                rx: GbnReceiver::new(cfg.gbn),
                vcis: VciSpace::new(cfg.first_vci, cfg.vci_space),
                inbound: VciTable::default(),
            })
            .collect();
        let (calls, free_slots, originated, jobs) = (Vec::new(), Vec::new(), BTreeMap::new(), VecDeque::new());
        Controller {
            id,
            local,
            cfg,
            ports,
            routes: Vec::new(),
            calls,
            free_slots,
            originated,
            jobs,
            stats: CtrlStats::default(),
        }
    }

    /// VCIs below `first` on port `p`'s link are taken by permanent VCs the scenario declares:
    /// switched VCs are allocated from `first` on (at least the configured first VCI). Call
    /// before any setup.
    pub fn reserve_below(&mut self, p: PortIx, first: u32) {
        let port = &mut self.ports[p.idx()];
        assert_eq!(port.vcis.in_use(), 0, "VCIs reserved after allocation began");
        port.vcis = VciSpace::new(first.max(self.cfg.first_vci), self.cfg.vci_space);
    }

    /// Calls for `dest` leave by `port` (static routing, Mah §3.6.2).
    pub fn set_route(&mut self, dest: EndpointId, port: PortIx) {
        assert!(port.idx() < self.ports.len(), "route to a port the controller does not have");
        if dest.idx() >= self.routes.len() {
            self.routes.resize(dest.idx() + 1, None);
        }
        self.routes[dest.idx()] = Some(port);
    }

    pub fn id(&self) -> CtrlId {
        self.id
    }
    pub fn local(&self) -> Option<EndpointId> {
        self.local
    }
    pub fn port(&self, p: PortIx) -> &PortSpec {
        &self.ports[p.idx()].spec
    }
    pub fn sender(&self, p: PortIx) -> &GbnSender {
        &self.ports[p.idx()].tx
    }
    pub fn receiver(&self, p: PortIx) -> &GbnReceiver {
        &self.ports[p.idx()].rx
    }
    pub fn vcis_in_use(&self, p: PortIx) -> u32 {
        self.ports[p.idx()].vcis.in_use()
    }
    /// VCIs bound on the incoming link of port `p` (a scan; for checks).
    pub fn inbound_bound(&self, p: PortIx) -> usize {
        self.ports[p.idx()].inbound.count()
    }
    /// Call records held (a scan; for checks).
    pub fn calls_held(&self) -> usize {
        self.calls.iter().filter(|c| c.is_some()).count()
    }
    pub fn num_ports(&self) -> usize {
        self.ports.len()
    }

    /// Driver: open a VC for `call` to `dest`. Failures at this controller are reported at once.
    pub fn request_setup(
        &mut self,
        now: SimTime,
        call: CallId,
        dest: EndpointId,
        descriptor: Descriptor,
        adm: &mut dyn Admission,
        out: &mut Vec<Action>,
    ) {
        let origin = self.local.expect("request_setup at a controller without a local endpoint");
        self.stats.requested += 1;
        let rec = HopCall { call, descriptor, up: None, down: None };
        match self.reserve(dest, rec, adm) {
            Err(reason) => self.fail(call, reason, out),
            Ok((slot, o, w)) => {
                self.originated.insert(call, slot);
                self.send(now, o, Msg::Setup(Setup { call, origin, dest, descriptor, vci: w }), out);
            }
        }
    }

    /// Driver: tear down `call` (connected or still pending). The VCI and the admission
    /// reservation are freed at once and one RELEASE goes forward. `false` if unknown.
    pub fn release(&mut self, now: SimTime, call: CallId, adm: &mut dyn Admission, out: &mut Vec<Action>) -> bool {
        let Some(slot) = self.originated.remove(&call) else { return false };
        let rec = self.take(slot);
        self.stats.released += 1;
        let (o, w) = rec.down.expect("an originated call has a downstream VC");
        self.free_down(o, w, &rec, adm);
        self.send(now, o, Msg::Release { call, vci: w }, out);
        true
    }

    /// A signalling frame arrived on port `p`.
    pub fn on_frame(&mut self, now: SimTime, p: PortIx, frame: Frame, out: &mut Vec<Action>) {
        let port = &mut self.ports[p.idx()];
        let mut sink = LinkOut { via: port.spec.out, port: p, out };
        match frame {
            Frame::Ack { next } => port.tx.on_ack(now, next, &mut sink),
            Frame::Data { seq, msg } => {
                if let Some(m) = port.rx.on_data(seq, msg, &mut sink) {
                    self.enqueue(now, p, m, out);
                }
            }
        }
    }

    /// A timer asked for by an [`Action::Arm`] fired.
    pub fn on_timer(&mut self, now: SimTime, timer: Timer, adm: &mut dyn Admission, out: &mut Vec<Action>) {
        match timer {
            Timer::Retransmit(p) => {
                let port = &mut self.ports[p.idx()];
                port.tx.on_timer(now, &mut LinkOut { via: port.spec.out, port: p, out });
            }
            Timer::Processing => {
                let (p, m) = self.jobs.pop_front().expect("processing timer with an empty queue");
                self.stats.processed += 1;
                self.handle(now, p, m, adm, out);
                if !self.jobs.is_empty() {
                    out.push(Action::Arm { at: now + self.cfg.processing, timer: Timer::Processing });
                }
            }
        }
    }

    fn enqueue(&mut self, now: SimTime, p: PortIx, m: Msg, out: &mut Vec<Action>) {
        self.jobs.push_back((p, m));
        self.stats.max_queue = self.stats.max_queue.max(self.jobs.len());
        if self.jobs.len() == 1 {
            out.push(Action::Arm { at: now + self.cfg.processing, timer: Timer::Processing });
        }
    }

    fn handle(&mut self, now: SimTime, p: PortIx, m: Msg, adm: &mut dyn Admission, out: &mut Vec<Action>) {
        match m {
            Msg::Setup(s) => self.on_setup(now, p, s, adm, out),
            Msg::Connect { call, vci } => self.on_connect(now, p, call, vci, out),
            Msg::Reject { call, vci, reason } => self.on_reject(now, p, call, vci, reason, adm, out),
            Msg::Release { call, vci } => self.on_release(now, p, call, vci, adm, out),
        }
    }

    fn on_setup(&mut self, now: SimTime, i: PortIx, s: Setup, adm: &mut dyn Admission, out: &mut Vec<Action>) {
        let link = self.ports[i.idx()].spec.link_in;
        let rec = HopCall { call: s.call, descriptor: s.descriptor, up: Some((i, s.vci)), down: None };
        if self.local == Some(s.dest) {
            let slot = self.insert(rec);
            self.ports[i.idx()].inbound.set(s.vci, slot);
            self.stats.incoming += 1;
            out.push(Action::Incoming { call: s.call, origin: s.origin, link, vci: s.vci, descriptor: s.descriptor });
            return self.send(now, i, Msg::Connect { call: s.call, vci: s.vci }, out);
        }
        match self.reserve(s.dest, rec, adm) {
            Err(reason) => {
                self.stats.refused[reason.index()] += 1;
                self.send(now, i, Msg::Reject { call: s.call, vci: s.vci, reason }, out);
            }
            Ok((slot, o, w)) => {
                self.ports[i.idx()].inbound.set(s.vci, slot);
                let out_port = self.ports[o.idx()].spec.out;
                out.push(Action::Install {
                    in_link: link,
                    in_vci: s.vci,
                    out_port,
                    out_vci: w,
                    descriptor: s.descriptor,
                });
                self.send(now, o, Msg::Setup(Setup { vci: w, ..s }), out);
            }
        }
    }

    fn on_connect(&mut self, now: SimTime, o: PortIx, call: CallId, w: u32, out: &mut Vec<Action>) {
        let Some((_, rec)) = self.find_down(o, w, call) else { return };
        match rec.up {
            Some((i, v)) => self.send(now, i, Msg::Connect { call, vci: v }, out),
            None => {
                self.stats.connected += 1;
                out.push(Action::Connected { call, port: self.ports[o.idx()].spec.out, vci: w });
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn on_reject(
        &mut self,
        now: SimTime,
        o: PortIx,
        call: CallId,
        w: u32,
        reason: RejectReason,
        adm: &mut dyn Admission,
        out: &mut Vec<Action>,
    ) {
        let Some((slot, rec)) = self.find_down(o, w, call) else { return };
        self.take(slot);
        self.free_down(o, w, &rec, adm);
        match rec.up {
            Some((i, v)) => {
                self.free_up(i, v, out);
                self.send(now, i, Msg::Reject { call, vci: v, reason }, out);
            }
            None => {
                self.originated.remove(&call);
                self.fail(call, reason, out);
            }
        }
    }

    fn on_release(
        &mut self,
        now: SimTime,
        i: PortIx,
        call: CallId,
        v: u32,
        adm: &mut dyn Admission,
        out: &mut Vec<Action>,
    ) {
        let port = &self.ports[i.idx()];
        let slot = port.inbound.get(v).filter(|&s| self.calls[s as usize].is_some_and(|r| r.call == call));
        let Some(slot) = slot else {
            self.stats.stale += 1;
            return;
        };
        let rec = self.take(slot);
        match rec.down {
            Some((o, w)) => {
                self.free_up(i, v, out);
                self.free_down(o, w, &rec, adm);
                self.send(now, o, Msg::Release { call, vci: w }, out);
            }
            None => {
                self.ports[i.idx()].inbound.clear(v);
                out.push(Action::Released { call, link: self.ports[i.idx()].spec.link_in, vci: v });
            }
        }
    }

    /// Route, check VCIs, ask the hook, allocate: the forward-pass resource step.
    fn reserve(
        &mut self,
        dest: EndpointId,
        mut rec: HopCall,
        adm: &mut dyn Admission,
    ) -> Result<(u32, PortIx, u32), RejectReason> {
        let o = self.routes.get(dest.idx()).copied().flatten().ok_or(RejectReason::NoRoute)?;
        let port = &self.ports[o.idx()];
        if port.vcis.is_full() {
            return Err(RejectReason::NoVci);
        }
        if !adm.admit(port.spec.out, &rec.descriptor) {
            return Err(RejectReason::Admission);
        }
        let slot = self.insert(rec);
        let w = self.ports[o.idx()].vcis.alloc(slot).expect("checked not full");
        rec.down = Some((o, w));
        self.calls[slot as usize] = Some(rec);
        Ok((slot, o, w))
    }

    /// The record owning VCI `w` on port `o`, if it is `call`'s; otherwise count it stale.
    fn find_down(&mut self, o: PortIx, w: u32, call: CallId) -> Option<(u32, HopCall)> {
        let found = self.ports[o.idx()].vcis.owner(w).and_then(|s| self.calls[s as usize].map(|r| (s, r)));
        let found = found.filter(|(_, r)| r.call == call && r.down == Some((o, w)));
        if found.is_none() {
            self.stats.stale += 1;
        }
        found
    }

    fn free_down(&mut self, o: PortIx, w: u32, rec: &HopCall, adm: &mut dyn Admission) {
        let port = &mut self.ports[o.idx()];
        port.vcis.free(w);
        adm.release(port.spec.out, &rec.descriptor);
    }

    fn free_up(&mut self, i: PortIx, v: u32, out: &mut Vec<Action>) {
        let port = &mut self.ports[i.idx()];
        port.inbound.clear(v);
        out.push(Action::Remove { in_link: port.spec.link_in, in_vci: v });
    }

    fn fail(&mut self, call: CallId, reason: RejectReason, out: &mut Vec<Action>) {
        self.stats.failed[reason.index()] += 1;
        out.push(Action::SetupFailed { call, reason });
    }

    fn send(&mut self, now: SimTime, p: PortIx, msg: Msg, out: &mut Vec<Action>) {
        let port = &mut self.ports[p.idx()];
        port.tx.send(now, msg, &mut LinkOut { via: port.spec.out, port: p, out });
    }

    fn insert(&mut self, rec: HopCall) -> u32 {
        match self.free_slots.pop() {
            Some(s) => {
                self.calls[s as usize] = Some(rec);
                s
            }
            None => {
                self.calls.push(Some(rec));
                (self.calls.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, slot: u32) -> HopCall {
        self.free_slots.push(slot);
        self.calls[slot as usize].take().expect("live call record")
    }
}
