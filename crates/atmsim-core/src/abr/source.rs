//! The ABR source end system (TM 4.0 §5.10.4), sans-I/O.
//!
//! Owns: [`AbrSource`] — the allowed cell rate (ACR) of one VC direction and the schedule of
//! its in-rate cells — with what it returns ([`Slot`], [`SlotKind`], [`Emitted`]) and its
//! counters ([`SourceStats`]).
//!
//! # The rules, as implemented
//!
//! Rule numbers are those of TM 4.0 §5.10.4.
//!
//! - **Rule 1.** MCR ≤ ACR ≤ PCR always; in-rate cells leave at least 1/ACR apart (the
//!   spacing is rounded *up* to the picosecond, so a VC never runs faster than its ACR).
//! - **Rule 2.** ACR starts at ICR ([`AbrParams::effective_icr`]); the first in-rate cell is
//!   a forward RM cell.
//! - **Rule 3.** At each transmission opportunity, in order: (a) a forward RM cell if Nrm − 1
//!   in-rate cells have gone since the last one, or Mrm of them and at least Trm of time;
//!   (b) else a waiting backward RM cell (turned around for the reverse direction) if no
//!   backward RM cell has gone since the last forward one, or no data is waiting; (c) else a
//!   data cell, if one is waiting.
//! - **Rule 5.** Before a forward RM cell: if ACR > ICR and more than ADTF has passed since
//!   the previous forward RM cell, ACR falls to ICR (use-it-or-lose-it).
//! - **Rule 6.** Then, if CRM forward RM cells have gone since the last backward RM cell with
//!   BN = 0 came home, ACR −= ACR·CDF (not below MCR). The forward RM cell carries the ACR
//!   after rules 5 and 6 as its CCR, and the spacing to the next cell uses it.
//! - **Rules 8–9.** On a backward RM cell: CI = 1 → ACR −= ACR·RDF; else NI = 0 →
//!   ACR += RIF·PCR; then ACR = max(min(ACR, ER, PCR), MCR). A cell with BN = 0 resets
//!   rule 6's count.
//!
//! **Decision (rule 11, simplified).** When ACR has fallen below TCR (10 cells/s by default;
//! only possible with MCR = 0 after repeated cuts, or ER = 0), the source sends nothing but
//! out-of-rate forward RM cells, at most one per 1/TCR, so that feedback can raise ACR again.
//! TM 4.0 would let in-rate cells continue at the tiny ACR as well; at under 4 kb/s the
//! difference does not matter, and this keeps an ER of 0 from stalling a VC for ever.
//!
//! Not implemented (not needed by the studies): rule 4 (CLP of cells), rule 7's
//! "before sending" subtleties beyond the order above, rules 10–13 on CCR/MCR fields of
//! switch-generated cells and source-generated backward cells.
//!
//! # How the caller drives it
//!
//! Whenever the VC's transmitter is free and something may be sent, call
//! [`AbrSource::transmit`] with the current time and whether a data cell is waiting. It
//! returns what goes out and when (`at ≥ now`); the caller puts that cell on the line at `at`
//! and calls again after it. [`AbrSource::peek`] answers the same question without changing
//! anything. Backward RM cells from the network go to [`AbrSource::on_backward_rm`]; forward
//! RM cells this node's destination turned around for the *reverse* direction go to
//! [`AbrSource::queue_backward_rm`].

use super::params::AbrParams;
use super::{Direction, RmCell};
use crate::time::{SimDuration, SimTime, PS_PER_SEC};

/// What the next cell of the VC will be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// An in-rate forward RM cell (rule 3a, or the first cell, rule 2).
    ForwardRm,
    /// A turned-around backward RM cell of the reverse direction (rule 3b).
    BackwardRm,
    /// A data cell (rule 3c).
    Data,
    /// An out-of-rate forward RM cell (ACR below TCR; module docs).
    OutOfRateRm,
}

/// The next cell and the earliest instant it may leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub at: SimTime,
    pub kind: SlotKind,
}

