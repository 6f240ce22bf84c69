//! The driver: the per-packet decision and the reactions to signalling and timers.
//!
//! Owns: [`IpoaDriver`] and [`SetupOutcome`], [`KeyInUse`]. The algorithm is walked
//! through in the module docs of [`super`]; each method here is one of its inputs.

use super::action::{Action, DropReason};
use super::counters::DriverCounters;
use super::policy::{DriverConfig, MuxKey, TrafficDescriptor, VcClass, VcPolicy};
use super::vcs::{TimerToken, VcInfo, VcRef, VcState, VcTable};
use super::{ConvType, PacketHeader};
use crate::ids::{DatagramId, NodeId};
use crate::time::SimTime;

/// What signalling reports for a setup request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupOutcome {
    Connected,
    Failed,
    /// Admission control refused a guaranteed VC at some port on the path (Mah §4.5). The
    /// driver asks for a best-effort fallback VC for the same key.
    Refused,
}

/// [`IpoaDriver::declare_pvc`] refused: the key already has a VC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("multiplexing key {0:?} already has a VC")]
pub struct KeyInUse(pub MuxKey);

/// The IP-over-ATM driver of one ATM interface.
pub struct IpoaDriver {
    cfg: DriverConfig,
    vcs: VcTable,
    counters: DriverCounters,
}

impl IpoaDriver {
    pub fn new(cfg: DriverConfig) -> Self {
        IpoaDriver { cfg, vcs: VcTable::new(), counters: DriverCounters::default() }
    }

    pub fn config(&self) -> &DriverConfig {
        &self.cfg
    }

    pub fn counters(&self) -> &DriverCounters {
        &self.counters
    }

    /// Take the once-a-second sample of VCs in use; returns it.
    pub fn sample_in_use(&mut self) -> u32 {
        self.counters.sample_in_use()
    }

    /// What the driver knows of `vc`; `None` once its handle is free.
    pub fn vc_info(&self, vc: VcRef) -> Option<VcInfo> {
        self.vcs.info(vc)
    }

    /// The VC pending or bound for `key`, if any.
    pub fn vc_for(&self, key: &MuxKey) -> Option<(VcRef, VcState)> {
        self.vcs.lookup(key)
    }

    /// IP hands over `datagram`, whose header is `hdr`, for egress router `egress` at `now`.
    /// Classifies it and calls [`Self::transmit_with_class`] with the class the
    /// configuration gives its type, best effort.
    #[inline]
    pub fn transmit(
        &mut self,
        now: SimTime,
        hdr: &PacketHeader,
        egress: NodeId,
        datagram: DatagramId,
        out: &mut Vec<Action>,
    ) {
        let ty = hdr.conv_type();
        let class = self.cfg.class_for(ty);
        let descriptor = self.cfg.descriptor_for(ty);
        self.transmit_typed(now, hdr, ty, egress, datagram, class, descriptor, out);
    }

    /// As [`Self::transmit`] with the VC class and traffic descriptor chosen by the caller
    /// (the QoS layer). They matter only when the datagram's key has no VC: they select a
    /// cached VC and describe a new one.
    pub fn transmit_with_class(
        &mut self,
        now: SimTime,
        hdr: &PacketHeader,
        egress: NodeId,
        datagram: DatagramId,
        (class, descriptor): (VcClass, TrafficDescriptor),
        out: &mut Vec<Action>,
    ) {
        self.transmit_typed(now, hdr, hdr.conv_type(), egress, datagram, class, descriptor, out);
    }

