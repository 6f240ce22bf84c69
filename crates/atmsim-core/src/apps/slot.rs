//! Connection slots: a TCP connection's two endpoints and the application that drives them,
//! with what the application has read and sent.
//!
//! Owns: [`Conn`] (a slot), [`App`] (its application: a bulk sender, or tcplib conversations
//! one after another), and the slot's life: the application's step after endpoint activity
//! ([`Conn::run_app`]), the segments its endpoints send ([`Conn::poll_transmit`]), stale
//! segments of an earlier conversation ([`Conn::accepts`]), and the recycling rule
//! ([`Conn::recycle`]). A pooled slot is reused by conversation after conversation
//! ([`Conn::gen`]); the network schedules what a slot asks for and hands its segments to IP.

use super::bulk::BulkSender;
use super::conversation::{Actions, ConvApp, Kind as ConvKind};
use super::generator::GenStats;
use super::session::Role;
use crate::header::PacketHeader;
use crate::ids::NodeId;
use crate::time::SimTime;
use crate::transport::tcp::{Segment, State};
use crate::transport::Endpoint;

/// The application of a connection slot.
pub enum App {
    /// ttcp-like bulk sender; the server reads everything (one connection, never recycled).
    Bulk(BulkSender),
    /// tcplib conversations, one after another ([`crate::apps::conversation`]).
    Conv(Box<ConvApp>),
}

impl App {
    pub fn kind_name(&self) -> &'static str {
        match self {
            App::Bulk(_) => "bulk",
            App::Conv(a) => a.kind.name(),
        }
    }
}

/// A TCP connection: side 0 is the client (active opener, bulk sender), side 1 the server
/// (passive opener, sink).
pub struct Conn {
    name: String,
    /// The traffic generator whose pool the slot belongs to (`None`: a `[[tcp]]` slot).
    pooled: Option<u32>,
    start: SimTime,
    ep: [Endpoint; 2],
    app: App,
    /// Conversation number of the current endpoint pair (segments carry it; a segment of an
    /// earlier generation is stale and dropped on delivery).
    gen: u32,
    /// Segments of earlier conversations dropped on delivery.
    stale_segments: u64,
    /// Bytes the server application has read (client → server).
    bytes_read: u64,
    /// Counters at the end of the warm-up.
    warm: Warm,
    /// `bytes_read` at the previous sample (for per-interval goodput).
    bytes_read_sampled: u64,
    /// When the sink read the last byte of a finite transfer.
    finished_at: Option<SimTime>,
    /// The session the connection works for, and its role there (generated sessions only);
    /// `session_told`: the session has heard that the connection is done.
    session: Option<(u32, Role)>,
    session_told: bool,
}

/// A slot's counters at the end of the warm-up: the bases of rates over the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Warm {
    /// Bytes the server application had read (client → server).
    pub bytes_read: u64,
    /// Payload bytes the client's TCP had sent, retransmissions included: the base of the
    /// offered load (Koçyiğit §III efficiency).
    pub bytes_sent: u64,
    /// Segments and bytes the client's TCP had retransmitted.
    pub rexmt_segs: u64,
    pub rexmt_bytes: u64,
    /// Bytes the client application had read (server → client).
    pub s2c_bytes: u64,
}

/// What the recycling rule decided after a slot was serviced ([`Conn::recycle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recycle {
    /// The conversation goes on.
    Running,
    /// A pooled slot's conversation is over (`aborted`: TCP gave up): the slot returns to
    /// its generator's pool.
    Release { aborted: bool },
    /// A fresh pair of endpoints opened on the slot (the next conversation of a fixed slot,
    /// or the next item's connection of an FTP conversation): the client has a SYN to send.
    Reopened,
}

/// A segment an endpoint sends: from its host, with its header; the receiving side and the
/// slot's generation go into the datagram's payload.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing {
    pub host: NodeId,
    pub hdr: PacketHeader,
    pub seg: Segment,
}

impl Conn {
    /// A slot of a `[[tcp]]` section, opening at `start`.
    pub fn fixed(name: String, start: SimTime, ep: [Endpoint; 2], app: App) -> Conn {
        Conn {
            name,
            pooled: None,
            start,
            ep,
            app,
            gen: 0,
            stale_segments: 0,
            bytes_read: 0,
            warm: Warm::default(),
            bytes_read_sampled: 0,
            finished_at: None,
            session: None,
            session_told: false,
        }
    }

