//! UDP flows: datagrams sent at a constant rate or as a Poisson stream, delivered or lost,
//! with their one-way delays.
//!
//! Owns: [`UdpFlow`] and its [`UdpStats`]. UDP is the lossy datagram service of Mah (1996)
//! §1.4/§3.6.3 (unicast only): a lost datagram is not recovered, only counted. A flow sends
//! `ip_bytes`-byte datagrams (IP + UDP headers included) from `start` until `stop`, every
//! `gap` (CBR) or after exponential gaps of mean `gap` (Poisson), from its own random stream.
//! Its header carries ports and, for audio and video, the RTP-like media tag the IP-over-ATM
//! driver classifies by (§4.3.2). Delays are measured from the instant IP took the datagram
//! to its delivery at the destination host; a datagram later than `late_after` (default
//! 150 ms, the audio "overdue" threshold of §3.4) is counted late.

use crate::dist::exponential;
use crate::ip::header::PacketHeader;
use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};

/// How a flow spaces its datagrams.
pub enum Spacing {
    /// Exactly `gap` apart.
    Constant,
    /// Exponential gaps of mean `gap`, drawn from the flow's stream.
    Poisson(Box<Stream>),
}

/// Counters of one flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpStats {
    pub sent: u64,
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Sum and maximum of one-way delays of delivered datagrams [ps].
    pub delay_sum_ps: u128,
    pub delay_max_ps: u64,
    /// Delivered later than `late_after`.
    pub late: u64,
}

/// One UDP flow.
pub struct UdpFlow {
    pub name: String,
    /// Header of its datagrams (source host and port, destination, media tag).
    pub hdr: PacketHeader,
    pub ip_bytes: u32,
    pub gap: SimDuration,
    pub spacing: Spacing,
    pub start: SimTime,
    pub stop: SimTime,
    pub late_after: SimDuration,
    pub stats: UdpStats,
}

impl UdpFlow {
    /// When the datagram after one sent at `now` goes, if before the flow stops.
    pub fn next_after(&mut self, now: SimTime) -> Option<SimTime> {
        let gap = match &mut self.spacing {
            Spacing::Constant => self.gap,
            Spacing::Poisson(r) => SimDuration::from_secs_f64(exponential(r, self.gap.as_secs_f64())),
        };
        let t = now + gap;
        (t < self.stop).then_some(t)
    }

    /// A datagram sent at `born` arrived at `now`.
    pub fn delivered(&mut self, born: SimTime, now: SimTime) {
        let d = now.since(born);
        let s = &mut self.stats;
        s.delivered += 1;
        s.bytes_delivered += self.ip_bytes as u64;
        s.delay_sum_ps += d.as_ps() as u128;
        s.delay_max_ps = s.delay_max_ps.max(d.as_ps());
        if d > self.late_after {
            s.late += 1;
        }
    }

    /// Datagrams sent and not delivered (lost, or still in flight at the end).
    pub fn undelivered(&self) -> u64 {
        self.stats.sent - self.stats.delivered
    }
}
