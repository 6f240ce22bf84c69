//! Packet capture: pcap files of the IP datagrams seen at a host's ATM interface.
//!
//! Owns: [`Tap`] (one capture point, accumulating a pcap file in memory), [`Capture`] (the
//! finished file handed back by [`crate::api::run_str`]), [`synthesize`] (real IPv4/TCP
//! header bytes for a simulated datagram) and the addressing scheme ([`host_addr`],
//! [`client_port`], [`SERVER_PORT`]).
//!
//! **What is captured.** At a host with a `[[capture]]`, every IP datagram its IP layer
//! hands to the ATM adapter (outgoing, stamped when it is queued at the adapter, before its
//! first cell is transmitted) and every datagram it receives after successful AAL5
//! reassembly (incoming, stamped when the last cell completes the frame). Datagrams the
//! adapter refuses (its buffer is full) never existed on the wire and are not captured;
//! frames that fail reassembly are not captured either. The whole run is captured,
//! warm-up included.
//!
//! **Bytes.** atmsim carries header fields, not bytes; the packet is synthesized: an IPv4
//! header (version 4, IHL 5, total length = the datagram's size, DF set, identification 0,
//! TTL 64, correct header checksum), then for TCP a header with the segment's ports, seq,
//! ack, flags, window field and options (MSS; NOP + window scale, as BSD 4.4 lays them out)
//! and a correct checksum over the pseudo-header, header and the all-zero payload of the
//! full length. Frames of cell sources become IPv4 protocol 253 ("experimental") datagrams
//! with a zero payload (a frame under 20 bytes is written as a bare 20-byte header).
//! Each packet is cut to the capture's snap length (`incl_len`; `orig_len` keeps the full
//! size). Files use the nanosecond pcap format (magic `0xa1b23c4d`, little-endian) with
//! link type `LINKTYPE_RAW` (101: the packet starts with the IP header); timestamps are
//! simulation time since the start of the run (the epoch), truncated to nanoseconds.
//!
//! **Addresses.** Host number `i` (0-based, in `[[host]]` order) is `10.0.0.0 + i + 1`:
//! 10.0.0.1, 10.0.0.2, … (10.0.1.0 for the 256th). TCP connection number `k` (in `[[tcp]]`
//! order) uses client port `1024 + k` and server port 5001 (ttcp's).
//!
//! **Cost.** Nothing without captures (a per-host `Option` check); with one, about
//! `16 + min(size, snaplen)` bytes of memory per packet until the run ends.

use crate::ids::{ConnId, NodeId};
use crate::time::SimTime;
use crate::transport::tcp::segment::{Flags, Segment, IP_HEADER_BYTES};
use etherparse::{IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::time::Duration;

/// Default snap length \[bytes\]: the headers and a little payload (which is zeros anyway).
pub const DEFAULT_SNAPLEN: u32 = 96;
/// Smallest snap length accepted: the largest header atmsim writes (IPv4 20 + TCP 28).
pub const MIN_SNAPLEN: u32 = 48;
/// TCP port of every connection's server (ttcp's default port).
pub const SERVER_PORT: u16 = 5001;
/// Client port of connection 0; connection `k` uses `CLIENT_PORT_BASE + k`.
pub const CLIENT_PORT_BASE: u16 = 1024;
/// IP protocol number of cell-source frames (RFC 3692 "use for experimentation").
pub const RAW_PROTOCOL: u8 = 253;

const TTL: u8 = 64;
/// The payload of every synthesized packet (for the TCP checksum over the full length).
static ZEROS: [u8; 65536] = [0; 65536];

/// UDP header \[bytes\].
pub const UDP_HEADER_BYTES: u32 = 8;

/// IPv4 address of host `h`: `10.0.0.0 + index + 1`.
pub fn host_addr(h: NodeId) -> [u8; 4] {
    (0x0A00_0000u32 | ((h.0 + 1) & 0x00FF_FFFF)).to_be_bytes()
}

/// Client-side TCP port of connection `c`: `1024 + index` (wrapping within 1024..=65535).
pub fn client_port(c: ConnId) -> u16 {
    CLIENT_PORT_BASE + (c.0 % (65536 - CLIENT_PORT_BASE as u32)) as u16
}

/// TCP port of side `side` (0 = client, 1 = server) of connection `c`.
pub fn tcp_port(c: ConnId, side: usize) -> u16 {
    if side == 0 {
        client_port(c)
    } else {
        SERVER_PORT
    }
}

/// One IP datagram to write, described by what the simulator knows of it.
#[derive(Clone, Copy, Debug)]
pub enum Packet<'a> {
    Tcp {
        src: [u8; 4],
        dst: [u8; 4],
        sport: u16,
        dport: u16,
        seg: &'a Segment,
    },
    /// A cell source's frame of `ip_bytes` bytes.
    Raw {
        src: [u8; 4],
        dst: [u8; 4],
        ip_bytes: u32,
    },
    /// A UDP datagram of `ip_bytes` bytes (headers included; the payload is zeros).
    Udp {
        src: [u8; 4],
        dst: [u8; 4],
        sport: u16,
        dport: u16,
        ip_bytes: u32,
    },
}