    /// A slot of generator `g`'s pool holding a new conversation from `now`, at generation
    /// `gen` and having dropped `stale` segments so far.
    pub(super) fn pooled(g: u32, now: SimTime, ep: [Endpoint; 2], app: App, gen: u32, stale: u64) -> Conn {
        Conn { pooled: Some(g), gen, stale_segments: stale, ..Conn::fixed(String::new(), now, ep, app) }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The generator whose pool the slot belongs to (`None`: a `[[tcp]]` slot).
    pub fn pool(&self) -> Option<u32> {
        self.pooled
    }

    /// When the slot's current conversation started (a `[[tcp]]` slot: when it opens).
    pub fn start(&self) -> SimTime {
        self.start
    }

    /// The conversation number of the current endpoint pair.
    #[inline]
    pub fn gen(&self) -> u32 {
        self.gen
    }

    #[inline]
    pub fn endpoint(&self, side: usize) -> &Endpoint {
        &self.ep[side]
    }

    #[inline]
    pub fn endpoint_mut(&mut self, side: usize) -> &mut Endpoint {
        &mut self.ep[side]
    }

    pub fn app(&self) -> &App {
        &self.app
    }

    pub fn stale_segments(&self) -> u64 {
        self.stale_segments
    }

    /// Bytes the server application has read (client → server).
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// When the sink read the last byte of a finite transfer.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.finished_at
    }

    /// The counters at the end of the warm-up.
    pub fn warm(&self) -> &Warm {
        &self.warm
    }

    pub(super) fn set_session(&mut self, session: Option<(u32, Role)>) {
        self.session = session;
    }

    /// The session the connection works for, and its role there.
    pub fn session(&self) -> Option<(u32, Role)> {
        self.session
    }

    /// A segment of generation `gen` reaches the slot: true if it is the current
    /// conversation's; otherwise it is counted stale and dropped.
    #[inline]
    pub fn accepts(&mut self, gen: u32) -> bool {
        if gen != self.gen {
            self.stale_segments += 1;
            return false;
        }
        true
    }

    /// The application's timer of generation `g` fires at `now`: what the client's
    /// application does (`None`: the timer belongs to an earlier conversation or was
    /// re-armed).
    pub fn app_timer(&mut self, g: u32, now: SimTime) -> Option<Actions> {
        if g != self.gen {
            return None;
        }
        let App::Conv(a) = &mut self.app else { return None };
        if a.timer_at != Some(now) {
            return None;
        }
        Some(a.on_timer(self.ep[0].tcp_mut(), now))
    }

    /// After anything happened to endpoint `side`: the application reads and writes what it
    /// can, and says what the network should schedule.
    #[inline]
    pub fn run_app(&mut self, side: usize, now: SimTime) -> Actions {
        let mut act = Actions::default();
        match &mut self.app {
            App::Bulk(app) => {
                if side == 0 {
                    app.pump(self.ep[0].tcp_mut());
                } else {
                    let n = self.ep[1].tcp_mut().recv(u64::MAX);
                    self.bytes_read += n;
                    if n > 0 && self.finished_at.is_none() && app.total_bytes == Some(self.bytes_read) {
                        self.finished_at = Some(now);
                    }
                }
            }
            App::Conv(app) => {
                if side == 0 {
                    act = app.on_client(self.ep[0].tcp_mut(), now);
                } else {
                    let (a, n) = app.on_server(self.ep[1].tcp_mut(), now);
                    self.bytes_read += n;
                    act = a;
                }
            }
        }
        act
    }

    /// The next segment endpoint `side` sends now, if TCP has one.
    #[inline]
    pub fn poll_transmit(&mut self, side: usize, now: SimTime) -> Option<Outgoing> {
        let ep = &mut self.ep[side];
        let seg = ep.tcp_mut().poll_transmit(now)?;
        Some(Outgoing { host: ep.host(), hdr: *ep.hdr(), seg })
    }

    /// The client application waits at a gate of its session and the slot is the session's
    /// FTP control connection `sid`: open the gate (true: the client has work to do).
    pub(super) fn open_control_gate(&mut self, sid: u32) -> bool {
        let App::Conv(a) = &mut self.app else { return false };
        if self.session == Some((sid, Role::FtpControl)) && a.at_gate() {
            a.open_gate();
            return true;
        }
        false
    }

    /// The slot's session has not heard yet that its script is done: the session, the role
    /// and when it was done (it counts as heard from here on).
    pub fn session_news(&mut self) -> Option<(u32, Role, SimTime)> {
        let (sid, role) = self.session?;
        let App::Conv(a) = &self.app else { return None };
        if self.session_told {
            return None;
        }
        let t = a.script_done_at?;
        self.session_told = true;
        Some((sid, role, t))
    }

