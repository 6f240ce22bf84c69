//! What the driver asks its caller to do.
//!
//! Owns: [`Action`] and [`DropReason`]. The driver never performs I/O: every input method
//! appends actions to a `Vec` the caller owns (and reuses), in the order they are to be
//! carried out. The contract for each action is in the module docs of [`super`].

use super::policy::{MuxKey, TrafficDescriptor, VcClass};
use super::vcs::{TimerToken, VcRef};
use super::ConvType;
use crate::ids::{DatagramId, NodeId};
use crate::time::SimTime;

/// One thing for the caller to do (a small `Copy` value of ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Segment `datagram` onto `vc` now.
    Send { datagram: DatagramId, vc: VcRef },
    /// Ask signalling for a simplex VC to `egress`; report the outcome with
    /// [`super::IpoaDriver::setup_result`] for `vc`.
    RequestSetup { vc: VcRef, key: MuxKey, egress: NodeId, class: VcClass, ty: ConvType, descriptor: TrafficDescriptor },
    /// Tear `vc` down; confirm with [`super::IpoaDriver::release_done`] once its handle may
    /// be reused (at once, if the fabric frees it at once).
    Release { vc: VcRef },
    /// Call [`super::IpoaDriver::timer_fired`] with `token` at `at` (never earlier).
    ArmTimer { at: SimTime, token: TimerToken },
    /// `datagram` ends here; the caller records it in its datagram ledger.
    Drop { datagram: DatagramId, reason: DropReason },
}

/// Why the driver dropped a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// It waited for a VC whose setup failed.
    SetupFailed,
}
