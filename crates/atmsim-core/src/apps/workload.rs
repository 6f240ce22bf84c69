//! The workload of a network: its connection slots, traffic generators and the sessions and
//! media conversations they open, UDP flows and cell sources.
//!
//! Owns: [`Workload`] and the bookkeeping between its parts — a generator's arrival
//! ([`Workload::arrival`]: the hosts, the conversation's random streams and what it runs), a
//! generator's pool of connection slots ([`Workload::open_slot`], [`Workload::end_slot`],
//! [`Workload::free_slot`]: a slot is taken from the pool, or added, and returns to it when its
//! conversation ends), sessions' connections and gates ([`Workload::session_done`] and the
//! methods beside it), and the warm-up snapshot. It is sans-I/O: the network binds sockets,
//! schedules the events and hands segments to IP; what to do next comes back as a value.
//!
//! **Random streams.** A generated conversation's endpoints and application draw from
//! streams keyed by the generator and the conversation's number (`Purpose::TrafficConn`), a
//! session's connections from streams keyed by the session and the connection's number
//! (`Purpose::SessionConn`): common random numbers across policies (Mah §3.5.1, spec A-24).

use super::cell_source::CellSource;
use super::conversation::ConvApp;
use super::generator::{GenApp, Generator};
use super::session::{Next, Open, Role, Session, SessionSlot, FTP_DATA_PORT};
use super::slot::{App, Conn};
use super::udp::{MediaSource, Spacing, UdpFlow, UdpStats};
use super::vic::VicSource;
use super::voice::VoiceSource;
use crate::dist::exponential;
use crate::header::{Media, PacketHeader, Proto};
use crate::ids::{ConnId, NodeId};
use crate::rng::{self, Purpose, Stream};
use crate::time::{SimDuration, SimTime};
use crate::transport::Endpoint;

/// The port media receivers listen on (RTP's default; classification uses the media tag).
pub const MEDIA_PORT: u16 = 5004;

/// How long after its sending a media packet counts as late (Mah §3.3.6: 150 ms).
const MEDIA_LATE_AFTER: SimDuration = SimDuration::from_millis(150);

/// The workload of a network: its connection slots and the applications driving them,
/// traffic generators and the sessions they open, UDP flows and cell sources.
pub struct Workload {
    conns: Vec<Conn>,
    /// Connection slots of the `[[tcp]]` sections (the rest are generators' pools).
    fixed_conns: usize,
    /// Pooled slots free for the next conversation.
    free_conns: Vec<u32>,
    /// Traffic generators; their conversations use `conns[fixed_conns..]`.
    gens: Vec<Generator>,
    /// Generated sessions (FTP sessions, browsers), by number; `None` once ended.
    sessions: Vec<Option<SessionSlot>>,
    pub sources: Vec<CellSource>,
    pub udp: Vec<UdpFlow>,
    /// The run's master seed (generated conversations derive their streams from it).
    seed: u64,
}

/// A TCP connection to open on a pooled slot of generator `g`: `hosts` = (opener, other
/// end), `ports` = (opener's port, the other end's; 0 = the generator's next client port),
/// the application and its endpoints' streams, and the session it works for.
pub struct Opening {
    pub g: u32,
    pub hosts: (NodeId, NodeId),
    pub ports: (u16, u16),
    pub app: App,
    pub streams: [Stream; 2],
    pub session: Option<(u32, Role)>,
}

/// What a generator's arrival opens ([`Workload::arrival`]).
pub enum Drawn {
    /// Nothing: no server other than the client to talk to.
    Nothing,
    /// A tcplib conversation on one connection.
    Conversation(Opening),
    /// A session (FTP or a browser), registered as number `sid`, and its first connection.
    Session(u32, Open),
    /// An audio or video conversation from `from` to `to`, drawing from `stream`.
    Media { from: NodeId, to: NodeId, stream: Stream },
}

