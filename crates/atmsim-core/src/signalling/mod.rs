//! Signalling: switched VCs set up and released hop by hop, sans-I/O.
//!
//! Owns the control plane that opens and closes simplex VCs between ATM endpoints (the
//! routers and host adapters of Mah's INSANE): the controllers at switches and endpoints, the
//! messages they exchange, the reliable signalling links between adjacent controllers, VCI
//! allocation per port, and the admission-control hook. It never sees the event queue or a
//! cell: every input (a frame arrived, a timer fired, a driver request) takes `now` and pushes
//! [`Action`]s into a caller-owned `Vec` that the network's event loop executes.
//!
//! **Simultaneous events (DESIGN §2b).** A controller handles the frames that reach it at an
//! instant before its timers of that instant (a retransmission timer expiring as the
//! acknowledgement arrives does not fire needlessly), frames in the order of their input links,
//! timers by slot. Its cells join each output port's control FIFO through the port's
//! round-robin arbiter, the controller being one of the port's inputs (`atm::port`).
//!
//! Sources: Mah (1996) §2.2 and §3.6.1 (RCAP-like signalling "with a single end-to-end round
//! trip", `SigRcsp` controllers, `CellGoBackN` reliable delivery over PVCs between adjacent
//! controllers), §6.6 (8192 VCIs per port); the spec digest `mah96.md` §1.6 and rows A-8
//! (processing, message size, window, timeout, teardown, reject), A-25 (admission at every
//! port on the path), A-28 (simplex VCs, each router opens its own), A-34.
//!
//! - [`msg`] — SETUP, CONNECT, REJECT, RELEASE; frames and their sizes in bytes and cells;
//! - [`gbn`] — go-back-N sender and receiver for one link direction;
//! - [`vci`] — VCI allocation (lowest free) and VCI→call tables per port;
//! - [`admission`] — the [`Admission`] hook and [`AcceptAll`];
//! - [`delay_bound`] — RCSP admission for deterministic delay bounds (Zhang–Ferrari test,
//!   Tab 4-2 levels, Tab 4-3 traffic specs): [`DelayBoundAdmission`];
//! - [`controller`] — the per-hop state machine, at switches and endpoints;
//! - [`action`] — what the caller must do ([`Action`], [`Timer`]);
//! - [`latency`] — the closed-form setup and release latency of a path.
//!
//! # Walk-through
//!
//! **Setup** (one round trip). The origin endpoint's driver calls
//! [`Controller::request_setup`] with a [`CallId`], the destination [`EndpointId`] and an
//! opaque [`Descriptor`]. The origin routes the destination to an outgoing port, checks a VCI
//! is free there, asks the admission hook, allocates the lowest free VCI and sends SETUP
//! carrying that VCI — at once, without processing time. Each switch controller, after its
//! processing time, does the same for its own outgoing port, emits [`Action::Install`] for the
//! translation (incoming link, incoming VCI) → (outgoing port, outgoing VCI), and forwards the
//! SETUP with its own VCI. The destination endpoint processes the SETUP, emits
//! [`Action::Incoming`] (bind the arriving VC to the host) and answers CONNECT, which travels
//! back hop by hop (each hop processes it). When the origin has processed the CONNECT it emits
//! [`Action::Connected`]: data may use the VC from then on.
//!
//! **Reject with partial release.** A hop that cannot route, has no free VCI, or whose
//! admission hook refuses, sends REJECT (with a [`RejectReason`]) back towards the origin.
//! Every upstream hop frees its VCI, releases its admission reservation and emits
//! [`Action::Remove`]; the origin frees its own and emits [`Action::SetupFailed`]. Failures at
//! the origin itself are reported at once.
//!
//! **Release.** The origin's driver calls [`Controller::release`]: the origin frees its VCI
//! and reservation immediately (spec A-8: "no wait by the router before the VCI is freed") and
//! sends RELEASE, one forward pass: each hop frees its VCI, its reservation and its entry; the
//! destination emits [`Action::Released`]. A call can be released while its setup is pending;
//! messages that arrive for a call a hop no longer holds are counted stale and ignored (each
//! message carries the call id, checked against the record the VCI points to, so a reused VCI
//! is never confused with its former call).
//!
//! **Reliable links.** Each controller port has a go-back-N sender and receiver
//! ([`gbn`]) for the signalling VC to the neighbour: window 8, timeout 200 ms, cumulative
//! ACKs, 16-bit wrapping sequence numbers. A lost message is retransmitted with everything
//! after it; the receiver delivers each message once, in order.
//!
//! # Defaults ([`SigConfig`])
//!
//! | parameter | default | source |
//! |---|---|---|
//! | processing per received message | 1 ms | A-8 \[R\], to calibrate against §6.4.1 / §5.5.3 |
//! | go-back-N window | 8 messages | A-8 \[R\] |
//! | retransmission timeout | 200 ms | A-8 \[R\] |
//! | VCIs per port | 8192 (`0..8192`) | Mah §6.6 |
//! | reserved VCIs | 0–31; signalling VC = 5 ([`SIG_VCI`]) | ATM practice (UNI) |
//! | message size | SETUP 2 cells, others 1 cell | A-8 (≤ 2 cells); bytes in [`msg`] |
//!
//! # What the caller does with each action
//!
//! - [`Action::Transmit`] `{ via, frame }`: queue `frame.cells()` cells on output port `via`
//!   on the signalling VC at signalling priority (above best effort, below guaranteed, Mah
//!   §4.3.1). If all its cells arrive, call the peer controller's [`Controller::on_frame`]
//!   with the peer's local port number for that link; if any is dropped, the frame is lost
//!   (go-back-N recovers it). Count frames offered, lost and delivered per link.
//! - [`Action::Arm`] `{ at, timer }`: schedule `Controller::on_timer(at, timer)` on the same
//!   controller. Never cancelled: a stale retransmission timer re-arms itself or does nothing.
//! - [`Action::Install`] / [`Action::Remove`]: edit the switch's VC translation table.
//! - [`Action::Connected`] / [`Action::SetupFailed`]: hand to the origin's driver (it may
//!   send on `(port, vci)`, or fall back, e.g. to a best-effort VC, A-36).
//! - [`Action::Incoming`] / [`Action::Released`]: bind / unbind reassembly of `(link, vci)`
//!   at the destination endpoint.
//!
//! Determinism: all tables are `Vec`s indexed by ids (a `BTreeMap` only maps a driver's call
//! id to its record at the origin), queues are FIFO, and no iteration order depends on hashing.

