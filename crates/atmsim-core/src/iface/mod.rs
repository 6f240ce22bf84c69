//! Interfaces below IP: how a node's IP layer reaches the subnets it is attached to
//! (DESIGN §7).
//!
//! Owns: [`Iface`] (what an interface is attached to), [`Interfaces`] (every node's
//! interfaces in a network, with the drivers' timers) and the interface kinds:
//! - an ATM adapter: the node's output port and reassembly ([`crate::atm`]) with its
//!   IP-over-ATM driver [`ipoa`] (classification, multiplexing policy, VC management) and
//!   the map from the driver's VCs to the fabric's ([`atm::AtmIface`]);
//! - [`serial`] point-to-point lines and [`lan`] shared-medium LANs, both at packet level
//!   over a [`pipe::PacketLine`].
//!
//! Interfaces never name the transport or application layers: they carry datagram ids and
//! hand what arrives to the receiving node's IP layer.

pub mod atm;
pub mod ipoa;
pub mod lan;
pub mod pipe;
pub mod serial;

use crate::ids::NodeId;
use crate::kernel::Slots;
use ipoa::TimerToken;
use lan::Lan;
use pipe::PacketLine;
use serial::SerialLine;

/// An interface of a node, by what it is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iface {
    /// The node's ATM adapter.
    Atm { node: NodeId },
    /// One end of a serial line: it transmits on packet line `line`.
    Serial { line: u32 },
    /// A station on a LAN: it transmits on the LAN's medium, packet line `line`.
    Lan { line: u32 },
}

/// The interfaces of every node of a network: what they are attached to, the packet-level
/// lines they transmit on, and the timers their IP-over-ATM drivers asked for.
#[derive(Default)]
pub struct Interfaces {
    /// Every node's interfaces, by [`crate::ids::IfaceId`].
    pub list: Vec<Iface>,
    /// Packet-level lines: both directions of every serial line, and every LAN's medium.
    pub lines: Vec<PacketLine>,
    pub serial: Vec<SerialLine>,
    pub lans: Vec<Lan>,
    /// Timers the IP-over-ATM drivers asked for, by slot.
    driver_timers: Slots<(NodeId, TimerToken)>,
}

impl Interfaces {
    /// The interfaces, packet lines, serial lines and LANs of a network; no timers yet.
    pub fn new(list: Vec<Iface>, lines: Vec<PacketLine>, serial: Vec<SerialLine>, lans: Vec<Lan>) -> Self {
        Interfaces { list, lines, serial, lans, driver_timers: Default::default() }
    }

    /// Node `n`'s driver asked for timer `token`: the slot its event names.
    pub fn arm_driver_timer(&mut self, n: NodeId, token: TimerToken) -> u32 {
        self.driver_timers.put((n, token))
    }

    /// The driver timer in `slot` fires: whose it is (the slot is freed).
    pub fn take_driver_timer(&mut self, slot: u32) -> (NodeId, TimerToken) {
        self.driver_timers.take(slot)
    }
}
