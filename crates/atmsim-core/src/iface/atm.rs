//! The IP side of a node's ATM adapter: its IP-over-ATM driver and the fabric VCs behind the
//! driver's VC handles.
//!
//! Owns: [`AtmIface`]. The adapter's transmitter and reassembly are the node's output port
//! and reassemblers ([`crate::ip::Host`]); this struct holds what IP needs to use them: the
//! driver ([`super::ipoa::IpoaDriver`]) that maps each datagram to a VC, the outgoing VCI of
//! each driver VC on the adapter's link, and the driver's reusable action buffer.

use super::ipoa::{Action, DriverConfig, IpoaDriver, VcRef};

/// VCI value of a driver VC with no fabric VC (pending or released).
pub const NO_VCI: u32 = u32::MAX;

/// The IP-over-ATM state of one adapter.
pub struct AtmIface {
    pub driver: IpoaDriver,
    /// Outgoing VCI of each driver VC, indexed by [`VcRef`].
    vci_of: Vec<u32>,
    /// The driver's output, reused between calls.
    pub actions: Vec<Action>,
    /// The signalling call of each driver VC set up through signalling, by [`VcRef`].
    call_of: Vec<u32>,
    /// The caller is carrying out `actions` (a nested call only appends to them).
    pub busy: bool,
}

impl AtmIface {
    pub fn new(cfg: DriverConfig) -> Self {
        AtmIface {
            driver: IpoaDriver::new(cfg),
            vci_of: Vec::new(),
            actions: Vec::new(),
            call_of: Vec::new(),
            busy: false,
        }
    }

    /// Driver VC `vc` now uses outgoing VCI `vci` (`NO_VCI` to forget it).
    pub fn bind(&mut self, vc: VcRef, vci: u32) {
        let i = vc.0 as usize;
        if i >= self.vci_of.len() {
            self.vci_of.resize(i + 1, NO_VCI);
        }
        self.vci_of[i] = vci;
    }

    /// Driver VC `vc` is (being) set up as signalling call `call`.
    pub fn set_call(&mut self, vc: VcRef, call: u32) {
        let i = vc.0 as usize;
        if i >= self.call_of.len() {
            self.call_of.resize(i + 1, u32::MAX);
        }
        self.call_of[i] = call;
    }

    /// The signalling call of driver VC `vc`, if it was set up through signalling.
    pub fn call(&self, vc: VcRef) -> Option<u32> {
        self.call_of.get(vc.0 as usize).copied().filter(|&c| c != u32::MAX)
    }

    /// The outgoing VCI of driver VC `vc`.
    #[inline]
    pub fn vci(&self, vc: VcRef) -> u32 {
        self.vci_of.get(vc.0 as usize).copied().unwrap_or(NO_VCI)
    }
}
