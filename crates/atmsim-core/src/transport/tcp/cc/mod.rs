//! Congestion control: slow start, congestion avoidance, fast retransmit and fast recovery.
//!
//! Owns: [`CcState`] (BSD `snd_cwnd`, `snd_ssthresh`, `t_dupacks`, plus NewReno's `recover`)
//! and the loss-recovery machinery every algorithm shares, after BSD 4.4-Lite `tcp_input()`
//! (ACK processing, duplicate-ACK code) and `tcp_timers()` (`TCPT_REXMT`). The window
//! arithmetic of each algorithm is a module of its own behind one enum, [`Algorithm`]:
//!
//! - [`reno`]: BSD's additive increase and halving, for the three BSD [`Variant`]s;
//! - [`cubic`]: CUBIC (RFC 9438).
//!
//! [`hystart`] (HyStart++, RFC 9406) steers the initial slow start of either, when asked for.
//!
//! The variants differ in loss recovery:
//!
//! - **Tahoe** (4.3BSD-Tahoe): fast retransmit, then slow start from one segment;
//! - **Reno** (4.3BSD-Reno / 4.4BSD-Lite, RFC 2001): fast retransmit and fast recovery —
//!   `cwnd = ssthresh + 3·mss`, inflate per further duplicate, deflate on the next new ACK;
//! - **NewReno** (RFC 6582): as Reno, but a partial ACK retransmits the next hole and stays
//!   in recovery until `recover` is acknowledged;
//! - **CUBIC**: NewReno's recovery (RFC 9438 §1 keeps it) with CUBIC's reduction and growth.
//!
//! With SACK in use ([`CcState::sack`]) every variant but Tahoe recovers by RFC 6675 instead
//! ([`super::sack`]): [`CcState::sack_recovery_entry`] reduces the window by the algorithm,
//! without Reno's inflation, and `cwnd` stays put until the recovery point is acknowledged.
//!
//! The connection ([`super::conn`]) owns the segments and timers; these functions only say
//! what to do with the window and whether to retransmit.

pub mod cubic;
pub mod hystart;
pub mod reno;

pub use reno::halved_window;

use super::config::{SsthreshOnLoss, Variant};
use super::seq::{seq_gt, seq_lt};
use crate::time::{SimDuration, SimTime};
use cubic::Cubic;
use hystart::{HyStart, Step};
use reno::Reno;

/// `TCP_MAXWIN`: the largest unscaled window.
pub const TCP_MAXWIN: u32 = 65535;
/// `TCP_MAX_WINSHIFT` (RFC 1323 §2.3).
pub const TCP_MAX_WINSHIFT: u8 = 14;

/// The window arithmetic of one congestion-control algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    /// BSD's AIMD (Tahoe, Reno, NewReno).
    Reno(Reno),
    /// CUBIC (RFC 9438).
    Cubic(Cubic),
}

impl Algorithm {
    /// The algorithm a variant uses.
    pub fn of(variant: Variant) -> Self {
        match variant {
            Variant::Tahoe | Variant::Reno | Variant::NewReno => Algorithm::Reno(Reno),
            Variant::Cubic => Algorithm::Cubic(Cubic::default()),
        }
    }
}

/// Congestion state of one sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcState {
    pub variant: Variant,
    /// The window a loss halves ([`SsthreshOnLoss`]; BSD's algorithm only).
    pub on_loss: SsthreshOnLoss,
    /// `snd_cwnd` \[bytes\].
    pub cwnd: u32,
    /// `snd_ssthresh` \[bytes\].
    pub ssthresh: u32,
    /// `t_dupacks`: consecutive duplicate ACKs.
    pub dupacks: u32,
    /// NewReno `recover` (RFC 6582 §3.2): highest sequence sent when recovery began.
    pub recover: u32,
    /// NewReno: currently in fast recovery (RFC 6675 loss recovery when [`Self::sack`]).
    pub in_recovery: bool,
    /// SACK is in use on the connection: loss recovery is RFC 6675's.
    pub sack: bool,
    /// The window arithmetic.
    pub algo: Algorithm,
    /// HyStart++ in the initial slow start, if configured.
    pub hystart: Option<HyStart>,
}

/// What the connection must do after a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckAction {
    /// Nothing beyond counting it.
    None,
    /// Threshold reached: retransmit the segment at `snd_una` with the window clamped to one
    /// segment, then set `cwnd` to the returned value (`tcp_input`: "snd_cwnd = t_maxseg;
    /// tcp_output(); snd_cwnd = ssthresh + t_maxseg·t_dupacks").
    FastRetransmit { cwnd_after: u32 },
    /// Window inflated by one segment: try to send.
    Output,
}

