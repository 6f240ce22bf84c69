//! ERICA — Explicit Rate Indication for Congestion Avoidance — at one switch output port.
//!
//! Owns: [`EricaConfig`] and [`EricaPort`].
//!
//! # The variant
//!
//! Source: R. Jain, S. Kalyanaraman, R. Goyal, S. Fahmy, R. Viswanathan, "ERICA Switch
//! Algorithm: A Complete Description", ATM Forum contribution 96-1172, August 1996, §3 (the
//! basic algorithm), checked against the authors' later ERICA+ summary (ATM Forum 98-0408,
//! arXiv cs/9809040), whose per-interval and per-RM-cell steps are the same. We implement the
//! basic algorithm with **one change: the fair-share term is the max-min water level of the
//! active VCs' CCRs over the target capacity**, not the target capacity divided by the number
//! of active VCs. That water level is the fair share of the "precise fairness computation"
//! option of the same authors' earlier OSU scheme (S. Kalyanaraman, *Traffic Management for
//! the Available Bit Rate (ABR) Service in ATM Networks*, PhD thesis, Ohio State University,
//! 1997, the OSU-scheme pseudo-code: the target rate less what the VCs below the fair share
//! use, over the others, iterated twice; we compute it exactly) and the advertised rate of
//! Charny, Clark & Jain (1995) that [`super::maxmin`] computes; both use [`advertised_rate`].
//! We leave out 96-1172's other refinements (averaging of the number of active VCs and of the
//! load, per-VC CCR measurement, the max-allocation-previous term, ERICA+'s queue-driven
//! target).
//!
//! **Why the change.** With fair share = U·C / N the basic algorithm has a continuum of fixed
//! points wherever a port carries a VC held below U·C / N elsewhere: every allocation with
//! load factor 1 in which each VC's rate is at least U·C / N is left as it is (VC share =
//! CCR / 1 = CCR), so measurement noise moves the rates along that line and nothing pulls them
//! back to max-min. On a two-switch parking lot whose last port carries a VC held at 20 Mb/s
//! beside two greedy VCs (max-min 61.1 Mb/s each at U = 0.95), U·C / N lets the greedy VCs
//! range from U·C / 3 = 47.4 to 87.8 Mb/s (measured: docs/scenario.md, "ERICA on parking
//! lots"). The water level is the max-min share itself, so the only allocation it leaves alone
//! at z = 1 is the max-min one. It is never below U·C / N, and equals it when no active VC's
//! CCR is below U·C / N — at a loaded port whose VCs share alike the two give the same ER.
//! The authors' own remedy, the max-allocation-previous term of 96-1172 ("achieving max-min
//! fairness"), grants every VC the largest allocation of the previous interval whenever
//! z ≤ 1 + δ; it equalises the rates but makes every load in (1, 1 + δ] a fixed point
//! (δ = 0.1 in the paper), up to 1.1 · 0.95 = 1.045 of the link at our default U: on the same
//! lot it holds both greedy VCs at 64.8 Mb/s and the link at utilisation 1.0 instead of 0.95.
//!
//! # The algorithm
//!
//! - **Per averaging interval** of length T, the port counts the ABR cells it forwards and
//!   the VCs that sent at least one of them. At the end of the interval:
//!   target capacity = U · C (U the target utilisation),
//!   input rate = cells / T, load factor z = input rate / target capacity,
//!   fair share = the water level of the CCRs of the VCs active in the interval over the
//!   target capacity ([`advertised_rate`]: with the CCRs sorted, the first
//!   (U·C − Σ_{i<k} r_(i)) / (N − k + 1) that r_(k) reaches, else what the others leave to
//!   the largest).
//! - **On a forward RM cell** the port records the VC's CCR.
//! - **On a backward RM cell**: VC share = CCR / z; ER = min(max(fair share, VC share),
//!   target capacity); the cell's ER becomes min(ER, that) (not below its MCR).
//!
//! The fair share lets a VC below it rise to it; the VC share moves the whole port to the
//! target load: under overload (z > 1) every VC above its fair share is told to divide its
//! rate by z, under underload to multiply it. Unlike [`super::MaxMinPort`] the port reacts to
//! what it *measures*, so a source that idles is seen as not using its share; the study's
//! sources idle a third of the time, which is why its reproduction uses the max-min port
//! (digest A14). ERICA is here as the widely used alternative the issue asks for.
//!
//! **Start and idle intervals.** Until the first interval closes, and after an interval with
//! no cells, z = 0 and no VC counts as active: the fair share is the whole target capacity
//! and the VC share unbounded, so ER = U · C.
//!
//! **Cost.** O(1) per cell and per RM cell; O(N log N) per interval for N VCs on the port (the
//! water level sorts the active VCs' CCRs). The interval closes lazily on the first input at
//! or after its end (sans-I/O: no timer is needed).

