//! One FIFO of a priority port (a guaranteed level or best effort) that knows where its first
//! frame end or RM cell is, so that a port served ahead finds its next watched cell without
//! scanning the queue (`OutPort::next_due`, "Serving ahead" in `atm::port`).
//!
//! Owns: [`LevelQueue`]. The cells are a `VecDeque`; beside them, the arrival numbers of the
//! marked cells (end of frame or RM, [`Cell::is_eof_or_rm`]) in order. A marked cell's
//! place in the queue is its number less the number of cells taken so far: O(1) per push, pop
//! and question.

use crate::atm::cell::Cell;
use std::collections::VecDeque;

/// A FIFO of cells with the places of its marked cells (module docs).
#[derive(Default)]
pub struct LevelQueue {
    cells: VecDeque<Cell>,
    /// Arrival number (cells pushed before it) of each marked cell still queued, oldest first.
    marks: VecDeque<u64>,
    pushed: u64,
    popped: u64,
}

impl LevelQueue {
    #[inline]
    pub fn push_back(&mut self, c: Cell) {
        if c.is_eof_or_rm() {
            self.marks.push_back(self.pushed);
        }
        self.pushed += 1;
        self.cells.push_back(c);
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<Cell> {
        let c = self.cells.pop_front()?;
        if c.is_eof_or_rm() {
            let n = self.marks.pop_front();
            debug_assert_eq!(n, Some(self.popped), "the first marked cell leaves first");
        }
        self.popped += 1;
        Some(c)
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter()
    }

    /// How many cells are ahead of the first marked cell, if one is queued.
    #[inline]
    pub fn first_marked(&self) -> Option<usize> {
        self.marks.front().map(|&n| (n - self.popped) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::cell::flags;
    use proptest::prelude::*;

    proptest! {
        /// Under any pushes and pops, the first marked cell's place is the one a scan finds.
        #[test]
        fn the_first_marked_place_is_the_scanned_one(ops in proptest::collection::vec((any::<bool>(), 0u8..4), 0..300)) {
            let mut q = LevelQueue::default();
            for (i, &(push, kind)) in ops.iter().enumerate() {
                if push {
                    let flags = [0, flags::EOF, flags::RM, 0][kind as usize];
                    q.push_back(Cell { vci: i as u32, frame: 0, flags });
                } else {
                    q.pop_front();
                }
                prop_assert_eq!(q.first_marked(), q.iter().position(|c| c.is_eof_or_rm()));
            }
        }
    }
}
