//! Signalling messages and the frames that carry them on a signalling link.
//!
//! Owns: [`Msg`] (SETUP, CONNECT, REJECT, RELEASE — the four messages of the RCAP-like
//! protocol, Mah §2.2/§3.6.1), [`RejectReason`], and [`Frame`], what one go-back-N endpoint
//! hands to the link: a numbered message or a cumulative acknowledgement.
//!
//! **Sizes.** Each frame is one AAL5 frame of at most two cells (spec A-8); a caller that
//! segments it computes `cells = ceil((bytes + 8) / 48)` ([`aal5_cells`]). The byte counts
//! are this module's choice (the thesis gives none):
//!
//! | part | bytes | contents |
//! |---|---|---|
//! | link header | 4 | frame type (1), reserved (1), sequence or ack number (2) |
//! | SETUP body | 48 | type (1), reserved (1), VCI (2), call (4), origin (4), destination (4), traffic descriptor (32: the Tab 4-3 parameters X_min, X_ave, I, d, Z_min, S_max, W_min and a level, 4 bytes each) |
//! | CONNECT, RELEASE body | 8 | type (1), reserved (1), VCI (2), call (4) |
//! | REJECT body | 12 | as CONNECT, plus a cause (4) |
//!
//! So a SETUP frame is 52 bytes (2 cells), every other frame 1 cell, an ACK 4 bytes.

use super::{CallId, Descriptor, EndpointId};

/// Bytes of the go-back-N link header on every frame.
pub const LINK_HEADER_BYTES: u32 = 4;
/// Bytes of a SETUP body.
pub const SETUP_BYTES: u32 = 48;
/// Bytes of a CONNECT or RELEASE body.
pub const SHORT_BYTES: u32 = 8;
/// Bytes of a REJECT body.
pub const REJECT_BYTES: u32 = 12;
/// AAL5 trailer \[bytes\] and cell payload \[bytes\], as in [`crate::atm::aal5`].
const AAL5_TRAILER: u32 = 8;
const CELL_PAYLOAD: u32 = 48;

/// Cells of one AAL5 frame carrying `bytes` of payload: `ceil((bytes + 8) / 48)`.
pub const fn aal5_cells(bytes: u32) -> u32 {
    (bytes + AAL5_TRAILER).div_ceil(CELL_PAYLOAD)
}

/// Why a hop refused a SETUP. Carried back to the origin in a REJECT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RejectReason {
    /// The outgoing port had no free VCI.
    NoVci,
    /// The admission hook refused the call at an outgoing port.
    Admission,
    /// The controller has no route to the destination endpoint.
    NoRoute,
}

impl RejectReason {
    /// All reasons, in the order of [`RejectReason::index`] (for per-reason counters).
    pub const ALL: [RejectReason; 3] = [RejectReason::NoVci, RejectReason::Admission, RejectReason::NoRoute];
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A request to open a simplex VC from `origin` to `dest`; `vci` is the VCI the sender chose
/// on the link this SETUP travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    pub call: CallId,
    pub origin: EndpointId,
    pub dest: EndpointId,
    pub descriptor: Descriptor,
    pub vci: u32,
}

/// A signalling message. In every variant `vci` names the call on the link the message
/// travels: the VCI that the upstream end of that link allocated for it (SETUP and RELEASE
/// travel downstream on that link, CONNECT and REJECT upstream on its reverse direction).
/// `call` guards against stale messages: a hop acts only if its record at `vci` has this call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msg {
    Setup(Setup),
    /// The destination accepted; travels back hop by hop to the origin.
    Connect {
        call: CallId,
        vci: u32,
    },
    /// A hop refused; travels back from that hop, each hop freeing what it holds.
    Reject {
        call: CallId,
        vci: u32,
        reason: RejectReason,
    },
    /// The origin tore the VC down; one forward pass, each hop freeing what it holds.
    Release {
        call: CallId,
        vci: u32,
    },
}

impl Msg {
    pub const fn call(&self) -> CallId {
        match *self {
            Msg::Setup(s) => s.call,
            Msg::Connect { call, .. } | Msg::Reject { call, .. } | Msg::Release { call, .. } => call,
        }
    }
    pub const fn vci(&self) -> u32 {
        match *self {
            Msg::Setup(s) => s.vci,
            Msg::Connect { vci, .. } | Msg::Reject { vci, .. } | Msg::Release { vci, .. } => vci,
        }
    }
    /// Body size \[bytes\], without the link header.
    pub const fn bytes(&self) -> u32 {
        match self {
            Msg::Setup(_) => SETUP_BYTES,
            Msg::Connect { .. } | Msg::Release { .. } => SHORT_BYTES,
            Msg::Reject { .. } => REJECT_BYTES,
        }
    }
}

/// What a go-back-N endpoint puts on a signalling link (one AAL5 frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message with its sequence number (modulo 2^16).
    Data { seq: u16, msg: Msg },
    /// Cumulative acknowledgement: every message before `next` has been delivered.
    Ack { next: u16 },
}

impl Frame {
    /// Frame size \[bytes\] including the link header, excluding the AAL5 trailer.
    pub const fn bytes(&self) -> u32 {
        match self {
            Frame::Data { msg, .. } => LINK_HEADER_BYTES + msg.bytes(),
            Frame::Ack { .. } => LINK_HEADER_BYTES,
        }
    }
    /// Cells of this frame once segmented by AAL5.
    pub const fn cells(&self) -> u32 {
        aal5_cells(self.bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_fits_in_two_cells_and_setup_needs_two() {
        let s =
            Setup { call: CallId(1), origin: EndpointId(0), dest: EndpointId(1), descriptor: Descriptor(0), vci: 32 };
        let setup = Frame::Data { seq: 0, msg: Msg::Setup(s) };
        assert_eq!((setup.bytes(), setup.cells()), (52, 2));
        let c = CallId(1);
        for m in [Msg::Connect { call: c, vci: 32 }, Msg::Release { call: c, vci: 32 }] {
            assert_eq!(Frame::Data { seq: 0, msg: m }.cells(), 1);
        }
        let r = Msg::Reject { call: c, vci: 32, reason: RejectReason::NoVci };
        assert_eq!(Frame::Data { seq: 0, msg: r }.bytes(), 16);
        assert_eq!(Frame::Ack { next: 0 }.cells(), 1);
        assert_eq!(aal5_cells(40), 1);
        assert_eq!(aal5_cells(41), 2);
    }

    #[test]
    fn frames_stay_small_copy_values() {
        assert!(std::mem::size_of::<Frame>() <= 28, "{}", std::mem::size_of::<Frame>());
    }
}