/// A cell the source has committed to send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Emitted {
    /// Send this forward RM cell (in rate, or out of rate if `out_of_rate` is set).
    ForwardRm(RmCell),
    /// Send this backward RM cell (for the reverse direction of the VC).
    BackwardRm(RmCell),
    /// Send the waiting data cell.
    Data,
}

/// Counters of one source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceStats {
    pub data_cells: u64,
    pub forward_rm: u64,
    pub out_of_rate_rm: u64,
    pub backward_rm_sent: u64,
    /// Turned-around cells replaced by a newer one before they could be sent.
    pub backward_rm_overwritten: u64,
    pub backward_rm_received: u64,
    /// Times rule 5 (ADTF) set ACR back to ICR.
    pub adtf_resets: u64,
    /// Times rule 6 (CRM) cut ACR by CDF.
    pub crm_cuts: u64,
}

/// The source end system of one ABR VC direction.
#[derive(Clone, Debug)]
pub struct AbrSource {
    p: AbrParams,
    crm: u64,
    icr: f64,
    /// ACR \[cells/s\].
    acr: f64,
    /// Departure of the last in-rate cell (`None` before the first).
    last_in_rate: Option<SimTime>,
    /// Departure of the last in-rate forward RM cell.
    last_frm: SimTime,
    /// In-rate cells sent since the last in-rate forward RM cell.
    since_frm: u32,
    /// An in-rate backward RM cell has gone since the last forward RM cell.
    brm_since_frm: bool,
    /// In-rate forward RM cells sent since the last backward RM cell with BN = 0.
    unanswered: u64,
    /// A turned-around RM cell waiting for an in-rate slot.
    pending_brm: Option<RmCell>,
    last_out_of_rate: Option<SimTime>,
    stats: SourceStats,
}

/// 1/rate as a span, rounded up to the picosecond (never faster than `rate`).
fn spacing(rate_cells_s: f64) -> SimDuration {
    SimDuration::from_secs_f64(((PS_PER_SEC as f64 / rate_cells_s).ceil()) / PS_PER_SEC as f64)
}

impl AbrSource {
    /// A source at ICR, about to send its first forward RM cell. `params` must have passed
    /// [`AbrParams::validate`].
    pub fn new(params: AbrParams) -> Self {
        let icr = params.effective_icr();
        AbrSource {
            p: params,
            crm: params.crm(),
            icr,
            acr: icr,
            last_in_rate: None,
            last_frm: SimTime::ZERO,
            since_frm: 0,
            brm_since_frm: false,
            unanswered: 0,
            pending_brm: None,
            last_out_of_rate: None,
            stats: SourceStats::default(),
        }
    }

    pub fn params(&self) -> &AbrParams {
        &self.p
    }
    /// The allowed cell rate \[cells/s\].
    pub fn acr(&self) -> f64 {
        self.acr
    }
    pub fn stats(&self) -> SourceStats {
        self.stats
    }

    /// Earliest departure of the next in-rate cell (1/ACR after the previous one).
    pub fn earliest_in_rate(&self) -> SimTime {
        match self.last_in_rate {
            None => SimTime::ZERO,
            Some(t) => t + spacing(self.acr),
        }
    }

    /// Rule 3a: is a forward RM cell due at `at`?
    fn frm_due(&self, at: SimTime) -> bool {
        self.last_in_rate.is_none()
            || self.since_frm + 1 >= self.p.nrm
            || (self.since_frm >= self.p.mrm && at.since(self.last_frm) >= self.p.trm)
    }

