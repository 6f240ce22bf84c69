//! From a validated scenario document to a ready-to-run [`Network`].
//!
//! Owns every rule that a well-formed document can still break: ranges and signs of numbers,
//! unique names, references to nodes/VCs that must exist, paths that must follow links,
//! TCP endpoints that must be the ends of their VC. Each error names the field by its dotted
//! path (`tcp[1].vc`) and says what was expected. Nothing is run or written before the whole
//! document has passed.
//!
//! Building: a duplex `[[link]]` becomes two simplex links, each with the output port that
//! feeds it (port names are `"from->to"`); a `[[vc]]` becomes one VCI per hop per direction
//! (allocated densely from 32 on each simplex link) and the matching translation entries at
//! every switch on its path.

use super::limits::{self, int_in, invalid, positive_f64, quoted, span, MAX_RATE_BPS, MIN_CELL_RATE_BPS};
use super::model::*;
use crate::apps::bulk::BulkSender;
use crate::apps::cell_source::{geometric_p_for_truncated_mean, CellSource, Pattern};
use crate::apps::conversation::{ConvApp, Kind as ConvKind};
use crate::atm::aal5::Frames;
use crate::atm::link::{Link, Preset, Route, Sink};
use crate::atm::port::{DropPolicy, DropPolicyName, OutPort};
use crate::atm::shaping::{Gcra, Policer, Shaper, ShaperKind, Shapers};
use crate::atm::switch::Switch;
use crate::error::{Error, Result};
use crate::ids::{HostId, LinkId, PortId, SwitchId};
use crate::ip::{Access, App, Conn, Endpoint, Host};
use crate::kernel::EventQueue;
use crate::measure::Recorder;
use crate::net::{CellCounts, Network};
use crate::pcap::{Tap, MIN_SNAPLEN};
use crate::rng::{self, Purpose, Rng};
use crate::tcp::{TcpConfig, TcpConn};
use crate::time::{Rate, Serializer, SimDuration, SimTime};
use std::collections::HashMap;

/// First VCI handed out on each link (0–31 are reserved by ITU-T I.361).
pub const VCI_BASE: u32 = 32;
/// Largest window TCP can offer: 65535 << 14 (RFC 1323 §2.3).
const MAX_BUF_BYTES: i64 = 65535 << 14;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Node {
    Host(HostId),
    Switch(SwitchId),
}

/// One direction of a VC: where it enters the network and where it leaves.
#[derive(Clone, Copy, Debug)]
struct VcDir {
    from: HostId,
    port: PortId,
    vci: u32,
}

struct VcInfo {
    ends: [HostId; 2],
    /// dirs[0]: ends[0] → ends[1]; dirs[1]: the reverse.
    dirs: [VcDir; 2],
    /// Forward direction, per switch on the path: (switch name, input link, VCI on it,
    /// output port).
    inputs: Vec<(String, LinkId, u32, PortId)>,
}