use super::maxmin::advertised_rate;
use super::{RmCell, VcSlot};
use crate::error::{Error, Result};
use crate::time::{SimDuration, SimTime};

/// ERICA's parameters for one port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EricaConfig {
    /// Link capacity available to ABR, C \[cells/s\].
    pub capacity_cells_s: f64,
    /// Target utilisation U, a fraction in (0, 1]. Default 0.95 (our choice; 96-1172 §4
    /// discusses the trade-off between utilisation and queueing).
    pub target_utilisation: f64,
    /// Averaging interval T. Default 1 ms (our choice: ≈ 350 cells at the OC-3c rate).
    pub interval: SimDuration,
}

impl EricaConfig {
    /// The defaults above for a port of capacity `capacity_cells_s`.
    pub fn new(capacity_cells_s: f64) -> Self {
        EricaConfig { capacity_cells_s, target_utilisation: 0.95, interval: SimDuration::from_millis(1) }
    }

    /// Check every field; `at` is the dotted path of this configuration in the scenario.
    pub fn validate(&self, at: &str) -> Result<()> {
        let field = |name: &str| if at.is_empty() { name.to_string() } else { format!("{at}.{name}") };
        let c = self.capacity_cells_s;
        if !(c.is_finite() && c > 0.0) {
            return Err(Error::invalid(field("capacity_cells_s"), format!("expected a rate > 0 cells/s, got {c}")));
        }
        let u = self.target_utilisation;
        if !(u.is_finite() && u > 0.0 && u <= 1.0) {
            return Err(Error::invalid(field("target_utilisation"), format!("expected a fraction in (0, 1], got {u}")));
        }
        if self.interval == SimDuration::ZERO {
            return Err(Error::invalid(field("interval"), "expected an averaging interval > 0, got 0"));
        }
        Ok(())
    }

    fn target(&self) -> f64 {
        self.capacity_cells_s * self.target_utilisation
    }
}

/// One output port running ERICA.
#[derive(Clone, Debug)]
pub struct EricaPort {
    cfg: EricaConfig,
    /// Start of the current interval and its number.
    start: SimTime,
    index: u64,
    /// Cells counted in the current interval.
    cells: u64,
    /// Per VC: 1 + the number of the interval it was last active in (0 = never).
    seen: Vec<u64>,
    /// Per VC: the CCR of its last forward RM cell \[cells/s\].
    ccr: Vec<f64>,
    /// Load factor and fair share from the last closed interval.
    z: f64,
    fair_share: f64,
    /// Scratch: the CCRs of the VCs active in the interval being closed, sorted (kept so that
    /// closing an interval allocates nothing).
    active_ccrs: Vec<f64>,
}

impl EricaPort {
    /// A port whose first averaging interval starts at time zero.
    pub fn new(cfg: EricaConfig, at: &str) -> Result<Self> {
        cfg.validate(at)?;
        Ok(EricaPort {
            cfg,
            start: SimTime::ZERO,
            index: 0,
            cells: 0,
            seen: Vec::new(),
            ccr: Vec::new(),
            z: 0.0,
            fair_share: cfg.target(),
            active_ccrs: Vec::new(),
        })
    }

    /// Register a VC that will use this port.
    pub fn add_vc(&mut self) -> VcSlot {
        self.seen.push(0);
        self.ccr.push(0.0);
        VcSlot(self.ccr.len() as u32 - 1)
    }

    pub fn config(&self) -> &EricaConfig {
        &self.cfg
    }
    /// z of the last closed interval.
    pub fn load_factor(&self) -> f64 {
        self.z
    }
    /// The fair share of the last closed interval \[cells/s\].
    pub fn fair_share(&self) -> f64 {
        self.fair_share
    }

    /// Close the interval(s) that ended at or before `now`.
    fn roll(&mut self, now: SimTime) {
        let t = self.cfg.interval.as_ps();
        let elapsed = now.since(self.start).as_ps();
        if elapsed < t {
            return;
        }
        let target = self.cfg.target();
        let cells = if elapsed < 2 * t { self.cells } else { 0 };
        self.z = cells as f64 / self.cfg.interval.as_secs_f64() / target;
        self.fair_share = if cells == 0 { target } else { self.water_level() };
        let k = elapsed / t;
        self.start += SimDuration::from_ps(k * t);
        self.index += k;
        self.cells = 0;
    }

    /// The fair share of the interval being closed: the water level of its active VCs' CCRs
    /// over the target capacity (module docs).
    fn water_level(&mut self) -> f64 {
        let mark = self.index + 1;
        self.active_ccrs.clear();
        let active = self.seen.iter().zip(&self.ccr).filter(|&(&seen, _)| seen == mark);
        self.active_ccrs.extend(active.map(|(_, &ccr)| ccr));
        self.active_ccrs.sort_by(f64::total_cmp);
        advertised_rate(self.cfg.target(), self.active_ccrs.iter().copied())
    }

