//! The driver's policies: how traffic is multiplexed onto VCs, how long VCs live, and which
//! cached VC may carry which traffic.
//!
//! Owns: [`MuxPolicy`] and the [`MuxKey`] it maps a datagram to; [`VcPolicy`]; the VC class
//! ([`VcClass`], [`ClassMatch`]) that decides cache reuse; the [`TrafficDescriptor`] of a
//! setup request; and [`DriverConfig`] with its defaults.
//!
//! Sources: Mah (1996) Tab 2-2 (multiplexing), Tab 2-3 and §6.3 (VC management), §6.6
//! (noqos: every VC interchangeable); spec digest `mah96.md` rows A-9 (cache timeout counted
//! from unbinding), A-10 (match rule), A-11 (application type includes direction), A-34
//! (pvc set up on first use) and A-36 (admission fallback tag).

use super::classify::{ConvKey, ConvType, PacketHeader};
use super::qos::{QosPolicy, Scheme};
use crate::ids::NodeId;
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// How much traffic one VC carries (Tab 2-2). Named in scenarios (`ipoa.mux`) and summaries
/// by [`MuxPolicy::name`]; default conv.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MuxPolicy {
    /// One VC per IP conversation (the 6-tuple).
    #[default]
    Conv,
    /// One VC per application type per ordered host pair; the type includes its direction
    /// and FTP control and data are distinct.
    App,
    /// One VC per egress router: everything this interface sends to that router.
    Router,
    /// One VC per application type (with direction) per egress router: Cáceres' (1993 §2.2)
    /// "channel per type" between two routers — not one of Mah's policies.
    Type,
}

impl MuxPolicy {
    /// Every multiplexing policy, in declaration order.
    pub const ALL: [MuxPolicy; 4] = [MuxPolicy::Conv, MuxPolicy::App, MuxPolicy::Router, MuxPolicy::Type];

    /// Its name in scenarios, summaries and configuration names (serde's).
    pub const fn name(self) -> &'static str {
        match self {
            MuxPolicy::Conv => "conv",
            MuxPolicy::App => "app",
            MuxPolicy::Router => "router",
            MuxPolicy::Type => "type",
        }
    }
}

/// How long a VC lives (Tab 2-3). Named in scenarios (`ipoa.vc`) and summaries by
/// [`VcPolicy::name`]; default pvc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VcPolicy {
    /// Set up on first use, never torn down (§6.3, A-34: not pre-established at t = 0).
    #[default]
    Pvc,
    /// Torn down after [`DriverConfig::idle_timeout`] without a packet.
    Svc,
    /// Unbound after the idle timeout and cached; reusable by any request with the same
    /// egress and class; torn down [`DriverConfig::cache_timeout`] after unbinding.
    SvcCache,
}

impl VcPolicy {
    /// Every VC management policy, in declaration order.
    pub const ALL: [VcPolicy; 3] = [VcPolicy::Pvc, VcPolicy::Svc, VcPolicy::SvcCache];

    /// Its name in scenarios, summaries and configuration names (serde's).
    pub const fn name(self) -> &'static str {
        match self {
            VcPolicy::Pvc => "pvc",
            VcPolicy::Svc => "svc",
            VcPolicy::SvcCache => "svccache",
        }
    }
}

/// Which requests a cached VC may serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassMatch {
    /// noqos: one best-effort class, so any cached VC to the same egress matches (§6.6).
    Pooled,
    /// QoS policies: a VC is tagged with the conversation type that created it and serves
    /// only requests of an identical type (§6.3), best-effort types (SMTP, NNTP,
    /// unselected applications) included.
    ByType,
}

/// What a multiplexed VC is for; the unit of the VC table and of pending setups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MuxKey {
    Conv(ConvKey),
    App { src: NodeId, dst: NodeId, ty: ConvType },
    Router { egress: NodeId },
    Type { egress: NodeId, ty: ConvType },
}

/// The class tag of a VC: equal classes (and equal egress) make a cached VC reusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VcClass {
    /// The single class of [`ClassMatch::Pooled`], and of every router-multiplexed VC.
    BestEffort,
    /// The type of the conversation that created the VC ([`ClassMatch::ByType`]).
    Type(ConvType),
    /// A best-effort VC opened for `ConvType` after its guaranteed request was refused
    /// . It is distinct from `Type(t)`, so it never satisfies a later guaranteed
    /// request of that type — only a later fallback of the same type. This driver never
    /// creates it by itself: the QoS layer, which decides what a refusal means, requests
    /// it through [`super::IpoaDriver::transmit_with_class`].
    Fallback(ConvType),
}

/// What a setup request asks of the network (Tab 4-3), as a small value: the caller turns it
/// into the signalling descriptor with the interface's [`QosPolicy`] — the Tab 4-6 level
/// under `sp`, the Tab 4-5 parameters and admission under `wc`/`nwc`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrafficDescriptor {
    #[default]
    BestEffort,
    /// A VC for a type the QoS policy favours.
    Guaranteed(ConvType),
}

