//! The internetwork part of the end-of-run summary: nodes' IP layers and IP-over-ATM
//! drivers, packet-level lines (serial and LAN), UDP flows.
//!
//! Owns: [`hosts`], [`lines`], [`udp`] — JSON values that [`super::report::summary`] places
//! in the summary. Driver counters follow Mah (1996) §3.4/§6.6 and spec decisions:
//! setups requested (cache misses), cache hits, setups completed and failed, teardowns, the
//! maximum of VCs in use (bound + cached) over the 1-s samples, and the peak of setups
//! requested in any 1-s bin.

use crate::net::Network;
use serde_json::{json, Value};

/// One entry per node (host or router).
pub fn hosts(net: &Network) -> Vec<Value> {
    net.hosts
        .iter()
        .map(|h| {
            let mut v = json!({
                "name": h.name, "router": h.forwards, "frames_rcvd": h.frames_rcvd, "frames_corrupt": h.frames_corrupt,
                "cpu_utilization": h.cpu.as_ref().map(|c| c.busy_until(net.until) as f64 / net.until.0.max(1) as f64),
                "cpu_rx_segments": h.cpu.as_ref().map(|c| c.rx_segments),
                "cpu_tx_segments": h.cpu.as_ref().map(|c| c.tx_segments),
                "cpu_max_queue": h.cpu.as_ref().map(|c| c.max_queue),
                "forwarded": h.ip.forwarded,
                "no_route": h.ip.no_route,
            });
            if let Some(atm) = &h.atm {
                let c = atm.driver.counters();
                let cfg = atm.driver.config();
                v["ipoa"] = json!({
                    "mux": format!("{:?}", cfg.mux).to_lowercase(),
                    "vc": format!("{:?}", cfg.vc).to_lowercase(),
                    "setups_requested": c.setups_requested,
                    "cache_hits": c.cache_hits,
                    "setups_completed": c.setups_completed,
                    "setups_failed": c.setups_failed,
                    "teardowns": c.teardowns,
                    "datagrams_queued": c.datagrams_queued,
                    "datagrams_dropped": c.datagrams_dropped,
                    "vcs_in_use": c.vcs_in_use,
                    "max_vcs_in_use": c.max_vcs_in_use_sampled,
                    "peak_setups_per_s": c.peak_setups_per_sec(),
                    "hit_rate": c.hit_rate(),
                });
            }
            v
        })
        .collect()
}

/// One entry per packet line: each direction of each serial line, and each LAN's medium.
pub fn lines(net: &Network) -> Vec<Value> {
    let window = net.until.0.max(1) as f64;
    let entry = |name: String, kind: &str, l: u32| {
        let line = &net.lines[l as usize];
        let s = &line.stats;
        json!({
            "name": name, "kind": kind, "rate_bps": line.rate.as_bps(),
            "sent": s.sent, "bytes_sent": s.bytes_sent, "dropped": s.dropped,
            "utilization": s.busy_ps as f64 / window,
            "queued_at_end": line.queued(),
        })
    };
    let mut out = Vec::new();
    for s in &net.serial {
        for (d, (a, b)) in [(0, (0, 1)), (1, (1, 0))] {
            let name = format!("{}:{}->{}", s.name, net.hosts[s.ends[a].idx()].name, net.hosts[s.ends[b].idx()].name);
            out.push(entry(name, "serial", s.lines[d]));
        }
    }
    for l in &net.lans {
        out.push(entry(l.name.clone(), "lan", l.line));
    }
    out
}

/// One entry per UDP flow.
pub fn udp(net: &Network) -> Vec<Value> {
    net.udp
        .iter()
        .map(|f| {
            let s = &f.stats;
            let mean = (s.delivered > 0).then(|| s.delay_sum_ps as f64 / s.delivered as f64 * 1e-12);
            json!({
                "name": f.name,
                "from": net.hosts[f.hdr.src.idx()].name,
                "to": net.hosts[f.hdr.dst.idx()].name,
                "sent": s.sent,
                "delivered": s.delivered,
                "undelivered": f.undelivered(),
                "loss_rate": (s.sent > 0).then(|| f.undelivered() as f64 / s.sent as f64),
                "late": s.late,
                "delay_mean_s": mean,
                "delay_max_s": (s.delivered > 0).then_some(s.delay_max_ps as f64 * 1e-12),
                "bytes_delivered": s.bytes_delivered,
            })
        })
        .collect()
}
