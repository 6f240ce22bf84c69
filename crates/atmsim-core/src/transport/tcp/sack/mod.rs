//! Selective acknowledgements: the SACK option (RFC 2018) and the loss recovery it steers
//! (RFC 6675), on both sides of a connection.
//!
//! Owns: [`Scoreboard`], the sender's record of what the peer has SACKed (RFC 6675 §2–4:
//! `Update()`, `IsLost()`, `SetPipe()`, `NextSeg()`, `HighRxt`); the receiver's choice of
//! blocks is [`receiver`], the loss-recovery procedure on the connection is [`recovery`].
//!
//! **Negotiation** (RFC 2018 §2): with `TcpConfig::sack` the SYN carries SACK-permitted, the
//! SYN-ACK only if the peer's SYN did; SACK is in use when both SYNs carried it. Without it
//! nothing here runs.
//!
//! **Modelled**: the option exchange; the receiver's blocks, the most recent first (RFC 2018
//! §4; at most 4, 3 with timestamps); the sender's scoreboard of SACKed ranges (merged,
//! sorted), `HighRxt` and `RescueRxt`; `IsLost`, `pipe` and `NextSeg` rules 1–4 (rule 4, the
//! optional "rescue" retransmission, included: one per recovery, it repairs a loss above
//! the highest SACK that no later SACK would reveal, as NewReno's partial ACK does); recovery
//! entry on the
//! `DupThresh`-th duplicate ACK or `IsLost(HighACK + 1)` (§5 steps 1–2, 4), the pipe-limited
//! transmissions on every ACK in recovery (§5 (A)–(C)), exit when `RecoveryPoint` is
//! acknowledged, and the timeout (§5.1).
//!
//! **Not modelled**: D-SACK (RFC 2883); limited transmit (RFC 6675 §5 step 3, RFC 3042: 4.4BSD
//! has none); detecting the loss of a retransmission (RFC 6675 leaves it to the timeout);
//! using SACK information to skip SACKed data in the go-back-N after a timeout (the
//! scoreboard is cleared, below); receiver reneging (atmsim's receiver never discards
//! queued data, so the sender's trust in SACKs is never misplaced).
//!
//! **Timeout** (RFC 6675 §5.1): the scoreboard is cleared (RFC 2018 §8: the receiver may have
//! reneged, so SACK information is expunged, as FreeBSD does), `HighRxt` with it, recovery is
//! left, and `RecoveryPoint = HighData`: recovery is not re-entered until the cumulative ACK
//! reaches it. SACKs that arrive after the timeout fill the scoreboard again.
//!
//! Sequence numbers are absolute (modulo 2³²); every range lies in `[HighACK, HighData]`,
//! `HighACK` being `snd_una` and `HighData` `snd_max`, and is compared by its offset from
//! `snd_una`. `HighRxt` and `RescueRxt` are kept as the sequence number *after* the octet
//! RFC 6675 names (the highest retransmitted, the recovery point), so `HighACK > RescueRxt`
//! reads `snd_una > rescue_rxt`.

pub mod receiver;
pub mod recovery;

#[cfg(test)]
mod tests;

use super::seq::{seq_gt, seq_lt};

/// What `NextSeg()` (RFC 6675 §4) says to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit `[seq, seq + len)`: rule 1 (`lost`: a hole `IsLost()` declares lost) or
    /// rule 3 (an unSACKed octet below the highest SACK, not yet judged lost).
    Retransmit { seq: u32, len: u32, lost: bool },
    /// Rule 2: one segment of new data from `HighData`.
    NewData,
    /// Rule 4, the rescue retransmission: `[seq, seq + len)` ends with the highest unSACKed
    /// octet. It does not move `HighRxt`; the caller sets `RescueRxt` to the recovery point.
    Rescue { seq: u32, len: u32 },
}

/// The sender's scoreboard (RFC 6675 §3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// SACKed ranges `[left, right)` above `snd_una`, sorted and merged (neither overlapping
    /// nor adjacent).
    sacked: Vec<(u32, u32)>,
    /// `HighRxt`, exclusive: one past the highest octet retransmitted in this recovery.
    high_rxt: u32,
    /// `RescueRxt`, exclusive: rule 4 may fire once `snd_una` passes it.
    rescue_rxt: u32,
    /// A transmission of the recovery is under way: `tcp_output()` may send data beyond
    /// the ordinary path's gate (see [`recovery`]).
    pub(in crate::transport::tcp) sending: bool,
}

