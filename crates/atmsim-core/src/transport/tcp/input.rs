//! Segment arrival: BSD 4.4-Lite `tcp_input()` (tcp_input.c), RFC 793 §3.9 "SEGMENT ARRIVES".
//!
//! Owns: `TcpConn::on_segment` — header prediction, the LISTEN and SYN_SENT arms (with
//! `tcp_dooptions()`: MSS and window-scale options), trimming to the receive window, RST and
//! SYN checks, ACK processing (RTT sample, `snd_una` advance, congestion window via
//! [`super::cc`], duplicate ACKs → fast retransmit/recovery), the window update (`snd_wl1`,
//! `snd_wl2`), data (`TCP_REASS`: in-order → delayed ACK, out-of-order → queue and ACK now)
//! and FIN processing with its state transitions. Answers with RST as `tcp_respond()` does.
//!
//! Nothing here panics on odd input: arithmetic on sequence numbers wraps, lengths saturate,
//! and unacceptable segments are dropped, ACKed or answered with RST per RFC 793.

use super::cc::{DupAckAction, NewAck, NewAckAction};
use super::conn::{State, TcpConn, TCPTV_MSL};
use super::segment::{Flags, Segment};
use super::seq::{seq_diff, seq_gt, seq_leq, seq_lt};
use super::timestamps::to_ticks;
use crate::time::{SimDuration, SimTime};

/// How the slow path ends (the `goto`s of tcp_input).
enum Exit {
    /// `drop`: discard silently.
    Drop,
    /// `dropafterack`: discard, but ACK (never in answer to a RST).
    DropAfterAck,
    /// `dropwithreset`: discard and answer with a RST (never in answer to a RST).
    DropWithReset,
}

#[inline]
fn without(f: Flags, o: Flags) -> Flags {
    Flags(f.0 & !o.0)
}

