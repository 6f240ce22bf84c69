//! The internetwork part of the end-of-run summary: nodes' IP layers and IP-over-ATM
//! drivers, packet-level lines (serial and LAN), UDP flows.
//!
//! Owns: [`hosts`], [`lines`], [`udp`] — JSON values that [`super::summary`] places
//! in the summary. Driver counters follow Mah (1996) §3.4/§6.6 and spec decisions:
//! setups requested (cache misses), cache hits, setups completed and failed, teardowns, the
//! maximum of VCs in use (bound + cached) over the 1-s samples, and the peak of setups
//! requested in any 1-s bin; under a QoS policy other than noqos also the guaranteed
//! setups requested and refused, the guaranteed cache hits and the two failure rates, per
//! setup request and per VC request (hits + setups; `iface::ipoa::counters`).

use crate::iface::ipoa::qos::Scheme;
use crate::net::Network;
use serde_json::{json, Value};

/// One entry per node (host or router).
pub fn hosts(net: &Network) -> Vec<Value> {
    net.ip.hosts
        .iter()
        .map(|h| {
            let mut v = json!({
                "name": h.name, "router": h.forwards, "frames_rcvd": h.frames_rcvd, "frames_corrupt": h.frames_corrupt,
                "cpu_utilization": h.cpu.as_ref().map(|c| c.busy_until(net.eng.until) as f64 / net.eng.until.0.max(1) as f64),
                "cpu_rx_segments": h.cpu.as_ref().map(|c| c.rx_segments),
                "cpu_tx_segments": h.cpu.as_ref().map(|c| c.tx_segments),
                "cpu_max_queue": h.cpu.as_ref().map(|c| c.max_queue),
                "forwarded": h.ip.forwarded,
                "no_route": h.ip.no_route,
                "no_socket": h.ip.no_socket,
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
                if cfg.qos.scheme != Scheme::Noqos {
                    v["ipoa"]["qos"] = json!(cfg.qos.to_string());
                    v["ipoa"]["guaranteed_requested"] = json!(c.guaranteed_requested);
                    v["ipoa"]["guaranteed_refused"] = json!(c.guaranteed_refused);
                    v["ipoa"]["guaranteed_failure_rate"] = json!(c.guaranteed_failure_rate());
                    v["ipoa"]["guaranteed_hits"] = json!(c.guaranteed_hits);
                    v["ipoa"]["guaranteed_failure_rate_per_vc_request"] = json!(c.guaranteed_failure_rate_per_vc_request());
                }
            }
            v
        })
        .collect()
}

/// One entry per packet line: each direction of each serial line, and each LAN's medium.
pub fn lines(net: &Network) -> Vec<Value> {
    let window = net.eng.until.0.max(1) as f64;
    let entry = |name: String, kind: &str, l: u32| {
        let line = &net.iface.lines[l as usize];
        let s = &line.stats;
        json!({
            "name": name, "kind": kind, "rate_bps": line.rate.as_bps(),
            "sent": s.sent, "bytes_sent": s.bytes_sent, "dropped": s.dropped,
            "utilization": s.busy_ps as f64 / window,
            "queued_at_end": line.queued(),
        })
    };
    let mut out = Vec::new();
    for s in &net.iface.serial {
        for (d, (a, b)) in [(0, (0, 1)), (1, (1, 0))] {
            let name =
                format!("{}:{}->{}", s.name, net.ip.hosts[s.ends[a].idx()].name, net.ip.hosts[s.ends[b].idx()].name);
            out.push(entry(name, "serial", s.lines[d]));
        }
    }
    for l in &net.iface.lans {
        out.push(entry(l.name.clone(), "lan", l.line));
    }
    out
}

/// One entry per UDP flow.
pub fn udp(net: &Network) -> Vec<Value> {
    net.apps
        .udp
        .iter()
        .map(|f| {
            let s = &f.stats;
            let mean = (s.delivered > 0).then(|| s.delay_sum_ps as f64 / s.delivered as f64 * 1e-12);
            json!({
                "name": f.name,
                "from": net.ip.hosts[f.hdr.src.idx()].name,
                "to": net.ip.hosts[f.hdr.dst.idx()].name,
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

/// The signalling plane: the message ledger and the controllers' counters, summed.
pub fn signalling(net: &Network) -> Value {
    let Some(sig) = &net.sig else { return Value::Null };
    let c = &sig.counts;
    let in_flight = sig.messages_in_flight();
    let (mut requested, mut connected, mut failed, mut released, mut refused) = (0, 0, [0u64; 3], 0, [0u64; 3]);
    let (mut processed, mut stale, mut max_queue, mut retransmitted, mut timeouts) = (0, 0, 0, 0, 0);
    for ctl in &sig.ctrls {
        let s = &ctl.stats;
        requested += s.requested;
        connected += s.connected;
        released += s.released;
        processed += s.processed;
        stale += s.stale;
        max_queue = max_queue.max(s.max_queue);
        for k in 0..3 {
            failed[k] += s.failed[k];
            refused[k] += s.refused[k];
        }
        for p in 0..ctl.num_ports() {
            let tx = &ctl.sender(crate::signalling::PortIx(p as u32)).stats;
            retransmitted += tx.retransmitted;
            timeouts += tx.timeouts;
        }
    }
    let reasons = crate::signalling::RejectReason::ALL;
    let by_reason = |a: [u64; 3]| -> Value {
        reasons
            .iter()
            .map(|r| (format!("{r:?}").to_lowercase(), json!(a[r.index()])))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    json!({
        "controllers": sig.ctrls.len(),
        "setups_requested": requested,
        "setups_connected": connected,
        "setups_failed": by_reason(failed),
        "setups_refused": by_reason(refused),
        "releases": released,
        "messages_processed": processed,
        "stale_messages": stale,
        "max_processing_queue": max_queue,
        "retransmissions": retransmitted,
        "retransmission_timeouts": timeouts,
        "calls_held": sig.calls_held(),
        "messages": {
            "sent": c.sent,
            "delivered": c.delivered,
            "lost": c.lost,
            "in_flight": in_flight,
            "cells": c.cells,
            "balanced": c.sent == c.delivered + c.lost + in_flight,
        },
    })
}

/// One entry per traffic generator: conversations and the times completed ones took.
pub fn traffic(net: &Network) -> Vec<Value> {
    net.apps
        .gens
        .iter()
        .map(|g| {
            let s = &g.stats;
            let mut d = s.durations_s.clone();
            let st = super::EchoStats::of(&mut d);
            json!({
                "name": g.name,
                "group": g.group,
                "started": s.started,
                "completed": s.completed,
                "aborted": s.aborted,
                "skipped": s.skipped,
                "open_at_end": s.open,
                "max_open": s.max_open,
                "duration_mean_s": st.map(|x| x.mean),
                "duration_median_s": st.map(|x| x.median),
                "duration_p90_s": st.map(|x| x.p90),
            })
        })
        .collect()
}

/// The application metrics of Mah's Table 3-3 per `[[traffic]]` entry, pooled over its
/// generators (its sites): for each metric (telnet `connect_s`, `response_s`; FTP `file_s`,
/// `session_s`; HTTP `item_s`, `page_s`) the number of samples, mean, median and 90th
/// percentile of the samples completed in the run (spec A-22); for audio and video the
/// datagrams sent, delivered, lost and late (> 150 ms), with the loss rate over the datagrams
/// whose fate is known (in flight at the end excluded) and the overdue rate over the
/// delivered ones (spec §3.1).
pub fn applications(net: &Network) -> Value {
    let mut out = serde_json::Map::new();
    let mut in_flight: Vec<u64> = vec![0; net.apps.udp.len()];
    for d in net.ip.datagrams.in_flight() {
        if let crate::transport::Payload::Udp { flow } = d.payload {
            in_flight[flow as usize] += 1;
        }
    }
    for (gi, g) in net.apps.gens.iter().enumerate() {
        if out.contains_key(&g.group) {
            continue;
        }
        let members: Vec<usize> = (gi..net.apps.gens.len()).filter(|&k| net.apps.gens[k].group == g.group).collect();
        let mut metrics = serde_json::Map::new();
        for m in &members {
            for (name, _) in &net.apps.gens[*m].stats.metrics {
                if metrics.contains_key(*name) {
                    continue;
                }
                let mut v: Vec<f64> = members
                    .iter()
                    .flat_map(|k| {
                        net.apps.gens[*k]
                            .stats
                            .metrics
                            .iter()
                            .filter(|x| x.0 == *name)
                            .flat_map(|x| x.1.iter().copied())
                    })
                    .collect();
                let n = v.len();
                let st = super::EchoStats::of(&mut v);
                metrics.insert(
                    name.to_string(),
                    json!({"n": n, "mean": st.map(|x| x.mean), "median": st.map(|x| x.median), "p90": st.map(|x| x.p90)}),
                );
            }
        }
        let mut entry = json!({
            "app": g.app.name(),
            "generators": members.len(),
            "started": members.iter().map(|k| net.apps.gens[*k].stats.started).sum::<u64>(),
            "completed": members.iter().map(|k| net.apps.gens[*k].stats.completed).sum::<u64>(),
            "aborted": members.iter().map(|k| net.apps.gens[*k].stats.aborted).sum::<u64>(),
            "metrics": metrics,
        });
        if g.app.is_media() {
            let (mut sent, mut delivered, mut late, mut pending) = (0u64, 0u64, 0u64, 0u64);
            for (f, flow) in net.apps.udp.iter().enumerate() {
                if flow.gen.is_some_and(|x| members.contains(&(x as usize))) {
                    sent += flow.stats.sent;
                    delivered += flow.stats.delivered;
                    late += flow.stats.late;
                    pending += in_flight[f];
                }
            }
            let known = sent - pending;
            let lost = known - delivered;
            entry["media"] = json!({
                "sent": sent, "delivered": delivered, "lost": lost, "in_flight_at_end": pending, "late": late,
                "loss_rate": (known > 0).then(|| lost as f64 / known as f64),
                "overdue_rate": (delivered > 0).then(|| late as f64 / delivered as f64),
            });
        }
        out.insert(g.group.clone(), entry);
    }
    Value::Object(out)
}
