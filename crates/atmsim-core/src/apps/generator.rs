//! Traffic generators: TCP conversations opened between random hosts at random instants,
//! each on a pooled connection that returns to the pool when the conversation ends.
//!
//! Owns: [`Generator`] (the arrival process, the host sets, the connection template),
//! [`GenStats`] (its counters) and [`Metrics`] (its samples). At each arrival the generator
//! draws a client uniformly from its clients (the workstations of its `from` sites) and a
//! server uniformly from its servers (not the client), from its own random stream, so
//! changing a network policy never changes who talks to whom and when (common random
//! numbers, Mah §3.5.1, spec A-24). The connection's endpoints draw their initial sequence
//! numbers and timer phases from a stream keyed by the generator and the conversation's
//! number.

use crate::apps::conversation::Kind as ConvKind;
use crate::apps::vic::VicConfig;
use crate::apps::voice::VoiceConfig;
use crate::dist::{exponential, Zipf};
use crate::ids::NodeId;
use crate::rng::{Rng, Stream};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::TcpConfig;

/// How a generator spaces its arrivals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// Exponential gaps (a Poisson process).
    Poisson,
    /// Gaps uniform on `0..2·mean`.
    Uniform,
}

/// What each conversation runs.
#[derive(Clone, Debug, PartialEq)]
pub enum GenApp {
    /// A tcplib conversation of this kind on one connection: item sizes scaled, (FTP) a
    /// connection per item, (SMTP) with or without the handshake exchanges, (TELNET)
    /// single-byte keystrokes answered by tcplib-sized responses instead of echoes.
    Conv { kind: ConvKind, scale: f64, per_item: bool, handshake: bool, keystrokes: bool },
    /// An FTP session: a control connection and a data connection per file (Mah §3.3.2).
    FtpSession { scale: f64 },
    /// A Web browser placed on a workstation that has none, running until the end of the
    /// run (Mah §3.3.8, App. A).
    Browser,
    /// An audio conversation over UDP, of exponential duration with this mean \[s\] (§3.3.6).
    Audio(VoiceConfig, f64),
    /// A video conversation over UDP (§3.3.7, App. B), duration as audio.
    Video(VicConfig, f64),
    /// A bulk transfer of this many bytes.
    Bulk { write: u64, total: u64 },
}

impl GenApp {
    /// Audio and video run over UDP, the others over TCP.
    pub fn is_media(&self) -> bool {
        matches!(self, GenApp::Audio(..) | GenApp::Video(..))
    }

    /// The application's name in summaries.
    pub fn name(&self) -> &'static str {
        match self {
            GenApp::Conv { kind, .. } => kind.name(),
            GenApp::FtpSession { .. } => "ftp_session",
            GenApp::Browser => "http",
            GenApp::Audio(..) => "audio",
            GenApp::Video(..) => "video",
            GenApp::Bulk { .. } => "bulk",
        }
    }
}

/// How a generator picks the host a client talks to.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// Uniformly among the candidates other than the client.
    Uniform,
    /// By Zipf's law over the candidates in rank order (Mah App. A §A.5.7).
    Zipf(Zipf),
    /// The candidates in turn (Mah §3.3.5: news servers feed a fixed set of peers).
    RoundRobin(usize),
}

/// Counters of one generator.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenStats {
    pub started: u64,
    pub completed: u64,
    pub aborted: u64,
    /// Arrivals that opened nothing: no server other than the client to talk to, or
    /// [`Generator::max_open`] conversations already open.
    pub skipped: u64,
    /// Durations of completed conversations \[s\] (open to close).
    pub durations_s: Vec<f64>,
    /// Largest number of its conversations open at once.
    pub max_open: u64,
    pub open: u64,
    /// Samples of the application metrics (Mah Table 3-3).
    pub metrics: Metrics,
}

/// Samples of a generator's application metrics (Mah Table 3-3) by name, the names in the
/// order first recorded and each metric's samples in the order recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics(Vec<(&'static str, Vec<f64>)>);

