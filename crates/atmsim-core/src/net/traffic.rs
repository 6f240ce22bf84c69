//! Traffic generators in the running network: conversations opened on pooled connections.
//!
//! Owns: `spawn` (an arrival of generator `g`: schedule the next, and open what this one
//! draws), `open_tcp` (a connection on a pooled slot: its sockets bound, the server
//! listening, the client's SYN sent) and `release` (a pooled conversation ended: its sockets
//! unbound, its session told, the slot back in the pool). What a generator draws and how
//! its pool is kept are the workload's ([`crate::apps::workload`]); a slot's generation
//! number rises at each release, so the timers and segments of the conversation that ended
//! do nothing to the next one on the slot.

use super::{AppEv, Ev, Network};
use crate::apps::session::{Open, Role};
use crate::apps::workload::{Drawn, Opening};
use crate::ids::{ConnId, NodeId};
use crate::transport::socket::{SockKey, Socket};
use crate::rng::Stream;
use crate::time::SimTime;

impl Network {
    /// Generator `g` has an arrival now.
    pub(super) fn spawn(&mut self, g: u32) {
        let now = self.eng.now;
        let (next, drawn) = self.apps.arrival(g, now);
        if let Some(t) = next {
            self.eng.q.schedule(t, Ev::App(AppEv::Spawn(g)));
        }
        match drawn {
            Drawn::Nothing => {}
            Drawn::Conversation(o) => {
                self.open_tcp(o);
            }
            Drawn::Session(sid, first) => self.session_started(sid, first),
            Drawn::Media { from, to, stream } => self.media_spawned(g, from, to, stream),
        }
    }

    /// Open connection `o` on a pooled slot of its generator: bind its sockets, let the
    /// server listen and the client open.
    pub(super) fn open_tcp(&mut self, o: Opening) -> ConnId {
        let sockets = &self.sockets;
        let taken = |there: &crate::header::PacketHeader, back: &crate::header::PacketHeader| {
            sockets.is_bound(there.src, &SockKey::outgoing(there)) || sockets.is_bound(back.src, &SockKey::outgoing(back))
        };
        let c = self.apps.open_slot(o, self.eng.now, taken);
        self.bind_sockets(c);
        self.apps.slot_mut(c).listen();
        self.open_conn(c);
        c
    }

    /// Connection `c` opens: the application starts and the client sends its SYN (the
    /// server already listens).
    pub(super) fn open_conn(&mut self, c: ConnId) {
        self.apps.slot_mut(c).open(self.eng.now);
        self.service(c, 0);
    }

    /// Bind both endpoints of connection `c` on their hosts.
    pub(crate) fn bind_sockets(&mut self, c: ConnId) {
        for side in 0..2 {
            let ep = self.apps.slot(c).endpoint(side);
            let fresh = self.sockets.bind(ep.host(), SockKey::outgoing(ep.hdr()), Socket::Tcp { conn: c, side: side as u8 });
            debug_assert!(fresh, "a socket bound twice");
        }
    }

    /// The conversation on pooled slot `c` ended (`aborted` if TCP gave up).
    pub(super) fn release(&mut self, c: ConnId, aborted: bool) {
        let now = self.eng.now;
        let untold = self.apps.end_slot(c, now, aborted);
        for side in 0..2 {
            let ep = self.apps.slot(c).endpoint(side);
            self.sockets.unbind(ep.host(), &SockKey::outgoing(ep.hdr()));
        }
        if let Some((sid, role)) = untold {
            self.session_conn_done(sid, role, false, now);
        }
        self.apps.free_slot(c);
    }
}

/// What a traffic generator hands upward, routed by the network (`run.rs`) to the sessions
/// above the connection pool.
pub(super) trait SessionUp {
    /// A generator drew session `sid` (an FTP session or a browser), whose first connection
    /// is `first`.
    fn session_started(&mut self, sid: u32, first: Open);
    /// A generator drew an audio or video conversation from `from` to `to`.
    fn media_spawned(&mut self, g: u32, from: NodeId, to: NodeId, r: Stream);
    /// A connection of session `sid` in role `role` has ended (`completed`: its script ran
    /// to the end) at `t`.
    fn session_conn_done(&mut self, sid: u32, role: Role, completed: bool, t: SimTime);
}
