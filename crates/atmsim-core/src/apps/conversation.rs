//! tcplib conversations: FTP, NNTP, SMTP and TELNET sources that run one conversation
//! after another on a connection slot (Cáceres et al. 1993, §2.1 and §2.4; the workload
//! models of tcplib, Danzig & Jamin 1991).
//!
//! Owns: [`ConvApp`] (the application state of one slot, both ends), [`ConvCounts`] (its
//! counters as a value), [`Kind`], [`Actions`].
//!
//! A *slot* is one `[[tcp]]` entry: a client host, a server host and a VC. The slot's client
//! runs one conversation at a time; "sources begin a new conversation as soon as the
//! previous one ends" (Cáceres §2.4), so the network layer ([`crate::net`]) opens a fresh
//! pair of TCP endpoints at once when a conversation is over (see `Network::recycle`).
//!
//! **Bulk kinds** follow a *script*: a list of messages, each sent by one side and read
//! whole by the other before the next message is written (a request/response lockstep):
//!
//! - `ftp`: `nitems ~ ftp_nitems` (rounded up, ≥ 1); per item a control exchange (client
//!   request, server reply, each `ftp_ctlsize` bytes: the "pauses in transmission due to
//!   control handshakes" of §2.1), the item (`ftp_itemsize` bytes, client → server), and a
//!   server control segment (`ftp_ctlsize`) acknowledging it. tcplib runs FTP control and
//!   data on separate connections. By default atmsim carries the whole conversation on one
//!   connection (so control segments queue behind data of the same conversation, and the
//!   congestion window carries over from one item to the next). With
//!   [`ConvApp::connection_per_item`] each item travels on a TCP connection of its own, as
//!   tcplib's FTP data connections do (Danzig & Jamin 1991; Cáceres §2.1 "pauses in
//!   transmission due to control handshakes"): the client opens a fresh connection, the
//!   item's four messages are exchanged on it, the client closes it, and when both ends are
//!   CLOSED or TIME_WAIT the next item's connection opens at once. Every item thus pays a
//!   SYN handshake and starts in slow start with a fresh RTO estimator. The item's control
//!   exchange rides on its own connection rather than on a separate, long-lived control
//!   connection (a documented simplification: the control messages are 28 bytes on average,
//!   so which connection carries them changes their delay by at most one segment's wait).
//! - `nntp`: `nntp_nitems` articles of `nntp_itemsize` bytes, each preceded by an
//!   IHAVE/335 exchange and acknowledged (235) like an FTP item. tcplib has no NNTP control
//!   table: control sizes are drawn from `ftp_ctlsize` (a documented fit).
//! - `smtp`: HELO, MAIL, RCPT and DATA exchanges, the message (`smtp_itemsize` bytes)
//!   acknowledged by the server (250), then QUIT/221; control sizes from `ftp_ctlsize`
//!   (a documented fit).
//!
//! After the client has read the last message it closes; the server closes when it has read
//! the client's FIN. Sizes are rounded to whole bytes, at least 1.
//!
//! **TELNET**: the conversation lasts `D ~ telnet_duration_ms` from its start. Once the
//! connection is established the client writes packets of `telnet_pktsize` bytes (≥ 1)
//! separated by gaps `~ telnet_interarrival_ms` (the first one a gap after establishment)
//! until `D` has elapsed, then closes. The server echoes every byte it reads at once. tcplib
//! has no TELNET responder table; Cáceres §2.1 says only that replies of varying size
//! accompany the ACKs, so an echo of the same size is the simplest faithful choice (a
//! documented fit). **Echo delay** is the time from the client application's write of a
//! packet until the client application has read the echo of that packet's last byte — the
//! "round-trip delay observed by a TELNET conversation" of Cáceres §4 (Fig. 3–4). Every
//! sample is kept with the time of its write.
//!
//! **TELNET with keystrokes** ([`ConvApp::telnet_keystrokes`], Mah §3.3.1): the client types
//! single-byte keystrokes, one per gap, and the server answers each keystroke as soon as it
//! reads it with a response of `telnet_pktsize` bytes ("a keystroke echo generates only a
//! single byte in return", a finished command many bytes: tcplib's table is the thesis'
//! "size of responses"). The response's size is drawn when the key is typed, from the same
//! stream, so the run is the same whichever end draws first. Its **response time** is the
//! time from the keystroke's write until the client has read the whole response (Mah §3.4:
//! "the time needed to get a response to user keystroke packets"); one sample per keystroke.
//!
//! Writers follow BSD `sosend` as the bulk sender does: a blocked write resumes when at
//! least the send low-water mark (or the rest of the write) fits. Readers read everything
//! in order as soon as it arrives. Applications write only once their endpoint is
//! ESTABLISHED (a `connect()` has returned).
//!
//! Randomness: each slot draws from its own stream (`Purpose::App`, slot index).

