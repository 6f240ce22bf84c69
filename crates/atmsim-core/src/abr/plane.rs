//! All ABR state of a running network: end systems and switch allocators (the RM cells in flight are cells of the fabric, `atm::fabric`),
//! and the tables that find them from a cell in O(1).
//!
//! Owns: [`AbrPlane`], [`SwitchEntry`]. The network's event handling for it is in
//! `net/abr.rs`; the builder (`scenario/build/abr.rs`) fills it.
//!
//! **Which allocator stamps which RM cell.** A VC between nodes `a` and `b` is ABR in both
//! directions. In a switch, cells of direction a→b arrive on one input (link, VCI) and leave
//! by port P; cells of b→a arrive on the opposite input and leave by port P'. On the a→b input
//! travel the forward RM cells of a→b — they update P's allocator for a→b (P carries its data)
//! — and the backward RM cells of b→a (turned around at `a`), which take ER from P''s
//! allocator for b→a (P' carries *that* direction's data). [`SwitchEntry`] holds both, per
//! input: `fwd` (P, slot of a→b) and `bwd` (P', slot of b→a).

use super::allocator::PortAllocator;
use super::endsystem::AbrEnd;
use super::VcSlot;
use crate::ids::{LinkId, NodeId, PortId};

/// What a switch does with the ABR cells arriving on one (input link, VCI).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchEntry {
    /// Allocator (index into [`AbrPlane::allocators`]) and slot of this direction's VC at the
    /// port it leaves by: forward RM cells update it, every cell counts for ERICA.
    pub fwd: Option<(u32, VcSlot)>,
    /// Allocator and slot of the reverse direction at the port its data leave by: backward
    /// RM cells arriving here are stamped by it.
    pub bwd: Option<(u32, VcSlot)>,
}

/// The ABR plane of a network.
#[derive(Default)]
pub struct AbrPlane {
    pub ends: Vec<AbrEnd>,
    pub allocators: Vec<PortAllocator>,
    /// The port of each allocator.
    pub allocator_port: Vec<PortId>,
    /// `send[port][vci]`: the end that sends on VCI `vci` of adapter port `port`.
    send: Vec<Vec<Option<u32>>>,
    /// `recv[node][vci]`: the end at `node` whose reverse direction arrives on VCI `vci`.
    recv: Vec<Vec<Option<u32>>>,
    /// `switch[link][vci]`: ABR handling at a switch input.
    switch: Vec<Vec<Option<SwitchEntry>>>,
    /// Some port runs ERICA, so every ABR cell through a switch must be counted.
    pub count_cells: bool,
}

fn put<T: Copy>(table: &mut Vec<Vec<Option<T>>>, i: usize, j: u32, v: T) {
    if table.len() <= i {
        table.resize(i + 1, Vec::new());
    }
    let row = &mut table[i];
    if row.len() <= j as usize {
        row.resize(j as usize + 1, None);
    }
    row[j as usize] = Some(v);
}

fn get<T: Copy>(table: &[Vec<Option<T>>], i: usize, j: u32) -> Option<T> {
    table.get(i).and_then(|r| r.get(j as usize)).copied().flatten()
}

impl AbrPlane {
    /// No ABR VC in the network.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Whether switches meet ABR at all: end systems, allocators or cells counted for them.
    pub fn present(&self) -> bool {
        !self.ends.is_empty() || !self.allocators.is_empty() || self.count_cells
    }

    /// Add an end system; returns its index.
    pub fn add_end(&mut self, e: AbrEnd) -> u32 {
        let id = self.ends.len() as u32;
        put(&mut self.send, e.port.idx(), e.vci, id);
        put(&mut self.recv, e.node.idx(), e.in_vci, id);
        self.ends.push(e);
        id
    }

    /// Add a port allocator; returns its index.
    pub fn add_allocator(&mut self, port: PortId, a: PortAllocator) -> u32 {
        self.count_cells |= matches!(a, PortAllocator::Erica(_));
        self.allocators.push(a);
        self.allocator_port.push(port);
        (self.allocators.len() - 1) as u32
    }

    /// The allocator of `port`, if it has one.
    pub fn allocator_of(&self, port: PortId) -> Option<u32> {
        self.allocator_port.iter().position(|&p| p == port).map(|i| i as u32)
    }

    pub fn set_switch_entry(&mut self, link: LinkId, vci: u32, e: SwitchEntry) {
        put(&mut self.switch, link.idx(), vci, e);
    }

    /// The end that sends on `vci` of adapter port `port`, if the VC is ABR.
    #[inline]
    pub fn sender(&self, port: PortId, vci: u32) -> Option<u32> {
        if self.ends.is_empty() {
            return None;
        }
        get(&self.send, port.idx(), vci)
    }

    /// The end at `node` that receives on `vci`.
    pub fn receiver(&self, node: NodeId, vci: u32) -> Option<u32> {
        get(&self.recv, node.idx(), vci)
    }

    /// ABR handling at switch input (`link`, `vci`).
    pub fn switch_entry(&self, link: LinkId, vci: u32) -> Option<SwitchEntry> {
        get(&self.switch, link.idx(), vci)
    }

    /// Cells segmented at end systems and not yet sent.
    pub fn cells_waiting(&self) -> u64 {
        self.ends.iter().map(AbrEnd::cells_waiting).sum()
    }
}
