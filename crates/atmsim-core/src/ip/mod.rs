//! End systems: hosts with an IP layer over one ATM adapter, and the TCP connections they
//! terminate.
//!
//! Owns: [`Host`], [`Conn`], [`Endpoint`]. A host has one ATM interface: an output port
//! (the adapter's per-VC queues and scheduler, [`crate::atm::port`]) and per-VC reassembly
//! of incoming cells ([`crate::atm::aal5`]). Routing is static: each TCP connection and
//! cell source is bound to a permanent VC declared in the scenario, and an IP datagram is
//! segmented onto its VC. (Routers, multi-homed hosts and SVC signalling are later work.)

use crate::apps::bulk::BulkSender;
use crate::atm::aal5::Reassembler;
use crate::ids::{HostId, PortId};
use crate::tcp::TcpConn;
use crate::time::{SimDuration, SimTime};

/// An end system.
pub struct Host {
    pub name: String,
    /// The adapter's transmitter; `None` for a host with no link.
    pub port: Option<PortId>,
    /// Interface MTU [bytes] (RFC 1626 default for IP over AAL5: 9180).
    pub mtu_bytes: u32,
    /// Reassembly state per incoming VCI.
    pub reasm: Vec<Reassembler>,
    /// Frames that failed reassembly here.
    pub frames_corrupt: u64,
    /// Frames reassembled here.
    pub frames_rcvd: u64,
    /// Index of this host's packet capture in [`crate::net::Network::taps`], if any.
    pub tap: Option<u32>,
}

impl Host {
    #[inline]
    pub fn reassembler(&mut self, vci: u32) -> &mut Reassembler {
        let v = vci as usize;
        if v >= self.reasm.len() {
            self.reasm.resize_with(v + 1, Reassembler::default);
        }
        &mut self.reasm[v]
    }
}

/// One TCP endpoint placed on a host.
pub struct Endpoint {
    pub tcp: TcpConn,
    pub host: HostId,
    pub port: PortId,
    /// Outgoing VCI on the host's link.
    pub vci: u32,
    /// Phases of this endpoint's 200 ms and 500 ms timer grids (randomised per connection).
    pub fast_phase: SimDuration,
    pub slow_phase: SimDuration,
    /// Tick periods (the TCP configuration's `fast_tick`, `slow_tick`).
    pub fast_period: SimDuration,
    pub slow_period: SimDuration,
    pub fast_pending: bool,
    pub slow_pending: bool,
}

/// A TCP connection: side 0 is the client (active opener, bulk sender), side 1 the server
/// (passive opener, sink).
pub struct Conn {
    pub name: String,
    pub start: SimTime,
    pub ep: [Endpoint; 2],
    pub app: BulkSender,
    /// Bytes the sink application has read.
    pub bytes_read: u64,
    /// `bytes_read` at the end of the warm-up.
    pub bytes_read_warm: u64,
    /// `bytes_read` at the previous sample (for per-interval goodput).
    pub bytes_read_sampled: u64,
    /// When the sink read the last byte of a finite transfer.
    pub finished_at: Option<SimTime>,
}