/// Holes of `[base, top)` that are not SACKed, as offsets from `base`, lowest first, each
/// with the SACKed bytes and ranges above it.
struct Hole {
    start: u32,
    end: u32,
    sacked_above: u64,
    ranges_above: u32,
}

impl Scoreboard {
    /// The SACKed ranges, lowest first.
    pub fn sacked(&self) -> &[(u32, u32)] {
        &self.sacked
    }

    /// `HighRxt` (exclusive).
    pub fn high_rxt(&self) -> u32 {
        self.high_rxt
    }

    /// RFC 6675 §5 step 4.3 / (C.2): octets below `end` have been retransmitted.
    pub fn retransmitted(&mut self, end: u32) {
        if seq_lt(self.high_rxt, end) {
            self.high_rxt = end;
        }
    }

    /// Entry into loss recovery: nothing is retransmitted yet (`HighRxt = HighACK`).
    pub fn start_recovery(&mut self, snd_una: u32) {
        self.high_rxt = snd_una;
        self.rescue_rxt = snd_una;
    }

    /// `RescueRxt`: the end of the entry's retransmission (§5 step 4.3), then the recovery
    /// point once the rescue is sent (§4 rule 4).
    pub fn set_rescue_rxt(&mut self, end: u32) {
        self.rescue_rxt = end;
    }

    /// Forget every SACK (after a timeout: RFC 2018 §8).
    pub fn clear(&mut self) {
        self.sacked.clear();
    }

    /// `Update()` (RFC 6675 §3): drop what the cumulative ACK `snd_una` covers and record the
    /// blocks of an arriving ACK. Blocks outside `[snd_una, snd_max]` are ignored or clipped
    /// (RFC 2018 §5: the sender ignores SACKs of data it never sent or the ACK covers).
    pub fn update(&mut self, snd_una: u32, snd_max: u32, blocks: &[(u32, u32)]) {
        let off = |s: u32| s.wrapping_sub(snd_una);
        let top = off(snd_max);
        // Prune: ranges are stored in order, so those the ACK covers come first.
        let covered = self.sacked.iter().take_while(|&&(_, r)| off(r) == 0 || off(r) > top).count();
        if covered > 0 {
            self.sacked.drain(..covered);
        }
        if let Some(first) = self.sacked.first_mut() {
            if off(first.0) > top {
                first.0 = snd_una; // the ACK lands inside the first range
            }
        }
        for &(l, r) in blocks {
            let (lo, hi) = (off(l), off(r));
            // Offsets above `top` lie below `snd_una`. A block is valid when
            // `snd_una <= l < r <= snd_max`; one that straddles `snd_una` is clipped.
            if hi == 0 || hi > top {
                continue;
            }
            let lo = if lo > top { 0 } else { lo };
            if lo < hi {
                self.insert(snd_una, lo, hi);
            }
        }
    }

    /// Merge `[base + lo, base + hi)` into the ranges.
    fn insert(&mut self, base: u32, mut lo: u32, mut hi: u32) {
        let off = |s: u32| s.wrapping_sub(base);
        let i = self.sacked.iter().position(|&(_, r)| off(r) >= lo).unwrap_or(self.sacked.len());
        let mut j = i;
        while let Some(&(l, r)) = self.sacked.get(j).filter(|&&(l, _)| off(l) <= hi) {
            lo = lo.min(off(l));
            hi = hi.max(off(r));
            j += 1;
        }
        self.sacked.splice(i..j, [(base.wrapping_add(lo), base.wrapping_add(hi))]);
    }

