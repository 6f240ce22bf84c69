//! Traffic generators in the running network: conversations opened on pooled connections.
//!
//! Owns: `spawn` (an arrival of generator `g`: draw the hosts, take a connection slot from
//! the pool — or add one —, set up fresh endpoints and the application, open it) and
//! `release` (a pooled conversation ended: record it with its generator and return the slot
//! to the pool). A slot's generation number rises at each release, so the timers and
//! segments of the conversation that ended do nothing to the next one on the slot.

use super::{AppEv, Ev, Network};
use crate::apps::conversation::ConvApp;
use crate::apps::generator::GenApp;
use crate::ids::ConnId;
use crate::ip::header::{Media, PacketHeader, Proto};
use crate::ip::socket::{SockKey, Socket};
use crate::ip::{App, Conn, Endpoint};
use crate::rng::{self, Purpose};

impl Network {
    /// Generator `g` has an arrival now.
    pub(super) fn spawn(&mut self, g: u32) {
        let now = self.now;
        let seed = self.seed;
        let gen = &mut self.gens[g as usize];
        if let Some(t) = gen.next_arrival(now) {
            self.q.schedule(t, Ev::App(AppEv::Spawn(g)));
        }
        let Some((client, server)) = gen.pick() else {
            gen.stats.skipped += 1;
            return;
        };
        let n = gen.stats.started;
        gen.stats.started += 1;
        gen.stats.open += 1;
        gen.stats.max_open = gen.stats.max_open.max(gen.stats.open);
        let mut hdr = PacketHeader {
            src: client,
            dst: server,
            proto: Proto::Tcp,
            src_port: gen.take_client_port(),
            dst_port: gen.server_port,
            tos: 0,
            media: Media::None,
        };
        // After the client ports wrap, skip one a live conversation with this server holds.
        while self.hosts[client.idx()].sockets.lookup(&SockKey::outgoing(&hdr)).is_some() {
            hdr.src_port = gen.take_client_port();
        }
        let back = PacketHeader { src: server, dst: client, src_port: hdr.dst_port, dst_port: hdr.src_port, ..hdr };
        let key = ((g as u64) << 40) | n;
        let stream = |k: u64| rng::stream(seed, Purpose::TrafficConn, key * 3 + k);
        let ep = [Endpoint::new(gen.tcp, client, hdr, stream(0)), Endpoint::new(gen.tcp, server, back, stream(1))];
        let lowat = gen.tcp.snd_lowat_bytes as u64;
        let app = match gen.app {
            GenApp::Conv(kind, scale, per_item) => {
                let mut a = ConvApp::new(kind, scale, stream(2), lowat);
                a.connection_per_item = per_item;
                App::Conv(Box::new(a))
            }
            GenApp::Bulk { .. } => unreachable!("generators run tcplib conversations"),
        };
        let c = self.take_slot(g, ep, app);
        self.bind_sockets(c);
        self.conns[c.idx()].ep[1].tcp.open_passive();
        self.open_conn(c);
    }

    /// A slot of generator `g`'s pool, holding a new conversation.
    fn take_slot(&mut self, g: u32, ep: [Endpoint; 2], app: App) -> ConnId {
        let now = self.now;
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
        };
        match self.free_conns.pop() {
            Some(c) => {
                let old = &self.conns[c as usize];
                let stale = old.stale_segments;
                self.conns[c as usize] = Conn { stale_segments: stale, ..fresh(old.gen) };
                ConnId(c)
            }
            None => {
                self.conns.push(fresh(0));
                ConnId((self.conns.len() - 1) as u32)
            }
        }
    }

    /// Bind both endpoints of connection `c` on their hosts.
    pub(crate) fn bind_sockets(&mut self, c: ConnId) {
        for (side, ep) in self.conns[c.idx()].ep.iter().enumerate() {
            let fresh = self.hosts[ep.host.idx()]
                .sockets
                .bind(SockKey::outgoing(&ep.hdr), Socket::Tcp { conn: c, side: side as u8 });
            debug_assert!(fresh, "a socket bound twice");
        }
    }

    /// Connection `c` opens: the application starts and the client sends its SYN (the
    /// server already listens).
    pub(super) fn open_conn(&mut self, c: ConnId) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        if let App::Conv(a) = &mut conn.app {
            a.start(now);
        }
        conn.ep[0].tcp.open_active(now);
        self.service(c, 0);
    }

    /// The conversation on pooled slot `c` ended (`aborted` if TCP gave up).
    pub(super) fn release(&mut self, c: ConnId, aborted: bool) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        let g = conn.pooled.expect("a pooled slot") as usize;
        conn.gen = conn.gen.wrapping_add(1);
        for ep in &conn.ep {
            self.hosts[ep.host.idx()].sockets.unbind(&SockKey::outgoing(&ep.hdr));
        }
        let s = &mut self.gens[g].stats;
        s.open -= 1;
        if aborted {
            s.aborted += 1;
        } else {
            s.completed += 1;
            s.durations_s.push(now.since(conn.start).as_secs_f64());
        }
        self.free_conns.push(c.0);
    }
}
