//! The TCP connection state machine (RFC 793 states; BSD 4.4-Lite `tcp_input`, `tcp_output`,
//! `tcp_timer`, `tcp_usrreq`).
//!
//! CONTRACT STUB — the public API below is fixed (the host in `crate::ip` calls it);
//! the implementation is being written.

use super::config::TcpConfig;
use super::segment::Segment;
use crate::time::SimTime;

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
    /// Fast retransmits (dupack threshold reached).
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
    /// RTT samples taken, and their sum [slow ticks], as BSD measures them.
    pub rtt_samples: u64,
    pub rtt_ticks_sum: u64,
}

/// One TCP endpoint.
pub struct TcpConn {
    _cfg: TcpConfig,
}

impl TcpConn {
    /// A CLOSED endpoint with initial send sequence number `iss`.
    pub fn new(cfg: TcpConfig, iss: u32) -> Self {
        let _ = iss;
        TcpConn { _cfg: cfg }
    }
    /// Active open: CLOSED → SYN_SENT; the SYN comes out of the next `poll_transmit`.
    pub fn open_active(&mut self, _now: SimTime) {
        todo!()
    }
    /// Passive open: CLOSED → LISTEN.
    pub fn open_passive(&mut self) {
        todo!()
    }
    /// Process an arriving segment (tcp_input).
    pub fn on_segment(&mut self, _now: SimTime, _seg: &Segment) {
        todo!()
    }
    /// Application write: append up to `bytes` to the send buffer; returns bytes accepted.
    pub fn send(&mut self, _bytes: u64) -> u64 {
        todo!()
    }
    /// Free space in the send buffer [bytes].
    pub fn send_space(&self) -> u64 {
        todo!()
    }
    /// Application read: remove up to `max` in-order bytes from the receive buffer.
    pub fn recv(&mut self, _max: u64) -> u64 {
        todo!()
    }
    /// In-order bytes waiting to be read.
    pub fn readable(&self) -> u64 {
        todo!()
    }
    /// Application close: a FIN follows the queued data.
    pub fn close(&mut self) {
        todo!()
    }
    /// 200 ms tick (tcp_fasttimo): send a delayed ACK.
    pub fn fast_timo(&mut self, _now: SimTime) {
        todo!()
    }
    /// 500 ms tick (tcp_slowtimo): retransmit, persist, keepalive and 2MSL timers, RTT count.
    pub fn slow_timo(&mut self, _now: SimTime) {
        todo!()
    }
    /// tcp_output: the next segment to send now, or `None`. Call until `None`.
    pub fn poll_transmit(&mut self, _now: SimTime) -> Option<Segment> {
        todo!()
    }
    /// A delayed ACK is pending.
    pub fn wants_fast_tick(&self) -> bool {
        todo!()
    }
    /// A slow-timer counter is armed or an RTT is being timed.
    pub fn wants_slow_tick(&self) -> bool {
        todo!()
    }
    pub fn state(&self) -> State {
        todo!()
    }
    pub fn stats(&self) -> &TcpStats {
        todo!()
    }
    /// Congestion window [bytes].
    pub fn cwnd(&self) -> u32 {
        todo!()
    }
    /// Slow-start threshold [bytes].
    pub fn ssthresh(&self) -> u32 {
        todo!()
    }
    /// Effective MSS after negotiation and tcp_mss() clamping [bytes].
    pub fn mss(&self) -> u32 {
        todo!()
    }
    /// Smoothed RTT [s], if any sample was taken (BSD t_srtt converted from ticks).
    pub fn srtt_secs(&self) -> Option<f64> {
        todo!()
    }
    /// Current retransmission timeout [slow ticks] (t_rxtcur).
    pub fn rto_ticks(&self) -> u32 {
        todo!()
    }
}
