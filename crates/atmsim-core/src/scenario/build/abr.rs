//! The `abr` table of `[[vc]]` and the ER settings of `[[switch]]`: the ABR plane.
//!
//! Owns the checks of those fields and the construction of [`AbrPlane`] (an end system per
//! end of every ABR VC) and of [`ErPorts`] (an allocator per output port of every switch that
//! runs one, and the per-input tables that tell a switch which allocator meets which RM cell:
//! [`crate::abr::er_ports`]).
//!
//! Defaults (module docs of [`crate::abr`] give the reasons): PCR of each direction = the cell
//! rate of the sending node's adapter link (digest A1); preset `"tm4"` = the TM 4.0 defaults,
//! `"kalampoukas97"` = Nrm 32, RIF 1/64, ICR = PCR/50, the rest TM 4.0; any single parameter
//! may then be set. An ABR VC is not shaped or paced (its source *is* its shaper), and its
//! ends must be the nodes whose adapters send on it.

use super::links::Cabling;
use super::nodes::{Names, Node};
use super::vcs::Vcs;
use crate::abr::{
    AbrEnd, AbrParams, AbrPlane, AbrSource, ErPorts, EricaConfig, IpService, PortAllocator, SwitchEntry, VcSlot,
};
use crate::atm::cell::CELL_BITS;
use crate::error::Result;
use crate::ip::Host;
use crate::scenario::limits::{self, f64_in, int_in, invalid, positive_f64, span};
use crate::scenario::model::{AbrPreset, AbrSec, IpServiceName, ScenarioDoc};
use crate::time::SimDuration;
use std::collections::HashMap;

/// Build the ABR plane of `doc` and its ports' allocators (both empty when no VC is ABR and
/// no switch runs an allocator).
pub(super) fn plane(
    doc: &ScenarioDoc,
    names: &Names,
    cabling: &Cabling,
    vcs: &Vcs,
    hosts: &[Host],
) -> Result<(AbrPlane, ErPorts)> {
    let mut plane = AbrPlane::default();
    let mut er = ErPorts::default();
    let allocators = allocators(doc, names, cabling, &mut er)?;
    // End ids of each ABR VC: [end at path[0], end at path[last]].
    let mut ends_of: HashMap<&str, [u32; 2]> = HashMap::new();
    for (i, v) in doc.vcs.iter().enumerate() {
        let Some(a) = &v.abr else { continue };
        let f = |k: &str| format!("vc[{i}].abr.{k}");
        if v.shape.is_some() || v.pace_bps.is_some() {
            return invalid(
                format!("vc[{i}].abr"),
                "expected an ABR VC without shape or pace_bps: its ABR source sets its rate",
            );
        }
        let info = &vcs[v.name.as_str()];
        let mut ids = [0u32; 2];
        for (d, dir) in info.dirs.iter().enumerate() {
            let link_rate = cabling.links[cabling.ports[dir.port.idx()].link.idx()].rate.as_bps() as f64;
            let (bps, cells) =
                if d == 0 { (a.pcr_bps, a.pcr_cells_per_s) } else { (a.reverse_pcr_bps, a.reverse_pcr_cells_per_s) };
            let which = if d == 0 { "pcr" } else { "reverse_pcr" };
            let pcr = pcr_cells(&f, which, bps, cells, link_rate)?;
            let params = params(&f, a, pcr)?;
            let service = match a.ip_service {
                IpServiceName::Acr => IpService::Acr,
                IpServiceName::Instant => IpService::Instant,
            };
            let node = dir.from;
            let peer = info.dirs[1 - d].from;
            let in_vci = info.dirs[1 - d].in_vci;
            let mut end = AbrEnd::new(
                &v.name,
                hosts[node.idx()].name(),
                node,
                peer,
                dir.port,
                dir.vci,
                in_vci,
                AbrSource::new(params),
                service,
            );
            end.ack_priority = a.ack_priority;
            if let Some(n) = a.ip_queue_packets {
                end.set_ip_limit(
                    int_in(f("ip_queue_packets"), n, 1, i64::from(u32::MAX - 1), "a number of datagrams")? as u32,
                );
            }
            ids[d] = plane.add_end(end);
        }
        // Switch entries, per switch on the path: each direction's cells meet their own
        // port's allocator (fwd) and the reverse direction's (bwd).
        let slot = |er: &mut ErPorts, port| -> Option<(u32, VcSlot)> {
            let a = *allocators.get(&port)?;
            Some((a, er.allocators[a as usize].add_vc()))
        };
        let (fwd, rev) = (info.hops(0), info.hops(1));
        for (k, &(in_f, vci_f, port_f)) in fwd.iter().enumerate() {
            // The reverse direction crosses the same switch at position len-1-k.
            let (in_r, vci_r, port_r) = rev[rev.len() - 1 - k];
            let sf = slot(&mut er, port_f);
            let sr = slot(&mut er, port_r);
            er.set_switch_entry(in_f, vci_f, SwitchEntry { fwd: sf, bwd: sr });
            er.set_switch_entry(in_r, vci_r, SwitchEntry { fwd: sr, bwd: sf });
        }
        ends_of.insert(&v.name, ids);
    }
    ack_vcs(doc, vcs, &ends_of, &mut plane)?;
    host_allocators(doc, cabling, hosts, &mut plane, &mut er)?;
    Ok((plane, er))
}

