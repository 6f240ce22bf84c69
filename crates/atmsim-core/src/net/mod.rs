//! The assembled network: what each layer's state is, and the glue between the layers.
//!
//! Owns: [`Network`] (the cell fabric, hosts, connections and sources, and the layers'
//! planes). The engine ([`Engine`]: the event queue, the running instant, the instant's
//! agenda of admissions and the batching rule) is `engine.rs`; the events ([`Ev`], grouped
//! per layer, and their order within an instant) are `events.rs`; the run loop and the
//! dispatch of each event to its layer's file are `run.rs`. This file declares the network
//! and calls nothing, so the files below it never reach each other through it
//! (`tests/it/layers_call_down.rs` measures the rest).
//!
//! | file | events | what happens |
//! |---|---|---|
//! | `run.rs` | every [`Ev`]; [`AtmEv`] to the fabric | the loop; a port finished a cell (a port served ahead: its next cell that cannot wait, `atm::port`), a shaper releases conforming cells, a non-work-conserving RCSP port's held cell becomes eligible, the periodic drain of a ring of drained switches — all run by `atm::fabric`; the instant's admission phase of ports and packet lines |
//! | `cells.rs` | [`AtmEv`] `Arrive` | the head cell of a link reaches a switch or a host (at a drained switch: a frame's end, which switches every arrival up to it); drains of switches drained by their readers; a controller's cells offered to a port; what the fabric hands upward ([`Up`]) routed to its layer |
//! | `abr.rs` | [`AtmEv`] `Abr` | an ABR end system sends its next cell at ACR; RM cells at end systems (turnaround, ACR); at switches the fabric meets the ports' allocators |
//! | `adapter.rs` | [`CpuEv`] `Done` | datagrams into AAL5 frames; the host CPU finished a job |
//! | `captures.rs` | — | packet captures of what hosts send and receive |
//! | `transport.rs` | [`TransportEv`] `Fast`, `Slow`, `Start`; [`AppEv`] `Timer` | TCP ticks and opens, application timers, conversation recycling |
//! | `sources.rs` | [`AppEv`] `Message` | cell sources hand frames to their adapter |
//! | `traffic.rs`, `sessions.rs` | [`AppEv`] `Spawn`, `Think` | traffic generators open conversations on pooled connections; sessions and media conversations |
//! | `ip.rs` | [`IfaceEv`] `LineTx`, `LineArrive`, `DriverTimer`; [`AppEv`] `Udp` | IP input from a reassembled frame, output, forwarding and local delivery; serial lines and LANs; the IP-over-ATM driver's actions and timers; UDP flows |
//! | `signalling.rs` (state: `sig_plane.rs`; QoS rules: `qos.rs`) | [`SigEv`] `Timer`; control frames the fabric reassembled | controllers' messages as cells on the signalling VC, their timers; drivers' setups and releases; a VC's class at each port |
//! | `probes.rs` | [`MeasureEv`] `Warm`, `Sample`, `VcCount` | end of warm-up, periodic probes, VCs in use counted each second |
//!
//! **The glue calls down.** The files call only files below them, in this order: `cells.rs`,
//! `captures.rs`, `abr.rs`, `adapter.rs`, `signalling.rs`, `ip.rs`, `sources.rs`,
//! `transport.rs`, `traffic.rs`, `sessions.rs`, `probes.rs`, and `run.rs` at the top. What a
//! lower file must hand upward at once — a frame completed while a switch drains, a
//! controller's answer to a driver, a segment the host CPU has processed, a slot's news for
//! its session, a generator's new session — goes through a trait the lower file declares
//! (`FabricUp`, `DriverUp`, `SegmentUp`, `SlotUp`, `SessionUp`), which `run.rs` implements
//! by calling the layer above: the router is the one place that knows who hears what
//! (`tests/it/layers_call_down.rs` checks both). The order of the calls is the one the model
//! needs: an upcall runs where it is made, as a direct call would.
//!
//! **Simultaneous events (DESIGN §2b).** Within an instant the model orders events by kind
//! ([`kind`]), then by the index of the entity they belong to, in causal generations (kernel
//! module docs, "Order"); the engine's insertion sequence decides nothing that interacts:
//!
//! 1. *Probes* (`Warm`, `Sample`, `VcCount`) see the state as it is at the instant, before any
//!    of its events (the left limit, t−).
//! 2. *Servers' completions* (`PortTx`, `LineTx`, CPU `Done`, RCSP `PortWake`): at every queue
//!    the departing cell or packet leaves and frees its place, and the next one starts, before
//!    anything arrives at that instant.
//! 3. *Arrivals* (`Arrive` of a cell at a link's end, `LineArrive`, a re-shaper's or an ABR
//!    source's release). Cells for one ATM output port at one instant are not queued yet: the
//!    port collects them with their input and admits them in step 4.
//! 4. *Admission*: each ATM port takes the instant's cells, and each packet line the instant's
//!    datagrams, in the round-robin order of their inputs ([`crate::arbiter`]): no input is
//!    favoured by its index. It
//!    costs no event: the run loop admits them at their place in the instant's order, before
//!    the first pending event that comes later ([`Engine::admit_due`]). A port with a single
//!    arrival and nothing else pending in the instant's arrival phase admits it at once (the
//!    same result).
//! 5. *Protocol and application timers* (TCP opens and ticks, application timers, messages of
//!    cell sources, UDP flows, generators, sessions, the IP-over-ATM driver's and the
//!    signalling controllers' timers): after the instant's arrivals, so a segment or message
//!    that arrives at the instant a timer expires is seen first (an ACK arriving as the
//!    retransmission timer fires cancels the retransmission, as in BSD where input runs at a
//!    higher interrupt priority than the clock's soft interrupt).
//!
//! Packet lines (IP output queues on serial lines, LAN media) admit an instant's datagrams the
//! same way, through their own arbiter (`ip.rs`, `line_push`). Within a kind, events of
//! different entities at one instant run in entity-index order: where they meet at a host CPU,
//! that index decides which job enters first (`crate::ip::cpu`).
//!
//! **Batching.** A port that finishes a cell and has another, and a link whose next cell
//! arrives, take that next step inline when it is the event the queue would deliver next
//! ([`Engine::take_inline`], [`crate::kernel::EventQueue::enter_inline`]); FIFO and round-robin ports are served ahead
//! (`atm::port` module docs), and a switch whose ports all are is drained by its readers
//! (`atm::fabric::drained`): its arrivals are switched, each at its own instant and in the order
//! above, when something reads one of its ports. Packet lines are served ahead too: a
//! datagram's end of serialization takes no event (`iface::pipe`). The results are identical
//! with batching off (tested on every shipped scenario), only faster.