/// A segment's options in the order and padding `Segment::options_bytes` counts: MSS;
/// SACK-permitted and timestamps (SACK-permitted in the timestamps' NOPs, as Linux lays
/// them out); NOP + window scale; NOP NOP + SACK blocks.
fn options(seg: &Segment) -> Vec<TcpOptionElement> {
    use TcpOptionElement::{Noop, SelectiveAcknowledgement, SelectiveAcknowledgementPermitted, Timestamp};
    let mut opts = Vec::with_capacity(8);
    if let Some(m) = seg.mss {
        opts.push(TcpOptionElement::MaximumSegmentSize(m));
    }
    match (seg.sack_ok, seg.ts) {
        (true, Some(ts)) => opts.extend([SelectiveAcknowledgementPermitted, Timestamp(ts.val, ts.ecr)]),
        (false, Some(ts)) => opts.extend([Noop, Noop, Timestamp(ts.val, ts.ecr)]),
        (true, None) => opts.extend([Noop, Noop, SelectiveAcknowledgementPermitted]),
        (false, None) => {}
    }
    if let Some(s) = seg.wscale {
        opts.extend([Noop, TcpOptionElement::WindowScale(s)]);
    }
    if let [first, rest @ ..] = seg.sack.as_slice() {
        let mut more = [None; 3];
        for (m, b) in more.iter_mut().zip(rest) {
            *m = Some(*b);
        }
        opts.extend([Noop, Noop, SelectiveAcknowledgement(*first, more)]);
    }
    opts
}

