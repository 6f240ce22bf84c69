//! TCP timestamps (RFC 7323 §3–5): round-trip measurement (RTTM) and protection against
//! wrapped sequence numbers (PAWS).
//!
//! Owns: [`TsState`] — whether the connection uses the option, `TS.Recent`, its age and
//! `Last.ACK.sent` — and the rules that read them:
//!
//! - **Negotiation** (§3.2): a SYN carries the option when the endpoint is configured for
//!   it; a SYN-ACK only if the SYN had it; the connection uses it when both SYNs did.
//! - **Clock** (§5.4): one tick per millisecond of simulated time (RFC 7323 asks for 1 ms to
//!   1 s; Linux ticks in ms), starting at 0: simulated hosts need no random offset.
//! - **What to echo** (§4.3): `TS.Recent` is the TSval of the segment that last advanced
//!   the left edge the receiver acknowledges — updated when `TSval ≥ TS.Recent` and
//!   `SEG.SEQ ≤ Last.ACK.sent` (the 2014 rule, which RFC 7323 §4.3 gives in place of
//!   RFC 1323's) — so delayed ACKs and losses lengthen the measured round trip as they
//!   should.
//! - **RTTM** (§4.1–4.2): every ACK that advances `SND.UNA` and carries a TSecr gives a
//!   sample `now − TSecr`, of millisecond resolution, fed to the BSD estimator in its
//!   500 ms ticks as 4.4-Lite feeds `tcp_now − ts_ecr + 1`, and at full resolution to the
//!   algorithms' smoothed RTT. (Karn's rule is not needed: a retransmission carries a fresh
//!   TSval.)
//! - **PAWS** (§5.3): a segment whose TSval is older than `TS.Recent` is a duplicate from an
//!   earlier wrap of the sequence space: it is dropped and answered with an ACK, unless it
//!   is a RST, or `TS.Recent` has been idle for more than 24 days (R3: then it is stale and
//!   the segment is accepted).
//!
//! Option bytes (12 per segment) are counted by [`super::segment::Segment::options_bytes`];
//! the data a segment carries shrinks by the same 12 bytes ([`super::conn`]'s `tcp_mss`, as
//! FreeBSD and Linux size it).

use super::segment::{Flags, Segment, Timestamps};
use super::seq::seq_leq;
use crate::time::{SimDuration, SimTime};

/// Bytes the option takes in every segment once in use (10 + two NOPs).
pub const TS_OPTION_BYTES: u32 = 12;
/// PAWS idle limit (§5.5): `TS.Recent` older than 24 days is invalid.
pub const PAWS_IDLE: SimDuration = SimDuration::from_secs(24 * 24 * 3600);
/// Picoseconds per timestamp tick (1 ms).
const PS_PER_TICK: u64 = 1_000_000_000;

/// The timestamp clock at `now` \[ms, wrapping\].
#[inline]
pub fn clock(now: SimTime) -> u32 {
    (now.since(SimTime::ZERO).as_ps() / PS_PER_TICK) as u32
}

/// A connection's timestamp state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsState {
    /// Configured to offer the option.
    pub wanted: bool,
    /// Both SYNs carried it: every segment does.
    pub on: bool,
    /// The peer's SYN carried it.
    pub peer_offered: bool,
    /// `TS.Recent`.
    pub recent: u32,
    /// When `TS.Recent` was set.
    pub recent_at: SimTime,
    /// `Last.ACK.sent`: the ACK field of the last segment sent.
    pub last_ack_sent: u32,
}

impl TsState {
    /// A state that offers the option when `wanted`.
    pub fn new(wanted: bool) -> Self {
        TsState { wanted, ..TsState::default() }
    }

    /// A SYN arrived (either side of the handshake): record the peer's offer and its TSval.
    pub fn on_syn(&mut self, seg: &Segment, now: SimTime) {
        if let Some(ts) = seg.ts {
            self.peer_offered = true;
            self.recent = ts.val;
            self.recent_at = now;
        }
        self.on = self.wanted && self.peer_offered;
    }

    /// The option for a segment about to be sent with `flags` and ACK field `ack`, if any.
    #[inline]
    pub fn option(&mut self, flags: Flags, ack: u32, now: SimTime) -> Option<Timestamps> {
        let syn = flags.contains(Flags::SYN);
        // A SYN-ACK carries it only if the SYN did (§3.2).
        let send = self.on || (syn && self.wanted && (!flags.contains(Flags::ACK) || self.peer_offered));
        if !send {
            return None;
        }
        self.last_ack_sent = ack;
        let ecr = if flags.contains(Flags::ACK) { self.recent } else { 0 };
        Some(Timestamps { val: clock(now), ecr })
    }