    /// What [`Self::transmit`] would send if called at `now` with `data_waiting`, and when;
    /// `None` if there is nothing to send. Changes nothing.
    pub fn peek(&self, now: SimTime, data_waiting: bool) -> Option<Slot> {
        if !data_waiting && self.pending_brm.is_none() {
            return None;
        }
        if self.acr < self.p.tcr_cells_s {
            let at = match self.last_out_of_rate {
                Some(t) => now.max(t + spacing(self.p.tcr_cells_s)),
                None => now,
            };
            return Some(Slot { at, kind: SlotKind::OutOfRateRm });
        }
        let at = now.max(self.earliest_in_rate());
        let kind = if self.frm_due(at) {
            SlotKind::ForwardRm
        } else if self.pending_brm.is_some() && (!self.brm_since_frm || !data_waiting) {
            SlotKind::BackwardRm
        } else {
            SlotKind::Data
        };
        Some(Slot { at, kind })
    }

    /// Commit the next cell: returns when it leaves (`at ≥ now`) and what it is, and updates
    /// the source as if it left then; `None` if there is nothing to send.
    pub fn transmit(&mut self, now: SimTime, data_waiting: bool) -> Option<(SimTime, Emitted)> {
        let Slot { at, kind } = self.peek(now, data_waiting)?;
        let cell = match kind {
            SlotKind::OutOfRateRm => {
                self.last_out_of_rate = Some(at);
                self.stats.out_of_rate_rm += 1;
                return Some((at, Emitted::ForwardRm(RmCell { out_of_rate: true, ..self.forward_fields() })));
            }
            SlotKind::ForwardRm => Emitted::ForwardRm(self.send_frm(at)),
            SlotKind::BackwardRm => {
                let rm = self.pending_brm.take().expect("peek saw a waiting backward RM cell");
                self.brm_since_frm = true;
                self.since_frm += 1;
                self.stats.backward_rm_sent += 1;
                Emitted::BackwardRm(rm)
            }
            SlotKind::Data => {
                self.since_frm += 1;
                self.stats.data_cells += 1;
                Emitted::Data
            }
        };
        self.last_in_rate = Some(at);
        Some((at, cell))
    }

    fn forward_fields(&self) -> RmCell {
        RmCell {
            dir: Direction::Forward,
            bn: false,
            ci: false,
            ni: false,
            er: self.p.pcr_cells_s,
            ccr: self.acr,
            mcr: self.p.mcr_cells_s,
            out_of_rate: false,
        }
    }

    /// Rules 5 and 6, then the forward RM cell itself.
    fn send_frm(&mut self, at: SimTime) -> RmCell {
        let first = self.last_in_rate.is_none();
        if !first && self.acr > self.icr && at.since(self.last_frm) > self.p.adtf {
            self.acr = self.icr;
            self.stats.adtf_resets += 1;
        }
        if self.unanswered >= self.crm && self.p.cdf > 0.0 {
            self.acr = (self.acr - self.acr * self.p.cdf).max(self.p.mcr_cells_s);
            self.stats.crm_cuts += 1;
        }
        self.unanswered += 1;
        self.last_frm = at;
        self.since_frm = 0;
        self.brm_since_frm = false;
        self.stats.forward_rm += 1;
        self.forward_fields()
    }

    /// Rules 8–9: a backward RM cell of this VC direction came home.
    pub fn on_backward_rm(&mut self, rm: &RmCell) {
        self.stats.backward_rm_received += 1;
        if !rm.bn {
            self.unanswered = 0;
        }
        let p = &self.p;
        let mut acr = self.acr;
        if rm.ci {
            acr -= acr * p.rdf;
        } else if !rm.ni {
            acr += p.rif * p.pcr_cells_s;
        }
        self.acr = acr.min(rm.er).min(p.pcr_cells_s).max(p.mcr_cells_s);
    }

