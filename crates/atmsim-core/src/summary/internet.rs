//! The internetwork sections: `hosts` (nodes' IP layers and IP-over-ATM drivers), `lines`
//! (packet-level serial lines and LANs) and `udp` (UDP flows).
//!
//! Owns: [`Host`], [`Ipoa`], [`Line`], [`UdpFlow`] and the functions that list them. Driver
//! counters follow Mah (1996) §3.4/§6.6 and spec decisions: setups requested (cache
//! misses), cache hits, setups completed and failed, teardowns, the maximum of VCs in use
//! (bound + cached) over the 1-s samples, and the peak of setups requested in any 1-s bin;
//! under a QoS policy other than noqos also the guaranteed setups requested and refused, the
//! guaranteed cache hits and the two failure rates, per setup request and per VC request
//! (hits + setups; `iface::ipoa::counters`).

use crate::iface::ipoa::qos::Scheme;
use crate::iface::ipoa::IpoaDriver;
use crate::ip::cpu::Dir;
use crate::net::Network;
use serde::Serialize;

/// One node (host or router).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Host {
    pub name: String,
    pub router: bool,
    pub frames_rcvd: u64,
    pub frames_corrupt: u64,
    /// `null` (as the three after it) for a node without a modelled CPU.
    pub cpu_utilization: Option<f64>,
    pub cpu_rx_segments: Option<u64>,
    pub cpu_tx_segments: Option<u64>,
    pub cpu_max_queue: Option<usize>,
    pub forwarded: u64,
    pub no_route: u64,
    pub no_socket: u64,
    /// Only for a node with an ATM interface: its IP-over-ATM driver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipoa: Option<Ipoa>,
}

/// A node's IP-over-ATM driver: its policies and counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Ipoa {
    /// The multiplexing policy (`iface::ipoa::MuxPolicy::name`).
    pub mux: &'static str,
    /// The VC management policy (`iface::ipoa::VcPolicy::name`).
    pub vc: &'static str,
    pub setups_requested: u64,
    pub cache_hits: u64,
    pub setups_completed: u64,
    pub setups_failed: u64,
    pub teardowns: u64,
    pub datagrams_queued: u64,
    pub datagrams_dropped: u64,
    pub vcs_in_use: u32,
    pub max_vcs_in_use: u32,
    pub peak_setups_per_s: u32,
    pub hit_rate: Option<f64>,
    /// Under a QoS policy other than noqos only, from here on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guaranteed_requested: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guaranteed_refused: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guaranteed_failure_rate: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guaranteed_hits: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guaranteed_failure_rate_per_vc_request: Option<Option<f64>>,
}

/// One packet line: a direction of a serial line, or a LAN's medium.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Line {
    pub name: String,
    /// "serial" or "lan".
    pub kind: &'static str,
    pub rate_bps: u64,
    pub sent: u64,
    pub bytes_sent: u64,
    pub dropped: u64,
    pub utilization: f64,
    pub queued_at_end: usize,
}

/// One UDP flow.
#[derive(Clone, Debug, Default, Serialize)]
pub struct UdpFlow {
    pub name: String,
    pub from: String,
    pub to: String,
    pub sent: u64,
    pub delivered: u64,
    pub undelivered: u64,
    /// `null` (as the delays) before anything was sent (delivered).
    pub loss_rate: Option<f64>,
    pub late: u64,
    pub delay_mean_s: Option<f64>,
    pub delay_max_s: Option<f64>,
    pub bytes_delivered: u64,
}

