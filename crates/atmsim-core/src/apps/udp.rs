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
//! 150 ms, the audio "overdue" threshold of §3.4) is counted late. A generated audio or
//! video conversation is a flow whose datagrams come from a [`VoiceSource`] or
//! [`VicSource`] (sizes and gaps per packet), from the instant its generator spawned it
//! for its drawn duration.

use crate::apps::vic::VicSource;
use crate::apps::voice::{Packet, VoiceSource};
use crate::dist::exponential;
use crate::header::PacketHeader;
use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};

/// How a flow spaces its datagrams.
pub enum Spacing {
    /// Exactly `gap` apart.
    Constant,
    /// Exponential gaps of mean `gap`, drawn from the flow's stream.
    Poisson(Box<Stream>),
    /// Each datagram's payload and the gap after it from a media sender, drawing from the
    /// stream.
    Media(Box<(MediaSource, Stream)>),
}

/// The sender of an audio or video conversation.
pub enum MediaSource {
    Voice(VoiceSource),
    Vic(VicSource),
}

/// IP (20) + UDP (8) header bytes on a media sender's payload.
pub const UDP_IP_HEADER_BYTES: u32 = 28;

/// Counters of one flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpStats {
    pub sent: u64,
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Sum and maximum of one-way delays of delivered datagrams \[ps\].
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
    /// The traffic generator that spawned it (`None`: a `[[udp]]` flow).
    pub gen: Option<u32>,
}

impl UdpFlow {
    /// A datagram goes now: its IP length, and when the next one goes if before the flow
    /// stops.
    pub fn emit(&mut self, now: SimTime) -> (u32, Option<SimTime>) {
        let (bytes, gap) = match &mut self.spacing {
            Spacing::Constant => (self.ip_bytes, self.gap),
            Spacing::Poisson(r) => (self.ip_bytes, SimDuration::from_secs_f64(exponential(r, self.gap.as_secs_f64()))),
            Spacing::Media(m) => {
                let (src, r) = &mut **m;
                let Packet { payload_bytes, gap } = match src {
                    MediaSource::Voice(v) => v.next(r),
                    MediaSource::Vic(v) => v.next(r),
                };
                (payload_bytes + UDP_IP_HEADER_BYTES, gap)
            }
        };
        let t = now + gap;
        (bytes, (t < self.stop).then_some(t))
    }

    /// A datagram of `ip_bytes` sent at `born` arrived at `now`.
    pub fn delivered(&mut self, ip_bytes: u32, born: SimTime, now: SimTime) {
        let d = now.since(born);
        let s = &mut self.stats;
        s.delivered += 1;
        s.bytes_delivered += ip_bytes as u64;
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
