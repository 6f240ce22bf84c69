//! A test-only mini world: controllers joined by simulated links, driven by a time-ordered
//! queue of (time, sequence) → event. Not a copy of the network: a link is a FIFO line with a
//! rate, a propagation delay and a loss pattern (the ordinals of frames to drop, counted per
//! direction, dropped before transmission as if their cells met a full queue).

use super::*;
use crate::ids::{LinkId, PortId};
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Copy, Debug)]
enum Ev {
    Frame { wire: usize, frame: Frame },
    Timer { ctrl: usize, timer: Timer },
}

/// One direction of a link. Its index is both the sender's `PortId` and the receiver's `LinkId`.
pub struct Wire {
    pub from: usize,
    pub to: usize,
    pub to_port: PortIx,
    pub rate: Rate,
    pub delay: SimDuration,
    free_at: SimTime,
    pub drop: Vec<u64>,
    /// Frames offered, lost, arrived, in flight; `[data, acks]`.
    pub offered: [u64; 2],
    pub lost: [u64; 2],
    pub arrived: [u64; 2],
    pub in_flight: [u64; 2],
}

/// An admission hook that records every call and refuses at chosen ports.
#[derive(Default)]
pub struct Recorder {
    pub refuse: Vec<PortId>,
    pub admits: Vec<(PortId, Descriptor)>,
    pub releases: Vec<(PortId, Descriptor)>,
}

impl Admission for Recorder {
    fn admit(&mut self, port: PortId, d: &Descriptor) -> bool {
        let ok = !self.refuse.contains(&port);
        if ok {
            self.admits.push((port, *d));
        }
        ok
    }
    fn release(&mut self, port: PortId, d: &Descriptor) {
        self.releases.push((port, *d));
    }
}

pub struct World {
    pub ctrls: Vec<Controller>,
    pub wires: Vec<Wire>,
    pub adm: Recorder,
    /// Translation entries of all switches: (in link, in VCI) → (out port, out VCI).
    pub table: BTreeMap<(u32, u32), (u32, u32)>,
    /// Destination bindings: (link, VCI) → call.
    pub bound: BTreeMap<(u32, u32), CallId>,
    /// Driver-visible results, with the time they happened.
    pub results: Vec<(SimTime, Action)>,
    pub now: SimTime,
    q: BTreeMap<(SimTime, u64), Ev>,
    seq: u64,
    out: Vec<Action>,
}

/// Topology under construction: nodes (endpoint or switch, processing time) and links.
#[derive(Default)]
pub struct Builder {
    nodes: Vec<(Option<EndpointId>, SimDuration)>,
    links: Vec<(usize, usize, LinkSpec)>,
}

impl Builder {
    pub fn endpoint(&mut self, ep: u32, processing: SimDuration) -> usize {
        self.nodes.push((Some(EndpointId(ep)), processing));
        self.nodes.len() - 1
    }
    pub fn switch(&mut self, processing: SimDuration) -> usize {
        self.nodes.push((None, processing));
        self.nodes.len() - 1
    }
    /// Join `a` (forward end) to `b`.
    pub fn link(&mut self, a: usize, b: usize, spec: LinkSpec) {
        self.links.push((a, b, spec));
    }

    pub fn build(self, cfg: SigConfig) -> World {
        let n = self.nodes.len();
        let mut specs: Vec<Vec<PortSpec>> = vec![Vec::new(); n];
        let mut wires = Vec::new();
        for &(a, b, l) in &self.links {
            let (ab, ba) = (wires.len(), wires.len() + 1);
            let (pa, pb) = (PortIx(specs[a].len() as u32), PortIx(specs[b].len() as u32));
            specs[a].push(PortSpec { out: PortId(ab as u32), link_in: LinkId(ba as u32), peer: CtrlId(b as u32) });
            specs[b].push(PortSpec { out: PortId(ba as u32), link_in: LinkId(ab as u32), peer: CtrlId(a as u32) });
            wires.push(Wire::new(a, b, pb, l.rate_fwd, l.delay_fwd));
            wires.push(Wire::new(b, a, pa, l.rate_rev, l.delay_rev));
        }
        let mut ctrls: Vec<Controller> = (0..n)
            .map(|i| {
                let c = SigConfig { processing: self.nodes[i].1, ..cfg };
                Controller::new(CtrlId(i as u32), self.nodes[i].0, c, &specs[i])
            })
            .collect();
        for (node, &(ep, _)) in self.nodes.iter().enumerate() {
            if let Some(ep) = ep {
                route_towards(&mut ctrls, &wires, node, ep);
            }
        }
        World {
            ctrls,
            wires,
            adm: Recorder::default(),
            table: BTreeMap::new(),
            bound: BTreeMap::new(),
            results: Vec::new(),
            now: SimTime::ZERO,
            q: BTreeMap::new(),
            seq: 0,
            out: Vec::new(),
        }
    }
}

