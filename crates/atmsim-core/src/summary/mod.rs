//! The end-of-run summary: per-connection, per-source and per-port results and the
//! conservation ledger, as one JSON document.
//!
//! Owns: [`summary`]. Rates are measured over the measurement window
//! `[warmup_s, duration_s]`; counters cover the whole run.

pub mod internet;

use crate::apps::cell_source::{CellSource, Pattern};
use crate::apps::App;
use crate::atm::cell::CELL_BITS;
use crate::kernel::TieOrder;
use crate::net::Network;
use serde_json::{json, Value};

/// Cells of source `s` that have left its adapter by the end of the run: those handed to the
/// adapter less those still in its port's buffer, the one on the wire, and those waiting in a
/// shaper that feeds that port. At the end of a run every port has carried out its completions
/// up to the end (served ahead or not), so the cell on the wire has not finished; one ending
/// exactly at the end counts as not sent. A port sends one cell at a time at its link's rate,
/// so the rate of these cells cannot exceed the link's. Where several shaped VCs feed one
/// port, all their waiting cells count as not sent: a lower bound there.
fn cells_left(net: &Network, s: &CellSource) -> u64 {
    let port = &net.fabric.ports[s.port.idx()];
    let queued = port.vcs.get(s.vci as usize).map_or(0, |v| v.queued as u64);
    let on_wire = port.in_tx.is_some_and(|c| c.vci == s.vci && !c.is_ctrl()) as u64;
    let shaped: u64 = net.fabric.shapers.list.iter().filter(|sh| sh.port == s.port).map(|sh| sh.held() as u64).sum();
    s.cells_sent.saturating_sub(queued + on_wire + shaped)
}