    /// **Recycling rule.** A conversation is over when its client application has closed and
    /// both endpoints are CLOSED or TIME_WAIT (normal end: the server reached CLOSED on the
    /// ACK of its FIN, the client sits in TIME_WAIT), or when TCP dropped either endpoint
    /// (CLOSED although the application had not finished: retransmission give-up; counted as
    /// aborted). A fixed slot then starts its next conversation at once on the same VC: a
    /// fresh pair of endpoints with the same configuration, new ISSs drawn from each
    /// endpoint's stream, the same timer-grid phases, and the next generation number; a
    /// pooled slot is released to its generator's pool. The old endpoints vanish (a
    /// TIME_WAIT endpoint is not kept: the new pair is told apart by its generation, as a
    /// new port pair would be); their segments still in the network are dropped on delivery
    /// (`stale_segments`) and their pending ticks and timers do nothing. An FTP
    /// conversation with a connection per item reopens the same way between its items (the
    /// conversation is neither finished nor, if pooled, released).
    #[inline]
    pub fn recycle(&mut self, now: SimTime) -> Recycle {
        let App::Conv(app) = &mut self.app else { return Recycle::Running };
        let (s0, s1) = (self.ep[0].tcp().state(), self.ep[1].tcp().state());
        let done = |s: State| matches!(s, State::Closed | State::TimeWait);
        let normal = app.client_closed() && done(s0) && done(s1);
        let aborted = !normal
            && app.conversations_started > 0
            && ((s0 == State::Closed && !app.client_closed()) || (s1 == State::Closed && !done(s0)));
        if !(normal || aborted) {
            return Recycle::Running;
        }
        if normal && app.has_next_connection() {
            // FTP with a connection per item: the conversation goes on with its next item on
            // a fresh connection (pooled or not, the slot stays with this conversation).
            app.next_connection();
        } else {
            app.finish(aborted);
            if self.pooled.is_some() {
                return Recycle::Release { aborted };
            }
            app.start(now);
        }
        self.gen = self.gen.wrapping_add(1);
        for ep in &mut self.ep {
            ep.renew();
        }
        self.ep[1].tcp_mut().open_passive();
        self.ep[0].tcp_mut().open_active(now);
        Recycle::Reopened
    }

    /// The server's endpoint listens.
    pub fn listen(&mut self) {
        self.ep[1].tcp_mut().open_passive();
    }

    /// The slot opens now: the application starts and the client's TCP opens (the server
    /// already listens).
    pub fn open(&mut self, now: SimTime) {
        if let App::Conv(a) = &mut self.app {
            a.start(now);
        }
        self.ep[0].tcp_mut().open_active(now);
    }

    /// The pooled conversation is over at `now` (`aborted`: TCP gave up): later segments and
    /// timers of it are stale. A conversation of its own is counted in its generator's
    /// `stats`; a session's connection returns its session, if that has not heard yet (the
    /// session counts its conversations).
    pub(super) fn end(&mut self, now: SimTime, aborted: bool, stats: &mut GenStats) -> Option<(u32, Role)> {
        self.gen = self.gen.wrapping_add(1);
        let (session, told) = (self.session.take(), self.session_told);
        let App::Conv(app) = &self.app else { unreachable!("pooled slots run conversations") };
        if aborted {
            stats.aborted += 1;
        }
        if session.is_some() {
            return session.filter(|_| !told);
        }
        stats.open -= 1;
        if !aborted {
            stats.completed += 1;
            stats.durations_s.push(now.since(self.start).as_secs_f64());
            if app.kind == ConvKind::Telnet {
                if let Some(t) = app.established_at {
                    stats.metrics.record("connect_s", t.since(self.start).as_secs_f64());
                }
                for &(_, d) in &app.echo_samples {
                    stats.metrics.record("response_s", d);
                }
            }
        }
        None
    }

    /// The end of the warm-up: the counters that rates over the window start from.
    pub(super) fn snapshot_warm(&mut self) {
        let s = self.ep[0].tcp().stats();
        self.warm = Warm {
            bytes_read: self.bytes_read,
            bytes_sent: s.bytes_sent,
            rexmt_segs: s.rexmt_segs,
            rexmt_bytes: s.rexmt_bytes,
            s2c_bytes: match &self.app {
                App::Conv(a) => a.bytes_s2c,
                App::Bulk(_) => self.warm.s2c_bytes,
            },
        };
    }

    /// Bytes the server application read since the previous sample.
    pub fn take_read_sample(&mut self) -> u64 {
        let n = self.bytes_read - self.bytes_read_sampled;
        self.bytes_read_sampled = self.bytes_read;
        n
    }
}