use crate::apps::tcplib::tables;
use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::{State, TcpConn};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The tcplib conversation types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Ftp,
    Nntp,
    Smtp,
    Telnet,
    /// One HTTP/1.0 file: the request, the reply, then the client closes (Mah App. A).
    HttpGet,
    /// An FTP session's control connection (Mah §3.3.2): its script waits at gates while
    /// the session's data connections run.
    FtpControl,
    /// One FTP data connection: the file, opened by the server (active FTP).
    FtpData,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ftp => "ftp",
            Kind::Nntp => "nntp",
            Kind::Smtp => "smtp",
            Kind::Telnet => "telnet",
            Kind::HttpGet => "http",
            Kind::FtpControl => "ftp_control",
            Kind::FtpData => "ftp_data",
        }
    }
}

/// What the network must do after an application step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Actions {
    /// Schedule an application timer at this time.
    pub timer: Option<SimTime>,
    /// The other endpoint has something to do (service it).
    pub kick_other: bool,
    /// The script reached a gate: the next message waits for [`ConvApp::open_gate`].
    pub at_gate: bool,
}

impl Actions {
    /// Whether the network has anything to do. Field by field on purpose: the derived
    /// comparison with `Actions::default()` made rustc 1.95 unpack the struct returned by
    /// `on_client`/`on_server` bit by bit in `Network::service`, about 900 instructions per
    /// application step (5 % of Mah's run).
    #[inline]
    pub fn any(&self) -> bool {
        self.timer.is_some() || self.kick_other || self.at_gate
    }
}

/// A slot's application counters over the run, as a value ([`ConvApp::counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvCounts {
    /// Conversations started, completed, and aborted (TCP gave up).
    pub started: u64,
    pub completed: u64,
    pub aborted: u64,
    /// TCP connections opened (one per conversation, or one per item with
    /// `connection_per_item`).
    pub connections: u64,
    /// Bytes read by the server (client → server) and by the client (server → client)
    /// applications.
    pub c2s_bytes: u64,
    pub s2c_bytes: u64,
    /// Bytes of client → server messages read whole (bulk kinds) or packets echoed (TELNET).
    pub c2s_whole_bytes: u64,
    /// Bytes read beyond what the script expected (0 unless the model is wrong).
    pub unexpected_bytes_read: u64,
}

/// One message of a script.
#[derive(Clone, Copy, Debug)]
struct Msg {
    from_client: bool,
    bytes: u64,
}

/// The application state of one slot: the current conversation and the counters.
pub struct ConvApp {
    pub kind: Kind,
    /// Factor applied to item (file, article, message) sizes; 1 = tcplib as measured.
    pub item_scale: f64,
    /// FTP: one TCP connection per item (tcplib's data connections) instead of one per
    /// conversation. Set before the first conversation starts.
    pub connection_per_item: bool,
    /// SMTP: the HELO/MAIL/RCPT/DATA and QUIT exchanges around the message (default); without
    /// them only the message and the server's reply (Mah §3.3.4: "not any of the
    /// handshaking").
    pub smtp_handshake: bool,
    /// TELNET: single-byte keystrokes, each answered by a response of `telnet_pktsize`
    /// bytes (Mah §3.3.1), instead of `telnet_pktsize`-byte packets echoed (Cáceres §2.1).
    pub telnet_keystrokes: bool,
    /// A script given by the caller (kinds without a tcplib script of their own).
    preset: Option<Vec<Msg>>,
    /// Message indices the script may not pass until the caller opens them, in order.
    gates: VecDeque<usize>,
    rng: Stream,
    lowat: u64,
    // ---- current conversation
    msgs: Vec<Msg>,
    idx: usize,
    /// End (exclusive) of the messages the current connection carries.
    conn_end: usize,
    /// Bytes of `msgs[idx]` not yet written (valid once `write_started`).
    write_left: u64,
    write_started: bool,
    /// Bytes of `msgs[idx]` not yet read.
    read_left: u64,
    client_closed: bool,
    server_closed: bool,
    /// TELNET: end of the conversation, first packet scheduled, close requested.
    telnet_end: SimTime,
    telnet_started: bool,
    close_requested: bool,
    /// TELNET: bytes the server read and has not yet echoed.
    echo_pending: u64,
    /// TELNET: client bytes written, server bytes the client will have read once every
    /// packet written so far is answered, and server bytes read by the client (this
    /// conversation).
    c2s_written: u64,
    s2c_owed: u64,
    s2c_read: u64,
    /// TELNET: (end offset in the server's stream of the answer, time of the write) of
    /// packets not yet answered.
    unechoed: VecDeque<(u64, SimTime)>,
    /// TELNET with keystrokes: response sizes of the keystrokes the server has not read.
    responses: VecDeque<u64>,
    /// The pending application timer (only this one is acted on).
    pub timer_at: Option<SimTime>,
    /// When the client endpoint was first seen ESTABLISHED, when the client read the
    /// script's last message, and when the client application closed (this conversation).
    pub established_at: Option<SimTime>,
    pub script_done_at: Option<SimTime>,
    pub client_closed_at: Option<SimTime>,
    // ---- counters over the run
    pub conversations_started: u64,
    pub conversations_completed: u64,
    conversations_aborted: u64,
    /// TCP connections opened (one per conversation, or one per item with
    /// `connection_per_item`).
    connections_opened: u64,
    /// Bytes read by the server / client applications.
    bytes_c2s: u64,
    pub bytes_s2c: u64,
    /// Bytes of client → server messages read whole (bulk kinds) or packets echoed (TELNET).
    c2s_bytes_in_complete_msgs: u64,
    /// Bytes read beyond what the script expected (must stay 0).
    unexpected_bytes: u64,
    /// TELNET echo delays: (time of the write, delay) \[s\].
    pub echo_samples: Vec<(f64, f64)>,
}

