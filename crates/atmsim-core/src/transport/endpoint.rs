//! A TCP endpoint placed on a host: its connection state, the header of what it sends, and
//! its share of the host's BSD timer grids.
//!
//! Owns: [`Endpoint`] and its timer grids ([`next_grid`]). The protocol itself is
//! [`super::tcp`]; the network schedules the ticks an endpoint asks for
//! ([`Endpoint::ticks_to_arm`]) and hands its segments to IP.
//!
//! **BSD timer grids.** A BSD host runs `tcp_fasttimo` every 200 ms and `tcp_slowtimo` every
//! 500 ms for all its connections at once; an endpoint's ticks fall on a grid
//! `phase + k·period` whose phase is drawn per endpoint, and a tick is scheduled only while
//! TCP has something for it to do (a delayed ACK, a running timer).

use super::tcp::{TcpConfig, TcpConn};
use crate::header::PacketHeader;
use crate::ids::NodeId;
use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};

/// One TCP endpoint placed on a host.
pub struct Endpoint {
    tcp: TcpConn,
    host: NodeId,
    /// The header of the datagrams this endpoint sends (its address and port, the peer's).
    hdr: PacketHeader,
    /// Phases of this endpoint's 200 ms and 500 ms timer grids (randomised per connection).
    fast_phase: SimDuration,
    slow_phase: SimDuration,
    /// Tick periods (the TCP configuration's `fast_tick`, `slow_tick`).
    fast_period: SimDuration,
    slow_period: SimDuration,
    /// A tick of either grid is scheduled.
    fast_pending: bool,
    slow_pending: bool,
    /// The endpoint's random stream, after the first ISS and the timer phases were drawn:
    /// later conversations of the slot draw their ISS from it.
    rng: Stream,
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

    /// The connection's protocol state.
    #[inline]
    pub fn tcp(&self) -> &TcpConn {
        &self.tcp
    }

    /// The protocol machine, for the application and the network to drive (its socket).
    #[inline]
    pub fn tcp_mut(&mut self) -> &mut TcpConn {
        &mut self.tcp
    }

    /// The host the endpoint is placed on.
    #[inline]
    pub fn host(&self) -> NodeId {
        self.host
    }

    /// The header of the datagrams it sends.
    #[inline]
    pub fn hdr(&self) -> &PacketHeader {
        &self.hdr
    }

    /// The fast (200 ms) tick on the endpoint's grid: TCP's `fasttimo`.
    pub fn fast_tick(&mut self, now: SimTime) {
        self.fast_pending = false;
        self.tcp.fast_timo(now);
    }

    /// The slow (500 ms) tick: TCP's `slowtimo`.
    pub fn slow_tick(&mut self, now: SimTime) {
        self.slow_pending = false;
        self.tcp.slow_timo(now);
    }

    /// The ticks to schedule now, (fast, slow): the next point of each grid whose tick TCP
    /// wants and that is not scheduled yet (it counts as scheduled from here on).
    #[inline]
    pub fn ticks_to_arm(&mut self, now: SimTime) -> (Option<SimTime>, Option<SimTime>) {
        let mut fast = None;
        if !self.fast_pending && self.tcp.wants_fast_tick() {
            self.fast_pending = true;
            fast = Some(next_grid(now, self.fast_phase, self.fast_period));
        }
        let mut slow = None;
        if !self.slow_pending && self.tcp.wants_slow_tick() {
            self.slow_pending = true;
            slow = Some(next_grid(now, self.slow_phase, self.slow_period));
        }
        (fast, slow)
    }

    /// A fresh closed connection with the same configuration and grids, its ISS the next
    /// draw of the endpoint's stream (no tick scheduled: those of the old one do nothing).
    pub fn renew(&mut self) {
        use crate::rng::Rng;
        let iss: u32 = self.rng.gen();
        self.tcp = TcpConn::new(*self.tcp.config(), iss);
        self.fast_pending = false;
        self.slow_pending = false;
    }
}

/// The first point of the grid `phase + k·period` strictly after `now`.
#[inline]
pub fn next_grid(now: SimTime, phase: SimDuration, period: SimDuration) -> SimTime {
    let (n, ph, p) = (now.0, phase.0 % period.0, period.0);
    if n < ph {
        return SimTime(ph);
    }
    SimTime(ph.saturating_add(((n - ph) / p + 1).saturating_mul(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_points_are_strictly_after_now() {
        let ms = SimDuration::from_millis;
        assert_eq!(next_grid(SimTime(0), ms(100), ms(500)), SimTime(0) + ms(100));
        assert_eq!(next_grid(SimTime(0) + ms(100), ms(100), ms(500)), SimTime(0) + ms(600));
        assert_eq!(next_grid(SimTime(0) + ms(601), ms(100), ms(500)), SimTime(0) + ms(1100));
        // A phase beyond the period wraps into it.
        assert_eq!(next_grid(SimTime(0), ms(600), ms(500)), SimTime(0) + ms(100));
    }

    #[test]
    fn a_tick_is_armed_once_until_it_runs() {
        use crate::rng::{stream, Purpose};
        let hdr = PacketHeader::raw(NodeId(0), NodeId(1));
        let mut ep = Endpoint::new(TcpConfig::default(), NodeId(0), hdr, stream(7, Purpose::App, 0));
        let now = SimTime(0);
        ep.tcp_mut().open_active(now);
        assert!(ep.tcp_mut().poll_transmit(now).is_some(), "the SYN");
        // The SYN's retransmission timer wants the slow tick; nothing wants the fast one.
        let (fast, slow) = ep.ticks_to_arm(now);
        assert_eq!(fast, None);
        let slow = slow.expect("a running timer wants the slow tick");
        assert_eq!(slow, next_grid(now, ep.slow_phase, ep.slow_period));
        assert_eq!(ep.ticks_to_arm(now), (None, None), "already scheduled");
        ep.slow_tick(slow);
        assert!(ep.ticks_to_arm(slow).1.is_some(), "armed again after it ran");
    }
}
