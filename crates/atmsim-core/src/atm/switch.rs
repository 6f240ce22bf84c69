//! Output-queued ATM switches.
//!
//! Owns: [`Switch`]. A cell arriving on an input link is looked up in that link's VC
//! translation table ((in link, in VCI) → (out port, out VCI), stored with the link in
//! [`super::link::Sink::Switch`] so the lookup is one indexed load, no hashing), relabelled,
//! and offered to the output port, which applies its buffer limit and drop policy
//! ([`super::port`]) and its scheduler ([`super::sched`]). Switching itself takes no time;
//! contention happens only at output ports, as in the Fore ASX-100 of MAGIC §2.2.

use crate::ids::PortId;

/// A switch: its name and its output ports (one per attached link).
pub struct Switch {
    pub name: String,
    pub ports: Vec<PortId>,
    /// Cells that arrived with a VCI that has no translation entry (should stay 0).
    pub misrouted: u64,
}
