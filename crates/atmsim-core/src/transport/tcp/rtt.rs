//! Round-trip-time estimation and retransmission timeout (Jacobson/Karels, SIGCOMM '88).
//!
//! Owns: [`RttEstimator`] — BSD 4.4-Lite's `t_srtt`, `t_rttvar`, `t_rxtcur`, `t_rxtshift`,
//! `t_rtt` and `t_rtseq`, with `tcp_xmit_timer()` (tcp_input.c), the `TCPT_REXMT` back-off of
//! `tcp_timers()` (tcp_timer.c) and `tcp_setpersist()` (tcp_output.c).
//!
//! Units are BSD's: slow-timer ticks (500 ms). `t_srtt` is a fixed-point number scaled by 8
//! (`TCP_RTT_SHIFT` = 3) and `t_rttvar` one scaled by 4 (`TCP_RTTVAR_SHIFT` = 2).
//! `TCP_REXMTVAL` is the 4.4-Lite macro `(t_srtt >> 3) + t_rttvar`, i.e. srtt + 4·rttvar in
//! ticks (tcp_var.h). Karn's rule (RFC 6298 §3, Karn & Partridge '87) is implemented by the
//! caller clearing `t_rtt` whenever it retransmits ([`RttEstimator::cancel_timing`]).
//!
//! Also owns [`SmoothedRtt`]: the same samples at the simulator's resolution, smoothed as
//! RFC 6298 §2 does (`α = 1/8`), with the smallest seen. BSD's timers never read it; the
//! congestion-control algorithms that need a round-trip time in seconds (CUBIC's target,
//! HyStart++'s rounds) do, as Linux's read `srtt_us` rather than the 500 ms tick.

use crate::time::SimDuration;

/// `TCP_RTT_SHIFT`: t_srtt is scaled by 8.
pub const TCP_RTT_SHIFT: u32 = 3;
/// `TCP_RTTVAR_SHIFT`: t_rttvar is scaled by 4.
pub const TCP_RTTVAR_SHIFT: u32 = 2;
/// `tcp_backoff[]` (tcp_timer.c): RTO multiplier per back-off step.
pub const TCP_BACKOFF: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];
/// `TCP_MAXRXTSHIFT`: length of the back-off table minus one.
pub const TCP_MAXRXTSHIFT: u32 = 12;
/// `TCPTV_PERSMIN` (5 s) and `TCPTV_PERSMAX` (60 s) [slow ticks].
pub const TCPTV_PERSMIN: u32 = 10;
pub const TCPTV_PERSMAX: u32 = 120;

/// `tcp_backoff[shift]`, saturating at the last entry.
#[inline]
pub fn backoff(shift: u32) -> u32 {
    TCP_BACKOFF[(shift as usize).min(TCP_BACKOFF.len() - 1)]
}

/// `TCPT_RANGESET(tv, value, tvmin, tvmax)`.
#[inline]
pub fn rangeset(value: u32, min: u32, max: u32) -> u32 {
    value.clamp(min, max.max(min))
}

/// Round-trip samples at full resolution: the smoothed value (RFC 6298 §2.3, `α = 1/8`) and
/// the minimum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmoothedRtt {
    /// SRTT; zero before the first sample.
    pub srtt: SimDuration,
    /// The smallest sample; zero before the first.
    pub min: SimDuration,
}

impl SmoothedRtt {
    /// Take one sample `r`: the first sets SRTT, later ones move it by `(r − SRTT)/8`.
    pub fn sample(&mut self, r: SimDuration) {
        if self.srtt == SimDuration::ZERO {
            self.srtt = r;
            self.min = r;
        } else {
            let (s, r) = (self.srtt.as_ps() as i128, r.as_ps() as i128);
            self.srtt = SimDuration::from_ps((s + (r - s) / 8).max(1) as u64);
            self.min = self.min.min(SimDuration::from_ps(r as u64));
        }
    }
}

