//! Traffic generators in the running network: conversations opened on pooled connections.
//!
//! Owns: `spawn` (an arrival of generator `g`: draw the hosts, take a connection slot from
//! the pool — or add one —, set up fresh endpoints and the application, open it) and
//! `release` (a pooled conversation ended: record it with its generator and return the slot
//! to the pool). A slot's generation number rises at each release, so the timers and
//! segments of the conversation that ended do nothing to the next one on the slot.

use super::{AppEv, Ev, Network};
use crate::apps::conversation::{ConvApp, Kind as ConvKind};
use crate::apps::generator::GenApp;
use crate::apps::session::{Open, Role, Session};
use crate::apps::{App, Conn};
use crate::header::{Media, PacketHeader, Proto};
use crate::ids::{ConnId, NodeId};
use crate::ip::socket::{SockKey, Socket};
use crate::rng::{self, Purpose, Stream};
use crate::time::SimTime;
use crate::transport::Endpoint;

impl Network {
    /// Generator `g` has an arrival now.
    pub(super) fn spawn(&mut self, g: u32) {
        let now = self.eng.now;
        let seed = self.apps.seed;
        let gen = &mut self.apps.gens[g as usize];
        // A browser arrival that places the last browser is the generator's last.
        let last = gen.app == GenApp::Browser && gen.unplaced.len() <= 1;
        if let Some(t) = gen.next_arrival(now).filter(|_| !last) {
            self.eng.q.schedule(t, Ev::App(AppEv::Spawn(g)));
        }
        let Some((client, server)) = gen.pick() else {
            gen.stats.skipped += 1;
            return;
        };
        let n = gen.stats.started;
        gen.stats.started += 1;
        gen.stats.open += 1;
        gen.stats.max_open = gen.stats.max_open.max(gen.stats.open);
        let key = ((g as u64) << 40) | n;
        let stream = |k: u64| rng::stream(seed, Purpose::TrafficConn, key * 3 + k);
        match gen.app.clone() {
            GenApp::Conv { kind, scale, per_item, handshake, keystrokes } => {
                let lowat = gen.tcp.snd_lowat_bytes as u64;
                let mut a = ConvApp::new(kind, scale, stream(2), lowat);
                a.connection_per_item = per_item;
                a.smtp_handshake = handshake;
                a.telnet_keystrokes = keystrokes;
                let port = gen.server_port;
                self.open_tcp(g, (client, server), (0, port), App::Conv(Box::new(a)), [stream(0), stream(1)], None);
            }
            GenApp::FtpSession { scale } => {
                let (s, open) = Session::ftp(g, client, server, scale, stream(2), now);
                self.session_started(s, open);
            }
            GenApp::Browser => {
                let (s, open) = Session::browser(g, client, &gen.servers, &mut gen.choice, stream(2), now);
                self.session_started(s, open);
            }
            GenApp::Audio(..) | GenApp::Video(..) => self.media_spawned(g, client, server, stream(2)),
            GenApp::Bulk { .. } => unreachable!("generators run tcplib conversations and sessions"),
        }
    }

    /// Open a TCP connection of generator `g` from `hosts.0` to `hosts.1` on pooled slot:
    /// `ports` = (opener's port, 0 = the next client port; the other end's port, 0 = the
    /// next client port). Endpoint streams from `streams`.
    pub(super) fn open_tcp(
        &mut self,
        g: u32,
        hosts: (NodeId, NodeId),
        ports: (u16, u16),
        app: App,
        streams: [crate::rng::Stream; 2],
        session: Option<(u32, Role)>,
    ) -> ConnId {
        let gen = &mut self.apps.gens[g as usize];
        let (client, server) = hosts;
        let mut hdr = PacketHeader {
            src: client,
            dst: server,
            proto: Proto::Tcp,
            src_port: ports.0,
            dst_port: ports.1,
            tos: 0,
            media: Media::None,
        };
        // Client ports from the generator's counter, skipping any a live conversation of
        // either host holds with the other (after the counter wraps).
        loop {
            if ports.0 == 0 {
                hdr.src_port = gen.take_client_port();
            }
            if ports.1 == 0 {
                hdr.dst_port = gen.take_client_port();
            }
            let back = PacketHeader { src: server, dst: client, src_port: hdr.dst_port, dst_port: hdr.src_port, ..hdr };
            let taken = self.ip.hosts[client.idx()].sockets.lookup(&SockKey::outgoing(&hdr)).is_some()
                || self.ip.hosts[server.idx()].sockets.lookup(&SockKey::outgoing(&back)).is_some();
            if !taken {
                break;
            }
        }
        let back = PacketHeader { src: server, dst: client, src_port: hdr.dst_port, dst_port: hdr.src_port, ..hdr };
        let [s0, s1] = streams;
        let ep = [Endpoint::new(gen.tcp, client, hdr, s0), Endpoint::new(gen.tcp, server, back, s1)];
        let c = self.take_slot(g, ep, app);
        self.apps.conns[c.idx()].session = session;
        self.bind_sockets(c);
        self.apps.conns[c.idx()].ep[1].tcp.open_passive();
        self.open_conn(c);
        c
    }