/// What the connection must do after an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAckAction {
    /// Ordinary processing.
    None,
    /// NewReno partial ACK: retransmit the segment at the new `snd_una` now (with cwnd
    /// clamped to one segment for that output, as the fast retransmit does).
    RetransmitHole,
}

/// An ACK of new data, as the window arithmetic needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAck {
    pub mss: u32,
    /// The cumulative ACK.
    pub ack: u32,
    /// Bytes it acknowledges for the first time.
    pub acked: u32,
    /// `tcprexmtthresh`.
    pub threshold: u32,
    /// The peer's window-scale shift (caps `cwnd` at `TCP_MAXWIN << snd_scale`).
    pub snd_scale: u8,
    pub now: SimTime,
    /// Smoothed round-trip time, zero before any sample (CUBIC's target).
    pub srtt: SimDuration,
    /// The round trip this ACK measured, if it did (HyStart++).
    pub sample: Option<SimDuration>,
    /// The highest sequence sent (HyStart++'s rounds).
    pub snd_max: u32,
    /// Bytes in flight before this ACK (CUBIC's application-limited rule, RFC 9438 §5.8).
    pub flight: u32,
}

impl CcState {
    /// `tcp_newtcpcb()`: ssthresh = TCP_MAXWIN << TCP_MAX_WINSHIFT; cwnd is set by tcp_mss().
    pub fn new(variant: Variant, cwnd: u32, iss: u32) -> Self {
        CcState {
            variant,
            on_loss: SsthreshOnLoss::HalfWindow,
            cwnd,
            ssthresh: TCP_MAXWIN << TCP_MAX_WINSHIFT,
            dupacks: 0,
            recover: iss,
            in_recovery: false,
            sack: false,
            algo: Algorithm::of(variant),
            hystart: None,
        }
    }

    /// Recovery by RFC 6582's partial ACKs (NewReno, and CUBIC which keeps it).
    #[inline]
    fn newreno_recovery(&self) -> bool {
        matches!(self.variant, Variant::NewReno | Variant::Cubic)
    }

    /// `ssthresh` after a congestion event (a fast retransmit): BSD's halving by
    /// [`Self::on_loss`], or CUBIC's reduction of the usable window `min(cwnd, snd_wnd)` (as
    /// BSD's halving takes it: a window-limited sender's `cwnd` says nothing of the path).
    #[inline]
    fn loss_ssthresh(&mut self, snd_wnd: u32, mss: u32) -> u32 {
        match &mut self.algo {
            Algorithm::Reno(_) => match self.on_loss {
                SsthreshOnLoss::HalfWindow => halved_window(snd_wnd, self.cwnd, mss),
                SsthreshOnLoss::HalfAdvertised => halved_window(snd_wnd, snd_wnd, mss),
            },
            Algorithm::Cubic(c) => c.on_congestion(self.cwnd.min(snd_wnd), mss),
        }
    }

    /// A duplicate ACK (`tcp_input`: no data, same window, `ack == snd_una`, rexmt timer
    /// running). `snd_max` is only used by NewReno to set `recover`.
    pub fn on_dup_ack(&mut self, mss: u32, snd_wnd: u32, ack: u32, snd_max: u32, threshold: u32) -> DupAckAction {
        let threshold = threshold.max(1);
        self.dupacks = self.dupacks.saturating_add(1);
        if self.dupacks == threshold {
            if self.newreno_recovery() && !seq_gt(ack, self.recover) {
                // RFC 6582 §3.2 step 2: the ACK does not cover more than `recover` (the
                // duplicates stem from the previous episode's retransmissions): no new
                // fast retransmit. `recover` starts at iss, so the first loss qualifies.
                return DupAckAction::None;
            }
            self.ssthresh = self.loss_ssthresh(snd_wnd, mss);
            self.end_hystart();
            let cwnd_after = match self.variant {
                Variant::Tahoe => mss,
                Variant::Reno | Variant::NewReno | Variant::Cubic => {
                    self.ssthresh.saturating_add(mss.saturating_mul(self.dupacks))
                }
            };
            if self.newreno_recovery() {
                self.recover = snd_max;
                self.in_recovery = true;
            }
            DupAckAction::FastRetransmit { cwnd_after }
        } else if self.dupacks > threshold && self.variant != Variant::Tahoe {
            self.cwnd = self.cwnd.saturating_add(mss);
            DupAckAction::Output
        } else {
            DupAckAction::None
        }
    }