/// The per-connection RTT state (fields of `struct tcpcb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    /// `t_srtt`: smoothed RTT [ticks × 8]; 0 = no sample yet.
    pub srtt: i32,
    /// `t_rttvar`: RTT mean deviation [ticks × 4].
    pub rttvar: i32,
    /// `t_rxtcur`: current retransmission timeout \[ticks\].
    pub rxtcur: u32,
    /// `t_rxtshift`: back-off index.
    pub rxtshift: u32,
    /// `t_rtt`: ticks since the timed segment was sent, starting at 1; 0 = not timing.
    pub rtt: u32,
    /// `t_rtseq`: sequence number being timed.
    pub rtseq: u32,
    /// `t_rttmin` \[ticks\].
    pub rto_min: u32,
    /// `TCPTV_REXMTMAX` \[ticks\].
    pub rto_max: u32,
}

impl RttEstimator {
    /// `tcp_newtcpcb()` of 4.4-Lite, no sample yet, with `srttdflt` = `TCPTV_SRTTDFLT` ticks
    /// (6 = 3 s): `t_srtt = TCPTV_SRTTBASE = 0`, `t_rttvar = srttdflt << 2` (4.4-Lite:
    /// `tcp_rttdflt * PR_SLOWHZ << 2`) and `t_rxtcur = ((0 >> 2) + (srttdflt << 2)) >> 1`
    /// = 2·srttdflt. So a first SYN is resent after 12 ticks (6 s) and, backed off from
    /// `TCP_REXMTVAL = 24` ticks, then after 48 and 96 ticks (24 s, 48 s) — the 6/24/48 s of
    /// 4.4BSD's connection establishment (Stevens, TCP/IP Illustrated Vol. 2, §25).
    pub fn new(srttdflt: u32, rto_min: u32, rto_max: u32) -> Self {
        RttEstimator {
            srtt: 0,
            rttvar: (srttdflt << TCP_RTTVAR_SHIFT) as i32,
            rxtcur: rangeset((srttdflt << TCP_RTTVAR_SHIFT) >> 1, rto_min, rto_max),
            rxtshift: 0,
            rtt: 0,
            rtseq: 0,
            rto_min,
            rto_max,
        }
    }

    /// `TCP_REXMTVAL(tp)` (4.4-Lite tcp_var.h): `(t_srtt >> 3) + t_rttvar` \[ticks\].
    #[inline]
    pub fn rexmtval(&self) -> u32 {
        ((self.srtt >> TCP_RTT_SHIFT) + self.rttvar).max(0) as u32
    }

    /// Start timing the segment whose first sequence number is `seq` (tcp_output), unless a
    /// segment is already being timed. Returns whether timing started.
    pub fn start_timing(&mut self, seq: u32) -> bool {
        if self.rtt == 0 {
            self.rtt = 1;
            self.rtseq = seq;
            true
        } else {
            false
        }
    }

    /// Karn's rule: a retransmission invalidates the running measurement (BSD sets t_rtt = 0).
    #[inline]
    pub fn cancel_timing(&mut self) {
        self.rtt = 0;
    }

    /// One slow tick elapsed (tcp_slowtimo: `if (tp->t_rtt) tp->t_rtt++`).
    #[inline]
    pub fn tick(&mut self) {
        if self.rtt != 0 {
            self.rtt = self.rtt.saturating_add(1);
        }
    }

    /// Whether an ACK for `ack` completes the running measurement (`t_rtt && SEQ_GT(ack,
    /// t_rtseq)`); returns the measured value in ticks, to be fed to [`Self::xmit_timer`].
    #[inline]
    pub fn sample_for_ack(&self, ack: u32) -> Option<u32> {
        (self.rtt != 0 && (ack.wrapping_sub(self.rtseq) as i32) > 0).then_some(self.rtt)
    }