fn draw_bytes(r: &mut Stream, d: &crate::dist::EmpiricalCdf) -> u64 {
    (d.sample(r).round() as u64).max(1)
}

impl ConvApp {
    pub fn new(kind: Kind, item_scale: f64, rng: Stream, lowat: u64) -> Self {
        ConvApp {
            kind,
            item_scale,
            connection_per_item: false,
            smtp_handshake: true,
            telnet_keystrokes: false,
            preset: None,
            gates: VecDeque::new(),
            rng,
            lowat,
            msgs: Vec::new(),
            idx: 0,
            conn_end: 0,
            write_left: 0,
            write_started: false,
            read_left: 0,
            client_closed: false,
            server_closed: false,
            telnet_end: SimTime::ZERO,
            telnet_started: false,
            close_requested: false,
            echo_pending: 0,
            c2s_written: 0,
            s2c_owed: 0,
            s2c_read: 0,
            unechoed: VecDeque::new(),
            responses: VecDeque::new(),
            timer_at: None,
            established_at: None,
            script_done_at: None,
            client_closed_at: None,
            conversations_started: 0,
            conversations_completed: 0,
            conversations_aborted: 0,
            connections_opened: 0,
            bytes_c2s: 0,
            bytes_s2c: 0,
            c2s_bytes_in_complete_msgs: 0,
            unexpected_bytes: 0,
            echo_samples: Vec::new(),
        }
    }

    /// The script of one conversation of a bulk kind.
    fn script(&mut self) -> Vec<Msg> {
        let t = tables();
        let scale = self.item_scale;
        let item = move |r: &mut Stream, d: &crate::dist::EmpiricalCdf| {
            ((draw_bytes(r, d) as f64 * scale).round() as u64).max(1)
        };
        let r = &mut self.rng;
        let mut m = Vec::new();
        let c = |b| Msg { from_client: true, bytes: b };
        let s = |b| Msg { from_client: false, bytes: b };
        match self.kind {
            Kind::Ftp | Kind::Nntp => {
                let (ni, isz) = if self.kind == Kind::Ftp {
                    (&t.ftp_nitems, &t.ftp_itemsize)
                } else {
                    (&t.nntp_nitems, &t.nntp_itemsize)
                };
                let n = (ni.sample(r).ceil() as u64).max(1);
                for _ in 0..n {
                    m.push(c(draw_bytes(r, &t.ftp_ctlsize)));
                    m.push(s(draw_bytes(r, &t.ftp_ctlsize)));
                    m.push(c(item(r, isz)));
                    m.push(s(draw_bytes(r, &t.ftp_ctlsize)));
                }
            }
            Kind::Smtp if !self.smtp_handshake => {
                m.push(c(item(r, &t.smtp_itemsize)));
                m.push(s(draw_bytes(r, &t.ftp_ctlsize)));
            }
            Kind::Smtp => {
                for _ in 0..4 {
                    m.push(c(draw_bytes(r, &t.ftp_ctlsize)));
                    m.push(s(draw_bytes(r, &t.ftp_ctlsize)));
                }
                m.push(c(item(r, &t.smtp_itemsize)));
                m.push(s(draw_bytes(r, &t.ftp_ctlsize)));
                m.push(c(draw_bytes(r, &t.ftp_ctlsize)));
                m.push(s(draw_bytes(r, &t.ftp_ctlsize)));
            }
            Kind::Telnet => unreachable!("TELNET has no script"),
            Kind::HttpGet | Kind::FtpControl | Kind::FtpData => {
                unreachable!("these kinds run the script their session gives")
            }
        }
        m
    }

