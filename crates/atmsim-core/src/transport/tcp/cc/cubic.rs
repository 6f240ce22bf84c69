//! CUBIC congestion avoidance (RFC 9438).
//!
//! Owns: [`Cubic`] — `W_max`, `cwnd_prior`, `K`, the epoch and the Reno-friendly estimate
//! `W_est` — and the window CUBIC sets after an ACK in congestion avoidance, after a
//! congestion event and after a timeout. Slow start and loss recovery are the shared
//! machinery of [`super`]; CUBIC changes neither (RFC 9438 §1: it keeps the fast
//! retransmit and recovery of RFC 6582 and RFC 6675).
//!
//! Units: windows in segments (`f64`), as the RFC writes them; the caller's `cwnd` is in
//! bytes, converted with the MSS. The fractional bytes a step leaves are carried to the
//! next ACK, so slow growth is not rounded away.
//!
//! - **Window function** (§4.2, eqs. 1–2): `W_cubic(t) = C·(t − K)³ + W_max`, with
//!   `K = ∛((W_max − cwnd_epoch)/C)`, `t` the time since the congestion-avoidance stage began
//!   (`t_epoch`), `C = 0.4`.
//! - **Target** (§4.2): `W_cubic(t + RTT)` bounded to `[cwnd, 1.5·cwnd]`; each ACK adds
//!   `(target − cwnd)/cwnd` per segment acknowledged (concave below `W_max`, convex above).
//! - **Reno-friendly region** (§4.3): `W_est` starts at `cwnd_epoch` and grows by
//!   `α_cubic·acked/cwnd` per ACK, `α_cubic = 3(1 − β)/(1 + β)`, and by 1 per window once
//!   `W_est ≥ cwnd_prior` (the window before the last reduction: the erratum of the
//!   rfc8312bis tracker, PR #146); while `W_cubic(t) < W_est`, `cwnd = W_est`.
//! - **Multiplicative decrease** (§4.6): `ssthresh = cwnd·β`, `β = 0.7`, at least two
//!   segments (`cwnd`, not the flight size: what Linux and Windows do, and the RFC's text).
//! - **Fast convergence** (§4.7): a reduction below the last `W_max` remembers
//!   `W_max = cwnd·(1 + β)/2`, releasing bandwidth to newer flows.
//! - **Timeout** (§4.8): `ssthresh` as after a congestion event; the first congestion
//!   avoidance stage after it starts with `K = 0` and `W_max` = the window at its start.
//!   A first stage with no reduction before it (HyStart++ left slow start) does the same.
//! - **Idle restart**: after BSD's slow-start restart the stage ends too, so the idle time is
//!   not counted as growth (Linux moves `t_epoch` by the idle time to the same end).
//!
//! - **Application-limited** (§5.8): an ACK that finds the sender not filling its window
//!   (fewer segments in flight before it than whole segments in `cwnd`, a short segment
//!   counting as one: the application, or the peer's window, is the limit) leaves `cwnd` and
//!   `W_est` alone and stops the stage's clock ([`Cubic::hold`]). In slow start the window
//!   grows only while it is below twice the flight in segments, as Linux's
//!   `tcp_is_cwnd_limited` has it in packets ([`super`]). BSD's variants keep 4.4-Lite's
//!   rule: they grow whatever they send.

use crate::time::{SimDuration, SimTime};

/// `C` (§5): segments per second³.
pub const C: f64 = 0.4;
/// `β_cubic` (§4.6).
pub const BETA: f64 = 0.7;
/// `α_cubic = 3(1 − β)/(1 + β)` (§4.3): the Reno-friendly additive increase.
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// CUBIC's state between congestion events.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cubic {
    /// Fast convergence (§4.7), on by default as the RFC recommends.
    pub fast_convergence: bool,
    /// `W_max` \[segments\]: the window at the last reduction (0: none yet).
    w_max: f64,
    /// `cwnd_prior` \[segments\]: the window just before the last reduction.
    cwnd_prior: f64,
    /// `K` \[s\].
    k: f64,
    /// `t_epoch`: when this congestion-avoidance stage began; `None` until its first ACK.
    epoch: Option<SimTime>,
    /// `W_est` \[segments\].
    w_est: f64,
    /// The stage follows a timeout (§4.8): `K = 0`, `W_max` = the window at its start.
    after_timeout: bool,
    /// Bytes of growth not yet whole, carried to the next ACK.
    carry: f64,
    /// The previous ACK of the stage: an application-limited stretch since then does not
    /// count as the stage's time.
    last_ack: SimTime,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            fast_convergence: true,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch: None,
            w_est: 0.0,
            after_timeout: false,
            carry: 0.0,
            last_ack: SimTime::ZERO,
        }
    }
}

