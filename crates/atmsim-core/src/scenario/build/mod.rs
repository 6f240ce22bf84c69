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
//! (allocated densely from [`VCI_BASE`] on each simplex link) and the matching translation
//! entries at every switch on its path.
//!
//! [`build`] calls one function per section, in the order of the document's sections, and
//! stops at the first error; each file below owns one section:
//!
//! 1. `strings.rs` — every name and reference bounded in length (checked first, so no later
//!    message quotes an unbounded string);
//! 2. `simulation.rs` — `[simulation]`: duration, warm-up, seed, sampling, clock spread;
//! 3. `nodes.rs` — `[[host]]` (with its CPU costs) and `[[switch]]`, and the node names;
//! 4. `links.rs` — `[[link]]`: simplex links, their output ports and clocks, adjacency;
//! 5. `vcs.rs` — `[[vc]]`: paths, VCI allocation, switch translation tables;
//! 6. `internet.rs` — `[[router]]` (checked first: routers are nodes after the hosts), the
//!    nodes' interfaces (ATM adapters with their `ipoa` drivers, `[[serial]]`, `[[lan]]`),
//!    the subnets and forwarding tables; later the PVCs declared to the drivers and `[[udp]]`;
//! 7. `shaping.rs` — host and VC shapers, pacing, policers and re-shapers;
//! 8. `tcp.rs` — `[[tcp]]`: connections, their endpoints, applications and access links;
//! 9. `sources.rs` — `[[cell_source]]`;
//! 10. `captures.rs` — `[[capture]]`;
//! 11. `signalling.rs` — `[signalling]`: controllers, signalling links, routes;
//! 12. `traffic.rs` — `[[traffic]]`: conversation generators over the sites' hosts;
//! 13. `abr.rs` — `[[vc]] abr` and the switches' ER allocators: the ABR plane.
//!
//! Before all of them, `sites.rs` expands each `[[site]]` into the hosts, router, LAN and
//! link it stands for.
//!
//! Ranges come from [`super::limits`]; random streams are drawn with [`crate::rng::stream`]
//! keyed by the entity's index, so a document builds the same network for the same seed.
//!
//! Interrupts: [`build_with`] takes a poll that the loops over hosts and the forwarding-table
//! searches consult through [`Interrupt`] (at most every [`POLL_EVERY`] of wall time); a
//! `Break` abandons the build with an [`crate::ErrorKind::Interrupted`] error.

mod abr;
mod captures;
mod internet;
mod interrupt;
mod links;
mod nodes;
mod qos;
mod shaping;
mod signalling;
mod simulation;
mod sites;
mod sources;
mod strings;
mod tcp;
mod traffic;
mod vcs;

pub use interrupt::{interrupted, Interrupt, POLL_EVERY};
pub use vcs::VCI_BASE;

use super::limits::invalid;
use super::model::ScenarioDoc;
use crate::apps::Workload;
use crate::atm::fabric::Fabric;
use crate::error::Result;
use crate::iface::Interfaces;
use crate::ip::IpLayer;
use crate::kernel::EventQueue;
use crate::measure::{Measurement, Recorder};
use crate::net::{Engine, Layers, Network};
use crate::transport::socket::SocketTable;
use std::ops::ControlFlow;

/// Validate `doc` and build the network it describes. `seed_override` and
/// `batching_override` replace the document's `simulation.seed` and `simulation.batching`.
pub fn build(doc: &ScenarioDoc, seed_override: Option<u64>, batching_override: Option<bool>) -> Result<Network> {
    build_with(doc, seed_override, batching_override, &mut || ControlFlow::Continue(()))
}