/// What a session does after one of its connections ended ([`Workload::session_done`]).
pub enum SessionStep {
    /// Nothing now.
    Wait,
    /// Open this connection for session `sid`.
    Open(u32, Open),
    /// Its FTP control connection's gate opened: the slot's client has work to do.
    Service(ConnId),
    /// A browser thinks until then (session `sid`).
    Think(u32, SimTime),
}

impl Workload {
    /// The workload of a scenario: its `[[tcp]]` slots, generators, cell sources and UDP
    /// flows; `seed` is the run's master seed.
    pub fn new(conns: Vec<Conn>, gens: Vec<Generator>, sources: Vec<CellSource>, udp: Vec<UdpFlow>, seed: u64) -> Self {
        let fixed_conns = conns.len();
        Workload { conns, fixed_conns, free_conns: Vec::new(), gens, sessions: Vec::new(), sources, udp, seed }
    }

    /// Connection slot `c`.
    #[inline]
    pub fn slot(&self, c: ConnId) -> &Conn {
        &self.conns[c.idx()]
    }

    /// Connection slot `c`, to drive.
    #[inline]
    pub fn slot_mut(&mut self, c: ConnId) -> &mut Conn {
        &mut self.conns[c.idx()]
    }

    /// Every connection slot: the `[[tcp]]` sections' first, then the generators' pools.
    pub fn slots(&self) -> &[Conn] {
        &self.conns
    }

    /// The slots of the `[[tcp]]` sections, in scenario order.
    pub fn fixed_slots(&self) -> &[Conn] {
        &self.conns[..self.fixed_conns]
    }

    /// The slots of the `[[tcp]]` sections, to sample.
    pub fn fixed_slots_mut(&mut self) -> &mut [Conn] {
        &mut self.conns[..self.fixed_conns]
    }

    /// The generators' pools: (slots, of which free now).
    pub fn pool_sizes(&self) -> (usize, usize) {
        (self.conns.len() - self.fixed_conns, self.free_conns.len())
    }

    pub fn generators(&self) -> &[Generator] {
        &self.gens
    }