    /// A conversation that runs `script` — `(from_client, bytes)` messages, bytes ≥ 1 —
    /// instead of drawing one, and stops before each message index in `gates` until
    /// [`ConvApp::open_gate`] (used by the sessions of [`crate::apps::session`]).
    pub fn scripted(kind: Kind, script: &[(bool, u64)], gates: &[usize], rng: Stream, lowat: u64) -> Self {
        let mut a = ConvApp::new(kind, 1.0, rng, lowat);
        debug_assert!(!script.is_empty() && script.iter().all(|m| m.1 >= 1));
        a.preset = Some(script.iter().map(|&(from_client, bytes)| Msg { from_client, bytes }).collect());
        a.gates = gates.iter().copied().collect();
        a
    }

    /// The script stands at a gate (its next message waits).
    pub fn at_gate(&self) -> bool {
        self.gates.front() == Some(&self.idx)
    }

    /// Let the script go on past the gate it stands at.
    pub fn open_gate(&mut self) {
        debug_assert!(self.at_gate());
        self.gates.pop_front();
    }

    /// Begin a new conversation at `now` (the network opens fresh endpoints).
    pub fn start(&mut self, now: SimTime) {
        self.conversations_started += 1;
        self.idx = 0;
        self.reset_connection();
        self.telnet_started = false;
        self.close_requested = false;
        self.echo_pending = 0;
        self.c2s_written = 0;
        self.s2c_owed = 0;
        self.s2c_read = 0;
        self.unechoed.clear();
        self.responses.clear();
        self.timer_at = None;
        self.established_at = None;
        self.script_done_at = None;
        self.client_closed_at = None;
        if self.kind == Kind::Telnet {
            self.msgs.clear();
            let d = tables().telnet_duration_ms.sample(&mut self.rng).max(0.0);
            self.telnet_end = now + SimDuration::from_secs_f64(d / 1000.0);
        } else {
            self.msgs = match &self.preset {
                Some(p) => p.clone(),
                None => self.script(),
            };
            self.read_left = self.msgs[0].bytes;
            self.conn_end = self.connection_end();
        }
    }

    /// Per-connection state, fresh for a new connection.
    fn reset_connection(&mut self) {
        self.connections_opened += 1;
        self.write_left = 0;
        self.write_started = false;
        self.client_closed = false;
        self.server_closed = false;
    }

    /// Messages per item in an FTP script (control request, reply, item, reply).
    const FTP_ITEM_MSGS: usize = 4;

    /// Where the messages carried by a connection starting at `idx` end.
    fn connection_end(&self) -> usize {
        if self.connection_per_item && self.kind == Kind::Ftp {
            (self.idx + Self::FTP_ITEM_MSGS).min(self.msgs.len())
        } else {
            self.msgs.len()
        }
    }

    /// The current connection ended normally and the conversation has messages left for a
    /// next one (only with `connection_per_item`).
    pub fn has_next_connection(&self) -> bool {
        self.client_closed && self.idx < self.msgs.len()
    }

    /// Continue the current conversation on a fresh connection (the network has opened new
    /// endpoints): the next item's messages.
    pub fn next_connection(&mut self) {
        debug_assert!(self.has_next_connection());
        self.reset_connection();
        self.conn_end = self.connection_end();
    }

    /// The client application closed and (bulk kinds) the script ran to its end.
    pub fn client_closed(&self) -> bool {
        self.client_closed
    }

    /// The counters over the run.
    pub fn counts(&self) -> ConvCounts {
        ConvCounts {
            started: self.conversations_started,
            completed: self.conversations_completed,
            aborted: self.conversations_aborted,
            connections: self.connections_opened,
            c2s_bytes: self.bytes_c2s,
            s2c_bytes: self.bytes_s2c,
            c2s_whole_bytes: self.c2s_bytes_in_complete_msgs,
            unexpected_bytes_read: self.unexpected_bytes,
        }
    }

