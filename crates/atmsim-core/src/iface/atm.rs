//! The IP side of a node's ATM adapter: its IP-over-ATM driver and the fabric VCs behind the
//! driver's VC handles.
//!
//! Owns: [`AtmIface`]. The adapter's transmitter and reassembly are the node's output port
//! and reassemblers ([`crate::ip::Host`]); this struct holds what IP needs to use them: the
//! driver ([`super::ipoa::IpoaDriver`]) that maps each datagram to a VC, the outgoing VCI of
//! each driver VC on the adapter's link, and the driver's reusable action buffer.

use super::ipoa::{Action, DriverConfig, IpoaDriver, SetupOutcome, TimerToken, VcRef};
use crate::header::PacketHeader;
use crate::ids::{DatagramId, NodeId};
use crate::time::SimTime;

/// VCI value of a driver VC with no fabric VC (pending or released).
pub const NO_VCI: u32 = u32::MAX;

/// The IP-over-ATM state of one adapter.
pub struct AtmIface {
    driver: IpoaDriver,
    /// Outgoing VCI of each driver VC, indexed by [`VcRef`].
    vci_of: Vec<u32>,
    /// The driver's output, reused between calls.
    actions: Vec<Action>,
    /// The signalling call of each driver VC set up through signalling, by [`VcRef`].
    call_of: Vec<u32>,
    /// The caller is carrying out `actions` (a nested call only appends to them).
    busy: bool,
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

    /// The IP-over-ATM driver.
    pub fn driver(&self) -> &IpoaDriver {
        &self.driver
    }

    /// The driver, for the builder to declare PVCs on.
    pub fn driver_mut(&mut self) -> &mut IpoaDriver {
        &mut self.driver
    }

    /// IP hands the driver datagram `d` with header `hdr` for egress `egress` at `now`.
    #[inline]
    pub fn transmit(&mut self, now: SimTime, hdr: &PacketHeader, egress: NodeId, d: DatagramId) {
        self.driver.transmit(now, hdr, egress, d, &mut self.actions);
    }

    /// The driver's timer `token` fires at `now`.
    pub fn timer_fired(&mut self, now: SimTime, token: TimerToken) {
        self.driver.timer_fired(now, token, &mut self.actions);
    }

    /// The setup of driver VC `vc` ended at `now` with `outcome`.
    pub fn setup_result(&mut self, now: SimTime, vc: VcRef, outcome: SetupOutcome) {
        self.driver.setup_result(now, vc, outcome, &mut self.actions);
    }

    /// Driver VC `vc` is released: it forgets its fabric VCI and the driver forgets it.
    pub fn release(&mut self, vc: VcRef) {
        self.bind(vc, NO_VCI);
        self.driver.release_done(vc);
    }

    /// The driver counts its VCs in use (Mah §6.6).
    pub fn sample_in_use(&mut self) {
        self.driver.sample_in_use();
    }

    /// The caller starts carrying out the driver's actions: false if a caller already is (a
    /// nested call leaves them to it).
    #[inline]
    pub fn begin_actions(&mut self) -> bool {
        !std::mem::replace(&mut self.busy, true)
    }

    /// The driver's action number `i` in order, or `None` when all are carried out (the
    /// actions are then cleared and the caller done).
    #[inline]
    pub fn action(&mut self, i: usize) -> Option<Action> {
        let a = self.actions.get(i).copied();
        if a.is_none() {
            self.actions.clear();
            self.busy = false;
        }
        a
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