    /// The algorithm of the module docs, steps 1–4.
    #[allow(clippy::too_many_arguments)] // private; the public entries take fewer
    #[inline]
    fn transmit_typed(
        &mut self,
        now: SimTime,
        hdr: &PacketHeader,
        ty: ConvType,
        egress: NodeId,
        datagram: DatagramId,
        class: VcClass,
        descriptor: TrafficDescriptor,
        out: &mut Vec<Action>,
    ) {
        let key = self.cfg.mux_key(hdr, ty, egress);
        match self.vcs.lookup(&key) {
            Some((vc, VcState::Bound)) => {
                self.vcs.touch(vc, now);
                out.push(Action::Send { datagram, vc });
            }
            Some((vc, _pending)) => self.queue(vc, datagram),
            None => {
                if let Some(vc) = self.reuse_cached(now, key, egress, class) {
                    if descriptor != TrafficDescriptor::BestEffort {
                        self.counters.guaranteed_hits += 1;
                    }
                    out.push(Action::Send { datagram, vc });
                    self.arm(vc, now + self.cfg.idle_timeout, out);
                } else {
                    let vc = self.vcs.open(key, egress, class, ty, VcState::Pending);
                    self.request_setup(now, vc, descriptor, out);
                    self.queue(vc, datagram);
                }
            }
        }
    }

    /// Under svccache, bind a matching cached VC to `key` (a hit: no setup, no delay).
    fn reuse_cached(&mut self, now: SimTime, key: MuxKey, egress: NodeId, class: VcClass) -> Option<VcRef> {
        if self.cfg.vc != VcPolicy::SvcCache {
            return None;
        }
        let vc = self.vcs.reuse_cached(egress, class, key, now)?;
        self.counters.cache_hits += 1;
        Some(vc)
    }

    /// Ask signalling for pending `vc` (its key, egress, class and type are in the table).
    fn request_setup(&mut self, now: SimTime, vc: VcRef, descriptor: TrafficDescriptor, out: &mut Vec<Action>) {
        let info = self.vcs.info(vc).expect("a pending VC");
        let key = self.vcs.key_of(vc);
        self.counters.count_setup_request(now);
        if descriptor != TrafficDescriptor::BestEffort {
            self.counters.guaranteed_requested += 1;
        }
        out.push(Action::RequestSetup { vc, key, egress: info.egress, class: info.class, ty: info.ty, descriptor });
    }

    fn queue(&mut self, vc: VcRef, datagram: DatagramId) {
        self.vcs.enqueue(vc, datagram);
        self.counters.datagrams_queued += 1;
    }

    /// Signalling answered the setup of pending `vc` at `now`. On success the VC is bound
    /// and its queue sent in arrival order; on failure every queued datagram is dropped.
    pub fn setup_result(&mut self, now: SimTime, vc: VcRef, outcome: SetupOutcome, out: &mut Vec<Action>) {
        debug_assert_eq!(self.vcs.info(vc).map(|i| i.state), Some(VcState::Pending));
        match outcome {
            SetupOutcome::Connected => {
                self.vcs.bind(vc, now);
                self.counters.setups_completed += 1;
                self.counters.vcs_in_use += 1;
                while let Some(datagram) = self.vcs.dequeue(vc) {
                    out.push(Action::Send { datagram, vc });
                }
                if self.cfg.vc != VcPolicy::Pvc {
                    self.arm(vc, now + self.cfg.idle_timeout, out);
                }
            }
            SetupOutcome::Refused => {
                self.counters.setups_failed += 1;
                self.counters.guaranteed_refused += 1;
                self.fall_back(now, vc, out);
            }
            SetupOutcome::Failed => {
                self.counters.setups_failed += 1;
                while let Some(datagram) = self.vcs.dequeue(vc) {
                    self.counters.datagrams_dropped += 1;
                    out.push(Action::Drop { datagram, reason: DropReason::SetupFailed });
                }
                self.vcs.free(vc);
            }
        }
    }