/// The driver's configuration (one per ATM interface).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverConfig {
    pub mux: MuxPolicy,
    pub vc: VcPolicy,
    pub class_match: ClassMatch,
    /// Idle time after which a bound VC is torn down (svc) or unbound (svccache)
    /// [default 10 s, Tab 2-3 and §6.3: "ten seconds for all connections"].
    pub idle_timeout: SimDuration,
    /// Time an unbound VC stays cached before teardown, counted from unbinding
    /// [default 300 s, §6.3; A-9].
    pub cache_timeout: SimDuration,
    /// Which conversation types get guaranteed VCs (Chapter 4; default noqos).
    pub qos: QosPolicy,
}

/// Default idle timeout (Tab 2-3).
pub const IDLE_TIMEOUT: SimDuration = SimDuration::from_secs(10);
/// Default cache lifetime after unbinding (§6.3, A-9).
pub const CACHE_TIMEOUT: SimDuration = SimDuration::from_secs(300);

impl DriverConfig {
    /// The given policies with the thesis' timeouts and noqos class matching.
    pub const fn new(mux: MuxPolicy, vc: VcPolicy) -> Self {
        DriverConfig {
            mux,
            vc,
            class_match: ClassMatch::Pooled,
            idle_timeout: IDLE_TIMEOUT,
            cache_timeout: CACHE_TIMEOUT,
            qos: QosPolicy::NOQOS,
        }
    }

    /// The same policies under QoS policy `qos`: a QoS-aware policy tags VCs by type.
    pub const fn with_qos(mut self, qos: QosPolicy) -> Self {
        self.qos = qos;
        if !matches!(qos.scheme, Scheme::Noqos) {
            self.class_match = ClassMatch::ByType;
        }
        self
    }

    /// What a new VC for type `ty` asks of the network: guaranteed service for a type the
    /// QoS policy favours (never on a router-multiplexed VC, which carries every type),
    /// best effort otherwise.
    #[inline]
    pub fn descriptor_for(&self, ty: ConvType) -> TrafficDescriptor {
        if self.mux != MuxPolicy::Router && self.qos.favours(ty) {
            TrafficDescriptor::Guaranteed(ty)
        } else {
            TrafficDescriptor::BestEffort
        }
    }

    /// The multiplexing key of a datagram of type `ty` bound for egress router `egress`.
    #[inline]
    pub fn mux_key(&self, hdr: &PacketHeader, ty: ConvType, egress: NodeId) -> MuxKey {
        match self.mux {
            MuxPolicy::Conv => MuxKey::Conv(hdr.conv_key()),
            MuxPolicy::App => MuxKey::App { src: hdr.src, dst: hdr.dst, ty },
            MuxPolicy::Router => MuxKey::Router { egress },
            MuxPolicy::Type => MuxKey::Type { egress, ty },
        }
    }

    /// The class a new VC for a datagram of type `ty` is tagged with. A router-multiplexed
    /// VC carries every type, so it is best effort whatever the matching rule (the thesis
    /// ran router multiplexing under noqos only, §5.3).
    #[inline]
    pub fn class_for(&self, ty: ConvType) -> VcClass {
        match (self.mux, self.class_match) {
            (MuxPolicy::Router, _) | (_, ClassMatch::Pooled) => VcClass::BestEffort,
            (_, ClassMatch::ByType) => VcClass::Type(ty),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iface::ipoa::classify::{Media, Proto};

    fn hdr(src: u32, dst: u32, src_port: u16, dst_port: u16) -> PacketHeader {
        PacketHeader {
            src: NodeId(src),
            dst: NodeId(dst),
            proto: Proto::Tcp,
            src_port,
            dst_port,
            tos: 0,
            media: Media::None,
        }
    }

    #[test]
    fn app_key_separates_directions_and_ftp_control_from_data() {
        let cfg = DriverConfig::new(MuxPolicy::App, VcPolicy::Svc);
        let key = |h: PacketHeader| cfg.mux_key(&h, h.conv_type(), NodeId(9));
        assert_eq!(key(hdr(1, 2, 4000, 80)), key(hdr(1, 2, 4001, 80)), "two HTTP connections share");
        assert_ne!(key(hdr(1, 2, 4000, 21)), key(hdr(1, 2, 4000, 20)));
        assert_ne!(key(hdr(1, 2, 4000, 80)), key(hdr(1, 2, 80, 4000)), "up and down differ");
    }

    #[test]
    fn class_is_best_effort_unless_type_matching_and_not_router() {
        let ty = ConvType::TelnetUp;
        let mut cfg = DriverConfig::new(MuxPolicy::Conv, VcPolicy::SvcCache);
        assert_eq!(cfg.class_for(ty), VcClass::BestEffort);
        cfg.class_match = ClassMatch::ByType;
        assert_eq!(cfg.class_for(ty), VcClass::Type(ty));
        cfg.mux = MuxPolicy::Router;
        assert_eq!(cfg.class_for(ty), VcClass::BestEffort);
    }

    #[test]
    fn fallback_class_never_equals_the_guaranteed_class_of_its_type() {
        assert_ne!(VcClass::Fallback(ConvType::Audio), VcClass::Type(ConvType::Audio));
    }
}