    /// A slot of generator `g`'s pool, holding a new conversation.
    fn take_slot(&mut self, g: u32, ep: [Endpoint; 2], app: App) -> ConnId {
        let now = self.eng.now;
        let fresh = |gen: u32| Conn {
            name: String::new(),
            pooled: Some(g),
            start: now,
            ep,
            app,
            gen,
            stale_segments: 0,
            bytes_read: 0,
            bytes_read_warm: 0,
            bytes_sent_warm: 0,
            rexmt_segs_warm: 0,
            rexmt_bytes_warm: 0,
            bytes_read_sampled: 0,
            finished_at: None,
            bytes_s2c_warm: 0,
            session: None,
            session_told: false,
        };
        match self.apps.free_conns.pop() {
            Some(c) => {
                let old = &self.apps.conns[c as usize];
                let stale = old.stale_segments;
                self.apps.conns[c as usize] = Conn { stale_segments: stale, ..fresh(old.gen) };
                ConnId(c)
            }
            None => {
                self.apps.conns.push(fresh(0));
                ConnId((self.apps.conns.len() - 1) as u32)
            }
        }
    }

    /// Bind both endpoints of connection `c` on their hosts.
    pub(crate) fn bind_sockets(&mut self, c: ConnId) {
        for (side, ep) in self.apps.conns[c.idx()].ep.iter().enumerate() {
            let fresh = self.ip.hosts[ep.host.idx()]
                .sockets
                .bind(SockKey::outgoing(&ep.hdr), Socket::Tcp { conn: c, side: side as u8 });
            debug_assert!(fresh, "a socket bound twice");
        }
    }

    /// Connection `c` opens: the application starts and the client sends its SYN (the
    /// server already listens).
    pub(super) fn open_conn(&mut self, c: ConnId) {
        let now = self.eng.now;
        let conn = &mut self.apps.conns[c.idx()];
        if let App::Conv(a) = &mut conn.app {
            a.start(now);
        }
        conn.ep[0].tcp.open_active(now);
        self.service(c, 0);
    }

    /// The conversation on pooled slot `c` ended (`aborted` if TCP gave up).
    pub(super) fn release(&mut self, c: ConnId, aborted: bool) {
        let now = self.eng.now;
        let conn = &mut self.apps.conns[c.idx()];
        let g = conn.pooled.expect("a pooled slot") as usize;
        conn.gen = conn.gen.wrapping_add(1);
        for ep in &conn.ep {
            self.ip.hosts[ep.host.idx()].sockets.unbind(&SockKey::outgoing(&ep.hdr));
        }
        let (session, told) = (conn.session.take(), conn.session_told);
        let App::Conv(app) = &mut conn.app else { unreachable!("pooled slots run conversations") };
        let s = &mut self.apps.gens[g].stats;
        if aborted {
            s.aborted += 1;
        }
        match session {
            // A session's connection: the session counts the conversation.
            Some((sid, role)) => {
                if !told {
                    self.session_conn_done(sid, role, false, now);
                }
            }
            None => {
                s.open -= 1;
                if !aborted {
                    s.completed += 1;
                    s.durations_s.push(now.since(conn.start).as_secs_f64());
                    if app.kind == ConvKind::Telnet {
                        if let Some(t) = app.established_at {
                            s.record("connect_s", t.since(conn.start).as_secs_f64());
                        }
                        for &(_, d) in &app.echo_samples {
                            s.record("response_s", d);
                        }
                    }
                }
            }
        }
        self.apps.free_conns.push(c.0);
    }
}

/// What a traffic generator hands upward, routed by the network (`run.rs`) to the sessions
/// above the connection pool.
pub(super) trait SessionUp {
    /// A generator drew a session (an FTP session or a browser), whose first connection is
    /// `first`.
    fn session_started(&mut self, s: Session, first: Open);
    /// A generator drew an audio or video conversation from `from` to `to`.
    fn media_spawned(&mut self, g: u32, from: NodeId, to: NodeId, r: Stream);
    /// A connection of session `sid` in role `role` has ended (`completed`: its script ran
    /// to the end) at `t`.
    fn session_conn_done(&mut self, sid: u32, role: Role, completed: bool, t: SimTime);
}