/// Summarise a finished run. `wall_s` is the wall-clock time the run took.
pub fn summary(net: &Network, wall_s: f64) -> Value {
    let end = net.eng.until.as_secs_f64();
    let warm = net.measure.warmup.as_secs_f64();
    let window = (end - warm).max(f64::MIN_POSITIVE);

    let connections: Vec<Value> = net.apps.conns[..net.apps.fixed_conns]
        .iter()
        .map(|c| {
            let s = c.ep[0].tcp.stats();
            let r = c.ep[1].tcp.stats();
            let mut v = json!({
                "name": c.name,
                "client": net.ip.hosts[c.ep[0].host.idx()].name,
                "server": net.ip.hosts[c.ep[1].host.idx()].name,
                "goodput_bps": (c.bytes_read - c.bytes_read_warm) as f64 * 8.0 / window,
                "bytes_written": match &c.app { App::Bulk(b) => b.written, App::Conv(_) => 0 },
                "bytes_read": c.bytes_read,
                "finished_at_s": c.finished_at.map(|t| t.as_secs_f64()),
                "mss_bytes": c.ep[0].tcp.mss(),
                "segs_sent": s.segs_sent,
                "data_segs_sent": s.data_segs_sent,
                "bytes_sent": s.bytes_sent,
                "rexmt_segs": s.rexmt_segs,
                "rexmt_bytes": s.rexmt_bytes,
                "timeouts": s.timeouts,
                "fast_retransmits": s.fast_retransmits,
                "dup_acks_rcvd": s.dup_acks_rcvd,
                "acks_sent_by_receiver": r.acks_sent,
                "dup_bytes_rcvd": r.dup_bytes_rcvd,
                "ooo_segs_rcvd": r.ooo_segs_rcvd,
                "cwnd_bytes": c.ep[0].tcp.cwnd(),
                "ssthresh_bytes": c.ep[0].tcp.ssthresh(),
                "srtt_s": c.ep[0].tcp.srtt_secs(),
                "rtt_samples": s.rtt_samples,
                "state": format!("{:?}", c.ep[0].tcp.state()),
            });
            if let App::Bulk(_) = &c.app {
                // Offered TCP load: payload sent in the window, retransmissions included.
                // Efficiency is Koçyiğit's goodput / offered (§III), measured at the sender:
                // the share of the payload sent in the window that was new data. In steady
                // state the two are equal (new data sent = data delivered); counted this way
                // it stays within [0, 1] also over a window shorter than a round trip, where
                // data sent before the warm-up arrives inside it. Only for bulk transfers,
                // whose connection is never recycled.
                let sent = s.bytes_sent.saturating_sub(c.bytes_sent_warm);
                let resent = s.rexmt_bytes.saturating_sub(c.rexmt_bytes_warm).min(sent);
                v["offered_bps"] = json!(sent as f64 * 8.0 / window);
                v["efficiency"] = json!(if sent > 0 { (sent - resent) as f64 / sent as f64 } else { f64::NAN });
                // Packet losses at the TCP level (MAGIC Exp. 4): retransmitted segments per second.
                v["rexmt_per_s"] = json!(s.rexmt_segs.saturating_sub(c.rexmt_segs_warm) as f64 / window);
            }
            add_app_fields(&mut v, c, warm);
            v
        })
        .collect();

    let sources: Vec<Value> = net
        .apps
        .sources
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "kind": match s.pattern {
                    Pattern::Greedy { .. } => "greedy",
                    Pattern::Poisson { .. } => "poisson",
                    Pattern::OnOff { .. } => "onoff",
                },
                "goodput_bps": (s.bytes_rcvd - s.bytes_rcvd_warm) as f64 * 8.0 / window,
                // A greedy source offers whatever its link takes: it has no offered load of its own.
                "offered_cell_bps": match s.pattern {
                    Pattern::Greedy { .. } => None,
                    _ => Some(s.cells_sent as f64 * CELL_BITS as f64 / end.max(f64::MIN_POSITIVE)),
                },
                "sent_cell_bps": cells_left(net, s) as f64 * CELL_BITS as f64 / end.max(f64::MIN_POSITIVE),
                "cells_sent": s.cells_sent,
                "frames_sent": s.frames_sent,
                "frames_rcvd": s.frames_rcvd,
            })
        })
        .collect();

    let ports: Vec<Value> = net
        .fabric
        .ports
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let st = &p.stats;
            let warm_busy = net.measure.rec.ports_warm_busy_ps.get(i).copied().unwrap_or(0);
            let window_ps = net.eng.until.0.saturating_sub(net.measure.warmup.0).max(1) as f64;
            let rate = p.ser.rate().as_bps() as f64;
            let mut v = json!({
                "name": p.name,
                "rate_bps": rate,
                "buffer_cells": (p.limit != u32::MAX).then_some(p.limit),
                "cells_in": st.cells_in,
                "cells_tx": st.cells_tx,
                "drop_tail": st.drop_tail,
                "drop_ppd": st.drop_ppd,
                "drop_epd": st.drop_epd,
                "drop_host_queue": st.drop_host_queue,
                "drop_clp1": st.drop_clp1,
                "drop_ctrl": st.dropped_ctrl,
                "ctrl_cells_in": st.ctrl_in,
                "max_ctrl_queue_cells": st.max_ctrl_occupancy,
                "drops": st.drops(),
                "frames_refused": st.frames_refused,
                "max_queue_cells": st.max_occupancy,
                "mean_queue_cells": st.occupancy_area as f64 / (net.eng.until.0.max(1) as f64),
                // Time spent transmitting within the window / the window: exact, so at most 1
                // even when the window is shorter than a cell time.
                "utilization": st.busy_ps.saturating_sub(warm_busy) as f64 / window_ps,
            });
            // Only static-priority and RCSP ports report regulator drops, so FIFO and round
            // robin runs keep their digests.
            if p.has_classes() {
                v["drop_regulator"] = json!(st.drop_regulator);
            }
            v
        })
        .collect();

    let shapers: Vec<Value> = net
        .fabric
        .shapers
        .list
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "kind": s.kind.as_str(),
                "rate_bps": s.rate_bps,
                "t_s": s.gcra.t.as_secs_f64(),
                "tau_s": s.gcra.tau.as_secs_f64(),
                "cells_shaped": s.stats.cells_shaped,
                "cells_held": s.held(),
                "max_queue_cells": s.stats.max_queue_cells,
                "mean_delay_s": s.mean_delay_s(),
                "nonconforming_releases": s.stats.nonconforming,
                "dropped": s.stats.dropped,
                "buffer_cells": (s.limit != u32::MAX).then_some(s.limit),
                "frames_refused": s.stats.frames_refused,
                "cells_refused": s.stats.cells_refused,
            })
        })
        .collect();

    let policers: Vec<Value> = net
        .fabric
        .shapers
        .policers
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "rate_bps": p.rate_bps,
                "action": p.action,
                "t_s": p.gcra.t.as_secs_f64(),
                "tau_s": p.gcra.tau.as_secs_f64(),
                "cells_in": p.stats.cells_in,
                "tagged": p.stats.tagged,
                "dropped": p.stats.dropped,
            })
        })
        .collect();

    let c = &net.fabric.cells;
    let in_flight = net.fabric.cells_in_flight();
    let in_reasm = net.fabric.cells_in_reassembly();
    let f = &net.fabric.frames.counts;
    let d = &net.ip.datagrams.counts;
    let frames_in_flight = net.fabric.frames.live() as u64;
    let heap_events = net.eng.q.events_popped();
    // Steps of the engine: heap events plus the steps batching took inline. Served-ahead
    // ports (`atm::port` module docs) take no step per cell, so with batching on this is
    // smaller than with it off, for the same results.
    let events = heap_events + net.eng.inline_steps;
    let mut s = json!({
        "duration_s": end,
        "warmup_s": warm,
        "batching": net.eng.batching,
        "connections": connections,
        "sources": sources,
        "ports": ports,
        "shapers": shapers,
        "policers": policers,
        "hosts": internet::hosts(net),
        "lines": internet::lines(net),
        "udp": internet::udp(net),
        "signalling": internet::signalling(net),
        "traffic": internet::traffic(net),
        "abr": abr(net),
        "connection_pool": { "slots": net.apps.conns.len() - net.apps.fixed_conns, "free": net.apps.free_conns.len() },
        "captures": net.measure.taps.iter().map(|t| json!({
            "name": t.name, "host": t.host, "snaplen_bytes": t.snaplen,
            "packets": t.packets(), "packets_out": t.packets_out, "packets_in": t.packets_in,
        })).collect::<Vec<_>>(),
        "conservation": {
            "cells": {
                "injected": c.injected,
                "delivered": c.delivered,
                "dropped_tail": c.dropped_tail,
                "dropped_ppd": c.dropped_ppd,
                "dropped_epd": c.dropped_epd,
                "dropped_no_route": c.dropped_no_route,
                "dropped_clp1": c.dropped_clp1,
                "dropped_police": c.dropped_police,
                "dropped_reshape": c.dropped_reshape,
                "dropped_ctrl": c.dropped_ctrl,
                "in_flight": in_flight,
                "in_reassembly": in_reasm,
                "refused_at_host": c.refused_at_host,
                "balanced": c.injected == c.delivered + c.dropped_in_network() + in_flight,
            },
            "frames": {
                "sent": f.sent,
                "delivered": f.delivered,
                "discarded": f.discarded,
                "lost": f.lost,
                "in_flight": frames_in_flight,
                "balanced": f.sent == f.delivered + f.discarded + f.lost + frames_in_flight,
            },
            "datagrams": {
                "sent": d.sent,
                "delivered": d.delivered,
                "refused_at_adapter": d.refused_at_adapter,
                "lost_in_fabric": d.lost_in_fabric,
                "no_route": d.no_route,
                "dropped_at_line": d.dropped_at_line,
                "no_vc": d.no_vc,
                "in_flight": net.ip.datagrams.live(),
                "balanced": net.ip.datagrams.balanced(),
            },
        },
        "run": {
            "events": events,
            "heap_events": heap_events,
            "cell_hops": net.fabric.cell_hops,
            "wall_s": wall_s,
            "events_per_s": events as f64 / wall_s.max(1e-9),
            "cell_hops_per_s": net.fabric.cell_hops as f64 / wall_s.max(1e-9),
        },
    });
    if net.fabric.ports.iter().any(|p| p.has_classes()) {
        s["conservation"]["cells"]["dropped_regulator"] = json!(c.dropped_regulator);
    }
    if !net.apps.gens.is_empty() {
        s["applications"] = internet::applications(net);
    }
    // Only a non-default tie order is recorded, so default runs keep their digests.
    match net.eng.q.ties() {
        TieOrder::Fifo => {}
        TieOrder::Lifo => s["tie_order"] = json!("lifo"),
        TieOrder::Random(_) => s["tie_order"] = json!("random"),
    }
    s
}

