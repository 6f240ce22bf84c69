//! An explicit-rate switch port that allocates its whole capacity max-min fairly, driven by
//! RM-cell fields alone (no load measurement).
//!
//! Owns: [`MaxMinPort`], its water level [`advertised_rate`] (which ERICA's fair share uses
//! too, [`super::erica`]) and the reference allocation [`max_min_shares`].
//!
//! # Where it comes from
//!
//! Kalampoukas, Varma & Ramakrishnan (1997) run their switches with the rate-allocation
//! algorithm of their reference \[12\]: it "maintains state", keeps "a current bandwidth
//! allocation per virtual channel", converges "to a stable and fair allocation", and in
//! §5.5 gives each of three VCs sharing a link 51.6 Mb/s, a third of it (§1, §5.1, §5.5, §6).
//! Its pseudo-code (KVR, IFIP HPN 1995) is not at hand; the digest (§1.5, A14) asks for an
//! exact max-min allocator over per-VC state that allocates 100 % of the port and never
//! measures arrivals, because the study's sources idle for a third of every period and a
//! measured-load scheme would react to that. This is our reconstruction; only the start-up
//! transient can differ from KVR's, never the converged rates the study's numbers rest on.
//!
//! # The allocation
//!
//! Each VC on the port has a *recorded rate* r_v, taken from its forward RM cells as
//! `min(CCR, ER)`: what the source sends now, or less if an upstream switch already lowered
//! ER. The port's *advertised rate* μ is the water level of the recorded rates over the
//! capacity C: with the rates sorted, r_(1) ≤ … ≤ r_(N), μ is the first
//! (C − Σ_{i<k} r_(i)) / (N − k + 1) that r_(k) reaches, and the last VC gets whatever is left,
//! so μ = C − Σ_{i<N} r_(i) when every VC runs below its equal share. VCs below μ are
//! restricted elsewhere (or still ramping up); the rest share what they leave. Every backward
//! RM cell of a VC on the port gets ER = min(ER, μ) (not below its MCR).
//!
//! Why `min(CCR, ER)` and not ER alone, as the digest's sketch has it (decision recorded in
//! the module docs of [`super`]): the forward ER only knows the switches *upstream*; a VC
//! held back further down the path would keep a full share here that nobody uses. The CCR
//! is the source's rate, which settles at the tightest restriction on its whole path; this
//! is the classic fixed point of Charny, Clark & Jain (1995), which KVR refine. At that fixed
//! point every VC runs at min over its path of the ports' μ — the max-min fair allocation.
//! (With ER alone, the tests `a_vc_restricted_elsewhere_…` and
//! `rates_converge_to_max_min_as_rm_cells_circulate` fail: the capped VC's unused share is
//! never handed on.)
//!
//! During start-up the sum of the rates can exceed C for a few round trips (a source
//! ramping from ICR is recorded at its CCR, so the others are told to take the rest); KVR's
//! scheme is reported to overload links transiently too. Nothing here limits the overshoot:
//! the study's switches have large buffers (digest A19).
//!
//! **Cost.** The recorded rates are kept sorted. A forward RM cell re-inserts one VC and
//! recomputes μ: O(N) for N VCs on the port. A backward RM cell reads μ: O(1). The studies
//! have at most a dozen VCs per port.

use super::{RmCell, VcSlot};
use crate::error::{Error, Result};

/// Max-min fair shares of `capacity` among VCs asking for `demands` (same unit; a demand
/// may be `f64::INFINITY`): each VC gets min(demand, level), with the level as high as the
/// capacity allows — the water-filling definition, used as the reference in tests.
pub fn max_min_shares(capacity: f64, demands: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..demands.len()).collect();
    order.sort_by(|&a, &b| demands[a].total_cmp(&demands[b]));
    let mut rest = capacity;
    let mut level = f64::INFINITY;
    for (k, &v) in order.iter().enumerate() {
        let share = rest / (order.len() - k) as f64;
        if demands[v] >= share {
            level = share;
            break;
        }
        rest -= demands[v];
    }
    demands.iter().map(|&d| d.min(level)).collect()
}

/// The advertised rate μ of `capacity` over recorded rates given in ascending order (module
/// docs, "The allocation"): the first (C − Σ_{i<k} r_(i)) / (N − k + 1) that r_(k) reaches,
/// else what the other VCs leave to the last; `capacity` when there are none. Never below
/// C / N.
pub fn advertised_rate(capacity: f64, ascending: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = ascending.len();
    let mut rest = capacity;
    for (k, r) in ascending.enumerate().take(n.saturating_sub(1)) {
        let share = rest / (n - k) as f64;
        if r >= share {
            return share;
        }
        rest -= r;
    }
    rest
}

