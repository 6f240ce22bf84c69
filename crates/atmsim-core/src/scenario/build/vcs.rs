//! The `[[vc]]` section: permanent virtual circuits between two hosts.
//!
//! Owns [`VcInfo`] and its construction. A VC's path must start and end at a host, pass
//! only through switches, visit no node twice and follow `[[link]]`s. Each direction gets one
//! VCI per hop, allocated densely from [`VCI_BASE`] on each simplex link, in document
//! order (VC by VC, the forward direction before the reverse, hop by hop); every switch on
//! the path gets the translation entry (input link, VCI) → (output port, VCI).

use super::links::Cabling;
use super::nodes::check_unique_name;
use super::nodes::{Names, Node};
use crate::atm::link::{Route, Sink};
use crate::error::Result;
use crate::ids::{LinkId, NodeId, PortId};
use crate::scenario::limits::invalid;
use crate::scenario::model::VcSec;
use std::collections::HashMap;

/// First VCI handed out on each link (0–31 are reserved by ITU-T I.361).
pub const VCI_BASE: u32 = 32;

/// Every VC by its name.
pub(super) type Vcs<'d> = HashMap<&'d str, VcInfo>;

/// One direction of a VC: where it enters the network and where it leaves.
#[derive(Clone, Copy, Debug)]
pub(super) struct VcDir {
    pub from: NodeId,
    pub port: PortId,
    pub vci: u32,
    /// The VCI on the last hop: what the receiving end sees.
    pub in_vci: u32,
}

/// Where the forward direction of a VC enters one switch on its path.
#[derive(Clone, Copy)]
pub(super) struct SwitchInput<'d> {
    /// The switch's name.
    pub switch: &'d str,
    /// The link the VC arrives on, and its VCI there.
    pub link: LinkId,
    pub vci: u32,
    /// The port it leaves by.
    pub port: PortId,
}

/// A VC as built: its two end hosts, both directions, and where each direction enters each
/// switch on its path. A scenario may hold tens of thousands of VCs, so this is kept small:
/// one allocation a VC.
pub(super) struct VcInfo {
    pub ends: [NodeId; 2],
    /// `dirs[0]`: `ends[0]` → `ends[1]`; `dirs[1]`: the reverse.
    pub dirs: [VcDir; 2],
    /// Per switch, the forward direction's (input link, VCI on it, output port) in path
    /// order, then the reverse direction's in its own order ([`VcInfo::hops`]).
    entries: Box<[(LinkId, u32, PortId)]>,
}

impl VcInfo {
    /// The direction that leaves host `h`, if `h` is an end of the VC.
    pub fn dir_from(&self, h: NodeId) -> Option<VcDir> {
        self.dirs.iter().find(|d| d.from == h).copied()
    }

    /// Direction `d`'s entries into the switches on its way (as `dirs`): (input link, VCI on
    /// it, output port), in that direction's order.
    pub fn hops(&self, d: usize) -> &[(LinkId, u32, PortId)] {
        let n = self.entries.len() / 2;
        &self.entries[d * n..(d + 1) * n]
    }

    /// Where the forward direction enters each switch on the path of `v` (this VC's section),
    /// in path order (for policers and re-shapers).
    pub fn inputs<'a, 'd: 'a>(&'a self, v: &'d VcSec) -> impl Iterator<Item = SwitchInput<'d>> + 'a {
        v.path[1..].iter().zip(self.hops(0)).map(|(switch, &(link, vci, port))| SwitchInput { switch, link, vci, port })
    }
}

