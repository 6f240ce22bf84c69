//! Closed-form setup and release latency of a path, exactly as the controllers behave.
//!
//! Owns: [`LinkSpec`] (one hop of a path) and the functions [`setup_latency`],
//! [`release_latency`] and [`closed_form_holds`].
//!
//! **The model being summed.** A path is controllers `0..=h` (0 the origin endpoint, `h` the
//! destination endpoint) joined by links `1..=h`; link `j` joins `j−1` to `j`, with forward
//! rate and delay `R_j, d_j` and reverse `R'_j, d'_j`. Controller `j` takes `P_j` to process
//! each message it receives. `tx(R, c) = ⌊c·424·10¹² / R⌋` ps is the time to send `c`
//! back-to-back cells on an idle line. Then, measured from the driver's `request_setup` to
//! the origin's `Connected` action:
//!
//! ```text
//!   T_setup = Σ_{j=1..h} [ tx(R_j, c_S) + d_j + P_j ]          SETUP, received and processed
//!                                                             at switches 1..h−1 and at the
//!                                                             destination h
//!           + Σ_{j=1..h} [ tx(R'_j, c_C) + d'_j + P_{j−1} ]    CONNECT, received and processed
//!                                                             at h−1..1 and at the origin 0
//! ```
//!
//! with `c_S = 2` (SETUP frame, 52 bytes) and `c_C = 1` (CONNECT frame, 12 bytes). The
//! origin does not process its own request; every controller processes each message it
//! receives, the destination included; ACKs take no processing. Release, from the driver's
//! `release` to the destination's `Released`, is one forward pass with `c_R = 1`:
//! `T_release = Σ_{j=1..h} [ tx(R_j, c_R) + d_j + P_j ]`.
//!
//! **When it is exact.** No loss, no other signalling traffic, and no message waits behind
//! the go-back-N ACK its receiver sends on arrival. The only such ACK that precedes a message
//! on the same line is controller `j`'s ACK of the SETUP (1 cell on reverse link `j`) before
//! its CONNECT, which leaves at least `P_j` later: so the form is exact to the picosecond
//! when `P_j ≥ tx(R'_j, 1)` for every `j` ([`closed_form_holds`]; 1 ms ≥ 276 µs on T1).
//! A lost SETUP adds exactly one retransmission timeout per loss (the go-back-N sender
//! retransmits at `send time + rto` onto an idle line).

use super::msg::{aal5_cells, LINK_HEADER_BYTES, SETUP_BYTES, SHORT_BYTES};
use crate::time::{Rate, SimDuration};

/// Bits of one cell on the wire.
const CELL_BITS: u64 = 53 * 8;

/// One link of a path, in both directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    /// Origin-to-destination direction: cell rate \[bit/s\] and propagation delay \[ps\].
    pub rate_fwd: Rate,
    pub delay_fwd: SimDuration,
    /// Destination-to-origin direction.
    pub rate_rev: Rate,
    pub delay_rev: SimDuration,
}

impl LinkSpec {
    /// The same rate and delay both ways.
    pub fn symmetric(rate: Rate, delay: SimDuration) -> Self {
        LinkSpec { rate_fwd: rate, delay_fwd: delay, rate_rev: rate, delay_rev: delay }
    }
}

/// Cells of a SETUP frame (`c_S`), of a CONNECT or RELEASE frame (`c_C`, `c_R`), of an ACK.
pub const SETUP_CELLS: u32 = aal5_cells(LINK_HEADER_BYTES + SETUP_BYTES);
pub const SHORT_CELLS: u32 = aal5_cells(LINK_HEADER_BYTES + SHORT_BYTES);
pub const ACK_CELLS: u32 = aal5_cells(LINK_HEADER_BYTES);

/// `tx(R, c)`: `c` back-to-back cells on an idle line at `rate`.
pub fn tx(rate: Rate, cells: u32) -> SimDuration {
    rate.tx_time(cells as u64 * CELL_BITS)
}

/// `T_setup` of the module docs. `processing[j]` is `P_j`; it has one entry per controller,
/// `links.len() + 1`.
pub fn setup_latency(links: &[LinkSpec], processing: &[SimDuration]) -> SimDuration {
    check(links, processing);
    let mut t = SimDuration::ZERO;
    for (j, l) in links.iter().enumerate() {
        t = t + tx(l.rate_fwd, SETUP_CELLS) + l.delay_fwd + processing[j + 1];
        t = t + tx(l.rate_rev, SHORT_CELLS) + l.delay_rev + processing[j];
    }
    t
}

/// `T_release` of the module docs: from the driver's `release` to the destination's `Released`.
pub fn release_latency(links: &[LinkSpec], processing: &[SimDuration]) -> SimDuration {
    check(links, processing);
    let mut t = SimDuration::ZERO;
    for (j, l) in links.iter().enumerate() {
        t = t + tx(l.rate_fwd, SHORT_CELLS) + l.delay_fwd + processing[j + 1];
    }
    t
}

/// Whether [`setup_latency`] is exact for this path (see "When it is exact").
pub fn closed_form_holds(links: &[LinkSpec], processing: &[SimDuration]) -> bool {
    check(links, processing);
    links.iter().enumerate().all(|(j, l)| processing[j + 1] >= tx(l.rate_rev, ACK_CELLS))
}

fn check(links: &[LinkSpec], processing: &[SimDuration]) {
    assert_eq!(processing.len(), links.len() + 1, "one processing time per controller on the path");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_t1_hop_pair_by_hand() {
        // Origin — switch — destination, T1 and 5 ms both links, 1 ms processing.
        let t1 = Rate::bps(1_536_000);
        let l = LinkSpec::symmetric(t1, SimDuration::from_millis(5));
        let p = [SimDuration::from_millis(1); 3];
        let cell = 276_041_666u64; // ⌊424·10¹²/1 536 000⌋ ps
        let two = 552_083_333u64; // ⌊848·10¹²/1 536 000⌋ ps
        let ms = 1_000_000_000u64;
        let want = 2 * (two + 5 * ms + ms) + 2 * (cell + 5 * ms + ms);
        assert_eq!(setup_latency(&[l, l], &p).as_ps(), want);
        assert_eq!(release_latency(&[l, l], &p).as_ps(), 2 * (cell + 6 * ms));
        assert!(closed_form_holds(&[l, l], &p));
        assert!(!closed_form_holds(&[l, l], &[SimDuration::ZERO; 3]));
    }
}
