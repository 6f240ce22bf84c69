//! The assembled network and its event loop.
//!
//! Owns: [`Network`] (the cell fabric, hosts, connections and sources, and the layers' planes),
//! [`Engine`] (the event queue, the running instant, the instant's agenda of admissions and
//! the batching rule), the run loop, and the routing of events to the layer that handles
//! them. Events are grouped per layer ([`Ev`]); each layer has one
//! dispatch function (`on_atm`, `on_cpu`, …) in its own file:
//!
//! | file | events | what happens |
//! |---|---|---|
//! | `cells.rs` (the fabric itself: `atm::fabric`, with serving ahead and switches drained by their readers) | [`AtmEv`] `PortTx`, `Arrive`, `Shape`, `PortWake`, `Drain` | a port finished a cell (a port served ahead: its next cell that cannot wait, `atm::port`); the head cell of a link reaches a switch or a host (at a drained switch: a frame's end, which switches every arrival up to it); a shaper releases conforming cells; a non-work-conserving RCSP port's held cell becomes eligible; the periodic drain of a ring of drained switches |
//! | `abr.rs` | [`AtmEv`] `Abr` | an ABR end system sends its next cell at ACR; RM cells at end systems (turnaround, ACR); at switches the fabric meets the ports' allocators |
//! | `adapter.rs` | [`CpuEv`] `Done` | datagrams into AAL5 frames, and up from the frames the fabric reassembled; the host CPU finished a job; captures |
//! | `transport.rs` | [`TransportEv`] `Fast`, `Slow`, `Start`; [`AppEv`] `Timer` | TCP ticks and opens, application timers, conversation recycling |
//! | `sources.rs` | [`AppEv`] `Message` | cell sources hand frames to their adapter |
//! | `traffic.rs` | [`AppEv`] `Spawn` | traffic generators open conversations on pooled connections |
//! | `ip.rs` | [`IfaceEv`] `LineTx`, `LineArrive`, `DriverTimer`; [`AppEv`] `Udp` | IP output, forwarding and local delivery; serial lines and LANs; the IP-over-ATM driver's actions and timers; UDP flows |
//! | `signalling.rs` | [`SigEv`] `Timer`; control frames the fabric reassembled | controllers' messages as cells on the signalling VC, their timers; drivers' setups and releases |
//! | `probes.rs` | [`MeasureEv`] `Warm`, `Sample`, `VcCount` | end of warm-up, periodic probes, VCs in use counted each second |
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
mod cells;
mod ip;
mod probes;
pub mod qos;
mod sessions;
mod signalling;
mod sources;
mod traffic;
mod transport;

use crate::apps::cell_source::CellSource;
use crate::apps::generator::Generator;
use crate::apps::udp::UdpFlow;
use crate::apps::Conn;
pub use crate::atm::fabric::{AtmEv, CellCounts, Clock, Fabric, Up};
use crate::ids::{ConnId, NodeId, PortId, SourceId};
use crate::iface::ipoa::TimerToken;
use crate::iface::lan::Lan;
use crate::iface::pipe::PacketLine;
use crate::iface::serial::SerialLine;
use crate::iface::Iface;
use crate::ip::datagram::Datagrams;
use crate::ip::Host;
use crate::kernel::{rank, EventQueue, Ranked, Slots};
use crate::measure::Recorder;
use crate::pcap::Tap;
use crate::time::{SimDuration, SimTime};
use crate::transport::Payload;
pub use cells::Due;
pub use signalling::{SigCounts, SigNet};
use std::ops::ControlFlow;

/// Event kinds, grouped per layer; each layer has one dispatch function in its own file.
/// Ids only: an `Ev` is at most 16 bytes, so a queue entry stays 32 bytes (tested).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// Cells: `fabric/`.
    Atm(AtmEv),
    /// The host CPU: `adapter.rs`.
    Cpu(CpuEv),
    /// Packet-level interfaces and the IP-over-ATM driver: `ip.rs`.
    Iface(IfaceEv),
    /// TCP timers and opens: `transport.rs`.
    Transport(TransportEv),
    /// Application timers and cell-source messages: `transport.rs`, `sources.rs`.
    App(AppEv),
    /// Warm-up and probes: `probes.rs`.
    Measure(MeasureEv),
    /// Signalling controllers' timers: `signalling.rs`.
    Sig(SigEv),
}

