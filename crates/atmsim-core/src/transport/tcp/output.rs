//! The send decision: one iteration of BSD 4.4-Lite `tcp_output()` (tcp_output.c).
//!
//! Owns: `TcpConn::output` — how much may be sent (`win = min(snd_wnd, snd_cwnd)`), whether
//! to send it (full segment, idle/TCP_NODELAY and all queued, forced probe, half the largest
//! window the peer offered, retransmission), window updates (`adv ≥ 2·mss` or `≥ ½ buffer`),
//! pending ACKs, SYN and FIN; the advertised window with receiver-side SWS avoidance
//! (RFC 1122 §4.2.3.3: never shrink, never offer a sliver); sequence/timer bookkeeping
//! (`snd_nxt`, `snd_max`, `t_rtt`/`t_rtseq`, the retransmission timer) and the persist timer
//! (`tcp_setpersist()`) when a zero window blocks queued data.
//!
//! BSD loops (`goto again`) while `sendalot`; atmsim returns one segment per call and carries
//! `idle` to the next call so the loop decides as BSD's would.

use super::cc::TCP_MAXWIN;
use super::conn::{State, TcpConn};
use super::segment::{Flags, Segment};
use super::seq::{seq_diff, seq_gt, seq_lt};
use crate::time::SimTime;

/// `tcp_outflags[]` (tcp_fsm.h): the control bits each state sends.
fn outflags(state: State) -> Flags {
    match state {
        State::Closed => Flags::RST | Flags::ACK,
        State::Listen => Flags::NONE,
        State::SynSent => Flags::SYN,
        State::SynReceived => Flags::SYN | Flags::ACK,
        State::Established | State::CloseWait | State::FinWait2 | State::TimeWait => Flags::ACK,
        State::FinWait1 | State::Closing | State::LastAck => Flags::FIN | Flags::ACK,
    }
}

#[inline]
fn without(f: Flags, o: Flags) -> Flags {
    Flags(f.0 & !o.0)
}

