//! The ABR destination end system (TM 4.0 §5.10.5), sans-I/O.
//!
//! Owns: [`AbrDestination`] — the receiving end of one VC direction, which turns each
//! forward RM cell into a backward RM cell on the same VC.
//!
//! Rules (TM 4.0 §5.10.5):
//! 1. The EFCI bit of every arriving data cell is remembered ([`AbrDestination::on_data_cell`]).
//! 2. A forward RM cell is turned around: DIR becomes backward, BN = 0, and CI is set if the
//!    last data cell carried EFCI (which clears the remembered state). ER, CCR, MCR and NI
//!    come back as received, unless the destination itself is short of capacity: then it may
//!    lower ER ([`AbrDestination::with_er_limit`]) or set NI ([`AbrDestination::set_no_increase`]).
//! 3. The turned-around cell is sent in-rate on the reverse direction of the VC. If an older
//!    one is still waiting there, the new one replaces it (rule 3a): that queue lives in the
//!    reverse direction's [`super::AbrSource`] ([`super::AbrSource::queue_backward_rm`]).
//!
//! Decision (digest A15): the turned-around cell goes at the ATM layer of this node, never
//! through its IP output queue; the caller hands the returned cell straight to the source of
//! the reverse direction on the same node.

use super::{Direction, RmCell};

/// The destination end system of one ABR VC direction.
#[derive(Clone, Debug, Default)]
pub struct AbrDestination {
    /// The last data cell had EFCI set (and no RM cell has been turned around since).
    efci: bool,
    /// Highest rate the destination accepts \[cells/s\]; `None` = no limit of its own.
    er_limit: Option<f64>,
    /// Set NI on every turned-around cell.
    no_increase: bool,
    turned: u64,
}

impl AbrDestination {
    /// A destination that marks nothing of its own.
    pub fn new() -> Self {
        Self::default()
    }

    /// A destination that cannot absorb more than `rate_cells_s`: every turned-around cell's
    /// ER is lowered to it.
    pub fn with_er_limit(rate_cells_s: f64) -> Self {
        AbrDestination { er_limit: Some(rate_cells_s), ..Self::default() }
    }

    /// Ask the source not to increase (NI = 1 on every turned-around cell) while `on`.
    pub fn set_no_increase(&mut self, on: bool) {
        self.no_increase = on;
    }

    /// Rule 1: a data cell arrived with this EFCI bit.
    pub fn on_data_cell(&mut self, efci: bool) {
        self.efci = efci;
    }

    /// RM cells turned around so far.
    pub fn turned_around(&self) -> u64 {
        self.turned
    }

    /// Rule 2: the backward RM cell that answers `frm`. Out-of-rate forward cells are
    /// answered like in-rate ones (the answer is sent in rate).
    pub fn turn_around(&mut self, frm: &RmCell) -> RmCell {
        let mut b = RmCell { dir: Direction::Backward, bn: false, out_of_rate: false, ..*frm };
        if std::mem::take(&mut self.efci) {
            b.ci = true;
        }
        if self.no_increase {
            b.ni = true;
        }
        if let Some(limit) = self.er_limit {
            b = b.with_er_at_most(limit);
        }
        self.turned += 1;
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::params::AbrParams;
    use crate::abr::source::{AbrSource, Emitted};
    use crate::time::SimTime;

    fn frm() -> RmCell {
        RmCell {
            dir: Direction::Forward,
            bn: false,
            ci: false,
            ni: false,
            er: 5000.0,
            ccr: 1200.0,
            mcr: 100.0,
            out_of_rate: false,
        }
    }

    #[test]
    fn turnaround_flips_dir_and_returns_the_fields_as_received() {
        let mut d = AbrDestination::new();
        let f = RmCell { ni: true, ci: true, ..frm() };
        let b = d.turn_around(&f);
        assert_eq!(b, RmCell { dir: Direction::Backward, ..f });
        assert_eq!(d.turned_around(), 1);
        let b = d.turn_around(&RmCell { out_of_rate: true, ..frm() });
        assert!(!b.out_of_rate && !b.bn && !b.ci && !b.ni);
    }

    #[test]
    fn efci_on_the_last_data_cell_sets_ci_once() {
        let mut d = AbrDestination::new();
        d.on_data_cell(true);
        d.on_data_cell(false);
        assert!(!d.turn_around(&frm()).ci, "only the last data cell counts");
        d.on_data_cell(true);
        assert!(d.turn_around(&frm()).ci);
        assert!(!d.turn_around(&frm()).ci, "the state clears with the turnaround");
    }

    #[test]
    fn destination_marks_lower_er_and_set_ni() {
        let mut d = AbrDestination::with_er_limit(800.0);
        assert_eq!(d.turn_around(&frm()).er, 800.0);
        assert_eq!(d.turn_around(&RmCell { er: 300.0, ..frm() }).er, 300.0, "never raised");
        assert_eq!(AbrDestination::with_er_limit(10.0).turn_around(&frm()).er, 100.0, "not below MCR");
        d.set_no_increase(true);
        assert!(d.turn_around(&frm()).ni);
    }

    #[test]
    fn a_round_trip_through_the_reverse_source_reaches_the_forward_source() {
        // Node A sends on the forward direction; node B receives it and sends the reverse
        // direction of the same VC. B's destination turns A's forward RM cell around and B's
        // source carries it in rate; A's source applies it.
        let p = AbrParams::kalampoukas97(10_000.0);
        let mut a = AbrSource::new(p);
        let mut b_dest = AbrDestination::with_er_limit(1000.0);
        let mut b_src = AbrSource::new(p);
        let (_, Emitted::ForwardRm(f)) = a.transmit(SimTime::ZERO, true).unwrap() else { panic!() };
        assert!(!b_src.queue_backward_rm(b_dest.turn_around(&f)));
        // B has no data of its own: its first in-rate cell is its own forward RM cell, the
        // next one the turned-around cell.
        let (_, first) = b_src.transmit(SimTime::ZERO, false).unwrap();
        assert!(matches!(first, Emitted::ForwardRm(r) if r.dir == Direction::Forward));
        let (_, Emitted::BackwardRm(back)) = b_src.transmit(SimTime::ZERO, false).unwrap() else { panic!() };
        a.on_backward_rm(&back);
        assert_eq!(a.acr(), (200.0f64 + 10_000.0 / 64.0).min(1000.0));
    }
}
