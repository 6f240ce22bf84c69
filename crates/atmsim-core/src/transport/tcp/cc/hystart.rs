//! HyStart++ (RFC 9406): leaving the initial slow start before it overshoots.
//!
//! Owns: [`HyStart`] — the round-trip rounds of slow start, each round's minimum RTT, and
//! the phase (slow start, Conservative Slow Start, done) — and the growth it allows per ACK.
//!
//! - **Rounds** (§4.2): a round ends when the cumulative ACK reaches `windowEnd`, the
//!   highest sequence sent when it began. Each round keeps its minimum RTT sample
//!   (`currentRoundMinRTT`) and counts its samples.
//! - **Slow start** grows by `min(acked, L·SMSS)` per ACK, `L = 8` (the value for a sender
//!   that does not pace, §4.3).
//! - **Delay increase**: once a round has `N_RTT_SAMPLE = 8` samples, if its minimum is at
//!   least `lastRoundMinRTT + RttThresh`, with `RttThresh = clamp(lastRoundMinRTT / 8,
//!   4 ms, 16 ms)`, slow start ends in **Conservative Slow Start** (CSS), which grows by a
//!   quarter as much (`CSS_GROWTH_DIVISOR = 4`) and remembers the minimum as its baseline.
//! - **CSS** returns to slow start if a round's minimum (with 8 samples) falls below the
//!   baseline (the increase was spurious); after `CSS_ROUNDS = 5` rounds it ends:
//!   `ssthresh = cwnd`, congestion avoidance.
//! - A loss ends HyStart++ for the rest of the connection: it runs in the initial slow start
//!   only, as §4.3 recommends.
//!
//! The samples are the timestamps' RTTM samples ([`super::super::timestamps`]): HyStart++
//! needs one per ACK, hence the scenario's rule that `hystart` needs `timestamps`.

use super::super::seq::seq_geq;
use crate::time::SimDuration;

/// `MIN_RTT_THRESH`.
pub const MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
/// `MAX_RTT_THRESH`.
pub const MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
/// `MIN_RTT_DIVISOR`.
pub const MIN_RTT_DIVISOR: u64 = 8;
/// `N_RTT_SAMPLE`.
pub const N_RTT_SAMPLE: u32 = 8;
/// `CSS_GROWTH_DIVISOR`.
pub const CSS_GROWTH_DIVISOR: u32 = 4;
/// `CSS_ROUNDS`.
pub const CSS_ROUNDS: u32 = 5;
/// `L` for a sender that does not pace: the most segments one ACK may add.
pub const L: u32 = 8;

/// Where the initial slow start is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Conservative Slow Start since a delay increase, with its baseline RTT and the rounds
    /// it has completed.
    Css { baseline: SimDuration, rounds: u32 },
    /// Over (CSS ended, or a loss): the algorithm's own slow start from here on.
    Done,
}

/// What an ACK in slow start does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Grow by this many bytes.
    Grow(u32),
    /// CSS is over: `ssthresh = cwnd`, congestion avoidance.
    EnterAvoidance,
}

/// HyStart++ state of one sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HyStart {
    pub phase: Phase,
    /// `windowEnd`; `None` before the first round.
    window_end: Option<u32>,
    last_round_min: Option<SimDuration>,
    current_round_min: Option<SimDuration>,
    samples: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart { phase: Phase::SlowStart, window_end: None, last_round_min: None, current_round_min: None, samples: 0 }
    }
}

impl HyStart {
    /// Whether it still steers slow start.
    #[inline]
    pub fn active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// A loss: HyStart++ is over for this connection.
    pub fn on_loss(&mut self) {
        self.phase = Phase::Done;
    }

