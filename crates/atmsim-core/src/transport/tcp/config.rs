//! TCP parameters: every knob with its unit, default and the source of the default.
//!
//! Owns: [`TcpConfig`], [`Variant`] and [`SsthreshOnLoss`]. Defaults are those of BSD 4.4-Lite
//! (`netinet/tcp_timer.h`, `tcp_var.h`, `tcp_subr.c`) unless stated.

use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// Congestion-control variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// 4.3BSD-Tahoe: fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe,
    /// 4.3BSD-Reno / 4.4BSD-Lite: fast retransmit and fast recovery (RFC 2001).
    #[default]
    Reno,
    /// NewReno partial-ACK handling (RFC 6582) — an extra beyond the studies.
    NewReno,
    /// CUBIC (RFC 9438): the window grows as a cubic function of the time since the last
    /// reduction, with the Reno-friendly region and fast convergence; loss recovery is
    /// NewReno's (RFC 6582), or RFC 6675's with SACK. Today's default in Linux, Windows and
    /// macOS.
    Cubic,
}

impl Variant {
    /// Every variant, in the order the documentation lists them.
    pub const ALL: [Variant; 4] = [Variant::Tahoe, Variant::Reno, Variant::NewReno, Variant::Cubic];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Cubic => "cubic",
        }
    }
}

/// The window a loss halves to set `ssthresh` (after a fast retransmit or a timeout).
///
/// BSD (4.3-Tahoe onwards, 4.4-Lite `tcp_input`/`tcp_timers`, RFC 2001) halves the usable
/// window, `min(snd_cwnd, snd_wnd)`: the sender falls back to half of what it had in flight.
/// The alternative halves the peer's advertised window alone, ignoring `snd_cwnd`, so after
/// every loss slow start climbs back to half the receiver's buffer however small the path's
/// capacity is. We know of no documented implementation that behaved so (RFC 2525's catalogue
/// of known TCP implementation problems does not list it): it is offered as a hypothesis — with
/// 128 kB windows it reproduces the collapse MAGIC measured through a 256-cell port (Ewy et al.
/// 1995, Tables 2–3 and Figure 6; see the MAGIC report), where BSD's rule does not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshOnLoss {
    /// `ssthresh = max(min(cwnd, snd_wnd) / 2, 2·mss)`, whole segments (BSD, RFC 2001).
    #[default]
    HalfWindow,
    /// `ssthresh = max(snd_wnd / 2, 2·mss)`, whole segments: the hypothesis above.
    HalfAdvertised,
}

/// Parameters of one TCP endpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Selective acknowledgements: offer SACK-permitted on the SYN and, when both ends did,
    /// send SACK blocks (RFC 2018) and recover losses with the scoreboard (RFC 6675).
    /// Default off (4.4BSD has none).
    pub sack: bool,
    /// RFC 7323 timestamps: offered on the SYN and, when both ends did, carried on every
    /// segment for round-trip measurement (RTTM, a sample per ACK of new data) and PAWS.
    /// Default off (4.4-Lite implements them but only uses them on request).
    pub timestamps: bool,
    /// HyStart++ (RFC 9406): leave slow start when the round-trip time rises, through a
    /// conservative slow start. Default off.
    pub hystart: bool,
    /// How a loss sets `ssthresh` (default BSD's half the usable window).
    pub ssthresh_on_loss: SsthreshOnLoss,
    /// MSS this endpoint offers and may send \[bytes\]: interface MTU − 40 (tcp_mss()).
    pub mss_bytes: u32,
    /// Send socket buffer \[bytes\] (SO_SNDBUF; ttcp `-b`). Default 4096 (tcp_sendspace... BSD
    /// used 4096 in 4.3, 8192 in 4.4: we use 8192, `tcp_sendspace`).
    pub snd_buf_bytes: u32,
    /// Receive socket buffer \[bytes\] (SO_RCVBUF): the largest window offered. Default 8192.
    pub rcv_buf_bytes: u32,
    /// Offer RFC 1323 window scaling on SYN (used only if the buffer exceeds 65535). Default on.
    pub window_scaling: bool,
    /// Nagle's algorithm (RFC 896); off = TCP_NODELAY. Default on.
    pub nagle: bool,
    /// Delay ACKs up to one fast tick (TF_DELACK). Default on.
    pub delayed_ack: bool,
    /// BSD tcp_mss(): round both socket buffers up to a whole number of segments when they are
    /// at least one MSS, and clamp the MSS to the send buffer when smaller. Default on.
    pub round_buffers_to_mss: bool,
    /// Slow timer period (PR_SLOWHZ = 2 ⇒ 500 ms).
    pub slow_tick: SimDuration,
    /// Fast timer period (PR_FASTHZ = 5 ⇒ 200 ms).
    pub fast_tick: SimDuration,
    /// Minimum RTO [slow ticks] (TCPTV_MIN = 2 ticks = 1 s).
    pub rto_min_ticks: u32,
    /// Maximum RTO [slow ticks] (TCPTV_REXMTMAX = 128 ticks = 64 s).
    pub rto_max_ticks: u32,
    /// TCPTV_SRTTDFLT [slow ticks] (6 = 3 s): the RTO before any RTT sample is twice this
    /// (6 s), as 4.4-Lite's tcp_newtcpcb sets it ([`super::rtt::RttEstimator::new`]).
    pub rto_initial_ticks: u32,
    /// Give up after this many back-offs (TCP_MAXRXTSHIFT = 12).
    pub max_rexmt_shift: u32,
    /// Duplicate ACKs that trigger fast retransmit (tcprexmtthresh = 3).
    pub dupack_threshold: u32,
    /// Initial congestion window \[segments\] (4.4BSD: 1).
    pub initial_cwnd_segments: u32,
    /// Low-water mark of the send buffer \[bytes\] (so_snd.sb_lowat, MCLBYTES = 2048): a
    /// blocked writer resumes when this much space is free.
    pub snd_lowat_bytes: u32,
}

impl TcpConfig {
    /// Combinations the options do not support: the field at fault and what it expects.
    pub fn conflict(&self) -> Option<(&'static str, String)> {
        if self.sack && self.variant == Variant::Tahoe {
            return Some(("sack", "false with variant = \"tahoe\": Tahoe has no fast recovery for SACK to steer".into()));
        }
        if self.variant == Variant::Cubic && self.ssthresh_on_loss != SsthreshOnLoss::HalfWindow {
            return Some((
                "ssthresh_on_loss",
                "\"half_window\" with variant = \"cubic\": CUBIC sets ssthresh by its own β (RFC 9438 §4.6)".into(),
            ));
        }
        if self.hystart && !self.timestamps {
            return Some((
                "hystart",
                "timestamps = true as well: HyStart++ takes a round-trip sample from every ACK, which the \
                 sender measures with timestamps (RFC 7323 RTTM)"
                    .into(),
            ));
        }
        None
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: Variant::Reno,
            sack: false,
            timestamps: false,
            hystart: false,
            ssthresh_on_loss: SsthreshOnLoss::HalfWindow,
            mss_bytes: 9140,
            snd_buf_bytes: 8192,
            rcv_buf_bytes: 8192,
            window_scaling: true,
            nagle: true,
            delayed_ack: true,
            round_buffers_to_mss: true,
            slow_tick: SimDuration::from_millis(500),
            fast_tick: SimDuration::from_millis(200),
            rto_min_ticks: 2,
            rto_max_ticks: 128,
            rto_initial_ticks: 6,
            max_rexmt_shift: 12,
            dupack_threshold: 3,
            initial_cwnd_segments: 1,
            snd_lowat_bytes: 2048,
        }
    }
}