/// Per-connection application fields: the app kind, conversations, bytes each way and, for
/// TELNET, the echo delays of packets written after the warm-up.
fn add_app_fields(v: &mut Value, c: &crate::apps::Conn, warm: f64) {
    let o = v.as_object_mut().expect("object");
    o.insert("app".into(), json!(c.app.kind_name()));
    o.insert("stale_segments".into(), json!(c.stale_segments));
    o.insert("bytes_client_to_server".into(), json!(c.bytes_read - c.bytes_read_warm));
    let App::Conv(a) = &c.app else {
        o.insert("bytes_server_to_client".into(), json!(0));
        return;
    };
    o.insert("bytes_server_to_client".into(), json!(a.bytes_s2c - c.bytes_s2c_warm));
    o.insert("conversations_started".into(), json!(a.conversations_started));
    o.insert("conversations_completed".into(), json!(a.conversations_completed));
    o.insert("conversations_aborted".into(), json!(a.conversations_aborted));
    o.insert("connections_opened".into(), json!(a.connections_opened));
    o.insert("app_bytes_c2s_total".into(), json!(a.bytes_c2s));
    o.insert("app_bytes_s2c_total".into(), json!(a.bytes_s2c));
    o.insert("c2s_bytes_in_complete_msgs".into(), json!(a.c2s_bytes_in_complete_msgs));
    o.insert("unexpected_bytes".into(), json!(a.unexpected_bytes));
    if a.kind != crate::apps::conversation::Kind::Telnet {
        return;
    }
    let mut d: Vec<f64> = a.echo_samples.iter().filter(|&&(t, _)| t >= warm).map(|&(_, d)| d).collect();
    let st = EchoStats::of(&mut d);
    o.insert("echo_delay_samples".into(), json!(d.len()));
    o.insert("echo_delay_mean_s".into(), json!(st.map(|s| s.mean)));
    o.insert("echo_delay_std_s".into(), json!(st.map(|s| s.std)));
    o.insert("echo_delay_median_s".into(), json!(st.map(|s| s.median)));
    o.insert("echo_delay_p90_s".into(), json!(st.map(|s| s.p90)));
}

