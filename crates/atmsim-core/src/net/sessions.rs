//! Sessions and media conversations in the running network (Mah 1996 §3.3; the logic in
//! [`crate::apps::session`], the bookkeeping in [`crate::apps::workload`]).
//!
//! Owns: opening the connections a session asks for (`session_open`, each on a pooled slot
//! of its generator), telling it when a connection has finished its script or was given up
//! (`session_check`, `session_done`) and scheduling what it does next (a connection, a
//! gate opened on its control connection, a think time), and starting audio and video
//! conversations as UDP flows (`spawn_media`).

use super::{AppEv, Ev, Network};
use crate::apps::session::{Open, Role};
use crate::apps::workload::SessionStep;
use crate::ids::{ConnId, NodeId};
use crate::transport::socket::{SockKey, Socket};
use crate::rng::Stream;
use crate::time::SimTime;

impl Network {
    /// Open connection `o` for session `sid`.
    pub(super) fn session_open(&mut self, sid: u32, o: Open) {
        let role = o.role;
        let opening = self.apps.session_opening(sid, o);
        let c = self.open_tcp(opening);
        self.apps.session_opened(sid, role, c);
    }

    /// After endpoint activity on connection `c`: tell its session if its script is done.
    pub(super) fn session_check(&mut self, c: ConnId) {
        if let Some((sid, role, t)) = self.apps.slot_mut(c).session_news() {
            self.session_done(sid, role, true, t);
        }
    }

    /// Connection `role` of session `sid` finished its script at `t` (`completed`) or was
    /// given up.
    pub(super) fn session_done(&mut self, sid: u32, role: Role, completed: bool, t: SimTime) {
        match self.apps.session_done(sid, role, completed, t) {
            SessionStep::Wait => {}
            SessionStep::Open(sid, o) => self.session_open(sid, o),
            SessionStep::Service(ctl) => self.service(ctl, 0),
            SessionStep::Think(sid, at) => {
                self.eng.q.schedule(at, Ev::App(AppEv::Think(sid)));
            }
        }
    }

    /// Connection `c` of a session stands at a gate: open the session's next connection.
    pub(super) fn session_gate(&mut self, c: ConnId) {
        if let Some((sid, o)) = self.apps.session_gate(c, self.eng.now) {
            self.session_open(sid, o);
        }
    }

    /// A browser's think time is over.
    pub(super) fn session_think(&mut self, sid: u32) {
        if let Some(o) = self.apps.session_think(sid, self.eng.now) {
            self.session_open(sid, o);
        }
    }

    /// Generator `g` starts an audio or video conversation from `from` to `to` now (stream
    /// `r`): its flow's receiver is bound and its first packet goes at once.
    pub(super) fn spawn_media(&mut self, g: u32, from: NodeId, to: NodeId, r: Stream) {
        let now = self.eng.now;
        let sockets = &self.sockets;
        let taken = |hdr: &crate::header::PacketHeader| sockets.is_bound(to, &SockKey::incoming(hdr));
        let f = self.apps.start_media(g, (from, to), r, (now, self.eng.until), taken);
        let hdr = self.apps.udp[f as usize].hdr;
        let bound = self.sockets.bind(to, SockKey::incoming(&hdr), Socket::Udp { flow: f });
        debug_assert!(bound);
        self.eng.q.schedule(now, Ev::App(AppEv::Udp(f)));
    }
}
