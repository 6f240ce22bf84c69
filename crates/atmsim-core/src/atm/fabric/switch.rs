//! Output-queued ATM switches as the fabric runs them.
//!
//! Owns: [`Switch`]: its name and output ports (the builder's), and how the fabric runs it —
//! its inputs, whether it is drained by its readers and how far ([`super::drained`]), and
//! cells it could not route. A cell arriving on an input link is looked up in that link's VC
//! translation table ((in link, in VCI) → (out port, out VCI), stored with the link in
//! [`crate::atm::link::Sink::Switch`] so the lookup is one indexed load, no hashing), relabelled,
//! and offered to the output port, which applies its buffer limit and drop policy
//! ([`crate::atm::port`]) and its scheduler ([`crate::atm::sched`]). Switching itself takes no time;
//! contention happens only at output ports, as in the Fore ASX-100 of MAGIC §2.2.

use crate::ids::{LinkId, PortId};
use crate::time::SimTime;

/// A switch: its name and its output ports (one per attached link).
pub struct Switch {
    pub(super) name: String,
    pub(super) ports: Vec<PortId>,
    /// Cells that arrived with a VCI that has no translation entry (should stay 0).
    pub(super) misrouted: u64,
    /// The links into the switch, in index order (its arbiters' inputs).
    pub(super) inputs: Vec<LinkId>,
    /// Drained by its readers ([`super::drained`]): its arrivals take no event each.
    pub(super) drained: bool,
    /// Every arrival before this instant has been switched (a drained switch).
    pub(super) drained_to: SimTime,
    /// The switch is switching one instant's arrivals now (a drained switch).
    pub(super) switching: bool,
}

impl Switch {
    pub fn new(name: &str) -> Self {
        Switch {
            name: name.to_string(),
            ports: Vec::new(),
            misrouted: 0,
            inputs: Vec::new(),
            drained: false,
            drained_to: SimTime::ZERO,
            switching: false,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its output ports, in the order they were attached.
    pub fn ports(&self) -> &[PortId] {
        &self.ports
    }

    /// Output port `p` is attached (the builder).
    pub fn add_port(&mut self, p: PortId) {
        self.ports.push(p);
    }

    /// Cells that arrived with a VCI that has no translation entry.
    pub fn misrouted(&self) -> u64 {
        self.misrouted
    }
}