/// `abr.ack_vc`: each end diverts its pure acks to the end of the named VC at the same node.
fn ack_vcs(doc: &ScenarioDoc, vcs: &Vcs, ends_of: &HashMap<&str, [u32; 2]>, plane: &mut AbrPlane) -> Result<()> {
    for (i, v) in doc.vcs.iter().enumerate() {
        let Some(name) = v.abr.as_ref().and_then(|a| a.ack_vc.as_ref()) else { continue };
        let field = format!("vc[{i}].abr.ack_vc");
        limits::reference(&field, name)?;
        if name == &v.name {
            return invalid(field, "expected another VC for the acks, not the VC itself");
        }
        let Some(&other) = ends_of.get(name.as_str()) else {
            let why = if vcs.contains_key(name.as_str()) {
                "an ABR VC (it has no abr table)"
            } else {
                "the name of a [[vc]]"
            };
            return invalid(field, format!("expected {why}, got `{name}`"));
        };
        let mine = ends_of[v.name.as_str()];
        for e in mine {
            let node = plane.ends[e as usize].node;
            let Some(&o) = other.iter().find(|&&o| plane.ends[o as usize].node == node) else {
                return invalid(
                    field,
                    format!(
                        "expected a VC between the same two nodes as `{}`, but `{name}` does not end at both",
                        v.name
                    ),
                );
            };
            plane.ends[e as usize].divert_acks_to(o);
        }
    }
    Ok(())
}

/// `[[host]] er_algorithm`: the adapter port allocates its link among the host's ABR VCs;
/// each end at the host gets a slot.
fn host_allocators(
    doc: &ScenarioDoc,
    cabling: &Cabling,
    hosts: &[Host],
    plane: &mut AbrPlane,
    er: &mut ErPorts,
) -> Result<()> {
    for (i, h) in doc.hosts.iter().enumerate() {
        let Some(alg) = h.er_algorithm else { continue };
        let field = format!("host[{i}].er_algorithm");
        let Some(port) = hosts[i].port() else {
            return invalid(field, format!("expected host `{}` to have a link (an ATM adapter)", h.name));
        };
        let cap = cabling.links[cabling.ports[port.idx()].link.idx()].rate.as_bps() as f64 / CELL_BITS as f64;
        let a = er.add_allocator(port, PortAllocator::new(alg, cap, EricaConfig::new(cap), &field)?);
        for e in 0..plane.ends.len() {
            if plane.ends[e].port == port {
                let slot = er.allocators[a as usize].add_vc();
                plane.ends[e].local = Some((a, slot));
            }
        }
    }
    Ok(())
}

/// PCR of one direction \[cells/s\]: given in b/s or cells/s, at most the link's cell rate;
/// default the link's cell rate.
fn pcr_cells(
    f: &dyn Fn(&str) -> String,
    which: &str,
    bps: Option<f64>,
    cells: Option<f64>,
    link_bps: f64,
) -> Result<f64> {
    let link_cells = link_bps / CELL_BITS as f64;
    let (field, pcr) = match (bps, cells) {
        (Some(_), Some(_)) => {
            return invalid(
                f(&format!("{which}_cells_per_s")),
                format!("expected either {which}_bps or {which}_cells_per_s, not both"),
            )
        }
        (Some(b), None) => (f(&format!("{which}_bps")), b / CELL_BITS as f64),
        (None, Some(c)) => (f(&format!("{which}_cells_per_s")), c),
        (None, None) => return Ok(link_cells),
    };
    if !(pcr.is_finite() && pcr >= 1.0 && pcr <= link_cells * (1.0 + 1e-9)) {
        return invalid(
            field,
            format!(
                "expected a peak rate between 1 cell/s and the link's {} cells/s, got {} cells/s",
                limits::num(link_cells),
                limits::num(pcr)
            ),
        );
    }
    Ok(pcr)
}