impl TcpConn {
    /// Process an arriving segment (tcp_input).
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment) {
        self.stats.segs_rcvd += 1;
        self.cont_idle = None;
        if let Err(exit) = self.input(now, seg) {
            match exit {
                Exit::Drop => {}
                Exit::DropAfterAck => {
                    if !seg.flags.contains(Flags::RST) {
                        self.ack_now = true;
                    }
                }
                Exit::DropWithReset => self.respond_rst(seg),
            }
        }
    }

    /// `tcp_respond()` for `dropwithreset`: RST with the peer's ACK as sequence, or RST|ACK
    /// covering the offending segment (RFC 793 §3.4 "Reset Generation").
    fn respond_rst(&mut self, seg: &Segment) {
        if seg.flags.contains(Flags::RST) {
            return;
        }
        let rst = if seg.flags.contains(Flags::ACK) {
            Segment { seq: seg.ack, flags: Flags::RST, ..Default::default() }
        } else {
            Segment {
                seq: 0,
                ack: seg.seq.wrapping_add(seg.seq_len()),
                flags: Flags::RST | Flags::ACK,
                ..Default::default()
            }
        };
        self.stats.segs_sent += 1;
        self.out_queue.push_back(rst);
    }

    /// `tcp_dooptions()` on a SYN: record the window-scale and timestamp offers and settle
    /// the MSS.
    fn do_syn_options(&mut self, seg: &Segment, now: SimTime) {
        self.stamps.on_syn(seg, now);
        if let Some(ws) = seg.wscale {
            self.rcvd_scale = true;
            self.requested_s_scale = ws.min(super::cc::TCP_MAX_WINSHIFT);
        }
        self.settle_mss(seg.mss);
        // RFC 2018 §2: SACK is in use when both SYNs carry SACK-permitted (ours does iff
        // cfg.sack; a SYN-ACK answers with it only when the SYN had it).
        self.sack_on = self.cfg.sack && seg.sack_ok;
        self.cc.sack = self.sack_on;
    }

    /// `tcp_rcvseqinit()`.
    fn rcv_seq_init(&mut self, irs: u32) {
        self.irs = irs;
        self.rcv_nxt = irs.wrapping_add(1);
        self.rcv_adv = self.rcv_nxt;
    }

    fn input(&mut self, now: SimTime, seg: &Segment) -> Result<(), Exit> {
        let mut flags = seg.flags;
        let mut seq = seg.seq;
        let mut len = seg.len;
        let ack = seg.ack;

        if self.state == State::Closed {
            return Err(Exit::DropWithReset);
        }
        // "Segment received on connection. Reset idle time."
        self.last_rcv = now;
        // Window scaling applies to every segment but a SYN (RFC 1323 §2.2).
        let mut tiwin = if flags.contains(Flags::SYN) { seg.wnd as u32 } else { (seg.wnd as u32) << self.snd_scale };
        // "Calculate amount of space in receive window, and then do TCP input processing.
        // Receive window is amount of space in rcv queue, but not less than advertised."
        self.rcv_wnd = (self.rcv_space() as i64).max(seq_diff(self.rcv_adv, self.rcv_nxt) as i64).max(0) as u32;

        // ---- PAWS (RFC 7323 §5.3), before anything reads the segment.
        if self.stamps.on && !matches!(self.state, State::Listen | State::SynSent) && self.stamps.rejects(seg, now) {
            self.stats.paws_drops += 1;
            return Err(Exit::DropAfterAck);
        }
        if self.stamps.on {
            self.stamps.update_recent(seg, now);
        }

        // ---- Header prediction (Van Jacobson): the common cases of a pure in-sequence ACK
        // or pure in-sequence data on an ESTABLISHED connection. atmsim adds "not in fast
        // recovery" to the test, as later BSDs do, so that an inflated window is deflated.
        if self.state == State::Established
            && (flags.0 & (Flags::SYN.0 | Flags::FIN.0 | Flags::RST.0 | Flags::ACK.0)) == Flags::ACK.0
            && seq == self.rcv_nxt
            && tiwin != 0
            && tiwin == self.snd_wnd
            && self.snd_nxt == self.snd_max
            && self.cc.dupacks < self.cfg.dupack_threshold
            && !self.cc.in_recovery
            && seg.sack.n == 0
        {
            if len == 0 {
                if seq_gt(ack, self.snd_una) && seq_leq(ack, self.snd_max) && self.cc.cwnd >= self.snd_wnd {
                    // "This is a pure ack for outstanding data."
                    self.ack_rtt_sample(seg, ack, now);
                    let acked = seq_diff(ack, self.snd_una) as u32;
                    self.snd_cc = self.snd_cc.saturating_sub(acked);
                    self.snd_una = ack;
                    if self.snd_una == self.snd_max {
                        self.t_rexmt = 0;
                    } else if self.t_persist == 0 {
                        self.t_rexmt = self.rtt.rxtcur;
                    }
                    return Ok(());
                }
            } else if ack == self.snd_una && self.reass.is_empty() && len <= self.rcv_space() {
                // "This is a pure, in-sequence data packet with nothing on the reassembly
                // queue and we have enough buffer space to take it."
                self.rcv_nxt = self.rcv_nxt.wrapping_add(len);
                self.rcv_cc += len;
                self.stats.bytes_rcvd += len as u64;
                self.delay_or_ack_now();
                return Ok(());
            }
        }

        // ---- Slow path.
        match self.state {
            // RFC 793 p.65 "If the state is LISTEN".
            State::Listen => {
                if flags.contains(Flags::RST) {
                    return Err(Exit::Drop);
                }
                if flags.contains(Flags::ACK) {
                    return Err(Exit::DropWithReset);
                }
                if !flags.contains(Flags::SYN) {
                    return Err(Exit::Drop);
                }
                self.do_syn_options(seg, now);
                self.rcv_seq_init(seq);
                self.snd_una = self.iss;
                self.snd_nxt = self.iss;
                self.snd_max = self.iss;
                self.ack_now = true;
                self.state = State::SynReceived;
                self.trim_then_step6(now, seg, flags, seq, len, tiwin);
                return Ok(());
            }
            // RFC 793 p.66 "If the state is SYN-SENT".
            State::SynSent => {
                if flags.contains(Flags::ACK) && (seq_leq(ack, self.iss) || seq_gt(ack, self.snd_max)) {
                    return Err(Exit::DropWithReset);
                }
                if flags.contains(Flags::RST) {
                    if flags.contains(Flags::ACK) {
                        self.drop_connection(); // ECONNREFUSED
                    }
                    return Err(Exit::Drop);
                }
                if !flags.contains(Flags::SYN) {
                    return Err(Exit::Drop);
                }
                if flags.contains(Flags::ACK) {
                    self.snd_una = ack;
                    if seq_lt(self.snd_nxt, self.snd_una) {
                        self.snd_nxt = self.snd_una;
                    }
                }
                self.t_rexmt = 0;
                self.do_syn_options(seg, now);
                self.rcv_seq_init(seq);
                self.ack_now = true;
                if flags.contains(Flags::ACK) && seq_gt(self.snd_una, self.iss) {
                    self.syn_acked = true;
                    self.state = State::Established;
                    self.apply_window_scale();
                    // "If we didn't have to retransmit the SYN, use its rtt as our initial
                    // srtt & rtt var."
                    if self.rtt.rtt != 0 {
                        let r = self.rtt.rtt;
                        self.rtt_sample(r, now.since(self.timed_at));
                    }
                } else {
                    // Simultaneous open.
                    self.state = State::SynReceived;
                }
                self.trim_then_step6(now, seg, flags, seq, len, tiwin);
                return Ok(());
            }
            _ => {}
        }

        // ---- RFC 793 p.69 "Otherwise, first check sequence number": trim to the window.
        let mut todrop = seq_diff(self.rcv_nxt, seq) as i64;
        if todrop > 0 {
            if flags.contains(Flags::SYN) {
                flags = without(flags, Flags::SYN);
                seq = seq.wrapping_add(1);
                todrop -= 1;
            }
            if todrop > len as i64 || (todrop == len as i64 && !flags.contains(Flags::FIN)) {
                // "Any valid FIN must be to the left of the window. At this point the FIN
                // must be a duplicate or out of sequence; drop it. Send an ACK to
                // resynchronize and drop any data, but keep on processing for RST or ACK."
                flags = without(flags, Flags::FIN);
                self.ack_now = true;
                todrop = len as i64;
            }
            self.stats.dup_bytes_rcvd += todrop.max(0) as u64;
            seq = seq.wrapping_add(todrop as u32);
            len -= todrop as u32;
        }
        // "If segment ends after window, drop trailing data (and PUSH and FIN); if nothing
        // left, just ACK."
        let after = seq_diff(seq.wrapping_add(len), self.rcv_nxt.wrapping_add(self.rcv_wnd)) as i64;
        if after > 0 {
            if after >= len as i64 {
                // "If window is closed can only take segments at window edge, and have to
                // drop data and PUSH from incoming segments. Continue processing, but
                // remember to ack. Otherwise, drop segment and ack."
                if self.rcv_wnd == 0 && seq == self.rcv_nxt {
                    self.ack_now = true;
                } else {
                    return Err(Exit::DropAfterAck);
                }
            }
            len -= (after as u32).min(len);
            flags = without(flags, Flags::FIN | Flags::PSH);
        }

        // ---- Second, check the RST bit (RFC 793 p.70).
        if flags.contains(Flags::RST) {
            // SYN_RECEIVED: ECONNREFUSED; synchronized states: ECONNRESET; CLOSING,
            // LAST_ACK, TIME_WAIT: just close.
            self.drop_connection();
            return Err(Exit::Drop);
        }
        // ---- Fourth, a SYN in the window is an error: drop the connection, send RST.
        if flags.contains(Flags::SYN) {
            self.drop_connection();
            return Err(Exit::DropWithReset);
        }
        // ---- Fifth, check the ACK field.
        if !flags.contains(Flags::ACK) {
            return Err(Exit::Drop);
        }
        if self.state == State::SynReceived {
            // RFC 793 p.72: "If SND.UNA < SEG.ACK =< SND.NXT then enter ESTABLISHED state".
            if !(seq_gt(ack, self.snd_una) && seq_leq(ack, self.snd_max)) {
                return Err(Exit::DropWithReset);
            }
            self.state = State::Established;
            self.apply_window_scale();
            tiwin = (seg.wnd as u32) << self.snd_scale;
            self.snd_wl1 = seq.wrapping_sub(1);
            let fin = self.present_reass();
            if fin {
                flags = flags.union(Flags::FIN);
            }
        }
        if self.sack_on {
            self.sack_update(seg);
        }
        self.process_ack(now, seg, len, tiwin)?;

        // ---- step6: "Update window information. Don't look at window if no ACK."
        if seq_lt(self.snd_wl1, seq)
            || (self.snd_wl1 == seq && (seq_lt(self.snd_wl2, ack) || (self.snd_wl2 == ack && tiwin > self.snd_wnd)))
        {
            self.update_window(seq, ack, tiwin);
        }
        self.do_data_and_fin(flags, seq, len);
        Ok(())
    }

    /// ACK processing for the synchronized states (tcp_input "case TCPS_ESTABLISHED ...").
    fn process_ack(&mut self, now: SimTime, seg: &Segment, len: u32, tiwin: u32) -> Result<(), Exit> {
        let mss = self.maxseg;
        let ack = seg.ack;
        if seq_leq(ack, self.snd_una) {
            if len == 0 && tiwin == self.snd_wnd {
                self.stats.dup_acks_rcvd += 1;
                // "If we have outstanding data (other than a window probe), this is a
                // completely duplicate ack (ie, window info didn't change), the ack is the
                // biggest we've seen and we've seen exactly our rexmt threshold of them,
                // assume a packet has been dropped and retransmit it."
                if self.t_rexmt == 0 || ack != self.snd_una {
                    self.cc.reset_dupacks();
                } else if self.sack_on {
                    self.sack_dup_ack(now, ack);
                    return Err(Exit::Drop);
                } else {
                    match self.cc.on_dup_ack(mss, self.snd_wnd, ack, self.snd_max, self.cfg.dupack_threshold) {
                        DupAckAction::FastRetransmit { cwnd_after } => {
                            self.stats.fast_retransmits += 1;
                            let onxt = self.snd_nxt;
                            self.t_rexmt = 0;
                            self.rtt.cancel_timing();
                            self.snd_nxt = ack;
                            self.cc.cwnd = mss;
                            self.nested_output(now);
                            self.cc.cwnd = cwnd_after;
                            if seq_gt(onxt, self.snd_nxt) {
                                self.snd_nxt = onxt;
                            }
                            return Err(Exit::Drop);
                        }
                        DupAckAction::Output => return Err(Exit::Drop),
                        DupAckAction::None => {}
                    }
                }
            } else {
                self.cc.reset_dupacks();
            }
            return Ok(());
        }
        if seq_gt(ack, self.snd_max) {
            self.cc.reset_dupacks();
            return Err(Exit::DropAfterAck);
        }
        let mut acked = seq_diff(ack, self.snd_una) as u32;
        if !self.syn_acked {
            // The ACK covers our SYN, which occupies no buffer space.
            self.syn_acked = true;
            acked -= 1;
        }
        // "If transmit timer is running and timed sequence number was acked, update smoothed
        // round trip time." (Karn: t_rtt was cleared if the timed segment was retransmitted.)
        let sample = self.ack_rtt_sample(seg, ack, now);
        // "If all outstanding data is acked, stop retransmit timer and remember to restart
        // (more output or persist). If there is more data to be acked, restart retransmit
        // timer, using current (possibly backed-off) value."
        if ack == self.snd_max {
            self.t_rexmt = 0;
        } else if self.t_persist == 0 {
            self.t_rexmt = self.rtt.rxtcur;
        }
        // "When new data is acked, open the congestion window."
        let action = self.cc.on_new_ack(NewAck {
            mss,
            ack,
            acked,
            threshold: self.cfg.dupack_threshold,
            snd_scale: self.snd_scale,
            now,
            srtt: self.srtt.srtt,
            sample,
            snd_max: self.snd_max,
            flight: self.snd_max.wrapping_sub(self.snd_una),
        });
        let ourfinisacked = if acked > self.snd_cc {
            self.snd_wnd = self.snd_wnd.saturating_sub(self.snd_cc);
            self.snd_cc = 0;
            true
        } else {
            self.snd_cc -= acked;
            self.snd_wnd = self.snd_wnd.saturating_sub(acked);
            false
        };
        self.snd_una = ack;
        if seq_lt(self.snd_nxt, self.snd_una) {
            self.snd_nxt = self.snd_una;
        }
        if action == NewAckAction::RetransmitHole {
            // RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment, reset the
            // retransmission timer.
            let onxt = self.snd_nxt;
            let cwnd = self.cc.cwnd;
            self.t_rexmt = 0;
            self.rtt.cancel_timing();
            self.snd_nxt = ack;
            self.cc.cwnd = mss;
            self.nested_output(now);
            self.cc.cwnd = cwnd;
            if seq_gt(onxt, self.snd_nxt) {
                self.snd_nxt = onxt;
            }
        }
        match self.state {
            // "In FIN_WAIT_1 state in addition to the processing for the ESTABLISHED state
            // if our FIN is now acknowledged then enter FIN_WAIT_2."
            State::FinWait1 if ourfinisacked => self.state = State::FinWait2,
            // "In CLOSING state ... if the ACK acknowledges our FIN then enter the TIME-WAIT
            // state, otherwise ignore the segment."
            State::Closing if ourfinisacked => {
                self.state = State::TimeWait;
                self.cancel_timers();
                self.t_2msl = 2 * TCPTV_MSL;
            }
            // "In LAST_ACK state ... if our FIN is now acknowledged, delete the TCB."
            State::LastAck if ourfinisacked => {
                self.drop_connection();
                return Err(Exit::Drop);
            }
            // "In TIME_WAIT state the only thing that should arrive is a retransmission of
            // the remote FIN. Acknowledge it, and restart the finack timer."
            State::TimeWait => {
                self.t_2msl = 2 * TCPTV_MSL;
                return Err(Exit::DropAfterAck);
            }
            _ => {}
        }
        Ok(())
    }

    /// Run `tcp_output()` from inside input (fast retransmit) and queue what it sends.
    /// The round trip an ACK of new data measures: its timestamp echo (RFC 7323 RTTM), or
    /// else the segment BSD is timing if the ACK covers it. Feeds both estimators.
    #[inline]
    fn ack_rtt_sample(&mut self, seg: &Segment, ack: u32, now: SimTime) -> Option<SimDuration> {
        if let Some(r) = if self.stamps.on { self.stamps.round_trip(seg, now) } else { None } {
            self.rtt_sample(to_ticks(r, self.cfg.slow_tick), r);
            return Some(r);
        }
        let ticks = self.rtt.sample_for_ack(ack)?;
        let r = now.since(self.timed_at);
        self.rtt_sample(ticks, r);
        Some(r)
    }

    fn nested_output(&mut self, now: SimTime) {
        self.cont_idle = None;
        if let Some(s) = self.output(now) {
            self.out_queue.push_back(s);
        }
        self.cont_idle = None;
    }

    fn update_window(&mut self, seq: u32, ack: u32, tiwin: u32) {
        self.snd_wnd = tiwin;
        self.snd_wl1 = seq;
        self.snd_wl2 = ack;
        if self.snd_wnd > self.max_sndwnd {
            self.max_sndwnd = self.snd_wnd;
        }
    }

    /// LISTEN / SYN_SENT tail ("trimthenstep6"): advance past the SYN, trim data to the
    /// window, then the window update, data and FIN steps.
    fn trim_then_step6(&mut self, _now: SimTime, seg: &Segment, mut flags: Flags, seq: u32, mut len: u32, tiwin: u32) {
        let seq = seq.wrapping_add(1);
        self.rcv_wnd = self.rcv_space();
        if len > self.rcv_wnd {
            len = self.rcv_wnd;
            flags = without(flags, Flags::FIN);
        }
        self.snd_wl1 = seq.wrapping_sub(1);
        if flags.contains(Flags::ACK) {
            self.update_window(seq, seg.ack, tiwin);
        }
        self.do_data_and_fin(flags, seq, len);
    }

    /// In-order data sets TF_DELACK (or ACKs at once when delayed ACKs are off).
    fn delay_or_ack_now(&mut self) {
        if self.cfg.delayed_ack {
            self.del_ack = true;
        } else {
            self.ack_now = true;
        }
    }

    /// Deliver what the reassembly queue now holds in order; returns whether a FIN was reached.
    fn present_reass(&mut self) -> bool {
        let out = self.reass.present(self.rcv_nxt);
        self.rcv_nxt = self.rcv_nxt.wrapping_add(out.delivered as u32);
        self.rcv_cc = self.rcv_cc.saturating_add(out.delivered as u32);
        self.stats.bytes_rcvd += out.delivered;
        out.fin
    }

    /// "dodata": `TCP_REASS`, then FIN processing (RFC 793 p.75 "eighth, check the FIN bit").
    fn do_data_and_fin(&mut self, mut flags: Flags, seq: u32, len: u32) {
        if (len > 0 || flags.contains(Flags::FIN)) && !self.state.have_rcvd_fin() {
            if seq == self.rcv_nxt && self.reass.is_empty() && self.state == State::Established {
                self.delay_or_ack_now();
                self.rcv_nxt = self.rcv_nxt.wrapping_add(len);
                self.rcv_cc = self.rcv_cc.saturating_add(len);
                self.stats.bytes_rcvd += len as u64;
            } else {
                if seq != self.rcv_nxt {
                    self.stats.ooo_segs_rcvd += 1;
                }
                let out = self.reass.insert(self.rcv_nxt, seq, len, flags.contains(Flags::FIN));
                self.stats.dup_bytes_rcvd += out.dup_bytes;
                flags = without(flags, Flags::FIN);
                if self.state != State::SynReceived && self.present_reass() {
                    flags = flags.union(Flags::FIN);
                }
                if self.sack_on {
                    self.sack_report.on_arrival(&self.reass, self.rcv_nxt, seq, len);
                }
                self.ack_now = true;
            }
        } else {
            flags = without(flags, Flags::FIN);
        }
        if flags.contains(Flags::FIN) {
            if !self.state.have_rcvd_fin() {
                self.ack_now = true;
                self.rcv_nxt = self.rcv_nxt.wrapping_add(1);
            }
            match self.state {
                State::SynReceived | State::Established => self.state = State::CloseWait,
                State::FinWait1 => self.state = State::Closing,
                State::FinWait2 => {
                    self.state = State::TimeWait;
                    self.cancel_timers();
                    self.t_2msl = 2 * TCPTV_MSL;
                }
                State::TimeWait => self.t_2msl = 2 * TCPTV_MSL,
                _ => {}
            }
        }
    }
}