impl TcpConn {
    /// `tcp_output()`, one segment at a time.
    pub(super) fn output(&mut self, now: SimTime) -> Option<Segment> {
        if matches!(self.state, State::Closed | State::Listen) {
            self.cont_idle = None;
            return None;
        }
        let mss = self.maxseg as i64;
        // "Determine length of data that should be transmitted, and flags that will be used.
        // If there is some data or critical controls (SYN, RST) to send, then transmit;
        // otherwise, investigate further."
        let idle = match self.cont_idle.take() {
            Some(idle) => idle,
            None => {
                let idle = self.snd_max == self.snd_una;
                if idle && self.idle_ticks(now) >= self.rtt.rxtcur as u64 {
                    // Slow-start restart: "We have been idle for a while ... reduce the
                    // congestion window to one segment".
                    self.cc.on_idle_restart(self.maxseg);
                }
                idle
            }
        };
        let mut flags = outflags(self.state);
        // A SYN goes out when first due (snd_nxt == iss, also after a retransmission
        // timeout) or when an ACK is owed in a SYN state (a duplicate SYN arrived). BSD
        // resends it on every call in these states; atmsim's host polls until None, so the
        // SYN is not repeated otherwise.
        let syn_due = flags.contains(Flags::SYN) && (self.snd_nxt == self.iss || self.ack_now);
        if flags.contains(Flags::SYN) && !syn_due {
            flags = without(flags, Flags::SYN);
            if self.state == State::SynSent {
                return None;
            }
        }
        if syn_due {
            self.snd_nxt = self.iss;
        }
        let mut off = seq_diff(self.snd_nxt, self.snd_una) as i64;
        // Data waits until our SYN is acknowledged (sosend blocks until connected).
        let sb = if self.syn_acked { self.snd_cc as i64 } else { 0 };
        let mut win = (self.snd_wnd.min(self.cc.cwnd)) as i64;
        // "If in persist timeout with window of 0, send 1 byte. Otherwise, if window is
        // small but nonzero and timer expired, we will send what we can and go to transmit
        // state."
        if self.force {
            if win == 0 {
                if off < sb {
                    flags = without(flags, Flags::FIN);
                }
                win = 1;
            } else {
                self.t_persist = 0;
                self.rtt.rxtshift = 0;
            }
        }
        let mut len = sb.min(win) - off;
        if len < 0 {
            // "If FIN has been sent but not acked, but we haven't been called to retransmit,
            // len will be -1. Otherwise, window shrank after we sent into it. If window
            // shrank to 0, cancel pending retransmit and pull snd_nxt back to (closed)
            // window."
            len = 0;
            if win == 0 && self.syn_acked {
                self.t_rexmt = 0;
                self.snd_nxt = self.snd_una;
                off = 0;
            }
        }
        if len > 0 && self.sack_gates_data() {
            len = 0; // RFC 6675 recovery: only NextSeg() sends data (super::sack::recovery)
        }
        let mut sendalot = false;
        if len > mss {
            len = mss;
            sendalot = true;
        }
        if seq_lt(self.snd_nxt.wrapping_add(len as u32), self.snd_una.wrapping_add(sb as u32)) {
            flags = without(flags, Flags::FIN);
        }
        let rwin = self.rcv_space() as i64;

        let send = self.should_send(flags, syn_due, len, off, sb, idle, rwin);
        if !send {
            // "TCP window updates are not reliable ... If there's data to send and no
            // retransmit or persist is pending, then go to persist state."
            if sb > 0 && self.t_rexmt == 0 && self.t_persist == 0 {
                self.rtt.rxtshift = 0;
                self.t_persist = self.rtt.persist_interval();
            }
            self.force = false;
            return None;
        }

        // ---- send: build the segment ----
        let len = len as u32;
        let mut seg = Segment { flags, ack: self.rcv_nxt, len, ..Default::default() };
        if self.stamps.wanted {
            seg.ts = self.stamps.option(flags, self.rcv_nxt, now);
        }
        if flags.contains(Flags::SYN) {
            seg.mss = Some(self.offered_mss());
            if self.req_scale && (!flags.contains(Flags::ACK) || self.rcvd_scale) {
                seg.wscale = Some(self.request_r_scale);
            }
            // RFC 2018 §2: offer SACK on our SYN; answer a SYN that offered it.
            seg.sack_ok = self.cfg.sack && (!flags.contains(Flags::ACK) || self.sack_on);
        }
        self.stats.segs_sent += 1;
        if len > 0 {
            self.stats.data_segs_sent += 1;
            self.stats.bytes_sent += len as u64;
            if !(self.force && len == 1) && seq_lt(self.snd_nxt, self.snd_max) {
                self.stats.rexmt_segs += 1;
                self.stats.rexmt_bytes += len as u64;
            }
        } else if !flags.contains(Flags::SYN) && !flags.contains(Flags::FIN) {
            self.stats.acks_sent += 1;
        }
        // "If resending a FIN, be sure not to use a new sequence number."
        if flags.contains(Flags::FIN) && self.sent_fin && self.snd_nxt == self.snd_max {
            self.snd_nxt = self.snd_nxt.wrapping_sub(1);
        }
        // A pure ACK carries snd_max (not a retransmission point), except in persist.
        seg.seq = if len > 0 || flags.contains(Flags::SYN) || flags.contains(Flags::FIN) || self.t_persist != 0 {
            self.snd_nxt
        } else {
            self.snd_max
        };

        // "Calculate receive window. Don't shrink window, but avoid silly window syndrome."
        let maxwin = (TCP_MAXWIN as i64) << self.rcv_scale;
        let mut w = rwin;
        if w < (self.rcv_hiwat / 4) as i64 && w < mss {
            w = 0;
        }
        w = w.min(maxwin);
        let promised = seq_diff(self.rcv_adv, self.rcv_nxt) as i64;
        if w < promised {
            w = promised;
        }
        seg.wnd = (w >> self.rcv_scale).clamp(0, u16::MAX as i64) as u16;

        if !self.force || self.t_persist == 0 {
            let startseq = self.snd_nxt;
            if flags.contains(Flags::SYN) {
                self.snd_nxt = self.snd_nxt.wrapping_add(1);
            }
            if flags.contains(Flags::FIN) {
                self.snd_nxt = self.snd_nxt.wrapping_add(1);
                self.sent_fin = true;
            }
            self.snd_nxt = self.snd_nxt.wrapping_add(len);
            if seq_gt(self.snd_nxt, self.snd_max) {
                self.snd_max = self.snd_nxt;
                // "Time this transmission if not a retransmission and not currently timing
                // anything."
                if self.rtt.start_timing(startseq) {
                    self.timed_at = now;
                }
            }
            // "Set retransmit timer if not currently set, and not doing an ack or a keep-alive
            // probe. Initial value for retransmit timer is smoothed round-trip time + 2 *
            // round-trip time variance."
            if self.t_rexmt == 0 && self.snd_nxt != self.snd_una {
                self.t_rexmt = self.rtt.rxtcur;
                if self.t_persist != 0 {
                    self.t_persist = 0;
                    self.rtt.rxtshift = 0;
                }
            }
        } else {
            let end = self.snd_nxt.wrapping_add(len);
            if seq_gt(end, self.snd_max) {
                self.snd_max = end;
            }
        }

        if w > 0 && seq_gt(self.rcv_nxt.wrapping_add(w as u32), self.rcv_adv) {
            self.rcv_adv = self.rcv_nxt.wrapping_add(w as u32);
        }
        if self.sack_on && !self.reass.is_empty() {
            // RFC 2018 §4: every ACK carries blocks while data waits out of order; 3 fit
            // beside timestamps in the 40 option bytes.
            seg.sack = self.sack_report.blocks(if seg.ts.is_some() { 3 } else { 4 });
        }
        self.ack_now = false;
        self.del_ack = false;
        self.force = false;
        self.cont_idle = if sendalot { Some(idle) } else { None };
        Some(seg)
    }