/// Write the first `snaplen` bytes of `pkt` into `buf` (cleared first); returns the
/// datagram's full length (`orig_len`).
pub fn synthesize(pkt: &Packet<'_>, snaplen: u32, buf: &mut Vec<u8>) -> u32 {
    buf.clear();
    let orig = match *pkt {
        Packet::Tcp { src, dst, sport, dport, seg } => {
            let mut tcp = TcpHeader::new(sport, dport, seg.seq, seg.wnd);
            tcp.acknowledgment_number = seg.ack;
            tcp.fin = seg.flags.contains(Flags::FIN);
            tcp.syn = seg.flags.contains(Flags::SYN);
            tcp.rst = seg.flags.contains(Flags::RST);
            tcp.psh = seg.flags.contains(Flags::PSH);
            tcp.ack = seg.flags.contains(Flags::ACK);
            if seg.options_bytes() > 0 {
                tcp.set_options(&options(seg)).expect("the options fit in 40 bytes");
            }
            debug_assert_eq!(tcp.header_len() as u32, seg.header_bytes());
            let ip_bytes = seg.ip_bytes();
            let payload = &ZEROS[..seg.len as usize];
            let mut ip = Ipv4Header::new((ip_bytes - IP_HEADER_BYTES) as u16, TTL, IpNumber::TCP, src, dst)
                .expect("a TCP datagram fits in 65535 bytes");
            ip.header_checksum = ip.calc_header_checksum();
            tcp.checksum = tcp.calc_checksum_ipv4(&ip, payload).expect("a TCP datagram fits in 65535 bytes");
            ip.write(buf).expect("writing to a Vec");
            tcp.write(buf).expect("writing to a Vec");
            ip_bytes
        }
        Packet::Raw { src, dst, ip_bytes } => {
            let ip_bytes = ip_bytes.clamp(IP_HEADER_BYTES, u16::MAX as u32);
            let mut ip = Ipv4Header::new((ip_bytes - IP_HEADER_BYTES) as u16, TTL, IpNumber(RAW_PROTOCOL), src, dst)
                .expect("clamped to 65535 bytes");
            ip.header_checksum = ip.calc_header_checksum();
            ip.write(buf).expect("writing to a Vec");
            ip_bytes
        }
        Packet::Udp { src, dst, sport, dport, ip_bytes } => {
            let ip_bytes = ip_bytes.clamp(IP_HEADER_BYTES + UDP_HEADER_BYTES, u16::MAX as u32);
            let payload = &ZEROS[..(ip_bytes - IP_HEADER_BYTES - UDP_HEADER_BYTES) as usize];
            let mut ip = Ipv4Header::new((ip_bytes - IP_HEADER_BYTES) as u16, TTL, IpNumber::UDP, src, dst)
                .expect("clamped to 65535 bytes");
            ip.header_checksum = ip.calc_header_checksum();
            let udp = UdpHeader::with_ipv4_checksum(sport, dport, &ip, payload).expect("clamped to 65535 bytes");
            ip.write(buf).expect("writing to a Vec");
            udp.write(buf).expect("writing to a Vec");
            ip_bytes
        }
    };
    buf.resize(orig.min(snaplen) as usize, 0);
    orig
}

/// A finished capture: a complete pcap file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The capture's name (`[[capture]] name`, default the host's name).
    pub name: String,
    /// The host it was taken at.
    pub host: String,
    /// The bytes of the pcap file.
    pub pcap: Vec<u8>,
}

/// One capture point, recording into an in-memory pcap file.
pub struct Tap {
    pub name: String,
    pub host: String,
    snaplen: u32,
    /// Datagrams recorded that the host sent / received.
    pub packets_out: u64,
    pub packets_in: u64,
    writer: PcapWriter<Vec<u8>>,
    buf: Vec<u8>,
}