/// Static routes to `ep` at `dest`: a breadth-first search back from it over the wires (the
/// test topologies are trees, so this is the only path).
fn route_towards(ctrls: &mut [Controller], wires: &[Wire], dest: usize, ep: EndpointId) {
    let mut seen = vec![false; ctrls.len()];
    let mut todo = VecDeque::from([dest]);
    seen[dest] = true;
    while let Some(v) = todo.pop_front() {
        for w in wires.iter().filter(|w| w.to == v) {
            if seen[w.from] {
                continue;
            }
            seen[w.from] = true;
            let back = wires.iter().find(|x| x.from == v && x.to == w.from).expect("reverse wire");
            // The port of `w.from` that sends towards `v` is the one receiving from `v`.
            ctrls[w.from].set_route(ep, back.to_port);
            todo.push_back(w.from);
        }
    }
}

impl Wire {
    fn new(from: usize, to: usize, to_port: PortIx, rate: Rate, delay: SimDuration) -> Self {
        let z = [0; 2];
        Wire {
            from,
            to,
            to_port,
            rate,
            delay,
            free_at: SimTime::ZERO,
            drop: Vec::new(),
            offered: z,
            lost: z,
            arrived: z,
            in_flight: z,
        }
    }
}

fn kind(f: &Frame) -> usize {
    matches!(f, Frame::Ack { .. }) as usize
}

impl World {
    /// The wire from node `a` to node `b`.
    pub fn wire(&mut self, a: usize, b: usize) -> &mut Wire {
        self.wires.iter_mut().find(|w| w.from == a && w.to == b).expect("no such wire")
    }

    pub fn request(&mut self, node: usize, call: u32, dest: u32) {
        let (now, mut out) = (self.now, std::mem::take(&mut self.out));
        self.ctrls[node].request_setup(now, CallId(call), EndpointId(dest), Descriptor(call), &mut self.adm, &mut out);
        self.apply(node, out);
    }

    pub fn release(&mut self, node: usize, call: u32) {
        let (now, mut out) = (self.now, std::mem::take(&mut self.out));
        assert!(self.ctrls[node].release(now, CallId(call), &mut self.adm, &mut out));
        self.apply(node, out);
    }

    /// Run until nothing is pending.
    pub fn run(&mut self) {
        while let Some(((t, _), ev)) = self.q.pop_first() {
            self.now = t;
            let mut out = std::mem::take(&mut self.out);
            let node = match ev {
                Ev::Frame { wire, frame } => {
                    let w = &mut self.wires[wire];
                    w.in_flight[kind(&frame)] -= 1;
                    w.arrived[kind(&frame)] += 1;
                    let (to, p) = (w.to, w.to_port);
                    self.ctrls[to].on_frame(t, p, frame, &mut out);
                    to
                }
                Ev::Timer { ctrl, timer } => {
                    self.ctrls[ctrl].on_timer(t, timer, &mut self.adm, &mut out);
                    ctrl
                }
            };
            self.apply(node, out);
        }
    }

    fn push(&mut self, at: SimTime, ev: Ev) {
        self.q.insert((at, self.seq), ev);
        self.seq += 1;
    }

