//! Running the network: the initial events, the event loop, and the dispatch of each event
//! to the file that handles its layer (the network's module docs).

use super::adapter::SegmentUp;
use super::cells::FabricUp;
use super::engine::PROGRESS_WALL_PERIOD;
use super::events::{AppEv, Ev, MeasureEv, TransportEv};
use super::signalling::DriverUp;
use super::traffic::SessionUp;
use super::transport::SlotUp;
use super::{ck, probes, Network};
use super::{AtmEv, Due, Up};
use crate::apps::session::{Open, Role};
use crate::ids::{ConnId, SourceId};
use crate::ids::{DatagramId, NodeId};
use crate::rng::Stream;
use crate::time::SimTime;
use std::ops::ControlFlow;

impl Network {
    /// Schedule the initial events. Called once by the builder.
    pub fn prime(&mut self) {
        for l in &mut self.iface.lines {
            l.lazy = self.eng.batching;
        }
        let (batching, hosts, signalling) = (self.eng.batching, self.ip.hosts.len(), self.sig.is_some());
        self.fabric.prime(ck!(self), batching, hosts, signalling);
        for c in 0..self.apps.slots().len() {
            let conn = self.apps.slot_mut(ConnId(c as u32));
            conn.listen();
            let t = conn.start();
            self.eng.q.schedule(t, Ev::Transport(TransportEv::Start(ConnId(c as u32))));
        }
        for (g, t) in self.apps.generator_starts().enumerate() {
            self.eng.q.schedule(t, Ev::App(AppEv::Spawn(g as u32)));
        }
        for s in 0..self.apps.sources.len() {
            let id = SourceId(s as u32);
            let first = self.apps.sources[s].first();
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
        for f in 0..self.apps.udp.len() {
            let t = self.apps.udp[f].start;
            self.eng.q.schedule(t, Ev::App(AppEv::Udp(f as u32)));
        }
        self.abr_trace_start();
        if self.measure.warmup() > SimTime::ZERO {
            self.eng.q.schedule(self.measure.warmup(), Ev::Measure(MeasureEv::Warm));
        }
        if let Some(dt) = self.measure.sample_every() {
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
        for l in &mut self.iface.lines {
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

    /// Dispatch of the ATM layer's events.
    #[inline]
    pub(super) fn on_atm(&mut self, ev: AtmEv) {
        match ev {
            AtmEv::PortTx(p) if self.fabric.ports[p.idx()].lazy => self.fabric.port_due(ck!(self), p),
            AtmEv::PortTx(p) => self.fabric.port_tx_done(ck!(self), p),
            AtmEv::Arrive(l) => self.link_arrive(l),
            AtmEv::Shape(s) => self.fabric.shaper_release(ck!(self), s),
            AtmEv::Abr(e) => self.abr_tx(e),
            AtmEv::Drain => self.fabric.drain_tick(ck!(self)),
            AtmEv::PortWake(p) => {
                self.fabric.ports[p.idx()].woken(self.eng.now);
                self.fabric.kick(ck!(self), p);
            }
        }
    }

    /// Admit, in the instant's order, the queues' collected arrivals that are due before the
    /// next pending event; true if any was.
    #[inline(never)]
    pub(super) fn admit_due_now(&mut self) -> bool {
        let next = self.eng.q.next_prefix();
        if self.eng.admit_due.len() > 1 {
            self.eng.admit_due.sort_unstable_by_key(|d| std::cmp::Reverse(d.0));
        }
        let mut any = false;
        while let Some(&(at, due)) = self.eng.admit_due.last() {
            if next.is_some_and(|n| n < at) {
                break;
            }
            self.eng.admit_due.pop();
            self.eng.q.enter(at);
            match due {
                Due::Port(p) => self.fabric.admit_arrivals(ck!(self), p),
                Due::Line(l) => self.line_admit_arrivals(l),
            }
            any = true;
        }
        any
    }

    /// Dispatch of the transport layer's events.
    pub(super) fn on_transport(&mut self, ev: TransportEv) {
        match ev {
            TransportEv::Fast(c, s, g) => self.tcp_fast_tick(c, s as usize, g),
            TransportEv::Slow(c, s, g) => self.tcp_slow_tick(c, s as usize, g),
            TransportEv::Start(c) => self.open_conn(c),
        }
    }

    /// Dispatch of the applications' events.
    pub(super) fn on_app(&mut self, ev: AppEv) {
        match ev {
            AppEv::Timer(c, g) => self.app_timer(c, g),
            AppEv::Message(s, bytes) => self.source_message(s, bytes),
            AppEv::Udp(f) => self.udp_send(f),
            AppEv::Spawn(g) => self.spawn(g),
            AppEv::Think(s) => self.session_think(s),
        }
    }
}

/// The world routes what each layer's glue hands upward to the layer above it.
impl FabricUp for Network {
    /// Route what the fabric handed upward ([`Up`]), in the order it did.
    fn route_up(&mut self) {
        while !self.fabric.up.is_empty() {
            let mut ups = std::mem::replace(&mut self.fabric.up, std::mem::take(&mut self.up_spare));
            for up in ups.drain(..) {
                match up {
                    Up::FrameLeft { port, cell } => {
                        if let Some(src) = self.source_after_tx(port, cell) {
                            self.source_frame_left(src);
                        }
                    }
                    Up::Frame { host, dgram } => self.host_frame(host, dgram),
                    Up::Corrupt { host } => self.ip.hosts[host.idx()].frame_corrupt(),
                    Up::Rm { host, cell } => self.abr_at_host(host, cell),
                    Up::CtrlFrame { link, frame } => self.sig_frame(link, frame),
                }
            }
            self.up_spare = ups;
        }
    }

    fn messages_lost(&mut self) {
        self.account_lost_messages();
    }
}

impl DriverUp for Network {
    fn driver_answered(&mut self, n: NodeId) {
        self.run_driver(n);
    }
}

impl SegmentUp for Network {
    fn segment_in(&mut self, d: DatagramId) {
        self.tcp_input(d);
    }

    fn segment_out(&mut self, d: DatagramId) {
        self.tcp_transmit(d);
    }
}

impl SlotUp for Network {
    fn slot_serviced(&mut self, c: ConnId) {
        self.session_check(c);
    }

    fn slot_at_gate(&mut self, c: ConnId) {
        self.session_gate(c);
    }

    fn slot_released(&mut self, c: ConnId, aborted: bool) {
        self.release(c, aborted);
    }
}

impl SessionUp for Network {
    fn session_started(&mut self, sid: u32, first: Open) {
        self.session_open(sid, first);
    }

    fn media_spawned(&mut self, g: u32, from: NodeId, to: NodeId, r: Stream) {
        self.spawn_media(g, from, to, r);
    }

    fn session_conn_done(&mut self, sid: u32, role: Role, completed: bool, t: SimTime) {
        self.session_done(sid, role, completed, t);
    }
}
