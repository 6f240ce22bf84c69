//! The `[signalling]` section: a controller at every switch and every ATM-attached host and
//! router, their signalling links, and their routes.
//!
//! Owns building the [`SigNet`]: one [`Controller`] per switch (ids `0..switches`) and one per
//! node with an adapter (its endpoint id in node order); a controller port per output port
//! (the peer is the node at the far end of that port's link; the port receives on the
//! reverse link); static routes to every endpoint along fewest hops, where only switches
//! relay (Mah §3.6.2); and switched VCIs on each link allocated above those of the
//! scenario's `[[vc]]`s.

use super::links::Cabling;
use super::nodes::Node;
use crate::atm::link::Sink;
use crate::atm::fabric::Switch;
use crate::error::Result;
use crate::ids::NodeId;
use crate::ip::Host;
use crate::net::SigNet;
use crate::scenario::internet::SignallingSec;
use crate::scenario::limits::{self, int_in, invalid, span};
use crate::signalling::{Controller, CtrlId, EndpointId, GbnConfig, PortIx, PortSpec, SigConfig};
use crate::time::SimDuration;
use std::collections::VecDeque;

/// The signalling configuration of `[signalling]`.
fn config(s: &SignallingSec) -> Result<SigConfig> {
    let f = |k: &str| format!("signalling.{k}");
    let processing = span(f("processing_ms"), s.processing_ms, 1e-3, "ms", limits::MAX_DELAY_S)?;
    let vci_space =
        int_in(f("vci_space"), s.vci_space, 33, 1 << 16, "a number of VCIs per port (33 to 65536; 0–31 are reserved)")?;
    let window = int_in(f("window"), s.window, 1, 32767, "a window in messages (1 to 32767)")?;
    let rto = span(f("rto_ms"), s.rto_ms, 1e-3, "ms", limits::MAX_DELAY_S)?;
    if rto == SimDuration::ZERO {
        return invalid(f("rto_ms"), "expected a positive timeout in ms, got 0");
    }
    Ok(SigConfig {
        processing,
        gbn: GbnConfig { window: window as u16, rto, initial_seq: 0 },
        vci_space: vci_space as u32,
        first_vci: SigConfig::default().first_vci,
    })
}

/// Build the signalling plane, if the document has one.
pub(super) fn signalling(
    s: Option<&SignallingSec>,
    cabling: &mut Cabling,
    switches: &[Switch],
    hosts: &[Host],
) -> Result<Option<Box<SigNet>>> {
    let Some(s) = s else { return Ok(None) };
    let cfg = config(s)?;
    if let Some(b) = s.control_buffer_cells {
        let b = int_in("signalling.control_buffer_cells", b, 1, u32::MAX as i64 - 1, "a buffer size in cells")?;
        for p in &mut cabling.ports {
            p.set_ctrl_buffer(b as u32);
        }
    }
    let nsw = switches.len();
    let mut ctrl_of_node = vec![None; hosts.len()];
    let mut endpoint_of_node = vec![None; hosts.len()];
    let mut node_of_ctrl: Vec<Option<NodeId>> = vec![None; nsw];
    for (h, host) in hosts.iter().enumerate() {
        if host.port().is_some() {
            endpoint_of_node[h] = Some(EndpointId((node_of_ctrl.len() - nsw) as u32));
            ctrl_of_node[h] = Some(CtrlId(node_of_ctrl.len() as u32));
            node_of_ctrl.push(Some(NodeId(h as u32)));
        }
    }
    let ctrl = |n: Node| match n {
        Node::Switch(s) => CtrlId(s.0),
        Node::Host(h) => ctrl_of_node[h.idx()].expect("a linked node has a controller"),
    };
    let far = |l: usize| match cabling.links[l].to {
        Sink::Switch { switch, .. } => Node::Switch(switch),
        Sink::Host(h) => Node::Host(h),
    };
    // Every controller's output ports, in order: a switch's ports, a node's adapter.
    let mut outs: Vec<(Node, Vec<crate::ids::PortId>)> = switches
        .iter()
        .enumerate()
        .map(|(i, sw)| (Node::Switch(crate::ids::SwitchId(i as u32)), sw.ports().to_vec()))
        .collect();
    for n in node_of_ctrl.iter().skip(nsw).flatten() {
        outs.push((Node::Host(*n), vec![hosts[n.idx()].port().expect("adapter")]));
    }
    let mut link_rx = vec![None; cabling.links.len()];
    let mut ctrls = Vec::with_capacity(outs.len());
    let mut peers: Vec<Vec<CtrlId>> = Vec::with_capacity(outs.len());
    for (c, (me, ports)) in outs.iter().enumerate() {
        let mut specs = Vec::new();
        for (k, &p) in ports.iter().enumerate() {
            let lid = cabling.ports[p.idx()].link;
            let peer = far(lid.idx());
            let back = cabling.adjacency[&(peer, *me)];
            specs.push(PortSpec { out: p, link_in: back, peer: ctrl(peer) });
            link_rx[back.idx()] = Some((CtrlId(c as u32), PortIx(k as u32)));
        }
        let local = match me {
            Node::Host(h) => endpoint_of_node[h.idx()],
            Node::Switch(_) => None,
        };
        let mut ctl = Controller::new(CtrlId(c as u32), local, cfg, &specs);
        for (k, &p) in ports.iter().enumerate() {
            ctl.reserve_below(PortIx(k as u32), cabling.next_vci[cabling.ports[p.idx()].link.idx()]);
        }
        peers.push(specs.iter().map(|s| s.peer).collect());
        ctrls.push(ctl);
    }
    routes(&mut ctrls, &peers, nsw);
    Ok(Some(Box::new(SigNet::new(ctrls, ctrl_of_node, endpoint_of_node, node_of_ctrl, link_rx))))
}

/// Every controller's route to every endpoint: breadth-first from the endpoint, relaying
/// through switches only (controllers `0..nsw`).
fn routes(ctrls: &mut [Controller], peers: &[Vec<CtrlId>], nsw: usize) {
    let n = ctrls.len();
    // into[m]: the controllers with a port leading to m, and that port.
    let mut into: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    for (x, px) in peers.iter().enumerate() {
        for (k, p) in px.iter().enumerate() {
            into[p.idx()].push((x, k as u32));
        }
    }
    let mut seen = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    for dest in nsw..n {
        let e = EndpointId((dest - nsw) as u32);
        seen[dest] = dest;
        queue.push_back(dest);
        while let Some(m) = queue.pop_front() {
            if m != dest && m >= nsw {
                continue; // an endpoint never relays
            }
            for &(x, k) in &into[m] {
                if seen[x] != dest {
                    seen[x] = dest;
                    ctrls[x].set_route(e, PortIx(k));
                    queue.push_back(x);
                }
            }
        }
    }
}