impl Metrics {
    /// Record one sample of metric `name`.
    pub fn record(&mut self, name: &'static str, v: f64) {
        match self.0.iter_mut().find(|m| m.0 == name) {
            Some(m) => m.1.push(v),
            None => self.0.push((name, vec![v])),
        }
    }

    /// The samples of metric `name` (none if it was never recorded).
    pub fn samples(&self, name: &str) -> &[f64] {
        self.0.iter().find(|m| m.0 == name).map_or(&[], |m| &m.1)
    }

    /// Each metric's name and samples.
    pub fn iter(&self) -> std::slice::Iter<'_, (&'static str, Vec<f64>)> {
        self.0.iter()
    }
}

/// One generator.
pub struct Generator {
    pub name: String,
    /// The `[[traffic]]` entry it comes from (one generator per site with `per_site`).
    pub group: String,
    pub app: GenApp,
    pub clients: Vec<NodeId>,
    /// The hosts clients talk to, in rank order for [`Choice::Zipf`].
    pub servers: Vec<NodeId>,
    pub choice: Choice,
    /// Browsers: the clients without one yet (arrivals stop when none is left).
    pub unplaced: Vec<NodeId>,
    pub arrivals: Arrivals,
    pub mean_gap: SimDuration,
    pub start: SimTime,
    pub stop: SimTime,
    pub tcp: TcpConfig,
    /// Client and server port of the next conversation: clients from 1024 upwards (wrapping
    /// within 1024..=65535), servers the application's well-known port.
    pub next_client_port: u16,
    pub server_port: u16,
    /// Arrival instants and host choices.
    pub rng: Stream,
    pub stats: GenStats,
    /// Most conversations open at once (`traffic.max_open`): the bound of its pool.
    pub max_open: u64,
}

impl Generator {
    /// The next arrival after one at `now`, if before the generator stops.
    pub fn next_arrival(&mut self, now: SimTime) -> Option<SimTime> {
        let mean = self.mean_gap.as_secs_f64();
        let gap = match self.arrivals {
            Arrivals::Poisson => exponential(&mut self.rng, mean),
            Arrivals::Uniform => self.rng.gen_range(0.0..2.0 * mean),
        };
        let t = now + SimDuration::from_secs_f64(gap);
        (t < self.stop).then_some(t)
    }

    /// Draw a client and a server for a new conversation; `None` if [`Generator::max_open`]
    /// conversations are open (nothing drawn), or the only server is the client itself (or, for
    /// browsers, every client has one).
    pub fn pick(&mut self) -> Option<(NodeId, NodeId)> {
        if self.stats.open >= self.max_open {
            return None;
        }
        let c = if self.app == GenApp::Browser {
            if self.unplaced.is_empty() {
                return None;
            }
            self.unplaced.swap_remove(self.rng.gen_range(0..self.unplaced.len()))
        } else {
            self.clients[self.rng.gen_range(0..self.clients.len())]
        };
        choose(&mut self.choice, &self.servers, c, &mut self.rng).map(|s| (c, s))
    }

    /// The client port of the next conversation.
    pub fn take_client_port(&mut self) -> u16 {
        let p = self.next_client_port;
        self.next_client_port = if p == u16::MAX { 1024 } else { p + 1 };
        p
    }
}

/// A host of `servers` other than `client`, picked by `choice` from stream `r`; `None` if
/// `client` is the only one.
pub fn choose(choice: &mut Choice, servers: &[NodeId], client: NodeId, r: &mut Stream) -> Option<NodeId> {
    let others = servers.len() - servers.contains(&client) as usize;
    if others == 0 {
        return None;
    }
    loop {
        let k = match choice {
            Choice::Uniform => r.gen_range(0..servers.len()),
            Choice::Zipf(z) => z.sample(r),
            Choice::RoundRobin(next) => {
                let k = *next % servers.len();
                *next = k + 1;
                k
            }
        };
        if servers[k] != client {
            return Some(servers[k]);
        }
    }
}
