//! Transport demultiplexing: which endpoint on a host a datagram is for.
//!
//! Owns: [`SocketTable`] (every host's sockets), [`Sockets`] (a host's table), [`SockKey`]
//! and [`Socket`]. The transport layer keeps them, as BSD's protocols keep their PCB lists;
//! IP hands a datagram for a host to [`SocketTable::demux`]. An endpoint is found by
//! (protocol, local port, remote address, remote port) — the connected-socket lookup of BSD's
//! `in_pcblookup` —, one hash lookup per datagram and no scan. TCP endpoints are bound when a
//! connection is created and unbound when a pooled conversation ends; a UDP flow's receiver
//! is bound at its destination. A datagram that finds no socket is counted (`no_socket`; a
//! real TCP would answer with a reset) and ends there. The table is only looked up, never
//! iterated, so hashing cannot affect results; it uses the seedless hasher of
//! [`crate::detmap`] (a keyed SipHash cost Mah's internetwork about 2 % of its instructions,
//! one lookup per TCP segment).

use crate::detmap::DetMap;
use crate::header::{PacketHeader, Proto};
use crate::ids::{ConnId, NodeId};

/// The key of a socket, as seen from its host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SockKey {
    pub proto: Proto,
    pub local_port: u16,
    pub remote: NodeId,
    pub remote_port: u16,
}

impl SockKey {
    /// The socket an arriving datagram is for.
    #[inline]
    pub fn incoming(h: &PacketHeader) -> Self {
        SockKey { proto: h.proto, local_port: h.dst_port, remote: h.src, remote_port: h.src_port }
    }

    /// The socket that sends datagrams with header `h`.
    pub fn outgoing(h: &PacketHeader) -> Self {
        SockKey { proto: h.proto, local_port: h.src_port, remote: h.dst, remote_port: h.dst_port }
    }
}

/// What a socket leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Socket {
    /// Endpoint `side` of TCP connection slot `conn`.
    Tcp { conn: ConnId, side: u8 },
    /// The receiver of UDP flow `flow`.
    Udp { flow: u32 },
}

/// Every host's sockets, by host.
#[derive(Debug, Default)]
pub struct SocketTable {
    hosts: Vec<Sockets>,
}

impl SocketTable {
    /// The (empty) tables of `hosts` hosts.
    pub fn new(hosts: usize) -> Self {
        SocketTable { hosts: (0..hosts).map(|_| Sockets::default()).collect() }
    }

    /// The socket at host `h` a datagram with header `hdr` is for.
    #[inline]
    pub fn demux(&self, h: NodeId, hdr: &PacketHeader) -> Option<Socket> {
        self.hosts[h.idx()].lookup(&SockKey::incoming(hdr))
    }

    /// Whether a socket at host `h` holds `key`.
    pub fn is_bound(&self, h: NodeId, key: &SockKey) -> bool {
        self.hosts[h.idx()].lookup(key).is_some()
    }

    /// Bind `s` to `key` at host `h`: false if a socket holds it already.
    pub fn bind(&mut self, h: NodeId, key: SockKey, s: Socket) -> bool {
        self.hosts[h.idx()].bind(key, s)
    }

    /// Unbind `key` at host `h`.
    pub fn unbind(&mut self, h: NodeId, key: &SockKey) {
        self.hosts[h.idx()].unbind(key);
    }
}

/// A host's sockets.
#[derive(Debug, Default)]
pub struct Sockets {
    map: DetMap<SockKey, Socket>,
}

impl Sockets {
    /// Bind `key`; false if it was already bound (the old binding is kept).
    pub fn bind(&mut self, key: SockKey, s: Socket) -> bool {
        match self.map.entry(key) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(s);
                true
            }
        }
    }

    pub fn unbind(&mut self, key: &SockKey) {
        self.map.remove(key);
    }

    #[inline]
    pub fn lookup(&self, key: &SockKey) -> Option<Socket> {
        self.map.get(key).copied()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
