//! The TCP segment as atmsim carries it: header fields and a payload *length* (no bytes).
//!
//! Owns: [`Segment`], [`Flags`] and the header-size arithmetic that decides how many cells a
//! segment becomes (RFC 793 §3.1 header, RFC 793 MSS option, RFC 7323 window-scale and
//! timestamps options, RFC 2018 SACK-permitted and SACK options).
//!
//! Options are laid out as BSD and Linux lay them out, each padded with NOPs to 32 bits:
//! MSS 4 bytes, window scale 3 + 1, timestamps 10 + 2, SACK-permitted 2 + 2 (or 2 in the
//! timestamps' padding when both are on the SYN, as Linux does), SACK 2 + 8 per block + 2.

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

/// The timestamps option (RFC 7323 §3): the sender's clock and the echo of the peer's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    /// TSval: the sender's timestamp clock when the segment was sent.
    pub val: u32,
    /// TSecr: the most recent TSval received from the peer (`TS.Recent`), 0 on a SYN.
    pub ecr: u32,
}

/// Most SACK blocks a segment carries: 4 fill the 40 option bytes; with timestamps 3 fit
/// (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// The SACK option (RFC 2018 §3): up to four `[left, right)` blocks of received data above
/// the cumulative ACK, the most recently changed first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// Blocks in use.
    pub n: u8,
    pub blocks: [(u32, u32); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// The blocks in use.
    #[inline]
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.n as usize]
    }
    /// Append a block if there is room; returns whether it was added.
    pub fn push(&mut self, left: u32, right: u32) -> bool {
        if (self.n as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.n as usize] = (left, right);
            self.n += 1;
            true
        } else {
            false
        }
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
    /// SACK-permitted option (SYN segments only, RFC 2018 §2).
    pub sack_ok: bool,
    /// Timestamps option (RFC 7323 §3).
    pub ts: Option<Timestamps>,
    /// SACK option (RFC 2018 §3); `n == 0`: none.
    pub sack: SackBlocks,
}

/// IPv4 header without options \[bytes\].
pub const IP_HEADER_BYTES: u32 = 20;
/// TCP header without options \[bytes\].
pub const TCP_HEADER_BYTES: u32 = 20;

impl Segment {
    /// TCP header including options \[bytes\] (the module docs give the layout).
    #[inline]
    pub fn header_bytes(&self) -> u32 {
        TCP_HEADER_BYTES + self.options_bytes()
    }
    /// Option bytes, padding included.
    #[inline]
    pub fn options_bytes(&self) -> u32 {
        let mut n = if self.mss.is_some() { 4 } else { 0 } + if self.wscale.is_some() { 4 } else { 0 };
        if self.ts.is_some() {
            n += 12;
        } else if self.sack_ok {
            n += 4;
        }
        if self.sack.n > 0 {
            n += 4 + 8 * self.sack.n as u32;
        }
        n
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
        // A Linux SYN: MSS, SACK-permitted in the timestamps' padding, window scale.
        s.sack_ok = true;
        s.ts = Some(Timestamps { val: 1, ecr: 0 });
        assert_eq!(s.header_bytes(), 40);
        // SACK-permitted alone takes a word of its own.
        s.ts = None;
        assert_eq!(s.header_bytes(), 32);
        // A data segment with timestamps and three SACK blocks fills the 40 option bytes.
        let mut d = Segment { len: 100, ts: Some(Timestamps::default()), ..Default::default() };
        for i in 0..3 {
            assert!(d.sack.push(i, i + 1));
        }
        assert_eq!(d.options_bytes(), 40);
        assert!(d.sack.push(9, 10));
        assert!(!d.sack.push(11, 12), "four blocks at most");
        assert_eq!(d.sack.as_slice().len(), 4);
    }
}