    /// PAWS (§5.3): whether a segment with this TSval must be dropped (not for RSTs).
    #[inline]
    pub fn rejects(&mut self, seg: &Segment, now: SimTime) -> bool {
        let Some(ts) = seg.ts.filter(|_| self.on) else { return false };
        if seg.flags.contains(Flags::RST) || (ts.val.wrapping_sub(self.recent) as i32) >= 0 {
            return false;
        }
        if now.since(self.recent_at) > PAWS_IDLE {
            // R3: TS.Recent is stale; take the segment and its TSval.
            self.recent = ts.val;
            self.recent_at = now;
            return false;
        }
        true
    }

    /// Remember TSval as `TS.Recent` when the segment starts at or before `Last.ACK.sent`
    /// (§4.3) and is not older.
    #[inline]
    pub fn update_recent(&mut self, seg: &Segment, now: SimTime) {
        if let Some(ts) = seg.ts.filter(|_| self.on) {
            if seq_leq(seg.seq, self.last_ack_sent) && (ts.val.wrapping_sub(self.recent) as i32) >= 0 {
                self.recent = ts.val;
                self.recent_at = now;
            }
        }
    }

    /// RTTM (§4.1): the round trip an ACK's TSecr measures, at the clock's resolution.
    #[inline]
    pub fn round_trip(&self, seg: &Segment, now: SimTime) -> Option<SimDuration> {
        let ts = seg.ts.filter(|t| self.on && t.ecr != 0)?;
        let ticks = clock(now).wrapping_sub(ts.ecr);
        (ticks as i32 >= 0).then(|| SimDuration::from_ps(ticks as u64 * PS_PER_TICK))
    }
}

/// A round trip in the BSD estimator's slow ticks, as 4.4-Lite counts `tcp_now − ts_ecr + 1`.
#[inline]
pub fn to_ticks(rtt: SimDuration, slow_tick: SimDuration) -> u32 {
    (rtt.as_ps() / slow_tick.as_ps().max(1)).min(u32::MAX as u64 - 1) as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(v)
    }

    fn data(seq: u32, val: u32, ecr: u32) -> Segment {
        Segment { seq, len: 100, flags: Flags::ACK, ts: Some(Timestamps { val, ecr }), ..Default::default() }
    }

    fn on() -> TsState {
        let mut t = TsState::new(true);
        t.on_syn(&Segment { flags: Flags::SYN, ts: Some(Timestamps { val: 5, ecr: 0 }), ..Default::default() }, ms(0));
        t
    }

    #[test]
    fn used_only_when_both_syns_carry_it() {
        let mut t = TsState::new(true);
        t.on_syn(&Segment { flags: Flags::SYN, ..Default::default() }, ms(0));
        assert!(!t.on);
        assert_eq!(t.option(Flags::SYN | Flags::ACK, 1, ms(3)), None, "no TS on the SYN-ACK");
        let mut t = TsState::new(false);
        assert_eq!(t.option(Flags::SYN, 0, ms(3)), None);
        let mut t = TsState::new(true);
        assert_eq!(t.option(Flags::SYN, 0, ms(3)), Some(Timestamps { val: 3, ecr: 0 }));
        assert!(on().on);
    }

    #[test]
    fn paws_rejects_an_old_duplicate() {
        let mut t = on();
        t.last_ack_sent = 1000;
        t.update_recent(&data(1000, 700, 0), ms(700));
        assert_eq!(t.recent, 700);
        // An old duplicate: same sequence space, TSval from before TS.Recent.
        assert!(t.rejects(&data(1000, 650, 0), ms(800)));
        let rst = Segment { flags: Flags::RST, ..data(1000, 650, 0) };
        assert!(!t.rejects(&rst, ms(800)), "a RST is never rejected by PAWS");
        assert!(!t.rejects(&data(1100, 700, 0), ms(800)), "equal TSval is accepted");
        // After 24 days of silence TS.Recent is stale: the segment is accepted (R3).
        assert!(!t.rejects(&data(1000, 650, 0), ms(700) + PAWS_IDLE + SimDuration::from_secs(1)));
        assert_eq!(t.recent, 650);
    }

    #[test]
    fn ts_recent_follows_the_left_edge() {
        let mut t = on();
        t.last_ack_sent = 1000;
        t.update_recent(&data(2000, 900, 0), ms(900));
        assert_eq!(t.recent, 5, "a segment beyond Last.ACK.sent (out of order) is not echoed");
        t.update_recent(&data(1000, 950, 0), ms(950));
        assert_eq!(t.recent, 950);
    }

    #[test]
    fn rttm_measures_every_echo_in_milliseconds() {
        let t = on();
        let ack = data(0, 40, 1234);
        assert_eq!(t.round_trip(&ack, ms(1290)), Some(SimDuration::from_millis(56)));
        assert_eq!(t.round_trip(&data(0, 40, 0), ms(1290)), None, "TSecr 0 is no echo");
        assert_eq!(to_ticks(SimDuration::from_millis(56), SimDuration::from_millis(500)), 1);
        assert_eq!(to_ticks(SimDuration::from_millis(1200), SimDuration::from_millis(500)), 3);
    }
}