/// Validate `doc` and build the network it describes. `seed` overrides the document's.
pub fn build(doc: &ScenarioDoc, seed_override: Option<u64>, batching_override: Option<bool>) -> Result<Network> {
    check_strings(doc)?;
    let sim = &doc.simulation;
    let duration = limits::f64_in(
        "simulation.duration_s",
        sim.duration_s,
        limits::MIN_DURATION_S,
        limits::MAX_DURATION_S,
        "a duration in seconds",
    )?;
    let warmup = span("simulation.warmup_s", sim.warmup_s, 1.0, "s", limits::MAX_DURATION_S)?;
    if warmup.as_secs_f64() >= duration {
        return invalid(
            "simulation.warmup_s",
            format!("expected a warm-up shorter than duration_s ({duration} s), got {}", sim.warmup_s),
        );
    }
    if sim.seed < 0 {
        return invalid("simulation.seed", format!("expected a non-negative integer seed, got {}", sim.seed));
    }
    let seed = seed_override.unwrap_or(sim.seed as u64);
    let clock_spread_ppm = sim.link_clock_ppm;
    if !(clock_spread_ppm.is_finite() && (0.0..=1000.0).contains(&clock_spread_ppm)) {
        return invalid(
            "simulation.link_clock_ppm",
            format!("expected a clock tolerance between 0 and 1000 ppm, got {clock_spread_ppm}"),
        );
    }
    let until = SimTime::ZERO + SimDuration::from_secs_f64(duration);
    let sample_every = sample_interval(sim.sample_interval_ms, duration)?;

    // ---- nodes
    let mut nodes: HashMap<&str, Node> = HashMap::new();
    let mut hosts = Vec::new();
    for (i, h) in doc.hosts.iter().enumerate() {
        let f = |k: &str| format!("host[{i}].{k}");
        check_unique_name(&f("name"), &h.name, nodes.insert(&h.name, Node::Host(HostId(i as u32))).is_some(), "node")?;
        if let Some(b) = h.buffer_cells {
            int_in(f("buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")?;
        }
        int_in(
            f("mtu_bytes"),
            h.mtu_bytes,
            72,
            65535,
            "an MTU in bytes (at least 72: TCP needs 40 bytes of headers and BSD a 32-byte MSS)",
        )?;
        let mut costs = [crate::ip::cpu::Cost::default(); 2];
        for (cost, dir) in costs.iter_mut().zip(["rx", "tx"]) {
            let (seg, byte) = if dir == "rx" {
                (h.rx_cpu_per_segment_us, h.rx_cpu_per_byte_ns)
            } else {
                (h.tx_cpu_per_segment_us, h.tx_cpu_per_byte_ns)
            };
            *cost = cpu_cost(
                &f(&format!("{dir}_cpu_per_segment_us")),
                seg,
                &f(&format!("{dir}_cpu_per_byte_ns")),
                byte,
                h.mtu_bytes,
            )?;
        }
        let [rx_cost, tx_cost] = costs;
        let cpu = (!rx_cost.is_zero() || !tx_cost.is_zero()).then(|| crate::ip::cpu::Cpu::new(rx_cost, tx_cost));
        hosts.push(Host {
            name: h.name.clone(),
            port: None,
            mtu_bytes: h.mtu_bytes as u32,
            reasm: Vec::new(),
            frames_corrupt: 0,
            frames_rcvd: 0,
            tap: None,
            cpu,
        });
    }
    let mut switches = Vec::new();
    for (i, s) in doc.switches.iter().enumerate() {
        let f = |k: &str| format!("switch[{i}].{k}");
        check_unique_name(
            &f("name"),
            &s.name,
            nodes.insert(&s.name, Node::Switch(SwitchId(i as u32))).is_some(),
            "node",
        )?;
        if let Some(b) = s.buffer_cells {
            int_in(f("buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")?;
        }
        match (s.drop_policy, s.epd_threshold_cells) {
            (DropPolicyName::Epd, None) => {
                return invalid(
                    f("epd_threshold_cells"),
                    "expected a threshold in cells: drop_policy = \"epd\" needs one",
                )
            }
            (DropPolicyName::Epd, Some(t)) => {
                let max = s.buffer_cells.unwrap_or(u32::MAX as i64 - 1);
                int_in(f("epd_threshold_cells"), t, 1, max, "a threshold in cells (at most buffer_cells)")?;
            }
            (_, Some(_)) => {
                return invalid(
                    f("epd_threshold_cells"),
                    "only meaningful with drop_policy = \"epd\"; remove it or set the policy",
                )
            }
            _ => {}
        }
        if let Some(t) = s.clp1_threshold_cells {
            let max = s.buffer_cells.unwrap_or(u32::MAX as i64 - 1);
            int_in(f("clp1_threshold_cells"), t, 0, max, "a threshold in cells (at most buffer_cells)")?;
        }
        switches.push(Switch { name: s.name.clone(), ports: Vec::new(), misrouted: 0 });
    }
    let lookup = |field: String, name: &str| -> Result<Node> {
        nodes
            .get(name)
            .copied()
            .ok_or_else(|| Error::invalid(field, format!("expected the name of a host or switch, got `{name}`")))
    };

    // ---- links and ports
    let mut links: Vec<Link> = Vec::new();
    let mut ports: Vec<OutPort> = Vec::new();
    let mut adjacency: HashMap<(Node, Node), LinkId> = HashMap::new();
    let mut link_names: HashMap<String, usize> = HashMap::new();
    for (i, l) in doc.links.iter().enumerate() {
        let f = |k: &str| format!("link[{i}].{k}");
        let a = lookup(f("a"), &l.a)?;
        let b = lookup(f("b"), &l.b)?;
        if a == b {
            return invalid(f("b"), format!("expected a different node than a (`{}`): a link joins two nodes", l.a));
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
        let taken = link_names.insert(name.clone(), i).is_some();
        check_unique_name(&f("name"), &name, taken, "link")?;
        let rate = match (&l.preset, l.rate_bps) {
            (Some(_), Some(_)) => return invalid(f("rate_bps"), "expected either preset or rate_bps, not both"),
            (None, None) => return invalid(f("rate_bps"), "expected a rate: give rate_bps or preset"),
            (Some(p), None) => match Preset::parse(p) {
                Some(p) => p.rate(),
                None => {
                    let names: Vec<&str> = Preset::ALL.iter().map(|(n, _)| *n).collect();
                    return invalid(f("preset"), format!("expected one of {}, got `{}`", names.join(", "), quoted(p)));
                }
            },
            (None, Some(r)) => Rate::bps(limits::rate(f("rate_bps"), r, MIN_CELL_RATE_BPS, MAX_RATE_BPS)?),
        };
        let delay = span(f("delay_ms"), l.delay_ms, 1e-3, "ms", limits::MAX_DELAY_S)?;
        if let Some(ppm) = l.clock_ppm {
            if !(ppm.is_finite() && (-1000.0..=1000.0).contains(&ppm)) {
                return invalid(
                    f("clock_ppm"),
                    format!("expected a clock offset between -1000 and 1000 ppm, got {ppm}"),
                );
            }
        }
        let nominal = rate;
        for (from, to, from_name, to_name) in [(a, b, &l.a, &l.b), (b, a, &l.b, &l.a)] {
            // Plesiochronous clocks: a fixed offset, or one drawn per direction from the seed.
            let ppm = match l.clock_ppm {
                Some(ppm) => ppm,
                None if clock_spread_ppm > 0.0 => {
                    let mut r = rng::stream(seed, Purpose::LinkClock, links.len() as u64);
                    clock_spread_ppm * r.gen_range(-1.0..=1.0)
                }
                None => 0.0,
            };
            let rate =
                if ppm == 0.0 { nominal } else { Rate::bps((nominal.0 as f64 * (1.0 + ppm * 1e-6)).round() as u64) };
            if adjacency.contains_key(&(from, to)) {
                return invalid(f("b"), format!("expected at most one link between `{from_name}` and `{to_name}`"));
            }
            let lid = LinkId(links.len() as u32);
            let pid = PortId(ports.len() as u32);
            adjacency.insert((from, to), lid);
            let port_name = format!("{from_name}->{to_name}");
            let port = match from {
                Node::Host(h) => {
                    let hs = &doc.hosts[h.idx()];
                    if hosts[h.idx()].port.is_some() {
                        return invalid(
                            f(if from == a { "a" } else { "b" }),
                            format!("expected host `{from_name}` to have a single link (multi-homed hosts are not implemented)"),
                        );
                    }
                    hosts[h.idx()].port = Some(pid);
                    let limit = hs.buffer_cells.map_or(u32::MAX, |b| b as u32);
                    OutPort::new(port_name, lid, hs.scheduler, limit, DropPolicy::Tail, Serializer::new(rate))
                }
                Node::Switch(s) => {
                    let ss = &doc.switches[s.idx()];
                    switches[s.idx()].ports.push(pid);
                    let limit = ss.buffer_cells.map_or(u32::MAX, |b| b as u32);
                    let policy = match ss.drop_policy {
                        DropPolicyName::Tail => DropPolicy::Tail,
                        DropPolicyName::Ppd => DropPolicy::Ppd,
                        DropPolicyName::Epd => {
                            DropPolicy::Epd { threshold: ss.epd_threshold_cells.unwrap_or(0) as u32 }
                        }
                    };
                    let mut p = OutPort::new(port_name, lid, ss.scheduler, limit, policy, Serializer::new(rate));
                    p.clp1_threshold = ss.clp1_threshold_cells.map_or(u32::MAX, |t| t as u32);
                    p
                }
            };
            ports.push(port);
            let sink = match to {
                Node::Host(h) => Sink::Host(h),
                Node::Switch(s) => Sink::Switch { switch: s, table: Vec::new() },
            };
            links.push(Link {
                name: format!("{name}:{from_name}->{to_name}"),
                rate,
                delay,
                from: pid,
                to: sink,
                pipe: Default::default(),
                cells_delivered: 0,
            });
        }
    }

    // ---- VCs
    let mut next_vci = vec![VCI_BASE; links.len()];
    let mut vcs: HashMap<&str, VcInfo> = HashMap::new();
    for (i, v) in doc.vcs.iter().enumerate() {
        let f = |k: &str| format!("vc[{i}].{k}");
        check_unique_name(&f("name"), &v.name, vcs.contains_key(v.name.as_str()), "VC")?;
        if v.path.len() < 2 {
            return invalid(f("path"), "expected at least two nodes: host, [switches...], host");
        }
        let mut path = Vec::new();
        for (k, n) in v.path.iter().enumerate() {
            let node = lookup(format!("vc[{i}].path[{k}]"), n)?;
            let end = k == 0 || k + 1 == v.path.len();
            match (end, node) {
                (true, Node::Switch(_)) => {
                    return invalid(
                        format!("vc[{i}].path[{k}]"),
                        format!("expected a host at the end of the path, got switch `{n}`"),
                    )
                }
                (false, Node::Host(_)) => {
                    return invalid(
                        format!("vc[{i}].path[{k}]"),
                        format!("expected a switch inside the path, got host `{n}` (hosts do not forward cells)"),
                    )
                }
                _ => {}
            }
            if path.contains(&node) {
                return invalid(
                    format!("vc[{i}].path[{k}]"),
                    format!("expected a loop-free path, but `{n}` appears twice"),
                );
            }
            path.push(node);
        }
        let mut hops = Vec::new();
        for k in 0..path.len() - 1 {
            match adjacency.get(&(path[k], path[k + 1])) {
                Some(&l) => hops.push(l),
                None => {
                    return invalid(
                        format!("vc[{i}].path[{}]", k + 1),
                        format!(
                            "expected a node linked to `{}`, but no [[link]] joins `{}` and `{}`",
                            v.path[k],
                            v.path[k],
                            v.path[k + 1]
                        ),
                    )
                }
            }
        }
        let mut dirs = Vec::new();
        let mut inputs = Vec::new();
        for reverse in [false, true] {
            let (nodes_d, hops_d): (Vec<Node>, Vec<LinkId>) = if reverse {
                let n: Vec<Node> = path.iter().rev().copied().collect();
                let h: Vec<LinkId> = (0..n.len() - 1).map(|k| adjacency[&(n[k], n[k + 1])]).collect();
                (n, h)
            } else {
                (path.clone(), hops.clone())
            };
            let vcis: Vec<u32> = hops_d
                .iter()
                .map(|l| {
                    let v = next_vci[l.idx()];
                    next_vci[l.idx()] += 1;
                    v
                })
                .collect();
            for k in 1..nodes_d.len() - 1 {
                let (in_link, out_link) = (hops_d[k - 1], hops_d[k]);
                let out_port = links[out_link.idx()].from;
                if let Sink::Switch { table, .. } = &mut links[in_link.idx()].to {
                    let idx = vcis[k - 1] as usize;
                    if table.len() <= idx {
                        table.resize(idx + 1, None);
                    }
                    table[idx] = Some(Route { port: out_port, vci: vcis[k] });
                }
                if !reverse {
                    inputs.push((v.path[k].clone(), in_link, vcis[k - 1], out_port));
                }
            }
            let Node::Host(from) = nodes_d[0] else { unreachable!() };
            dirs.push(VcDir { from, port: links[hops_d[0].idx()].from, vci: vcis[0] });
        }
        let (Node::Host(h0), Node::Host(h1)) = (path[0], path[path.len() - 1]) else { unreachable!() };
        vcs.insert(&v.name, VcInfo { ends: [h0, h1], dirs: [dirs[0], dirs[1]], inputs });
    }

    // ---- shapers (atm::shaping): host-level (VP) first, then per-VC shaping and pacing
    let mut shapers = Shapers::default();
    let mut shaped_host = vec![false; hosts.len()];
    for (i, h) in doc.hosts.iter().enumerate() {
        let Some(sh) = &h.shape else { continue };
        let f = format!("host[{i}].shape");
        let (rate, gcra) = shape_params(&f, sh)?;
        let Some(port) = hosts[i].port else {
            return invalid(f, format!("expected host `{}` to have a link to shape", h.name));
        };
        shaped_host[i] = true;
        shapers.add(Shaper::new(h.name.clone(), ShaperKind::Host, rate, port, gcra), None);
    }
    for (i, v) in doc.vcs.iter().enumerate() {
        let f = |k: &str| format!("vc[{i}].{k}");
        let (field, kind, rate, gcra) = match (&v.shape, v.pace_bps) {
            (None, None) => continue,
            (Some(_), Some(_)) => {
                return invalid(
                    f("pace_bps"),
                    "expected either shape or pace_bps, not both (pacing is a shaper with tau = 0)",
                )
            }
            (Some(sh), None) => {
                let (rate, gcra) = shape_params(&f("shape"), sh)?;
                (f("shape"), ShaperKind::Vc, rate, gcra)
            }
            (None, Some(p)) => {
                let rate = shape_rate(f("pace_bps"), p)?;
                (f("pace_bps"), ShaperKind::Pace, rate, Gcra::new(Gcra::increment_for_bps(rate), SimDuration::ZERO))
            }
        };
        let d = vcs[v.name.as_str()].dirs[0];
        if shaped_host[d.from.idx()] {
            return invalid(
                field,
                format!(
                    "expected no VC shaping on host `{}`: it already shapes all its traffic (host shape)",
                    v.path[0]
                ),
            );
        }
        shapers.add(Shaper::new(v.name.clone(), kind, rate, d.port, gcra), Some(d.vci));
    }
    // Switch inputs: a policer (UPC) and/or a re-shaper of the forward direction.
    let switch_input = |field: &str, at: &Option<String>, v: &VcSec| -> Result<(LinkId, u32, PortId, String)> {
        let inputs = &vcs[v.name.as_str()].inputs;
        let Some(first) = inputs.first() else {
            return invalid(field.to_string(), "expected a switch on the path");
        };
        let pick = match at {
            None => first,
            Some(name) => match inputs.iter().find(|x| &x.0 == name) {
                Some(x) => x,
                None => {
                    let on: Vec<&str> = inputs.iter().map(|x| x.0.as_str()).collect();
                    return invalid(
                        format!("{field}.at"),
                        format!("expected a switch on the path of VC `{}` ({}), got `{name}`", v.name, on.join(", ")),
                    );
                }
            },
        };
        Ok((pick.1, pick.2, pick.3, pick.0.clone()))
    };
    for (i, v) in doc.vcs.iter().enumerate() {
        let Some(p) = &v.police else { continue };
        let field = format!("vc[{i}].police");
        let sh = ShapeSec {
            rate_bps: p.rate_bps,
            rate_cells_per_s: p.rate_cells_per_s,
            mean_bps: p.mean_bps,
            beta: p.beta,
            tau_us: p.tau_us,
        };
        let (rate, gcra) = shape_params(&field, &sh)?;
        let (link, vci, _, _) = switch_input(&field, &p.at, v)?;
        let pol = Policer { name: v.name.clone(), rate_bps: rate, action: p.action, gcra, stats: Default::default() };
        shapers.add_policer(pol, link, vci);
    }
    for (i, v) in doc.vcs.iter().enumerate() {
        let Some(r) = &v.reshape else { continue };
        let field = format!("vc[{i}].reshape");
        let sh = ShapeSec {
            rate_bps: r.rate_bps,
            rate_cells_per_s: r.rate_cells_per_s,
            mean_bps: r.mean_bps,
            beta: r.beta,
            tau_us: r.tau_us,
        };
        let (rate, gcra) = shape_params(&field, &sh)?;
        let (link, vci, port, sw) = switch_input(&field, &Some(r.at.clone()), v)?;
        let mut s = Shaper::new(format!("{}@{sw}", v.name), ShaperKind::Switch, rate, port, gcra);
        let sw_buffer = doc.switches.iter().find(|x| x.name == sw).and_then(|x| x.buffer_cells);
        if let Some(b) = r.buffer_cells.or(sw_buffer) {
            s.limit =
                int_in(format!("{field}.buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")? as u32;
        }
        shapers.add_reshaper(s, link, vci);
    }

    // ---- TCP connections
    let host_of = |field: String, name: &str| -> Result<HostId> {
        match nodes.get(name) {
            Some(Node::Host(h)) => Ok(*h),
            Some(Node::Switch(_)) => invalid(field, format!("expected a host, got switch `{name}`")),
            None => invalid(field, format!("expected the name of a host, got `{name}`")),
        }
    };
    let mut conns = Vec::new();
    let mut conn_names: Vec<String> = Vec::new();
    for (i, t) in doc.tcp.iter().enumerate() {
        let f = |k: &str| format!("tcp[{i}].{k}");
        check_unique_name(&f("name"), &t.name, conn_names.contains(&t.name), "connection")?;
        let client = host_of(f("client"), &t.client)?;
        let server = host_of(f("server"), &t.server)?;
        if client == server {
            return invalid(f("server"), "expected a different host than the client");
        }
        let vc = match &t.vc {
            Some(name) => {
                let v = vcs
                    .get(name.as_str())
                    .ok_or_else(|| Error::invalid(f("vc"), format!("expected the name of a [[vc]], got `{name}`")))?;
                if !(v.ends == [client, server] || v.ends == [server, client]) {
                    return invalid(
                        f("vc"),
                        format!("expected a VC joining `{}` and `{}`, but `{name}` does not", t.client, t.server),
                    );
                }
                v
            }
            None => {
                let mut found: Vec<(&&str, &VcInfo)> =
                    vcs.iter().filter(|(_, v)| v.ends == [client, server] || v.ends == [server, client]).collect();
                found.sort_by_key(|(n, _)| **n);
                match found.len() {
                    1 => found[0].1,
                    0 => {
                        return invalid(
                            f("vc"),
                            format!("expected a [[vc]] joining `{}` and `{}`; none is declared", t.client, t.server),
                        )
                    }
                    _ => {
                        return invalid(
                            f("vc"),
                            format!("several VCs join `{}` and `{}`: name one", t.client, t.server),
                        )
                    }
                }
            }
        };
        let dir_from = |h: HostId| {
            if vc.dirs[0].from == h {
                vc.dirs[0]
            } else {
                vc.dirs[1]
            }
        };
        let win =
            t.window_bytes.map(|w| int_in(f("window_bytes"), w, 1, MAX_BUF_BYTES, "a window in bytes")).transpose()?;
        let snd = t
            .snd_buf_bytes
            .map(|w| int_in(f("snd_buf_bytes"), w, 1, MAX_BUF_BYTES, "a buffer size in bytes"))
            .transpose()?;
        let rcv = t
            .rcv_buf_bytes
            .map(|w| int_in(f("rcv_buf_bytes"), w, 1, MAX_BUF_BYTES, "a buffer size in bytes"))
            .transpose()?;
        let mtu = hosts[client.idx()].mtu_bytes.min(hosts[server.idx()].mtu_bytes) as i64;
        let mss = match t.mss_bytes {
            Some(m) => int_in(
                f("mss_bytes"),
                m,
                32,
                mtu - 40,
                "an MSS in bytes (BSD accepts no MSS under 32; at most the hosts' MTU - 40)",
            )?,
            None => mtu - 40,
        };
        let start = span(f("start_s"), t.start_s, 1.0, "s", limits::MAX_DURATION_S)?.as_secs_f64();
        if start >= duration {
            return invalid(
                f("start_s"),
                format!("expected a start time before the end of the run ({duration} s), got {start}"),
            );
        }
        let app = match &t.app {
            AppSec::Bulk { write_bytes, total_bytes } => {
                let w = int_in(f("app.write_bytes"), *write_bytes, 1, i64::MAX, "a write size in bytes")?;
                let tot =
                    total_bytes.map(|b| int_in(f("app.total_bytes"), b, 1, i64::MAX, "a byte count")).transpose()?;
                Ok((w as u64, tot.map(|b| b as u64)))
            }
            AppSec::Ftp { item_scale } => Err((ConvKind::Ftp, item_scale_in(f("app.item_scale"), *item_scale)?)),
            AppSec::Nntp { item_scale } => Err((ConvKind::Nntp, item_scale_in(f("app.item_scale"), *item_scale)?)),
            AppSec::Smtp { item_scale } => Err((ConvKind::Smtp, item_scale_in(f("app.item_scale"), *item_scale)?)),
            AppSec::Telnet {} => Err((ConvKind::Telnet, 1.0)),
        };
        let access_rate = t
            .access_rate_bps
            .map(|r| limits::rate(f("access_rate_bps"), r, limits::MIN_PACKET_RATE_BPS, MAX_RATE_BPS).map(Rate::bps))
            .transpose()?;
        let access_delay = match t.access_delay_ms {
            Some(d) => {
                let d = span(f("access_delay_ms"), d, 1e-3, "ms", limits::MAX_DELAY_S)?;
                if access_rate.is_none() {
                    return invalid(
                        f("access_delay_ms"),
                        "only meaningful with access_rate_bps; set the access link's rate",
                    );
                }
                d
            }
            None => SimDuration::ZERO,
        };
        let dupacks =
            int_in(f("dupack_threshold"), t.dupack_threshold, 0, 1000, "a number of duplicate ACKs (0 = off)")?;
        let default = TcpConfig::default();
        let base = TcpConfig {
            variant: t.variant,
            dupack_threshold: if dupacks == 0 { u32::MAX } else { dupacks as u32 },
            mss_bytes: mss as u32,
            nagle: t.nagle,
            delayed_ack: t.delayed_ack,
            window_scaling: t.window_scaling,
            round_buffers_to_mss: t.bsd_buffer_rounding,
            snd_buf_bytes: snd.or(win).map_or(default.snd_buf_bytes, |b| b as u32),
            rcv_buf_bytes: rcv.or(win).map_or(default.rcv_buf_bytes, |b| b as u32),
            ..default
        };
        let mut ep = Vec::new();
        for (side, h) in [(0usize, client), (1, server)] {
            let mut r = rng::stream(seed, Purpose::TcpEndpoint, (2 * i + side) as u64);
            let iss: u32 = r.gen();
            let fast_phase = SimDuration::from_ps(r.gen_range(0..base.fast_tick.as_ps()));
            let slow_phase = SimDuration::from_ps(r.gen_range(0..base.slow_tick.as_ps()));
            let d = dir_from(h);
            ep.push(Endpoint {
                tcp: TcpConn::new(base, iss),
                host: h,
                port: d.port,
                vci: d.vci,
                fast_phase,
                slow_phase,
                fast_period: base.fast_tick,
                slow_period: base.slow_tick,
                fast_pending: false,
                slow_pending: false,
                rng: r,
                access: access_rate
                    .map(|rate| Box::new(Access { rate, delay: access_delay, dirs: Default::default() })),
            });
        }
        let server_ep = ep.pop().unwrap();
        let client_ep = ep.pop().unwrap();
        conn_names.push(t.name.clone());
        conns.push(Conn {
            name: t.name.clone(),
            start: SimTime::ZERO + SimDuration::from_secs_f64(t.start_s),
            ep: [client_ep, server_ep],
            app: match app {
                Ok((w, tot)) => App::Bulk(BulkSender::new(w, tot, base.snd_lowat_bytes as u64)),
                Err((kind, item_scale)) => App::Conv(Box::new(ConvApp::new(
                    kind,
                    item_scale,
                    rng::stream(seed, Purpose::App, i as u64),
                    base.snd_lowat_bytes as u64,
                ))),
            },
            gen: 0,
            stale_segments: 0,
            bytes_s2c_warm: 0,
            bytes_read: 0,
            bytes_read_warm: 0,
            bytes_sent_warm: 0,
            rexmt_segs_warm: 0,
            rexmt_bytes_warm: 0,
            bytes_read_sampled: 0,
            finished_at: None,
        });
    }

    // ---- cell sources
    let mut sources = Vec::new();
    for (i, s) in doc.cell_sources.iter().enumerate() {
        let f = |k: &str| format!("cell_source[{i}].{k}");
        check_unique_name(&f("name"), &s.name, sources.iter().any(|x: &CellSource| x.name == s.name), "source")?;
        let vc = vcs
            .get(s.vc.as_str())
            .ok_or_else(|| Error::invalid(f("vc"), format!("expected the name of a [[vc]], got `{}`", s.vc)))?;
        let from = host_of(f("from"), &s.from)?;
        let d = if vc.dirs[0].from == from {
            vc.dirs[0]
        } else if vc.dirs[1].from == from {
            vc.dirs[1]
        } else {
            return invalid(f("from"), format!("expected an end of VC `{}`, got `{}`", s.vc, s.from));
        };
        let only = |field: &str, present: bool, kind: &str| -> Result<()> {
            if present {
                return invalid(f(field), format!("only meaningful for kind = \"{kind}\"; remove it"));
            }
            Ok(())
        };
        let pattern = match s.kind {
            CellSourceKind::Greedy => {
                only("load_bps", s.load_bps.is_some(), "poisson")?;
                only("mean_cells", s.mean_cells.is_some(), "poisson")?;
                only("max_cells", s.max_cells.is_some(), "poisson")?;
                let fb = int_in(f("frame_bytes"), s.frame_bytes.unwrap_or(9180), 1, 65535, "a datagram size in bytes")?;
                let port = &mut ports[d.port.idx()];
                let v = d.vci as usize;
                if port.vcs.len() <= v {
                    port.vcs.resize(v + 1, Default::default());
                }
                port.vcs[v].greedy_frame_bytes = Some(fb as u32);
                Pattern::Greedy { frame_bytes: fb as u32 }
            }
            CellSourceKind::Poisson => {
                only("frame_bytes", s.frame_bytes.is_some(), "greedy")?;
                let link_rate = ports[d.port.idx()].ser.rate().as_bps() as f64;
                let load = match s.load_bps {
                    Some(l) => source_load(f("load_bps"), l, link_rate, &s.from)?,
                    None => return invalid(f("load_bps"), "expected the offered load in bit/s (of 53-byte cells)"),
                };
                let max_cells =
                    int_in(f("max_cells"), s.max_cells.unwrap_or(200), 1, 1365, "a message length in cells")?;
                let mean = s.mean_cells.unwrap_or(25.0);
                if !(mean.is_finite() && mean >= 1.0 && mean < (max_cells as f64 + 1.0) / 2.0) {
                    return invalid(
                        f("mean_cells"),
                        format!(
                            "expected a mean length between 1 and (max_cells + 1) / 2 = {} cells, got {mean}",
                            (max_cells as f64 + 1.0) / 2.0
                        ),
                    );
                }
                let p = if mean <= 1.0 { 1.0 - 1e-12 } else { geometric_p_for_truncated_mean(mean, max_cells as u64) };
                let mean_gap = SimDuration::from_secs_f64(mean * 424.0 / load);
                Pattern::Poisson {
                    mean_gap,
                    p,
                    max_cells: max_cells as u64,
                    rng: rng::stream(seed, Purpose::CellSource, i as u64),
                }
            }
        };
        sources.push(CellSource {
            name: s.name.clone(),
            host: from,
            peer: if vc.ends[0] == from { vc.ends[1] } else { vc.ends[0] },
            port: d.port,
            vci: d.vci,
            pattern,
            cells_sent: 0,
            frames_sent: 0,
            frames_rcvd: 0,
            bytes_rcvd: 0,
            bytes_rcvd_warm: 0,
        });
    }

    // ---- captures
    let mut taps: Vec<Tap> = Vec::new();
    for (i, c) in doc.captures.iter().enumerate() {
        let f = |k: &str| format!("capture[{i}].{k}");
        let h = host_of(f("host"), &c.host)?;
        if let Some(other) = hosts[h.idx()].tap {
            return invalid(
                f("host"),
                format!(
                    "expected at most one capture per host, but `{}` already has `{}`",
                    c.host, taps[other as usize].name
                ),
            );
        }
        let name = c.name.clone().unwrap_or_else(|| c.host.clone());
        let name_field = if c.name.is_some() { f("name") } else { f("host") };
        check_unique_name(&name_field, &name, taps.iter().any(|t| t.name == name), "capture")?;
        if name.starts_with('.') || !name.chars().all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch)) {
            let hint = if c.name.is_none() { " (the default is the host's name: set `name`)" } else { "" };
            return invalid(
                name_field,
                format!("expected a name usable as a file name (letters, digits, '.', '_', '-'; not starting with '.'), got `{name}`{hint}"),
            );
        }
        let snaplen = int_in(f("snaplen_bytes"), c.snaplen_bytes, MIN_SNAPLEN as i64, 65535, "a snap length in bytes")?;
        hosts[h.idx()].tap = Some(taps.len() as u32);
        taps.push(Tap::new(name, c.host.clone(), snaplen as u32));
    }

    let port_names: Vec<String> = ports.iter().map(|p| p.name.clone()).collect();
    let host_names: Vec<String> = hosts.iter().map(|h| h.name.clone()).collect();
    let mut net = Network {
        q: EventQueue::new(),
        now: SimTime::ZERO,
        until,
        warmup: SimTime::ZERO + warmup,
        batching: batching_override.unwrap_or(sim.batching),
        sample_every,
        ports,
        links,
        switches,
        hosts,
        conns,
        sources,
        taps,
        frames: Frames::default(),
        shapers,
        cells: CellCounts::default(),
        rec: Recorder::new(&conn_names, &port_names, &host_names),
        cell_hops: 0,
        inline_steps: 0,
        inline_budget: crate::net::INLINE_RUN_MAX,
        scratch_cells: Vec::new(),
    };
    net.prime();
    Ok(net)
}

/// A shaping rate [bit/s of cells]: 424 b/s (one cell per second) to 1 Tb/s.
fn shape_rate(field: String, r: f64) -> Result<f64> {
    limits::rate(field, r, MIN_CELL_RATE_BPS, MAX_RATE_BPS)?;
    Ok(r)
}

/// `simulation.sample_interval_ms`: `None` = the default, duration / 500 but at least
/// [`limits::MIN_SAMPLE_INTERVAL_S`]; 0 = no probes; otherwise an interval of at least
/// that minimum, at most the run, and giving at most [`limits::MAX_SAMPLES`] samples.
fn sample_interval(ms: Option<f64>, duration_s: f64) -> Result<Option<SimDuration>> {
    const F: &str = "simulation.sample_interval_ms";
    let Some(ms) = ms else {
        return Ok(Some(SimDuration::from_secs_f64((duration_s / 500.0).max(limits::MIN_SAMPLE_INTERVAL_S))));
    };
    if ms == 0.0 {
        return Ok(None);
    }
    let lo_ms = (limits::MIN_SAMPLE_INTERVAL_S * 1e3).max(duration_s * 1e3 / limits::MAX_SAMPLES);
    let hi_ms = duration_s * 1e3;
    if !(ms.is_finite() && ms >= lo_ms && ms <= hi_ms) {
        return invalid(
            F,
            format!(
                "expected 0 (no probes) or an interval between {} ms (at least 1 µs, and at most {} samples per run) and the run's duration ({} ms), got {}",
                limits::num(lo_ms),
                limits::num(limits::MAX_SAMPLES),
                limits::num(hi_ms),
                limits::num(ms)
            ),
        );
    }
    Ok(Some(SimDuration::from_secs_f64(ms / 1000.0)))
}

/// One direction's CPU cost: each term bounded, and the cost of the largest segment the
/// host can send or receive (per segment + per byte × MTU) at most [`limits::MAX_CPU_JOB_S`].
fn cpu_cost(seg_field: &str, seg_us: f64, byte_field: &str, byte_ns: f64, mtu: i64) -> Result<crate::ip::cpu::Cost> {
    let per_segment = span(seg_field, seg_us, 1e-6, "µs", limits::MAX_CPU_JOB_S)?;
    let per_byte = span(byte_field, byte_ns, 1e-9, "ns", limits::MAX_CPU_JOB_S / 65_535.0)?;
    let job_s = per_segment.as_secs_f64() + per_byte.as_secs_f64() * mtu as f64;
    if job_s > limits::MAX_CPU_JOB_S {
        return invalid(
            byte_field,
            format!(
                "expected the cost of a largest segment (per segment + per byte × MTU {mtu}) of at most {} s, got {} s",
                limits::MAX_CPU_JOB_S,
                limits::num(job_s)
            ),
        );
    }
    Ok(crate::ip::cpu::Cost { per_segment, per_byte_ps: per_byte.as_ps() })
}

/// A Poisson source's offered load [bit/s of cells]: at least one cell per second and at
/// most what the link it sends on carries (beyond that its adapter queue only grows).
fn source_load(field: String, load: f64, link_rate_bps: f64, from: &str) -> Result<f64> {
    if !(load.is_finite() && load >= MIN_CELL_RATE_BPS && load <= link_rate_bps) {
        return invalid(
            field,
            format!(
                "expected an offered load between 424 b/s (one cell per second) and the rate of `{}`'s link ({} b/s), got {}",
                quoted(from),
                limits::num(link_rate_bps),
                limits::num(load)
            ),
        );
    }
    Ok(load)
}

/// Every name and every reference to one within [`limits::MAX_NAME_BYTES`], the description
/// within [`limits::MAX_DESCRIPTION_BYTES`]: checked first, so that no later message quotes
/// an unbounded string.
fn check_strings(doc: &ScenarioDoc) -> Result<()> {
    if let Some(n) = &doc.name {
        limits::name("name", n)?;
    }
    if let Some(d) = &doc.description {
        if d.len() > limits::MAX_DESCRIPTION_BYTES {
            return invalid(
                "description",
                format!("expected at most {} bytes of text, got {}", limits::MAX_DESCRIPTION_BYTES, d.len()),
            );
        }
    }
    let r = limits::reference;
    for (i, h) in doc.hosts.iter().enumerate() {
        r(&format!("host[{i}].name"), &h.name)?;
    }
    for (i, s) in doc.switches.iter().enumerate() {
        r(&format!("switch[{i}].name"), &s.name)?;
    }
    for (i, l) in doc.links.iter().enumerate() {
        for (k, v) in
            [("name", l.name.as_deref()), ("a", Some(&l.a)), ("b", Some(&l.b)), ("preset", l.preset.as_deref())]
        {
            if let Some(v) = v {
                r(&format!("link[{i}].{k}"), v)?;
            }
        }
    }
    for (i, v) in doc.vcs.iter().enumerate() {
        r(&format!("vc[{i}].name"), &v.name)?;
        for (k, n) in v.path.iter().enumerate() {
            r(&format!("vc[{i}].path[{k}]"), n)?;
        }
        if let Some(at) = v.police.as_ref().and_then(|p| p.at.as_deref()) {
            r(&format!("vc[{i}].police.at"), at)?;
        }
        if let Some(rs) = &v.reshape {
            r(&format!("vc[{i}].reshape.at"), &rs.at)?;
        }
    }
    for (i, t) in doc.tcp.iter().enumerate() {
        for (k, v) in
            [("name", Some(&t.name)), ("client", Some(&t.client)), ("server", Some(&t.server)), ("vc", t.vc.as_ref())]
        {
            if let Some(v) = v {
                r(&format!("tcp[{i}].{k}"), v)?;
            }
        }
    }
    for (i, s) in doc.cell_sources.iter().enumerate() {
        for (k, v) in [("name", &s.name), ("vc", &s.vc), ("from", &s.from)] {
            r(&format!("cell_source[{i}].{k}"), v)?;
        }
    }
    for (i, c) in doc.captures.iter().enumerate() {
        r(&format!("capture[{i}].host"), &c.host)?;
        if let Some(n) = &c.name {
            r(&format!("capture[{i}].name"), n)?;
        }
    }
    Ok(())
}

/// The rate and GCRA of a `shape = { ... }` table at `field`.
fn shape_params(field: &str, sh: &ShapeSec) -> Result<(f64, Gcra)> {
    let f = |k: &str| format!("{field}.{k}");
    let rate_bps = match (sh.rate_bps, sh.rate_cells_per_s) {
        (Some(_), Some(_)) => {
            return invalid(f("rate_cells_per_s"), "expected either rate_bps or rate_cells_per_s, not both")
        }
        (None, Some(c)) => {
            let c = positive_f64(f("rate_cells_per_s"), c, "rate in cells per second")?;
            Some(shape_rate(f("rate_cells_per_s"), c * 424.0)?)
        }
        (r, None) => r,
    };
    let rate = match (rate_bps, sh.mean_bps, sh.beta) {
        (Some(_), Some(_), _) => return invalid(f("mean_bps"), "expected either a rate or mean_bps, not both"),
        (Some(_), None, Some(_)) => return invalid(f("beta"), "only meaningful with mean_bps; remove it"),
        (None, None, _) => {
            return invalid(f("rate_bps"), "expected a rate: give rate_bps, rate_cells_per_s, or mean_bps and beta")
        }
        (Some(r), None, None) => shape_rate(f("rate_bps"), r)?,
        (None, Some(m), beta) => {
            let m = positive_f64(f("mean_bps"), m, "rate in bits per second")?;
            let b = beta.unwrap_or(1.0);
            if !(b.is_finite() && (1.0..=1e3).contains(&b)) {
                return invalid(f("beta"), format!("expected a factor between 1 and 1000, got {b}"));
            }
            shape_rate(f("mean_bps"), m * b)?
        }
    };
    let tau = span(f("tau_us"), sh.tau_us, 1e-6, "µs", limits::MAX_TAU_S)?;
    Ok((rate, Gcra::new(Gcra::increment_for_bps(rate), tau)))
}

fn item_scale_in(field: String, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 && v <= 1e6 {
        Ok(v)
    } else {
        invalid(field, format!("expected a positive size factor (at most 1e6), got {v}"))
    }
}

/// A name must be valid ([`limits::name`]) and not `taken` by another `what`.
fn check_unique_name(field: &str, name: &str, taken: bool, what: &str) -> Result<()> {
    limits::name(field, name)?;
    if taken {
        return invalid(field.to_string(), format!("expected a unique {what} name, but `{name}` is already used"));
    }
    Ok(())
}
