//! ABR rate control (ATM Forum TM 4.0, af-tm-0056.000, April 1996), sans-I/O.
//!
//! The Available Bit Rate service lets a virtual circuit send at an *allowed cell rate*
//! (ACR) that the network moves between a minimum (MCR) and a peak (PCR). The source
//! interleaves resource-management (RM) cells with its data; the destination sends each one
//! back; switches on the way write their congestion state or an explicit rate (ER) into the
//! returning cell; the source adjusts ACR when it comes home. This module holds the state
//! machines of the three parties, with no event queue and no cells of the fabric: every input
//! takes the simulated time it happens at and returns what the caller must do (send this
//! kind of cell at that instant, write this ER into that RM cell), like [`crate::signalling`].
//!
//! - [`params`] — [`AbrParams`], the TM 4.0 parameters with their units, defaults and checks;
//! - [`source`] — [`AbrSource`], the source end system (TM 4.0 §5.10.4, rules 1–11 as far as
//!   the studies need them);
//! - [`destination`] — [`AbrDestination`], the turnaround of forward RM cells (§5.10.5);
//! - [`maxmin`] — [`MaxMinPort`], an explicit-rate port that allocates 100 % of its capacity
//!   max-min fairly from RM-cell fields alone (the switch of Kalampoukas, Varma &
//!   Ramakrishnan 1997 as our digest reconstructs it);
//! - [`erica`] — [`EricaPort`], Jain et al.'s ERICA: measured load, target utilisation,
//!   VC share, and as fair share the max-min water level of the CCRs (the variant and why:
//!   module docs there).
//!
//! Sans-I/O above; the runtime pieces below them.
//!
//! [`RmCell`] is the content of an RM cell (the fields of TM 4.0 §5.10.3.1 that the
//! rules read); [`VcSlot`] names a VC inside one switch port's allocator.
//!
//! # In the running network
//!
//! - [`endsystem`] — [`AbrEnd`], one per end of an ABR VC: the node's IP output queue for the
//!   VC (data and acks in one FIFO, served at ACR or instantly; the §6 fixes as options), the
//!   VC's cell buffer, an [`AbrSource`] for the direction it sends and an [`AbrDestination`]
//!   for the direction it receives;
//! - [`allocator`] — [`PortAllocator`]: [`MaxMinPort`] or [`EricaPort`] per switch output port
//!   (or per host adapter, `[[host]] er_algorithm`), selected by [`ErAlgorithm`];
//! - [`plane`] — [`AbrPlane`]: every end system, and the tables that find one from a cell;
//! - [`er_ports`] — [`ErPorts`]: every port allocator and the per-input tables that tell a
//!   switch which allocator meets which RM cell (module docs there), held by the fabric;
//! - [`rm_cells`] — [`RmCells`]: an RM cell in flight is a cell of the fabric with
//!   [`crate::atm::cell::flags::RM`] set, whose `frame` field indexes its field record here; RM
//!   cells count in the cell ledger and in their own (`summary.abr.rm_cells`).
//!
//! The events (an end's next transmission opportunity; RM cells at receiving nodes) are
//! handled in `net/abr.rs`, RM cells at switch inputs by the fabric as it switches them
//! ([`ErPorts::at_switch`]); the scenario's `abr` table and switch fields
//! are read by `scenario/build/abr.rs` (docs/scenario.md, "`abr = { ... }`").
//!
//! # Decisions (A-numbers are rows of the digest `shared/specs/kalampoukas97.md` §4)
//!
//! - **A14, with one change.** The explicit-rate switch is an exact max-min allocator over
//!   per-VC state, no load measurement, 100 % of capacity. The digest's sketch takes a VC's
//!   demand from the forward ER field alone; we take `min(CCR, ER)` of the forward RM cell.
//!   The forward ER only carries restrictions *upstream* of the port, so a VC held back
//!   downstream would keep its full share here and the share would be lost to everyone; the
//!   CCR carries the source's actual rate, which after convergence is the tightest
//!   restriction on the whole path (the approach of Charny, Clark and Jain, 1995, that KVR
//!   refine — the digest notes that KVR too read the CCR field). See [`maxmin`].
//! - **A15.** Turned-around RM cells go in-rate at the ATM layer of the reverse direction,
//!   scheduled by TM 4.0 source rule 3b; a newer one overwrites an older one still waiting
//!   (destination rule 3a).
//! - **§1.4 parameter table** (no A-number): Nrm = 32, RIF = 1/64, ICR = PCR/50 from the paper
//!   (§5.1); everything else the TM 4.0 default. Those defaults never lower ACR in the study's
//!   steady state: CRM = ⌈TBE/Nrm⌉ = 524 288 forward RM cells without a reply, ADTF = 0.5 s
//!   of silence, against ≈ 190 forward RM cells in flight at full rate over the 17 ms round
//!   trip and idle gaps of ≈ 30 ms. See [`params`].
//! - **A1, A6.** PCR is given per VC in cells/s; the study's preset takes the OC-3c cell rate
//!   (149.76 Mb/s / 424 bits), and §5.3's 51.6 Mb/s direction is a VC whose PCR is a third
//!   of it.
//! - **ERICA** is offered beside the study's switch but not used for its
//!   reproduction (A14: a measured-load scheme reacts to the sources' idle periods).

