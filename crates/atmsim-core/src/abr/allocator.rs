//! The explicit-rate allocator of one switch output port: a choice of algorithm.
//!
//! Owns: [`ErAlgorithm`] (the scenario's names) and [`PortAllocator`], which routes the three
//! things a port sees — an ABR cell leaving, a forward RM cell leaving, a backward RM cell of
//! a VC whose data leave here — to [`MaxMinPort`] or [`EricaPort`].

use super::{EricaConfig, EricaPort, MaxMinPort, RmCell, VcSlot};
use crate::error::Result;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Explicit-rate algorithms a switch port can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErAlgorithm {
    /// Exact max-min from RM-cell fields, 100 % of capacity ([`MaxMinPort`]; Kalampoukas §5.1).
    Maxmin,
    /// ERICA: measured load, target utilisation ([`EricaPort`]).
    Erica,
}

impl ErAlgorithm {
    pub fn as_str(self) -> &'static str {
        match self {
            ErAlgorithm::Maxmin => "maxmin",
            ErAlgorithm::Erica => "erica",
        }
    }
}

/// One port's allocator.
#[derive(Clone, Debug)]
pub enum PortAllocator {
    MaxMin(MaxMinPort),
    Erica(EricaPort),
}

impl PortAllocator {
    /// A max-min allocator of capacity `capacity_cells_s`, or ERICA with `erica` (whose
    /// capacity is replaced by the port's).
    pub fn new(alg: ErAlgorithm, capacity_cells_s: f64, erica: EricaConfig, at: &str) -> Result<Self> {
        Ok(match alg {
            ErAlgorithm::Maxmin => PortAllocator::MaxMin(MaxMinPort::new(capacity_cells_s, at)?),
            ErAlgorithm::Erica => PortAllocator::Erica(EricaPort::new(EricaConfig { capacity_cells_s, ..erica }, at)?),
        })
    }

    pub fn algorithm(&self) -> ErAlgorithm {
        match self {
            PortAllocator::MaxMin(_) => ErAlgorithm::Maxmin,
            PortAllocator::Erica(_) => ErAlgorithm::Erica,
        }
    }

    pub fn add_vc(&mut self) -> VcSlot {
        match self {
            PortAllocator::MaxMin(p) => p.add_vc(),
            PortAllocator::Erica(p) => p.add_vc(),
        }
    }

    /// An ABR cell of `vc` leaves by the port (ERICA measures these; max-min does not).
    #[inline]
    pub fn on_cell(&mut self, now: SimTime, vc: VcSlot) {
        if let PortAllocator::Erica(p) = self {
            p.on_cell(now, vc);
        }
    }

    pub fn on_forward_rm(&mut self, now: SimTime, vc: VcSlot, rm: &RmCell) {
        match self {
            PortAllocator::MaxMin(p) => p.on_forward_rm(vc, rm),
            PortAllocator::Erica(p) => p.on_forward_rm(now, vc, rm),
        }
    }

    pub fn on_backward_rm(&mut self, now: SimTime, vc: VcSlot, rm: &mut RmCell) {
        match self {
            PortAllocator::MaxMin(p) => p.on_backward_rm(rm),
            PortAllocator::Erica(p) => p.on_backward_rm(now, vc, rm),
        }
    }

    /// The rate the port now grants `vc` \[cells/s\] (max-min: min(recorded rate, μ); ERICA:
    /// its explicit rate).
    pub fn grant(&self, vc: VcSlot) -> f64 {
        match self {
            PortAllocator::MaxMin(p) => p.allocation(vc),
            PortAllocator::Erica(p) => p.explicit_rate(vc),
        }
    }

    /// The port's rate for an unrestricted VC \[cells/s\] (max-min μ; ERICA's fair share).
    pub fn advertised(&self) -> f64 {
        match self {
            PortAllocator::MaxMin(p) => p.advertised_rate(),
            PortAllocator::Erica(p) => p.fair_share(),
        }
    }
}