    /// Admission refused pending `vc`'s guaranteed setup: its key falls back to best
    /// effort, tagged [`VcClass::Fallback`] so that the VC never serves a later guaranteed
    /// request. Under svccache a cached fallback VC of the same type and egress takes the
    /// key and the queued datagrams at once (a hit); otherwise the same pending VC, its
    /// queue kept, is requested again as best effort.
    fn fall_back(&mut self, now: SimTime, vc: VcRef, out: &mut Vec<Action>) {
        let info = self.vcs.info(vc).expect("a pending VC");
        let class = VcClass::Fallback(info.ty);
        let key = self.vcs.key_of(vc);
        if self.cfg.vc == VcPolicy::SvcCache && self.vcs.has_cached(info.egress, class) {
            let mut queued = Vec::new();
            while let Some(d) = self.vcs.dequeue(vc) {
                queued.push(d);
            }
            self.vcs.free(vc);
            let hit = self.reuse_cached(now, key, info.egress, class).expect("a cached fallback VC");
            out.extend(queued.into_iter().map(|datagram| Action::Send { datagram, vc: hit }));
            self.arm(hit, now + self.cfg.idle_timeout, out);
            return;
        }
        self.vcs.set_class(vc, class);
        self.request_setup(now, vc, TrafficDescriptor::BestEffort, out);
    }

    /// A timer armed by an [`Action::ArmTimer`] is due (`now` is its instant).
    pub fn timer_fired(&mut self, now: SimTime, token: TimerToken, out: &mut Vec<Action>) {
        let Some((vc, state)) = self.vcs.fire(token) else { return };
        match state {
            VcState::Bound => {
                let deadline = self.vcs.last_use(vc) + self.cfg.idle_timeout;
                if now < deadline {
                    self.arm(vc, deadline, out);
                } else {
                    self.idle_expired(vc, deadline, out);
                }
            }
            VcState::Cached => {
                let deadline = self.vcs.unbound_at(vc) + self.cfg.cache_timeout;
                if now < deadline {
                    self.arm(vc, deadline, out);
                } else {
                    self.release(vc, out);
                }
            }
            VcState::Pending | VcState::Releasing => {}
        }
    }

    /// Bound `vc` has been idle for the idle timeout, since `at` (Tab 2-3).
    fn idle_expired(&mut self, vc: VcRef, at: SimTime, out: &mut Vec<Action>) {
        match self.cfg.vc {
            VcPolicy::Svc => self.release(vc, out),
            VcPolicy::SvcCache => {
                self.vcs.unbind(vc, at);
                self.arm(vc, at + self.cfg.cache_timeout, out);
            }
            VcPolicy::Pvc => debug_assert!(false, "pvc VCs arm no idle timer"),
        }
    }

    fn release(&mut self, vc: VcRef, out: &mut Vec<Action>) {
        self.vcs.start_release(vc);
        self.counters.teardowns += 1;
        self.counters.vcs_in_use -= 1;
        out.push(Action::Release { vc });
    }

    /// The fabric has freed released `vc`; its handle may be reused.
    pub fn release_done(&mut self, vc: VcRef) {
        debug_assert_eq!(self.vcs.info(vc).map(|i| i.state), Some(VcState::Releasing));
        self.vcs.free(vc);
    }

    /// Bind `key` to a PVC the scenario declares towards `egress`: bound from the start,
    /// never idle, never torn down, counted in use. Returns its handle for the caller to
    /// map to the fabric's VC.
    pub fn declare_pvc(&mut self, key: MuxKey, egress: NodeId) -> Result<VcRef, KeyInUse> {
        if self.vcs.lookup(&key).is_some() {
            return Err(KeyInUse(key));
        }
        let ty = match key {
            MuxKey::App { ty, .. } | MuxKey::Type { ty, .. } => ty,
            MuxKey::Conv(k) => k.header().conv_type(),
            MuxKey::Router { .. } => ConvType::Other,
        };
        let vc = self.vcs.open(key, egress, VcClass::BestEffort, ty, VcState::Bound);
        self.vcs.set_permanent(vc);
        self.counters.vcs_in_use += 1;
        Ok(vc)
    }

    fn arm(&mut self, vc: VcRef, deadline: SimTime, out: &mut Vec<Action>) {
        if let Some((at, token)) = self.vcs.arm(vc, deadline) {
            out.push(Action::ArmTimer { at, token });
        }
    }
}
