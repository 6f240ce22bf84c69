//! Static IP routing: one forwarding table per node, answering "next hop to node d" with an
//! indexed load — no prefix scan per packet.
//!
//! Owns: [`Hop`] (the interface a datagram leaves by and the node it is handed to on that
//! subnet), [`Routes`] (a node's table) and [`compute`], which fills every table at build time.
//!
//! Model (Mah 1996 §3.6.2: "static routing tables loaded at configuration time"): the IP
//! topology is a set of *subnets* — a LAN, a serial line, or the ATM network, which under
//! Classical IP (RFC 1577) is one logical subnet whose members (ATM-attached hosts and
//! routers) reach each other in one IP hop. Routes minimise the number of IP hops; ties go
//! to the subnet, and then the neighbour, that comes first in build order, so the tables are
//! the same on every run. Only routers forward; a host is never a transit hop.
//!
//! Size. A router, and a host on several subnets, holds a full table (one [`Hop`] per node).
//! A host on one subnet holds its interface and a reference to its subnet's *stub table*,
//! shared by every such host of that subnet: for each destination, the node a datagram is
//! handed to on the subnet (the destination itself, a router, or none). Such a host's next
//! hop never depends on which host of the subnet it is (it leaves by its only interface, and
//! the subnet's first router reached from the destination carries it on), so memory grows
//! with (routers + multi-homed hosts + subnets) × nodes, not with hosts²: a site of 10,000
//! workstations holds one shared table of 10,002 entries, not 10⁸ hops.
//!
//! Cost. One breadth-first search per router and one per *attachment class* — the nodes
//! that are not routers and sit on the same list of subnets (every workstation of a LAN, every
//! ATM-attached host of one ATM network) — over the bipartite graph of nodes and subnets. A
//! search from one member of a class gives every other node's route to each member of it: the
//! members differ only in which one is the source, and each is one IP hop from the others.

use crate::ids::{IfaceId, NodeId};
use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::sync::Arc;

/// Where a datagram for some destination goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The interface of this node it leaves by.
    pub iface: IfaceId,
    /// The node on that subnet it is handed to (the destination itself on the last hop).
    pub next: NodeId,
}

const NO_NODE: NodeId = NodeId(u32::MAX);
const NONE: Hop = Hop { iface: IfaceId(u32::MAX), next: NO_NODE };

/// A node's forwarding table.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    table: Table,
}

#[derive(Clone, Debug, Default)]
enum Table {
    /// No interface: no routes.
    #[default]
    Empty,
    /// One hop per destination node (routers, hosts on several subnets).
    Full(Vec<Hop>),
    /// A host on one subnet: it leaves by `iface`, handing a datagram for `d` to `next[d]`
    /// (its subnet's stub table, shared).
    Stub { me: NodeId, iface: IfaceId, next: Arc<[NodeId]> },
}

impl Routes {
    /// The next hop towards `dst`, if `dst` is reachable.
    #[inline]
    pub fn get(&self, dst: NodeId) -> Option<Hop> {
        match &self.table {
            Table::Full(hops) => match hops.get(dst.idx()) {
                Some(h) if h.iface != NONE.iface => Some(*h),
                _ => None,
            },
            Table::Stub { me, iface, next } => match next.get(dst.idx()) {
                Some(&m) if m != NO_NODE && dst != *me => Some(Hop { iface: *iface, next: m }),
                _ => None,
            },
            Table::Empty => None,
        }
    }

    /// Destinations this node has a route to.
    pub fn reachable(&self) -> usize {
        match &self.table {
            Table::Full(hops) => hops.iter().filter(|h| h.iface != NONE.iface).count(),
            Table::Stub { me, next, .. } => {
                next.iter().enumerate().filter(|&(d, &m)| m != NO_NODE && d != me.idx()).count()
            }
            Table::Empty => 0,
        }
    }

    /// Bytes this table holds of its own (a stub's shared table not counted).
    pub fn own_bytes(&self) -> usize {
        match &self.table {
            Table::Full(hops) => hops.len() * std::mem::size_of::<Hop>(),
            _ => 0,
        }
    }
}

/// One subnet: its members and the interface each attaches by.
#[derive(Clone, Debug, Default)]
pub struct Subnet {
    pub members: Vec<(NodeId, IfaceId)>,
}