impl Tap {
    pub fn new(name: String, host: String, snaplen: u32) -> Tap {
        let header = PcapHeader {
            snaplen,
            datalink: DataLink::RAW,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(Vec::new(), header).expect("writing to a Vec");
        Tap { name, host, snaplen, packets_out: 0, packets_in: 0, writer, buf: Vec::new() }
    }

    /// Record `pkt` at `now`; `outgoing` tells which counter it adds to.
    pub fn record(&mut self, now: SimTime, outgoing: bool, pkt: &Packet<'_>) {
        let orig = synthesize(pkt, self.snaplen, &mut self.buf);
        let ts = Duration::from_nanos(now.0 / 1000);
        self.writer.write_packet(&PcapPacket::new(ts, orig, &self.buf)).expect("writing to a Vec");
        if outgoing {
            self.packets_out += 1;
        } else {
            self.packets_in += 1;
        }
    }

    /// The most bytes of a packet the capture keeps.
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    pub fn packets(&self) -> u64 {
        self.packets_out + self.packets_in
    }

    pub fn finish(self) -> Capture {
        Capture { name: self.name, host: self.host, pcap: self.writer.into_writer() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1071 one's-complement sum of `data` (odd length padded with a zero byte).
    fn ones_sum(data: &[u8], mut acc: u32) -> u32 {
        for ch in data.chunks(2) {
            acc += u32::from(u16::from_be_bytes([ch[0], *ch.get(1).unwrap_or(&0)]));
        }
        while acc > 0xFFFF {
            acc = (acc & 0xFFFF) + (acc >> 16);
        }
        acc
    }

    fn syn() -> Segment {
        Segment { seq: 0x0102_0304, ack: 0, flags: Flags::SYN, wnd: 65535, len: 0, mss: Some(9140), wscale: Some(2), ..Default::default() }
    }

    #[test]
    fn addresses_and_ports_follow_the_documented_scheme() {
        assert_eq!(host_addr(NodeId(0)), [10, 0, 0, 1]);
        assert_eq!(host_addr(NodeId(1)), [10, 0, 0, 2]);
        assert_eq!(host_addr(NodeId(255)), [10, 0, 1, 0]);
        assert_eq!(client_port(ConnId(0)), 1024);
        assert_eq!(client_port(ConnId(7)), 1031);
        assert_eq!(tcp_port(ConnId(7), 1), 5001);
    }

    #[test]
    fn syn_headers_are_laid_out_as_bsd_sends_them() {
        let s = syn();
        let mut buf = Vec::new();
        let p = Packet::Tcp { src: [10, 0, 0, 1], dst: [10, 0, 0, 3], sport: 1024, dport: 5001, seg: &s };
        let orig = synthesize(&p, 96, &mut buf);
        assert_eq!(orig, 48);
        assert_eq!(buf.len(), 48);
        // IPv4: version 4, IHL 5, total length 48, TTL 64, protocol 6.
        assert_eq!(buf[0], 0x45);
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]), 48);
        assert_eq!(buf[8], 64);
        assert_eq!(buf[9], 6);
        assert_eq!(&buf[12..16], &[10, 0, 0, 1]);
        assert_eq!(&buf[16..20], &[10, 0, 0, 3]);
        // A correct header checksum sums to 0xFFFF.
        assert_eq!(ones_sum(&buf[..20], 0), 0xFFFF);
        let t = &buf[20..];
        assert_eq!(u16::from_be_bytes([t[0], t[1]]), 1024);
        assert_eq!(u16::from_be_bytes([t[2], t[3]]), 5001);
        assert_eq!(u32::from_be_bytes([t[4], t[5], t[6], t[7]]), 0x0102_0304);
        assert_eq!(t[12] >> 4, 7, "data offset: 20 + 8 bytes of options");
        assert_eq!(t[13], 0x02, "flags: SYN");
        assert_eq!(u16::from_be_bytes([t[14], t[15]]), 65535);
        // MSS (kind 2, len 4, 9140), NOP, window scale (kind 3, len 3, shift 2).
        assert_eq!(&t[20..28], &[2, 4, 0x23, 0xB4, 1, 3, 3, 2]);
    }

    #[test]
    fn sack_and_timestamp_options_are_laid_out_as_linux_sends_them() {
        use crate::transport::tcp::segment::Timestamps;
        let ts = Some(Timestamps { val: 0x0A0B_0C0D, ecr: 7 });
        let syn = Segment { flags: Flags::SYN, mss: Some(1460), wscale: Some(7), sack_ok: true, ts, ..syn() };
        let mut buf = Vec::new();
        let p = Packet::Tcp { src: [10, 0, 0, 1], dst: [10, 0, 0, 3], sport: 1024, dport: 5001, seg: &syn };
        assert_eq!(synthesize(&p, 96, &mut buf), 60);
        let t = &buf[20..];
        assert_eq!(t[12] >> 4, 10, "data offset: 20 + 20 bytes of options");
        // MSS; SACK-permitted (kind 4, len 2); timestamps (kind 8, len 10); NOP; window scale.
        assert_eq!(&t[20..24], &[2, 4, 0x05, 0xB4]);
        assert_eq!(&t[24..28], &[4, 2, 8, 10]);
        assert_eq!(&t[28..32], &[0x0A, 0x0B, 0x0C, 0x0D]);
        assert_eq!(&t[32..36], &[0, 0, 0, 7]);
        assert_eq!(&t[36..40], &[1, 3, 3, 7]);
        // A data segment: NOP NOP timestamps, NOP NOP SACK (kind 5, len 2 + 8·2) with two blocks.
        let mut d = Segment { seq: 1, ack: 100, flags: Flags::ACK, wnd: 10, len: 8, ts, ..Default::default() };
        d.sack.push(200, 300);
        d.sack.push(400, 500);
        let p = Packet::Tcp { src: [10, 0, 0, 1], dst: [10, 0, 0, 3], sport: 1024, dport: 5001, seg: &d };
        assert_eq!(synthesize(&p, 96, &mut buf), 20 + 20 + 32 + 8);
        let t = &buf[20..];
        assert_eq!(t[12] >> 4, 13);
        assert_eq!(&t[20..24], &[1, 1, 8, 10]);
        assert_eq!(&t[32..36], &[1, 1, 5, 18]);
        assert_eq!(&t[36..44], &[0, 0, 0, 200, 0, 0, 1, 44]);
        assert_eq!(&t[44..52], &[0, 0, 1, 144, 0, 0, 1, 244]);
    }