    /// `tcp_xmit_timer(tp, rtt)` (4.4-Lite tcp_input.c), `rtt` in ticks counted from 1.
    pub fn xmit_timer(&mut self, rtt: u32) {
        let rtt = rtt.min(i32::MAX as u32 >> 4) as i32;
        if self.srtt != 0 {
            // srtt = 7/8 srtt + 1/8 rtt, with rtt adjusted to origin 0 ("rtt - 1").
            let mut delta = rtt - 1 - (self.srtt >> TCP_RTT_SHIFT);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            // rttvar = 3/4 rttvar + 1/4 |delta|.
            delta -= self.rttvar >> TCP_RTTVAR_SHIFT;
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            // First sample: srtt = rtt, rttvar = rtt / 2 (both in their scaled units).
            self.srtt = rtt << TCP_RTT_SHIFT;
            self.rttvar = rtt << (TCP_RTTVAR_SHIFT - 1);
        }
        self.rtt = 0;
        self.rxtshift = 0;
        self.rxtcur = rangeset(self.rexmtval(), self.rto_min, self.rto_max);
    }

    /// The `TCPT_REXMT` expiry of `tcp_timers()`: back off once. Returns `false` when the
    /// connection must be dropped (`++t_rxtshift > max_shift`).
    pub fn on_rexmt_timeout(&mut self, max_shift: u32) -> bool {
        self.rxtshift += 1;
        if self.rxtshift > max_shift.min(TCP_MAXRXTSHIFT) {
            self.rxtshift = max_shift.min(TCP_MAXRXTSHIFT);
            return false;
        }
        let rexmt = self.rexmtval().saturating_mul(backoff(self.rxtshift));
        self.rxtcur = rangeset(rexmt, self.rto_min, self.rto_max);
        // "If we backed off this far, our srtt estimate is probably bogus. Clobber it so we'll
        // take the next rtt measurement as our srtt; move the current srtt into rttvar."
        if self.rxtshift > TCP_MAXRXTSHIFT / 4 {
            self.rttvar += self.srtt >> TCP_RTT_SHIFT;
            self.srtt = 0;
        }
        self.rtt = 0;
        true
    }

