//! The ABR parameters of one VC, with TM 4.0 names, units and defaults.
//!
//! Owns: [`AbrParams`] and the cell rate of an OC-3c link, [`OC3C_CELLS_S`].
//!
//! | name | unit | TM 4.0 default | meaning |
//! |---|---|---|---|
//! | PCR | cells/s | (signalled) | peak cell rate: ACR never exceeds it |
//! | MCR | cells/s | 0 | minimum cell rate: ACR never falls below it |
//! | ICR | cells/s | PCR | initial cell rate: ACR before the first feedback |
//! | TCR | cells/s | 10 | tagged cell rate: the pace of out-of-rate RM cells |
//! | RIF | fraction | 1/16 | rate increase factor: ACR += RIF·PCR per backward RM cell |
//! | RDF | fraction | 1/16 | rate decrease factor: ACR −= ACR·RDF on CI |
//! | Nrm | cells | 32 | at most Nrm − 1 in-rate cells between forward RM cells |
//! | Mrm | cells | 2 | in-rate cells before Trm may force a forward RM cell |
//! | Trm | s | 100 ms | time after which Mrm cells suffice for a forward RM cell |
//! | ADTF | s | 0.5 s | silence after which ACR falls back to ICR (rule 5) |
//! | TBE | cells | 16 777 215 | transient buffer exposure; sets CRM = ⌈TBE/Nrm⌉ |
//! | CDF | fraction | 1/16 | cut-off decrease factor: ACR −= ACR·CDF per forward RM cell after CRM unanswered ones (rule 6); 0 disables |
//! | FRTT | s | (signalled) | fixed round-trip time; ICR is limited to TBE/FRTT |
//!
//! TM 4.0 encodes several of these on coarse grids (RIF, RDF as 2^−k; Nrm a power of two
//! from 2 to 256; Trm as 100·2^−k ms); we accept any value in the range so that a study can
//! vary them, and check only what makes the rules meaningful ([`AbrParams::validate`]).
//!
//! # The study's preset and why it leaves ACR alone in steady state
//!
//! [`AbrParams::kalampoukas97`] takes Nrm = 32, RIF = 1/64 and ICR = PCR/50 from the paper
//! (§5.1) and the TM 4.0 default for everything else (digest §1.4). Two source rules can
//! lower ACR without any switch asking for it, and both stay silent under these defaults:
//!
//! - **CRM / CDF (rule 6).** ACR is cut by CDF per forward RM cell once CRM of them are
//!   outstanding with no backward RM cell in return. With TBE = 16 777 215, CRM = 524 288;
//!   a VC at the full OC-3c rate over the study's ≈ 17 ms round trip has about
//!   353 208 · 0.017 / 32 ≈ 190 in flight. A small TBE (say 4096, CRM = 128) would cut ACR
//!   whenever the reverse direction's RM cells are delayed, which the study never shows.
//! - **ADTF (rule 5).** ACR falls back to ICR when a forward RM cell follows the previous one
//!   by more than ADTF. The study's idle gaps are at most ≈ 30 ms (the period is 48 ms in
//!   §5.2, 56 ms in §5.3), and acks keep cells flowing through them; 0.5 s is never reached.
//!
//! ICR is also capped by TBE/FRTT when FRTT is given ([`AbrParams::effective_icr`]); with the
//! default TBE this cap is far above any link rate.

use crate::error::{Error, Result};
use crate::time::SimDuration;

/// The cell rate of an OC-3c link: 149.76 Mb/s of SONET payload over 424-bit cells
/// \[cells/s\] (digest A1).
pub const OC3C_CELLS_S: f64 = 149_760_000.0 / 424.0;

/// ABR parameters of one VC (TM 4.0 §5.10.2 names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbrParams {
    /// PCR \[cells/s\].
    pub pcr_cells_s: f64,
    /// MCR \[cells/s\].
    pub mcr_cells_s: f64,
    /// ICR \[cells/s\].
    pub icr_cells_s: f64,
    /// TCR \[cells/s\].
    pub tcr_cells_s: f64,
    /// RIF \[fraction of PCR\].
    pub rif: f64,
    /// RDF \[fraction of ACR\].
    pub rdf: f64,
    /// CDF \[fraction of ACR\]; 0 turns rule 6 off.
    pub cdf: f64,
    /// Nrm \[cells\].
    pub nrm: u32,
    /// Mrm \[cells\].
    pub mrm: u32,
    /// Trm.
    pub trm: SimDuration,
    /// ADTF.
    pub adtf: SimDuration,
    /// TBE \[cells\].
    pub tbe_cells: u32,
    /// FRTT; zero when not signalled (then ICR is not capped by TBE/FRTT).
    pub frtt: SimDuration,
}

