//! Sessions and media conversations in the running network (Mah 1996 §3.3; the logic in
//! [`crate::apps::session`]).
//!
//! Owns: starting a session (`start_session`), opening the connections it asks for
//! (`session_open`, each on a pooled slot of its generator, its endpoints drawing from
//! stream `Purpose::SessionConn`), telling it when a connection has finished its script or
//! was given up (`session_check`, `session_done`), its gates and think times, and spawning
//! audio and video conversations as UDP flows (`spawn_media`).

use super::{AppEv, Ev, Network};
use crate::apps::conversation::ConvApp;
use crate::apps::generator::GenApp;
use crate::apps::session::{Next, Open, Role, Session, SessionSlot, FTP_DATA_PORT};
use crate::apps::udp::{MediaSource, Spacing, UdpFlow, UdpStats};
use crate::apps::vic::VicSource;
use crate::apps::voice::VoiceSource;
use crate::apps::App;
use crate::dist::exponential;
use crate::header::{Media, PacketHeader, Proto};
use crate::ids::{ConnId, NodeId};
use crate::ip::socket::{SockKey, Socket};
use crate::rng::{self, Purpose, Stream};
use crate::time::{SimDuration, SimTime};

/// The port media receivers listen on (RTP's default; classification uses the media tag).
const MEDIA_PORT: u16 = 5004;

impl Network {
    /// Register session `s` and open its first connection.
    pub(super) fn start_session(&mut self, s: Session, first: Open) {
        let sid = self.apps.sessions.len() as u32;
        self.apps.sessions.push(Some(SessionSlot { session: s, control: None, opened: 0 }));
        self.session_open(sid, first);
    }

    /// Open connection `o` for session `sid`.
    fn session_open(&mut self, sid: u32, o: Open) {
        let seed = self.apps.seed;
        let slot = self.apps.sessions[sid as usize].as_mut().expect("a live session");
        let g = slot.session.gen;
        let key = ((sid as u64) << 24) | (slot.opened & 0xff_ffff);
        slot.opened += 1;
        let stream = |k: u64| rng::stream(seed, Purpose::SessionConn, key * 3 + k);
        let lowat = self.apps.gens[g as usize].tcp.snd_lowat_bytes as u64;
        let app = ConvApp::scripted(o.kind, &o.script, &o.gates, stream(2), lowat);
        // Active FTP: the server opens from port 20 to a fresh client port.
        let ports = if o.role == Role::FtpData { (FTP_DATA_PORT, 0) } else { (0, o.port) };
        let c = self.open_tcp(
            g,
            (o.from, o.to),
            ports,
            App::Conv(Box::new(app)),
            [stream(0), stream(1)],
            Some((sid, o.role)),
        );
        if o.role == Role::FtpControl {
            self.apps.sessions[sid as usize].as_mut().expect("a live session").control = Some(c);
        }
    }

    /// After endpoint activity on connection `c`: tell its session if its script is done.
    pub(super) fn session_check(&mut self, c: ConnId) {
        let conn = &mut self.apps.conns[c.idx()];
        let Some((sid, role)) = conn.session else { return };
        let App::Conv(a) = &conn.app else { return };
        if conn.session_told {
            return;
        }
        if let Some(t) = a.script_done_at {
            conn.session_told = true;
            self.session_done(sid, role, true, t);
        }
    }

    /// Connection `role` of session `sid` finished its script at `t` (`completed`) or was
    /// given up.
    pub(super) fn session_done(&mut self, sid: u32, role: Role, completed: bool, t: SimTime) {
        let Some(slot) = self.apps.sessions[sid as usize].as_mut() else { return };
        let g = slot.session.gen as usize;
        match slot.session.on_done(role, completed, t, &mut self.apps.gens[g].stats) {
            Next::Open(o) => self.session_open(sid, o),
            Next::OpenGate => {
                let Some(ctl) = slot.control else { return };
                let conn = &mut self.apps.conns[ctl.idx()];
                if let App::Conv(a) = &mut conn.app {
                    if conn.session == Some((sid, Role::FtpControl)) && a.at_gate() {
                        a.open_gate();
                        self.service(ctl, 0);
                    }
                }
            }
            Next::Think(at) => {
                self.eng.q.schedule(at, Ev::App(AppEv::Think(sid)));
            }
            Next::End => {
                let s = &mut self.apps.gens[g].stats;
                s.open -= 1;
                if completed {
                    s.completed += 1;
                }
                self.apps.sessions[sid as usize] = None;
            }
        }
    }

    /// Session `sid`'s control connection `c` stands at a gate: open the next data
    /// connection.
    pub(super) fn session_gate(&mut self, c: ConnId) {
        let Some((sid, _)) = self.apps.conns[c.idx()].session else { return };
        let now = self.eng.now;
        let Some(slot) = self.apps.sessions[sid as usize].as_mut() else { return };
        let o = slot.session.on_gate(now);
        self.session_open(sid, o);
    }

    /// A browser's think time is over.
    pub(super) fn session_think(&mut self, sid: u32) {
        let now = self.eng.now;
        let Some(slot) = self.apps.sessions[sid as usize].as_mut() else { return };
        let gen = &mut self.apps.gens[slot.session.gen as usize];
        let o = slot.session.on_timer(&gen.servers, &mut gen.choice, now);
        self.session_open(sid, o);
    }

    /// Generator `g` starts an audio or video conversation from `from` to `to` now: a UDP
    /// flow of exponential duration (its stream `r` draws the duration, then the packets).
    pub(super) fn spawn_media(&mut self, g: u32, from: NodeId, to: NodeId, mut r: Stream) {
        let now = self.eng.now;
        let gen = &mut self.apps.gens[g as usize];
        let n = gen.stats.started - 1;
        // A media conversation is not "open" in the generator's sense: it ends on its own.
        gen.stats.open -= 1;
        let (source, mean, media) = match gen.app {
            GenApp::Audio(cfg, mean) => (MediaSource::Voice(VoiceSource::new(cfg, &mut r)), mean, Media::Audio),
            GenApp::Video(cfg, mean) => (MediaSource::Vic(VicSource::new(cfg, &mut r)), mean, Media::Video),
            _ => unreachable!("a media generator"),
        };
        let duration = SimDuration::from_secs_f64(exponential(&mut r, mean));
        let mut hdr =
            PacketHeader { src: from, dst: to, proto: Proto::Udp, src_port: 0, dst_port: MEDIA_PORT, tos: 0, media };
        loop {
            hdr.src_port = gen.take_client_port();
            if self.ip.hosts[to.idx()].sockets.lookup(&SockKey::incoming(&hdr)).is_none() {
                break;
            }
        }
        let f = self.apps.udp.len() as u32;
        let bound = self.ip.hosts[to.idx()].sockets.bind(SockKey::incoming(&hdr), Socket::Udp { flow: f });
        debug_assert!(bound);
        let stop = (now + duration).min(self.eng.until);
        self.apps.udp.push(UdpFlow {
            name: format!("{}#{n}", gen.name),
            hdr,
            ip_bytes: 0,
            gap: SimDuration::ZERO,
            spacing: Spacing::Media(Box::new((source, r))),
            start: now,
            stop,
            late_after: SimDuration::from_millis(150),
            stats: UdpStats::default(),
            gen: Some(g),
        });
        self.eng.q.schedule(now, Ev::App(AppEv::Udp(f)));
    }
}
