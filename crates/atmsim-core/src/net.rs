//! The assembled network and its event loop.
//!
//! Owns: [`Network`] (the arenas of ports, links, switches, hosts, connections and sources,
//! the frame table and the event queue) and the dispatch of every event kind:
//!
//! | event | what happens |
//! |---|---|
//! | `PortTx(p)` | port `p` finished a cell: it enters the link; the next cell starts |
//! | `Arrive(l)` | the head cell of link `l` reaches the far end: switch or host |
//! | `Fast(c,s,g)`, `Slow(c,s,g)` | 200 ms / 500 ms TCP tick of endpoint `s` of connection `c`, generation `g` |
//! | `Start(c)` | connection `c` opens (client SYN) |
//! | `App(c,g)` | application timer of slot `c`, generation `g` (TELNET keystrokes) |
//! | `AccessTx(c,s,d)` | the access link of endpoint `s` of `c` finished serializing a datagram in direction `d` (0 = towards the adapter, 1 = towards the endpoint) |
//! | `AccessArrive(c,s,d)` | that datagram reaches the far end of the access link |
//! | `Shape(s)` | shaper `s` releases the cells that conform now into its adapter ([`crate::atm::shaping`]) |
//! | `Warm` | end of warm-up: counters are snapshotted |
//! | `Sample` | periodic probe of queues and TCP state |
//!
//! **Batching.** A port that finishes a cell and has another, and a link whose next cell
//! arrives, take that next step inline when it falls strictly before every pending event
//! ([`crate::kernel::EventQueue::horizon`]); the results are identical with batching off
//! (tested), only faster.

use crate::apps::cell_source::{CellSource, Pattern};
use crate::apps::conversation::Actions;
use crate::atm::aal5::{Frames, Reassembled};
use crate::atm::cell::Cell;
use crate::atm::link::{Link, Sink};
use crate::atm::port::{DropReason, OutPort};
use crate::atm::shaping::{ShaperKind, Shapers};
use crate::atm::switch::Switch;
use crate::ids::{ConnId, DatagramId, HostId, LinkId, PortId, SourceId};
use crate::ip::cpu::Dir;
use crate::ip::datagram::{Datagrams, Payload};
use crate::ip::{App, Conn, Host};
use crate::kernel::EventQueue;
use crate::measure::Recorder;
use crate::pcap::{self, Capture, Packet, Tap};
use crate::rng::Rng;
use crate::tcp::{State, TcpConn};
use crate::time::{SimDuration, SimTime};
use std::ops::ControlFlow;

/// Event kinds: ids only, 12 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    PortTx(PortId),
    Arrive(LinkId),
    /// Timer ticks carry the generation of the endpoint pair that armed them: a tick armed by
    /// an earlier conversation of the slot does nothing to the current one.
    Fast(ConnId, u8, u32),
    Slow(ConnId, u8, u32),
    Start(ConnId),
    App(ConnId, u32),
    AccessTx(ConnId, u8, u8),
    AccessArrive(ConnId, u8, u8),
    /// Poisson source `s` hands a message of that many IP bytes to its adapter.
    Message(SourceId, u32),
    /// The receive CPU of a host finished the segment at the front of its queue.
    CpuDone(HostId),
    /// Shaper release (index into `Network::shapers.list`).
    Shape(u32),
    Warm,
    Sample,
}

/// Longest wall-clock time between two progress reports of [`Network::run`].
pub const PROGRESS_WALL_PERIOD: std::time::Duration = std::time::Duration::from_millis(100);

/// Every this-many inline steps, batching hands one step back to the event queue.
pub const INLINE_RUN_MAX: u32 = 4096;

/// Network-wide cell counters (conservation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellCounts {
    /// Cells queued at host adapters (entered the network).
    pub injected: u64,
    /// Cells that reached their destination host's reassembler.
    pub delivered: u64,
    pub dropped_tail: u64,
    pub dropped_ppd: u64,
    pub dropped_epd: u64,
    pub dropped_no_route: u64,
    /// CLP=1 cells dropped at a switch's CLP=1 threshold.
    pub dropped_clp1: u64,
    /// Non-conforming cells discarded by a policer.
    pub dropped_police: u64,
    /// Cells that found a switch re-shaper's buffer full.
    pub dropped_reshape: u64,
    /// Cells of frames refused whole by a host adapter (never injected).
    pub refused_at_host: u64,
}

impl CellCounts {
    pub fn dropped_in_network(&self) -> u64 {
        self.dropped_tail
            + self.dropped_ppd
            + self.dropped_epd
            + self.dropped_no_route
            + self.dropped_clp1
            + self.dropped_police
            + self.dropped_reshape
    }
}