    /// The holes of `[snd_una, snd_max)`, lowest first; the last is the one above the
    /// highest SACK (empty if a SACK reaches `snd_max`).
    fn holes(&self, snd_una: u32, snd_max: u32) -> impl Iterator<Item = Hole> + '_ {
        let off = move |s: u32| s.wrapping_sub(snd_una);
        let mut sacked_above: u64 = self.sacked.iter().map(|&(l, r)| off(r).wrapping_sub(off(l)) as u64).sum();
        let mut start = 0;
        let mut k = 0;
        std::iter::from_fn(move || {
            if k > self.sacked.len() {
                return None;
            }
            let ranges_above = (self.sacked.len() - k) as u32;
            let hole = match self.sacked.get(k) {
                Some(&(l, r)) => {
                    let h = Hole { start, end: off(l), sacked_above, ranges_above };
                    sacked_above -= off(r).wrapping_sub(off(l)) as u64;
                    start = off(r);
                    h
                }
                None => Hole { start, end: off(snd_max), sacked_above: 0, ranges_above: 0 },
            };
            k += 1;
            Some(hole)
        })
    }

    /// `IsLost()` (RFC 6675 §4) for an unSACKed octet: `dupthresh` discontiguous SACKed
    /// ranges above it, or more than `(dupthresh − 1)·smss` SACKed bytes above it.
    #[inline]
    fn lost(sacked_above: u64, ranges_above: u32, dupthresh: u32, smss: u32) -> bool {
        ranges_above >= dupthresh || sacked_above > dupthresh.saturating_sub(1) as u64 * smss as u64
    }

    /// `IsLost(seq)` (RFC 6675 §4).
    pub fn is_lost(&self, snd_una: u32, seq: u32, dupthresh: u32, smss: u32) -> bool {
        let s = seq.wrapping_sub(snd_una);
        let (mut bytes, mut n) = (0u64, 0u32);
        for &(l, r) in self.sacked.iter().rev() {
            let (l, r) = (l.wrapping_sub(snd_una), r.wrapping_sub(snd_una));
            if r <= s.saturating_add(1) {
                break;
            }
            bytes += (r - l.max(s.saturating_add(1))) as u64;
            n += 1;
        }
        Self::lost(bytes, n, dupthresh, smss)
    }

    /// `SetPipe()` (RFC 6675 §4): octets of `[snd_una, snd_max)` not SACKed count once if not
    /// lost and once more if retransmitted (below `HighRxt`) \[bytes\].
    pub fn pipe(&self, snd_una: u32, snd_max: u32, dupthresh: u32, smss: u32) -> u32 {
        let top = snd_max.wrapping_sub(snd_una);
        let hr = if seq_lt(self.high_rxt, snd_una) { 0 } else { self.high_rxt.wrapping_sub(snd_una).min(top) };
        let mut pipe = 0u64;
        for h in self.holes(snd_una, snd_max) {
            if !Self::lost(h.sacked_above, h.ranges_above, dupthresh, smss) {
                pipe += (h.end - h.start) as u64;
            }
            pipe += h.end.min(hr).saturating_sub(h.start) as u64;
        }
        pipe.min(u32::MAX as u64) as u32
    }

    /// `NextSeg()` (RFC 6675 §4); `new_data`: unsent data exists and the peer's window admits
    /// it (rule 2). A retransmission stops at the hole's end (the octets above are SACKed)
    /// and is at most `smss` long.
    pub fn next_seg(&self, snd_una: u32, snd_max: u32, dupthresh: u32, smss: u32, new_data: bool) -> Option<NextSeg> {
        let hr = if seq_lt(self.high_rxt, snd_una) { 0 } else { self.high_rxt.wrapping_sub(snd_una) };
        // Holes below the highest SACK (1.b), from HighRxt up (1.a).
        let candidate = |h: &Hole| {
            let start = h.start.max(hr);
            (h.ranges_above > 0 && start < h.end).then_some(start)
        };
        let retransmit = |h: &Hole, start: u32, lost: bool| NextSeg::Retransmit {
            seq: snd_una.wrapping_add(start),
            len: (h.end - start).min(smss),
            lost,
        };
        // Rule 1: the first lost hole (IsLost is monotone: the lowest hole is the likeliest).
        let first = self.holes(snd_una, snd_max).find_map(|h| candidate(&h).map(|s| (h, s)));
        if let Some((h, start)) = &first {
            if Self::lost(h.sacked_above, h.ranges_above, dupthresh, smss) {
                return Some(retransmit(h, *start, true));
            }
        }
        // Rule 2: new data.
        if new_data {
            return Some(NextSeg::NewData);
        }
        // Rule 3: the first unSACKed octet above HighRxt below the highest SACK.
        if let Some((h, start)) = first {
            return Some(retransmit(&h, start, false));
        }
        // Rule 4: once per recovery, after a cumulative ACK beyond the entry's retransmission,
        // the segment that ends with the highest unSACKed octet.
        if !seq_gt(snd_una, self.rescue_rxt) {
            return None;
        }
        let top = self.holes(snd_una, snd_max).filter(|h| h.end > h.start).last()?;
        let start = top.start.max(top.end.saturating_sub(smss));
        Some(NextSeg::Rescue { seq: snd_una.wrapping_add(start), len: top.end - start })
    }
}
