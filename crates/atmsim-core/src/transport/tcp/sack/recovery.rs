//! SACK-based loss recovery on the connection (RFC 6675 §5, §5.1), layered on BSD's
//! `tcp_output()` as FreeBSD layers its SACK recovery (written afresh here).
//!
//! Owns: the `impl TcpConn` block that records SACK blocks in the [`super::Scoreboard`], enters
//! recovery, sends what `NextSeg()` names while `cwnd − pipe ≥ SMSS`, and handles a timeout.
//!
//! - **Every ACK** (`tcp_input`, before the ACK is processed): `Update()` with its blocks.
//! - **Entry** (§5 steps 1, 2, 4) on a duplicate ACK, BSD's definition (no data, same window,
//!   `ack == snd_una`, data outstanding), when `DupAcks` reaches `DupThresh` or
//!   `IsLost(HighACK + 1)`, unless the cumulative ACK is below `RecoveryPoint` (after a
//!   timeout, §5.1): [`super::super::cc::CcState::sack_recovery_entry`] (`ssthresh = cwnd`
//!   reduced by the algorithm, `RecoveryPoint = HighData`), then the segment at `HighACK` is
//!   retransmitted at once (step 4.3, counted as a fast retransmit).
//! - **In recovery** (§5 (B)–(C)): the connection's `poll_transmit` asks `TcpConn::sack_output`
//!   first: while `cwnd − pipe ≥ SMSS` it sends `NextSeg()` (rule 4's rescue at most once:
//!   `RescueRxt` is the entry's retransmission, then the recovery point); the ordinary
//!   `tcp_output()` then sends no data, only ACKs, window updates and a FIN (its gate,
//!   `Scoreboard::sending`). A partial ACK changes no window; the ACK that reaches
//!   `RecoveryPoint` ends recovery with `cwnd = ssthresh` (§5 (A); `super::super::cc`).
//! - **Timeout** (§5.1): see the [`super`] docs.
//!
//! A segment at an arbitrary sequence number is sent as BSD's fast retransmit sends one:
//! `snd_nxt` and `cwnd` are set so that `tcp_output()` sends exactly that range, then put
//! back. A retransmission that covers the segment being timed stops the timing (Karn).

use super::super::conn::TcpConn;
use super::super::segment::Segment;
use super::super::seq::{seq_geq, seq_gt, seq_leq, seq_lt};
use super::NextSeg;
use crate::time::SimTime;

impl TcpConn {
    /// `Update()` with an arriving ACK's blocks (valid ACKs only: `ack <= snd_max`).
    pub(in crate::transport::tcp) fn sack_update(&mut self, seg: &Segment) {
        if seq_gt(seg.ack, self.snd_max) {
            return;
        }
        let una = if seq_gt(seg.ack, self.snd_una) { seg.ack } else { self.snd_una };
        self.scoreboard.update(una, self.snd_max, seg.sack.as_slice());
    }

    /// A duplicate ACK (BSD's test passed) with SACK in use: count it and enter recovery when
    /// due (RFC 6675 §5 steps 1–4).
    pub(in crate::transport::tcp) fn sack_dup_ack(&mut self, now: SimTime, ack: u32) {
        let thresh = self.cfg.dupack_threshold.max(1);
        if self.cc.in_recovery {
            return; // §5 (B)–(C): poll_transmit sends what pipe allows.
        }
        // Capped: Reno's deflation (`dupacks > threshold`) never applies with SACK.
        self.cc.dupacks = (self.cc.dupacks + 1).min(thresh);
        let due = self.cc.dupacks >= thresh || self.scoreboard.is_lost(ack, ack, thresh, self.maxseg);
        if due && seq_geq(ack, self.cc.recover) {
            self.sack_enter_recovery(now, ack);
        }
    }

    /// §5 step 4: reduce the window, retransmit the first segment at once.
    fn sack_enter_recovery(&mut self, now: SimTime, ack: u32) {
        self.stats.fast_retransmits += 1;
        self.cc.sack_recovery_entry(self.snd_wnd, self.maxseg, self.snd_max);
        self.scoreboard.start_recovery(ack);
        // As BSD's fast retransmit: restart the timer with this segment, stop the timing.
        self.t_rexmt = 0;
        self.rtt.cancel_timing();
        let len = self.first_hole_len(ack);
        if let Some(s) = self.sack_send_at(now, ack, len, true) {
            self.out_queue.push_back(s);
        }
        let end = self.scoreboard.high_rxt();
        self.scoreboard.set_rescue_rxt(end);
    }