pub mod allocator;
pub mod destination;
pub mod endsystem;
pub mod er_ports;
pub mod erica;
pub mod maxmin;
pub mod params;
pub mod plane;
pub mod rm_cells;
pub mod source;

pub use allocator::{ErAlgorithm, PortAllocator};
pub use destination::AbrDestination;
pub use endsystem::{AbrEnd, IpService, Queued};
pub use er_ports::{ErPorts, SwitchEntry};
pub use erica::{EricaConfig, EricaPort};
pub use maxmin::{max_min_shares, MaxMinPort};
pub use params::AbrParams;
pub use plane::AbrPlane;
pub use rm_cells::{RmCells, RmCounts};
pub use source::{AbrSource, Emitted, Slot, SlotKind, SourceStats};

/// Which way an RM cell travels on its VC (the DIR bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Source → destination (DIR = 0).
    Forward,
    /// Destination → source, after turnaround (DIR = 1).
    Backward,
}

/// The fields of an RM cell that the TM 4.0 rules read or write (§5.10.3.1).
///
/// Rates are in cells/s as `f64` (TM 4.0 carries them as 16-bit floating point; we keep the
/// full value — the rounding of that format is far below what the studies measure).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmCell {
    /// DIR.
    pub dir: Direction,
    /// BN: the cell was generated by a switch or destination (backward explicit congestion
    /// notification) rather than turned around from a source's forward RM cell.
    pub bn: bool,
    /// CI: congestion indication.
    pub ci: bool,
    /// NI: no increase.
    pub ni: bool,
    /// ER: explicit rate \[cells/s\]; the source writes PCR, switches only lower it.
    pub er: f64,
    /// CCR: the source's ACR when it sent the cell \[cells/s\].
    pub ccr: f64,
    /// MCR of the VC \[cells/s\].
    pub mcr: f64,
    /// Sent out of rate (CLP = 1, TM 4.0 rule 11), not counted in the ACR schedule.
    pub out_of_rate: bool,
}

impl RmCell {
    /// The cell with its ER field lowered to `rate`, but never below the cell's MCR and never
    /// raised (TM 4.0 §5.10.6: a switch may reduce ER, not to less than MCR).
    #[must_use]
    pub fn with_er_at_most(self, rate: f64) -> RmCell {
        RmCell { er: self.er.min(rate.max(self.mcr)), ..self }
    }
}

/// A VC's index inside one port's rate allocator (dense from 0, in the order of
/// [`MaxMinPort::add_vc`] / [`EricaPort::add_vc`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VcSlot(pub u32);

impl VcSlot {
    #[inline]
    pub const fn idx(self) -> usize {
        self.0 as usize
    }
}