/// The kinds of events in the order they run within an instant (module docs, "Simultaneous
/// events"). Kind 0 is the build's (kernel module docs, "Order").
pub mod kind {
    // 1. Probes: the state at t−.
    pub const WARM: u32 = 1;
    pub const SAMPLE: u32 = 2;
    pub const VC_COUNT: u32 = 3;
    // 2. Servers' completions.
    pub const PORT_TX: u32 = 4;
    pub const LINE_TX: u32 = 5;
    pub const CPU_DONE: u32 = 6;
    pub const PORT_WAKE: u32 = 7;
    // 3. Arrivals.
    pub const ARRIVE: u32 = 8;
    pub const LINE_ARRIVE: u32 = 9;
    pub const SHAPE: u32 = 10;
    pub const ABR: u32 = 11;
    // 4. Ports admit the instant's cells (no event: `Engine::admit_due`).
    pub const ADMIT: u32 = 12;
    // 5. Protocol and application timers.
    pub const TCP_START: u32 = 13;
    pub const TCP_FAST: u32 = 14;
    pub const TCP_SLOW: u32 = 15;
    pub const APP_TIMER: u32 = 16;
    pub const MESSAGE: u32 = 17;
    pub const UDP: u32 = 18;
    pub const SPAWN: u32 = 19;
    pub const THINK: u32 = 20;
    pub const DRIVER_TIMER: u32 = 21;
    pub const SIG_TIMER: u32 = 22;
    // 6. The periodic drain of drained switches (it sees only the past: any place would do).
    pub const DRAIN: u32 = 23;
}

impl Ranked for Ev {
    /// Kind, then the entity the event belongs to (module docs, "Simultaneous events").
    #[inline(always)]
    fn rank(&self) -> u32 {
        use kind::*;
        match *self {
            Ev::Atm(e) => match e {
                AtmEv::PortTx(p) => rank(PORT_TX, p.0),
                AtmEv::Arrive(l) => rank(ARRIVE, l.0),
                AtmEv::Shape(s) => rank(SHAPE, s),
                AtmEv::Abr(e) => rank(ABR, e),
                AtmEv::PortWake(p) => rank(PORT_WAKE, p.0),
                AtmEv::Drain => rank(DRAIN, 0),
            },
            Ev::Cpu(CpuEv::Done(h)) => rank(CPU_DONE, h.0),
            Ev::Iface(e) => match e {
                IfaceEv::LineTx(l) => rank(LINE_TX, l),
                IfaceEv::LineArrive(l) => rank(LINE_ARRIVE, l),
                IfaceEv::DriverTimer(slot) => rank(DRIVER_TIMER, slot),
            },
            Ev::Transport(e) => match e {
                TransportEv::Start(c) => rank(TCP_START, c.0),
                TransportEv::Fast(c, side, _) => rank(TCP_FAST, c.0 * 2 + side as u32),
                TransportEv::Slow(c, side, _) => rank(TCP_SLOW, c.0 * 2 + side as u32),
            },
            Ev::App(e) => match e {
                AppEv::Timer(c, _) => rank(APP_TIMER, c.0),
                AppEv::Message(s, _) => rank(MESSAGE, s.0),
                AppEv::Udp(f) => rank(UDP, f),
                AppEv::Spawn(g) => rank(SPAWN, g),
                AppEv::Think(s) => rank(THINK, s),
            },
            Ev::Measure(e) => match e {
                MeasureEv::Warm => rank(WARM, 0),
                MeasureEv::Sample => rank(SAMPLE, 0),
                MeasureEv::VcCount => rank(VC_COUNT, 0),
            },
            Ev::Sig(SigEv::Timer(slot)) => rank(SIG_TIMER, slot),
        }
    }
}

/// Events of the signalling plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigEv {
    /// A controller timer (slot in the signalling plane's timer table).
    Timer(u32),
}

/// Events of a host's CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuEv {
    /// The CPU of host `h` finished the job at the front of its queue.
    Done(NodeId),
}

/// Events of TCP. Ticks carry the generation of the endpoint pair that armed them: a tick
/// armed by an earlier conversation of the slot does nothing to the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportEv {
    /// 200 ms tick of endpoint `s` of connection `c`, generation `g`.
    Fast(ConnId, u8, u32),
    /// 500 ms tick.
    Slow(ConnId, u8, u32),
    /// Connection `c` opens (client SYN).
    Start(ConnId),
}

