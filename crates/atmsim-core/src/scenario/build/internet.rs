//! The internetwork sections: `[[router]]`, the `ipoa` tables, `[[serial]]`, `[[lan]]`, the
//! forwarding tables, the PVCs IP may use, and `[[udp]]`.
//!
//! Owns: checking routers (they become nodes after the hosts, with `forwards` set);
//! building every node's interfaces — its ATM adapter's IP-over-ATM driver, its serial line
//! ends and LAN attachments — and the subnets they form (each LAN, each serial line, and
//! each connected ATM network: Classical IP, RFC 1577); filling the forwarding tables
//! ([`crate::ip::route::compute`]); declaring the scenario's PVCs to the drivers (a TCP
//! connection's `vc` binds its conversation; under `mux = "router"` every `[[vc]]` from the
//! node carries its traffic to the VC's far end); and the UDP flows.

use super::interrupt::Interrupt;
use super::links::Cabling;
use super::nodes::check_unique_name;
use super::nodes::{Names, Node};
use super::simulation::Run;
use super::vcs::Vcs;
use crate::apps::udp::{Spacing, UdpFlow, UdpStats};
use crate::error::Result;
use crate::header::{Media, PacketHeader, Proto};
use crate::ids::{IfaceId, NodeId};
use crate::iface::atm::AtmIface;
use crate::iface::ipoa::qos::{Configuration, QosPolicy, Scheme};
use crate::iface::ipoa::{ClassMatch, DriverConfig, MuxKey, MuxPolicy};
use crate::iface::lan::Lan;
use crate::iface::pipe::PacketLine;
use crate::iface::serial::SerialLine;
use crate::iface::Iface;
use crate::ip::route::{self, Subnet};
use crate::ip::Host;
use crate::rng::{self, Purpose};
use crate::scenario::internet::{ClassMatchName, IpoaSec, MediaName, SpacingName};
use crate::scenario::limits::{self, int_in, invalid, span};
use crate::scenario::model::{HostSec, ScenarioDoc};
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::HashMap;

/// What the interfaces section builds.
#[derive(Default)]
pub(super) struct Ifaces {
    pub ifaces: Vec<Iface>,
    pub lines: Vec<PacketLine>,
    pub serial: Vec<SerialLine>,
    pub lans: Vec<Lan>,
    pub subnets: Vec<Subnet>,
}

/// A conversation a scenario binds to a PVC: at `node`, datagrams of `key` go to `egress`
/// on outgoing VCI `vci`. `field` names the declaration for errors.
pub(super) struct PvcBinding {
    pub node: NodeId,
    pub key: MuxKey,
    pub egress: NodeId,
    pub vci: u32,
    pub field: String,
}