impl AbrParams {
    /// TM 4.0's defaults for a VC of peak rate `pcr_cells_s`.
    pub fn tm4_defaults(pcr_cells_s: f64) -> Self {
        AbrParams {
            pcr_cells_s,
            mcr_cells_s: 0.0,
            icr_cells_s: pcr_cells_s,
            tcr_cells_s: 10.0,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            cdf: 1.0 / 16.0,
            nrm: 32,
            mrm: 2,
            trm: SimDuration::from_millis(100),
            adtf: SimDuration::from_millis(500),
            tbe_cells: 16_777_215,
            frtt: SimDuration::ZERO,
        }
    }

    /// Kalampoukas, Varma & Ramakrishnan (1997) §5.1: Nrm = 32, RIF = 1/64, ICR = PCR/50,
    /// the rest TM 4.0 defaults (module docs: why these never lower ACR in steady state).
    pub fn kalampoukas97(pcr_cells_s: f64) -> Self {
        AbrParams { icr_cells_s: pcr_cells_s / 50.0, rif: 1.0 / 64.0, ..Self::tm4_defaults(pcr_cells_s) }
    }

    /// CRM = ⌈TBE/Nrm⌉: forward RM cells that may go unanswered before rule 6 cuts ACR.
    pub fn crm(&self) -> u64 {
        u64::from(self.tbe_cells).div_ceil(u64::from(self.nrm.max(1)))
    }

    /// ICR as the source uses it: `min(ICR, TBE/FRTT)` when FRTT is given (TM 4.0 §5.10.4
    /// note on ICR negotiation), never below MCR.
    pub fn effective_icr(&self) -> f64 {
        let frtt = self.frtt.as_secs_f64();
        let cap = if frtt > 0.0 { f64::from(self.tbe_cells) / frtt } else { f64::INFINITY };
        self.icr_cells_s.min(cap).max(self.mcr_cells_s)
    }

