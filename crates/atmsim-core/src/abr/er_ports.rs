//! The explicit-rate allocators of a network's ports, and the per-input tables that tell a
//! switch which allocator meets which ABR cell: ATM-layer state, owned by the cell fabric
//! (`atm::fabric`), so that a switch meets its allocators when it switches a cell — by the
//! cell's own arrival event or, at a switch drained by its readers, at the cell's instant
//! during a drain (`atm::fabric::drained`).
//!
//! Owns: [`ErPorts`], [`SwitchEntry`]. The builder (`scenario/build/abr.rs`) fills it; the
//! end systems that read a host adapter's allocator are in [`super::AbrPlane`].
//!
//! **Which allocator stamps which RM cell.** A VC between nodes `a` and `b` is ABR in both
//! directions. In a switch, cells of direction a→b arrive on one input (link, VCI) and leave
//! by port P; cells of b→a arrive on the opposite input and leave by port P'. On the a→b input
//! travel the forward RM cells of a→b — they update P's allocator for a→b (P carries its data)
//! — and the backward RM cells of b→a (turned around at `a`), which take ER from P''s
//! allocator for b→a (P' carries *that* direction's data). [`SwitchEntry`] holds both, per
//! input: `fwd` (P, slot of a→b) and `bwd` (P', slot of b→a). Both ports belong to the switch
//! the input enters, so a switch port's allocator hears only that switch's arrivals, in time
//! order and, within an instant, in the order of the switch's inputs.

use super::allocator::PortAllocator;
use super::plane::{get, put};
use super::rm_cells::RmCells;
use super::{Direction, VcSlot};
use crate::atm::cell::Cell;
use crate::ids::{LinkId, PortId};
use crate::time::SimTime;

/// What a switch does with the ABR cells arriving on one (input link, VCI).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchEntry {
    /// Allocator (index into [`ErPorts::allocators`]) and slot of this direction's VC at the
    /// port it leaves by: forward RM cells update it, every cell counts for ERICA.
    pub fwd: Option<(u32, VcSlot)>,
    /// Allocator and slot of the reverse direction at the port its data leave by: backward
    /// RM cells arriving here are stamped by it.
    pub bwd: Option<(u32, VcSlot)>,
}

/// The explicit-rate allocators of a network's switch and adapter ports.
#[derive(Default)]
pub struct ErPorts {
    pub allocators: Vec<PortAllocator>,
    /// The port of each allocator.
    allocator_port: Vec<PortId>,
    /// `switch[link][vci]`: ABR handling at a switch input.
    switch: Vec<Vec<Option<SwitchEntry>>>,
    /// Some port runs ERICA, so every ABR cell through a switch must be counted.
    pub count_cells: bool,
}

impl ErPorts {
    /// Add a port allocator; returns its index.
    pub fn add_allocator(&mut self, port: PortId, a: PortAllocator) -> u32 {
        self.count_cells |= matches!(a, PortAllocator::Erica(_));
        self.allocators.push(a);
        self.allocator_port.push(port);
        (self.allocators.len() - 1) as u32
    }

    /// Each allocator with the port it allocates.
    pub fn with_ports(&self) -> impl Iterator<Item = (&PortAllocator, PortId)> {
        self.allocators.iter().zip(self.allocator_port.iter().copied())
    }

    pub fn set_switch_entry(&mut self, link: LinkId, vci: u32, e: SwitchEntry) {
        put(&mut self.switch, link.idx(), vci, e);
    }

    /// ABR handling at switch input (`link`, `vci`).
    pub fn switch_entry(&self, link: LinkId, vci: u32) -> Option<SwitchEntry> {
        get(&self.switch, link.idx(), vci)
    }

    /// Whether some port has an allocator: else no switch need show it any cell
    /// ([`ErPorts::at_switch`] finds no entry).
    #[inline(always)]
    pub fn listening(&self) -> bool {
        !self.allocators.is_empty()
    }

    /// Whether a switch must show `cell` to the allocators: an RM cell, or any cell when some
    /// port runs ERICA. One flag test per switched cell.
    #[inline(always)]
    pub fn wants(&self, cell: Cell) -> bool {
        cell.is_rm() || self.count_cells
    }

    /// An ABR cell arrives at `now` at a switch on (`l`, `cell.vci`): ERICA counts it at the
    /// port its VC leaves by; a forward RM cell updates that port's allocator; a backward RM
    /// cell (its record in `rm`) takes ER from the allocator of the port the reverse
    /// direction's data leave by. Cells of VCs that are not ABR here pass untouched.
    #[cold]
    #[inline(never)]
    pub fn at_switch(&mut self, rm: &mut RmCells, l: LinkId, cell: Cell, now: SimTime) {
        let Some(entry) = self.switch_entry(l, cell.vci) else { return };
        if let Some((a, slot)) = entry.fwd {
            self.allocators[a as usize].on_cell(now, slot);
        }
        if !cell.is_rm() {
            return;
        }
        let rm = rm.get_mut(cell.frame);
        match rm.dir {
            Direction::Forward => {
                if let Some((a, slot)) = entry.fwd {
                    let rm = *rm;
                    self.allocators[a as usize].on_forward_rm(now, slot, &rm);
                }
            }
            Direction::Backward => {
                if let Some((a, slot)) = entry.bwd {
                    self.allocators[a as usize].on_backward_rm(now, slot, rm);
                }
            }
        }
    }
}
