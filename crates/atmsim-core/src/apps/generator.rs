//! Traffic generators: TCP conversations opened between random hosts at random instants,
//! each on a pooled connection that returns to the pool when the conversation ends.
//!
//! Owns: [`Generator`] (the arrival process, the host sets, the connection template) and
//! [`GenStats`]. At each arrival the generator draws a client uniformly from its clients
//! (the workstations of its `from` sites) and a server uniformly from its servers (not the
//! client), from its own random stream, so changing a network policy never changes who talks
//! to whom and when (common random numbers, Mah §3.5.1, spec A-24). The connection's
//! endpoints draw their initial sequence numbers and timer phases from a stream keyed by the
//! generator and the conversation's number.

use crate::apps::conversation::Kind as ConvKind;
use crate::dist::exponential;
use crate::ids::NodeId;
use crate::rng::{Rng, Stream};
use crate::tcp::TcpConfig;
use crate::time::{SimDuration, SimTime};

/// How a generator spaces its arrivals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// Exponential gaps (a Poisson process).
    Poisson,
    /// Gaps uniform on `0..2·mean`.
    Uniform,
}

/// What each conversation runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GenApp {
    /// A tcplib conversation of this kind, item sizes scaled, and (FTP) a connection per
    /// item.
    Conv(ConvKind, f64, bool),
    /// A bulk transfer of this many bytes.
    Bulk { write: u64, total: u64 },
}

/// Counters of one generator.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenStats {
    pub started: u64,
    pub completed: u64,
    pub aborted: u64,
    /// Arrivals with no server other than the client to talk to.
    pub skipped: u64,
    /// Durations of completed conversations [s] (open to close).
    pub durations_s: Vec<f64>,
    /// Largest number of its conversations open at once.
    pub max_open: u64,
    pub open: u64,
}

/// One generator.
pub struct Generator {
    pub name: String,
    pub app: GenApp,
    pub clients: Vec<NodeId>,
    pub servers: Vec<NodeId>,
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

    /// Draw a client and a server for a new conversation; `None` if the only server is the
    /// client itself.
    pub fn pick(&mut self) -> Option<(NodeId, NodeId)> {
        let c = self.clients[self.rng.gen_range(0..self.clients.len())];
        let others = self.servers.len() - self.servers.contains(&c) as usize;
        if others == 0 {
            return None;
        }
        loop {
            let s = self.servers[self.rng.gen_range(0..self.servers.len())];
            if s != c {
                return Some((c, s));
            }
        }
    }

    /// The client port of the next conversation.
    pub fn take_client_port(&mut self) -> u16 {
        let p = self.next_client_port;
        self.next_client_port = if p == u16::MAX { 1024 } else { p + 1 };
        p
    }
}
