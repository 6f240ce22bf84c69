//! TCP endpoints and their applications in the running network.
//!
//! Owns the handling of [`TransportEv`] (the 200 ms and 500 ms BSD timer ticks, connection
//! opens) and of application timers ([`AppEv::Timer`]): `service` lets the application act,
//! sends what TCP wants to send (each segment a new datagram, through the send CPU if the
//! host has one) and arms the ticks it needs; `tcp_input` hands a delivered segment to its
//! endpoint; conversation slots recycle when a conversation ends (`maybe_recycle`). What a
//! slot does is its own ([`crate::apps::slot`]); this file schedules what it asks for.

use super::ip::IpInput;
use super::{AppEv, CpuEv, Ev, Network, TransportEv};
use crate::apps::conversation::Actions;
use crate::apps::slot::Recycle;
use crate::ids::{ConnId, DatagramId, NodeId};
use crate::ip::cpu::Dir;
use crate::transport::Payload;

impl Network {
    /// A segment TCP sends (datagram `d`, `len` payload bytes): through the send CPU if the
    /// host has one, then out.
    pub(super) fn tcp_send(&mut self, h: NodeId, d: DatagramId, len: u32) {
        let now = self.eng.now;
        match self.ip.hosts[h.idx()].cpu_mut() {
            Some(cpu) if cpu.costs_tx() => {
                if let Some(done) = cpu.push(now, d, len, Dir::Tx) {
                    self.eng.q.schedule(done, Ev::Cpu(CpuEv::Done(h)));
                }
            }
            _ => self.tcp_transmit(d),
        }
    }

    /// A sent segment leaves its host through IP.
    pub(super) fn tcp_transmit(&mut self, d: DatagramId) {
        let Payload::Tcp { conn: c, side: dest, .. } = self.ip.datagrams.get(d).payload else {
            unreachable!("not a TCP payload")
        };
        let h = self.apps.slot(c).endpoint(1 - dest as usize).host();
        self.ip_output(h, d, IpInput::Local(h));
    }

    /// tcp_input for a segment whose processing is done: the datagram ends here.
    pub(super) fn tcp_input(&mut self, d: DatagramId) {
        let Payload::Tcp { conn: c, side, gen, seg } = self.ip.datagrams.deliver(d).payload else {
            unreachable!("not a TCP payload")
        };
        let conn = self.apps.slot_mut(c);
        if !conn.accepts(gen) {
            return;
        }
        let now = self.eng.now;
        conn.endpoint_mut(side as usize).tcp_mut().on_segment(now, &seg);
        self.service(c, side as usize);
    }

    pub(super) fn tcp_fast_tick(&mut self, c: ConnId, side: usize, g: u32) {
        let now = self.eng.now;
        let conn = self.apps.slot_mut(c);
        if g != conn.gen() {
            return;
        }
        conn.endpoint_mut(side).fast_tick(now);
        self.service(c, side);
    }

    pub(super) fn tcp_slow_tick(&mut self, c: ConnId, side: usize, g: u32) {
        let now = self.eng.now;
        let conn = self.apps.slot_mut(c);
        if g != conn.gen() {
            return;
        }
        conn.endpoint_mut(side).slow_tick(now);
        self.service(c, side);
    }

    pub(super) fn app_timer(&mut self, c: ConnId, g: u32) {
        let now = self.eng.now;
        let Some(act) = self.apps.slot_mut(c).app_timer(g, now) else { return };
        self.after_app(c, 0, act);
        self.service(c, 0);
    }

    /// Schedule what an application step asked for.
    pub(super) fn after_app(&mut self, c: ConnId, side: usize, act: Actions) {
        if let Some(t) = act.timer {
            let g = self.apps.slot(c).gen();
            self.eng.q.schedule(t, Ev::App(AppEv::Timer(c, g)));
        }
        if act.kick_other {
            self.service(c, 1 - side);
        }
        if act.at_gate {
            self.slot_at_gate(c);
        }
    }

    /// After anything happened to endpoint `side` of `c`: let the application act, send
    /// what TCP wants to send, and arm the timer ticks it needs.
    pub(super) fn service(&mut self, c: ConnId, side: usize) {
        let now = self.eng.now;
        let act = self.apps.slot_mut(c).run_app(side, now);
        let gen = self.apps.slot(c).gen();
        while let Some(out) = self.apps.slot_mut(c).poll_transmit(side, now) {
            let payload = Payload::Tcp { conn: c, side: (1 - side) as u8, gen, seg: out.seg };
            let d = self.new_datagram(out.hdr, payload, out.seg.ip_bytes());
            self.tcp_send(out.host, d, out.seg.len);
        }
        let (fast, slow) = self.apps.slot_mut(c).endpoint_mut(side).ticks_to_arm(now);
        if let Some(t) = fast {
            self.eng.q.schedule(t, Ev::Transport(TransportEv::Fast(c, side as u8, gen)));
        }
        if let Some(t) = slow {
            self.eng.q.schedule(t, Ev::Transport(TransportEv::Slow(c, side as u8, gen)));
        }
        if act.any() {
            self.after_app(c, side, act);
        }
        self.slot_serviced(c);
        self.maybe_recycle(c);
    }

    /// The slot's recycling rule ([`crate::apps::slot::Conn::recycle`]): a released pooled
    /// slot goes back to its generator; a reopened one sends its SYN.
    pub(super) fn maybe_recycle(&mut self, c: ConnId) {
        match self.apps.slot_mut(c).recycle(self.eng.now) {
            Recycle::Running => {}
            Recycle::Release { aborted } => self.slot_released(c, aborted),
            Recycle::Reopened => self.service(c, 0),
        }
    }
}

/// What a connection slot hands upward, routed by the network (`run.rs`) to the traffic
/// generators and sessions that own pooled slots.
pub(super) trait SlotUp {
    /// Slot `c` was serviced: its session may have news.
    fn slot_serviced(&mut self, c: ConnId);
    /// Slot `c`'s application waits at a gate of its session.
    fn slot_at_gate(&mut self, c: ConnId);
    /// Pooled slot `c`'s conversation is over (`aborted`: TCP gave up): the slot returns to
    /// its generator's pool.
    fn slot_released(&mut self, c: ConnId, aborted: bool);
}