    /// An ABR cell of `vc` (data or RM) is forwarded by this port at `now`.
    pub fn on_cell(&mut self, now: SimTime, vc: VcSlot) {
        self.roll(now);
        self.cells += 1;
        self.seen[vc.idx()] = self.index + 1;
    }

    /// A forward RM cell of `vc` passes at `now`: record its CCR. (Count the cell itself
    /// with [`Self::on_cell`] too.)
    pub fn on_forward_rm(&mut self, now: SimTime, vc: VcSlot, rm: &RmCell) {
        self.roll(now);
        self.ccr[vc.idx()] = rm.ccr;
    }

    /// The rate this port would grant `vc` now: min(max(fair share, CCR/z), U·C).
    pub fn explicit_rate(&self, vc: VcSlot) -> f64 {
        let vc_share = if self.z > 0.0 { self.ccr[vc.idx()] / self.z } else { f64::INFINITY };
        self.fair_share.max(vc_share).min(self.cfg.target())
    }

    /// A backward RM cell of `vc` (whose data leave by this port) passes at `now`: lower its
    /// ER to [`Self::explicit_rate`].
    pub fn on_backward_rm(&mut self, now: SimTime, vc: VcSlot, rm: &mut RmCell) {
        self.roll(now);
        *rm = rm.with_er_at_most(self.explicit_rate(vc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::Direction;

    const C: f64 = 100_000.0; // 1000 cells per 10 ms interval at full rate

    fn port(u: f64) -> EricaPort {
        let cfg = EricaConfig { capacity_cells_s: C, target_utilisation: u, interval: SimDuration::from_millis(10) };
        EricaPort::new(cfg, "port").unwrap()
    }

    fn rm(dir: Direction, ccr: f64) -> RmCell {
        RmCell { dir, bn: false, ci: false, ni: false, er: 1e9, ccr, mcr: 0.0, out_of_rate: false }
    }

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    /// One interval in which VC i sends `cells[i]` cells and declares CCR `ccrs[i]`.
    fn load(p: &mut EricaPort, start_ms: u64, vcs: &[VcSlot], ccrs: &[f64], cells: &[u64]) {
        for ((&v, &ccr), &n) in vcs.iter().zip(ccrs).zip(cells) {
            p.on_forward_rm(ms(start_ms + 1), v, &rm(Direction::Forward, ccr));
            for _ in 0..n {
                p.on_cell(ms(start_ms + 2), v);
            }
        }
    }

    fn er(p: &mut EricaPort, now: SimTime, v: VcSlot) -> f64 {
        let mut b = rm(Direction::Backward, 0.0);
        p.on_backward_rm(now, v, &mut b);
        b.er
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * C
    }

    #[test]
    fn fair_share_is_the_water_level_of_the_active_vcs_ccrs() {
        let mut p = port(0.9);
        let vs: Vec<VcSlot> = (0..5).map(|_| p.add_vc()).collect();
        assert_eq!(er(&mut p, ms(0), vs[0]), 0.9 * C, "before any measurement: U·C");
        // Four of five VCs send at their CCRs, the fifth is silent. CCRs 0.1, 0.2, 0.5 and
        // 0.6 C: the two slow ones sit below U·C/4 = 0.225 C, and the two others share what
        // they leave, (0.9 − 0.1 − 0.2)/2 = 0.3 C (U·C/4 would leave 0.3 C unused).
        load(&mut p, 0, &vs[..4], &[0.1 * C, 0.2 * C, 0.5 * C, 0.6 * C], &[100, 200, 500, 600]);
        let e = er(&mut p, ms(10), vs[0]);
        assert!(close(p.fair_share(), 0.3 * C), "{}", p.fair_share());
        assert!((p.load_factor() - 1400.0 / 0.01 / (0.9 * C)).abs() < 1e-12);
        // Slow VCs (CCR/z below the fair share) are offered the fair share; so is the silent one.
        assert_eq!(e, p.fair_share());
        assert_eq!(er(&mut p, ms(10), vs[4]), p.fair_share());
        // Equal CCRs above U·C/N: the water level is U·C/N.
        load(&mut p, 10, &vs[..4], &[0.5 * C; 4], &[10; 4]);
        er(&mut p, ms(20), vs[0]);
        assert!(close(p.fair_share(), 0.9 * C / 4.0), "{}", p.fair_share());
    }

    #[test]
    fn overload_divides_the_rates_by_the_load_factor() {
        let mut p = port(1.0);
        let vs: Vec<VcSlot> = (0..2).map(|_| p.add_vc()).collect();
        // 900 + 300 cells in 10 ms = 1.2 C: z = 1.2.
        load(&mut p, 0, &vs, &[0.9 * C, 0.3 * C], &[900, 300]);
        let e0 = er(&mut p, ms(10), vs[0]);
        assert!((p.load_factor() - 1.2).abs() < 1e-12);
        assert!((e0 - 0.9 * C / 1.2).abs() < 1e-9, "VC share = CCR/z: {e0}");
        assert!(close(er(&mut p, ms(10), vs[1]), 0.7 * C), "the small VC may rise to what the other leaves");
        // Both obey: the next interval carries 0.75 C + 0.7 C = 1.45 C; the big VC is cut again,
        // the small one to the water level C/2.
        load(&mut p, 10, &vs, &[0.75 * C, 0.7 * C], &[750, 700]);
        let e0 = er(&mut p, ms(20), vs[0]);
        assert!((e0 - 0.75 * C / 1.45).abs() < 1e-9);
        assert!(close(er(&mut p, ms(20), vs[1]), 0.5 * C));
    }

    /// The allocation that left basic ERICA (fair share U·C/N) in place: load factor 1, every
    /// VC at or above U·C/3, but not max-min. The water level moves it.
    #[test]
    fn a_vc_restricted_elsewhere_leaves_its_share_to_the_others() {
        let mut p = port(0.95);
        let vs: Vec<VcSlot> = (0..3).map(|_| p.add_vc()).collect();
        // 0.2 C (held elsewhere) + 0.3 C + 0.45 C = 0.95 C: z = 1.
        load(&mut p, 0, &vs, &[0.2 * C, 0.3 * C, 0.45 * C], &[200, 300, 450]);
        assert!(close(er(&mut p, ms(10), vs[1]), 0.45 * C), "the lower greedy VC may rise to the higher");
        assert!((p.load_factor() - 1.0).abs() < 1e-12);
        assert!(close(er(&mut p, ms(10), vs[2]), 0.45 * C));
        // It does: 1.1 C. Both greedy VCs are now above the max-min share (0.95 − 0.2)/2 =
        // 0.375 C, the fair share; the load factor cuts them towards it.
        load(&mut p, 10, &vs, &[0.2 * C, 0.45 * C, 0.45 * C], &[200, 450, 450]);
        let e = er(&mut p, ms(20), vs[1]);
        assert!(close(p.fair_share(), 0.375 * C), "{}", p.fair_share());
        assert!(close(e, 0.45 * C / (1.1 / 0.95)), "{e}");
        // At the max-min allocation nothing moves.
        load(&mut p, 20, &vs, &[0.2 * C, 0.375 * C, 0.375 * C], &[200, 375, 375]);
        for (v, want) in vs.iter().zip([0.375, 0.375, 0.375]) {
            assert!(close(er(&mut p, ms(30), *v), want * C));
        }
    }

    #[test]
    fn underload_raises_a_vc_up_to_the_target() {
        let mut p = port(0.95);
        let v = p.add_vc();
        load(&mut p, 0, &[v], &[0.5 * C], &[500]);
        // z = 0.5/0.95: VC share 0.95 C — capped at U·C.
        assert!((er(&mut p, ms(10), v) - 0.95 * C).abs() < 1e-9);
        // An ER already lower in the cell is kept.
        let mut b = RmCell { er: 0.2 * C, ..rm(Direction::Backward, 0.0) };
        p.on_backward_rm(ms(10), v, &mut b);
        assert_eq!(b.er, 0.2 * C);
    }

    #[test]
    fn an_idle_interval_resets_the_measurement() {
        let mut p = port(1.0);
        let v = p.add_vc();
        load(&mut p, 0, &[v], &[2.0 * C], &[2000]);
        er(&mut p, ms(10), v);
        assert!((p.load_factor() - 2.0).abs() < 1e-12);
        // Nothing in [10, 20) ms, then a backward RM cell at 35 ms.
        assert_eq!(er(&mut p, ms(35), v), C);
        assert_eq!(p.load_factor(), 0.0);
        assert_eq!(p.fair_share(), C);
    }

    #[test]
    fn bad_configuration_names_the_field() {
        let ok = EricaConfig::new(C);
        assert_eq!(ok.validate("p"), Ok(()));
        let e = EricaConfig { target_utilisation: 1.2, ..ok }.validate("sw[0].erica").unwrap_err();
        assert_eq!(e.field, "sw[0].erica.target_utilisation");
        let e = EricaConfig { interval: SimDuration::ZERO, ..ok }.validate("").unwrap_err();
        assert_eq!(e.field, "interval");
        let e = EricaPort::new(EricaConfig { capacity_cells_s: -1.0, ..ok }, "x").unwrap_err();
        assert_eq!(e.field, "x.capacity_cells_s");
    }
}