    /// Queue a turned-around RM cell (of the reverse direction) for an in-rate slot of this
    /// VC; a cell still waiting is replaced (TM 4.0 §5.10.5 rule 3a). Returns whether one was.
    pub fn queue_backward_rm(&mut self, rm: RmCell) -> bool {
        let replaced = self.pending_brm.is_some();
        if replaced {
            self.stats.backward_rm_overwritten += 1;
        }
        self.pending_brm = Some(rm);
        replaced
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::params::OC3C_CELLS_S;
    use proptest::prelude::*;

    const PCR: f64 = OC3C_CELLS_S;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    fn brm(er: f64, ci: bool, ni: bool) -> RmCell {
        RmCell { dir: Direction::Backward, bn: false, ci, ni, er, ccr: 0.0, mcr: 0.0, out_of_rate: false }
    }

    /// Send `n` cells back to back with data always waiting; returns (departure, kind).
    fn saturate(s: &mut AbrSource, n: usize) -> Vec<(SimTime, Emitted)> {
        let mut now = SimTime::ZERO;
        (0..n)
            .map(|_| {
                let (at, c) = s.transmit(now, true).expect("data is waiting");
                now = at;
                (at, c)
            })
            .collect()
    }

    #[test]
    fn first_cell_is_a_forward_rm_cell_at_icr() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        assert_eq!(s.acr(), PCR / 50.0);
        assert_eq!(s.peek(SimTime::ZERO, false), None, "nothing waiting, nothing sent");
        let (at, c) = s.transmit(ms(3), true).unwrap();
        assert_eq!(at, ms(3));
        let Emitted::ForwardRm(rm) = c else { panic!("{c:?}") };
        assert_eq!(
            (rm.dir, rm.ccr, rm.er, rm.ci, rm.ni, rm.bn),
            (Direction::Forward, PCR / 50.0, PCR, false, false, false)
        );
    }