    /// TELNET: the echo delays \[s\] of packets written at or after `from_s` \[s\], in the order
    /// written.
    pub fn echo_delays_from(&self, from_s: f64) -> Vec<f64> {
        self.echo_samples.iter().filter(|&&(t, _)| t >= from_s).map(|&(_, d)| d).collect()
    }

    /// The current conversation ended normally (the network checks the TCP states).
    pub fn finish(&mut self, aborted: bool) {
        if aborted {
            self.conversations_aborted += 1;
        } else {
            self.conversations_completed += 1;
        }
    }

    fn gap(&mut self) -> SimDuration {
        let ms = tables().telnet_interarrival_ms.sample(&mut self.rng).max(0.0);
        SimDuration::from_secs_f64(ms / 1000.0)
    }

    fn set_timer(&mut self, t: SimTime, a: &mut Actions) {
        self.timer_at = Some(t);
        a.timer = Some(t);
    }

    /// Copy up to `*left` bytes into the socket following BSD sosend; returns bytes taken.
    fn write(tcp: &mut TcpConn, left: &mut u64, lowat: u64) {
        while *left > 0 {
            let space = tcp.send_space();
            let lowat = lowat.min(tcp.snd_buf_bytes() as u64);
            if space == 0 || (space < lowat && space < *left) {
                return;
            }
            let n = tcp.send(space.min(*left));
            if n == 0 {
                return;
            }
            *left -= n;
        }
    }

    fn open(tcp: &TcpConn) -> bool {
        matches!(tcp.state(), State::Established | State::CloseWait)
    }

    /// Something happened to the client endpoint.
    pub fn on_client(&mut self, tcp: &mut TcpConn, now: SimTime) -> Actions {
        let mut a = Actions::default();
        let n = tcp.recv(u64::MAX);
        self.bytes_s2c += n;
        if self.established_at.is_none() && Self::open(tcp) {
            self.established_at = Some(now);
        }
        if self.kind == Kind::Telnet {
            self.s2c_read += n;
            while let Some(&(end, t)) = self.unechoed.front() {
                if end > self.s2c_read {
                    break;
                }
                self.unechoed.pop_front();
                self.echo_samples.push((t.as_secs_f64(), (now - t).as_secs_f64()));
            }
            if !self.telnet_started && Self::open(tcp) && !self.client_closed {
                self.telnet_started = true;
                let g = self.gap();
                let t = (now + g).min(self.telnet_end.max(now));
                self.set_timer(t, &mut a);
            }
            if !self.client_closed && Self::open(tcp) {
                Self::write(tcp, &mut self.write_left, self.lowat);
                if self.close_requested && self.write_left == 0 {
                    tcp.close();
                    self.client_closed = true;
                    self.client_closed_at = Some(now);
                }
            }
            return a;
        }
        self.consume(true, n, now, &mut a);
        self.pump_script(true, tcp, now, &mut a);
        a
    }

    /// Something happened to the server endpoint. Returns the actions and the bytes read.
    pub fn on_server(&mut self, tcp: &mut TcpConn, now: SimTime) -> (Actions, u64) {
        let mut a = Actions::default();
        let n = tcp.recv(u64::MAX);
        self.bytes_c2s += n;
        if self.kind == Kind::Telnet {
            if self.telnet_keystrokes {
                // Every byte is a keystroke: answer each with its response.
                for _ in 0..n {
                    match self.responses.pop_front() {
                        Some(r) => self.echo_pending += r,
                        None => self.unexpected_bytes += 1,
                    }
                }
            } else {
                self.echo_pending += n;
            }
            self.c2s_bytes_in_complete_msgs += n;
            if Self::open(tcp) {
                Self::write(tcp, &mut self.echo_pending, self.lowat);
            }
        } else {
            self.consume(false, n, now, &mut a);
            self.pump_script(false, tcp, now, &mut a);
        }
        let done_writing = if self.kind == Kind::Telnet { self.echo_pending == 0 } else { self.idx >= self.conn_end };
        if !self.server_closed && tcp.state() == State::CloseWait && tcp.readable() == 0 && done_writing {
            tcp.close();
            self.server_closed = true;
        }
        (a, n)
    }