/// One output port's max-min explicit-rate allocator.
#[derive(Clone, Debug)]
pub struct MaxMinPort {
    /// ABR capacity C \[cells/s\].
    capacity: f64,
    /// Recorded rate per VC slot \[cells/s\]; meaningful while the VC is in `order`.
    rate: Vec<f64>,
    /// Whether each slot has sent its first forward RM cell and not been removed.
    present: Vec<bool>,
    /// Present slots sorted by (recorded rate, slot).
    order: Vec<u32>,
    /// μ \[cells/s\].
    advertised: f64,
}

impl MaxMinPort {
    /// A port of ABR capacity `capacity_cells_s`; `at` names the field in errors.
    pub fn new(capacity_cells_s: f64, at: &str) -> Result<Self> {
        if !(capacity_cells_s.is_finite() && capacity_cells_s > 0.0) {
            let msg = format!("expected an ABR capacity > 0 cells/s, got {capacity_cells_s}");
            return Err(Error::invalid(at, msg));
        }
        Ok(MaxMinPort {
            capacity: capacity_cells_s,
            rate: Vec::new(),
            present: Vec::new(),
            order: Vec::new(),
            advertised: capacity_cells_s,
        })
    }

    /// Register a VC that will use this port; it counts from its first forward RM cell.
    pub fn add_vc(&mut self) -> VcSlot {
        self.rate.push(0.0);
        self.present.push(false);
        VcSlot(self.rate.len() as u32 - 1)
    }

    /// The VC left the port (released): its share returns to the others.
    pub fn remove_vc(&mut self, vc: VcSlot) {
        if std::mem::take(&mut self.present[vc.idx()]) {
            self.unlink(vc);
            self.advertised = self.water_level();
        }
    }

    pub fn capacity(&self) -> f64 {
        self.capacity
    }
    /// μ \[cells/s\]: the ER this port writes into backward RM cells.
    pub fn advertised_rate(&self) -> f64 {
        self.advertised
    }
    /// VCs counted in the allocation.
    pub fn active_vcs(&self) -> usize {
        self.order.len()
    }
    /// The rate this port allocates to `vc`: min(recorded rate, μ); 0 before its first
    /// forward RM cell.
    pub fn allocation(&self, vc: VcSlot) -> f64 {
        if self.present[vc.idx()] {
            self.rate[vc.idx()].min(self.advertised)
        } else {
            0.0
        }
    }

    /// A forward RM cell of `vc` leaves by this port: record min(CCR, ER) and recompute μ.
    pub fn on_forward_rm(&mut self, vc: VcSlot, rm: &RmCell) {
        let i = vc.idx();
        if std::mem::replace(&mut self.present[i], true) {
            self.unlink(vc);
        }
        self.rate[i] = rm.ccr.min(rm.er).max(0.0);
        let key = (self.rate[i], vc.0);
        let at = self.order.partition_point(|&s| (self.rate[s as usize], s) < key);
        self.order.insert(at, vc.0);
        self.advertised = self.water_level();
    }

    /// A backward RM cell of a VC whose data leave by this port: ER = min(ER, μ).
    pub fn on_backward_rm(&self, rm: &mut RmCell) {
        *rm = rm.with_er_at_most(self.advertised);
    }

    fn unlink(&mut self, vc: VcSlot) {
        if let Some(at) = self.order.iter().position(|&s| s == vc.0) {
            self.order.remove(at);
        }
    }