impl Cubic {
    /// `W_cubic(t)` \[segments\], `t` in seconds since the epoch (eq. 1).
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        C * d * d * d + self.w_max
    }
    /// `K` \[s\] of the current stage.
    pub fn k(&self) -> f64 {
        self.k
    }
    /// `W_max` \[segments\].
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// `W_est` \[segments\].
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    /// `t_epoch`: when the current congestion-avoidance stage began, if it has.
    pub fn epoch(&self) -> Option<SimTime> {
        self.epoch
    }

    /// A congestion event (fast retransmit, or SACK recovery begins) with `cwnd` bytes:
    /// remember `W_max` and `cwnd_prior`, end the stage, return `ssthresh` \[bytes\].
    pub fn on_congestion(&mut self, cwnd: u32, mss: u32) -> u32 {
        let m = mss.max(1) as f64;
        let w = cwnd as f64 / m;
        self.w_max = if self.fast_convergence && w < self.w_max { w * (1.0 + BETA) / 2.0 } else { w };
        self.cwnd_prior = w;
        self.epoch = None;
        self.after_timeout = false;
        self.carry = 0.0;
        ((cwnd as f64 * BETA) as u32).max(2 * mss.max(1))
    }

    /// A retransmission timeout: `ssthresh` as [`Self::on_congestion`]; the next stage
    /// starts afresh (§4.8).
    pub fn on_timeout(&mut self, cwnd: u32, mss: u32) -> u32 {
        let ssthresh = self.on_congestion(cwnd, mss);
        self.after_timeout = true;
        ssthresh
    }

    /// The sender restarts from one segment after an idle period: the stage ends, `W_max`
    /// stays, and `K` is computed afresh when congestion avoidance resumes.
    pub fn on_idle(&mut self) {
        self.epoch = None;
        self.carry = 0.0;
    }

    /// An ACK in congestion avoidance while the sender does not fill its window (§5.8: the
    /// application or the peer's window is the limit): `cwnd` stays, and the stage's clock
    /// stops — `t_epoch` moves on by the time since the previous ACK, so the curve resumes
    /// where it was, as Linux shifts it after an idle period.
    pub fn hold(&mut self, now: SimTime) {
        if let Some(e) = self.epoch {
            self.epoch = Some(e + now.since(self.last_ack));
        }
        self.last_ack = now;
    }

    /// The window \[bytes\] after an ACK of `acked` bytes in congestion avoidance, at `now`,
    /// with smoothed round-trip time `rtt` (zero before any sample).
    pub fn grow(&mut self, cwnd: u32, mss: u32, acked: u32, now: SimTime, rtt: SimDuration) -> u32 {
        let m = mss.max(1) as f64;
        let w = cwnd.max(1) as f64 / m;
        let epoch = match self.epoch {
            Some(e) => e,
            None => self.begin_stage(w, now),
        };
        self.last_ack = now;
        let t = now.since(epoch).as_secs_f64();
        let segs = acked as f64 / m;
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { ALPHA };
        self.w_est += alpha * segs / w;
        let next = if self.w_cubic(t) < self.w_est {
            self.w_est
        } else {
            let target = self.w_cubic(t + rtt.as_secs_f64()).clamp(w, 1.5 * w);
            w + (target - w) / w * segs
        };
        let exact = next * m - cwnd as f64 + self.carry;
        let whole = exact.floor().max(0.0);
        self.carry = if exact > 0.0 { exact - whole } else { 0.0 };
        cwnd.saturating_add(whole.min(u32::MAX as f64) as u32)
    }

    /// The first ACK of a congestion-avoidance stage: `t_epoch`, `cwnd_epoch`, `W_est` and `K`.
    fn begin_stage(&mut self, w: f64, now: SimTime) -> SimTime {
        self.epoch = Some(now);
        self.w_est = w;
        if self.after_timeout || self.w_max <= w {
            self.w_max = w;
            self.k = 0.0;
            self.after_timeout = false;
        } else {
            self.k = ((self.w_max - w) / C).cbrt();
        }
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn secs(s: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(s)
    }

    /// Drive one stage with an ACK clock: one ACK per segment, `cwnd` of them per round trip
    /// `rtt`; returns (t, cwnd in segments) after every ACK.
    fn stage(c: &mut Cubic, mut cwnd: u32, rtt: f64, until: f64) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        let mut t = 0.0;
        while t <= until {
            cwnd = c.grow(cwnd, MSS, MSS, secs(10.0 + t), SimDuration::from_secs_f64(rtt));
            let w = cwnd as f64 / MSS as f64;
            out.push((t, w));
            t += rtt / w;
        }
        out
    }

    #[test]
    fn reduction_is_beta_and_k_is_the_closed_form() {
        let mut c = Cubic::default();
        let ssthresh = c.on_congestion(100 * MSS, MSS);
        assert_eq!(ssthresh, 70 * MSS);
        assert_eq!(c.w_max(), 100.0);
        c.grow(ssthresh, MSS, MSS, secs(1.0), SimDuration::ZERO);
        let k = (100.0 * (1.0 - BETA) / C).cbrt();
        assert!((c.k() - k).abs() < 1e-12, "K = ∛(W_max(1 − β)/C) = {k}, got {}", c.k());
    }

    #[test]
    fn window_follows_the_cubic_function_with_a_large_w_max() {
        // W_max = 1000 segments, RTT 100 ms: the cubic region (W_cubic > W_est throughout).
        // Each ACK aims at W_cubic(t + RTT) and a round trip brings cwnd there, so cwnd(t)
        // tracks W(t) = C(t − K)³ + W_max with K = ∛(W_max(1 − β)/C).
        let mut c = Cubic::default();
        let w0 = c.on_congestion(1000 * MSS, MSS);
        let trace = stage(&mut c, w0, 0.1, 25.0);
        let k = (1000.0 * 0.3 / C).cbrt();
        let mut checked = 0;
        for &(t, w) in trace.iter().filter(|p| p.0 >= 1.0) {
            let closed = C * (t - k).powi(3) + 1000.0;
            let tol = 2.0 + 0.01 * closed;
            assert!((w - closed).abs() <= tol, "t = {t:.2} s: cwnd {w:.2}, W(t) {closed:.2}");
            checked += 1;
        }
        assert!(checked > 10_000, "{checked} ACKs checked");
        // Concave below W_max, plateau near K, convex above.
        let at = |t: f64| trace.iter().find(|p| p.0 >= t).unwrap().1;
        assert!((at(k) - 1000.0).abs() < 3.0, "near W_max at K: {}", at(k));
        assert!(at(k + 5.0) - at(k) > 40.0, "convex growth beyond K");
        assert!(at(k / 2.0) - at(0.5) > at(k) - at(k / 2.0), "concave: fast, then slow");
    }

    #[test]
    fn target_is_bounded_to_one_and_a_half_cwnd() {
        // A large RTT puts W_cubic(t + RTT) far above cwnd: the step is capped at half a
        // segment per segment acknowledged, (1.5·cwnd − cwnd)/cwnd.
        let mut c = Cubic::default();
        c.on_congestion(200 * MSS, MSS);
        let rtt = SimDuration::from_secs_f64(50.0);
        // The stage's first ACK: W_cubic(0) = cwnd_epoch < W_est, the Reno-friendly step.
        let w = c.grow(10 * MSS, MSS, MSS, secs(100.0), rtt);
        assert_eq!(w, 10 * MSS + (ALPHA * 100.0) as u32);
        // A second later W_cubic(1 s) ≈ 74 segments ≫ W_est: the cubic region, capped.
        let next = c.grow(w, MSS, MSS, secs(101.0), rtt);
        assert!(next.abs_diff(w + MSS / 2) <= 1, "{next} vs {}", w + MSS / 2);
    }

    #[test]
    fn reno_friendly_region_grows_by_alpha_until_cwnd_prior() {
        // A small W_max: W_cubic stays under W_est, so cwnd = W_est, which grows by α_cubic
        // ≈ 0.53 segments per window of ACKs until it reaches cwnd_prior, then by 1.
        let mut c = Cubic::default();
        let ssthresh = c.on_congestion(10 * MSS, MSS); // W_max = cwnd_prior = 10, cwnd 7
        assert_eq!(ssthresh, 7 * MSS);
        let mut cwnd = ssthresh;
        let mut now = 0.0;
        let mut per_window = Vec::new();
        for _ in 0..12 {
            let w0 = cwnd as f64 / MSS as f64;
            let start_est = c.w_est();
            for _ in 0..w0.round() as usize {
                cwnd = c.grow(cwnd, MSS, MSS, secs(now), SimDuration::ZERO);
            }
            now += 0.0001; // a tiny RTT: W_cubic(t) ≈ W_max − C·K³ < W_est throughout
            per_window.push((start_est, c.w_est() - if start_est == 0.0 { 7.0 } else { start_est }));
        }
        let (first_est, first_gain) = per_window[0];
        assert_eq!(first_est, 0.0);
        assert!((first_gain - ALPHA).abs() < 0.05, "first window adds α = {ALPHA:.3}, got {first_gain:.3}");
        let late = per_window.iter().find(|(e, _)| *e >= 10.0).expect("W_est passes cwnd_prior");
        assert!((late.1 - 1.0).abs() < 0.1, "above cwnd_prior the gain is 1 per window, got {:.3}", late.1);
        assert!((cwnd as f64 / MSS as f64 - c.w_est()).abs() < 0.01, "cwnd = W_est in the region");
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_smaller_peak() {
        let mut c = Cubic::default();
        c.on_congestion(100 * MSS, MSS);
        c.on_congestion(80 * MSS, MSS);
        assert!((c.w_max() - 80.0 * 0.85).abs() < 1e-9);
        let mut off = Cubic { fast_convergence: false, ..Cubic::default() };
        off.on_congestion(100 * MSS, MSS);
        off.on_congestion(80 * MSS, MSS);
        assert_eq!(off.w_max(), 80.0);
    }

    #[test]
    fn an_application_limited_stretch_stops_the_clock() {
        let rtt = SimDuration::from_millis(100);
        let mut a = Cubic::default();
        let mut b = Cubic::default();
        a.on_congestion(100 * MSS, MSS);
        b.on_congestion(100 * MSS, MSS);
        let w = a.grow(70 * MSS, MSS, MSS, secs(1.0), rtt);
        assert_eq!(b.grow(70 * MSS, MSS, MSS, secs(1.0), rtt), w);
        // b is application-limited for 10 s of ACKs: no growth, and its epoch moves on.
        for i in 1..=100 {
            b.hold(secs(1.0 + 0.1 * i as f64));
        }
        assert_eq!(b.epoch(), Some(secs(11.0)));
        // The next ACKs grow both alike, b ten seconds later on the same curve.
        let wa = a.grow(w, MSS, MSS, secs(1.5), rtt);
        let wb = b.grow(w, MSS, MSS, secs(11.5), rtt);
        assert_eq!(wa, wb);
        assert_eq!(a.w_est(), b.w_est(), "W_est did not grow while limited");
    }

    #[test]
    fn an_idle_restart_ends_the_stage() {
        let mut c = Cubic::default();
        c.on_congestion(100 * MSS, MSS);
        c.grow(70 * MSS, MSS, MSS, secs(1.0), SimDuration::ZERO);
        assert_eq!(c.epoch(), Some(secs(1.0)));
        c.on_idle();
        assert_eq!(c.epoch(), None);
        // Resuming at 50 segments, an hour later: K from W_max = 100 and the new start.
        c.grow(50 * MSS, MSS, MSS, secs(3600.0), SimDuration::ZERO);
        assert_eq!(c.epoch(), Some(secs(3600.0)));
        assert!((c.k() - (50.0 / C).cbrt()).abs() < 1e-12);
    }

    #[test]
    fn after_a_timeout_the_stage_starts_with_k_zero() {
        let mut c = Cubic::default();
        assert_eq!(c.on_timeout(50 * MSS, MSS), 35 * MSS);
        c.grow(35 * MSS, MSS, MSS, secs(3.0), SimDuration::ZERO);
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), 35.0);
    }
}