    fn apply(&mut self, node: usize, mut out: Vec<Action>) {
        for a in out.drain(..) {
            match a {
                Action::Transmit { via, frame } => self.transmit(via.idx(), frame),
                Action::Arm { at, timer } => self.push(at, Ev::Timer { ctrl: node, timer }),
                Action::Install { in_link, in_vci, out_port, out_vci, .. } => {
                    assert!(self.table.insert((in_link.0, in_vci), (out_port.0, out_vci)).is_none());
                }
                Action::Remove { in_link, in_vci } => {
                    assert!(self.table.remove(&(in_link.0, in_vci)).is_some());
                }
                Action::Incoming { call, link, vci, .. } => {
                    assert!(self.bound.insert((link.0, vci), call).is_none());
                    self.results.push((self.now, a));
                }
                Action::Released { call, link, vci } => {
                    assert_eq!(self.bound.remove(&(link.0, vci)), Some(call));
                    self.results.push((self.now, a));
                }
                Action::Connected { .. } | Action::SetupFailed { .. } => self.results.push((self.now, a)),
            }
        }
        self.out = out;
    }

    fn transmit(&mut self, wire: usize, frame: Frame) {
        let now = self.now;
        let w = &mut self.wires[wire];
        let k = kind(&frame);
        let ordinal = w.offered[0] + w.offered[1];
        w.offered[k] += 1;
        if w.drop.contains(&ordinal) {
            w.lost[k] += 1;
            return;
        }
        w.free_at = w.free_at.max(now) + latency::tx(w.rate, frame.cells());
        w.in_flight[k] += 1;
        let at = w.free_at + w.delay;
        self.push(at, Ev::Frame { wire, frame });
    }

    /// The time of the first result matching `f`.
    pub fn when(&self, f: impl Fn(&Action) -> bool) -> SimTime {
        self.results.iter().find(|(_, a)| f(a)).map(|&(t, _)| t).expect("no such result")
    }

    pub fn connected_at(&self, call: u32) -> SimTime {
        self.when(|a| matches!(a, Action::Connected { call: c, .. } if c.0 == call))
    }

    /// Conservation on every wire, for data frames and ACKs, against both go-back-N ends.
    pub fn check_conservation(&self) {
        for (i, w) in self.wires.iter().enumerate() {
            for k in 0..2 {
                assert_eq!(w.offered[k], w.arrived[k] + w.lost[k] + w.in_flight[k], "wire {i} kind {k}");
            }
            let back = self.wires.iter().position(|x| x.from == w.to && x.to == w.from).unwrap();
            let p_from = self.wires[back].to_port;
            let (tx, rx) = (&self.ctrls[w.from], &self.ctrls[w.to]);
            let s = tx.sender(p_from).stats;
            assert_eq!(w.offered[0], s.sent + s.retransmitted, "wire {i}: data offered");
            assert_eq!(w.arrived[0], rx.receiver(w.to_port).frames_received(), "wire {i}: data arrived");
            assert_eq!(w.offered[1], tx.receiver(p_from).stats.acks_sent, "wire {i}: acks offered");
            assert_eq!(w.arrived[1], rx.sender(w.to_port).stats.acks, "wire {i}: acks arrived");
        }
    }

    /// Quiescent and empty: every message delivered once, nothing held anywhere.
    pub fn check_all_free(&self) {
        assert!(self.q.is_empty());
        assert!(self.table.is_empty(), "translation entries left: {:?}", self.table);
        assert!(self.bound.is_empty());
        for c in &self.ctrls {
            assert_eq!(c.calls_held(), 0, "controller {:?} holds calls", c.id());
            for p in 0..c.num_ports() {
                let p = PortIx(p as u32);
                assert_eq!((c.vcis_in_use(p), c.inbound_bound(p)), (0, 0));
                assert_eq!(c.sender(p).outstanding(), 0);
            }
        }
        for w in &self.wires {
            let sent = self.ctrls[w.from].sender(self.port_of(w)).stats.sent;
            assert_eq!(sent, self.ctrls[w.to].receiver(w.to_port).stats.delivered, "each message delivered once");
        }
        let (mut a, mut r) = (self.adm.admits.clone(), self.adm.releases.clone());
        a.sort();
        r.sort();
        assert_eq!(a, r, "every admit released");
    }

    fn port_of(&self, w: &Wire) -> PortIx {
        self.wires.iter().find(|x| x.from == w.to && x.to == w.from).unwrap().to_port
    }
}
