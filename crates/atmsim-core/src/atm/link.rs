//! Links: cell transmission at a fixed cell rate, then propagation delay.
//!
//! Owns: [`Preset`] (the physical layers of the studies, as *cell-carrying* rates) and
//! [`Link`], one direction of a physical link with its cells in flight.
//!
//! A link's rate is the rate at which it carries 53-byte cells: physical-layer framing
//! (SONET overhead, TAXI 4B/5B coding, PLCP) is already taken out. Hence OC-3c is
//! 149.76 Mb/s (the SONET STS-3c payload), giving the ≈134 Mb/s TCP user rate MAGIC §2.2
//! reports with 9180-byte datagrams: 149.76·(9140/(192·53)) = 134.5 Mb/s; TAXI-100 carries
//! 100 Mb/s of cells (125 Mbaud 4B/5B), ≈ 89.8 Mb/s to the TCP user ("slightly under 90").
//! Links are not slotted: a cell offered to an idle port starts at once.

use super::cell::Cell;
use crate::ids::{NodeId, PortId, SwitchId};
use crate::time::{Rate, SimDuration, SimTime};
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

/// What every cell launched onto a link needs besides its place in the pipe ([`Link::each`]).
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
    /// Cells in flight with their arrival times (non-decreasing).
    pub pipe: VecDeque<(SimTime, Cell)>,
    /// What every cell launched onto the link needs besides its place in the pipe ([`each`]):
    /// nothing (0) into a host or a switch drained by its readers that scans its inputs.
    pub each: u8,
    /// Cells that reached the far end.
    pub cells_delivered: u64,
    /// Into a switch that takes an event per arrival: the time of the pending `Arrive` event
    /// that the chain of arrivals waits for (`SimTime::MAX`: none). The event may come before
    /// the cell (a lower bound) and then arms the next; an earlier cell arms an earlier event.
    /// Into a host or a drained switch: the earliest pending `Arrive` event that the feeding
    /// port armed ahead for a frame end whose end it knew exactly (`atm::fabric::ahead`); that
    /// cell makes no second event when it starts, and the event arms the next (stale if the
    /// cell was delayed: then its start arms its own).
    pub armed_at: SimTime,
}

impl Link {
    /// Translation at the far end, if it is a switch.
    #[inline]
    pub fn route(&self, vci: u32) -> Option<Route> {
        match &self.to {
            Sink::Switch { table, .. } => table.get(vci as usize).copied().flatten(),
            Sink::Host(_) => None,
        }
    }
}