pub mod action;
pub mod admission;
pub mod controller;
pub mod delay_bound;
pub mod gbn;
pub mod latency;
pub mod msg;
pub mod vci;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod world;

pub use action::{Action, Timer};
pub use admission::{AcceptAll, Admission};
pub use controller::{Controller, CtrlStats, PortSpec, SigConfig};
pub use delay_bound::{DelayBoundAdmission, SpecError, TrafficSpec, BEST_EFFORT};
pub use gbn::{GbnConfig, GbnReceiver, GbnSender};
pub use latency::{closed_form_holds, release_latency, setup_latency, LinkSpec};
pub use msg::{Frame, Msg, RejectReason, Setup};

/// The VCI of the signalling VC on every link (the UNI point-to-point signalling VCI, in the
/// reserved range 0–31).
pub const SIG_VCI: u32 = 5;

macro_rules! sig_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

sig_id!(/// A signalling controller (of a switch or of an ATM-attached endpoint).
    CtrlId);
sig_id!(/// An ATM endpoint address (router or host adapter), dense from 0: it indexes routing tables.
    EndpointId);
sig_id!(/// A call (one simplex VC), named by the requesting driver; unique within a run.
    CallId);
sig_id!(/// A controller's local port number (0.. in the order the ports were given).
    PortIx);

/// A traffic/QoS descriptor, opaque to signalling: a handle the admission hook interprets
/// (e.g. an index into the caller's table of Tab 4-3 parameter sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Descriptor(pub u32);