    /// The unSACKed octets from `seq` up to the next SACKed range, at most one segment.
    fn first_hole_len(&self, seq: u32) -> u32 {
        let end = self.scoreboard.sacked().first().map_or(self.snd_max, |&(l, _)| l);
        let hole = if seq_lt(seq, end) { end.wrapping_sub(seq) } else { self.maxseg };
        hole.min(self.maxseg)
    }

    /// §5 (C): the next segment while `cwnd − pipe ≥ SMSS`, or `None`.
    #[cold]
    #[inline(never)]
    pub(in crate::transport::tcp) fn sack_output(&mut self, now: SimTime) -> Option<Segment> {
        let (mss, thresh) = (self.maxseg, self.cfg.dupack_threshold.max(1));
        let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, thresh, mss);
        if self.cc.cwnd.saturating_sub(pipe) < mss {
            return None;
        }
        // Rule 2 needs unsent data inside the peer's window; if tcp_output() still declines
        // it (a sub-MSS tail under Nagle), rule 3 is tried instead.
        let flight = self.snd_max.wrapping_sub(self.snd_una);
        let unsent = if self.syn_acked { self.snd_cc > flight } else { false };
        let new_data = unsent && self.snd_wnd > flight;
        for allow_new in [new_data, false] {
            let next = self.scoreboard.next_seg(self.snd_una, self.snd_max, thresh, mss, allow_new)?;
            let sent = match next {
                NextSeg::Retransmit { seq, len, .. } => return self.sack_send_at(now, seq, len, true),
                NextSeg::Rescue { seq, len } => {
                    let recover = self.cc.recover;
                    self.scoreboard.set_rescue_rxt(recover);
                    return self.sack_send_at(now, seq, len, false);
                }
                NextSeg::NewData => self.sack_send_at(now, self.snd_max, mss, false),
            };
            if sent.is_some() {
                return sent;
            }
        }
        None
    }

    /// Send `[seq, seq + len)` now through `tcp_output()` (the fast-retransmit pattern);
    /// with `high_rxt`, record a retransmission in `HighRxt` (§5 (C.2); not the rescue).
    fn sack_send_at(&mut self, now: SimTime, seq: u32, len: u32, high_rxt: bool) -> Option<Segment> {
        let rexmt = seq_lt(seq, self.snd_max);
        if rexmt && self.rtt.rtt != 0 && seq_leq(seq, self.rtt.rtseq) && seq_lt(self.rtt.rtseq, seq.wrapping_add(len)) {
            self.rtt.cancel_timing(); // Karn: the timed segment is being sent again
        }
        let (onxt, cwnd) = (self.snd_nxt, self.cc.cwnd);
        self.snd_nxt = seq;
        self.cc.cwnd = seq.wrapping_sub(self.snd_una).saturating_add(len);
        self.scoreboard.sending = true;
        self.cont_idle = None;
        let s = self.output(now);
        self.cont_idle = None;
        self.scoreboard.sending = false;
        self.cc.cwnd = cwnd;
        if high_rxt && rexmt && s.is_some_and(|s| s.len > 0) {
            let end = self.snd_nxt;
            self.scoreboard.retransmitted(end);
        }
        if seq_gt(onxt, self.snd_nxt) {
            self.snd_nxt = onxt;
        }
        s
    }

    /// The ordinary `tcp_output()` sends no data during SACK recovery: `pipe` decides.
    #[inline]
    pub(in crate::transport::tcp) fn sack_gates_data(&self) -> bool {
        self.sack_on && self.cc.in_recovery && !self.scoreboard.sending
    }

    /// §5.1 (after `CcState::on_rto`, which set RecoveryPoint and left recovery): expunge
    /// the scoreboard (RFC 2018 §8).
    pub(in crate::transport::tcp) fn sack_on_timeout(&mut self) {
        self.scoreboard.clear();
    }
}