    /// Check every field; `at` is the dotted path of this parameter set in the scenario
    /// (e.g. `vc[3].abr`). The error names the field and what was expected.
    pub fn validate(&self, at: &str) -> Result<()> {
        let field = |name: &str| if at.is_empty() { name.to_string() } else { format!("{at}.{name}") };
        let positive = |name: &str, v: f64| -> Result<()> {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Error::invalid(field(name), format!("expected a finite rate > 0 cells/s, got {v}")))
            }
        };
        positive("pcr_cells_s", self.pcr_cells_s)?;
        positive("tcr_cells_s", self.tcr_cells_s)?;
        let pcr = self.pcr_cells_s;
        if !(self.mcr_cells_s.is_finite() && (0.0..=pcr).contains(&self.mcr_cells_s)) {
            let msg = format!("expected 0 ≤ MCR ≤ PCR ({pcr} cells/s), got {}", self.mcr_cells_s);
            return Err(Error::invalid(field("mcr_cells_s"), msg));
        }
        let icr = self.icr_cells_s;
        if !(icr.is_finite() && icr > 0.0 && icr >= self.mcr_cells_s && icr <= pcr) {
            let msg =
                format!("expected ICR > 0 with MCR ({}) ≤ ICR ≤ PCR ({pcr}) cells/s, got {icr}", self.mcr_cells_s);
            return Err(Error::invalid(field("icr_cells_s"), msg));
        }
        let fraction = |name: &str, v: f64, zero_ok: bool| -> Result<()> {
            let lo_ok = if zero_ok { v >= 0.0 } else { v > 0.0 };
            if v.is_finite() && lo_ok && v <= 1.0 {
                Ok(())
            } else {
                let range = if zero_ok { "[0, 1]" } else { "(0, 1]" };
                Err(Error::invalid(field(name), format!("expected a fraction in {range}, got {v}")))
            }
        };
        fraction("rif", self.rif, false)?;
        fraction("rdf", self.rdf, false)?;
        fraction("cdf", self.cdf, true)?;
        if !(2..=256).contains(&self.nrm) {
            return Err(Error::invalid(field("nrm"), format!("expected 2 ≤ Nrm ≤ 256 cells, got {}", self.nrm)));
        }
        if !(1..self.nrm).contains(&self.mrm) {
            let msg = format!("expected 1 ≤ Mrm < Nrm ({}) cells, got {}", self.nrm, self.mrm);
            return Err(Error::invalid(field("mrm"), msg));
        }
        if self.trm == SimDuration::ZERO {
            return Err(Error::invalid(field("trm"), "expected a duration > 0 (TM 4.0 default 100 ms), got 0"));
        }
        if self.adtf == SimDuration::ZERO {
            return Err(Error::invalid(field("adtf"), "expected a duration > 0 (TM 4.0 default 0.5 s), got 0"));
        }
        if self.tbe_cells == 0 {
            return Err(Error::invalid(field("tbe_cells"), "expected TBE ≥ 1 cell (TM 4.0 default 16777215), got 0"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn study_preset_has_the_papers_values_and_tm4_defaults_elsewhere() {
        let p = AbrParams::kalampoukas97(OC3C_CELLS_S);
        assert_eq!(p.nrm, 32);
        assert_eq!(p.rif, 1.0 / 64.0);
        assert!((p.icr_cells_s - 7064.15).abs() < 0.01, "{}", p.icr_cells_s);
        // ICR ≈ 3.0 Mb/s of cells (digest E7: the paper's "about 3.5" is a figure reading).
        assert!((p.icr_cells_s * 424.0 / 1e6 - 2.995).abs() < 0.001);
        assert_eq!(p.crm(), 524_288);
        assert_eq!(p.adtf, SimDuration::from_millis(500));
        assert_eq!(p.validate("abr"), Ok(()));
    }

    #[test]
    fn crm_rounds_up_and_icr_is_capped_by_tbe_over_frtt() {
        let mut p = AbrParams::tm4_defaults(1000.0);
        p.tbe_cells = 65;
        p.nrm = 32;
        assert_eq!(p.crm(), 3);
        p.frtt = SimDuration::from_millis(100);
        assert_eq!(p.effective_icr(), 650.0); // 65 cells / 0.1 s < ICR = PCR = 1000
        p.mcr_cells_s = 700.0;
        assert_eq!(p.effective_icr(), 700.0);
    }

    #[test]
    fn each_bad_field_is_named_with_what_was_expected() {
        let ok = AbrParams::tm4_defaults(1000.0);
        let cases: Vec<(AbrParams, &str, &str)> = vec![
            (AbrParams { pcr_cells_s: 0.0, ..ok }, "vc[1].pcr_cells_s", "> 0"),
            (AbrParams { pcr_cells_s: f64::NAN, ..ok }, "vc[1].pcr_cells_s", "finite"),
            (AbrParams { mcr_cells_s: 2000.0, ..ok }, "vc[1].mcr_cells_s", "MCR ≤ PCR"),
            (AbrParams { icr_cells_s: 1500.0, ..ok }, "vc[1].icr_cells_s", "ICR ≤ PCR"),
            (AbrParams { mcr_cells_s: 10.0, icr_cells_s: 5.0, ..ok }, "vc[1].icr_cells_s", "MCR (10)"),
            (AbrParams { rif: 0.0, ..ok }, "vc[1].rif", "(0, 1]"),
            (AbrParams { rdf: 1.5, ..ok }, "vc[1].rdf", "(0, 1]"),
            (AbrParams { cdf: -0.1, ..ok }, "vc[1].cdf", "[0, 1]"),
            (AbrParams { nrm: 1, ..ok }, "vc[1].nrm", "2 ≤ Nrm ≤ 256"),
            (AbrParams { mrm: 32, ..ok }, "vc[1].mrm", "Mrm < Nrm (32)"),
            (AbrParams { trm: SimDuration::ZERO, ..ok }, "vc[1].trm", "> 0"),
            (AbrParams { adtf: SimDuration::ZERO, ..ok }, "vc[1].adtf", "> 0"),
            (AbrParams { tbe_cells: 0, ..ok }, "vc[1].tbe_cells", "TBE ≥ 1"),
            (AbrParams { tcr_cells_s: -1.0, ..ok }, "vc[1].tcr_cells_s", "> 0"),
        ];
        for (p, field, expect) in cases {
            let e = p.validate("vc[1]").expect_err(field);
            assert_eq!(e.field, field);
            assert!(e.message.contains(expect), "{field}: {}", e.message);
        }
        assert_eq!(AbrParams { cdf: 0.0, ..ok }.validate(""), Ok(()));
        assert_eq!(AbrParams { rif: 0.0, ..ok }.validate("").unwrap_err().field, "rif");
    }
}
