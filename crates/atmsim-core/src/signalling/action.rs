//! What a controller asks its caller to do.
//!
//! Owns: [`Action`] (the output of every [`super::Controller`] input) and [`Timer`] (the
//! token an [`Action::Arm`] carries back). Both are small `Copy` values carrying ids; the
//! caller drains its action `Vec` after each call and reuses it.

use super::msg::{Frame, RejectReason};
use super::{CallId, Descriptor, EndpointId, PortIx};
use crate::ids::{LinkId, PortId};
use crate::time::SimTime;

/// A timer a controller asks for; hand it back to [`super::Controller::on_timer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The go-back-N retransmission timer of the sender on this port.
    Retransmit(PortIx),
    /// The message at the head of the processing queue is done.
    Processing,
}

/// What the caller must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Segment `frame` (`frame.cells()` cells) onto the signalling VC ([`super::SIG_VCI`]) of
    /// output `via`, at signalling priority; deliver it to the peer's `on_frame` (unless lost).
    Transmit { via: PortId, frame: Frame },
    /// Call `on_timer(at, timer)` on this controller at `at`.
    Arm { at: SimTime, timer: Timer },
    /// Switch: add the translation `(in_link, in_vci) → (out_port, out_vci)`; the call's
    /// `descriptor` tells the caller how `out_port` is to serve `out_vci` (its level and
    /// regulator under a QoS scheduler).
    Install { in_link: LinkId, in_vci: u32, out_port: PortId, out_vci: u32, descriptor: Descriptor },
    /// Switch: remove the translation of `(in_link, in_vci)`.
    Remove { in_link: LinkId, in_vci: u32 },
    /// Origin: the VC is up; the driver may send on `vci` of output `port`.
    Connected { call: CallId, port: PortId, vci: u32 },
    /// Origin: the setup failed; nothing of the call is held anywhere any more.
    SetupFailed { call: CallId, reason: RejectReason },
    /// Destination: a VC from `origin` arrives on `(link, vci)`; bind it to the driver.
    Incoming { call: CallId, origin: EndpointId, link: LinkId, vci: u32, descriptor: Descriptor },
    /// Destination: the VC on `(link, vci)` was released; unbind it.
    Released { call: CallId, link: LinkId, vci: u32 },
}
