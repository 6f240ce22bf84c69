//! The TCP connection: the control block, the application calls and the timers.
//!
//! Owns: [`TcpConn`] (BSD `struct tcpcb` plus the byte counts of the two socket buffers),
//! [`State`], [`TcpStats`], the user requests of `tcp_usrreq()` (`PRU_CONNECT`, `PRU_LISTEN`,
//! `PRU_SEND`, `PRU_RCVD`, `PRU_SHUTDOWN` → `tcp_usrclosed()`), `tcp_mss()` and the timer
//! entry points `tcp_fasttimo()` / `tcp_slowtimo()` / `tcp_timers()`.
//!
//! The input path (`tcp_input()`) lives in [`super::input`], the output path (`tcp_output()`)
//! in [`super::output`], the reassembly queue (`tcp_reass()`) in [`super::reass`].
//!
//! Sans-I/O: where BSD calls `tcp_output()` from inside input or a timer, atmsim lets the host
//! call [`TcpConn::poll_transmit`] afterwards, except where BSD manipulates the window around
//! the nested call (fast retransmit, NewReno partial ACK): those segments are produced at once
//! and queued, and `poll_transmit` returns them first.

use std::collections::VecDeque;

use super::cc::hystart::HyStart;
use super::cc::{CcState, TCP_MAXWIN, TCP_MAX_WINSHIFT};
use super::config::TcpConfig;
use super::reass::ReassQueue;
use super::rtt::{RttEstimator, SmoothedRtt};
use super::sack::receiver::SackReport;
use super::sack::Scoreboard;
use super::timestamps::{TsState, TS_OPTION_BYTES};
use super::segment::Segment;
use crate::time::{SimDuration, SimTime};

/// `TCPTV_MSL`: maximum segment lifetime, 30 s [slow ticks]; TIME_WAIT lasts 2·MSL.
pub const TCPTV_MSL: u32 = 60;
/// MSS assumed when the peer's SYN carries no MSS option (RFC 1122 §4.2.2.6).
pub const DEFAULT_PEER_MSS: u32 = 536;

/// RFC 793 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    CloseWait,
    FinWait1,
    Closing,
    LastAck,
    FinWait2,
    TimeWait,
}

impl State {
    /// `TCPS_HAVERCVDFIN`: a FIN has been received (no more data will arrive).
    #[inline]
    pub fn have_rcvd_fin(self) -> bool {
        matches!(self, State::CloseWait | State::Closing | State::LastAck | State::TimeWait)
    }
}

/// Counters of one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Segments sent, all kinds.
    pub segs_sent: u64,
    /// Segments sent carrying data (first transmissions and retransmissions).
    pub data_segs_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Data segments retransmitted (after timeout or fast retransmit).
    pub rexmt_segs: u64,
    /// Payload bytes retransmitted.
    pub rexmt_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (dupack threshold reached; with SACK, every entry into RFC 6675
    /// recovery, by the threshold or by `IsLost`).
    pub fast_retransmits: u64,
    /// Duplicate ACKs received.
    pub dup_acks_rcvd: u64,
    /// Pure ACKs / window updates sent (no data, no SYN/FIN).
    pub acks_sent: u64,
    /// Segments received.
    pub segs_rcvd: u64,
    /// Payload bytes received in sequence (new data, duplicates excluded).
    pub bytes_rcvd: u64,
    /// Payload bytes received that were duplicates (already received).
    pub dup_bytes_rcvd: u64,
    /// Segments received out of order (queued for reassembly).
    pub ooo_segs_rcvd: u64,
    /// Segments dropped by PAWS (RFC 7323 §5.3): older timestamps than `TS.Recent`.
    pub paws_drops: u64,
    /// RTT samples taken, and their sum [slow ticks], as BSD measures them.
    pub rtt_samples: u64,
    pub rtt_ticks_sum: u64,
}

/// One TCP endpoint (BSD `struct tcpcb` with its socket buffers reduced to byte counts).
pub struct TcpConn {
    pub(super) cfg: TcpConfig,
    pub(super) state: State,
    pub(super) stats: TcpStats,

