//! The IP header fields the simulator keeps for every datagram.
//!
//! Owns: [`PacketHeader`] (addresses, protocol, ports, type of service and the RTP-like media
//! tag of UDP datagrams), [`Proto`], [`Media`]. Addresses are node ids ([`NodeId`]): a node's
//! index is its address in every forwarding table. Transport endpoints are found by
//! (address, port); the IP-over-ATM driver classifies conversations by these fields
//! ([`crate::iface::ipoa::classify`], Mah 1996 §4.3.2, Fig 4-1).

use crate::ids::NodeId;

/// The transport protocol of a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proto {
    Tcp,
    Udp,
}

/// The media type carried by an RTP-like header of a UDP datagram (§4.3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Media {
    #[default]
    None,
    Audio,
    Video,
}

/// The header fields of one datagram that classification reads (Fig 4-1, unshaded fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketHeader {
    /// Source IP address (the node's index, as in forwarding tables).
    pub src: NodeId,
    /// Destination IP address.
    pub dst: NodeId,
    pub proto: Proto,
    pub src_port: u16,
    pub dst_port: u16,
    /// IP type-of-service byte.
    pub tos: u8,
    /// Media tag of a UDP datagram; ignored for TCP.
    pub media: Media,
}

impl PacketHeader {
    /// The header of a cell source's opaque frames: no ports, so the IP-over-ATM driver
    /// classifies them as "other" (cell sources are bound to their VC and never reach it).
    pub fn raw(src: NodeId, dst: NodeId) -> Self {
        PacketHeader { src, dst, proto: Proto::Udp, src_port: 0, dst_port: 0, tos: 0, media: Media::None }
    }
}