/// Check `[[router]]`; return each router as the node section it is built from (a host
/// section without CPU costs or shaping).
pub(super) fn routers(doc: &ScenarioDoc) -> Result<Vec<HostSec>> {
    let mut out: Vec<HostSec> = Vec::new();
    for (i, r) in doc.routers.iter().enumerate() {
        let f = |k: &str| format!("router[{i}].{k}");
        let taken = doc.hosts.iter().any(|h| h.name == r.name) || out.iter().any(|h| h.name == r.name);
        check_unique_name(&f("name"), &r.name, taken, "node")?;
        if let Some(b) = r.buffer_cells {
            int_in(f("buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")?;
        }
        int_in(f("mtu_bytes"), r.mtu_bytes, 72, 65535, "an MTU in bytes (at least 72)")?;
        out.push(HostSec {
            name: r.name.clone(),
            scheduler: r.scheduler,
            buffer_cells: r.buffer_cells,
            mtu_bytes: r.mtu_bytes,
            rx_cpu_per_segment_us: 0.0,
            rx_cpu_per_byte_ns: 0.0,
            tx_cpu_per_segment_us: 0.0,
            tx_cpu_per_byte_ns: 0.0,
            cpu_jitter_us: 0.0,
            shape: None,
            er_algorithm: None,
            ipoa: r.ipoa.clone(),
        });
    }
    Ok(out)
}

/// The field path of node `n`'s section (`host[i]` or `router[j]`).
pub(super) fn node_field(doc: &ScenarioDoc, n: NodeId, k: &str) -> String {
    let h = doc.hosts.len() - doc.routers.len();
    if n.idx() < h {
        format!("host[{}].{k}", n.idx())
    } else {
        format!("router[{}].{k}", n.idx() - h)
    }
}

/// The driver configuration of node `n` from its `ipoa` table.
fn driver_config(doc: &ScenarioDoc, n: NodeId, s: Option<&IpoaSec>) -> Result<DriverConfig> {
    let s = s.cloned().unwrap_or_default();
    let mut cfg = DriverConfig::new(s.mux, s.vc);
    cfg.class_match = match s.class_match {
        ClassMatchName::Pooled => ClassMatch::Pooled,
        ClassMatchName::ByType => ClassMatch::ByType,
    };
    let timeout = |k: &str, v: Option<f64>| -> Result<Option<SimDuration>> {
        v.map(|v| {
            let d = span(node_field(doc, n, &format!("ipoa.{k}")), v, 1.0, "s", limits::MAX_DURATION_S)?;
            if d == SimDuration::ZERO {
                return invalid(node_field(doc, n, &format!("ipoa.{k}")), "expected a positive time in s, got 0");
            }
            Ok(d)
        })
        .transpose()
    };
    if let Some(d) = timeout("idle_timeout_s", s.idle_timeout_s)? {
        cfg.idle_timeout = d;
    }
    if let Some(d) = timeout("cache_timeout_s", s.cache_timeout_s)? {
        cfg.cache_timeout = d;
    }
    if let Some(name) = &s.qos {
        let field = node_field(doc, n, "ipoa.qos");
        let qos = QosPolicy::parse(name).or_else(|e| invalid(field.clone(), e))?;
        if qos.scheme != Scheme::Noqos {
            let c = Configuration { qos, mux: s.mux, vc: s.vc };
            if let Err(e) = c.check() {
                return invalid(field, format!("{e} (set ipoa.mux to conv or app and ipoa.vc to svc or svccache)"));
            }
        }
        cfg = cfg.with_qos(qos);
    }
    Ok(cfg)
}

/// Build every node's interfaces and the subnets they form.
pub(super) fn interfaces(
    doc: &ScenarioDoc,
    names: &Names,
    cabling: &Cabling,
    hosts: &mut [Host],
    stop: &mut Interrupt,
) -> Result<Ifaces> {
    let mut out = Ifaces::default();
    atm_subnets(doc, cabling, hosts, &mut out)?;
    serial_lines(doc, names, hosts, &mut out)?;
    lans(doc, names, hosts, &mut out, stop)?;
    Ok(out)
}

fn add_iface(out: &mut Ifaces, hosts: &mut [Host], n: NodeId, i: Iface) -> IfaceId {
    let id = IfaceId(out.ifaces.len() as u32);
    out.ifaces.push(i);
    hosts[n.idx()].add_iface(id);
    id
}

/// Each node with an adapter gets its ATM interface and driver; nodes joined through links
/// and switches form one ATM subnet.
fn atm_subnets(doc: &ScenarioDoc, cabling: &Cabling, hosts: &mut [Host], out: &mut Ifaces) -> Result<()> {
    let nh = hosts.len();
    let key = |x: Node| match x {
        Node::Host(h) => h.idx(),
        Node::Switch(s) => nh + s.idx(),
    };
    let mut parent: Vec<usize> = (0..nh + doc.switches.len()).collect();
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut pairs: Vec<(Node, Node)> = cabling.adjacency.keys().copied().collect();
    pairs.sort_by_key(|&(a, b)| (key(a), key(b)));
    for (a, b) in pairs {
        let (ra, rb) = (root(&mut parent, key(a)), root(&mut parent, key(b)));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut subnet_of: HashMap<usize, usize> = HashMap::new();
    for h in 0..nh {
        if hosts[h].port().is_none() {
            continue;
        }
        let n = NodeId(h as u32);
        let cfg = driver_config(doc, n, doc.hosts[h].ipoa.as_ref())?;
        hosts[h].attach_atm(AtmIface::new(cfg));
        let ifc = add_iface(out, hosts, n, Iface::Atm { node: n });
        let r = root(&mut parent, h);
        let s = *subnet_of.entry(r).or_insert_with(|| {
            out.subnets.push(Subnet::default());
            out.subnets.len() - 1
        });
        out.subnets[s].members.push((n, ifc));
    }
    Ok(())
}

/// A packet line of `rate`, `delay` and optional buffer `limit` from section `f`.
fn line(f: &dyn Fn(&str) -> String, rate_bps: f64, delay_ms: f64, limit: Option<i64>) -> Result<PacketLine> {
    let rate = limits::rate(f("rate_bps"), rate_bps, limits::MIN_PACKET_RATE_BPS, limits::MAX_RATE_BPS)?;
    let delay = span(f("delay_ms"), delay_ms, 1e-3, "ms", limits::MAX_DELAY_S)?;
    let limit = limit
        .map(|b| int_in(f("buffer_packets"), b, 1, u32::MAX as i64, "a buffer size in datagrams").map(|b| b as u32))
        .transpose()?;
    Ok(PacketLine::new(Rate::bps(rate), delay, limit))
}

fn serial_lines(doc: &ScenarioDoc, names: &Names, hosts: &mut [Host], out: &mut Ifaces) -> Result<()> {
    for (i, s) in doc.serial.iter().enumerate() {
        let f = |k: &str| format!("serial[{i}].{k}");
        let a = names.host(f("a"), &s.a)?;
        let b = names.host(f("b"), &s.b)?;
        if a == b {
            return invalid(f("b"), format!("expected a different node than a (`{}`)", s.a));
        }
        let name = s.name.clone().unwrap_or_else(|| format!("{}-{}", s.a, s.b));
        check_unique_name(&f("name"), &name, out.serial.iter().any(|l| l.name == name), "serial line")?;
        let l0 = out.lines.len() as u32;
        for _ in 0..2 {
            out.lines.push(line(&f, s.rate_bps, s.delay_ms, s.buffer_packets)?);
        }
        let ia = add_iface(out, hosts, a, Iface::Serial { line: l0 });
        let ib = add_iface(out, hosts, b, Iface::Serial { line: l0 + 1 });
        out.subnets.push(Subnet { members: vec![(a, ia), (b, ib)] });
        out.serial.push(SerialLine { name, ends: [a, b], lines: [l0, l0 + 1] });
    }
    Ok(())
}

fn lans(doc: &ScenarioDoc, names: &Names, hosts: &mut [Host], out: &mut Ifaces, stop: &mut Interrupt) -> Result<()> {
    // The LAN each node was last seen on: a repeated station is found in one step.
    let mut on_lan = vec![usize::MAX; hosts.len()];
    for (i, s) in doc.lans.iter().enumerate() {
        let f = |k: &str| format!("lan[{i}].{k}");
        check_unique_name(&f("name"), &s.name, out.lans.iter().any(|l| l.name == s.name), "LAN")?;
        if s.members.len() < 2 {
            return invalid(f("members"), format!("expected at least two stations, got {}", s.members.len()));
        }
        let l = out.lines.len() as u32;
        out.lines.push(line(&f, s.rate_bps, s.delay_ms, s.buffer_packets)?);
        let mut subnet = Subnet::default();
        for (j, m) in s.members.iter().enumerate() {
            stop.check()?;
            let n = names.host(format!("lan[{i}].members[{j}]"), m)?;
            if std::mem::replace(&mut on_lan[n.idx()], i) == i {
                return invalid(format!("lan[{i}].members[{j}]"), format!("expected each station once; `{m}` repeats"));
            }
            let ifc = add_iface(out, hosts, n, Iface::Lan { line: l });
            subnet.members.push((n, ifc));
        }
        out.lans.push(Lan { name: s.name.clone(), members: subnet.members.iter().map(|m| m.0).collect(), line: l });
        out.subnets.push(subnet);
    }
    Ok(())
}

/// Fill every node's forwarding table.
pub(super) fn routes(hosts: &mut [Host], subnets: &[Subnet], stop: &mut Interrupt) -> Result<()> {
    let forwards: Vec<bool> = hosts.iter().map(|h| h.forwards()).collect();
    let tables = route::compute(&forwards, subnets, &mut || match stop.check_now() {
        Ok(()) => std::ops::ControlFlow::Continue(()),
        Err(_) => std::ops::ControlFlow::Break(()),
    })
    .ok_or_else(super::interrupt::interrupted)?;
    for (h, r) in hosts.iter_mut().zip(tables) {
        h.set_routes(r);
    }
    Ok(())
}

/// Under `mux = "router"`, every `[[vc]]` between two ATM nodes carries all traffic between
/// them: one binding per direction.
pub(super) fn router_pvcs(doc: &ScenarioDoc, vcs: &Vcs, hosts: &[Host], out: &mut Vec<PvcBinding>) {
    for (i, v) in doc.vcs.iter().enumerate() {
        let info = &vcs[v.name.as_str()];
        for (from, to) in [(0, 1), (1, 0)] {
            let (n, e) = (info.ends[from], info.ends[to]);
            let router_mux = hosts[n.idx()].atm().is_some_and(|a| a.driver().config().mux == MuxPolicy::Router);
            if router_mux {
                let d = info.dirs[from];
                out.push(PvcBinding {
                    node: n,
                    key: MuxKey::Router { egress: e },
                    egress: e,
                    vci: d.vci,
                    field: format!("vc[{i}]"),
                });
            }
        }
    }
}

/// Declare the bindings to their drivers.
pub(super) fn declare_pvcs(doc: &ScenarioDoc, hosts: &mut [Host], bindings: Vec<PvcBinding>) -> Result<()> {
    for b in bindings {
        let Some(atm) = hosts[b.node.idx()].atm_mut() else {
            return invalid(b.field, format!("expected `{}` to have an ATM adapter", hosts[b.node.idx()].name()));
        };
        match atm.driver_mut().declare_pvc(b.key, b.egress) {
            Ok(vc) => atm.bind(vc, b.vci),
            // Several connections may bind one multiplexing key to the same VC.
            Err(_) if atm.driver().vc_for(&b.key).is_some_and(|(vc, _)| atm.vci(vc) == b.vci) => {}
            Err(_) => {
                return invalid(
                    b.field,
                    format!(
                        "`{}` already has a VC for this traffic ({}): declare one VC per multiplexing key",
                        hosts[b.node.idx()].name(),
                        node_field(doc, b.node, "ipoa.mux")
                    ),
                )
            }
        }
    }
    Ok(())
}

/// Check `[[udp]]` and build its flows.
pub(super) fn udp_flows(doc: &ScenarioDoc, names: &Names, hosts: &[Host], run: &Run) -> Result<Vec<UdpFlow>> {
    let mut flows: Vec<UdpFlow> = Vec::new();
    for (i, u) in doc.udp.iter().enumerate() {
        let f = |k: &str| format!("udp[{i}].{k}");
        check_unique_name(&f("name"), &u.name, flows.iter().any(|x| x.name == u.name), "UDP flow")?;
        let from = names.host(f("from"), &u.from)?;
        let to = names.host(f("to"), &u.to)?;
        if from == to {
            return invalid(f("to"), "expected a different host than from");
        }
        for n in [from, to] {
            if hosts[n.idx()].forwards() {
                let k = if n == from { "from" } else { "to" };
                return invalid(f(k), format!("expected a host, got router `{}`", hosts[n.idx()].name()));
            }
        }
        if hosts[from.idx()].routes().get(to).is_none() {
            return invalid(f("to"), format!("expected a destination reachable from `{}`: no route", u.from));
        }
        let port = |k: &str, v: i64| int_in(f(k), v, 1, 65535, "a port number").map(|p| p as u16);
        let hdr = PacketHeader {
            src: from,
            dst: to,
            proto: Proto::Udp,
            src_port: port("src_port", u.src_port)?,
            dst_port: port("dst_port", u.dst_port)?,
            tos: 0,
            media: match u.media {
                MediaName::None => Media::None,
                MediaName::Audio => Media::Audio,
                MediaName::Video => Media::Video,
            },
        };
        let mtu = hosts[from.idx()].mtu_bytes() as i64;
        let ip_bytes =
            int_in(f("packet_bytes"), u.packet_bytes, 28, mtu, "a datagram size in bytes (28 up to the MTU)")?;
        let gap = span(f("interval_ms"), u.interval_ms, 1e-3, "ms", limits::MAX_DURATION_S)?;
        if gap < SimDuration::from_micros(1) {
            return invalid(f("interval_ms"), format!("expected at least 0.001 ms, got {}", u.interval_ms));
        }
        let start = span(f("start_s"), u.start_s, 1.0, "s", limits::MAX_DURATION_S)?;
        let stop = match u.stop_s {
            Some(s) => span(f("stop_s"), s, 1.0, "s", limits::MAX_DURATION_S)?,
            None => run.until.since(SimTime::ZERO) + SimDuration::from_ps(1),
        };
        if start >= stop || start.as_secs_f64() >= run.duration_s {
            return invalid(f("start_s"), "expected a start before stop_s and before the end of the run");
        }
        let late_after = span(f("late_ms"), u.late_ms, 1e-3, "ms", limits::MAX_DURATION_S)?;
        let spacing = match u.spacing {
            SpacingName::Constant => Spacing::Constant,
            SpacingName::Poisson => Spacing::Poisson(Box::new(rng::stream(run.seed, Purpose::UdpFlow, i as u64))),
        };
        flows.push(UdpFlow {
            name: u.name.clone(),
            hdr,
            ip_bytes: ip_bytes as u32,
            gap,
            spacing,
            start: SimTime::ZERO + start,
            stop: SimTime::ZERO + stop,
            late_after,
            stats: UdpStats::default(),
            gen: None,
        });
    }
    Ok(flows)
}