    // Send sequence space (RFC 793 §3.2).
    pub(super) iss: u32,
    pub(super) snd_una: u32,
    pub(super) snd_nxt: u32,
    pub(super) snd_max: u32,
    pub(super) snd_wnd: u32,
    pub(super) snd_wl1: u32,
    pub(super) snd_wl2: u32,
    pub(super) max_sndwnd: u32,
    /// Our SYN has been acknowledged (the send buffer starts at `snd_una`).
    pub(super) syn_acked: bool,

    // Receive sequence space.
    pub(super) irs: u32,
    pub(super) rcv_nxt: u32,
    pub(super) rcv_adv: u32,
    pub(super) rcv_wnd: u32,

    // Socket buffers [bytes]: high-water marks and contents.
    pub(super) snd_hiwat: u32,
    pub(super) snd_cc: u32,
    pub(super) rcv_hiwat: u32,
    pub(super) rcv_cc: u32,
    pub(super) reass: ReassQueue,
    /// SS_CANTSENDMORE: the application closed; a FIN follows the data.
    pub(super) cant_send_more: bool,

    /// `t_maxseg`.
    pub(super) maxseg: u32,

    // RFC 1323 window scaling.
    pub(super) req_scale: bool,
    pub(super) rcvd_scale: bool,
    pub(super) request_r_scale: u8,
    pub(super) requested_s_scale: u8,
    pub(super) snd_scale: u8,
    pub(super) rcv_scale: u8,

    // RFC 2018 / RFC 6675 selective acknowledgements (super::sack).
    /// Both SYNs carried SACK-permitted: SACK is in use.
    pub(super) sack_on: bool,
    /// The receiver's most recently reported blocks.
    pub(super) sack_report: SackReport,
    /// The sender's scoreboard.
    pub(super) scoreboard: Scoreboard,

    // t_flags.
    pub(super) ack_now: bool,
    pub(super) del_ack: bool,
    pub(super) sent_fin: bool,
    /// `t_force`: the persist timer asks for a one-byte probe.
    pub(super) force: bool,

    // Slow timers [ticks], 0 = off (t_timer[]).
    pub(super) t_rexmt: u32,
    pub(super) t_persist: u32,
    pub(super) t_2msl: u32,

    pub(super) rtt: RttEstimator,
    /// The round-trip samples at full resolution, for the congestion-control algorithms.
    pub(super) srtt: SmoothedRtt,
    /// When the segment `rtt` is timing was sent.
    pub(super) timed_at: SimTime,
    /// RFC 7323 timestamps.
    pub(super) stamps: TsState,
    pub(super) cc: CcState,

    /// Time of the last segment received (BSD `t_idle` = ticks since then).
    pub(super) last_rcv: SimTime,
    /// `idle` of the `tcp_output()` call being continued (`sendalot`).
    pub(super) cont_idle: Option<bool>,
    /// Segments produced by nested `tcp_output()` calls and RSTs, sent first.
    pub(super) out_queue: VecDeque<Segment>,
}

impl TcpConn {
    /// A CLOSED endpoint with initial send sequence number `iss`.
    pub fn new(cfg: TcpConfig, iss: u32) -> Self {
        let maxseg = cfg.mss_bytes.max(1);
        TcpConn {
            cfg,
            state: State::Closed,
            stats: TcpStats::default(),
            iss,
            snd_una: iss,
            snd_nxt: iss,
            snd_max: iss,
            snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            max_sndwnd: 0,
            syn_acked: false,
            irs: 0,
            rcv_nxt: 0,
            rcv_adv: 0,
            rcv_wnd: 0,
            snd_hiwat: cfg.snd_buf_bytes,
            snd_cc: 0,
            rcv_hiwat: cfg.rcv_buf_bytes,
            rcv_cc: 0,
            reass: ReassQueue::default(),
            cant_send_more: false,
            maxseg,
            req_scale: false,
            rcvd_scale: false,
            request_r_scale: 0,
            requested_s_scale: 0,
            snd_scale: 0,
            rcv_scale: 0,
            sack_on: false,
            sack_report: SackReport::default(),
            scoreboard: Scoreboard::default(),
            ack_now: false,
            del_ack: false,
            sent_fin: false,
            force: false,
            t_rexmt: 0,
            t_persist: 0,
            t_2msl: 0,
            rtt: RttEstimator::new(cfg.rto_initial_ticks, cfg.rto_min_ticks, cfg.rto_max_ticks),
            srtt: SmoothedRtt::default(),
            timed_at: SimTime::ZERO,
            stamps: TsState::new(cfg.timestamps),
            cc: CcState {
                on_loss: cfg.ssthresh_on_loss,
                hystart: cfg.hystart.then(HyStart::default),
                ..CcState::new(cfg.variant, maxseg.saturating_mul(cfg.initial_cwnd_segments.max(1)), iss)
            },
            last_rcv: SimTime::ZERO,
            cont_idle: None,
            out_queue: VecDeque::new(),
        }
    }

