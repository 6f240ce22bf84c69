//! TCP endpoints and their applications in the running network.
//!
//! Owns the handling of [`TransportEv`] (the 200 ms and 500 ms BSD timer ticks, connection
//! opens) and of application timers ([`AppEv::Timer`]): `service` lets the application act,
//! sends what TCP wants to send (each segment a new datagram, through the send CPU if the
//! host has one) and arms the ticks it needs; `tcp_input` hands a delivered segment to its
//! endpoint; conversation slots recycle when a conversation ends (`maybe_recycle`).

use super::ip::IpInput;
use super::{AppEv, CpuEv, Ev, Network, TransportEv};
use crate::apps::conversation::Actions;
use crate::apps::App;
use crate::ids::{ConnId, DatagramId, NodeId};
use crate::ip::cpu::Dir;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::{State, TcpConn};
use crate::transport::Payload;

impl Network {
    /// A segment TCP sends (datagram `d`, `len` payload bytes): through the send CPU if the
    /// host has one, then out.
    pub(super) fn tcp_send(&mut self, h: NodeId, d: DatagramId, len: u32) {
        let now = self.eng.now;
        match &mut self.ip.hosts[h.idx()].cpu {
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
        let h = self.apps.conns[c.idx()].ep[1 - dest as usize].host;
        self.ip_output(h, d, IpInput::Local(h));
    }

    /// tcp_input for a segment whose processing is done: the datagram ends here.
    pub(super) fn tcp_input(&mut self, d: DatagramId) {
        let Payload::Tcp { conn: c, side, gen, seg } = self.ip.datagrams.deliver(d).payload else {
            unreachable!("not a TCP payload")
        };
        let conn = &mut self.apps.conns[c.idx()];
        if gen != conn.gen {
            conn.stale_segments += 1;
            return;
        }
        let now = self.eng.now;
        conn.ep[side as usize].tcp.on_segment(now, &seg);
        self.service(c, side as usize);
    }

    pub(super) fn tcp_fast_tick(&mut self, c: ConnId, side: usize, g: u32) {
        let now = self.eng.now;
        let conn = &mut self.apps.conns[c.idx()];
        if g != conn.gen {
            return;
        }
        let ep = &mut conn.ep[side];
        ep.fast_pending = false;
        ep.tcp.fast_timo(now);
        self.service(c, side);
    }

    pub(super) fn tcp_slow_tick(&mut self, c: ConnId, side: usize, g: u32) {
        let now = self.eng.now;
        let conn = &mut self.apps.conns[c.idx()];
        if g != conn.gen {
            return;
        }
        let ep = &mut conn.ep[side];
        ep.slow_pending = false;
        ep.tcp.slow_timo(now);
        self.service(c, side);
    }

    pub(super) fn app_timer(&mut self, c: ConnId, g: u32) {
        let now = self.eng.now;
        let conn = &mut self.apps.conns[c.idx()];
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
    pub(super) fn after_app(&mut self, c: ConnId, side: usize, act: Actions) {
        if let Some(t) = act.timer {
            let g = self.apps.conns[c.idx()].gen;
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
        let conn = &mut self.apps.conns[c.idx()];
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
        let gen = self.apps.conns[c.idx()].gen;
        loop {
            let ep = &mut self.apps.conns[c.idx()].ep[side];
            let Some(seg) = ep.tcp.poll_transmit(now) else {
                break;
            };
            let (h, hdr) = (ep.host, ep.hdr);
            let d = self.new_datagram(hdr, Payload::Tcp { conn: c, side: (1 - side) as u8, gen, seg }, seg.ip_bytes());
            self.tcp_send(h, d, seg.len);
        }
        let ep = &mut self.apps.conns[c.idx()].ep[side];
        if !ep.fast_pending && ep.tcp.wants_fast_tick() {
            ep.fast_pending = true;
            let t = next_grid(now, ep.fast_phase, ep.fast_period);
            self.eng.q.schedule(t, Ev::Transport(TransportEv::Fast(c, side as u8, gen)));
        }
        let ep = &mut self.apps.conns[c.idx()].ep[side];
        if !ep.slow_pending && ep.tcp.wants_slow_tick() {
            ep.slow_pending = true;
            let t = next_grid(now, ep.slow_phase, ep.slow_period);
            self.eng.q.schedule(t, Ev::Transport(TransportEv::Slow(c, side as u8, gen)));
        }
        if act.any() {
            self.after_app(c, side, act);
        }
        self.slot_serviced(c);
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
    /// An FTP conversation with a connection per item reopens the same way between its
    /// items (the conversation is neither finished nor, if pooled, released).
    pub(super) fn maybe_recycle(&mut self, c: ConnId) {
        let conn = &mut self.apps.conns[c.idx()];
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
        let now = self.eng.now;
        if normal && app.has_next_connection() {
            // FTP with a connection per item: the conversation goes on with its next item on
            // a fresh connection (pooled or not, the slot stays with this conversation).
            app.next_connection();
        } else {
            app.finish(aborted);
            if conn.pooled.is_some() {
                return self.slot_released(c, aborted);
            }
            app.start(now);
        }
        conn.gen = conn.gen.wrapping_add(1);
        for ep in &mut conn.ep {
            let iss: u32 = ep.rng.gen();
            ep.tcp = TcpConn::new(*ep.tcp.config(), iss);
            ep.fast_pending = false;
            ep.slow_pending = false;
        }
        conn.ep[1].tcp.open_passive();
        conn.ep[0].tcp.open_active(now);
        self.service(c, 0);
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
