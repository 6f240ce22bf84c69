//! The IP layer: nodes (hosts and routers) with their interfaces and forwarding tables, and
//! the IP datagrams they exchange.
//!
//! Owns: [`Host`] (a node: host or router), [`IpLayer`] (every node and the datagrams in
//! flight); [`datagram`] (the datagrams in flight and their
//! ledger; what they carry is the transport's, [`crate::transport::Payload`]), [`route`]
//! (one forwarding table per node), [`cpu`] (a host's segment-processing CPU).
//!
//! A node has interfaces ([`crate::iface`]): at most one ATM adapter (an output port with
//! per-VC queues and scheduler, [`crate::atm::port`], per-VC reassembly, and the
//! IP-over-ATM driver that picks a datagram's VC), and any number of serial lines and LAN
//! attachments. IP sends a datagram by its destination address: local delivery, or the
//! forwarding table's next hop (`net/ip.rs`). A router forwards what is not for it; a host
//! only sends and receives. Transport endpoints ([`crate::transport`]) are found on hosts by
//! their sockets ([`socket`]).

pub mod cpu;
pub mod datagram;
pub mod route;
pub mod socket;

use crate::ids::{IfaceId, PortId};
use datagram::Datagrams;

/// A node with an IP layer: an end system, or a router when `forwards`.
pub struct Host {
    pub name: String,
    /// A router: forwards datagrams addressed to other nodes.
    pub forwards: bool,
    /// Its interfaces (indices into [`crate::iface::Interfaces::list`]).
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
    /// Index of this host's packet capture in [`crate::measure::Measurement::taps`], if any.
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

/// The IP layer of a network: its nodes, and the datagrams in flight carrying payloads of
/// type `P` ([`crate::transport::Payload`] in a running network).
pub struct IpLayer<P> {
    pub hosts: Vec<Host>,
    /// IP datagrams in flight (CPU queues, packet lines, driver queues, AAL5 frames) and
    /// their ledger.
    pub datagrams: Datagrams<P>,
}