    /// The application timer fired (TELNET client): write a packet or close.
    pub fn on_timer(&mut self, tcp: &mut TcpConn, now: SimTime) -> Actions {
        let mut a = Actions::default();
        self.timer_at = None;
        if self.client_closed || self.close_requested {
            return a;
        }
        if now >= self.telnet_end {
            self.close_requested = true;
        } else {
            let p = draw_bytes(&mut self.rng, &tables().telnet_pktsize);
            let (typed, answer) = if self.telnet_keystrokes { (1, p) } else { (p, p) };
            if self.telnet_keystrokes {
                self.responses.push_back(answer);
            }
            self.c2s_written += typed;
            self.s2c_owed += answer;
            self.unechoed.push_back((self.s2c_owed, now));
            self.write_left += typed;
            let g = self.gap();
            let t = (now + g).min(self.telnet_end);
            self.set_timer(t, &mut a);
        }
        let b = self.on_client(tcp, now);
        a.kick_other |= b.kick_other;
        a
    }

    /// Account `n` bytes read by the client (`by_client`) or the server.
    fn consume(&mut self, by_client: bool, mut n: u64, now: SimTime, a: &mut Actions) {
        while n > 0 {
            let Some(m) = self.msgs.get(self.idx).copied() else {
                self.unexpected_bytes += n;
                return;
            };
            if m.from_client == by_client || !self.write_started {
                // Bytes the script does not expect here.
                self.unexpected_bytes += n;
                return;
            }
            let k = n.min(self.read_left);
            self.read_left -= k;
            n -= k;
            if self.read_left == 0 {
                if m.from_client {
                    self.c2s_bytes_in_complete_msgs += m.bytes;
                }
                self.idx += 1;
                self.write_started = false;
                if self.idx == self.msgs.len() {
                    self.script_done_at = Some(now);
                }
                if self.at_gate() {
                    a.at_gate = true;
                    self.read_left = self.msgs.get(self.idx).map_or(0, |m| m.bytes);
                } else if let Some(next) = self.msgs.get(self.idx) {
                    self.read_left = next.bytes;
                    // The next writer is the reader of this message, unless the script says
                    // otherwise (or the next message goes on the next connection).
                    if next.from_client != by_client && self.idx < self.conn_end {
                        a.kick_other = true;
                    }
                }
            }
        }
    }

