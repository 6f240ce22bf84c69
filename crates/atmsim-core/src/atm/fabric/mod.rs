//! The cell fabric of a running network: every output port, link and switch, the shapers and
//! policers beside them, the table of AAL5 frames in flight and the network's cell ledger.
//!
//! Owns: [`Fabric`], its events [`AtmEv`] and its ledger [`CellCounts`]. The builder
//! (`scenario::build`) fills it; the network (`net/`) runs it, routing its events here and
//! what it delivers — frames and control cells to hosts and controllers, RM cells to ABR
//! allocators — to the layers above.

use super::aal5::Frames;
use super::cell::Cell;
use super::link::Link;
use super::port::OutPort;
use super::shaping::Shapers;
use super::switch::Switch;
use crate::ids::{LinkId, PortId};
use crate::time::SimDuration;

/// Events of the ATM cell layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtmEv {
    /// Port `p` finished a cell: it enters the link; the next cell starts.
    PortTx(PortId),
    /// The head cell of link `l` reaches its far end: a switch or a host.
    Arrive(LinkId),
    /// Shaper `s` (index into [`Fabric::shapers`]`.list`) releases the cells that conform now.
    Shape(u32),
    /// ABR end system `e` (index into the ABR plane's end systems) may send its next cell.
    Abr(u32),
    /// Port `p` (non-work-conserving RCSP) has a held cell becoming eligible: start it if idle.
    PortWake(PortId),
    /// Every switch drained by its readers switches its arrivals up to now.
    Drain,
}

/// Network-wide cell counters (conservation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellCounts {
    /// Cells queued at host adapters (entered the network).
    pub injected: u64,
    /// Cells that reached their destination host's reassembler.
    pub delivered: u64,
    pub dropped_tail: u64,
    pub dropped_ppd: u64,
    pub dropped_epd: u64,
    pub dropped_no_route: u64,
    /// CLP=1 cells dropped at a switch's CLP=1 threshold.
    pub dropped_clp1: u64,
    /// Non-conforming cells discarded by a policer.
    pub dropped_police: u64,
    /// Cells that found a switch re-shaper's buffer full.
    pub dropped_reshape: u64,
    /// Control (signalling) cells that found a switch output port's control FIFO full.
    pub dropped_ctrl: u64,
    /// Cells of frames refused whole by a host adapter (never injected), data or control.
    pub refused_at_host: u64,
    /// Data cells refused by a full RCSP regulator queue (2 s at X_ave; spec A-26).
    pub dropped_regulator: u64,
}

impl CellCounts {
    pub fn dropped_in_network(&self) -> u64 {
        self.dropped_tail
            + self.dropped_ppd
            + self.dropped_epd
            + self.dropped_no_route
            + self.dropped_clp1
            + self.dropped_police
            + self.dropped_reshape
            + self.dropped_ctrl
            + self.dropped_regulator
    }
}

/// The ports, links and switches of a network and the cells in them.
pub struct Fabric {
    /// Output ports, of host adapters and switches ([`PortId`]).
    pub ports: Vec<OutPort>,
    /// Simplex links, each fed by one port ([`LinkId`]).
    pub links: Vec<Link>,
    pub switches: Vec<Switch>,
    /// Shapers and pacing at host adapters, re-shapers and policers at switch inputs.
    pub shapers: Shapers,
    /// AAL5 frames in flight.
    pub frames: Frames,
    /// The cell ledger.
    pub cells: CellCounts,
    /// Cell transmissions completed by all ports (one per cell per hop).
    pub cell_hops: u64,
    /// Reused buffer for cells a switch re-shaper releases at once.
    pub scratch_cells: Vec<Cell>,
    /// Period of the drain of drained switches feeding each other (`net/fabric/drained.rs`).
    pub drain_period: SimDuration,
    /// Scratch: ports with arrivals in the instant a drained switch is switching.
    pub drain_dirty: Vec<PortId>,
    /// Ports a controller offered cells to while its drained switch was switching.
    pub drain_offered: Vec<PortId>,
}

impl Fabric {
    /// A fabric of these ports, links, switches and shapers, with no cell in it yet.
    pub fn new(ports: Vec<OutPort>, links: Vec<Link>, switches: Vec<Switch>, shapers: Shapers) -> Self {
        Fabric {
            ports,
            links,
            switches,
            shapers,
            frames: Frames::default(),
            cells: CellCounts::default(),
            cell_hops: 0,
            scratch_cells: Vec::new(),
            drain_period: SimDuration::MAX,
            drain_dirty: Vec::new(),
            drain_offered: Vec::new(),
        }
    }
}
