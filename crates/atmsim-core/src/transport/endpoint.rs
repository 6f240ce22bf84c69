//! A TCP endpoint placed on a host: its connection state, the header of what it sends, and
//! its share of the host's BSD timer grids.
//!
//! Owns: [`Endpoint`]. The protocol itself is [`super::tcp`]; the network runs an endpoint's
//! timers and hands its segments to IP.

use super::tcp::{TcpConfig, TcpConn};
use crate::header::PacketHeader;
use crate::ids::NodeId;
use crate::rng::Stream;
use crate::time::SimDuration;

/// One TCP endpoint placed on a host.
pub struct Endpoint {
    pub tcp: TcpConn,
    pub host: NodeId,
    /// The header of the datagrams this endpoint sends (its address and port, the peer's).
    pub hdr: PacketHeader,
    /// Phases of this endpoint's 200 ms and 500 ms timer grids (randomised per connection).
    pub fast_phase: SimDuration,
    pub slow_phase: SimDuration,
    /// Tick periods (the TCP configuration's `fast_tick`, `slow_tick`).
    pub fast_period: SimDuration,
    pub slow_period: SimDuration,
    pub fast_pending: bool,
    pub slow_pending: bool,
    /// The endpoint's random stream, after the first ISS and the timer phases were drawn:
    /// later conversations of the slot draw their ISS from it.
    pub rng: Stream,
}

impl Endpoint {
    /// A closed endpoint on host `h` sending datagrams with header `hdr`; its initial
    /// sequence number and timer phases are the first draws of its stream `r`.
    pub fn new(base: TcpConfig, h: NodeId, hdr: PacketHeader, mut r: Stream) -> Self {
        use crate::rng::Rng;
        let iss: u32 = r.gen();
        let fast_phase = SimDuration::from_ps(r.gen_range(0..base.fast_tick.as_ps()));
        let slow_phase = SimDuration::from_ps(r.gen_range(0..base.slow_tick.as_ps()));
        Endpoint {
            tcp: TcpConn::new(base, iss),
            host: h,
            hdr,
            fast_phase,
            slow_phase,
            fast_period: base.fast_tick,
            slow_period: base.slow_tick,
            fast_pending: false,
            slow_pending: false,
            rng: r,
        }
    }
}
