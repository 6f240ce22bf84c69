//! The TCP segment as atmsim carries it: header fields and a payload *length* (no bytes).
//!
//! Owns: [`Segment`], [`Flags`] and the header-size arithmetic that decides how many cells a
//! segment becomes (RFC 793 §3.1 header, RFC 793 MSS option, RFC 1323 window-scale option).

/// TCP control bits (RFC 793 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(pub u8);

impl Flags {
    pub const FIN: Flags = Flags(0x01);
    pub const SYN: Flags = Flags(0x02);
    pub const RST: Flags = Flags(0x04);
    pub const PSH: Flags = Flags(0x08);
    pub const ACK: Flags = Flags(0x10);
    pub const NONE: Flags = Flags(0);

    #[inline]
    pub const fn contains(self, o: Flags) -> bool {
        self.0 & o.0 == o.0
    }
    #[inline]
    pub const fn union(self, o: Flags) -> Flags {
        Flags(self.0 | o.0)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, o: Flags) -> Flags {
        Flags(self.0 | o.0)
    }
}

/// One TCP segment. `Copy` and small: it travels inside the AAL5 frame record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first octet (or of the SYN).
    pub seq: u32,
    /// Acknowledgement number (meaningful when `flags` has ACK).
    pub ack: u32,
    pub flags: Flags,
    /// The 16-bit window field as sent (not yet shifted by the window scale).
    pub wnd: u16,
    /// Payload length \[bytes\].
    pub len: u32,
    /// MSS option \[bytes\] (SYN segments only).
    pub mss: Option<u16>,
    /// Window-scale option shift count (SYN segments only, RFC 1323 §2).
    pub wscale: Option<u8>,
}

/// IPv4 header without options \[bytes\].
pub const IP_HEADER_BYTES: u32 = 20;
/// TCP header without options \[bytes\].
pub const TCP_HEADER_BYTES: u32 = 20;

impl Segment {
    /// TCP header including options \[bytes\]: MSS is 4 bytes, window scale 3 bytes padded
    /// with a NOP to 4 (as BSD 4.4 `tcp_output` lays them out).
    #[inline]
    pub fn header_bytes(&self) -> u32 {
        TCP_HEADER_BYTES + if self.mss.is_some() { 4 } else { 0 } + if self.wscale.is_some() { 4 } else { 0 }
    }
    /// The IP datagram's total length \[bytes\].
    #[inline]
    pub fn ip_bytes(&self) -> u32 {
        IP_HEADER_BYTES + self.header_bytes() + self.len
    }
    /// Sequence space the segment occupies: payload plus one for each of SYN and FIN.
    #[inline]
    pub fn seq_len(&self) -> u32 {
        self.len + self.flags.contains(Flags::SYN) as u32 + self.flags.contains(Flags::FIN) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sizes_follow_options() {
        let mut s = Segment { len: 9140, ..Default::default() };
        assert_eq!(s.ip_bytes(), 9180);
        s.mss = Some(9140);
        s.wscale = Some(2);
        s.len = 0;
        assert_eq!(s.ip_bytes(), 48);
    }
}