    #[test]
    fn tcp_checksum_covers_the_full_zero_payload() {
        let s =
            Segment { seq: 1000, ack: 77, flags: Flags::ACK | Flags::PSH, wnd: 4096, len: 9140, ..Default::default() };
        let mut buf = Vec::new();
        let (src, dst) = ([10, 0, 0, 1], [10, 0, 0, 2]);
        let orig = synthesize(&Packet::Tcp { src, dst, sport: 1024, dport: 5001, seg: &s }, 96, &mut buf);
        assert_eq!(orig, 9180);
        assert_eq!(buf.len(), 96, "cut to the snap length");
        assert!(buf[40..].iter().all(|&b| b == 0));
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]), 9180);
        assert_eq!(ones_sum(&buf[..20], 0), 0xFFFF);
        // Pseudo-header (src, dst, zero, protocol, TCP length) + header + zero payload:
        // the payload adds nothing, so header + pseudo-header must sum to 0xFFFF.
        let tcp_len = (9180u32 - 20) as u16;
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&src);
        pseudo.extend_from_slice(&dst);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&tcp_len.to_be_bytes());
        assert_eq!(ones_sum(&buf[20..40], ones_sum(&pseudo, 0)), 0xFFFF);
        assert_eq!(buf[20 + 13], 0x18, "flags: ACK|PSH");
    }

    #[test]
    fn raw_frames_are_protocol_253_with_their_size() {
        let mut buf = Vec::new();
        let p = Packet::Raw { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], ip_bytes: 9180 };
        assert_eq!(synthesize(&p, 64, &mut buf), 9180);
        assert_eq!(buf.len(), 64);
        assert_eq!(buf[9], RAW_PROTOCOL);
        assert_eq!(ones_sum(&buf[..20], 0), 0xFFFF);
        let tiny = Packet::Raw { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], ip_bytes: 5 };
        assert_eq!(synthesize(&tiny, 96, &mut buf), 20);
        assert_eq!(buf.len(), 20);
    }

    #[test]
    fn pcap_file_has_nanosecond_magic_raw_linktype_and_records() {
        let mut tap = Tap::new("h".into(), "h".into(), 96);
        let s = syn();
        let p = Packet::Tcp { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], sport: 1024, dport: 5001, seg: &s };
        tap.record(SimTime(1_500_000_000_123_456), true, &p);
        assert_eq!(tap.packets(), 1);
        let f = tap.finish().pcap;
        assert_eq!(&f[0..4], &0xA1B2_3C4Du32.to_le_bytes());
        assert_eq!(u32::from_le_bytes(f[16..20].try_into().unwrap()), 96, "snaplen");
        assert_eq!(u32::from_le_bytes(f[20..24].try_into().unwrap()), 101, "LINKTYPE_RAW");
        let rec = &f[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1500, "seconds");
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 123, "nanoseconds (ps truncated)");
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 48, "incl_len");
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 48, "orig_len");
        assert_eq!(rec.len(), 16 + 48);
    }
}