/// Mean, sample standard deviation and quantiles (linear interpolation between order
/// statistics) of a set of delays.
#[derive(Clone, Copy, Debug)]
pub struct EchoStats {
    pub mean: f64,
    pub std: f64,
    pub median: f64,
    pub p90: f64,
}

impl EchoStats {
    /// `None` without samples. Sorts `d`.
    pub fn of(d: &mut [f64]) -> Option<Self> {
        if d.is_empty() {
            return None;
        }
        d.sort_by(f64::total_cmp);
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let var = if d.len() > 1 { d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        let q = |p: f64| {
            let h = p * (n - 1.0);
            let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
            d[lo] + (d[hi] - d[lo]) * (h - lo as f64)
        };
        Some(EchoStats { mean, std: var.sqrt(), median: q(0.5), p90: q(0.9) })
    }
}

/// The ABR plane: per end system (ACR, RM cells, queues) and per switch allocator.
fn abr(net: &Network) -> Value {
    let bits = CELL_BITS as f64;
    let ends: Vec<Value> = net
        .abr
        .ends
        .iter()
        .map(|e| {
            let s = e.source.stats();
            let p = e.source.params();
            json!({
                "name": e.name,
                "vc": e.vc,
                "from": net.ip.hosts[e.node.idx()].name,
                "to": net.ip.hosts[e.peer.idx()].name,
                "pcr_bps": p.pcr_cells_s * bits,
                "icr_bps": p.effective_icr() * bits,
                "acr_bps": e.source.acr() * bits,
                "acr_last_change_s": e.last_acr.1,
                "data_cells": s.data_cells,
                "forward_rm": s.forward_rm,
                "out_of_rate_rm": s.out_of_rate_rm,
                "backward_rm_sent": s.backward_rm_sent,
                "backward_rm_overwritten": s.backward_rm_overwritten,
                "backward_rm_received": s.backward_rm_received,
                "turned_around": e.dest.turned_around(),
                "adtf_resets": s.adtf_resets,
                "crm_cuts": s.crm_cuts,
                "datagrams_in": e.stats.datagrams_in,
                "acks_diverted": e.stats.acks_diverted,
                "refused": e.stats.refused,
                "max_ip_queue_data": e.stats.max_ip_queue_data,
                "max_ip_queue_packets": e.stats.max_ip_queue_packets,
                "max_backlog_data": e.stats.max_backlog_data,
                "cells_waiting": e.cells_waiting(),
            })
        })
        .collect();
    let allocators: Vec<Value> = net
        .fabric
        .er
        .allocators
        .iter()
        .zip(&net.fabric.er.allocator_port)
        .map(|(a, p)| {
            json!({
                "port": net.fabric.ports[p.idx()].name,
                "algorithm": a.algorithm().as_str(),
                "advertised_bps": a.advertised() * bits,
            })
        })
        .collect();
    let rm = &net.fabric.rm.counts;
    json!({
        "ends": ends,
        "allocators": allocators,
        "rm_cells": { "sent": rm.sent, "delivered": rm.delivered, "dropped": rm.dropped, "in_flight": net.fabric.rm.in_flight() },
    })
}

#[cfg(test)]
mod tests {
    use super::EchoStats;

    #[test]
    fn echo_stats_of_a_small_sample() {
        let s = EchoStats::of(&mut [4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(s.mean, 2.5);
        assert!((s.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.median, 2.5);
        assert!((s.p90 - 3.7).abs() < 1e-12);
        assert!(EchoStats::of(&mut []).is_none());
    }
}
