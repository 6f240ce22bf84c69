//! The IP-over-ATM device driver: which VC carries each datagram, and when VCs are opened,
//! cached and closed — decision logic only (sans-I/O).
//!
//! Owns the driver of one ATM interface of a router or an ATM-attached host, in files of
//! one concept each:
//!
//! - [`classify`] — the conversation key and conversation type of a datagram (§4.3.2);
//! - [`policy`] — multiplexing (conv, app, router), VC management (pvc, svc, svccache), the
//!   class tag that decides cache reuse, and the configuration with its defaults;
//! - [`qos`] — the QoS policies of Chapter 4 (noqos, sp, wc, nwc × favoured applications),
//!   their Tab 4-5 parameters and Tab 4-6 levels, and the 103 named configurations;
//! - [`vcs`] — the VC table: states, pending FIFOs, the cache, lazy timers;
//! - [`counters`] — setups, hits, teardowns, VCs in use, peak setups per second;
//! - [`action`] — what the driver asks its caller to do;
//! - `driver` — [`IpoaDriver`], the inputs that tie them together.
//!
//! Sources: Mah (1996) §2.5–2.6 (the policy space, Tab 2-2, Tab 2-3), §3.6.1 (the
//! `AtmDeviceDriver` of INSANE), §4.3.2 (classification), §5.3 (multiplexing), §6.3 and
//! §6.5–6.6 (VC management and caching); spec digest `mah96.md` §1.5 and rows,
//! DESIGN §7 places the driver in `iface/`.
//!
//! # The algorithm
//!
//! IP hands the driver a datagram, its header and its next hop on the ATM network — the
//! egress router. The driver classifies the datagram (conversation type, e.g. HTTP down)
//! and derives its multiplexing key: the conversation 6-tuple under `conv`, (source,
//! destination, type) under `app`, the egress router under `router`. Then:
//!
//! 1. If a VC is bound to the key, the datagram goes out on it and the VC's last-use time
//!    becomes now.
//! 2. If a setup for the key is pending, the datagram joins the key's FIFO; the FIFO has no
//!    limit, and a second conversation with the same key waits on the same setup.
//! 3. Otherwise, under svccache, a cached VC to the same egress with the same class is
//!    bound to the key at once: a cache hit, with no setup and no delay (§6.5).
//! 4. Otherwise the driver requests a setup (a miss) and queues the datagram.
//!
//! When the setup succeeds the VC is bound and its FIFO sent in arrival order; when it
//! fails every queued datagram is dropped with a reason. A bound VC idle for the idle
//! timeout (10 s) is released (svc) or unbound into the cache (svccache); a cached VC is
//! released when it has been cached for the cache timeout (300 s, counted from unbinding,
//! Under pvc a VC, once set up on first use, is never released. Idleness is
//! detected by timers only — IP gives no conversation boundaries (§6.1), so a TCP FIN
//! changes nothing.
//!
//! **Classes.** Under noqos ([`ClassMatch::Pooled`]) every VC is best effort and any cached
//! VC to the egress matches (§6.6). With QoS tags ([`ClassMatch::ByType`]) a VC carries the
//! type of the conversation that created it and serves identical types only (§6.3). A
//! router-multiplexed VC is always best effort (it carries every type). The QoS layer may
//! pick the class itself ([`IpoaDriver::transmit_with_class`]), e.g. the admission
//! fallback class [`VcClass::Fallback`] of A-36.
//!
//! **QoS policies** ([`qos`], Chapter 4). Under a QoS-aware policy (sp, wc, nwc) VCs are
//! tagged by type, and a new VC for a type the policy favours is requested as
//! [`TrafficDescriptor::Guaranteed`]; the caller turns that into the Tab 4-6 level (sp) or
//! the Tab 4-5 traffic parameters and admission control (wc, nwc). When admission refuses
//! it ([`SetupOutcome::Refused`]), the key falls back to best effort: a cached
//! fallback VC of the same type and egress takes it at once under svccache, otherwise the
//! same pending VC, its queue kept, is requested again as best effort, tagged
//! [`VcClass::Fallback`] so that it never serves a later guaranteed request.
//!
//! **Defaults.** Idle timeout 10 s (Tab 2-3, §6.3); cache lifetime 300 s after unbinding
//! (§6.3, A-9); class matching pooled (noqos). [`DriverConfig::new`] gives them.
//!
//! # Contract with the caller
//!
//! The driver holds no clock and no queue: each input takes `now` and appends
//! [`Action`]s to the caller's `Vec`, in the order they are to be carried out.
//!
//! - [`Action::Send`] — segment the datagram onto the VC now. The caller maps the driver's
//!   [`VcRef`] to the fabric's VC (learnt when the setup completed or the PVC was
//!   declared).
//! - [`Action::RequestSetup`] — start signalling a VC to the egress; later call
//!   [`IpoaDriver::setup_result`] with the same `VcRef` and the outcome (`Refused` when
//!   admission control turned a guaranteed request down; the driver may then ask again
//!   for the same `VcRef`).
//! - [`Action::Release`] — start tearing the VC down; call [`IpoaDriver::release_done`]
//!   when the handle may be reused (until then the driver does not reuse it).
//! - [`Action::ArmTimer`] — call [`IpoaDriver::timer_fired`] with the token at exactly the
//!   given instant. Tokens may turn stale; the driver ignores those, so the caller never
//!   cancels a timer. Idle deadlines are exact: a VC whose last datagram went out at `t` is
//!   unbound or released at `t + idle_timeout`, not at the next timer tick. A datagram and
//!   a timer at the same instant are handled in the order the caller delivers them.
//! - [`Action::Drop`] — the datagram ends here (its setup failed); record it in the
//!   datagram ledger so that it balances.
//!
//! **Datagram fates.** Every datagram handed to the driver leaves in exactly one of three
//! ways: a `Send` (at once or when its setup succeeds), a `Drop`, or it is still queued on
//! a pending setup. [`DriverCounters`] counts the queued and dropped ones.
//!
//! **Cost.** One classification, one hash lookup (fixed seedless hasher; no iteration over
//! maps, so no dependence on hash order) and no allocation per datagram in steady state.

pub mod action;
pub mod classify;
pub mod counters;
mod driver;
pub mod policy;
pub mod qos;
pub mod vcs;

pub use action::{Action, DropReason};
pub use classify::{ConvKey, ConvType, Media, PacketHeader, Proto};
pub use counters::DriverCounters;
pub use driver::{IpoaDriver, KeyInUse, SetupOutcome};
pub use policy::{ClassMatch, DriverConfig, MuxKey, MuxPolicy, TrafficDescriptor, VcClass, VcPolicy};
pub use vcs::{TimerToken, VcInfo, VcRef, VcState};

#[cfg(test)]
mod tests;