    /// An ACK that is not a duplicate resets the duplicate count (`t_dupacks = 0`).
    #[inline]
    pub fn reset_dupacks(&mut self) {
        self.dupacks = 0;
    }

    /// An ACK of new data (4.4-Lite tcp_input, after the duplicate-ACK code): deflate an
    /// inflated window, then open it by the algorithm, capped at `TCP_MAXWIN << snd_scale`.
    pub fn on_new_ack(&mut self, a: NewAck) -> NewAckAction {
        let NewAck { mss, ack, acked, threshold, snd_scale, .. } = a;
        let max_cwnd = TCP_MAXWIN << snd_scale.min(TCP_MAX_WINSHIFT);
        if self.in_recovery && (self.sack || self.newreno_recovery()) {
            if seq_lt(ack, self.recover) {
                if self.sack {
                    // RFC 6675 §5 (B): a partial ACK changes no window; `pipe` steers.
                    return NewAckAction::None;
                }
                // RFC 6582 §3.2 step 5, partial ACK: deflate by the amount acked, add back one
                // segment if at least one was acked, retransmit the next hole, stay in recovery.
                self.cwnd = self.cwnd.saturating_sub(acked);
                if acked >= mss {
                    self.cwnd = self.cwnd.saturating_add(mss);
                }
                self.cwnd = self.cwnd.max(mss);
                return NewAckAction::RetransmitHole;
            }
            // Full ACK: leave recovery with cwnd = ssthresh (RFC 6582 step 5 option 2).
            self.in_recovery = false;
            self.cwnd = self.cwnd.min(self.ssthresh);
            self.dupacks = 0;
        }
        // "If the congestion window was inflated to account for the other side's cached
        // packets, retract it." (4.4-Lite: strictly more than tcprexmtthresh dup ACKs.)
        if self.dupacks > threshold && self.cwnd > self.ssthresh {
            self.cwnd = self.ssthresh;
        }
        self.dupacks = 0;
        let cw = self.cwnd.max(1);
        if let Some(h) = self.hystart.as_mut().filter(|h| h.active()) {
            let in_slow_start = match self.algo {
                Algorithm::Reno(_) => cw <= self.ssthresh,
                Algorithm::Cubic(_) => cw < self.ssthresh,
            };
            if in_slow_start {
                match h.on_ack(ack, a.snd_max, acked, mss, a.sample) {
                    Step::Grow(b) => self.cwnd = cw.saturating_add(b).min(max_cwnd),
                    Step::EnterAvoidance => self.ssthresh = cw,
                }
                return NewAckAction::None;
            }
        }
        let grown = match &mut self.algo {
            Algorithm::Reno(_) => Reno::grow(cw, self.ssthresh, mss),
            // Counted in segments, as Linux counts packets (a short segment is one): slow
            // start while the window is below twice the flight (tcp_is_cwnd_limited),
            // congestion avoidance while the flight fills it (RFC 9438 §5.8).
            Algorithm::Cubic(_) if cw < self.ssthresh => {
                if cw / mss.max(1) < 2 * a.flight.div_ceil(mss.max(1)) {
                    cw.saturating_add(mss)
                } else {
                    cw
                }
            }
            Algorithm::Cubic(c) if a.flight.div_ceil(mss.max(1)) < cw / mss.max(1) => {
                c.hold(a.now);
                cw
            }
            Algorithm::Cubic(c) => c.grow(cw, mss, acked, a.now, a.srtt),
        };
        self.cwnd = grown.min(max_cwnd);
        NewAckAction::None
    }

    /// `TCPT_REXMT` expiry: ssthresh by the algorithm, cwnd = one segment, forget dup ACKs.
    pub fn on_rto(&mut self, mss: u32, snd_wnd: u32, snd_max: u32) {
        self.ssthresh = match &mut self.algo {
            Algorithm::Cubic(c) => c.on_timeout(self.cwnd.min(snd_wnd), mss),
            Algorithm::Reno(_) => self.loss_ssthresh(snd_wnd, mss),
        };
        self.cwnd = mss;
        self.dupacks = 0;
        self.end_hystart();
        if self.sack || self.newreno_recovery() {
            // RFC 6582 §4, RFC 6675 §5.1: after a timeout, recover = highest sequence sent.
            self.recover = snd_max;
            self.in_recovery = false;
        }
    }

    /// A loss ends HyStart++ (RFC 9406 §4.3: the initial slow start only).
    #[inline]
    fn end_hystart(&mut self) {
        if let Some(h) = &mut self.hystart {
            h.on_loss();
        }
    }

