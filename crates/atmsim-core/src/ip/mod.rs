//! The IP layer: nodes (hosts and routers) with their interfaces and forwarding tables, the
//! IP datagrams they exchange, and the TCP connections hosts terminate.
//!
//! Owns: [`Host`] (a node: host or router), [`Conn`], [`Endpoint`]; [`datagram`] (the
//! datagrams in flight and their ledger), [`header`] (addresses, ports, protocol), [`route`]
//! (one forwarding table per node), [`cpu`] (a host's segment-processing CPU).
//!
//! A node has interfaces ([`crate::iface`]): at most one ATM adapter (an output port with
//! per-VC queues and scheduler, [`crate::atm::port`], per-VC reassembly, and the
//! IP-over-ATM driver that picks a datagram's VC), and any number of serial lines and LAN
//! attachments. IP sends a datagram by its destination address: local delivery, or the
//! forwarding table's next hop (`net/ip.rs`). A router forwards what is not for it; a host
//! only sends and receives. Transport endpoints live on hosts.

pub mod cpu;
pub mod datagram;
pub mod header;
pub mod route;
pub mod socket;

use crate::apps::bulk::BulkSender;
use crate::apps::conversation::ConvApp;
use crate::apps::session::Role;
use crate::ids::{IfaceId, NodeId, PortId};
use crate::rng::Stream;
use crate::tcp::TcpConn;
use crate::time::{SimDuration, SimTime};

/// A node with an IP layer: an end system, or a router when `forwards`.
pub struct Host {
    pub name: String,
    /// A router: forwards datagrams addressed to other nodes.
    pub forwards: bool,
    /// Its interfaces (indices into [`crate::net::Network::ifaces`]).
    pub ifaces: Vec<IfaceId>,
    /// The forwarding table (filled by the builder, [`route::compute`]).
    pub routes: route::Routes,
    /// The IP-over-ATM driver of its ATM adapter (`None` without an adapter).
    pub atm: Option<Box<crate::iface::atm::AtmIface>>,
    /// IP counters.
    pub ip: IpCounts,
    /// Transport endpoints by (protocol, local port, remote address, remote port).
    pub sockets: socket::Sockets,
    /// The adapter's transmitter; `None` for a host with no link.
    pub port: Option<PortId>,
    /// Interface MTU [bytes] (RFC 1626 default for IP over AAL5: 9180).
    pub mtu_bytes: u32,
    /// Frames that failed reassembly here.
    pub frames_corrupt: u64,
    /// Frames reassembled here.
    pub frames_rcvd: u64,
    /// Index of this host's packet capture in [`crate::net::Network::taps`], if any.
    pub tap: Option<u32>,
    /// Receive-side CPU, if the host has processing costs.
    pub cpu: Option<cpu::Cpu>,
}

/// Counters of a node's IP layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IpCounts {
    /// Datagrams this node forwarded (routers).
    pub forwarded: u64,
    /// Datagrams with no route from this node.
    pub no_route: u64,
    /// Datagrams for this node that found no socket (ended here).
    pub no_socket: u64,
}

/// One TCP endpoint placed on a host.
pub struct Endpoint {
    pub tcp: TcpConn,
    pub host: NodeId,
    /// The header of the datagrams this endpoint sends (its address and port, the peer's).
    pub hdr: header::PacketHeader,
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
    pub fn new(base: crate::tcp::TcpConfig, h: NodeId, hdr: header::PacketHeader, mut r: Stream) -> Self {
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
    pub name: String,
    /// The traffic generator whose pool the slot belongs to (`None`: a `[[tcp]]` slot).
    pub pooled: Option<u32>,
    pub start: SimTime,
    pub ep: [Endpoint; 2],
    pub app: App,
    /// Conversation number of the current endpoint pair (segments carry it; a segment of an
    /// earlier generation is stale and dropped on delivery).
    pub gen: u32,
    /// Segments of earlier conversations dropped on delivery.
    pub stale_segments: u64,
    /// Bytes the server application has read (client → server).
    pub bytes_read: u64,
    /// `bytes_read` at the end of the warm-up.
    pub bytes_read_warm: u64,
    /// Payload bytes the client's TCP had sent (retransmissions included) at the end of the
    /// warm-up: the base of the offered load (Koçyiğit §III efficiency).
    pub bytes_sent_warm: u64,
    /// Segments the client's TCP had retransmitted at the end of the warm-up.
    pub rexmt_segs_warm: u64,
    pub rexmt_bytes_warm: u64,
    /// `bytes_read` at the previous sample (for per-interval goodput).
    pub bytes_read_sampled: u64,
    /// When the sink read the last byte of a finite transfer.
    pub finished_at: Option<SimTime>,
    /// Bytes the client application has read (server → client) at the end of the warm-up.
    pub bytes_s2c_warm: u64,
    /// The session the connection works for, and its role there (generated sessions only);
    /// `session_told`: the session has heard that the connection is done.
    pub session: Option<(u32, Role)>,
    pub session_told: bool,
}