    /// The `goto send` tests of `tcp_output()`.
    #[allow(clippy::too_many_arguments)]
    fn should_send(&self, flags: Flags, syn_due: bool, len: i64, off: i64, sb: i64, idle: bool, rwin: i64) -> bool {
        let mss = self.maxseg as i64;
        // "Sender silly window avoidance. If connection is idle and can send all data, a
        // maximum segment, at least a maximum default-size segment do it, or are forced, do
        // it; otherwise don't bother. If peer's buffer is tiny, then send when window is at
        // least half open. If retransmitting (possibly after persist timer forced us to send
        // into a small window), then must resend."
        if len > 0 {
            if len == mss {
                return true;
            }
            if (idle || !self.cfg.nagle) && len + off >= sb {
                return true;
            }
            if self.force {
                return true;
            }
            if len >= (self.max_sndwnd / 2) as i64 {
                return true;
            }
            if seq_lt(self.snd_nxt, self.snd_max) {
                return true;
            }
        }
        // "Compare available window to amount of window known to peer (as advertised window
        // less next expected input). If the difference is at least two max size segments, or
        // at least 50% of the maximum possible window, then want to send a window update to
        // peer."
        if rwin > 0 && self.state != State::SynSent {
            let maxwin = (TCP_MAXWIN as i64) << self.rcv_scale;
            let adv = rwin.min(maxwin) - seq_diff(self.rcv_adv, self.rcv_nxt) as i64;
            if adv >= 2 * mss {
                return true;
            }
            if 2 * adv >= self.rcv_hiwat as i64 {
                return true;
            }
        }
        // "Send if we owe peer an ACK."
        if self.ack_now {
            return true;
        }
        if syn_due {
            return true;
        }
        // "If our state indicates that FIN should be sent and we have not yet done so, or
        // we're retransmitting the FIN, then we need to send."
        flags.contains(Flags::FIN) && (!self.sent_fin || self.snd_nxt == self.snd_una)
    }

    /// BSD `t_idle`: slow ticks since the last segment was received.
    pub(super) fn idle_ticks(&self, now: SimTime) -> u64 {
        let tick = self.cfg.slow_tick.as_ps().max(1);
        now.since(self.last_rcv).as_ps() / tick
    }
}