/// Events of the interfaces below IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfaceEv {
    /// Packet line `l` ([`Network::lines`]) finished serializing its front datagram.
    LineTx(u32),
    /// The datagram at the head of line `l`'s pipe reaches the far end.
    LineArrive(u32),
    /// A timer of an IP-over-ATM driver (slot in [`Network::driver_timers`]).
    DriverTimer(u32),
}

/// Events of applications.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEv {
    /// Application timer of slot `c`, generation `g` (TELNET keystrokes).
    Timer(ConnId, u32),
    /// Poisson source `s` hands a message of that many IP bytes to its adapter.
    Message(SourceId, u32),
    /// UDP flow `f` sends a datagram.
    Udp(u32),
    /// Traffic generator `g` opens a conversation.
    Spawn(u32),
    /// Session `s`'s think time is over (a browser's next page).
    Think(u32),
}

/// Measurement events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureEv {
    /// End of warm-up: counters are snapshotted.
    Warm,
    /// Periodic probe of queues and TCP state.
    Sample,
    /// Once a second: every IP-over-ATM driver counts its VCs in use (for the maximum).
    VcCount,
}

/// Longest wall-clock time between two progress reports of [`Network::run`].
pub const PROGRESS_WALL_PERIOD: std::time::Duration = std::time::Duration::from_millis(100);

/// Every this-many inline steps, batching hands one step back to the event queue.
pub const INLINE_RUN_MAX: u32 = 4096;

/// The running instant, the event queue, and the instant's agenda of admissions.
pub struct Engine {
    pub q: EventQueue<Ev>,
    pub now: SimTime,
    /// The end of the run (inclusive).
    pub until: SimTime,
    /// Serve ports ahead, drain switches and take servers' steps inline (module docs).
    pub batching: bool,
    /// Steps taken inline by batching (each would otherwise have been one event).
    pub inline_steps: u64,
    /// Inline steps left before batching hands one back to the queue ([`Engine::take_inline`]).
    pub inline_budget: u32,
    /// Queues (ATM ports, packet lines) holding arrivals of this instant, each with its place
    /// in the instant's order (a key prefix of kind [`kind::ADMIT`]): the run loop admits them
    /// there, before the first pending event that comes later (`cells.rs`, `admit_due_now`).
    pub admit_due: Vec<(u128, Due)>,
}

impl Engine {
    /// An engine at time zero with nothing pending.
    pub fn new(q: EventQueue<Ev>, until: SimTime, batching: bool) -> Self {
        Engine {
            q,
            now: SimTime::ZERO,
            until,
            batching,
            inline_steps: 0,
            inline_budget: INLINE_RUN_MAX,
            admit_due: Vec::new(),
        }
    }

    /// The batching rule (module docs): a server's next step `ev` at `t` is taken inline iff
    /// batching is on, it is the event the queue would deliver next, within the run, and no
    /// port's admission is due before it.
    /// If so, the clock moves to `t` and the caller loops instead of scheduling an event.
    ///
    /// Every [`INLINE_RUN_MAX`]-th step goes through the queue all the same (the same
    /// result: nothing else is pending before `t`), so that the run loop regains control
    /// and can report progress, and see an interrupt, even where one server could otherwise
    /// batch the whole run inside a single event.
    #[inline(always)]
    pub fn take_inline(&mut self, t: SimTime, ev: Ev) -> bool {
        if !self.batching || self.inline_budget == 0 || !self.admit_due.is_empty() {
            if self.batching {
                self.inline_budget = INLINE_RUN_MAX;
            }
            return false;
        }
        if self.q.enter_inline(t, ev.rank(), self.until) {
            self.inline_budget -= 1;
            self.now = t;
            self.inline_steps += 1;
            true
        } else {
            false
        }
    }

    /// Whether an event of the instant's arrival phase is still pending (DESIGN §2b): then a
    /// queue offered something now admits it at the instant's admission phase.
    #[inline(always)]
    pub fn arrivals_pending(&self) -> bool {
        self.q.pending_before(rank(kind::ADMIT, 0))
    }

    /// Queue `due` holds arrivals of this instant: it admits them at its place in the
    /// instant's admission phase.
    #[inline]
    pub fn admit_later(&mut self, due: Due) {
        let entity = match due {
            Due::Port(p) => p.0,
            Due::Line(l) => l,
        };
        let at = self.q.prefix_now(rank(kind::ADMIT, entity));
        self.admit_due.push((at, due));
    }
}