    /// Compute the window-scale request (tcp_usrreq PRU_CONNECT / PRU_LISTEN): the smallest
    /// shift with `TCP_MAXWIN << shift >= rcv buffer`; offered only when the buffer needs it.
    fn init_window_scale_request(&mut self) {
        self.req_scale = self.cfg.window_scaling && self.rcv_hiwat > TCP_MAXWIN;
        let mut s = 0u8;
        while s < TCP_MAX_WINSHIFT && (TCP_MAXWIN << s) < self.rcv_hiwat {
            s += 1;
        }
        self.request_r_scale = if self.req_scale { s } else { 0 };
    }

    /// Active open: CLOSED → SYN_SENT; the SYN comes out of the next `poll_transmit`.
    pub fn open_active(&mut self, now: SimTime) {
        if self.state != State::Closed {
            return;
        }
        self.init_window_scale_request();
        self.state = State::SynSent;
        self.last_rcv = now;
        self.snd_una = self.iss;
        self.snd_nxt = self.iss;
        self.snd_max = self.iss;
    }
    /// Passive open: CLOSED → LISTEN.
    pub fn open_passive(&mut self) {
        if self.state != State::Closed {
            return;
        }
        self.init_window_scale_request();
        self.state = State::Listen;
    }

    /// `tcp_mss(tp, offer)`: settle the MSS with the peer's offer and, as BSD does, round the
    /// socket buffers to whole segments (or clamp the MSS to a smaller send buffer).
    pub(super) fn settle_mss(&mut self, offer: Option<u16>) {
        let offer = offer.map(u32::from).unwrap_or(DEFAULT_PEER_MSS);
        let mut mss = self.cfg.mss_bytes.min(offer).max(32);
        if self.stamps.on {
            // Every segment carries the option: the data it can hold shrinks by as much.
            mss -= TS_OPTION_BYTES;
        }
        if self.cfg.round_buffers_to_mss {
            if self.snd_hiwat < mss {
                mss = self.snd_hiwat.max(1);
            } else {
                self.snd_hiwat = round_up(self.snd_hiwat, mss);
            }
            if self.rcv_hiwat > mss {
                self.rcv_hiwat = round_up(self.rcv_hiwat, mss);
            }
        }
        self.maxseg = mss;
        self.cc.cwnd = mss.saturating_mul(self.cfg.initial_cwnd_segments.max(1));
    }

    /// The MSS we offer in our SYN (`tcp_mss(tp, 0)`: the interface MSS, clamped to a
    /// smaller send buffer).
    pub(super) fn offered_mss(&self) -> u16 {
        let mut mss = self.cfg.mss_bytes;
        if self.cfg.round_buffers_to_mss && self.cfg.snd_buf_bytes < mss {
            mss = self.cfg.snd_buf_bytes.max(1);
        }
        mss.min(u16::MAX as u32) as u16
    }

    /// Use window scaling if both SYNs carried the option (RFC 1323 §2.2).
    pub(super) fn apply_window_scale(&mut self) {
        if self.req_scale && self.rcvd_scale {
            self.snd_scale = self.requested_s_scale;
            self.rcv_scale = self.request_r_scale;
        }
    }

    /// `sbspace(&so->so_rcv)`.
    #[inline]
    pub(super) fn rcv_space(&self) -> u32 {
        self.rcv_hiwat.saturating_sub(self.rcv_cc)
    }

