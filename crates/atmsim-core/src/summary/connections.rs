//! The `connections` section: one entry per fixed TCP connection (not the recycled slots of
//! generators), with the sender's and receiver's TCP counters and the fields of the
//! application on it.
//!
//! Owns: [`Connection`] and [`connections`].

use super::stats::{EchoStats, Window};
use crate::apps::conversation::Kind;
use crate::apps::{App, Conn};
use crate::net::Network;
use serde::Serialize;

/// One TCP connection. `client` is endpoint 0 (the sender of a bulk transfer), `server`
/// endpoint 1.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Connection {
    pub name: String,
    pub client: String,
    pub server: String,
    pub goodput_bps: f64,
    pub bytes_written: u64,
    pub bytes_read: u64,
    pub finished_at_s: Option<f64>,
    pub mss_bytes: u32,
    pub segs_sent: u64,
    pub data_segs_sent: u64,
    pub bytes_sent: u64,
    pub rexmt_segs: u64,
    pub rexmt_bytes: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub dup_acks_rcvd: u64,
    pub acks_sent_by_receiver: u64,
    pub dup_bytes_rcvd: u64,
    pub ooo_segs_rcvd: u64,
    pub cwnd_bytes: u32,
    pub ssthresh_bytes: u32,
    pub srtt_s: Option<f64>,
    pub rtt_samples: u64,
    /// The client's TCP state, as the state enum names it.
    pub state: String,
    /// Bulk transfers only: offered TCP load, payload sent in the window, retransmissions
    /// included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_bps: Option<f64>,
    /// Bulk transfers only: Koçyiğit's goodput / offered (§III), measured at the sender as
    /// the share of the payload sent in the window that was new data (`null`: none sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<f64>,
    /// Bulk transfers only: packet losses at the TCP level (MAGIC Exp. 4), retransmitted
    /// segments per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rexmt_per_s: Option<f64>,
    /// The application's kind (`apps::App::kind_name`).
    pub app: &'static str,
    pub stale_segments: u64,
    pub bytes_client_to_server: u64,
    pub bytes_server_to_client: u64,
    /// tcplib conversations only, from here to `unexpected_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversations_started: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversations_completed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversations_aborted: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connections_opened: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_bytes_c2s_total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_bytes_s2c_total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c2s_bytes_in_complete_msgs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexpected_bytes: Option<u64>,
    /// TELNET only, from here on: the echo delays of packets written after the warm-up
    /// (`null` statistics without samples).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_delay_samples: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_delay_mean_s: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_delay_std_s: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_delay_median_s: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_delay_p90_s: Option<Option<f64>>,
}

/// The fixed connections, in scenario order.
pub fn connections(net: &Network, w: Window) -> Vec<Connection> {
    net.apps().fixed_slots().iter().map(|c| connection(net, c, w)).collect()
}

fn connection(net: &Network, c: &Conn, w: Window) -> Connection {
    let tcp = c.endpoint(0).tcp();
    let s = tcp.stats();
    let r = c.endpoint(1).tcp().stats();
    let warm = c.warm();
    let mut out = Connection {
        name: c.name().to_string(),
        client: net.ip().hosts[c.endpoint(0).host().idx()].name().to_string(),
        server: net.ip().hosts[c.endpoint(1).host().idx()].name().to_string(),
        goodput_bps: (c.bytes_read() - warm.bytes_read) as f64 * 8.0 / w.len,
        bytes_written: match c.app() {
            App::Bulk(b) => b.written(),
            App::Conv(_) => 0,
        },
        bytes_read: c.bytes_read(),
        finished_at_s: c.finished_at().map(|t| t.as_secs_f64()),
        mss_bytes: tcp.mss(),
        segs_sent: s.segs_sent,
        data_segs_sent: s.data_segs_sent,
        bytes_sent: s.bytes_sent,
        rexmt_segs: s.rexmt_segs,
        rexmt_bytes: s.rexmt_bytes,
        timeouts: s.timeouts,
        fast_retransmits: s.fast_retransmits,
        dup_acks_rcvd: s.dup_acks_rcvd,
        acks_sent_by_receiver: r.acks_sent,
        dup_bytes_rcvd: r.dup_bytes_rcvd,
        ooo_segs_rcvd: r.ooo_segs_rcvd,
        cwnd_bytes: tcp.cwnd(),
        ssthresh_bytes: tcp.ssthresh(),
        srtt_s: tcp.srtt_secs(),
        rtt_samples: s.rtt_samples,
        state: format!("{:?}", tcp.state()),
        app: c.app().kind_name(),
        stale_segments: c.stale_segments(),
        bytes_client_to_server: c.bytes_read() - warm.bytes_read,
        ..Connection::default()
    };
    match c.app() {
        App::Bulk(_) => {
            // In steady state new data sent = data delivered; counted at the sender the
            // efficiency stays within [0, 1] also over a window shorter than a round trip,
            // where data sent before the warm-up arrives inside it. Bulk connections are
            // never recycled, so their warm-up snapshots are theirs.
            let sent = s.bytes_sent.saturating_sub(warm.bytes_sent);
            let resent = s.rexmt_bytes.saturating_sub(warm.rexmt_bytes).min(sent);
            out.offered_bps = Some(sent as f64 * 8.0 / w.len);
            out.efficiency = Some(if sent > 0 { (sent - resent) as f64 / sent as f64 } else { f64::NAN });
            out.rexmt_per_s = Some(s.rexmt_segs.saturating_sub(warm.rexmt_segs) as f64 / w.len);
        }
        App::Conv(a) => {
            let n = a.counts();
            out.bytes_server_to_client = n.s2c_bytes - warm.s2c_bytes;
            out.conversations_started = Some(n.started);
            out.conversations_completed = Some(n.completed);
            out.conversations_aborted = Some(n.aborted);
            out.connections_opened = Some(n.connections);
            out.app_bytes_c2s_total = Some(n.c2s_bytes);
            out.app_bytes_s2c_total = Some(n.s2c_bytes);
            out.c2s_bytes_in_complete_msgs = Some(n.c2s_whole_bytes);
            out.unexpected_bytes = Some(n.unexpected_bytes_read);
            if a.kind == Kind::Telnet {
                let mut d = a.echo_delays_from(w.warm);
                let st = EchoStats::of(&mut d);
                out.echo_delay_samples = Some(d.len());
                out.echo_delay_mean_s = Some(st.map(|s| s.mean));
                out.echo_delay_std_s = Some(st.map(|s| s.std));
                out.echo_delay_median_s = Some(st.map(|s| s.median));
                out.echo_delay_p90_s = Some(st.map(|s| s.p90));
            }
        }
    }
    out
}
