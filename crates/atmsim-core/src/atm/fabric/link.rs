//! Links as the fabric runs them: one direction of a physical link, its cells in flight, and
//! what the fabric keeps to give their arrivals events.
//!
//! Owns: [`Link`] and what each cell launched onto it needs ([`each`]). The physical layers,
//! sinks and the pipe of cells are [`crate::atm::link`]'s.

use crate::atm::link::{CellPipe, Route, Sink};
use crate::ids::PortId;
use crate::time::{Rate, SimDuration, SimTime};

/// What every cell launched onto a link needs besides its place in the pipe (`Link::each`).
pub mod each {
    /// An arrival event: the link ends at a switch that takes an event per arrival (not
    /// drained by its readers, `atm::fabric::drained`); otherwise only frame ends and RM
    /// cells get one.
    pub const STEP: u8 = 1;
    /// Its arrival time told to the switch at the far end, drained through its inputs' next
    /// arrivals (`atm::fabric::due`).
    pub const DUE: u8 = 2;
}

/// One direction of a physical link.
pub struct Link {
    pub name: String,
    pub rate: Rate,
    pub delay: SimDuration,
    /// The port that transmits onto this link.
    pub from: PortId,
    pub to: Sink,
    /// Cells in flight with their arrival times.
    pub(super) pipe: CellPipe,
    /// What every cell launched onto the link needs besides its place in the pipe ([`each`]):
    /// nothing (0) into a host or a switch drained by its readers that scans its inputs.
    pub(super) each: u8,
    /// Cells that reached the far end.
    pub(super) cells_delivered: u64,
    /// Into a switch that takes an event per arrival: the time of the pending `Arrive` event
    /// that the chain of arrivals waits for (`SimTime::MAX`: none). The event may come before
    /// the cell (a lower bound) and then arms the next; an earlier cell arms an earlier event.
    /// Into a host or a drained switch: the earliest pending `Arrive` event that the feeding
    /// port armed ahead for a frame end whose end it knew exactly (`atm::fabric::ahead`); that
    /// cell makes no second event when it starts, and the event arms the next (stale if the
    /// cell was delayed: then its start arms its own).
    pub(super) armed_at: SimTime,
}

impl Link {
    /// A link named `name` at cell rate `rate` with propagation delay `delay`, fed by port
    /// `from` and delivering to `to`, with no cell in flight. A link into a switch gives
    /// every cell an arrival event until the fabric decides otherwise ([`each`]).
    pub fn new(name: String, rate: Rate, delay: SimDuration, from: PortId, to: Sink) -> Link {
        let each = if matches!(to, Sink::Switch { .. }) { each::STEP } else { 0 };
        Link { name, rate, delay, from, to, pipe: CellPipe::default(), each, cells_delivered: 0, armed_at: SimTime::MAX }
    }

    /// Translation at the far end, if it is a switch.
    #[inline]
    pub fn route(&self, vci: u32) -> Option<Route> {
        match &self.to {
            Sink::Switch { table, .. } => table.get(vci as usize).copied().flatten(),
            Sink::Host(_) => None,
        }
    }
}