    /// `tcp_canceltimers()`.
    pub(super) fn cancel_timers(&mut self) {
        self.t_rexmt = 0;
        self.t_persist = 0;
        self.t_2msl = 0;
    }

    /// `tcp_close()` / `tcp_drop()`: the connection is gone.
    pub(super) fn drop_connection(&mut self) {
        self.state = State::Closed;
        self.cancel_timers();
        self.rtt.cancel_timing();
        self.del_ack = false;
        self.ack_now = false;
        self.force = false;
    }

    /// Feed an RTT measurement to the estimator (`tcp_xmit_timer`) and count it; `exact` is
    /// the same round trip at full resolution.
    pub(super) fn rtt_sample(&mut self, ticks: u32, exact: SimDuration) {
        self.stats.rtt_samples += 1;
        self.stats.rtt_ticks_sum += ticks as u64;
        self.rtt.xmit_timer(ticks);
        self.srtt.sample(exact);
    }

    /// Application write: append up to `bytes` to the send buffer; returns bytes accepted.
    pub fn send(&mut self, bytes: u64) -> u64 {
        let n = bytes.min(self.send_space());
        self.snd_cc += n as u32;
        n
    }
    /// Free space in the send buffer \[bytes\].
    pub fn send_space(&self) -> u64 {
        let open = matches!(self.state, State::SynSent | State::SynReceived | State::Established | State::CloseWait);
        if !open || self.cant_send_more {
            return 0;
        }
        self.snd_hiwat.saturating_sub(self.snd_cc) as u64
    }
    /// Application read: remove up to `max` in-order bytes from the receive buffer.
    pub fn recv(&mut self, max: u64) -> u64 {
        let n = max.min(self.rcv_cc as u64);
        self.rcv_cc -= n as u32;
        n
    }
    /// In-order bytes waiting to be read.
    pub fn readable(&self) -> u64 {
        self.rcv_cc as u64
    }
    /// Application close (`tcp_usrclosed()`): a FIN follows the queued data. The receive
    /// side stays open (a half close, like `shutdown(SHUT_WR)`).
    pub fn close(&mut self) {
        self.cant_send_more = true;
        match self.state {
            State::Closed | State::Listen | State::SynSent => self.drop_connection(),
            State::SynReceived | State::Established => self.state = State::FinWait1,
            State::CloseWait => self.state = State::LastAck,
            _ => {}
        }
    }
    /// 200 ms tick (tcp_fasttimo): send a delayed ACK.
    pub fn fast_timo(&mut self, _now: SimTime) {
        if self.del_ack {
            self.del_ack = false;
            self.ack_now = true;
        }
    }
    /// 500 ms tick (tcp_slowtimo): retransmit, persist and 2MSL timers, RTT count.
    /// (Keepalive is not modelled; BSD `t_idle` is derived from the time of the last
    /// segment received, so it needs no tick.)
    pub fn slow_timo(&mut self, _now: SimTime) {
        self.cont_idle = None;
        if self.t_rexmt != 0 {
            self.t_rexmt -= 1;
            if self.t_rexmt == 0 {
                self.rexmt_timeout();
            }
        }
        if self.t_persist != 0 {
            self.t_persist -= 1;
            if self.t_persist == 0 {
                // tcp_timers TCPT_PERSIST: re-arm with back-off and force a probe.
                self.t_persist = self.rtt.persist_interval();
                self.force = true;
            }
        }
        if self.t_2msl != 0 {
            self.t_2msl -= 1;
            if self.t_2msl == 0 && matches!(self.state, State::TimeWait | State::FinWait2) {
                self.drop_connection();
            }
        }
        self.rtt.tick();
    }

    /// tcp_timers TCPT_REXMT: back off, go back to `snd_una`, collapse the window.
    fn rexmt_timeout(&mut self) {
        if !self.rtt.on_rexmt_timeout(self.cfg.max_rexmt_shift) {
            self.drop_connection();
            return;
        }
        self.stats.timeouts += 1;
        self.t_rexmt = self.rtt.rxtcur;
        self.snd_nxt = self.snd_una;
        self.cc.on_rto(self.maxseg, self.snd_wnd, self.snd_max);
        if self.sack_on {
            self.sack_on_timeout();
        }
    }