    /// μ over the sorted recorded rates (module docs); C when no VC is present.
    fn water_level(&self) -> f64 {
        advertised_rate(self.capacity, self.order.iter().map(|&s| self.rate[s as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::params::{AbrParams, OC3C_CELLS_S};
    use crate::abr::source::AbrSource;
    use crate::abr::Direction;
    use proptest::prelude::*;

    const C: f64 = OC3C_CELLS_S;

    fn frm(ccr: f64, er: f64) -> RmCell {
        RmCell { dir: Direction::Forward, bn: false, ci: false, ni: false, er, ccr, mcr: 0.0, out_of_rate: false }
    }

    fn er_after(port: &MaxMinPort, er: f64) -> f64 {
        let mut b = RmCell { dir: Direction::Backward, ..frm(0.0, er) };
        port.on_backward_rm(&mut b);
        b.er
    }

    #[test]
    fn one_vc_gets_the_whole_port() {
        let mut port = MaxMinPort::new(C, "port").unwrap();
        let v = port.add_vc();
        assert_eq!(port.advertised_rate(), C);
        port.on_forward_rm(v, &frm(C / 50.0, C));
        assert_eq!(er_after(&port, C), C, "a lone VC may take everything, even while it ramps");
        assert_eq!(port.allocation(v), C / 50.0);
    }

    #[test]
    fn three_greedy_vcs_get_a_third_each() {
        let mut port = MaxMinPort::new(C, "port").unwrap();
        let vs: Vec<VcSlot> = (0..3).map(|_| port.add_vc()).collect();
        for &v in &vs {
            port.on_forward_rm(v, &frm(C, C));
        }
        assert_eq!(port.advertised_rate(), C / 3.0);
        assert_eq!(er_after(&port, C), C / 3.0);
        // 51.6 Mb/s of the study's §5.5 is a third of 155 Mb/s.
        assert!((port.advertised_rate() * 424.0 / 1e6 - 49.92).abs() < 0.01);
    }

    #[test]
    fn a_vc_restricted_elsewhere_keeps_its_rate_and_the_rest_share_the_remainder() {
        let mut port = MaxMinPort::new(C, "port").unwrap();
        let vs: Vec<VcSlot> = (0..3).map(|_| port.add_vc()).collect();
        port.on_forward_rm(vs[0], &frm(0.1 * C, C));
        port.on_forward_rm(vs[1], &frm(C, C));
        port.on_forward_rm(vs[2], &frm(C, 0.9 * C)); // upstream switch lowered ER: min(CCR, ER)
        assert!((port.advertised_rate() - 0.45 * C).abs() < 1e-6);
        assert_eq!(port.allocation(vs[0]), 0.1 * C);
        // The restricted VC leaves: the two others share everything.
        port.remove_vc(vs[0]);
        assert_eq!(port.advertised_rate(), C / 2.0);
        assert_eq!(port.active_vcs(), 2);
        // ER is never raised and never lowered below MCR.
        assert_eq!(er_after(&port, 10.0), 10.0);
        let mut b = RmCell { dir: Direction::Backward, mcr: 0.6 * C, ..frm(0.0, C) };
        port.on_backward_rm(&mut b);
        assert_eq!(b.er, 0.6 * C);
    }

    #[test]
    fn bad_capacity_is_refused_with_the_field_named() {
        let e = MaxMinPort::new(0.0, "switch[1].port[2].abr_capacity").unwrap_err();
        assert_eq!(e.field, "switch[1].port[2].abr_capacity");
        assert!(e.message.contains("> 0"));
    }

    /// TM 4.0 sources on one port, each capped by `caps` further down its path; RM cells
    /// circulate with no delay, one per source per round, in a fixed order.
    fn circulate(caps: &[f64], rounds: usize) -> Vec<f64> {
        let mut port = MaxMinPort::new(C, "port").unwrap();
        let mut srcs: Vec<(VcSlot, AbrSource)> =
            caps.iter().map(|_| (port.add_vc(), AbrSource::new(AbrParams::kalampoukas97(C)))).collect();
        for _ in 0..rounds {
            for ((v, s), &cap) in srcs.iter_mut().zip(caps) {
                let f = frm(s.acr(), C);
                port.on_forward_rm(*v, &f);
                let mut b = RmCell { dir: Direction::Backward, ..f };
                port.on_backward_rm(&mut b);
                b = b.with_er_at_most(cap);
                s.on_backward_rm(&b);
            }
        }
        srcs.iter().map(|(_, s)| s.acr()).collect()
    }

    #[test]
    fn rates_converge_to_max_min_as_rm_cells_circulate() {
        let inf = f64::INFINITY;
        for caps in [vec![inf], vec![inf; 3], vec![0.1 * C, inf, inf], vec![0.2 * C, 0.3 * C, inf, inf]] {
            let got = circulate(&caps, 200);
            let want = max_min_shares(C, &caps.iter().map(|&c| c.min(C)).collect::<Vec<_>>());
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-6 * C, "caps {caps:?}: got {got:?}, want {want:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn water_filling_is_max_min(cap in 1.0f64..1e6, raw in proptest::collection::vec(0.0f64..2.0, 1..12)) {
            // Demands as fractions of the capacity; above 1.5 stands for "unconstrained".
            let demands: Vec<f64> = raw.iter().map(|&d| if d > 1.5 { f64::INFINITY } else { d * cap }).collect();
            let s = max_min_shares(cap, &demands);
            let sum: f64 = s.iter().sum();
            prop_assert!(sum <= cap * (1.0 + 1e-9));
            let top = s.iter().cloned().fold(0.0, f64::max);
            for (x, d) in s.iter().zip(&demands) {
                prop_assert!(*x <= *d);
                // Bottleneck property: a VC below its demand has the largest share, and the
                // port is full.
                if *x < *d {
                    prop_assert!((*x - top).abs() <= 1e-9 * cap);
                    prop_assert!((sum - cap).abs() <= 1e-9 * cap);
                }
            }
        }

        #[test]
        fn the_port_reaches_the_water_filling_shares(raw in proptest::collection::vec(0.0f64..2.0, 1..10)) {
            let caps: Vec<f64> = raw.iter().map(|&d| if d > 1.5 { f64::INFINITY } else { d * C }).collect();
            let got = circulate(&caps, 300);
            let want = max_min_shares(C, &caps.iter().map(|&c| c.min(C)).collect::<Vec<_>>());
            let sum: f64 = got.iter().sum();
            prop_assert!(sum <= C * (1.0 + 1e-9));
            for (g, w) in got.iter().zip(&want) {
                prop_assert!((g - w).abs() < 1e-6 * C, "got {:?} want {:?}", got, want);
            }
        }
    }
}
