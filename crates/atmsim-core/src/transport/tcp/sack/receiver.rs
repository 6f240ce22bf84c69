//! The data receiver's SACK blocks (RFC 2018 §4).
//!
//! Owns: [`SackReport`], the blocks most recently reported, the most recent first. Every ACK
//! sent while the reassembly queue holds out-of-order data carries blocks (the connection
//! checks the queue): the first is the contiguous queued range containing the segment that
//! triggered the ACK, unless that segment advanced the cumulative ACK; the others repeat the
//! most recently reported blocks that are not subsets of one already included, as many as
//! fit (4, or 3 beside the timestamps option: RFC 2018 §3). A block is always a whole range
//! of the queue as it stands (adjacent queued segments merged). Duplicate segments are not
//! reported as such (no D-SACK, RFC 2883).

use super::super::reass::ReassQueue;
use super::super::segment::{SackBlocks, MAX_SACK_BLOCKS};
use super::super::seq::seq_lt;

/// The blocks most recently reported, the most recent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackReport {
    recent: SackBlocks,
}

impl SackReport {
    /// A segment `[seq, seq + len)` went through the reassembly queue (queued out of order, a
    /// duplicate of queued data, or filling the hole at `rcv_nxt`); `rcv_nxt` is the
    /// cumulative ACK after it. Puts the range containing it first and keeps the other
    /// recently reported ranges that are still queued, refreshed to the queue's ranges.
    pub fn on_arrival(&mut self, reass: &ReassQueue, rcv_nxt: u32, seq: u32, len: u32) {
        let mut next = SackBlocks::default();
        if len > 0 && !seq_lt(seq, rcv_nxt) {
            if let Some(b) = reass.block_containing(seq) {
                next.push(b.0, b.1);
            }
        }
        for &(left, _) in self.recent.as_slice() {
            if seq_lt(left, rcv_nxt) {
                continue; // delivered
            }
            // A range only grows by an arrival, which then heads the list: the lookup drops
            // the ranges merged into it and any that have gone.
            if let Some(b) = reass.block_containing(left) {
                if !next.as_slice().contains(&b) {
                    next.push(b.0, b.1);
                }
            }
        }
        self.recent = next;
    }

    /// The blocks an ACK carries now: the first `max` (at most 4) of the list.
    #[inline]
    pub fn blocks(&self, max: usize) -> SackBlocks {
        let mut b = self.recent;
        b.n = b.n.min(max.min(MAX_SACK_BLOCKS) as u8);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 2018 §7's examples: left window edge 5000, a burst of 8 segments of 500 bytes.
    /// `arrive` feeds one segment to a queue and report as `tcp_input` does; returns the ACK
    /// and its blocks.
    fn arrive(q: &mut ReassQueue, r: &mut SackReport, rcv_nxt: &mut u32, seq: u32) -> (u32, Vec<(u32, u32)>) {
        if seq == *rcv_nxt && q.is_empty() {
            *rcv_nxt += 500; // in order, nothing queued: no SACK processing
        } else {
            q.insert(*rcv_nxt, seq, 500, false);
            *rcv_nxt += q.present(*rcv_nxt).delivered as u32;
            r.on_arrival(q, *rcv_nxt, seq, 500);
        }
        let blocks = if q.is_empty() { vec![] } else { r.blocks(4).as_slice().to_vec() };
        (*rcv_nxt, blocks)
    }

    #[test]
    fn rfc2018_case2_first_segment_lost_one_growing_block() {
        let (mut q, mut r, mut nxt) = (ReassQueue::default(), SackReport::default(), 5000);
        for (i, seq) in (5500..9000).step_by(500).enumerate() {
            assert_eq!(arrive(&mut q, &mut r, &mut nxt, seq), (5000, vec![(5500, 6000 + 500 * i as u32)]));
        }
    }

    #[test]
    fn rfc2018_case3_alternate_losses_then_reordering_then_fill() {
        let (mut q, mut r, mut nxt) = (ReassQueue::default(), SackReport::default(), 5000);
        assert_eq!(arrive(&mut q, &mut r, &mut nxt, 5000), (5500, vec![]));
        assert_eq!(arrive(&mut q, &mut r, &mut nxt, 6000), (5500, vec![(6000, 6500)]));
        assert_eq!(arrive(&mut q, &mut r, &mut nxt, 7000), (5500, vec![(7000, 7500), (6000, 6500)]));
        assert_eq!(arrive(&mut q, &mut r, &mut nxt, 8000), (5500, vec![(8000, 8500), (7000, 7500), (6000, 6500)]));
        // The 4th segment arrives out of order: it joins the 3rd and 5th.
        assert_eq!(arrive(&mut q, &mut r, &mut nxt, 6500), (5500, vec![(6000, 7500), (8000, 8500)]));
        // The 2nd arrives: the ACK advances to 7500 and the remaining block is reported.
        assert_eq!(arrive(&mut q, &mut r, &mut nxt, 5500), (7500, vec![(8000, 8500)]));
    }

    #[test]
    fn blocks_are_capped_and_a_duplicate_moves_its_range_first() {
        let (mut q, mut r, mut nxt) = (ReassQueue::default(), SackReport::default(), 0);
        for seq in [1000, 2000, 3000, 4000, 5000] {
            arrive(&mut q, &mut r, &mut nxt, seq);
        }
        let want: Vec<(u32, u32)> = [5000, 4000, 3000, 2000].iter().map(|&s| (s, s + 500)).collect();
        assert_eq!(r.blocks(4).as_slice(), &want[..]);
        assert_eq!(r.blocks(3).as_slice(), &want[..3], "three beside timestamps");
        // 1000's range fell off the list; a duplicate of it puts it first again.
        assert_eq!(
            arrive(&mut q, &mut r, &mut nxt, 1000).1,
            vec![(1000, 1500), (5000, 5500), (4000, 4500), (3000, 3500)]
        );
    }
}