    /// `tcp_setpersist()`: the persist interval for the current back-off, then back off.
    /// (4.4-Lite uses the old `((srtt >> 2) + rttvar) >> 1` expression here.)
    pub fn persist_interval(&mut self) -> u32 {
        let t = (((self.srtt >> 2) + self.rttvar) >> 1).max(0) as u32;
        let v = rangeset(t.saturating_mul(backoff(self.rxtshift)), TCPTV_PERSMIN, TCPTV_PERSMAX);
        if self.rxtshift < TCP_MAXRXTSHIFT {
            self.rxtshift += 1;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoothed_rtt_moves_an_eighth_of_the_way() {
        let mut s = SmoothedRtt::default();
        s.sample(SimDuration::from_millis(80));
        assert_eq!(s.srtt, SimDuration::from_millis(80));
        s.sample(SimDuration::from_millis(160));
        assert_eq!(s.srtt, SimDuration::from_millis(90));
        s.sample(SimDuration::from_millis(10));
        assert_eq!(s.srtt, SimDuration::from_millis(80));
        assert_eq!(s.min, SimDuration::from_millis(10));
    }

    fn est() -> RttEstimator {
        RttEstimator::new(6, 2, 128)
    }

    #[test]
    fn a_fresh_estimator_times_out_like_4_4_lite_tcp_newtcpcb() {
        // t_rxtcur = ((0 >> 2) + (6 << 2)) >> 1 = 12 ticks; t_rttvar = 6 << 2 = 24.
        let mut e = est();
        assert_eq!(e.rxtcur, 12);
        assert_eq!(e.rexmtval(), 24);
        // A lost SYN: resent after 6 s, then 24 s, then 48 s (REXMTVAL 24 × backoff 2, 4).
        assert!(e.on_rexmt_timeout(12));
        assert_eq!(e.rxtcur, 48);
        assert!(e.on_rexmt_timeout(12));
        assert_eq!(e.rxtcur, 96);
    }

    #[test]
    fn xmit_timer_known_sequence_matches_hand_arithmetic() {
        let mut e = est();
        // Sample 1: rtt=4 (first): srtt = 4<<3 = 32, rttvar = 4<<1 = 8.
        //   REXMTVAL = (32>>3) + 8 = 12 → rxtcur 12.
        e.xmit_timer(4);
        assert_eq!((e.srtt, e.rttvar, e.rxtcur), (32, 8, 12));
        // Sample 2: rtt=4: delta = 4-1-(32>>3) = -1; srtt = 31; |delta| = 1;
        //   delta = 1 - (8>>2) = -1; rttvar = 7. REXMTVAL = (31>>3)+7 = 3+7 = 10.
        e.xmit_timer(4);
        assert_eq!((e.srtt, e.rttvar, e.rxtcur), (31, 7, 10));
        // Sample 3: rtt=12: delta = 12-1-(31>>3)= 11-3 = 8; srtt = 39; delta = 8-(7>>2) = 7;
        //   rttvar = 14. REXMTVAL = (39>>3)+14 = 4+14 = 18.
        e.xmit_timer(12);
        assert_eq!((e.srtt, e.rttvar, e.rxtcur), (39, 14, 18));
        // Sample 4: rtt=1: delta = 1-1-4 = -4; srtt = 35; |delta| = 4; delta = 4-(14>>2) = 1;
        //   rttvar = 15. REXMTVAL = 4+15 = 19.
        e.xmit_timer(1);
        assert_eq!((e.srtt, e.rttvar, e.rxtcur), (35, 15, 19));
        assert_eq!(e.rtt, 0);
    }

    #[test]
    fn xmit_timer_small_rtt_clamps_at_rto_min() {
        let mut e = est();
        // rtt=1: srtt=8, rttvar=2, REXMTVAL=(8>>3)+2 = 3 ≥ 2.
        e.xmit_timer(1);
        assert_eq!(e.rxtcur, 3);
        // Repeated 1-tick samples: delta = 1-1-1 = -1 → srtt 7, then rttvar shrinks:
        // |delta| 1 - (2>>2)=1 → rttvar 3; next: srtt 7>>3=0 → delta 0, srtt 7, rttvar 3-(3>>2)=3.
        for _ in 0..20 {
            e.xmit_timer(1);
        }
        assert!(e.rxtcur >= 2);
    }

    #[test]
    fn rexmt_timeout_backoff_doubles_and_clamps() {
        let mut e = est();
        e.xmit_timer(4); // rexmtval 12
        let mut seq = vec![];
        for _ in 0..8 {
            assert!(e.on_rexmt_timeout(12));
            seq.push(e.rxtcur);
        }
        // shift 1..3: 12·{2,4,8} = 24, 48, 96. At shift 4 (>3) srtt is clobbered after
        // computing rxtcur = 12·16 = 192 → clamped 128; rttvar becomes 8+4 = 12, srtt 0, so
        // REXMTVAL stays 12: 12·32, 12·64 … all clamped at 128.
        assert_eq!(seq, vec![24, 48, 96, 128, 128, 128, 128, 128]);
    }

    #[test]
    fn rexmt_timeout_gives_up_after_max_shift() {
        let mut e = est();
        for _ in 0..3 {
            assert!(e.on_rexmt_timeout(3));
        }
        assert!(!e.on_rexmt_timeout(3));
    }

    #[test]
    fn karn_cancel_prevents_sample() {
        let mut e = est();
        e.start_timing(100);
        e.tick();
        e.cancel_timing();
        assert_eq!(e.sample_for_ack(200), None);
        e.start_timing(300);
        assert_eq!(e.sample_for_ack(300), None, "ack must exceed t_rtseq");
        assert_eq!(e.sample_for_ack(301), Some(1));
    }

    #[test]
    fn persist_interval_backs_off_within_bounds() {
        let mut e = est();
        // tcp_setpersist before any sample: ((0 >> 2) + 24) >> 1 = 12 ticks, backed off
        // ×1, 2, 4, … and clamped to PERSMIN 10 .. PERSMAX 120 ticks.
        let v: Vec<u32> = (0..7).map(|_| e.persist_interval()).collect();
        assert_eq!(v, vec![12, 24, 48, 96, 120, 120, 120]);
    }
}