/// The whole simulated system.
pub struct Network {
    pub q: EventQueue<Ev>,
    pub now: SimTime,
    pub until: SimTime,
    pub warmup: SimTime,
    pub batching: bool,
    pub sample_every: Option<SimDuration>,
    pub ports: Vec<OutPort>,
    pub links: Vec<Link>,
    pub switches: Vec<Switch>,
    pub hosts: Vec<Host>,
    pub conns: Vec<Conn>,
    pub sources: Vec<CellSource>,
    /// Packet captures ([`crate::pcap`]); host `h` records into `taps[h.tap]`.
    pub taps: Vec<Tap>,
    pub frames: Frames,
    /// IP datagrams in flight (CPU queues, access links, AAL5 frames) and their ledger.
    pub datagrams: Datagrams,
    /// Shapers and pacing at host adapters, re-shapers and policers at switch inputs.
    pub shapers: Shapers,
    pub cells: CellCounts,
    pub rec: Recorder,
    /// Cell transmissions completed by all ports (one per cell per hop).
    pub cell_hops: u64,
    /// Steps taken inline by batching (each would otherwise have been one event).
    pub inline_steps: u64,
    /// Inline steps left before batching hands one back to the queue ([`Network::take_inline`]).
    pub inline_budget: u32,
    /// Reused buffer for cells a switch re-shaper releases at once.
    pub scratch_cells: Vec<Cell>,
}

impl Network {
    /// Schedule the initial events. Called once by the builder.
    pub fn prime(&mut self) {
        for c in 0..self.conns.len() {
            let t = self.conns[c].start;
            self.conns[c].ep[1].tcp.open_passive();
            self.q.schedule(t, Ev::Start(ConnId(c as u32)));
        }
        for s in 0..self.sources.len() {
            // Two frames queued from the start; one more per frame sent.
            let id = SourceId(s as u32);
            match self.sources[s].next_message() {
                // Poisson: the first message after its random gap.
                Some((gap, bytes)) => {
                    self.q.schedule(SimTime::ZERO + gap, Ev::Message(id, bytes));
                }
                None => {
                    // Greedy: two frames queued from the start; one more per frame sent.
                    self.greedy_refill(id);
                    self.greedy_refill(id);
                }
            }
        }
        if self.warmup > SimTime::ZERO {
            self.q.schedule(self.warmup, Ev::Warm);
        }
        if let Some(dt) = self.sample_every {
            self.q.schedule(SimTime::ZERO + dt, Ev::Sample);
        }
    }

