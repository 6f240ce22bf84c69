//! RM cells in flight: their field records, and their ledger.
//!
//! Owns: [`RmCells`]. A cell of the fabric is 12 bytes of ids ([`crate::atm::cell::Cell`]);
//! the fields of an RM cell ([`RmCell`]: DIR, CI, NI, ER, CCR, MCR) do not fit in it, so an
//! RM cell in flight carries, in its `frame` field, the index of its record here. Records are
//! kept in a slab with a free list: no allocation per cell once the run is warm. A switch
//! that stamps ER writes into the record; the end system that receives the cell takes the
//! record out; a port that drops the cell frees it.

use super::RmCell;

/// Counters of RM cells network-wide (each RM cell is also a cell of the cell ledger).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RmCounts {
    /// RM cells put on the wire by end systems (forward and turned-around backward cells).
    pub sent: u64,
    /// RM cells that reached an end system.
    pub delivered: u64,
    /// RM cells dropped in the network.
    pub dropped: u64,
}

/// The records of the RM cells in flight.
#[derive(Default)]
pub struct RmCells {
    slots: Vec<RmCell>,
    free: Vec<u32>,
    pub counts: RmCounts,
}

impl RmCells {
    /// A new RM cell leaves an end system; returns the id its cell carries.
    pub fn alloc(&mut self, rm: RmCell) -> u32 {
        self.counts.sent += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = rm;
                i
            }
            None => {
                self.slots.push(rm);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The record of RM cell `id`, for a switch to read or stamp.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut RmCell {
        &mut self.slots[id as usize]
    }

    /// RM cell `id` reached an end system: its record, and its slot freed.
    pub fn deliver(&mut self, id: u32) -> RmCell {
        self.counts.delivered += 1;
        self.free.push(id);
        self.slots[id as usize]
    }

    /// RM cell `id` was dropped in the network.
    pub fn lose(&mut self, id: u32) {
        self.counts.dropped += 1;
        self.free.push(id);
    }

    /// RM cells sent and not yet delivered or dropped.
    pub fn in_flight(&self) -> u64 {
        self.counts.sent - self.counts.delivered - self.counts.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::Direction;

    fn rm(er: f64) -> RmCell {
        RmCell { dir: Direction::Forward, bn: false, ci: false, ni: false, er, ccr: 1.0, mcr: 0.0, out_of_rate: false }
    }

    #[test]
    fn records_are_reused_and_every_cell_is_accounted() {
        let mut s = RmCells::default();
        let a = s.alloc(rm(1.0));
        let b = s.alloc(rm(2.0));
        s.get_mut(b).er = 1.5;
        assert_eq!(s.deliver(b).er, 1.5);
        s.lose(a);
        let c = s.alloc(rm(3.0));
        assert!(c == a || c == b, "a freed slot is reused");
        assert_eq!(s.counts, RmCounts { sent: 3, delivered: 1, dropped: 1 });
        assert_eq!(s.in_flight(), 1);
    }
}