/// Every node's table. `forwards[n]` says whether node `n` is a router. `poll` is called
/// between two searches; `Break` abandons the computation (`None`).
pub fn compute(
    forwards: &[bool],
    subnets: &[Subnet],
    poll: &mut dyn FnMut() -> ControlFlow<()>,
) -> Option<Vec<Routes>> {
    let n = forwards.len();
    let mut of_node: Vec<Vec<(usize, IfaceId)>> = vec![Vec::new(); n];
    for (s, net) in subnets.iter().enumerate() {
        for &(node, ifc) in &net.members {
            of_node[node.idx()].push((s, ifc));
        }
    }
    let layout = Layout::of(forwards, subnets, &of_node);
    let mut full: Vec<Vec<Hop>> = layout.full.iter().map(|_| vec![NONE; n]).collect();
    let mut stub: Vec<Vec<NodeId>> = layout.stub_subnets.iter().map(|_| vec![NO_NODE; n]).collect();
    let mut bfs = Search::new(n, subnets.len());
    let sources = (0..n)
        .filter(|&r| forwards[r])
        .map(|r| (r, None))
        .chain(layout.classes.iter().enumerate().map(|(c, members)| (members[0], Some(c))));
    for (src, class) in sources {
        poll().is_continue().then_some(())?;
        bfs.run(src, forwards, subnets, &of_node);
        let dsts = class.map_or(std::slice::from_ref(&src), |c| layout.classes[c].as_slice());
        let home = class.map(|c| layout.signatures[c][0]);
        for (t, &k) in full.iter_mut().zip(&layout.full) {
            for &d in dsts {
                t[d] = bfs.hop_of(k, d, src, home.filter(|_| layout.class_of[k] == class), &of_node);
            }
        }
        for (t, &s) in stub.iter_mut().zip(&layout.stub_subnets) {
            let next = bfs.expander_of(s);
            for &d in dsts {
                t[d] = if next == NodeId(src as u32) { NodeId(d as u32) } else { next };
            }
        }
    }
    let stub: Vec<Arc<[NodeId]>> = stub.into_iter().map(Arc::from).collect();
    let mut full = full.into_iter();
    let tables = (0..n)
        .map(|k| Routes {
            table: match layout.kind[k] {
                Kind::Empty => Table::Empty,
                Kind::Full => Table::Full(full.next().expect("one full table per full node")),
                Kind::Stub { table, iface } => {
                    Table::Stub { me: NodeId(k as u32), iface, next: Arc::clone(&stub[table]) }
                }
            },
        })
        .collect();
    Some(tables)
}

#[derive(Clone, Copy)]
enum Kind {
    Empty,
    Full,
    /// On one subnet, whose stub table is `table`, by `iface`.
    Stub {
        table: usize,
        iface: IfaceId,
    },
}

/// Which table each node gets, and the attachment classes.
struct Layout {
    kind: Vec<Kind>,
    /// Nodes with a full table, in node order.
    full: Vec<usize>,
    /// Subnets with a stub table, in table order.
    stub_subnets: Vec<usize>,
    /// Non-routers with at least one subnet, by their list of subnets (first seen first).
    classes: Vec<Vec<usize>>,
    signatures: Vec<Vec<usize>>,
    class_of: Vec<Option<usize>>,
}

impl Layout {
    fn of(forwards: &[bool], subnets: &[Subnet], of_node: &[Vec<(usize, IfaceId)>]) -> Layout {
        let n = forwards.len();
        let mut l = Layout {
            kind: vec![Kind::Empty; n],
            full: Vec::new(),
            stub_subnets: Vec::new(),
            classes: Vec::new(),
            signatures: Vec::new(),
            class_of: vec![None; n],
        };
        let mut stub_table = vec![usize::MAX; subnets.len()];
        let mut class_by_sig: HashMap<Vec<usize>, usize> = HashMap::new();
        for k in 0..n {
            let nets = &of_node[k];
            if forwards[k] || nets.len() > 1 {
                l.kind[k] = Kind::Full;
                l.full.push(k);
            } else if let [(s, iface)] = nets[..] {
                if stub_table[s] == usize::MAX {
                    stub_table[s] = l.stub_subnets.len();
                    l.stub_subnets.push(s);
                }
                l.kind[k] = Kind::Stub { table: stub_table[s], iface };
            }
            if !forwards[k] && !nets.is_empty() {
                let sig: Vec<usize> = nets.iter().map(|&(s, _)| s).collect();
                let c = *class_by_sig.entry(sig.clone()).or_insert_with(|| {
                    l.classes.push(Vec::new());
                    l.signatures.push(sig);
                    l.classes.len() - 1
                });
                l.classes[c].push(k);
                l.class_of[k] = Some(c);
            }
        }
        l
    }
}

/// A breadth-first search from one source over nodes and subnets, with its scratch space
/// reused from search to search (stamped with the search's number, never cleared).
struct Search {
    stamp: u32,
    node_seen: Vec<u32>,
    net_seen: Vec<u32>,
    /// The hop by which each node found in this search reaches the source.
    hop: Vec<Hop>,
    /// The node that expanded each subnet found in this search.
    expander: Vec<NodeId>,
    queue: VecDeque<usize>,
}