mod abr;
mod adapter;
mod captures;
mod cells;
mod engine;
mod events;
mod ip;
mod probes;
pub mod qos;
mod run;
mod sessions;
mod sig_plane;
mod signalling;
mod sources;
mod traffic;
mod transport;

pub(crate) use engine::ck;
pub use engine::{Due, Engine, INLINE_RUN_MAX, PROGRESS_WALL_PERIOD};
pub use events::{kind, AppEv, CpuEv, Ev, IfaceEv, MeasureEv, SigEv, TransportEv};
pub use sig_plane::{SigCounts, SigNet};

use crate::apps::Workload;
pub use crate::atm::fabric::{AtmEv, CellCounts, Clock, Fabric, Up};
use crate::iface::Interfaces;
use crate::ip::IpLayer;
use crate::measure::Measurement;
use crate::transport::socket::SocketTable;
use crate::transport::Payload;

/// The whole simulated system: each layer's state, owned by the layer's own type. The
/// network routes between them while it runs; afterwards the summary reads them through
/// the read-only view below ([`Network::fabric`] and the methods beside it).
pub struct Network {
    /// Ports, links, switches, shapers and the cells in them (`atm::fabric`).
    fabric: Fabric,
    /// The spare buffer of [`Fabric::up`] while the network routes it (`run.rs`).
    up_spare: Vec<Up>,
    /// The running instant and the event queue.
    eng: Engine,
    /// ABR end systems, switch allocators and RM cells in flight ([`crate::abr::AbrPlane`]).
    abr: crate::abr::AbrPlane,
    /// The signalling plane, if the scenario has one.
    sig: Option<Box<SigNet>>,
    /// Every node's interfaces, the packet lines and the drivers' timers.
    iface: Interfaces,
    /// The nodes and the datagrams in flight.
    ip: IpLayer<Payload>,
    /// Every host's sockets (TCP endpoints and UDP receivers).
    sockets: SocketTable,
    /// Connection slots, applications, generators, sessions, UDP flows and cell sources.
    apps: Workload,
    /// Warm-up, probes and captures.
    measure: Measurement,
}