    /// Entry into RFC 6675 loss recovery (§5 step 4.1–4.2): `ssthresh = cwnd =` the
    /// algorithm's reduction (BSD's halving or CUBIC's β, as after a fast retransmit), no
    /// inflation; `recover` (RecoveryPoint) = `snd_max`. A loss, so HyStart++ ends. Returns
    /// `ssthresh`.
    pub fn sack_recovery_entry(&mut self, snd_wnd: u32, mss: u32, snd_max: u32) -> u32 {
        self.ssthresh = self.loss_ssthresh(snd_wnd, mss);
        self.cwnd = self.ssthresh;
        self.recover = snd_max;
        self.in_recovery = true;
        self.end_hystart();
        self.ssthresh
    }

    /// Slow-start restart after an idle period (tcp_output: `idle && t_idle >= t_rxtcur`).
    /// CUBIC's stage ends with it: the next one starts its clock when congestion avoidance
    /// resumes, rather than counting the idle time as growth.
    #[inline]
    pub fn on_idle_restart(&mut self, mss: u32) {
        self.cwnd = mss;
        if let Algorithm::Cubic(c) = &mut self.algo {
            c.on_idle();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MSS: u32 = 1000;

    fn ack(ack: u32, acked: u32) -> NewAck {
        NewAck {
            mss: MSS,
            ack,
            acked,
            threshold: 3,
            snd_scale: 0,
            now: SimTime::ZERO,
            srtt: SimDuration::ZERO,
            sample: None,
            snd_max: 0,
            flight: u32::MAX,
        }
    }

    #[test]
    fn slow_start_then_avoidance_growth() {
        let mut c = CcState::new(Variant::Reno, MSS, 0);
        c.ssthresh = 4 * MSS;
        for _ in 0..3 {
            c.on_new_ack(ack(0, MSS));
        }
        assert_eq!(c.cwnd, 4 * MSS);
        c.on_new_ack(ack(0, MSS)); // cw == ssthresh: still slow start
        assert_eq!(c.cwnd, 5 * MSS);
        c.on_new_ack(ack(0, MSS)); // 1000*1000/5000 = 200
        assert_eq!(c.cwnd, 5 * MSS + 200);
    }

    #[test]
    fn cwnd_capped_at_maxwin_shifted() {
        let mut c = CcState::new(Variant::Reno, 65000, 0);
        c.on_new_ack(ack(0, MSS));
        assert_eq!(c.cwnd, TCP_MAXWIN);
    }

    #[test]
    fn reno_dupacks_fast_retransmit_inflate_deflate() {
        let mut c = CcState::new(Variant::Reno, 10 * MSS, 0);
        assert_eq!(c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3), DupAckAction::None);
        assert_eq!(c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3), DupAckAction::None);
        assert_eq!(c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3), DupAckAction::FastRetransmit { cwnd_after: 8 * MSS });
        assert_eq!(c.ssthresh, 5 * MSS);
        c.cwnd = 8 * MSS;
        assert_eq!(c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3), DupAckAction::Output);
        assert_eq!(c.cwnd, 9 * MSS);
        c.on_new_ack(ack(1, 5 * MSS));
        // deflated to ssthresh 5000; cw == ssthresh is not "> ssthresh", so 4.4-Lite still
        // adds a whole segment: 6000.
        assert_eq!(c.cwnd, 6 * MSS);
    }

    #[test]
    fn tahoe_fast_retransmit_restarts_from_one_segment() {
        let mut c = CcState::new(Variant::Tahoe, 10 * MSS, 0);
        c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3);
        c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3);
        assert_eq!(c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3), DupAckAction::FastRetransmit { cwnd_after: MSS });
        assert_eq!(c.on_dup_ack(MSS, 20 * MSS, 0, 0, 3), DupAckAction::None);
    }

    #[test]
    fn newreno_partial_ack_stays_in_recovery() {
        let mut c = CcState::new(Variant::NewReno, 10 * MSS, 0);
        for _ in 0..3 {
            c.on_dup_ack(MSS, 20 * MSS, 1, 10 * MSS, 3);
        }
        assert!(c.in_recovery);
        c.cwnd = 8 * MSS;
        assert_eq!(c.on_new_ack(ack(2 * MSS, 2 * MSS)), NewAckAction::RetransmitHole);
        assert_eq!(c.cwnd, 7 * MSS);
        assert!(c.in_recovery);
        assert_eq!(c.on_new_ack(ack(10 * MSS, 8 * MSS)), NewAckAction::None);
        assert!(!c.in_recovery);
        // min(7000, ssthresh 5000) = 5000, then + mss (cw == ssthresh: slow-start step).
        assert_eq!(c.cwnd, 6 * MSS);
    }

    #[test]
    fn sack_recovery_reduces_once_and_holds_cwnd_until_recovery_point() {
        for (variant, ssthresh) in [(Variant::NewReno, 5 * MSS), (Variant::Cubic, 7 * MSS), (Variant::Reno, 5 * MSS)] {
            let mut c = CcState { sack: true, ..CcState::new(variant, 10 * MSS, 0) };
            assert_eq!(c.sack_recovery_entry(20 * MSS, MSS, 10 * MSS), ssthresh, "{variant:?}");
            assert_eq!((c.cwnd, c.recover, c.in_recovery), (ssthresh, 10 * MSS, true));
            assert_eq!(c.on_new_ack(ack(2 * MSS, 2 * MSS)), NewAckAction::None);
            assert_eq!(c.cwnd, ssthresh, "a partial ACK leaves cwnd alone");
            c.on_new_ack(ack(10 * MSS, 8 * MSS));
            assert!(!c.in_recovery);
            assert!(c.cwnd >= ssthresh && c.cwnd <= ssthresh + MSS, "growth resumes from ssthresh");
        }
    }

    #[test]
    fn cubic_grows_only_a_window_it_fills_counted_in_segments() {
        let mut c = CcState::new(Variant::Cubic, MSS, 0);
        // Slow start: one short segment in flight counts as one, and 1 < 2·1: grow.
        c.on_new_ack(NewAck { flight: 200, ..ack(200, 200) });
        assert_eq!(c.cwnd, 2 * MSS);
        // Two segments of window, one in flight: 2 < 2·1 is false: hold.
        c.on_new_ack(NewAck { flight: MSS, ..ack(1200, MSS) });
        assert_eq!(c.cwnd, 2 * MSS);
        // Congestion avoidance: 10 segments of window, 9 in flight: hold; 10 in flight: grow.
        c.ssthresh = 5 * MSS;
        c.cwnd = 10 * MSS;
        c.on_new_ack(NewAck { flight: 9 * MSS, ..ack(5000, MSS) });
        assert_eq!(c.cwnd, 10 * MSS);
        c.on_new_ack(NewAck { flight: 10 * MSS, now: SimTime::ZERO + SimDuration::from_secs(1), ..ack(6000, MSS) });
        assert!(c.cwnd > 10 * MSS);
    }

    #[test]
    fn rto_halves_and_collapses() {
        let mut c = CcState::new(Variant::Reno, 10 * MSS, 0);
        c.on_rto(MSS, 3 * MSS, 0);
        assert_eq!((c.cwnd, c.ssthresh), (MSS, 2 * MSS));
    }

    #[test]
    fn half_advertised_ignores_cwnd_on_timeout_and_fast_retransmit() {
        // A small cwnd (3 segments) under a 20-segment advertised window: BSD halves the usable
        // window (min = 3 → 1, floored at 2 segments); the hypothesis halves the advertised one.
        let mut bsd = CcState::new(Variant::Reno, 3 * MSS, 0);
        bsd.on_rto(MSS, 20 * MSS, 0);
        assert_eq!(bsd.ssthresh, 2 * MSS);
        let mut adv = CcState { on_loss: SsthreshOnLoss::HalfAdvertised, ..CcState::new(Variant::Reno, 3 * MSS, 0) };
        adv.on_rto(MSS, 20 * MSS, 0);
        assert_eq!((adv.cwnd, adv.ssthresh), (MSS, 10 * MSS));
        // Fast retransmit: ssthresh from the advertised window, cwnd = ssthresh + 3 segments.
        let mut adv = CcState { on_loss: SsthreshOnLoss::HalfAdvertised, ..CcState::new(Variant::Reno, 4 * MSS, 0) };
        for _ in 0..2 {
            adv.on_dup_ack(MSS, 21 * MSS, 0, 0, 3);
        }
        assert_eq!(adv.on_dup_ack(MSS, 21 * MSS, 0, 0, 3), DupAckAction::FastRetransmit { cwnd_after: 13 * MSS });
        assert_eq!(adv.ssthresh, 10 * MSS, "whole segments: 21 / 2 = 10");
        // Where cwnd exceeds the advertised window the two rules agree.
        let mut a = CcState { on_loss: SsthreshOnLoss::HalfAdvertised, ..CcState::new(Variant::Reno, 30 * MSS, 0) };
        let mut b = CcState::new(Variant::Reno, 30 * MSS, 0);
        a.on_rto(MSS, 12 * MSS, 0);
        b.on_rto(MSS, 12 * MSS, 0);
        assert_eq!(a, CcState { on_loss: SsthreshOnLoss::HalfAdvertised, ..b });
    }
}