    /// Write the current message if this side sends it; the client closes after the
    /// connection's last message (the script's last, or the item's last with
    /// `connection_per_item`).
    fn pump_script(&mut self, is_client: bool, tcp: &mut TcpConn, now: SimTime, a: &mut Actions) {
        if !Self::open(tcp) || self.at_gate() {
            return;
        }
        let current = if self.idx < self.conn_end { self.msgs.get(self.idx).copied() } else { None };
        match current {
            Some(m) if m.from_client == is_client => {
                if !self.write_started {
                    self.write_started = true;
                    self.write_left = m.bytes;
                }
                Self::write(tcp, &mut self.write_left, self.lowat);
            }
            None if is_client && !self.client_closed => {
                tcp.close();
                self.client_closed = true;
                self.client_closed_at = Some(now);
                a.kick_other = false;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};
    use crate::transport::tcp::TcpConfig;

    /// Shuttle segments between two endpoints with no delay until both are quiet.
    fn shuttle(app: &mut ConvApp, c: &mut TcpConn, s: &mut TcpConn, now: SimTime) {
        for _ in 0..100_000 {
            let mut moved = false;
            while let Some(seg) = c.poll_transmit(now) {
                s.on_segment(now, &seg);
                moved = true;
            }
            app.on_server(s, now);
            while let Some(seg) = s.poll_transmit(now) {
                c.on_segment(now, &seg);
                moved = true;
            }
            app.on_client(c, now);
            if !moved {
                // Let delayed ACKs out.
                c.fast_timo(now);
                s.fast_timo(now);
                if c.poll_transmit(now).map(|seg| s.on_segment(now, &seg)).is_none()
                    && s.poll_transmit(now).map(|seg| c.on_segment(now, &seg)).is_none()
                {
                    return;
                }
            }
        }
        panic!("no quiescence");
    }

    #[test]
    fn bulk_scripts_run_to_the_end_and_both_sides_close() {
        for kind in [Kind::Ftp, Kind::Nntp, Kind::Smtp] {
            for slot in 0..5 {
                let mut app = ConvApp::new(kind, 1.0, stream(3, Purpose::App, slot), 2048);
                let cfg = TcpConfig { mss_bytes: 512, ..TcpConfig::default() };
                let (mut c, mut s) = (TcpConn::new(cfg, 1000), TcpConn::new(cfg, 9000));
                let now = SimTime::ZERO;
                app.start(now);
                let expect_c2s: u64 = app.msgs.iter().filter(|m| m.from_client).map(|m| m.bytes).sum();
                let expect_s2c: u64 = app.msgs.iter().filter(|m| !m.from_client).map(|m| m.bytes).sum();
                s.open_passive();
                c.open_active(now);
                shuttle(&mut app, &mut c, &mut s, now);
                assert_eq!(app.unexpected_bytes, 0);
                assert_eq!((app.bytes_c2s, app.bytes_s2c), (expect_c2s, expect_s2c), "{kind:?}");
                assert_eq!(app.c2s_bytes_in_complete_msgs, expect_c2s);
                assert!(app.client_closed() && app.server_closed, "{kind:?}");
                assert!(matches!(c.state(), State::TimeWait | State::Closed), "{:?}", c.state());
                assert_eq!(s.state(), State::Closed);
            }
        }
    }

    /// FTP with a connection per item: one fresh connection per item of the script (the
    /// script's item count: its messages come four per item), every item's bytes delivered
    /// once, and both ends closed at the end of every connection.
    #[test]
    fn ftp_with_a_connection_per_item_opens_one_connection_per_item() {
        for slot in 0..8 {
            let mut app = ConvApp::new(Kind::Ftp, 1.0, stream(11, Purpose::App, slot), 2048);
            app.connection_per_item = true;
            let cfg = TcpConfig { mss_bytes: 512, ..TcpConfig::default() };
            let now = SimTime::ZERO;
            app.start(now);
            let items = app.msgs.len() / 4;
            assert_eq!(app.msgs.len() % 4, 0);
            let expect_c2s: u64 = app.msgs.iter().filter(|m| m.from_client).map(|m| m.bytes).sum();
            let expect_s2c: u64 = app.msgs.iter().filter(|m| !m.from_client).map(|m| m.bytes).sum();
            let mut opened = 0;
            loop {
                let (mut c, mut s) = (TcpConn::new(cfg, 1000 + opened), TcpConn::new(cfg, 9000 + opened));
                opened += 1;
                s.open_passive();
                c.open_active(now);
                shuttle(&mut app, &mut c, &mut s, now);
                assert!(app.client_closed() && app.server_closed, "slot {slot}, connection {opened}");
                assert!(matches!(c.state(), State::TimeWait | State::Closed), "{:?}", c.state());
                assert_eq!(s.state(), State::Closed);
                if !app.has_next_connection() {
                    break;
                }
                app.next_connection();
            }
            assert_eq!(opened as usize, items, "slot {slot}");
            assert_eq!(app.connections_opened, items as u64);
            assert_eq!(app.unexpected_bytes, 0);
            assert_eq!((app.bytes_c2s, app.bytes_s2c), (expect_c2s, expect_s2c));
            assert_eq!(app.c2s_bytes_in_complete_msgs, expect_c2s);
        }
    }

    /// Without the option the whole conversation is one connection.
    #[test]
    fn ftp_by_default_carries_the_conversation_on_one_connection() {
        let mut app = ConvApp::new(Kind::Ftp, 1.0, stream(11, Purpose::App, 3), 2048);
        let cfg = TcpConfig { mss_bytes: 512, ..TcpConfig::default() };
        let (mut c, mut s) = (TcpConn::new(cfg, 1000), TcpConn::new(cfg, 9000));
        app.start(SimTime::ZERO);
        assert!(app.msgs.len() > 4, "this slot's first conversation has several items");
        s.open_passive();
        c.open_active(SimTime::ZERO);
        shuttle(&mut app, &mut c, &mut s, SimTime::ZERO);
        assert!(app.client_closed() && !app.has_next_connection());
        assert_eq!(app.connections_opened, 1);
    }

    /// A scripted conversation stops at its gate (nothing more is written, the client does
    /// not close) until the gate opens, then runs to its end; the instant the last message is
    /// read is recorded.
    #[test]
    fn a_scripted_conversation_waits_at_its_gates() {
        let script = [(true, 30), (false, 40), (true, 700), (false, 5)];
        let mut app = ConvApp::scripted(Kind::FtpControl, &script, &[2], stream(2, Purpose::App, 0), 2048);
        let cfg = TcpConfig { mss_bytes: 512, ..TcpConfig::default() };
        let (mut c, mut s) = (TcpConn::new(cfg, 1000), TcpConn::new(cfg, 9000));
        let t0 = SimTime::ZERO;
        app.start(t0);
        s.open_passive();
        c.open_active(t0);
        shuttle(&mut app, &mut c, &mut s, t0);
        assert!(app.at_gate());
        assert_eq!((app.bytes_c2s, app.bytes_s2c), (30, 40));
        assert!(!app.client_closed() && app.script_done_at.is_none());
        let t1 = SimTime::ZERO + SimDuration::from_millis(5);
        app.open_gate();
        app.on_client(&mut c, t1);
        shuttle(&mut app, &mut c, &mut s, t1);
        assert_eq!((app.bytes_c2s, app.bytes_s2c), (730, 45));
        assert!(app.client_closed() && app.server_closed);
        assert_eq!(app.script_done_at, Some(t1));
        assert_eq!(app.unexpected_bytes, 0);
    }

    #[test]
    fn smtp_has_five_exchanges_around_one_message() {
        let mut app = ConvApp::new(Kind::Smtp, 1.0, stream(1, Purpose::App, 0), 2048);
        app.start(SimTime::ZERO);
        assert_eq!(app.msgs.len(), 12);
        assert!(app.msgs.iter().enumerate().all(|(i, m)| m.from_client == (i % 2 == 0)));
    }

    /// Mah §3.3.4: "not any of the handshaking" — the message and the server's reply.
    #[test]
    fn smtp_without_handshake_is_the_message_and_its_reply() {
        let mut app = ConvApp::new(Kind::Smtp, 1.0, stream(1, Purpose::App, 0), 2048);
        app.smtp_handshake = false;
        app.start(SimTime::ZERO);
        assert_eq!(app.msgs.len(), 2);
        assert!(app.msgs[0].from_client && !app.msgs[1].from_client);
    }

    #[test]
    fn telnet_echoes_every_byte_and_samples_each_packet() {
        let mut app = ConvApp::new(Kind::Telnet, 1.0, stream(5, Purpose::App, 0), 2048);
        let cfg = TcpConfig { mss_bytes: 512, ..TcpConfig::default() };
        let (mut c, mut s) = (TcpConn::new(cfg, 1000), TcpConn::new(cfg, 9000));
        let mut now = SimTime::ZERO;
        app.start(now);
        s.open_passive();
        c.open_active(now);
        shuttle(&mut app, &mut c, &mut s, now);
        let mut packets = 0;
        while let Some(t) = app.timer_at {
            now = t;
            app.on_timer(&mut c, now);
            shuttle(&mut app, &mut c, &mut s, now);
            packets += 1;
            assert!(packets < 1_000_000);
        }
        assert!(app.client_closed());
        assert_eq!(app.bytes_c2s, app.bytes_s2c);
        assert_eq!(app.echo_samples.len() as u64, packets - 1);
        // No network delay here: every echo arrives at the instant of its write.
        assert!(app.echo_samples.iter().all(|&(_, d)| d == 0.0));
    }

    /// Mah §3.3.1: keystrokes of one byte up; each answered by a response whose sizes follow
    /// tcplib's table (mean 25.2 B, shared/data/SOURCES.md §1), one response time per key.
    #[test]
    fn telnet_keystrokes_are_single_bytes_answered_by_tcplib_sized_responses() {
        let mut app = ConvApp::new(Kind::Telnet, 1.0, stream(6, Purpose::App, 0), 2048);
        app.telnet_keystrokes = true;
        let cfg = TcpConfig { mss_bytes: 512, ..TcpConfig::default() };
        let mut now = SimTime::ZERO;
        let mut keys = 0u64;
        let mut one_byte = 0u64;
        while keys < 5_000 {
            let (mut c, mut s) = (TcpConn::new(cfg, 1000), TcpConn::new(cfg, 9000));
            app.start(now);
            s.open_passive();
            c.open_active(now);
            shuttle(&mut app, &mut c, &mut s, now);
            while let Some(t) = app.timer_at {
                now = t;
                let (up, down) = (app.bytes_c2s, app.bytes_s2c);
                app.on_timer(&mut c, now);
                shuttle(&mut app, &mut c, &mut s, now);
                if app.bytes_c2s > up {
                    assert_eq!(app.bytes_c2s - up, 1, "a keystroke is one byte");
                    keys += 1;
                    one_byte += u64::from(app.bytes_s2c - down == 1);
                }
            }
            assert!(app.client_closed());
            now += SimDuration::from_secs(1);
        }
        assert_eq!(app.bytes_c2s, keys);
        assert_eq!(app.echo_samples.len() as u64, keys);
        assert_eq!(app.unexpected_bytes, 0);
        let mean = app.bytes_s2c as f64 / keys as f64;
        assert!((mean - 25.2).abs() < 0.15 * 25.2, "mean response {mean} B, tcplib 25.2 B");
        // Most responses are a single byte (echoes); tcplib puts about two thirds there.
        let ones = one_byte as f64 / keys as f64;
        assert!((0.5..0.8).contains(&ones), "one-byte responses {ones}");
    }
}
