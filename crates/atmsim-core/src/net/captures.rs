//! Packet captures at host interfaces ([`crate::pcap`]): a datagram a host sends or receives
//! is recorded by its tap, and the finished files are handed over after the run.

use super::Network;
use crate::ids::DatagramId;
use crate::pcap::{self, Capture, Packet};
use crate::transport::Payload;

impl Network {
    /// Record a datagram that the host of capture `t` sends (`outgoing`) or received.
    #[cold]
    #[inline(never)]
    pub(super) fn capture(&mut self, t: u32, outgoing: bool, d: DatagramId) {
        let dg = *self.ip.datagrams.get(d);
        let (ip_bytes, h) = (dg.ip_bytes, &dg.hdr);
        let (src, dst) = (pcap::host_addr(h.src), pcap::host_addr(h.dst));
        let pkt = match &dg.payload {
            Payload::Tcp { seg, .. } => Packet::Tcp { src, dst, sport: h.src_port, dport: h.dst_port, seg },
            Payload::Raw { .. } => Packet::Raw { src, dst, ip_bytes },
            Payload::Udp { .. } => Packet::Udp { src, dst, sport: h.src_port, dport: h.dst_port, ip_bytes },
        };
        self.measure.capture(t, self.eng.now, outgoing, &pkt);
    }

    /// Hand over the finished captures (leaves none behind).
    pub fn take_captures(&mut self) -> Vec<Capture> {
        self.measure.take_captures()
    }
}