    /// Run until `self.until` (inclusive); `progress` gets the fraction done and may stop
    /// the run by returning `ControlFlow::Break` (then `run` returns false).
    ///
    /// `progress` is called every 1/200 of the simulated time and, whatever simulated time
    /// does, at least every [`PROGRESS_WALL_PERIOD`] of wall-clock time: a caller that stops
    /// on Ctrl-C stops a run within that period even when simulated time stands still.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> ControlFlow<()>) -> bool {
        let total = self.until.0.max(1) as f64;
        let step = (self.until.0 / 200).max(1);
        let mut next_report = step;
        let mut last_report = std::time::Instant::now();
        let mut n: u32 = 0;
        while let Some((t, ev)) = self.q.pop() {
            if t > self.until {
                break;
            }
            self.now = t;
            self.dispatch(ev);
            n = n.wrapping_add(1);
            if n & 1023 == 0 && (self.now.0 >= next_report || last_report.elapsed() >= PROGRESS_WALL_PERIOD) {
                if progress(self.now.0 as f64 / total).is_break() {
                    return false;
                }
                if self.now.0 >= next_report {
                    next_report = self.now.0.saturating_add(step);
                }
                last_report = std::time::Instant::now();
            }
        }
        self.now = self.until;
        self.drain_host_links();
        self.account_lost_datagrams();
        for p in &mut self.ports {
            p.finish(self.until);
        }
        progress(1.0).is_continue()
    }

    #[inline]
    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::PortTx(p) => self.port_tx_done(p),
            Ev::Arrive(l) => self.link_arrive(l),
            Ev::Fast(c, s, g) => self.tcp_fast_tick(c, s as usize, g),
            Ev::Slow(c, s, g) => self.tcp_slow_tick(c, s as usize, g),
            Ev::Start(c) => {
                let now = self.now;
                let conn = &mut self.conns[c.idx()];
                if let App::Conv(a) = &mut conn.app {
                    a.start(now);
                }
                conn.ep[0].tcp.open_active(now);
                self.service(c, 0);
            }
            Ev::App(c, g) => self.app_timer(c, g),
            Ev::AccessTx(c, s, d) => self.access_tx_done(c, s as usize, d as usize),
            Ev::AccessArrive(c, s, d) => self.access_arrive(c, s as usize, d as usize),
            Ev::Message(s, bytes) => self.source_message(s, bytes),
            Ev::CpuDone(h) => self.cpu_done(h),
            Ev::Shape(s) => self.shaper_release(s),
            Ev::Warm => self.snapshot_warm(),
            Ev::Sample => {
                self.sample();
                if let Some(dt) = self.sample_every {
                    self.q.schedule(self.now + dt, Ev::Sample);
                }
            }
        }
    }

    // ---------------------------------------------------------------- ATM layer

    /// Port `p` finished transmitting its cell at `self.now`.
    fn port_tx_done(&mut self, p: PortId) {
        loop {
            let port = &mut self.ports[p.idx()];
            let cell = port.in_tx.take().expect("PortTx without a cell in transmission");
            port.stats.cells_tx += 1;
            self.cell_hops += 1;
            let link = port.link;
            self.put_on_link(link, cell);
            let now = self.now;
            let port = &mut self.ports[p.idx()];
            let next = port.start_next(now);
            if next.is_none() {
                port.sleep(now);
            }
            if let Some(src) = self.greedy_after_tx(p, cell) {
                self.greedy_refill(src);
            }
            if let Some(done) = next {
                if self.take_inline(done) {
                    continue;
                }
                self.q.schedule(done, Ev::PortTx(p));
            }
            return;
        }
    }

    /// The batching rule (module docs): a server's next step at `t` is taken inline iff
    /// batching is on and `t` falls strictly before every pending event and within the run.
    /// If so, the clock moves to `t` and the caller loops instead of scheduling an event.
    ///
    /// Every [`INLINE_RUN_MAX`]-th step goes through the queue all the same (the same
    /// result: nothing else is pending before `t`), so that [`Network::run`] regains control
    /// and can report progress, and see an interrupt, even where one server could otherwise
    /// batch the whole run inside a single event.
    #[inline]
    fn take_inline(&mut self, t: SimTime) -> bool {
        if self.batching && t < self.q.horizon(self.until) {
            if self.inline_budget == 0 {
                self.inline_budget = INLINE_RUN_MAX;
                return false;
            }
            self.inline_budget -= 1;
            self.now = t;
            self.inline_steps += 1;
            true
        } else {
            false
        }
    }

    #[inline]
    fn put_on_link(&mut self, l: LinkId, cell: Cell) {
        let link = &mut self.links[l.idx()];
        let at = self.now + link.delay;
        let was_empty = link.pipe.is_empty();
        link.pipe.push_back((at, cell));
        // Into a switch: one event per cell (chained from the head). Into a host: only
        // end-of-frame cells have effects beyond the reassembly buffer, so only they get an
        // event; the cells before them are delivered in order when it fires.
        let wake = match link.to {
            Sink::Switch { .. } => was_empty,
            Sink::Host(_) => cell.is_eof(),
        };
        if wake {
            self.q.schedule(at, Ev::Arrive(l));
        }
    }

    /// Deliver every cell of host link `l` that has arrived by `self.now`.
    fn drain_host_link(&mut self, l: LinkId, h: HostId) {
        while let Some(&(t, cell)) = self.links[l.idx()].pipe.front() {
            if t > self.now {
                break;
            }
            self.links[l.idx()].pipe.pop_front();
            self.links[l.idx()].cells_delivered += 1;
            self.host_receive_cell(h, cell);
        }
    }

    /// Bring every host link up to date (before reading counters).
    fn drain_host_links(&mut self) {
        for l in 0..self.links.len() {
            if let Sink::Host(h) = self.links[l].to {
                self.drain_host_link(LinkId(l as u32), h);
            }
        }
    }

    /// The head cell of link `l` arrives at `self.now`.
    fn link_arrive(&mut self, l: LinkId) {
        if let Sink::Host(h) = self.links[l.idx()].to {
            return self.drain_host_link(l, h);
        }
        loop {
            let link = &mut self.links[l.idx()];
            let (_, cell) = link.pipe.pop_front().expect("Arrive on an empty link");
            link.cells_delivered += 1;
            match link.to {
                Sink::Host(_) => unreachable!("host links are drained, not stepped"),
                Sink::Switch { switch, .. } => match link.route(cell.vci) {
                    Some(r) => {
                        let mut cell = cell;
                        if self.shapers.police(l, self.now, &mut cell) {
                            let out = Cell { vci: r.vci, ..cell };
                            match self.shapers.reshaper(l, cell.vci) {
                                None => self.offer_to_port(r.port, out),
                                Some(s) => {
                                    let sh = &mut self.shapers.list[s as usize];
                                    if sh.held() as u32 >= sh.limit {
                                        sh.stats.dropped += 1;
                                        self.cells.dropped_reshape += 1;
                                        self.frames.cell_dropped(cell.frame);
                                    } else if let Some(at) = sh.push_cell(self.now, out) {
                                        self.q.schedule(at, Ev::Shape(s));
                                    }
                                }
                            }
                        } else {
                            self.cells.dropped_police += 1;
                            self.frames.cell_dropped(cell.frame);
                        }
                    }
                    None => {
                        self.switches[switch.idx()].misrouted += 1;
                        self.cells.dropped_no_route += 1;
                        self.frames.cell_dropped(cell.frame);
                    }
                },
            }
            let link = &self.links[l.idx()];
            if let Some(&(t, _)) = link.pipe.front() {
                if self.take_inline(t) {
                    continue;
                }
                self.q.schedule(t, Ev::Arrive(l));
            }
            return;
        }
    }

    /// A cell offered to a switch output port.
    #[inline]
    fn offer_to_port(&mut self, p: PortId, cell: Cell) {
        let now = self.now;
        let port = &mut self.ports[p.idx()];
        match port.offer_cell(now, cell) {
            None => self.kick(p),
            Some(reason) => {
                match reason {
                    DropReason::Tail => self.cells.dropped_tail += 1,
                    DropReason::Ppd => self.cells.dropped_ppd += 1,
                    DropReason::Epd => self.cells.dropped_epd += 1,
                    DropReason::Clp1 => self.cells.dropped_clp1 += 1,
                    DropReason::HostQueue | DropReason::NoRoute | DropReason::Police => unreachable!(),
                }
                self.frames.cell_dropped(cell.frame);
            }
        }
    }

    /// Start the transmitter of port `p` if it is idle and has cells.
    #[inline]
    fn kick(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.ports[p.idx()];
        if port.is_busy() {
            return;
        }
        port.wake(now);
        match port.start_next(now) {
            Some(done) => {
                self.q.schedule(done, Ev::PortTx(p));
            }
            None => port.sleep(now),
        }
    }

    /// Segment IP datagram `d` onto VC `vci` of host `h`'s adapter.
    fn send_datagram(&mut self, h: HostId, port: PortId, vci: u32, d: DatagramId) -> bool {
        let now = self.now;
        let ip_bytes = self.datagrams.get(d).ip_bytes;
        let f = self.frames.alloc(d, h, ip_bytes, now);
        let ncells = self.frames.get(f).ncells;
        if let Some(s) = self.shapers.find(port, vci) {
            // Shaped: the cells wait in the shaper, not subject to adapter admission.
            if let Some(at) = self.shapers.list[s as usize].push_frame(now, vci, f, ncells) {
                self.q.schedule(at, Ev::Shape(s));
            }
            self.cells.injected += ncells as u64;
            if let Some(t) = self.hosts[h.idx()].tap {
                self.capture(t, true, d);
            }
            return true;
        }
        let pt = &mut self.ports[port.idx()];
        if !pt.has_room_for(ncells) {
            pt.refuse_frame(ncells);
            self.frames.cancel(f);
            self.cells.refused_at_host += ncells as u64;
            self.datagrams.refuse(d);
            return false;
        }
        pt.push_frame(now, vci, f, ncells);
        self.cells.injected += ncells as u64;
        if let Some(t) = self.hosts[h.idx()].tap {
            self.capture(t, true, d);
        }
        self.kick(port);
        true
    }

    /// Shaper `s` releases its conforming cells into its adapter port, or, for a re-shaper at
    /// a switch input, offers them to the switch output port (which may drop them).
    fn shaper_release(&mut self, s: u32) {
        let now = self.now;
        if self.shapers.list[s as usize].kind == ShaperKind::Switch {
            let mut cells = std::mem::take(&mut self.scratch_cells);
            let sh = &mut self.shapers.list[s as usize];
            let next = sh.release(now, &mut |cell| cells.push(cell));
            let p = sh.port;
            if let Some(at) = next {
                self.q.schedule(at, Ev::Shape(s));
            }
            for cell in cells.drain(..) {
                self.offer_to_port(p, cell);
            }
            self.scratch_cells = cells;
            return;
        }
        let sh = &mut self.shapers.list[s as usize];
        let port = &mut self.ports[sh.port.idx()];
        let next = sh.release(now, &mut |cell| port.push_cell(now, cell));
        let p = sh.port;
        if let Some(at) = next {
            self.q.schedule(at, Ev::Shape(s));
        }
        self.kick(p);
    }

    /// Record a datagram that the host of capture `t` sends (`outgoing`) or received.
    #[cold]
    #[inline(never)]
    fn capture(&mut self, t: u32, outgoing: bool, d: DatagramId) {
        let dg = *self.datagrams.get(d);
        let ip_bytes = dg.ip_bytes;
        let pkt = match &dg.payload {
            Payload::Tcp { conn, side, seg, .. } => {
                // `side` is the receiving endpoint.
                let (rx, tx) = (*side as usize, 1 - *side as usize);
                let ep = &self.conns[conn.idx()].ep;
                Packet::Tcp {
                    src: pcap::host_addr(ep[tx].host),
                    dst: pcap::host_addr(ep[rx].host),
                    sport: pcap::tcp_port(*conn, tx),
                    dport: pcap::tcp_port(*conn, rx),
                    seg,
                }
            }
            Payload::Raw { source } => {
                let s = &self.sources[*source as usize];
                Packet::Raw { src: pcap::host_addr(s.host), dst: pcap::host_addr(s.peer), ip_bytes }
            }
        };
        self.taps[t as usize].record(self.now, outgoing, &pkt);
    }

    /// Hand over the finished captures (leaves none behind).
    pub fn take_captures(&mut self) -> Vec<Capture> {
        std::mem::take(&mut self.taps).into_iter().map(Tap::finish).collect()
    }

    fn host_receive_cell(&mut self, h: HostId, cell: Cell) {
        self.cells.delivered += 1;
        let host = &mut self.hosts[h.idx()];
        let verdict =
            host.reasm.get_mut(cell.vci as usize).map(|r| r.push(&mut self.frames, cell.frame, cell.is_eof()));
        let verdict = match verdict {
            Some(v) => v,
            None => host.reassembler(cell.vci).push(&mut self.frames, cell.frame, cell.is_eof()),
        };
        match verdict {
            Reassembled::Pending => {}
            Reassembled::Corrupt => self.hosts[h.idx()].frames_corrupt += 1,
            Reassembled::Frame(f) => {
                self.hosts[h.idx()].frames_rcvd += 1;
                if let Some(t) = self.hosts[h.idx()].tap {
                    self.capture(t, false, f.dgram);
                }
                match self.datagrams.get(f.dgram).payload {
                    Payload::Tcp { conn, side, .. } => {
                        if self.conns[conn.idx()].ep[side as usize].access.is_some() {
                            self.access_push(conn, side as usize, 1, f.dgram, f.ip_bytes);
                        } else {
                            self.deliver_tcp(f.dgram);
                        }
                    }
                    Payload::Raw { source } => {
                        self.datagrams.deliver(f.dgram);
                        let s = &mut self.sources[source as usize];
                        s.frames_rcvd += 1;
                        s.bytes_rcvd += f.ip_bytes as u64;
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- sources

    /// If the cell just sent ends a greedy source's frame, that source wants a refill.
    #[inline]
    fn greedy_after_tx(&self, p: PortId, cell: Cell) -> Option<SourceId> {
        if !cell.is_eof() {
            return None;
        }
        let vs = self.ports[p.idx()].vcs.get(cell.vci as usize)?;
        vs.greedy_frame_bytes?;
        match self.datagrams.get(self.frames.get(cell.frame).dgram).payload {
            Payload::Raw { source } => Some(SourceId(source)),
            _ => None,
        }
    }

    fn greedy_refill(&mut self, s: SourceId) {
        if let Pattern::Greedy { frame_bytes } = self.sources[s.idx()].pattern {
            self.source_send(s, frame_bytes);
        }
    }

    /// Hand one frame of source `s` to its adapter.
    fn source_send(&mut self, s: SourceId, ip_bytes: u32) {
        let src = &self.sources[s.idx()];
        let (h, port, vci) = (src.host, src.port, src.vci);
        let d = self.new_datagram(Payload::Raw { source: s.0 }, ip_bytes);
        if self.send_datagram(h, port, vci, d) {
            let src = &mut self.sources[s.idx()];
            src.frames_sent += 1;
            src.cells_sent += crate::atm::aal5::cells_for(ip_bytes) as u64;
        }
    }

    /// A Poisson message arrives: send it and schedule the next one.
    fn source_message(&mut self, s: SourceId, ip_bytes: u32) {
        self.source_send(s, ip_bytes);
        if let Some((gap, bytes)) = self.sources[s.idx()].next_message() {
            self.q.schedule(self.now + gap, Ev::Message(s, bytes));
        }
    }

    // ---------------------------------------------------------------- TCP

    /// A TCP datagram reaches its endpoint: stale generations are counted and dropped.
    /// A TCP segment reaches its host's IP layer: through the receive CPU if the host has one.
    pub(crate) fn deliver_tcp(&mut self, d: DatagramId) {
        let Payload::Tcp { conn: c, side, seg, .. } = self.datagrams.get(d).payload else {
            unreachable!("not a TCP payload")
        };
        let h = self.conns[c.idx()].ep[side as usize].host;
        let now = self.now;
        match &mut self.hosts[h.idx()].cpu {
            Some(cpu) if !cpu.rx.is_zero() => {
                if let Some(done) = cpu.push(now, d, seg.len, Dir::Rx) {
                    self.q.schedule(done, Ev::CpuDone(h));
                }
            }
            _ => self.tcp_input(d),
        }
    }

    /// A datagram handed to IP. Datagrams whose frames ended undelivered since the last call
    /// are accounted as lost first (so that their slots are reused).
    #[inline]
    fn new_datagram(&mut self, payload: Payload, ip_bytes: u32) -> DatagramId {
        self.account_lost_datagrams();
        self.datagrams.alloc(payload, ip_bytes)
    }

    /// End the datagrams of frames the fabric lost or reassembly discarded.
    #[inline]
    pub(crate) fn account_lost_datagrams(&mut self) {
        if !self.frames.orphans.is_empty() {
            for d in self.frames.orphans.drain(..) {
                self.datagrams.lose(d);
            }
        }
    }

    fn cpu_done(&mut self, h: HostId) {
        let now = self.now;
        let cpu = self.hosts[h.idx()].cpu.as_mut().expect("CpuDone for a host without a CPU");
        let ((p, dir), next) = cpu.done(now);
        if let Some(t) = next {
            self.q.schedule(t, Ev::CpuDone(h));
        }
        match dir {
            Dir::Rx => self.tcp_input(p),
            Dir::Tx => self.tcp_transmit(p),
        }
    }

    /// A segment TCP sends (datagram `d`, `len` payload bytes): through the send CPU if the
    /// host has one, then out.
    fn tcp_send(&mut self, h: HostId, d: DatagramId, len: u32) {
        let now = self.now;
        match &mut self.hosts[h.idx()].cpu {
            Some(cpu) if cpu.costs_tx() => {
                if let Some(done) = cpu.push(now, d, len, Dir::Tx) {
                    self.q.schedule(done, Ev::CpuDone(h));
                }
            }
            _ => self.tcp_transmit(d),
        }
    }

    /// A sent segment leaves the IP layer: onto the access link or into the adapter.
    fn tcp_transmit(&mut self, d: DatagramId) {
        let dg = self.datagrams.get(d);
        let Payload::Tcp { conn: c, side: dest, .. } = dg.payload else { unreachable!("not a TCP payload") };
        let ip_bytes = dg.ip_bytes;
        let side = 1 - dest as usize;
        let ep = &self.conns[c.idx()].ep[side];
        let (h, port, vci) = (ep.host, ep.port, ep.vci);
        if ep.access.is_some() {
            self.access_push(c, side, 0, d, ip_bytes);
        } else {
            self.send_datagram(h, port, vci, d);
        }
    }

    /// tcp_input for a segment whose processing is done: the datagram ends here.
    fn tcp_input(&mut self, d: DatagramId) {
        let Payload::Tcp { conn: c, side, gen, seg } = self.datagrams.deliver(d).payload else {
            unreachable!("not a TCP payload")
        };
        let conn = &mut self.conns[c.idx()];
        if gen != conn.gen {
            conn.stale_segments += 1;
            return;
        }
        let now = self.now;
        conn.ep[side as usize].tcp.on_segment(now, &seg);
        self.service(c, side as usize);
    }

    fn tcp_fast_tick(&mut self, c: ConnId, side: usize, g: u32) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        if g != conn.gen {
            return;
        }
        let ep = &mut conn.ep[side];
        ep.fast_pending = false;
        ep.tcp.fast_timo(now);
        self.service(c, side);
    }

    fn tcp_slow_tick(&mut self, c: ConnId, side: usize, g: u32) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        if g != conn.gen {
            return;
        }
        let ep = &mut conn.ep[side];
        ep.slow_pending = false;
        ep.tcp.slow_timo(now);
        self.service(c, side);
    }

    fn app_timer(&mut self, c: ConnId, g: u32) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        if g != conn.gen {
            return;
        }
        let App::Conv(a) = &mut conn.app else { return };
        if a.timer_at != Some(now) {
            return;
        }
        let act = a.on_timer(&mut conn.ep[0].tcp, now);
        self.after_app(c, 0, act);
        self.service(c, 0);
    }

    /// Schedule what an application step asked for.
    fn after_app(&mut self, c: ConnId, side: usize, act: Actions) {
        if let Some(t) = act.timer {
            let g = self.conns[c.idx()].gen;
            self.q.schedule(t, Ev::App(c, g));
        }
        if act.kick_other {
            self.service(c, 1 - side);
        }
    }

    /// After anything happened to endpoint `side` of `c`: let the application act, send
    /// what TCP wants to send, and arm the timer ticks it needs.
    fn service(&mut self, c: ConnId, side: usize) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        let mut act = Actions::default();
        match &mut conn.app {
            App::Bulk(app) => {
                if side == 0 {
                    app.pump(&mut conn.ep[0].tcp);
                } else {
                    let n = conn.ep[1].tcp.recv(u64::MAX);
                    conn.bytes_read += n;
                    if n > 0 && conn.finished_at.is_none() && app.total_bytes == Some(conn.bytes_read) {
                        conn.finished_at = Some(now);
                    }
                }
            }
            App::Conv(app) => {
                if side == 0 {
                    act = app.on_client(&mut conn.ep[0].tcp, now);
                } else {
                    let (a, n) = app.on_server(&mut conn.ep[1].tcp, now);
                    conn.bytes_read += n;
                    act = a;
                }
            }
        }
        let gen = self.conns[c.idx()].gen;
        loop {
            let ep = &mut self.conns[c.idx()].ep[side];
            let Some(seg) = ep.tcp.poll_transmit(now) else {
                break;
            };
            let h = ep.host;
            let d = self.new_datagram(Payload::Tcp { conn: c, side: (1 - side) as u8, gen, seg }, seg.ip_bytes());
            self.tcp_send(h, d, seg.len);
        }
        let ep = &mut self.conns[c.idx()].ep[side];
        if !ep.fast_pending && ep.tcp.wants_fast_tick() {
            ep.fast_pending = true;
            let t = next_grid(now, ep.fast_phase, ep.fast_period);
            self.q.schedule(t, Ev::Fast(c, side as u8, gen));
        }
        let ep = &mut self.conns[c.idx()].ep[side];
        if !ep.slow_pending && ep.tcp.wants_slow_tick() {
            ep.slow_pending = true;
            let t = next_grid(now, ep.slow_phase, ep.slow_period);
            self.q.schedule(t, Ev::Slow(c, side as u8, gen));
        }
        if act != Actions::default() {
            self.after_app(c, side, act);
        }
        self.maybe_recycle(c);
    }

    /// **Recycling rule.** A conversation is over when its client application has closed and
    /// both endpoints are CLOSED or TIME_WAIT (normal end: the server reached CLOSED on the
    /// ACK of its FIN, the client sits in TIME_WAIT), or when TCP dropped either endpoint
    /// (CLOSED although the application had not finished: retransmission give-up; counted as
    /// aborted). The slot then starts its next conversation at once on the same VC: a fresh
    /// pair of endpoints with the same configuration, new ISSs drawn from each endpoint's
    /// stream, the same timer-grid phases, and the next generation number. The old
    /// endpoints vanish (a TIME_WAIT endpoint is not kept: the new pair is told apart by its
    /// generation, as a new port pair would be); their segments still in the network are
    /// dropped on delivery (`stale_segments`) and their pending ticks and timers do nothing.
    fn maybe_recycle(&mut self, c: ConnId) {
        let conn = &mut self.conns[c.idx()];
        let App::Conv(app) = &mut conn.app else { return };
        let (s0, s1) = (conn.ep[0].tcp.state(), conn.ep[1].tcp.state());
        let done = |s: State| matches!(s, State::Closed | State::TimeWait);
        let normal = app.client_closed() && done(s0) && done(s1);
        let aborted = !normal
            && app.conversations_started > 0
            && ((s0 == State::Closed && !app.client_closed()) || (s1 == State::Closed && !done(s0)));
        if !(normal || aborted) {
            return;
        }
        app.finish(aborted);
        let now = self.now;
        conn.gen = conn.gen.wrapping_add(1);
        for ep in &mut conn.ep {
            let iss: u32 = ep.rng.gen();
            ep.tcp = TcpConn::new(*ep.tcp.config(), iss);
            ep.fast_pending = false;
            ep.slow_pending = false;
        }
        app.start(now);
        conn.ep[1].tcp.open_passive();
        conn.ep[0].tcp.open_active(now);
        self.service(c, 0);
    }

    // ---------------------------------------------------------------- access links

    /// Queue a datagram on the access link of endpoint `side` of `c`, direction `d`.
    fn access_push(&mut self, c: ConnId, side: usize, d: usize, p: DatagramId, ip_bytes: u32) {
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        acc.dirs[d].queue.push_back((p, ip_bytes));
        if !acc.dirs[d].busy {
            self.access_start(c, side, d);
        }
    }

    /// Start serializing the head datagram of direction `d`, if any.
    fn access_start(&mut self, c: ConnId, side: usize, d: usize) {
        let now = self.now;
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        let Some(&(_, bytes)) = acc.dirs[d].queue.front() else {
            acc.dirs[d].busy = false;
            return;
        };
        acc.dirs[d].busy = true;
        let done = now + acc.rate.tx_time(bytes as u64 * 8);
        self.q.schedule(done, Ev::AccessTx(c, side as u8, d as u8));
    }

    fn access_tx_done(&mut self, c: ConnId, side: usize, d: usize) {
        let now = self.now;
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        let (p, _) = acc.dirs[d].queue.pop_front().expect("AccessTx with an empty queue");
        let delay = acc.delay;
        if delay == SimDuration::ZERO {
            self.access_forward(c, side, d, p);
        } else {
            acc.dirs[d].pipe.push_back((now + delay, p));
            self.q.schedule(now + delay, Ev::AccessArrive(c, side as u8, d as u8));
        }
        self.access_start(c, side, d);
    }

    fn access_arrive(&mut self, c: ConnId, side: usize, d: usize) {
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        let (_, p) = acc.dirs[d].pipe.pop_front().expect("AccessArrive with an empty pipe");
        self.access_forward(c, side, d, p);
    }

    /// A datagram leaves the access link: into the adapter (`d` = 0) or to the endpoint.
    fn access_forward(&mut self, c: ConnId, side: usize, d: usize, p: DatagramId) {
        if d == 0 {
            let ep = &self.conns[c.idx()].ep[side];
            let (h, port, vci) = (ep.host, ep.port, ep.vci);
            self.send_datagram(h, port, vci, p);
        } else {
            self.deliver_tcp(p);
        }
    }

    // ---------------------------------------------------------------- measurement

    fn snapshot_warm(&mut self) {
        for c in &mut self.conns {
            c.bytes_read_warm = c.bytes_read;
            c.bytes_sent_warm = c.ep[0].tcp.stats().bytes_sent;
            c.rexmt_segs_warm = c.ep[0].tcp.stats().rexmt_segs;
            c.rexmt_bytes_warm = c.ep[0].tcp.stats().rexmt_bytes;
            if let App::Conv(a) = &c.app {
                c.bytes_s2c_warm = a.bytes_s2c;
            }
        }
        for s in &mut self.sources {
            s.bytes_rcvd_warm = s.bytes_rcvd;
        }
        self.rec.snapshot_ports(&self.ports, self.now);
    }

    fn sample(&mut self) {
        self.drain_host_links();
        let t = self.now.as_secs_f64();
        let dt = self.sample_every.map_or(1.0, |d| d.as_secs_f64());
        for (i, c) in self.conns.iter_mut().enumerate() {
            let tcp = &c.ep[0].tcp;
            let e = self.rec.conn_entity(i);
            self.rec.push(t, e, "cwnd_bytes", tcp.cwnd() as f64);
            self.rec.push(t, e, "ssthresh_bytes", tcp.ssthresh() as f64);
            let gp = (c.bytes_read - c.bytes_read_sampled) as f64 * 8.0 / dt;
            c.bytes_read_sampled = c.bytes_read;
            self.rec.push(t, e, "goodput_bps", gp);
            self.rec.push(t, e, "rexmt_segs", tcp.stats().rexmt_segs as f64);
        }
        for (i, p) in self.ports.iter().enumerate() {
            let e = self.rec.port_entity(i);
            self.rec.push(t, e, "queue_cells", p.occupancy as f64);
            self.rec.push(t, e, "drops_cells", p.stats.drops() as f64);
        }
        for (i, h) in self.hosts.iter().enumerate() {
            let e = self.rec.host_entity(i);
            self.rec.push(t, e, "frames_discarded", h.frames_corrupt as f64);
        }
    }

    /// Cells inside the network now: held by a shaper, queued, in transmission, or on a link.
    pub fn cells_in_flight(&self) -> u64 {
        let q: u64 = self.ports.iter().map(|p| p.occupancy as u64 + p.in_tx.is_some() as u64).sum();
        let l: u64 = self.links.iter().map(|l| l.pipe.len() as u64).sum();
        q + l + self.shapers.held()
    }

    /// Cells delivered to hosts but waiting in reassembly buffers for an end-of-frame cell.
    pub fn cells_in_reassembly(&self) -> u64 {
        self.hosts.iter().flat_map(|h| h.reasm.iter()).map(|r| r.held_cells()).sum()
    }
}