    /// An ACK of `acked` new bytes up to `ack` in slow start, with `snd_max` the highest
    /// sequence sent and `sample` the round trip it measured, if any.
    pub fn on_ack(&mut self, ack: u32, snd_max: u32, acked: u32, mss: u32, sample: Option<SimDuration>) -> Step {
        if self.window_end.is_none_or(|end| seq_geq(ack, end)) && !self.new_round(snd_max) {
            return Step::EnterAvoidance;
        }
        if let Some(r) = sample {
            self.current_round_min = Some(self.current_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        let grow = acked.min(L.saturating_mul(mss));
        match self.phase {
            Phase::SlowStart => {
                if let Some(current) = self.delay_increase() {
                    self.phase = Phase::Css { baseline: current, rounds: 0 };
                }
                Step::Grow(grow)
            }
            Phase::Css { baseline, .. } => {
                if self.samples >= N_RTT_SAMPLE && self.current_round_min.is_some_and(|m| m < baseline) {
                    self.phase = Phase::SlowStart;
                }
                Step::Grow(grow / CSS_GROWTH_DIVISOR)
            }
            Phase::Done => Step::Grow(grow),
        }
    }

    /// A round begins; returns false if CSS has run its rounds.
    fn new_round(&mut self, snd_max: u32) -> bool {
        if self.window_end.is_some() {
            if let Phase::Css { baseline, rounds } = self.phase {
                if rounds + 1 >= CSS_ROUNDS {
                    self.phase = Phase::Done;
                    return false;
                }
                self.phase = Phase::Css { baseline, rounds: rounds + 1 };
            }
        }
        self.window_end = Some(snd_max);
        self.last_round_min = self.current_round_min;
        self.current_round_min = None;
        self.samples = 0;
        true
    }

    /// The round's minimum RTT if it shows the delay increase of §4.2.
    fn delay_increase(&self) -> Option<SimDuration> {
        let (Some(current), Some(last)) = (self.current_round_min, self.last_round_min) else { return None };
        if self.samples < N_RTT_SAMPLE {
            return None;
        }
        let thresh = SimDuration::from_ps(last.as_ps() / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
        (current >= SimDuration::from_ps(last.as_ps() + thresh.as_ps())).then_some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    /// One round of `n` ACKs of one segment each, every one measuring `rtt_ms`. The round's
    /// first ACK reaches the previous round's `windowEnd`; while it runs the sender has sent
    /// up to the next round's end.
    fn round(h: &mut HyStart, seq: &mut u32, n: u32, rtt_ms: u64) -> Vec<Step> {
        let start = *seq;
        *seq += n * MSS;
        (0..n).map(|i| h.on_ack(start + i * MSS, *seq, MSS, MSS, Some(SimDuration::from_millis(rtt_ms)))).collect()
    }

    #[test]
    fn a_steady_rtt_stays_in_slow_start() {
        let mut h = HyStart::default();
        let mut seq = 0;
        for _ in 0..6 {
            let steps = round(&mut h, &mut seq, 10, 50);
            assert!(steps.iter().all(|s| *s == Step::Grow(MSS)));
        }
        assert_eq!(h.phase, Phase::SlowStart);
    }

    #[test]
    fn a_delay_increase_enters_css_and_five_rounds_end_it() {
        let mut h = HyStart::default();
        let mut seq = 0;
        round(&mut h, &mut seq, 10, 50);
        // RttThresh = clamp(50/8 = 6.25 ms, 4, 16): 56 ms is enough, 55 is not.
        round(&mut h, &mut seq, 10, 55);
        assert_eq!(h.phase, Phase::SlowStart, "55 ms < 50 + 6.25 ms");
        let steps = round(&mut h, &mut seq, 10, 62);
        assert!(matches!(h.phase, Phase::Css { rounds: 0, .. }), "{:?}", h.phase);
        assert_eq!(steps[7], Step::Grow(MSS), "the eighth sample decides; its ACK still grows fully");
        assert_eq!(steps[8], Step::Grow(MSS / CSS_GROWTH_DIVISOR), "then a quarter");
        for r in 1..CSS_ROUNDS {
            round(&mut h, &mut seq, 10, 70);
            assert_eq!(h.phase, Phase::Css { baseline: SimDuration::from_millis(62), rounds: r });
        }
        let steps = round(&mut h, &mut seq, 10, 70);
        assert_eq!(steps[0], Step::EnterAvoidance);
        assert_eq!(h.phase, Phase::Done);
    }

    #[test]
    fn css_returns_to_slow_start_when_the_rtt_falls_back() {
        let mut h = HyStart::default();
        let mut seq = 0;
        round(&mut h, &mut seq, 10, 40);
        round(&mut h, &mut seq, 10, 60);
        assert!(matches!(h.phase, Phase::Css { .. }));
        round(&mut h, &mut seq, 10, 45);
        assert_eq!(h.phase, Phase::SlowStart);
    }

    #[test]
    fn growth_per_ack_is_capped_at_l_segments() {
        let mut h = HyStart::default();
        assert_eq!(h.on_ack(20 * MSS, 40 * MSS, 20 * MSS, MSS, None), Step::Grow(L * MSS));
    }
}
