//! VCI bookkeeping at one controller port.
//!
//! Owns: [`VciSpace`], the VCIs of one outgoing link — which are free and which call record
//! holds each — and [`VciTable`], the map from the VCIs an upstream neighbour chose on an
//! incoming link to this controller's call records.
//!
//! **Allocation rule.** The lowest free VCI at or above the first usable one. VCIs
//! `0..first` are reserved (0–31 in ATM practice; the signalling VC itself is
//! [`super::SIG_VCI`] = 5, the UNI point-to-point signalling VCI), and the space holds
//! `limit` VCIs in all (`0..limit`; 8192 per port in Mah §6.6). Free VCIs are the never-used
//! range `[high, limit)` plus a min-heap of returned ones (all below `high`), so the lowest
//! free VCI is the heap's minimum if any, else `high`: deterministic, `O(log n)`, and no
//! allocation once the tables have grown to the working set.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;

/// Map from VCI to a call-record slot, grown on demand.
#[derive(Clone, Debug, Default)]
pub struct VciTable {
    slot: Vec<u32>,
}

impl VciTable {
    pub fn get(&self, vci: u32) -> Option<u32> {
        self.slot.get(vci as usize).copied().filter(|&s| s != NONE)
    }
    pub fn set(&mut self, vci: u32, slot: u32) {
        let i = vci as usize;
        if i >= self.slot.len() {
            self.slot.resize(i + 1, NONE);
        }
        debug_assert_eq!(self.slot[i], NONE, "VCI {vci} already bound");
        self.slot[i] = slot;
    }
    pub fn clear(&mut self, vci: u32) {
        if let Some(s) = self.slot.get_mut(vci as usize) {
            *s = NONE;
        }
    }
    /// Bound VCIs (a scan, for tests and end-of-run checks).
    pub fn count(&self) -> usize {
        self.slot.iter().filter(|&&s| s != NONE).count()
    }
}

/// The VCIs of one outgoing link.
#[derive(Clone, Debug)]
pub struct VciSpace {
    limit: u32,
    /// Lowest never-allocated VCI.
    high: u32,
    freed: BinaryHeap<Reverse<u32>>,
    owners: VciTable,
    in_use: u32,
}

impl VciSpace {
    /// VCIs `first..limit` are allocatable.
    pub fn new(first: u32, limit: u32) -> Self {
        VciSpace { limit, high: first, freed: BinaryHeap::new(), owners: VciTable::default(), in_use: 0 }
    }
    /// VCIs currently allocated.
    pub fn in_use(&self) -> u32 {
        self.in_use
    }
    /// No VCI is free.
    pub fn is_full(&self) -> bool {
        self.freed.is_empty() && self.high >= self.limit
    }
    /// Allocate the lowest free VCI for call record `slot`.
    pub fn alloc(&mut self, slot: u32) -> Option<u32> {
        let vci = match self.freed.pop() {
            Some(Reverse(v)) => v,
            None if self.high < self.limit => {
                self.high += 1;
                self.high - 1
            }
            None => return None,
        };
        self.owners.set(vci, slot);
        self.in_use += 1;
        Some(vci)
    }
    /// Return `vci` to the free pool.
    pub fn free(&mut self, vci: u32) {
        debug_assert!(self.owners.get(vci).is_some(), "freeing unallocated VCI {vci}");
        self.owners.clear(vci);
        self.freed.push(Reverse(vci));
        self.in_use -= 1;
    }
    /// The call record holding `vci`, if allocated.
    pub fn owner(&self, vci: u32) -> Option<u32> {
        self.owners.get(vci)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_the_lowest_free_vci_above_the_reserved_range() {
        let mut s = VciSpace::new(32, 36);
        assert_eq!([s.alloc(0), s.alloc(1), s.alloc(2)], [Some(32), Some(33), Some(34)]);
        s.free(33);
        s.free(32);
        assert_eq!(s.alloc(7), Some(32));
        assert_eq!(s.alloc(8), Some(33));
        assert_eq!(s.alloc(9), Some(35));
        assert!(s.is_full());
        assert_eq!(s.alloc(10), None);
        assert_eq!((s.owner(35), s.in_use()), (Some(9), 4));
    }
}