impl Search {
    fn new(nodes: usize, subnets: usize) -> Search {
        Search {
            stamp: 0,
            node_seen: vec![0; nodes],
            net_seen: vec![0; subnets],
            hop: vec![NONE; nodes],
            expander: vec![NO_NODE; subnets],
            queue: VecDeque::new(),
        }
    }

    /// Search from `src`: every node's hop towards it, and which node expanded each subnet.
    /// A node is reached through the first node taken from the queue (the source, or a router)
    /// that shares a subnet with it, by the first such subnet in that node's list.
    fn run(&mut self, src: usize, forwards: &[bool], subnets: &[Subnet], of_node: &[Vec<(usize, IfaceId)>]) {
        self.stamp += 1;
        let stamp = self.stamp;
        self.node_seen[src] = stamp;
        self.hop[src] = NONE;
        self.queue.push_back(src);
        while let Some(m) = self.queue.pop_front() {
            // `m` reaches `src`; only the source itself or a router can be a next hop.
            if m != src && !forwards[m] {
                continue;
            }
            for &(s, _) in &of_node[m] {
                if self.net_seen[s] == stamp {
                    continue;
                }
                self.net_seen[s] = stamp;
                self.expander[s] = NodeId(m as u32);
                for &(k, ifc) in &subnets[s].members {
                    if self.node_seen[k.idx()] != stamp {
                        self.node_seen[k.idx()] = stamp;
                        self.hop[k.idx()] = Hop { iface: ifc, next: NodeId(m as u32) };
                        self.queue.push_back(k.idx());
                    }
                }
            }
        }
    }

    /// Node `k`'s hop to `d`, where `d` is the source `src` or, when the search ran from a
    /// class, another member of it. `home`: the class's first subnet, if `k` is in the class
    /// too (then `d` is one hop away on it).
    fn hop_of(&self, k: usize, d: usize, src: usize, home: Option<usize>, of_node: &[Vec<(usize, IfaceId)>]) -> Hop {
        if k == d || self.node_seen[k] != self.stamp {
            return NONE;
        }
        if let Some(s) = home {
            let iface = of_node[k].iter().find(|&&(t, _)| t == s).expect("a class member is on its subnets").1;
            return Hop { iface, next: NodeId(d as u32) };
        }
        let h = self.hop[k];
        if h.next == NodeId(src as u32) {
            Hop { iface: h.iface, next: NodeId(d as u32) }
        } else {
            h
        }
    }