/// One entry per node (host or router).
pub fn hosts(net: &Network) -> Vec<Host> {
    let run_ps = net.engine().until().0.max(1) as f64;
    net.ip()
        .hosts
        .iter()
        .map(|h| Host {
            name: h.name().to_string(),
            router: h.forwards(),
            frames_rcvd: h.frames().1,
            frames_corrupt: h.frames().0,
            cpu_utilization: h.cpu().map(|c| c.busy_until(net.engine().until()) as f64 / run_ps),
            cpu_rx_segments: h.cpu().map(|c| c.segments_done(Dir::Rx)),
            cpu_tx_segments: h.cpu().map(|c| c.segments_done(Dir::Tx)),
            cpu_max_queue: h.cpu().map(|c| c.max_queue),
            forwarded: h.counts().forwarded,
            no_route: h.counts().no_route,
            no_socket: h.counts().no_socket,
            ipoa: h.atm().map(|atm| ipoa(atm.driver())),
        })
        .collect()
}

fn ipoa(driver: &IpoaDriver) -> Ipoa {
    let c = driver.counters();
    let cfg = driver.config();
    let qos = cfg.qos.scheme != Scheme::Noqos;
    Ipoa {
        mux: cfg.mux.name(),
        vc: cfg.vc.name(),
        setups_requested: c.setups_requested,
        cache_hits: c.cache_hits,
        setups_completed: c.setups_completed,
        setups_failed: c.setups_failed,
        teardowns: c.teardowns,
        datagrams_queued: c.datagrams_queued,
        datagrams_dropped: c.datagrams_dropped,
        vcs_in_use: c.vcs_in_use,
        max_vcs_in_use: c.max_vcs_in_use(),
        peak_setups_per_s: c.peak_setups_per_sec(),
        hit_rate: c.hit_rate(),
        qos: qos.then(|| cfg.qos.to_string()),
        guaranteed_requested: qos.then_some(c.guaranteed_requested),
        guaranteed_refused: qos.then_some(c.guaranteed_refused),
        guaranteed_failure_rate: qos.then(|| c.guaranteed_failure_rate()),
        guaranteed_hits: qos.then_some(c.guaranteed_hits),
        guaranteed_failure_rate_per_vc_request: qos.then(|| c.guaranteed_failure_rate_per_vc_request()),
    }
}

/// One entry per packet line: each direction of each serial line, and each LAN's medium.
pub fn lines(net: &Network) -> Vec<Line> {
    let window = net.engine().until().0.max(1) as f64;
    let entry = |name: String, kind: &'static str, l: u32| {
        let line = &net.iface().lines[l as usize];
        let s = &line.stats;
        Line {
            name,
            kind,
            rate_bps: line.rate.as_bps(),
            sent: s.sent,
            bytes_sent: s.bytes_sent,
            dropped: s.dropped,
            utilization: s.busy_ps as f64 / window,
            queued_at_end: line.queued(),
        }
    };
    let mut out = Vec::new();
    for s in &net.iface().serial {
        for (d, (a, b)) in [(0, (0, 1)), (1, (1, 0))] {
            let name =
                format!("{}:{}->{}", s.name, net.ip().hosts[s.ends[a].idx()].name(), net.ip().hosts[s.ends[b].idx()].name());
            out.push(entry(name, "serial", s.lines[d]));
        }
    }
    for l in &net.iface().lans {
        out.push(entry(l.name.clone(), "lan", l.line));
    }
    out
}

/// One entry per UDP flow.
pub fn udp(net: &Network) -> Vec<UdpFlow> {
    net.apps()
        .udp
        .iter()
        .map(|f| {
            let s = &f.stats;
            UdpFlow {
                name: f.name.clone(),
                from: net.ip().hosts[f.hdr.src.idx()].name().to_string(),
                to: net.ip().hosts[f.hdr.dst.idx()].name().to_string(),
                sent: s.sent,
                delivered: s.delivered,
                undelivered: f.undelivered(),
                loss_rate: (s.sent > 0).then(|| f.undelivered() as f64 / s.sent as f64),
                late: s.late,
                delay_mean_s: (s.delivered > 0).then(|| s.delay_sum_ps as f64 / s.delivered as f64 * 1e-12),
                delay_max_s: (s.delivered > 0).then_some(s.delay_max_ps as f64 * 1e-12),
                bytes_delivered: s.bytes_delivered,
            }
        })
        .collect()
}