/// The TM 4.0 parameters of one direction from the preset and the fields given.
fn params(f: &dyn Fn(&str) -> String, a: &AbrSec, pcr: f64) -> Result<AbrParams> {
    let mut p = match a.preset {
        AbrPreset::Tm4 => AbrParams::tm4_defaults(pcr),
        AbrPreset::Kalampoukas97 => AbrParams::kalampoukas97(pcr),
    };
    if let Some(x) = a.icr_fraction {
        p.icr_cells_s = pcr * f64_in(f("icr_fraction"), x, 1e-9, 1.0, "a fraction of PCR")?;
    }
    if let Some(x) = a.mcr_cells_per_s {
        p.mcr_cells_s = f64_in(f("mcr_cells_per_s"), x, 0.0, pcr, "a rate in cells/s no higher than PCR")?;
    }
    if let Some(x) = a.tcr_cells_per_s {
        p.tcr_cells_s = positive_f64(f("tcr_cells_per_s"), x, "rate in cells per second")?;
    }
    if let Some(x) = a.rif {
        p.rif = f64_in(f("rif"), x, 1e-9, 1.0, "a fraction")?;
    }
    if let Some(x) = a.rdf {
        p.rdf = f64_in(f("rdf"), x, 1e-9, 1.0, "a fraction")?;
    }
    if let Some(x) = a.cdf {
        p.cdf = f64_in(f("cdf"), x, 0.0, 1.0, "a fraction (0 = rule 6 off)")?;
    }
    if let Some(x) = a.nrm {
        p.nrm = int_in(f("nrm"), x, 2, 256, "a number of cells")? as u32;
    }
    if let Some(x) = a.mrm {
        p.mrm = int_in(f("mrm"), x, 1, 256, "a number of cells")? as u32;
    }
    if let Some(x) = a.trm_ms {
        p.trm = span(f("trm_ms"), x, 1e-3, "ms", 10.0)?;
        if p.trm == SimDuration::ZERO {
            return invalid(f("trm_ms"), "expected a time > 0 ms");
        }
    }
    if let Some(x) = a.adtf_s {
        p.adtf = span(f("adtf_s"), x, 1.0, "s", 1e4)?;
    }
    if let Some(x) = a.tbe_cells {
        p.tbe_cells = int_in(f("tbe_cells"), x, 1, 16_777_215, "a number of cells")? as u32;
    }
    let at = f("");
    p.validate(at.trim_end_matches('.'))?;
    Ok(p)
}

/// One allocator per output port of every switch with `er_algorithm` (or a per-port entry);
/// returns them by port.
fn allocators(
    doc: &ScenarioDoc,
    names: &Names,
    cabling: &Cabling,
    er: &mut ErPorts,
) -> Result<HashMap<crate::ids::PortId, u32>> {
    let mut by_port = HashMap::new();
    for (i, s) in doc.switches.iter().enumerate() {
        let f = |k: &str| format!("switch[{i}].{k}");
        let mut erica = EricaConfig::new(1.0);
        if let Some(u) = s.erica_target_utilization {
            erica.target_utilisation = f64_in(f("erica_target_utilization"), u, 1e-6, 1.0, "a fraction")?;
        }
        if let Some(ms) = s.erica_interval_ms {
            erica.interval = span(f("erica_interval_ms"), ms, 1e-3, "ms", 1e3)?;
            if erica.interval == SimDuration::ZERO {
                return invalid(f("erica_interval_ms"), "expected an averaging interval > 0 ms");
            }
        }
        let overrides = s.er_algorithm_by_port.clone().unwrap_or_default();
        let sw = names.node(f("name"), &s.name)?;
        // Every neighbour: the overrides must name one.
        let mut neighbours: Vec<(&str, Node)> = Vec::new();
        for l in &doc.links {
            let other = if l.a == s.name {
                &l.b
            } else if l.b == s.name {
                &l.a
            } else {
                continue;
            };
            if let Ok(n) = names.node(String::new(), other) {
                neighbours.push((other.as_str(), n));
            }
        }
        for k in overrides.keys() {
            if !neighbours.iter().any(|(n, _)| n == k) {
                return invalid(
                    f(&format!("er_algorithm_by_port.{k}")),
                    format!("expected a node linked to switch `{}`, got `{k}`", s.name),
                );
            }
        }
        for (nb, node) in neighbours {
            let Some(alg) = overrides.get(nb).copied().or(s.er_algorithm) else { continue };
            let Some(&link) = cabling.adjacency.get(&(sw, node)) else { continue };
            let port = cabling.links[link.idx()].from;
            if by_port.contains_key(&port) {
                continue;
            }
            let cap = cabling.links[link.idx()].rate.as_bps() as f64 / CELL_BITS as f64;
            let a = PortAllocator::new(alg, cap, erica, &f("er_algorithm"))?;
            by_port.insert(port, er.add_allocator(port, a));
        }
    }
    Ok(by_port)
}