    /// The node that expanded subnet `s` in this search, if the search reached it.
    fn expander_of(&self, s: usize) -> NodeId {
        if self.net_seen[s] == self.stamp {
            self.expander[s]
        } else {
            NO_NODE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(members: &[(u32, u32)]) -> Subnet {
        Subnet { members: members.iter().map(|&(n, i)| (NodeId(n), IfaceId(i))).collect() }
    }

    fn tables(forwards: &[bool], subnets: &[Subnet]) -> Vec<Routes> {
        compute(forwards, subnets, &mut || ControlFlow::Continue(())).expect("not interrupted")
    }

    /// Two sites: hosts 0,1 + router 2 on LAN A; hosts 3,4 + router 5 on LAN B; the routers
    /// on the ATM subnet; host 6 on a serial line to router 5.
    fn two_sites() -> Vec<Routes> {
        let forwards = [false, false, true, false, false, true, false];
        let subnets = [
            net(&[(0, 0), (1, 1), (2, 2)]),
            net(&[(3, 3), (4, 4), (5, 5)]),
            net(&[(2, 6), (5, 7)]),
            net(&[(5, 8), (6, 9)]),
        ];
        tables(&forwards, &subnets)
    }

    #[test]
    fn forwarding_goes_through_the_routers_one_subnet_at_a_time() {
        let t = two_sites();
        let hop = |n: u32, d: u32| t[n as usize].get(NodeId(d)).map(|h| (h.iface.0, h.next.0));
        assert_eq!(hop(0, 1), Some((0, 1)), "same LAN: straight to the destination");
        assert_eq!(hop(0, 4), Some((0, 2)), "another site: to the local router");
        assert_eq!(hop(2, 4), Some((6, 5)), "router: over ATM to the far router");
        assert_eq!(hop(5, 4), Some((5, 4)), "far router: onto its LAN");
        assert_eq!(hop(0, 6), Some((0, 2)));
        assert_eq!(hop(5, 6), Some((8, 6)), "serial line to the last host");
        assert_eq!(hop(6, 0), Some((9, 5)));
        assert_eq!(hop(3, 3), None, "a node's own datagrams never consult its table");
    }

    #[test]
    fn a_host_never_forwards() {
        // Host 1 sits on both LANs but is not a router: 0 cannot reach 2 through it.
        let subnets = [net(&[(0, 0), (1, 1)]), net(&[(1, 2), (2, 3)])];
        let t = tables(&[false, false, false], &subnets);
        assert_eq!(t[0].get(NodeId(2)), None);
        assert!(t[0].get(NodeId(1)).is_some());
        let t = tables(&[false, true, false], &subnets);
        assert_eq!(t[0].get(NodeId(2)), Some(Hop { iface: IfaceId(0), next: NodeId(1) }));
    }

    #[test]
    fn every_node_has_a_route_to_every_other_node_of_a_connected_internetwork() {
        let t = two_sites();
        for r in &t {
            assert_eq!(r.reachable(), 6);
        }
    }

    #[test]
    fn hosts_of_one_lan_share_one_table_and_hold_no_hops_of_their_own() {
        // 1,000 hosts and a router on one LAN, the router on a serial line to a far host.
        let lan = Subnet { members: (0..=1000).map(|k| (NodeId(k), IfaceId(k))).collect() };
        let mut forwards = vec![false; 1002];
        forwards[1000] = true;
        let t = tables(&forwards, &[lan, net(&[(1000, 1001), (1001, 1002)])]);
        let own: usize = t.iter().map(Routes::own_bytes).sum();
        assert_eq!(own, 1002 * std::mem::size_of::<Hop>(), "only the router holds a full table");
        assert_eq!(t[7].get(NodeId(1001)), Some(Hop { iface: IfaceId(7), next: NodeId(1000) }));
        assert_eq!(t[7].get(NodeId(8)), Some(Hop { iface: IfaceId(7), next: NodeId(8) }));
        assert_eq!(t[1001].get(NodeId(7)), Some(Hop { iface: IfaceId(1002), next: NodeId(1000) }));
    }

    #[test]
    fn an_interrupt_between_searches_abandons_the_tables() {
        let subnets = [net(&[(0, 0), (1, 1), (2, 2)])];
        let mut polls = 0;
        let r = compute(&[false, true, false], &subnets, &mut || {
            polls += 1;
            if polls == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(r.is_none());
        assert_eq!(polls, 2);
    }

    /// One breadth-first search per destination, every node a full table: the definition the
    /// shared tables must reproduce exactly.
    fn reference(forwards: &[bool], subnets: &[Subnet]) -> Vec<Vec<Hop>> {
        let n = forwards.len();
        let mut of_node: Vec<Vec<(usize, IfaceId)>> = vec![Vec::new(); n];
        for (s, net) in subnets.iter().enumerate() {
            for &(node, ifc) in &net.members {
                of_node[node.idx()].push((s, ifc));
            }
        }
        let mut tables = vec![vec![NONE; n]; n];
        let mut bfs = Search::new(n, subnets.len());
        for dst in 0..n {
            bfs.run(dst, forwards, subnets, &of_node);
            for (k, t) in tables.iter_mut().enumerate() {
                if k != dst && bfs.node_seen[k] == bfs.stamp {
                    t[dst] = bfs.hop[k];
                }
            }
        }
        tables
    }

    /// A small random internetwork: LANs with 0–2 routers, multi-homed hosts, serial lines,
    /// a router-less ATM subnet, isolated nodes.
    fn random_internetwork(seed: u64) -> (Vec<bool>, Vec<Subnet>) {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let n = 3 + next(30) as usize;
        let forwards: Vec<bool> = (0..n).map(|_| next(4) == 0).collect();
        let mut subnets = Vec::new();
        let mut iface = 0;
        for _ in 0..1 + next(8) {
            let mut members: Vec<(NodeId, IfaceId)> = Vec::new();
            for _ in 0..2 + next(8) {
                let k = NodeId(next(n as u64) as u32);
                if !members.iter().any(|m| m.0 == k) {
                    members.push((k, IfaceId(iface)));
                    iface += 1;
                }
            }
            subnets.push(Subnet { members });
        }
        (forwards, subnets)
    }

    #[test]
    fn shared_tables_give_every_hop_the_full_tables_give() {
        for seed in 0..3000 {
            let (forwards, subnets) = random_internetwork(seed);
            let want = reference(&forwards, &subnets);
            let got = tables(&forwards, &subnets);
            for (k, t) in want.iter().enumerate() {
                for (d, &h) in t.iter().enumerate() {
                    let h = (h != NONE).then_some(h);
                    assert_eq!(got[k].get(NodeId(d as u32)), h, "seed {seed}: node {k} to {d}");
                }
                assert_eq!(got[k].reachable(), t.iter().filter(|&&h| h != NONE).count(), "seed {seed}: node {k}");
            }
        }
    }
}
