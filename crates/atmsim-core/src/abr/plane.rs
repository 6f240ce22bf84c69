//! The end systems of a running network's ABR VCs, and the tables that find them from a
//! cell in O(1). The allocators of switch and adapter ports, with the tables that tell a
//! switch which allocator meets which RM cell, are ATM-layer state in the fabric
//! ([`super::ErPorts`]); the RM cells in flight are cells of the fabric too (`atm::fabric`).
//!
//! Owns: [`AbrPlane`]. The network's event handling for it is in `net/abr.rs`; the builder
//! (`scenario/build/abr.rs`) fills it.

use super::endsystem::AbrEnd;
use crate::ids::{NodeId, PortId};

/// The ABR plane of a network.
#[derive(Default)]
pub struct AbrPlane {
    pub ends: Vec<AbrEnd>,
    /// `send[port][vci]`: the end that sends on VCI `vci` of adapter port `port`.
    send: Vec<Vec<Option<u32>>>,
    /// `recv[node][vci]`: the end at `node` whose reverse direction arrives on VCI `vci`.
    recv: Vec<Vec<Option<u32>>>,
}

pub(super) fn put<T: Copy>(table: &mut Vec<Vec<Option<T>>>, i: usize, j: u32, v: T) {
    if table.len() <= i {
        table.resize(i + 1, Vec::new());
    }
    let row = &mut table[i];
    if row.len() <= j as usize {
        row.resize(j as usize + 1, None);
    }
    row[j as usize] = Some(v);
}

pub(super) fn get<T: Copy>(table: &[Vec<Option<T>>], i: usize, j: u32) -> Option<T> {
    table.get(i).and_then(|r| r.get(j as usize)).copied().flatten()
}

impl AbrPlane {
    /// No ABR VC in the network.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Add an end system; returns its index.
    pub fn add_end(&mut self, e: AbrEnd) -> u32 {
        let id = self.ends.len() as u32;
        put(&mut self.send, e.port.idx(), e.vci, id);
        put(&mut self.recv, e.node.idx(), e.in_vci, id);
        self.ends.push(e);
        id
    }

    /// The end that sends on `vci` of adapter port `port`, if the VC is ABR.
    #[inline]
    pub fn sender(&self, port: PortId, vci: u32) -> Option<u32> {
        if self.ends.is_empty() {
            return None;
        }
        get(&self.send, port.idx(), vci)
    }

    /// The end that sends datagram of end `e` (`data`: not a pure ack): `e` itself, or the
    /// end its pure acks are diverted to (§6 fix 2; counted).
    pub fn divert(&mut self, e: u32, data: bool) -> u32 {
        match self.ends[e as usize].ack_divert {
            Some(to) if !data => {
                self.ends[e as usize].stats.acks_diverted += 1;
                to
            }
            _ => e,
        }
    }

    /// The end at `node` that receives on `vci`.
    pub fn receiver(&self, node: NodeId, vci: u32) -> Option<u32> {
        get(&self.recv, node.idx(), vci)
    }

    /// Cells segmented at end systems and not yet sent.
    pub fn cells_waiting(&self) -> u64 {
        self.ends.iter().map(AbrEnd::cells_waiting).sum()
    }
}
