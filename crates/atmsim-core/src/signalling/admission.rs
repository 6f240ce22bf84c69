//! The admission-control hook.
//!
//! Owns: the [`Admission`] trait that a controller consults at every outgoing port on a
//! call's path, during the forward (SETUP) pass of the round trip (spec A-25: the test runs
//! "at every port on the path, host adapters included"), and [`AcceptAll`], the default.
//!
//! Contract: each `admit` that returned `true` is matched by exactly one `release` with the
//! same port and descriptor — when the call is rejected further down the path (the REJECT
//! passes back through this port) or when the origin releases it (the RELEASE passes
//! forward). A port with no free VCI refuses before asking the hook. The hook owns whatever state its test needs
//! (per-port reservations, the Zhang–Ferrari sums); signalling treats the descriptor as opaque.

use super::Descriptor;
use crate::ids::PortId;

/// Admission control at output ports.
pub trait Admission {
    /// May a call described by `d` be added at output `port`? `true` reserves its resources.
    fn admit(&mut self, port: PortId, d: &Descriptor) -> bool;
    /// Give back what a successful `admit(port, d)` reserved.
    fn release(&mut self, port: PortId, d: &Descriptor);
}

/// Admits every call (best-effort networks; the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct AcceptAll;

impl Admission for AcceptAll {
    fn admit(&mut self, _: PortId, _: &Descriptor) -> bool {
        true
    }
    fn release(&mut self, _: PortId, _: &Descriptor) {}
}