/// The engine as the cell fabric sees it.
impl Clock for Engine {
    #[inline(always)]
    fn now(&self) -> SimTime {
        self.now
    }

    #[inline(always)]
    fn set_now(&mut self, t: SimTime) {
        self.now = t;
    }

    #[inline(always)]
    fn running(&self) -> SimTime {
        self.q.running_time()
    }

    #[inline(always)]
    fn schedule(&mut self, at: SimTime, ev: AtmEv) {
        self.q.schedule(at, Ev::Atm(ev));
    }

    #[inline]
    fn release_place(&self, at: SimTime, s: u32, armed: SimTime) -> u128 {
        self.q.prefix_of(at, rank(kind::SHAPE, s), armed == self.q.running_time())
    }

    #[inline]
    fn running_place(&self) -> u128 {
        self.q.running_prefix()
    }

    #[inline(always)]
    fn take_inline(&mut self, t: SimTime, ev: AtmEv) -> bool {
        Engine::take_inline(self, t, Ev::Atm(ev))
    }

    #[inline(always)]
    fn arrivals_pending(&self) -> bool {
        Engine::arrivals_pending(self)
    }

    #[inline(always)]
    fn admit_later(&mut self, p: PortId) {
        Engine::admit_later(self, Due::Port(p))
    }
}

/// `ck!(self)`: the network's [`Engine`] as the fabric's [`Clock`], borrowed beside
/// `self.fabric`.
macro_rules! ck {
    ($net:expr) => {
        &mut $net.eng
    };
}
pub(crate) use ck;

/// The whole simulated system.
pub struct Network {
    /// Ports, links, switches, shapers and the cells in them (`atm::fabric`).
    pub fabric: Fabric,
    /// The spare buffer of [`Fabric::up`] while the network routes it (`cells.rs`).
    pub(crate) up_spare: Vec<Up>,
    /// The running instant and the event queue.
    pub eng: Engine,
    pub warmup: SimTime,
    pub sample_every: Option<SimDuration>,
    pub hosts: Vec<Host>,
    pub conns: Vec<Conn>,
    pub sources: Vec<CellSource>,
    /// Packet captures ([`crate::pcap`]); host `h` records into `taps[h.tap]`.
    pub taps: Vec<Tap>,
    /// IP datagrams in flight (CPU queues, packet lines, driver queues, AAL5 frames) and their ledger.
    pub datagrams: Datagrams<Payload>,
    pub rec: Recorder,
    /// Interfaces of all nodes ([`crate::iface`]).
    pub ifaces: Vec<Iface>,
    /// Packet-level lines: both directions of every serial line, and every LAN's medium.
    pub lines: Vec<PacketLine>,
    pub serial: Vec<SerialLine>,
    pub lans: Vec<Lan>,
    pub udp: Vec<UdpFlow>,
    /// Timers the IP-over-ATM drivers asked for, by slot.
    pub driver_timers: Slots<(NodeId, TimerToken)>,
    /// The signalling plane, if the scenario has one.
    pub sig: Option<Box<SigNet>>,
    /// Traffic generators; their conversations use `conns[fixed_conns..]`.
    pub gens: Vec<Generator>,
    /// Connection slots of the `[[tcp]]` sections (the rest are generators' pools).
    pub fixed_conns: usize,
    /// Pooled slots free for the next conversation.
    pub free_conns: Vec<u32>,
    /// Generated sessions (FTP sessions, browsers), by number; `None` once ended.
    pub sessions: Vec<Option<sessions::SessionSlot>>,
    /// The run's master seed (generated conversations derive their streams from it).
    pub seed: u64,
    /// ABR end systems, switch allocators and RM cells in flight ([`crate::abr::AbrPlane`]).
    pub abr: crate::abr::AbrPlane,
}