/// Check `[[vc]]`, allocate the VCIs and fill the switches' translation tables.
pub(super) fn vcs<'d>(secs: &'d [VcSec], names: &Names, cabling: &mut Cabling) -> Result<Vcs<'d>> {
    let mut next_vci = vec![VCI_BASE; cabling.links.len()];
    let mut vcs: Vcs = HashMap::with_capacity(secs.len());
    for (i, v) in secs.iter().enumerate() {
        check_unique_name(&format!("vc[{i}].name"), &v.name, vcs.contains_key(v.name.as_str()), "VC")?;
        let path = path_nodes(i, v, names)?;
        let hops = path_hops(i, v, &path, cabling)?;
        let (forward, mut entries) = direction(&path, &hops, &mut next_vci, cabling);
        let rpath: Vec<Node> = path.iter().rev().copied().collect();
        let rhops: Vec<LinkId> = (0..rpath.len() - 1).map(|k| cabling.adjacency[&(rpath[k], rpath[k + 1])]).collect();
        let (reverse, rev_entries) = direction(&rpath, &rhops, &mut next_vci, cabling);
        entries.extend(rev_entries);
        let (Node::Host(h0), Node::Host(h1)) = (path[0], path[path.len() - 1]) else { unreachable!() };
        let entries = entries.into_boxed_slice();
        vcs.insert(&v.name, VcInfo { ends: [h0, h1], dirs: [forward, reverse], entries });
    }
    cabling.next_vci = next_vci;
    Ok(vcs)
}

/// VC `i`'s path as nodes: a host, switches, a host, none twice.
fn path_nodes(i: usize, v: &VcSec, names: &Names) -> Result<Vec<Node>> {
    if v.path.len() < 2 {
        return invalid(format!("vc[{i}].path"), "expected at least two nodes: host, [switches...], host");
    }
    let mut path = Vec::new();
    for (k, n) in v.path.iter().enumerate() {
        let field = || format!("vc[{i}].path[{k}]");
        let node = names.node(field(), n)?;
        let end = k == 0 || k + 1 == v.path.len();
        match (end, node) {
            (true, Node::Switch(_)) => {
                return invalid(field(), format!("expected a host at the end of the path, got switch `{n}`"))
            }
            (false, Node::Host(_)) => {
                return invalid(
                    field(),
                    format!("expected a switch inside the path, got host `{n}` (hosts do not forward cells)"),
                )
            }
            _ => {}
        }
        if path.contains(&node) {
            return invalid(field(), format!("expected a loop-free path, but `{n}` appears twice"));
        }
        path.push(node);
    }
    Ok(path)
}

/// The simplex links along `path`: each pair of neighbours must be joined by a link.
fn path_hops(i: usize, v: &VcSec, path: &[Node], cabling: &Cabling) -> Result<Vec<LinkId>> {
    let mut hops = Vec::new();
    for k in 0..path.len() - 1 {
        match cabling.adjacency.get(&(path[k], path[k + 1])) {
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
    Ok(hops)
}

/// One direction of a VC along `nodes` (host, switches, host) over `hops`: allocate a VCI
/// on each hop and add the translation entry at each switch. Returns the direction and,
/// per switch on the way, where it enters the switch: (input link, VCI on it, output port).
fn direction(
    nodes: &[Node],
    hops: &[LinkId],
    next_vci: &mut [u32],
    cabling: &mut Cabling,
) -> (VcDir, Vec<(LinkId, u32, PortId)>) {
    let vcis: Vec<u32> = hops
        .iter()
        .map(|l| {
            let v = next_vci[l.idx()];
            next_vci[l.idx()] += 1;
            v
        })
        .collect();
    let mut entries = Vec::new();
    for k in 1..nodes.len() - 1 {
        let (in_link, out_link) = (hops[k - 1], hops[k]);
        let out_port = cabling.links[out_link.idx()].from;
        if let Sink::Switch { table, .. } = &mut cabling.links[in_link.idx()].to {
            let idx = vcis[k - 1] as usize;
            if table.len() <= idx {
                table.resize(idx + 1, None);
            }
            table[idx] = Some(Route { port: out_port, vci: vcis[k] });
        }
        entries.push((in_link, vcis[k - 1], out_port));
    }
    let Node::Host(from) = nodes[0] else { unreachable!() };
    let in_vci = *vcis.last().expect("a path has at least one hop");
    (VcDir { from, port: cabling.links[hops[0].idx()].from, vci: vcis[0], in_vci }, entries)
}