/// [`build`], consulting `poll` while it works (module docs, "Interrupts").
pub fn build_with(
    doc: &ScenarioDoc,
    seed_override: Option<u64>,
    batching_override: Option<bool>,
    poll: &mut dyn FnMut() -> ControlFlow<()>,
) -> Result<Network> {
    let mut stop = Interrupt::new(poll);
    strings::check(doc)?;
    let run = simulation::settings(&doc.simulation, seed_override, batching_override)?;
    // A site stands for its hosts, router, LAN and uplink; routers are nodes after the hosts,
    // built from the same kind of section. The document is copied once, if either adds to it.
    let mut owned = sites::expand(doc, &mut stop)?;
    let routers = internet::routers(owned.as_ref().unwrap_or(doc))?;
    if !routers.is_empty() {
        owned.get_or_insert_with(|| doc.clone()).hosts.extend(routers);
    }
    let doc = owned.as_ref().unwrap_or(doc);
    let mut names = nodes::Names::default();
    let mut hosts = nodes::hosts(&doc.hosts, &mut names, run.seed, &mut stop)?;
    for h in &mut hosts[doc.hosts.len() - doc.routers.len()..] {
        h.set_forwarding();
    }
    let mut switches = nodes::switches(&doc.switches, &mut names)?;
    let mut cabling = links::links(doc, &names, &run, &mut hosts, &mut switches)?;
    let vcs = vcs::vcs(&doc.vcs, &names, &mut cabling)?;
    let ifaces = internet::interfaces(doc, &names, &cabling, &mut hosts, &mut stop)?;
    internet::routes(&mut hosts, &ifaces.subnets, &mut stop)?;
    let shapers = shaping::shapers(doc, &hosts, &vcs)?;
    let mut pvcs = Vec::new();
    let conns =
        tcp::connections(&doc.tcp, &names, &vcs, &hosts, &run, &ifaces.ifaces, doc.signalling.is_some(), &mut pvcs)?;
    let tcp_vcs = shaping::TcpVcs::of(&pvcs);
    internet::router_pvcs(doc, &vcs, &hosts, &mut pvcs);
    internet::declare_pvcs(doc, &mut hosts, pvcs)?;
    let udp = internet::udp_flows(doc, &names, &hosts, &run)?;
    let sources = sources::cell_sources(&doc.cell_sources, &names, &vcs, &mut cabling.ports, run.seed)?;
    let mut shapers = shapers;
    shaping::socket_buffer_bounds(&mut shapers, doc, &conns, &tcp_vcs, &sources, &cabling.ports, &hosts);
    let mut sig = signalling::signalling(doc.signalling.as_ref(), &mut cabling, &switches, &hosts)?;
    qos::plane(doc, &hosts, &mut cabling.ports, sig.as_deref_mut())?;
    let gens = traffic::generators(doc, &names, &run)?;
    let fixed_conns = conns.len();
    let taps = captures::captures(&doc.captures, &names, &mut hosts)?;
    let (abr, er) = abr::plane(doc, &names, &cabling, &vcs, &hosts)?;

    let mut run = run;
    let per_instant = 5 * fixed_conns + 2 * cabling.ports.len() + hosts.len();
    simulation::bound_samples(&mut run, doc.simulation.sample_interval_ms.is_some(), per_instant)?;
    let conn_names: Vec<String> = conns.iter().map(|c| c.name().to_string()).collect();
    let port_names: Vec<String> = cabling.ports.iter().map(|p| p.name.clone()).collect();
    let host_names: Vec<String> = hosts.iter().map(|h| h.name().to_string()).collect();
    let mut abr = abr;
    let mut rec = Recorder::new(&conn_names, &port_names, &host_names);
    for e in &mut abr.ends {
        e.set_probe(rec.add_entity(crate::measure::Entity::Abr.of(&e.name)));
    }
    let mut sockets = SocketTable::new(hosts.len());
    let ip = IpLayer { hosts, datagrams: Default::default() };
    let apps = Workload::new(conns, gens, sources, udp, run.seed);
    bind_sockets(&mut sockets, &apps, doc)?;
    let mut net = Network::new(Layers {
        fabric: Fabric::new(cabling.ports, cabling.links, switches, shapers, er),
        eng: Engine::new(EventQueue::with_ties(run.ties), run.until, run.batching),
        abr,
        sig,
        iface: Interfaces::new(ifaces.ifaces, ifaces.lines, ifaces.serial, ifaces.lans),
        ip,
        sockets,
        apps,
        measure: Measurement::new(run.warmup, run.sample_every, rec, taps),
    });
    net.prime();
    Ok(net)
}

/// Bind every `[[tcp]]` endpoint and every UDP flow's receiver on its host.
fn bind_sockets(sockets: &mut SocketTable, apps: &Workload, doc: &ScenarioDoc) -> Result<()> {
    use crate::transport::socket::{SockKey, Socket};
    for (c, conn) in apps.slots().iter().enumerate() {
        for side in 0..2 {
            let ep = conn.endpoint(side);
            let s = Socket::Tcp { conn: crate::ids::ConnId(c as u32), side: side as u8 };
            if !sockets.bind(ep.host(), SockKey::outgoing(ep.hdr()), s) {
                return invalid(
                    format!("tcp[{c}]"),
                    "expected distinct ports: more than 64,512 connections between two hosts",
                );
            }
        }
    }
    for (f, u) in apps.udp.iter().enumerate() {
        if !sockets.bind(u.hdr.dst, SockKey::incoming(&u.hdr), Socket::Udp { flow: f as u32 }) {
            return invalid(
                format!("udp[{f}].src_port"),
                format!("expected a port pair no other flow from `{}` to `{}` uses", doc.udp[f].from, doc.udp[f].to),
            );
        }
    }
    Ok(())
}