    #[test]
    fn a_forward_rm_cell_opens_every_nrm_cells() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        let cells = saturate(&mut s, 10 * 32 + 5);
        for (i, (_, c)) in cells.iter().enumerate() {
            assert_eq!(matches!(c, Emitted::ForwardRm(_)), i % 32 == 0, "cell {i}: {c:?}");
        }
        assert_eq!(s.stats().forward_rm, 11);
        assert_eq!(s.stats().data_cells, 10 * 31 + 4);
    }

    #[test]
    fn in_rate_cells_are_spaced_one_over_acr_rounded_up() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        let cells = saturate(&mut s, 100);
        let gap = (1e12 / (PCR / 50.0)).ceil() as u64; // 141 559 ps·1000 ≈ 141.56 µs
        for w in cells.windows(2) {
            assert_eq!((w[1].0 - w[0].0).as_ps(), gap);
        }
        // A cell offered late leaves when offered; one offered early waits for its slot.
        let last = cells.last().unwrap().0;
        let late = last + SimDuration::from_millis(1);
        assert_eq!(s.peek(late, true).unwrap().at, late);
        assert_eq!(s.peek(last, true).unwrap().at, last + SimDuration::from_ps(gap));
    }

    #[test]
    fn backward_rm_increases_by_rif_pcr_up_to_pcr() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        for k in 1..=70u32 {
            s.on_backward_rm(&brm(PCR, false, false));
            let expect = (PCR / 50.0 + f64::from(k) * PCR / 64.0).min(PCR);
            assert!((s.acr() - expect).abs() < 1e-6, "after {k}: {} vs {expect}", s.acr());
        }
        // ICR + k·PCR/64 ≥ PCR first at k = ⌈(1 − 1/50)·64⌉ = 63.
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        let k = (1..).find(|_| {
            s.on_backward_rm(&brm(PCR, false, false));
            s.acr() == PCR
        });
        assert_eq!(k, Some(63));
    }

    #[test]
    fn ci_decreases_by_rdf_acr_and_ni_holds() {
        let p = AbrParams { icr_cells_s: 1000.0, mcr_cells_s: 100.0, ..AbrParams::tm4_defaults(10_000.0) };
        let mut s = AbrSource::new(p);
        s.on_backward_rm(&brm(10_000.0, true, false));
        assert_eq!(s.acr(), 1000.0 - 1000.0 / 16.0);
        s.on_backward_rm(&brm(10_000.0, false, true));
        assert_eq!(s.acr(), 937.5, "NI = 1: no increase");
        s.on_backward_rm(&brm(10_000.0, true, true));
        assert_eq!(s.acr(), 937.5 * 15.0 / 16.0, "CI wins over NI");
        for _ in 0..200 {
            s.on_backward_rm(&brm(10_000.0, true, false));
        }
        assert_eq!(s.acr(), 100.0, "never below MCR");
    }

    #[test]
    fn er_clamps_acr_but_not_below_mcr() {
        let p = AbrParams { icr_cells_s: 1000.0, mcr_cells_s: 50.0, ..AbrParams::tm4_defaults(10_000.0) };
        let mut s = AbrSource::new(p);
        s.on_backward_rm(&brm(400.0, false, false));
        assert_eq!(s.acr(), 400.0, "min(ACR + RIF·PCR, ER)");
        s.on_backward_rm(&brm(20.0, false, false));
        assert_eq!(s.acr(), 50.0, "ER below MCR gives MCR");
        s.on_backward_rm(&brm(1e9, false, false));
        assert_eq!(s.acr(), 50.0 + 10_000.0 / 16.0, "a huge ER only allows the RIF step");
    }

    #[test]
    fn trm_forces_a_forward_rm_cell_after_mrm_cells() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        assert!(matches!(s.transmit(ms(0), true), Some((_, Emitted::ForwardRm(_)))));
        assert_eq!(s.transmit(ms(1), true).unwrap().1, Emitted::Data);
        // One cell since the forward RM cell: Trm alone is not enough (Mrm = 2).
        assert_eq!(s.peek(ms(150), true).unwrap().kind, SlotKind::Data);
        assert_eq!(s.transmit(ms(50), true).unwrap().1, Emitted::Data);
        // Two cells, 99 ms: not yet; 100 ms: a forward RM cell.
        assert_eq!(s.peek(ms(99), true).unwrap().kind, SlotKind::Data);
        assert_eq!(s.peek(ms(100), true).unwrap().kind, SlotKind::ForwardRm);
    }

    #[test]
    fn adtf_returns_acr_to_icr_after_long_silence_only() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        s.transmit(ms(0), true);
        for _ in 0..63 {
            s.on_backward_rm(&brm(PCR, false, false));
        }
        assert_eq!(s.acr(), PCR);
        // 31 data cells, 30 ms of silence, then the Nrm-th cell: a forward RM cell that
        // keeps ACR (the study's idle gaps are at most ≈ 30 ms; ADTF is 0.5 s).
        for _ in 0..31 {
            assert_eq!(s.transmit(ms(1), true).unwrap().1, Emitted::Data);
        }
        let (_, c) = s.transmit(ms(31), true).unwrap();
        let Emitted::ForwardRm(rm) = c else { panic!("{c:?}") };
        assert_eq!((rm.ccr, s.stats().adtf_resets), (PCR, 0));
        // 0.6 s of silence: the next forward RM cell carries ICR.
        s.transmit(ms(33), true);
        s.transmit(ms(34), true);
        let (_, c) = s.transmit(ms(632), true).unwrap();
        let Emitted::ForwardRm(rm) = c else { panic!("{c:?}") };
        assert_eq!((rm.ccr, s.acr(), s.stats().adtf_resets), (PCR / 50.0, PCR / 50.0, 1));
    }

    #[test]
    fn crm_unanswered_forward_rm_cells_cut_acr_by_cdf() {
        let p = AbrParams { tbe_cells: 64, icr_cells_s: 1000.0, ..AbrParams::tm4_defaults(10_000.0) };
        assert_eq!(p.crm(), 2);
        let mut s = AbrSource::new(p);
        let ccrs: Vec<f64> = saturate(&mut s, 4 * 32)
            .into_iter()
            .filter_map(|(_, c)| if let Emitted::ForwardRm(rm) = c { Some(rm.ccr) } else { None })
            .collect();
        assert_eq!(ccrs, vec![1000.0, 1000.0, 937.5, 937.5 * 15.0 / 16.0]);
        // A backward RM cell with BN = 0 answers them: no cut at the next one.
        s.on_backward_rm(&brm(s.acr(), false, true));
        let before = s.acr();
        let ccrs: Vec<f64> = saturate(&mut s, 32)
            .into_iter()
            .filter_map(|(_, c)| if let Emitted::ForwardRm(rm) = c { Some(rm.ccr) } else { None })
            .collect();
        assert_eq!(ccrs, vec![before]);
        // The study's defaults: a thousand unanswered forward RM cells cut nothing.
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        saturate(&mut s, 32_000);
        assert_eq!((s.stats().forward_rm, s.stats().crm_cuts, s.acr()), (1000, 0, PCR / 50.0));
    }

    #[test]
    fn turned_around_cells_take_in_rate_slots_per_rule_3b() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        let b = RmCell { ci: true, ..brm(123.0, false, false) };
        assert!(!s.queue_backward_rm(b));
        // Data waiting: forward RM cell first (rule 2), then the backward one, then data.
        let kinds: Vec<Emitted> = saturate(&mut s, 3).into_iter().map(|(_, c)| c).collect();
        assert!(matches!(kinds[0], Emitted::ForwardRm(_)));
        assert_eq!(kinds[1], Emitted::BackwardRm(b));
        assert_eq!(kinds[2], Emitted::Data);
        // A second one in the same Nrm interval waits for the next forward RM cell while
        // data is waiting...
        s.queue_backward_rm(b);
        let kinds: Vec<Emitted> = saturate(&mut s, 31).into_iter().map(|(_, c)| c).collect();
        assert!(matches!(kinds[29], Emitted::ForwardRm(_)), "{:?}", &kinds[28..]);
        assert_eq!(kinds[30], Emitted::BackwardRm(b));
        assert_eq!(s.stats().backward_rm_sent, 2);
        // ...but goes at once when there is no data.
        s.queue_backward_rm(b);
        assert_eq!(s.peek(ms(100), false).unwrap().kind, SlotKind::BackwardRm);
        // A newer turned-around cell replaces a waiting one (destination rule 3a).
        assert!(s.queue_backward_rm(RmCell { er: 7.0, ..b }));
        assert_eq!(s.stats().backward_rm_overwritten, 1);
        assert_eq!(s.transmit(ms(100), false).unwrap().1, Emitted::BackwardRm(RmCell { er: 7.0, ..b }));
    }

    #[test]
    fn below_tcr_only_out_of_rate_rm_cells_go_paced_at_tcr() {
        let mut s = AbrSource::new(AbrParams::kalampoukas97(PCR));
        s.transmit(ms(0), true);
        s.on_backward_rm(&brm(0.0, false, false));
        assert_eq!(s.acr(), 0.0);
        let (t1, c) = s.transmit(ms(5), true).unwrap();
        assert!(matches!(c, Emitted::ForwardRm(RmCell { out_of_rate: true, .. })), "{c:?}");
        let (t2, _) = s.transmit(t1, true).unwrap();
        assert_eq!(t2 - t1, SimDuration::from_millis(100), "TCR = 10 cells/s");
        s.on_backward_rm(&brm(PCR, false, false));
        assert_eq!(s.peek(t2, true).unwrap().kind, SlotKind::Data, "back in rate");
    }

    proptest! {
        #[test]
        fn acr_stays_within_mcr_and_pcr(fb in proptest::collection::vec((any::<bool>(), any::<bool>(), 0.0f64..2e6), 1..200)) {
            let p = AbrParams { mcr_cells_s: 500.0, ..AbrParams::kalampoukas97(PCR) };
            let mut s = AbrSource::new(p);
            for (ci, ni, er) in fb {
                let before = s.acr();
                s.on_backward_rm(&brm(er, ci, ni));
                prop_assert!(s.acr() >= 500.0 && s.acr() <= PCR);
                if ci || ni {
                    prop_assert!(s.acr() <= before.max(500.0));
                }
            }
        }
    }
}
