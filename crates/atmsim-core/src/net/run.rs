//! Running the network: the initial events, the event loop, and the dispatch of each event
//! to the file that handles its layer (the network's module docs).

use super::engine::PROGRESS_WALL_PERIOD;
use super::events::{AppEv, Ev, MeasureEv, TransportEv};
use super::{ck, probes, Network};
use super::{AtmEv, Due};
use crate::ids::{ConnId, SourceId};
use crate::time::SimTime;
use std::ops::ControlFlow;

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
}