impl Network {
    /// Schedule the initial events. Called once by the builder.
    pub fn prime(&mut self) {
        for l in &mut self.lines {
            l.lazy = self.eng.batching;
        }
        for p in &mut self.fabric.ports {
            p.lazy = self.eng.batching;
            p.watch_ends = matches!(self.fabric.links[p.link.idx()].to, crate::atm::link::Sink::Host(_));
            p.notify = p.vcs.iter().any(|v| v.notify_source);
        }
        self.fabric.host_reasm = vec![Vec::new(); self.hosts.len()];
        if self.sig.is_some() {
            self.fabric.ctrl_reasm = vec![Default::default(); self.fabric.links.len()];
        }
        let may = self.eng.batching;
        self.fabric.prime_drained(ck!(self), may);
        for (i, sh) in self.fabric.shapers.list.iter_mut().enumerate() {
            let p = &mut self.fabric.ports[sh.port.idx()];
            // A host shaper whose port is served ahead, FIFO or round robin, with no source
            // waiting on frames, is released by the port; if the port watches frame ends, it
            // keeps an event for the first frame end its shapers hold (`atm::fabric::ahead`).
            let plain = !p.has_classes();
            if sh.kind != crate::atm::shaping::ShaperKind::Switch && p.lazy && plain && !p.notify {
                sh.lazy = true;
                p.shapers.push(i as u32);
            }
        }
        for c in 0..self.conns.len() {
            let t = self.conns[c].start;
            self.conns[c].ep[1].tcp.open_passive();
            self.eng.q.schedule(t, Ev::Transport(TransportEv::Start(ConnId(c as u32))));
        }
        for g in 0..self.gens.len() {
            let t = self.gens[g].start;
            self.eng.q.schedule(t, Ev::App(AppEv::Spawn(g as u32)));
        }
        for s in 0..self.sources.len() {
            let id = SourceId(s as u32);
            let first = self.sources[s].next_message().or_else(|| self.sources[s].pattern.next_burst());
            match first {
                // Poisson: the first message after its random gap; on/off: the first burst
                // after an off period.
                Some((gap, bytes)) => {
                    self.eng.q.schedule(SimTime::ZERO + gap, Ev::App(AppEv::Message(id, bytes)));
                }
                None => {
                    // Greedy: two frames queued from the start; one more per frame sent.
                    self.source_frame_left(id);
                    self.source_frame_left(id);
                }
            }
        }
        if self.sig.is_some() {
            self.eng.q.schedule(SimTime::ZERO + probes::VC_COUNT_PERIOD, Ev::Measure(MeasureEv::VcCount));
        }
        for f in 0..self.udp.len() {
            let t = self.udp[f].start;
            self.eng.q.schedule(t, Ev::App(AppEv::Udp(f as u32)));
        }
        self.abr_trace_start();
        if self.warmup > SimTime::ZERO {
            self.eng.q.schedule(self.warmup, Ev::Measure(MeasureEv::Warm));
        }
        if let Some(dt) = self.sample_every {
            self.eng.q.schedule(SimTime::ZERO + dt, Ev::Measure(MeasureEv::Sample));
        }
    }