    /// When each generator's first arrival is, in generator order.
    pub fn generator_starts(&self) -> impl Iterator<Item = SimTime> + '_ {
        self.gens.iter().map(|g| g.start)
    }

    /// The end of the warm-up: every slot's and every cell source's counters that rates over
    /// the window start from.
    pub fn snapshot_warm(&mut self) {
        for c in &mut self.conns {
            c.snapshot_warm();
        }
        for s in &mut self.sources {
            s.bytes_rcvd_warm = s.bytes_rcvd;
        }
    }

    /// Generator `g` has an arrival now: its next arrival (if any), and what this one opens.
    /// Counts the conversation as started and open.
    pub fn arrival(&mut self, g: u32, now: SimTime) -> (Option<SimTime>, Drawn) {
        let seed = self.seed;
        let gen = &mut self.gens[g as usize];
        // A browser arrival that places the last browser is the generator's last.
        let last = gen.app == GenApp::Browser && gen.unplaced.len() <= 1;
        let next = gen.next_arrival(now).filter(|_| !last);
        let Some((client, server)) = gen.pick() else {
            gen.stats.skipped += 1;
            return (next, Drawn::Nothing);
        };
        let n = gen.stats.started;
        gen.stats.started += 1;
        gen.stats.open += 1;
        gen.stats.max_open = gen.stats.max_open.max(gen.stats.open);
        let key = ((g as u64) << 40) | n;
        let stream = |k: u64| rng::stream(seed, Purpose::TrafficConn, key * 3 + k);
        let drawn = match gen.app.clone() {
            GenApp::Conv { kind, scale, per_item, handshake, keystrokes } => {
                let lowat = gen.tcp.snd_lowat_bytes as u64;
                let mut a = ConvApp::new(kind, scale, stream(2), lowat);
                a.connection_per_item = per_item;
                a.smtp_handshake = handshake;
                a.telnet_keystrokes = keystrokes;
                Drawn::Conversation(Opening {
                    g,
                    hosts: (client, server),
                    ports: (0, gen.server_port),
                    app: App::Conv(Box::new(a)),
                    streams: [stream(0), stream(1)],
                    session: None,
                })
            }
            GenApp::FtpSession { scale } => {
                let (s, open) = Session::ftp(g, client, server, scale, stream(2), now);
                Drawn::Session(self.add_session(s), open)
            }
            GenApp::Browser => {
                let (s, open) = Session::browser(g, client, &gen.servers, &mut gen.choice, stream(2), now);
                Drawn::Session(self.add_session(s), open)
            }
            GenApp::Audio(..) | GenApp::Video(..) => Drawn::Media { from: client, to: server, stream: stream(2) },
            GenApp::Bulk { .. } => unreachable!("generators run tcplib conversations and sessions"),
        };
        (next, drawn)
    }

    /// Open `o` on a slot of its generator's pool (taken from the pool, or added) with
    /// fresh endpoints, at `now`. Client ports come from the generator's counter, skipping
    /// any for which `taken(opener's header, other end's header)` says a live conversation
    /// of either host holds the pair (after the counter wraps). The slot's endpoints are
    /// closed: the network binds them and opens the slot.
    pub fn open_slot(&mut self, o: Opening, now: SimTime, taken: impl Fn(&PacketHeader, &PacketHeader) -> bool) -> ConnId {
        let Opening { g, hosts: (client, server), ports, app, streams: [s0, s1], session } = o;
        let gen = &mut self.gens[g as usize];
        let mut hdr = PacketHeader {
            src: client,
            dst: server,
            proto: Proto::Tcp,
            src_port: ports.0,
            dst_port: ports.1,
            tos: 0,
            media: Media::None,
        };
        let back = |hdr: &PacketHeader| PacketHeader {
            src: server,
            dst: client,
            src_port: hdr.dst_port,
            dst_port: hdr.src_port,
            ..*hdr
        };
        loop {
            if ports.0 == 0 {
                hdr.src_port = gen.take_client_port();
            }
            if ports.1 == 0 {
                hdr.dst_port = gen.take_client_port();
            }
            if !taken(&hdr, &back(&hdr)) {
                break;
            }
        }
        let ep = [Endpoint::new(gen.tcp, client, hdr, s0), Endpoint::new(gen.tcp, server, back(&hdr), s1)];
        let c = match self.free_conns.pop() {
            Some(c) => {
                let old = &self.conns[c as usize];
                self.conns[c as usize] = Conn::pooled(g, now, ep, app, old.gen(), old.stale_segments());
                ConnId(c)
            }
            None => {
                self.conns.push(Conn::pooled(g, now, ep, app, 0, 0));
                ConnId((self.conns.len() - 1) as u32)
            }
        };
        self.conns[c.idx()].set_session(session);
        c
    }

    /// The conversation on pooled slot `c` ended at `now` (`aborted` if TCP gave up): its
    /// segments and timers still pending are stale from here on, and its generator counts it
    /// — or, for a session's connection, the session it worked for if that has not heard
    /// yet ([`Workload::session_done`]). The slot returns to the pool with
    /// [`Workload::free_slot`], after the session has heard.
    pub fn end_slot(&mut self, c: ConnId, now: SimTime, aborted: bool) -> Option<(u32, Role)> {
        let conn = &mut self.conns[c.idx()];
        let g = conn.pool().expect("a pooled slot") as usize;
        conn.end(now, aborted, &mut self.gens[g].stats)
    }

    /// Pooled slot `c` is free for the next conversation.
    pub fn free_slot(&mut self, c: ConnId) {
        self.free_conns.push(c.0);
    }

    /// Register session `s`: its number.
    fn add_session(&mut self, s: Session) -> u32 {
        self.sessions.push(Some(SessionSlot { session: s, control: None, opened: 0 }));
        (self.sessions.len() - 1) as u32
    }

    /// Connection `o` of session `sid`, to open on a slot of its generator: its endpoints
    /// and script draw from the session's streams.
    pub fn session_opening(&mut self, sid: u32, o: Open) -> Opening {
        let slot = self.sessions[sid as usize].as_mut().expect("a live session");
        let g = slot.session.gen;
        let key = ((sid as u64) << 24) | (slot.opened & 0xff_ffff);
        slot.opened += 1;
        let seed = self.seed;
        let stream = |k: u64| rng::stream(seed, Purpose::SessionConn, key * 3 + k);
        let lowat = self.gens[g as usize].tcp.snd_lowat_bytes as u64;
        let app = ConvApp::scripted(o.kind, &o.script, &o.gates, stream(2), lowat);
        // Active FTP: the server opens from port 20 to a fresh client port.
        let ports = if o.role == Role::FtpData { (FTP_DATA_PORT, 0) } else { (0, o.port) };
        Opening {
            g,
            hosts: (o.from, o.to),
            ports,
            app: App::Conv(Box::new(app)),
            streams: [stream(0), stream(1)],
            session: Some((sid, o.role)),
        }
    }

    /// Session `sid`'s connection in `role` opened on slot `c`.
    pub fn session_opened(&mut self, sid: u32, role: Role, c: ConnId) {
        if role == Role::FtpControl {
            self.sessions[sid as usize].as_mut().expect("a live session").control = Some(c);
        }
    }

    /// Session `sid`'s connection in `role` finished its script at `t` (`completed`) or was
    /// given up: what the session does next.
    pub fn session_done(&mut self, sid: u32, role: Role, completed: bool, t: SimTime) -> SessionStep {
        let Some(slot) = self.sessions[sid as usize].as_mut() else { return SessionStep::Wait };
        let g = slot.session.gen as usize;
        match slot.session.on_done(role, completed, t, &mut self.gens[g].stats) {
            Next::Open(o) => SessionStep::Open(sid, o),
            Next::OpenGate => match slot.control {
                Some(ctl) if self.conns[ctl.idx()].open_control_gate(sid) => SessionStep::Service(ctl),
                _ => SessionStep::Wait,
            },
            Next::Think(at) => SessionStep::Think(sid, at),
            Next::End => {
                let s = &mut self.gens[g].stats;
                s.open -= 1;
                if completed {
                    s.completed += 1;
                }
                self.sessions[sid as usize] = None;
                SessionStep::Wait
            }
        }
    }

    /// Slot `c`'s client stands at a gate of its session at `now`: the connection the
    /// session opens next.
    pub fn session_gate(&mut self, c: ConnId, now: SimTime) -> Option<(u32, Open)> {
        let (sid, _) = self.conns[c.idx()].session()?;
        let slot = self.sessions[sid as usize].as_mut()?;
        Some((sid, slot.session.on_gate(now)))
    }

    /// Session `sid`'s think time is over at `now`: the connection it opens next.
    pub fn session_think(&mut self, sid: u32, now: SimTime) -> Option<Open> {
        let slot = self.sessions[sid as usize].as_mut()?;
        let gen = &mut self.gens[slot.session.gen as usize];
        Some(slot.session.on_timer(&gen.servers, &mut gen.choice, now))
    }

    /// Generator `g` starts an audio or video conversation from `from` to `to` at `now`: a
    /// UDP flow of exponential duration, ending by `until` at the latest (stream `r` draws
    /// the duration, then the packets). Its source port is the generator's next client port
    /// for which `taken(header)` says no flow to `to` holds it. Returns the flow's number.
    pub fn start_media(
        &mut self,
        g: u32,
        (from, to): (NodeId, NodeId),
        mut r: Stream,
        (now, until): (SimTime, SimTime),
        taken: impl Fn(&PacketHeader) -> bool,
    ) -> u32 {
        let gen = &mut self.gens[g as usize];
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
            if !taken(&hdr) {
                break;
            }
        }
        self.udp.push(UdpFlow {
            name: format!("{}#{n}", gen.name),
            hdr,
            ip_bytes: 0,
            gap: SimDuration::ZERO,
            spacing: Spacing::Media(Box::new((source, r))),
            start: now,
            stop: (now + duration).min(until),
            late_after: MEDIA_LATE_AFTER,
            stats: UdpStats::default(),
            gen: Some(g),
        });
        (self.udp.len() - 1) as u32
    }

}
