//! Output-queued ATM switches.
//!
//! Owns: [`Switch`]. A cell arriving on an input link is looked up in that link's VC
//! translation table ((in link, in VCI) → (out port, out VCI), stored with the link in
//! [`super::link::Sink::Switch`] so the lookup is one indexed load, no hashing), relabelled,
//! and offered to the output port, which applies its buffer limit and drop policy
//! ([`super::port`]) and its scheduler ([`super::sched`]). Switching itself takes no time;
//! contention happens only at output ports, as in the Fore ASX-100 of MAGIC §2.2.

use crate::ids::{LinkId, PortId};
use crate::time::SimTime;

/// A switch: its name and its output ports (one per attached link).
pub struct Switch {
    pub name: String,
    pub ports: Vec<PortId>,
    /// Cells that arrived with a VCI that has no translation entry (should stay 0).
    pub misrouted: u64,
    /// The links into the switch, in index order (its arbiters' inputs).
    pub inputs: Vec<LinkId>,
    /// Drained by its readers (`atm::fabric::drained`): its arrivals take no event each.
    pub drained: bool,
    /// Every arrival before this instant has been switched (a drained switch).
    pub drained_to: SimTime,
    /// The switch is switching one instant's arrivals now (a drained switch).
    pub switching: bool,
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
}
