//! The reassembly queue of out-of-order segments (BSD 4.4-Lite `tcp_reass()`, tcp_input.c;
//! RFC 793 §3.9 "SEGMENT ARRIVES", sixth step).
//!
//! Owns: [`ReassQueue`], a list of sequence ranges (payload is never materialised) kept sorted
//! and non-overlapping. As in BSD, a new segment keeps its bytes and trims the *following*
//! queued segments it overlaps, while the part already covered by the *preceding* one is
//! dropped as a duplicate. [`ReassQueue::blocks`] and [`ReassQueue::block_containing`] give the
//! contiguous ranges the queue holds (adjacent segments merged), which the SACK option reports
//! (RFC 2018 §3–4, [`super::sack::receiver`]).

use super::seq::seq_diff;

/// One queued segment: `[seq, seq + len)` and whether a FIN follows its last byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReassSeg {
    pub seq: u32,
    pub len: u32,
    pub fin: bool,
}

/// Result of [`ReassQueue::insert`] and [`ReassQueue::present`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReassOutcome {
    /// Duplicate payload bytes discarded.
    pub dup_bytes: u64,
    /// In-order bytes delivered to the receive buffer.
    pub delivered: u64,
    /// The FIN was reached.
    pub fin: bool,
}

/// Out-of-order segments awaiting the bytes before them.
#[derive(Clone, Debug, Default)]
pub struct ReassQueue {
    segs: Vec<ReassSeg>,
}

impl ReassQueue {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    /// Insert `[seq, seq+len)` (+FIN), `seq` at or after `rcv_nxt`.
    pub fn insert(&mut self, rcv_nxt: u32, seq: u32, len: u32, fin: bool) -> ReassOutcome {
        let mut out = ReassOutcome::default();
        let off = |s: u32| seq_diff(s, rcv_nxt) as i64;
        let mut start = off(seq).max(0);
        let end = off(seq) + len as i64;
        // First queued segment starting after us.
        let pos = self.segs.iter().position(|q| off(q.seq) > start).unwrap_or(self.segs.len());
        if pos > 0 {
            let p = self.segs[pos - 1];
            let p_end = off(p.seq) + p.len as i64;
            if p_end >= end {
                // Entirely covered by the preceding segment: a duplicate (keep its FIN).
                if fin && p_end == end {
                    self.segs[pos - 1].fin = true;
                }
                out.dup_bytes += (end - start).max(0) as u64;
                return out;
            }
            if p_end > start {
                out.dup_bytes += (p_end - start) as u64;
                start = p_end;
            }
        }
        if start > end {
            return out;
        }
        // Trim or remove the following segments we cover.
        let i = pos;
        while i < self.segs.len() {
            let q = self.segs[i];
            let q_start = off(q.seq);
            let q_end = q_start + q.len as i64;
            if q_start >= end {
                break;
            }
            if q_end <= end {
                out.dup_bytes += q.len as u64;
                self.segs.remove(i);
            } else {
                let cut = (end - q_start) as u32;
                out.dup_bytes += cut as u64;
                self.segs[i] = ReassSeg { seq: q.seq.wrapping_add(cut), len: q.len - cut, fin: q.fin };
                break;
            }
        }
        let new = ReassSeg { seq: rcv_nxt.wrapping_add(start as u32), len: (end - start) as u32, fin };
        self.segs.insert(pos, new);
        out
    }

    /// The contiguous ranges `[left, right)` queued, in sequence order, adjacent segments merged
    /// (what RFC 2018 §3 calls blocks; a FIN adds nothing to a range).
    pub fn blocks(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut i = 0;
        std::iter::from_fn(move || {
            let first = self.segs.get(i)?;
            let (left, mut right) = (first.seq, first.seq.wrapping_add(first.len));
            i += 1;
            while let Some(q) = self.segs.get(i).filter(|q| q.seq == right) {
                right = right.wrapping_add(q.len);
                i += 1;
            }
            Some((left, right))
        })
    }

    /// The queued range containing sequence number `seq`, if any.
    pub fn block_containing(&self, seq: u32) -> Option<(u32, u32)> {
        self.blocks().find(|&(l, r)| seq_diff(seq, l) >= 0 && seq_diff(r, seq) > 0)
    }

    /// Deliver the segments now in order: returns the bytes (and FIN) that advance `rcv_nxt`.
    pub fn present(&mut self, rcv_nxt: u32) -> ReassOutcome {
        let mut out = ReassOutcome::default();
        let mut nxt = rcv_nxt;
        while let Some(q) = self.segs.first().copied() {
            if q.seq != nxt {
                break;
            }
            self.segs.remove(0);
            nxt = nxt.wrapping_add(q.len);
            out.delivered += q.len as u64;
            if q.fin {
                out.fin = true;
                self.segs.clear();
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_order_then_fill_delivers_all() {
        let mut q = ReassQueue::default();
        q.insert(0, 100, 100, false);
        q.insert(0, 300, 100, true);
        assert_eq!(q.present(0).delivered, 0);
        q.insert(0, 0, 100, false);
        let o = q.present(0);
        assert_eq!((o.delivered, o.fin), (200, false));
        q.insert(200, 200, 100, false);
        let o = q.present(200);
        assert_eq!((o.delivered, o.fin), (200, true));
        assert!(q.is_empty());
    }

    #[test]
    fn overlaps_are_counted_as_duplicates() {
        let mut q = ReassQueue::default();
        q.insert(0, 100, 100, false);
        assert_eq!(q.insert(0, 150, 100, false).dup_bytes, 50);
        assert_eq!(q.insert(0, 100, 50, false).dup_bytes, 50);
        assert_eq!(q.insert(0, 50, 300, false).dup_bytes, 150);
        assert_eq!(q.len(), 1);
        q.insert(0, 0, 50, false);
        assert_eq!(q.present(0).delivered, 350);
    }

    #[test]
    fn blocks_merge_adjacent_segments() {
        let mut q = ReassQueue::default();
        for (seq, len) in [(300, 100), (100, 100), (200, 50), (250, 50), (600, 10)] {
            q.insert(0, seq, len, false);
        }
        assert_eq!(q.blocks().collect::<Vec<_>>(), vec![(100, 400), (600, 610)]);
        assert_eq!(q.block_containing(399), Some((100, 400)));
        assert_eq!(q.block_containing(400), None);
        assert_eq!(q.block_containing(605), Some((600, 610)));
        let base = u32::MAX - 50;
        let mut w = ReassQueue::default();
        w.insert(base, base.wrapping_add(10), 40, false);
        w.insert(base, base.wrapping_add(50), 40, false);
        assert_eq!(w.block_containing(5), Some((base.wrapping_add(10), base.wrapping_add(90))));
    }

    #[test]
    fn wraps_around_sequence_zero() {
        let base = u32::MAX - 50;
        let mut q = ReassQueue::default();
        q.insert(base, base.wrapping_add(100), 100, false);
        q.insert(base, base, 100, false);
        assert_eq!(q.present(base).delivered, 200);
    }
}
