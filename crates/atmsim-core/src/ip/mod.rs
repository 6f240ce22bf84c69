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
//! their sockets ([`crate::transport::socket`]).

pub mod cpu;
pub mod datagram;
pub mod route;

use crate::iface::atm::AtmIface;
use crate::ids::{IfaceId, NodeId, PortId};
use datagram::Datagrams;

/// A node with an IP layer: an end system, or a router when it forwards.
pub struct Host {
    name: String,
    /// A router: forwards datagrams addressed to other nodes.
    forwards: bool,
    /// Its interfaces (indices into [`crate::iface::Interfaces::list`]).
    ifaces: Vec<IfaceId>,
    /// The forwarding table (filled by the builder, [`route::compute`]).
    routes: route::Routes,
    /// The IP-over-ATM driver of its ATM adapter (`None` without an adapter).
    atm: Option<Box<AtmIface>>,
    /// IP counters.
    ip: IpCounts,
    /// The adapter's transmitter; `None` for a host with no link.
    port: Option<PortId>,
    /// Interface MTU \[bytes\] (RFC 1626 default for IP over AAL5: 9180).
    mtu_bytes: u32,
    /// Frames that failed reassembly here.
    frames_corrupt: u64,
    /// Frames reassembled here.
    frames_rcvd: u64,
    /// Index of this host's packet capture in the network's captures, if any.
    tap: Option<u32>,
    /// Receive-side CPU, if the host has processing costs.
    cpu: Option<cpu::Cpu>,
}

impl Host {
    /// A node named `name` with interface MTU `mtu_bytes` and, if it has processing costs,
    /// `cpu`; no interfaces, routes, adapter or capture yet (the builder adds them).
    pub fn new(name: String, mtu_bytes: u32, cpu: Option<cpu::Cpu>) -> Host {
        Host {
            name,
            forwards: false,
            ifaces: Vec::new(),
            routes: Default::default(),
            atm: None,
            ip: IpCounts::default(),
            port: None,
            mtu_bytes,
            frames_corrupt: 0,
            frames_rcvd: 0,
            tap: None,
            cpu,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A router: forwards datagrams addressed to other nodes.
    #[inline]
    pub fn forwards(&self) -> bool {
        self.forwards
    }

    /// The node forwards from now on (a router).
    pub fn set_forwarding(&mut self) {
        self.forwards = true;
    }

    /// Its interfaces.
    pub fn ifaces(&self) -> &[IfaceId] {
        &self.ifaces
    }

    pub fn add_iface(&mut self, i: IfaceId) {
        self.ifaces.push(i);
    }

    /// The forwarding table.
    pub fn routes(&self) -> &route::Routes {
        &self.routes
    }

    pub fn set_routes(&mut self, r: route::Routes) {
        self.routes = r;
    }

    /// The IP-over-ATM state of its ATM adapter.
    pub fn atm(&self) -> Option<&AtmIface> {
        self.atm.as_deref()
    }

    /// The IP-over-ATM state of its ATM adapter, to drive.
    #[inline]
    pub fn atm_mut(&mut self) -> Option<&mut AtmIface> {
        self.atm.as_deref_mut()
    }

    /// The node's ATM adapter gets its IP-over-ATM driver.
    pub fn attach_atm(&mut self, a: AtmIface) {
        self.atm = Some(Box::new(a));
    }

    /// The IP counters.
    pub fn counts(&self) -> &IpCounts {
        &self.ip
    }

    /// The adapter's transmitter, if the node has an ATM link.
    #[inline]
    pub fn port(&self) -> Option<PortId> {
        self.port
    }

    pub fn set_port(&mut self, p: PortId) {
        self.port = Some(p);
    }

    /// Interface MTU \[bytes\].
    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    /// Frames that failed reassembly here, and frames reassembled here.
    pub fn frames(&self) -> (u64, u64) {
        (self.frames_corrupt, self.frames_rcvd)
    }

    /// A frame failed reassembly here.
    pub fn frame_corrupt(&mut self) {
        self.frames_corrupt += 1;
    }

    /// A frame was reassembled here.
    #[inline]
    pub fn frame_received(&mut self) {
        self.frames_rcvd += 1;
    }

    /// Its packet capture, if any.
    #[inline]
    pub fn tap(&self) -> Option<u32> {
        self.tap
    }

    pub fn set_tap(&mut self, t: u32) {
        self.tap = Some(t);
    }

    /// Its segment-processing CPU, if it has processing costs.
    pub fn cpu(&self) -> Option<&cpu::Cpu> {
        self.cpu.as_ref()
    }

    #[inline]
    pub fn cpu_mut(&mut self) -> Option<&mut cpu::Cpu> {
        self.cpu.as_mut()
    }

    /// The next hop towards `dst` (`None`, counted: no route).
    #[inline]
    pub fn route(&mut self, dst: NodeId) -> Option<route::Hop> {
        let hop = self.routes.get(dst);
        if hop.is_none() {
            self.ip.no_route += 1;
        }
        hop
    }

    /// A datagram for another node arrived: true if the node forwards it (counted as
    /// forwarded; a host is never a transit hop, and counts it as having no route).
    #[inline]
    pub fn transit(&mut self) -> bool {
        if self.forwards {
            self.ip.forwarded += 1;
        } else {
            self.ip.no_route += 1;
        }
        self.forwards
    }

    /// A datagram for the node found no socket (it ends here).
    #[inline]
    pub fn no_socket(&mut self) {
        self.ip.no_socket += 1;
    }
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