/// The layers a network is assembled from (`crate::scenario::build`).
pub struct Layers {
    pub fabric: Fabric,
    pub eng: Engine,
    pub abr: crate::abr::AbrPlane,
    pub sig: Option<Box<SigNet>>,
    pub iface: Interfaces,
    pub ip: IpLayer<Payload>,
    pub sockets: SocketTable,
    pub apps: Workload,
    pub measure: Measurement,
}

impl Network {
    /// The network of these layers, its first events not scheduled yet ([`Network::prime`]).
    pub fn new(layers: Layers) -> Network {
        let Layers { fabric, eng, abr, sig, iface, ip, sockets, apps, measure } = layers;
        Network { fabric, up_spare: Vec::new(), eng, abr, sig, iface, ip, sockets, apps, measure }
    }

    /// The cell fabric.
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }

    /// The engine: the running instant, the event queue and the run's end.
    pub fn engine(&self) -> &Engine {
        &self.eng
    }

    /// The ABR plane.
    pub fn abr(&self) -> &crate::abr::AbrPlane {
        &self.abr
    }

    /// The signalling plane, if the scenario has one.
    pub fn sig(&self) -> Option<&SigNet> {
        self.sig.as_deref()
    }

    /// Every node's interfaces and the packet lines.
    pub fn iface(&self) -> &Interfaces {
        &self.iface
    }

    /// The nodes and the datagrams in flight.
    pub fn ip(&self) -> &IpLayer<Payload> {
        &self.ip
    }

    /// The workload: connection slots, generators, sessions, flows and sources.
    pub fn apps(&self) -> &Workload {
        &self.apps
    }

    /// The warm-up, the probes and the captures.
    pub fn measure(&self) -> &Measurement {
        &self.measure
    }

    /// The recorded time series, taken out of the network (after the run).
    pub fn take_series(&mut self) -> crate::measure::Series {
        self.measure.take_series()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::fabric::Clock;
    use crate::ids::{ConnId, NodeId, PortId, SourceId};
    use crate::kernel::EventQueue;
    use crate::time::{SimDuration, SimTime};
    use std::ops::ControlFlow;

    use crate::apps::App;
    use crate::transport::tcp::Segment;
    use crate::transport::Payload;

    /// A segment of an earlier generation is counted and dropped: the current endpoint
    /// never sees it. (Under the default rules such segments are rare — the slot recycles
    /// only when the server has the final ACK — so the mechanism is tested directly.)
    #[test]
    fn the_engine_tells_the_fabric_where_an_instants_shaper_releases_fall() {
        // A frame queued at the instant of a lazy shaper release goes in before the release
        // if the event queuing it comes earlier in the instant (a CPU finishing a job), after
        // it otherwise (a TCP timer, a cell source's message): `atm::fabric::ahead`. A release
        // armed during the instant by an event after the releases' kind falls in the next
        // generation, after every event still pending for the instant.
        let t = SimTime::ZERO + SimDuration::from_ps(5);
        let cases = [
            (Ev::Cpu(CpuEv::Done(NodeId(3))), false),
            (Ev::Atm(AtmEv::Arrive(crate::ids::LinkId(1))), false),
            (Ev::Atm(AtmEv::Shape(0)), true),
            (Ev::Atm(AtmEv::Shape(1)), true),
            (Ev::Transport(TransportEv::Fast(ConnId(0), 0, 0)), true),
            (Ev::App(AppEv::Message(SourceId(2), 100)), true),
        ];
        for (ev, reached) in cases {
            let mut eng = Engine::new(EventQueue::new(), SimTime::MAX, true);
            eng.q.schedule(t, ev);
            let (at, popped) = eng.q.pop().expect("one event");
            eng.now = at;
            assert_eq!(popped, ev);
            // Shaper 0 armed at an earlier instant for this one.
            let place = eng.release_place(t, 0, SimTime::ZERO);
            assert_eq!(place <= eng.running_place(), reached, "{ev:?}");
        }
        // Armed now by a TCP timer (after the releases' kind): the next generation, so a cell
        // source's message still pending for this instant comes first. Armed now by a CPU
        // (before the releases' kind): this generation, at its place, before the message.
        let timer = Ev::Transport(TransportEv::Fast(ConnId(0), 0, 0));
        for (armed_by, release_first) in [(timer, false), (Ev::Cpu(CpuEv::Done(NodeId(3))), true)] {
            let mut eng = Engine::new(EventQueue::new(), SimTime::MAX, true);
            eng.q.schedule(t, armed_by);
            eng.q.schedule(t, Ev::App(AppEv::Message(SourceId(2), 100)));
            let (at, _) = eng.q.pop().expect("the arming event");
            eng.now = at;
            let place = eng.release_place(t, 0, t);
            assert!(place > eng.running_place());
            eng.q.pop().expect("the message");
            assert_eq!(place <= eng.running_place(), release_first, "armed by {armed_by:?}");
        }
    }

    #[test]
    fn the_engine_takes_a_step_inline_only_when_nothing_else_comes_first() {
        // The batching rule (module docs, `Engine::take_inline`): on, the step is the next
        // event the queue would deliver, within the run, and no admission is due.
        let t = |ps| SimTime::ZERO + SimDuration::from_ps(ps);
        let step = AtmEv::PortTx(PortId(0));
        let mut off = Engine::new(EventQueue::new(), t(100), false);
        assert!(!Clock::take_inline(&mut off, t(5), step), "batching off");
        let mut eng = Engine::new(EventQueue::new(), t(100), true);
        assert!(Clock::take_inline(&mut eng, t(5), step));
        assert_eq!((eng.now, eng.inline_steps), (t(5), 1));
        assert!(!Clock::take_inline(&mut eng, t(101), step), "beyond the run");
        eng.q.schedule(t(7), Ev::Cpu(CpuEv::Done(NodeId(0))));
        assert!(!Clock::take_inline(&mut eng, t(9), step), "an event comes first");
        assert!(Clock::take_inline(&mut eng, t(6), step));
        // An arrival pending at this instant: a queue offered something admits it later, and
        // no step is taken inline while that admission is due.
        let (at, ev) = eng.q.pop().expect("the CPU event");
        eng.now = at;
        assert_eq!(ev, Ev::Cpu(CpuEv::Done(NodeId(0))));
        eng.q.schedule(at, Ev::Atm(AtmEv::Arrive(crate::ids::LinkId(0))));
        assert!(Clock::arrivals_pending(&eng));
        Clock::admit_later(&mut eng, PortId(3));
        assert_eq!(eng.admit_due.len(), 1);
        assert!(!Clock::take_inline(&mut eng, t(8), step), "an admission is due");
    }

    #[test]
    fn a_stale_segment_is_dropped_on_delivery() {
        let text = r#"
[simulation]
duration_s = 30.0
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
a = "a"
b = "b"
rate_bps = 1500000
delay_ms = 10.0
[[vc]]
name = "v"
path = ["a", "b"]
[[tcp]]
name = "s"
client = "a"
server = "b"
mss_bytes = 512
app = { kind = "smtp" }
"#;
        let doc = crate::scenario::parse(text, crate::scenario::Format::Toml, "t").unwrap();
        let mut net = crate::scenario::build(&doc, None, None).unwrap();
        net.run(&mut |_| ControlFlow::Continue(()));
        let c = ConnId(0);
        let App::Conv(a) = net.apps.slot(c).app() else { panic!() };
        assert!(a.conversations_completed > 1, "conversations should recycle");
        let gen = net.apps.slot(c).gen();
        assert!(gen as u64 >= a.conversations_completed);
        for side in 0..2u8 {
            let tcp = |net: &Network| {
                let t = net.apps.slot(c).endpoint(side as usize).tcp();
                (*t.stats(), t.state())
            };
            let before = tcp(&net);
            let seg = Segment { flags: crate::transport::tcp::Flags::FIN, len: 100, ..Default::default() };
            let hdr = *net.apps.slot(c).endpoint(1 - side as usize).hdr();
            let payload = Payload::Tcp { conn: c, side, gen: gen.wrapping_sub(1), seg };
            let d = net.ip.datagrams.alloc(hdr, payload, 140, net.eng.now);
            net.deliver_tcp(d);
            assert_eq!(tcp(&net), before);
        }
        assert_eq!(net.apps.slot(c).stale_segments(), 2);
    }

    /// A congested T1 switch port (1000-cell data buffer, full within 2 ms: two greedy OC-3c
    /// sources) and a signalling VC from `s` to `b`, 10 ms away from the switch so that its
    /// cells meet the full backlog; its own cell source is all but silent (one cell a second).
    const CTRL_OVER_CONGESTION: &str = r#"
[simulation]
duration_s = 0.03
[[host]]
name = "a"
[[host]]
name = "c"
[[host]]
name = "b"
[[host]]
name = "s"
[[switch]]
name = "sw"
buffer_cells = 1000
[[link]]
a = "a"
b = "sw"
preset = "oc3c"
delay_ms = 1.0
[[link]]
a = "c"
b = "sw"
preset = "oc3c"
delay_ms = 1.0
[[link]]
a = "sw"
b = "b"
preset = "t1"
delay_ms = 1.0
[[link]]
a = "s"
b = "sw"
preset = "oc3c"
delay_ms = 10.0
[[vc]]
name = "va"
path = ["a", "sw", "b"]
[[vc]]
name = "vc"
path = ["c", "sw", "b"]
[[vc]]
name = "sig"
path = ["s", "sw", "b"]
[[cell_source]]
name = "ga"
vc = "va"
from = "a"
kind = "greedy"
[[cell_source]]
name = "gc"
vc = "vc"
from = "c"
kind = "greedy"
[[cell_source]]
name = "sig"
vc = "sig"
from = "s"
kind = "poisson"
load_bps = 424
"#;

    /// Run [`CTRL_OVER_CONGESTION`] with `n` control frames of 1 and 2 cells (alternately)
    /// sent from `s` at time 0, and the switch's control FIFOs set to `ctrl_cells`.
    fn run_ctrl_over_congestion(n: u32, ctrl_cells: u32) -> Network {
        let doc = crate::scenario::parse(CTRL_OVER_CONGESTION, crate::scenario::Format::Toml, "t").unwrap();
        let mut net = crate::scenario::build(&doc, None, None).unwrap();
        let sw_port = net.fabric.ports.iter().position(|p| p.name == "sw->b").unwrap();
        net.fabric.ports[sw_port].ctrl_limit = ctrl_cells;
        let (h, port, vci) = (net.apps.sources[2].host, net.apps.sources[2].port, net.apps.sources[2].vci);
        for i in 0..n {
            let bytes = if i % 2 == 0 { 40 } else { 60 }; // 1 and 2 cells
            let hdr = crate::header::PacketHeader::raw(h, net.apps.sources[2].peer);
            let d = net.ip.datagrams.alloc(hdr, Payload::Raw { source: 2 }, bytes, net.eng.now);
            assert!(net.send_ctrl_datagram(h, port, vci, d));
        }
        net.run(&mut |_| ControlFlow::Continue(()));
        net
    }

    fn assert_cells_conserved(net: &Network) {
        let c = &net.fabric.cells;
        assert_eq!(c.injected, c.delivered + c.dropped_in_network() + net.fabric.cells_in_flight(), "{c:?}");
        assert!(net.ip.datagrams.balanced());
    }

    #[test]
    fn signalling_frames_overtake_a_congested_data_queue_end_to_end() {
        // 20 frames, 30 cells, reaching the switch at 10 ms: at T1 (276 µs a cell) they need
        // 8.3 ms of the bottleneck, and arrive by 20 ms; behind the 1000-cell data backlog in
        // one FIFO they would wait 276 ms.
        let net = run_ctrl_over_congestion(20, super::super::atm::port::DEFAULT_CTRL_BUFFER_CELLS);
        assert_eq!(net.apps.sources[2].frames_rcvd, 20, "every signalling frame arrived within 30 ms");
        assert!(net.fabric.cells.dropped_tail > 0, "the data queue overflowed");
        assert_eq!(net.fabric.cells.dropped_ctrl, 0);
        let sw = net.fabric.ports.iter().find(|p| p.name == "sw->b").unwrap();
        assert!(sw.occupancy >= 990, "data backlog still (nearly) full at the end: {}", sw.occupancy);
        assert_eq!(sw.stats.ctrl_in, 30);
        assert_cells_conserved(&net);
    }

    #[test]
    fn control_cells_dropped_at_a_switch_are_counted_in_the_ledger() {
        // OC-3c in, T1 out: back-to-back control cells pile up at the switch; a 1-cell control
        // FIFO drops most of them.
        let net = run_ctrl_over_congestion(40, 1);
        let sw = net.fabric.ports.iter().find(|p| p.name == "sw->b").unwrap();
        assert!(net.fabric.cells.dropped_ctrl > 0);
        assert_eq!(net.fabric.cells.dropped_ctrl, sw.stats.dropped_ctrl);
        assert!(net.apps.sources[2].frames_rcvd < 40);
        assert_cells_conserved(&net);
    }

    /// [`CTRL_OVER_CONGESTION`] with the switch under RCSP, VC `va` all but silent, and VC `vc`
    /// at level 1 with a traffic spec far below its greedy source (X_min 2 ms, X_ave 4 ms,
    /// I 40 ms: at most 10 cells in any 40 ms, and 500 cells of regulator queue).
    fn run_rcsp(discipline: &str) -> (Network, u64) {
        let text = CTRL_OVER_CONGESTION
            .replace("buffer_cells = 1000", &format!("buffer_cells = 1000\nscheduler = \"{discipline}\""))
            .replacen("kind = \"greedy\"", "kind = \"poisson\"\nload_bps = 424", 1);
        let doc = crate::scenario::parse(&text, crate::scenario::Format::Toml, "t").unwrap();
        let mut net = crate::scenario::build(&doc, None, None).unwrap();
        let src = &net.apps.sources[1];
        let route = net.fabric.links[net.fabric.ports[src.port.idx()].link.idx()].route(src.vci).unwrap();
        let ms = SimDuration::from_millis;
        let spec = crate::atm::regulator::TrafficSpec::new(ms(2), ms(4), ms(40)).unwrap();
        let class = crate::atm::priority::VcClass { level: 1, spec: Some(spec) };
        net.fabric.ports[route.port.idx()].set_vc_class(route.vci, class).unwrap();
        net.run(&mut |_| ControlFlow::Continue(()));
        let tx = net.fabric.ports[route.port.idx()].stats.cells_tx;
        (net, tx)
    }

    /// A QoS port whose VCs have no class serves them as FIFO does (signalling first, data in
    /// arrival order): the same cells, drops and deliveries.
    #[test]
    fn qos_ports_without_classes_behave_as_fifo() {
        let run = |discipline: &str| {
            let text = CTRL_OVER_CONGESTION
                .replace("buffer_cells = 1000", &format!("buffer_cells = 1000\nscheduler = \"{discipline}\""));
            let doc = crate::scenario::parse(&text, crate::scenario::Format::Toml, "t").unwrap();
            let mut net = crate::scenario::build(&doc, None, None).unwrap();
            net.run(&mut |_| ControlFlow::Continue(()));
            let ports: Vec<_> = net.fabric.ports.iter().map(|p| p.stats).collect();
            let rcvd: Vec<_> = net.apps.sources.iter().map(|s| s.frames_rcvd).collect();
            (net.fabric.cells, ports, rcvd, net.fabric.cell_hops)
        };
        let fifo = run("fifo");
        for d in ["static_priority", "rcsp_wc", "rcsp_nwc"] {
            assert!(fifo == run(d), "{d}");
        }
    }

    #[test]
    fn rcsp_ports_hold_regulated_cells_wake_for_them_and_keep_the_ledger() {
        let (wc, wc_tx) = run_rcsp("rcsp_wc");
        let (nwc, nwc_tx) = run_rcsp("rcsp_nwc");
        for net in [&wc, &nwc] {
            let sw = net.fabric.ports.iter().find(|p| p.name == "sw->b").unwrap();
            assert!(sw.stats.drop_regulator > 0, "500 cells of regulator queue overflowed");
            assert_eq!(net.fabric.cells.dropped_regulator, sw.stats.drop_regulator);
            assert_cells_conserved(net);
        }
        // The same offered load: wc keeps the link busy with early cells; nwc sends the 10 cells
        // its regulator allows from 2 ms on, 2 ms apart, each on a wake-up, and idles between.
        assert!(wc_tx > 90, "wc: {wc_tx}");
        assert!((9..=11).contains(&nwc_tx), "nwc: {nwc_tx}");
        let sw = nwc.fabric.ports.iter().find(|p| p.name == "sw->b").unwrap();
        let held = match &sw.sched {
            crate::atm::sched::Scheduler::Priority(p) => p.regulated_cells(),
            _ => unreachable!(),
        };
        assert!(held > 400, "held cells at the end: {held}");
        assert!(sw.queued_cells() >= held as u64, "held cells are in flight in the ledger");
    }

    #[test]
    fn grouping_events_per_layer_costs_no_queue_memory() {
        // A queue entry is a u128 key (16-byte aligned) and the event: 32 bytes for any event
        // of at most 16 bytes, as for the 12-byte flat enum the grouped one replaced.
        assert!(std::mem::size_of::<Ev>() <= 16);
    }
}