    /// Run until `self.eng.until` (inclusive); `progress` gets the fraction done and may stop
    /// the run by returning `ControlFlow::Break` (then `run` returns false). A zero-delay loop
    /// (more than 255 generations of events at one instant: kernel module docs) stops the run
    /// too, within 1024 events, with `q.generation_overflow()` set.
    ///
    /// `progress` is called every 1/200 of the simulated time and, whatever simulated time
    /// does, at least every [`PROGRESS_WALL_PERIOD`] of wall-clock time: a caller that stops
    /// on Ctrl-C stops a run within that period even when simulated time stands still.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> ControlFlow<()>) -> bool {
        let total = self.eng.until.0.max(1) as f64;
        let step = (self.eng.until.0 / 200).max(1);
        let mut next_report = step;
        let mut last_report = std::time::Instant::now();
        let mut n: u32 = 0;
        loop {
            if !self.fabric.up.is_empty() {
                self.route_up();
            }
            if !self.eng.admit_due.is_empty() && self.admit_due_now() {
                continue;
            }
            let Some((t, ev)) = self.eng.q.pop() else { break };
            if t > self.eng.until {
                break;
            }
            self.eng.now = t;
            self.dispatch(ev);
            n = n.wrapping_add(1);
            if n & 1023 == 0 && self.eng.q.generation_overflow() {
                return false;
            }
            if self.eng.now.0 >= next_report || (n & 1023 == 0 && last_report.elapsed() >= PROGRESS_WALL_PERIOD) {
                if progress(self.eng.now.0 as f64 / total).is_break() {
                    return false;
                }
                if self.eng.now.0 >= next_report {
                    next_report = self.eng.now.0.saturating_add(step);
                }
                last_report = std::time::Instant::now();
            }
        }
        self.eng.now = self.eng.until;
        let until = self.eng.until;
        self.fabric.advance_all(ck!(self), until);
        self.route_up();
        self.drain_host_links();
        self.account_lost_datagrams();
        self.account_lost_messages();
        for p in &mut self.fabric.ports {
            p.finish(self.eng.until);
        }
        for l in &mut self.lines {
            l.finish(self.eng.until);
        }
        progress(1.0).is_continue()
    }

    /// The top-level loop only routes: each layer dispatches its own events. Inlined into
    /// the loop: a call per event costs ~4 % of a cell-bound run (measured).
    #[inline(always)]
    pub(super) fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Atm(e) => self.on_atm(e),
            Ev::Cpu(e) => self.on_cpu(e),
            Ev::Iface(e) => self.on_iface(e),
            Ev::Transport(e) => self.on_transport(e),
            Ev::App(e) => self.on_app(e),
            Ev::Measure(e) => self.on_measure(e),
            Ev::Sig(e) => self.on_sig(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::apps::App;
    use crate::transport::tcp::Segment;
    use crate::transport::Payload;
    use transport::next_grid;

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
        let App::Conv(a) = &net.conns[0].app else { panic!() };
        assert!(a.conversations_completed > 1, "conversations should recycle");
        let gen = net.conns[0].gen;
        assert!(gen as u64 >= a.conversations_completed);
        for side in 0..2u8 {
            let before = *net.conns[0].ep[side as usize].tcp.stats();
            let state = net.conns[0].ep[side as usize].tcp.state();
            let seg = Segment { flags: crate::transport::tcp::Flags::FIN, len: 100, ..Default::default() };
            let hdr = net.conns[0].ep[1 - side as usize].hdr;
            let payload = Payload::Tcp { conn: ConnId(0), side, gen: gen.wrapping_sub(1), seg };
            let d = net.datagrams.alloc(hdr, payload, 140, net.eng.now);
            net.deliver_tcp(d);
            assert_eq!(*net.conns[0].ep[side as usize].tcp.stats(), before);
            assert_eq!(net.conns[0].ep[side as usize].tcp.state(), state);
        }
        assert_eq!(net.conns[0].stale_segments, 2);
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
        let (h, port, vci) = (net.sources[2].host, net.sources[2].port, net.sources[2].vci);
        for i in 0..n {
            let bytes = if i % 2 == 0 { 40 } else { 60 }; // 1 and 2 cells
            let hdr = crate::header::PacketHeader::raw(h, net.sources[2].peer);
            let d = net.datagrams.alloc(hdr, Payload::Raw { source: 2 }, bytes, net.eng.now);
            assert!(net.send_ctrl_datagram(h, port, vci, d));
        }
        net.run(&mut |_| ControlFlow::Continue(()));
        net
    }

    fn assert_cells_conserved(net: &Network) {
        let c = &net.fabric.cells;
        assert_eq!(c.injected, c.delivered + c.dropped_in_network() + net.fabric.cells_in_flight(), "{c:?}");
        assert!(net.datagrams.balanced());
    }

    #[test]
    fn signalling_frames_overtake_a_congested_data_queue_end_to_end() {
        // 20 frames, 30 cells, reaching the switch at 10 ms: at T1 (276 µs a cell) they need
        // 8.3 ms of the bottleneck, and arrive by 20 ms; behind the 1000-cell data backlog in
        // one FIFO they would wait 276 ms.
        let net = run_ctrl_over_congestion(20, super::super::atm::port::DEFAULT_CTRL_BUFFER_CELLS);
        assert_eq!(net.sources[2].frames_rcvd, 20, "every signalling frame arrived within 30 ms");
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
        assert!(net.sources[2].frames_rcvd < 40);
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
        let src = &net.sources[1];
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
            let rcvd: Vec<_> = net.sources.iter().map(|s| s.frames_rcvd).collect();
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

    #[test]
    fn grid_points_are_strictly_after_now() {
        let ms = SimDuration::from_millis;
        assert_eq!(next_grid(SimTime(0), ms(100), ms(500)), SimTime(0) + ms(100));
        assert_eq!(next_grid(SimTime(0) + ms(100), ms(100), ms(500)), SimTime(0) + ms(600));
        assert_eq!(next_grid(SimTime(0) + ms(601), ms(100), ms(500)), SimTime(0) + ms(1100));
    }
}