    /// tcp_output: the next segment to send now, or `None`. Call until `None`.
    #[inline]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Segment> {
        if let Some(s) = self.out_queue.pop_front() {
            return Some(s);
        }
        if self.cc.in_recovery && self.sack_on {
            if let Some(s) = self.sack_output(now) {
                return Some(s);
            }
        }
        self.output(now)
    }
    /// A delayed ACK is pending.
    pub fn wants_fast_tick(&self) -> bool {
        self.del_ack
    }
    /// A slow-timer counter is armed or an RTT is being timed.
    pub fn wants_slow_tick(&self) -> bool {
        self.t_rexmt != 0 || self.t_persist != 0 || self.t_2msl != 0 || self.rtt.rtt != 0
    }
    pub fn state(&self) -> State {
        self.state
    }
    /// The configuration the endpoint was created with.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// Bytes TCP has released to IP so far, retransmissions not counted twice: snd_max − iss
    /// (the SYN and FIN count one each, as in sequence space). Kalampoukas §5.2 plots this
    /// ("as segments leave TCP").
    pub fn seq_released(&self) -> u32 {
        self.snd_max.wrapping_sub(self.iss)
    }
    /// In fast recovery (NewReno's, or RFC 6675's with SACK).
    pub fn in_recovery(&self) -> bool {
        self.cc.in_recovery
    }
    /// SACK is in use on the connection (both SYNs carried SACK-permitted).
    pub fn sack_in_use(&self) -> bool {
        self.sack_on
    }
    /// Congestion window \[bytes\].
    pub fn cwnd(&self) -> u32 {
        self.cc.cwnd
    }
    /// Slow-start threshold \[bytes\].
    pub fn ssthresh(&self) -> u32 {
        self.cc.ssthresh
    }
    /// Effective MSS after negotiation and tcp_mss() clamping \[bytes\].
    pub fn mss(&self) -> u32 {
        self.maxseg
    }
    /// Smoothed RTT \[s\], if any sample was taken (BSD t_srtt converted from ticks).
    pub fn srtt_secs(&self) -> Option<f64> {
        (self.rtt.srtt != 0).then(|| {
            self.rtt.srtt as f64 / (1u32 << super::rtt::TCP_RTT_SHIFT) as f64 * self.cfg.slow_tick.as_secs_f64()
        })
    }
    /// Smoothed RTT at full resolution (RFC 6298 smoothing of the same samples), zero
    /// before the first.
    pub fn srtt_exact(&self) -> SimDuration {
        self.srtt.srtt
    }
    /// Current retransmission timeout [slow ticks] (t_rxtcur).
    pub fn rto_ticks(&self) -> u32 {
        self.rtt.rxtcur
    }

    // ---- additions beyond the contract: read-only views for hosts, traces and tests ----

    /// Send buffer size after tcp_mss() rounding \[bytes\].
    pub fn snd_buf_bytes(&self) -> u32 {
        self.snd_hiwat
    }
    /// Receive buffer size after tcp_mss() rounding \[bytes\].
    pub fn rcv_buf_bytes(&self) -> u32 {
        self.rcv_hiwat
    }
    /// Window-scale shifts in use: (applied to the peer's window, applied to ours).
    pub fn window_scales(&self) -> (u8, u8) {
        (self.snd_scale, self.rcv_scale)
    }
    /// The peer's advertised window, scaled \[bytes\] (`snd_wnd`).
    pub fn snd_wnd(&self) -> u32 {
        self.snd_wnd
    }
    /// Bytes sent and not yet acknowledged (`snd_max - snd_una`, SYN/FIN included).
    pub fn in_flight(&self) -> u32 {
        self.snd_max.wrapping_sub(self.snd_una)
    }
    /// Current back-off shift (`t_rxtshift`).
    pub fn rxtshift(&self) -> u32 {
        self.rtt.rxtshift
    }
    /// Slow ticks left on the persist timer (0 = off).
    pub fn persist_timer(&self) -> u32 {
        self.t_persist
    }
}

#[inline]
fn round_up(x: u32, m: u32) -> u32 {
    let m = m.max(1) as u64;
    (((x as u64).div_ceil(m)) * m).min(u32::MAX as u64) as u32
}
