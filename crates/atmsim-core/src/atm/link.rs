//! Links: cell transmission at a fixed cell rate, then propagation delay.
//!
//! Owns: [`Preset`] (the physical layers of the studies, as *cell-carrying* rates), where a
//! link delivers ([`Sink`], with a switch input's VC translation [`Route`]s) and the cells
//! in flight on it ([`CellPipe`]). The fabric runs the links ([`crate::atm::fabric::link`]).
//!
//! A link's rate is the rate at which it carries 53-byte cells: physical-layer framing
//! (SONET overhead, TAXI 4B/5B coding, PLCP) is already taken out. Hence OC-3c is
//! 149.76 Mb/s (the SONET STS-3c payload), giving the ≈134 Mb/s TCP user rate MAGIC §2.2
//! reports with 9180-byte datagrams: 149.76·(9140/(192·53)) = 134.5 Mb/s; TAXI-100 carries
//! 100 Mb/s of cells (125 Mbaud 4B/5B), ≈ 89.8 Mb/s to the TCP user ("slightly under 90").
//! Links are not slotted: a cell offered to an idle port starts at once.

use super::cell::Cell;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::time::{Rate, SimTime};
use std::collections::VecDeque;

/// Named physical layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// T1 at 1.536 Mb/s with framing ignored (Mah §3.2; Cáceres uses 1.5 Mb/s links).
    T1,
    /// DS3 with PLCP: 96 cells per 125 µs = 40.704 Mb/s of cells.
    Ds3,
    /// TAXI 100 Mb/s (FDDI-style 4B/5B at 125 Mbaud).
    Taxi100,
    /// SONET OC-3c / STS-3c: 149.76 Mb/s payload.
    Oc3c,
    /// SONET OC-12c / STS-12c: 599.04 Mb/s payload.
    Oc12c,
}

impl Preset {
    pub const ALL: [(&'static str, Preset); 5] = [
        ("t1", Preset::T1),
        ("ds3", Preset::Ds3),
        ("taxi100", Preset::Taxi100),
        ("oc3c", Preset::Oc3c),
        ("oc12c", Preset::Oc12c),
    ];

    pub fn parse(name: &str) -> Option<Preset> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, p)| p)
    }

    /// Cell-carrying rate.
    pub fn rate(self) -> Rate {
        Rate::bps(match self {
            Preset::T1 => 1_536_000,
            Preset::Ds3 => 40_704_000,
            Preset::Taxi100 => 100_000_000,
            Preset::Oc3c => 149_760_000,
            Preset::Oc12c => 599_040_000,
        })
    }
}

/// Where a link delivers its cells.
#[derive(Clone, Debug)]
pub enum Sink {
    /// A host's adapter: cells go to per-VC reassembly.
    Host(NodeId),
    /// A switch input: `table[vci]` is the VC translation (out port, out VCI).
    Switch { switch: SwitchId, table: Vec<Option<Route>> },
}

/// One entry of a switch's VC translation table: (in link, in VCI) → (out port, out VCI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    pub port: PortId,
    pub vci: u32,
}

/// Cells in flight on a link with their arrival times, non-decreasing, and the head's
/// arrival time kept beside them ([`CellPipe::head_time`]): a drained switch looks at its
/// inputs' heads several times a cell it switches (`atm::fabric::drained`), and reading one
/// field is cheaper than a ring buffer's front.
pub struct CellPipe {
    /// Arrival time of the first cell; `SimTime::MAX` when the pipe is empty.
    head: SimTime,
    cells: VecDeque<(SimTime, Cell)>,
}

impl Default for CellPipe {
    fn default() -> Self {
        CellPipe { head: SimTime::MAX, cells: VecDeque::new() }
    }
}

impl CellPipe {
    /// Arrival time of the first cell in flight, `SimTime::MAX` if none.
    #[inline(always)]
    pub fn head_time(&self) -> SimTime {
        self.head
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&(SimTime, Cell)> {
        self.cells.front()
    }

    /// The `i`-th cell in flight from the head.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&(SimTime, Cell)> {
        self.cells.get(i)
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn iter(&self) -> std::collections::vec_deque::Iter<'_, (SimTime, Cell)> {
        self.cells.iter()
    }

    /// A cell launched to arrive at `at`, not before the cells already in flight.
    #[inline(always)]
    pub fn push_back(&mut self, (at, cell): (SimTime, Cell)) {
        debug_assert!(self.cells.back().is_none_or(|&(t, _)| t <= at), "a cell overtaking another on a link");
        if self.cells.is_empty() {
            self.head = at;
        }
        self.cells.push_back((at, cell));
    }

    /// The first cell in flight, taken out.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<(SimTime, Cell)> {
        let c = self.cells.pop_front();
        self.reread_head();
        c
    }

    /// The first `n` cells in flight dropped (they have been taken as read).
    #[inline(always)]
    pub fn drop_front(&mut self, n: usize) {
        if n > 0 {
            self.cells.drain(..n);
            self.reread_head();
        }
    }

    /// The first `n` cells in flight, moved onto `to` (after its own) as `f` maps them.
    pub fn move_front(&mut self, n: usize, to: &mut CellPipe, f: impl FnMut((SimTime, Cell)) -> (SimTime, Cell)) {
        let kept = to.cells.len();
        to.cells.extend(self.cells.drain(..n).map(f));
        if cfg!(debug_assertions) {
            let joined = to.cells.range(kept.saturating_sub(1)..);
            assert!(joined.clone().zip(joined.skip(1)).all(|(a, b)| a.0 <= b.0), "cells overtaking");
        }
        self.reread_head();
        to.reread_head();
    }

    /// The head's time after the first cells changed.
    #[inline(always)]
    fn reread_head(&mut self) {
        self.head = self.cells.front().map_or(SimTime::MAX, |&(t, _)| t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell(frame: u32) -> Cell {
        Cell { vci: 5, frame, flags: 0 }
    }

    proptest! {
        /// Whatever is pushed, popped, dropped or moved, the head's time is the first cell's
        /// arrival time (`MAX` when empty), and the cells come out in the order they went in.
        #[test]
        fn the_head_time_is_the_first_cells(ops in prop::collection::vec((0u8..4, 0u64..3, 0usize..4), 0..200)) {
            let (mut a, mut b) = (CellPipe::default(), CellPipe::default());
            let (mut model_a, mut model_b) = (VecDeque::new(), VecDeque::new());
            let mut t = 0;
            for (op, dt, n) in ops {
                match op {
                    0 => {
                        t += dt;
                        a.push_back((SimTime(t), cell(t as u32)));
                        model_a.push_back((SimTime(t), cell(t as u32)));
                    }
                    1 => prop_assert_eq!(a.pop_front(), model_a.pop_front()),
                    2 => {
                        let n = n.min(a.len());
                        a.drop_front(n);
                        model_a.drain(..n);
                    }
                    _ => {
                        // Onto `b`, later than anything on it.
                        let n = n.min(a.len());
                        let shift = model_b.back().map_or(0, |&(t, _): &(SimTime, Cell)| t.0);
                        a.move_front(n, &mut b, |(t, c)| (SimTime(t.0 + shift), c));
                        model_b.extend(model_a.drain(..n).map(|(t, c): (SimTime, Cell)| (SimTime(t.0 + shift), c)));
                    }
                }
                for (p, m) in [(&a, &model_a), (&b, &model_b)] {
                    prop_assert_eq!(p.head_time(), m.front().map_or(SimTime::MAX, |&(t, _)| t));
                    prop_assert_eq!(p.len(), m.len());
                    prop_assert!(p.iter().eq(m.iter()));
                }
            }
        }
    }
}