/// The first point of the grid `phase + k·period` strictly after `now`.
#[inline]
pub fn next_grid(now: SimTime, phase: SimDuration, period: SimDuration) -> SimTime {
    let (n, ph, p) = (now.0, phase.0 % period.0, period.0);
    if n < ph {
        return SimTime(ph);
    }
    SimTime(ph.saturating_add(((n - ph) / p + 1).saturating_mul(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tcp::Segment;

    /// A segment of an earlier generation is counted and dropped: the current endpoint
    /// never sees it. (Under the default rules such segments are rare — the slot recycles
    /// only when the server has the final ACK — so the mechanism is tested directly.)
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
        let doc = crate::scenario::parse(text, crate::api::Format::Toml, "t").unwrap();
        let mut net = crate::scenario::build(&doc, None, None).unwrap();
        net.run(&mut |_| ControlFlow::Continue(()));
        let App::Conv(a) = &net.conns[0].app else { panic!() };
        assert!(a.conversations_completed > 1, "conversations should recycle");
        let gen = net.conns[0].gen;
        assert!(gen as u64 >= a.conversations_completed);
        for side in 0..2u8 {
            let before = *net.conns[0].ep[side as usize].tcp.stats();
            let state = net.conns[0].ep[side as usize].tcp.state();
            let seg = Segment { flags: crate::tcp::Flags::FIN, len: 100, ..Default::default() };
            let d = net.datagrams.alloc(Payload::Tcp { conn: ConnId(0), side, gen: gen.wrapping_sub(1), seg }, 140);
            net.deliver_tcp(d);
            assert_eq!(*net.conns[0].ep[side as usize].tcp.stats(), before);
            assert_eq!(net.conns[0].ep[side as usize].tcp.state(), state);
        }
        assert_eq!(net.conns[0].stale_segments, 2);
    }

    #[test]
    fn grid_points_are_strictly_after_now() {
        let ms = SimDuration::from_millis;
        assert_eq!(next_grid(SimTime(0), ms(100), ms(500)), SimTime(0) + ms(100));
        assert_eq!(next_grid(SimTime(0) + ms(100), ms(100), ms(500)), SimTime(0) + ms(600));
        assert_eq!(next_grid(SimTime(0) + ms(601), ms(100), ms(500)), SimTime(0) + ms(1100));
    }
}
