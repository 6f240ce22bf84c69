//! Static IP routing: one forwarding table per node, indexed by destination node.
//!
//! Owns: [`Hop`] (the interface a datagram leaves by and the node it is handed to on that
//! subnet), [`Routes`] (a node's table: one entry per destination, so a lookup is one indexed
//! load — no prefix scan per packet) and [`compute`], which fills every table at build time.
//!
//! Model (Mah 1996 §3.6.2: "static routing tables loaded at configuration time"): the IP
//! topology is a set of *subnets* — a LAN, a serial line, or the ATM network, which under
//! Classical IP (RFC 1577) is one logical subnet whose members (ATM-attached hosts and
//! routers) reach each other in one IP hop. Routes minimise the number of IP hops; ties go
//! to the subnet, and then the neighbour, that comes first in build order, so the tables are
//! the same on every run. Only routers forward; a host is never a transit hop.

use crate::ids::{IfaceId, NodeId};
use std::collections::VecDeque;

/// Where a datagram for some destination goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The interface of this node it leaves by.
    pub iface: IfaceId,
    /// The node on that subnet it is handed to (the destination itself on the last hop).
    pub next: NodeId,
}

const NONE: Hop = Hop { iface: IfaceId(u32::MAX), next: NodeId(u32::MAX) };

/// A node's forwarding table.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    hops: Vec<Hop>,
}

impl Routes {
    /// The next hop towards `dst`, if `dst` is reachable.
    #[inline]
    pub fn get(&self, dst: NodeId) -> Option<Hop> {
        match self.hops.get(dst.idx()) {
            Some(h) if h.iface != NONE.iface => Some(*h),
            _ => None,
        }
    }

    /// Destinations this node has a route to.
    pub fn reachable(&self) -> usize {
        self.hops.iter().filter(|h| h.iface != NONE.iface).count()
    }
}

/// One subnet: its members and the interface each attaches by.
#[derive(Clone, Debug, Default)]
pub struct Subnet {
    pub members: Vec<(NodeId, IfaceId)>,
}

/// Every node's table. `forwards[n]` says whether node `n` is a router.
///
/// One breadth-first search per destination over the bipartite graph of nodes and subnets
/// (`O(nodes × (nodes + memberships))`: a 1,218-node internetwork of six 203-member LANs
/// takes a few million steps).
pub fn compute(forwards: &[bool], subnets: &[Subnet]) -> Vec<Routes> {
    let n = forwards.len();
    let mut of_node: Vec<Vec<(usize, IfaceId)>> = vec![Vec::new(); n];
    for (s, net) in subnets.iter().enumerate() {
        for &(node, ifc) in &net.members {
            of_node[node.idx()].push((s, ifc));
        }
    }
    let mut tables: Vec<Routes> = (0..n).map(|_| Routes { hops: vec![NONE; n] }).collect();
    let mut node_seen = vec![usize::MAX; n];
    let mut net_seen = vec![usize::MAX; subnets.len()];
    let mut queue = VecDeque::new();
    for dst in 0..n {
        node_seen[dst] = dst;
        queue.push_back(dst);
        while let Some(m) = queue.pop_front() {
            // `m` reaches `dst`; only the destination itself or a router can be a next hop.
            if m != dst && !forwards[m] {
                continue;
            }
            for &(s, _) in &of_node[m] {
                if net_seen[s] == dst {
                    continue;
                }
                net_seen[s] = dst;
                for &(k, ifc) in &subnets[s].members {
                    if node_seen[k.idx()] != dst {
                        node_seen[k.idx()] = dst;
                        tables[k.idx()].hops[dst] = Hop { iface: ifc, next: NodeId(m as u32) };
                        queue.push_back(k.idx());
                    }
                }
            }
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(members: &[(u32, u32)]) -> Subnet {
        Subnet { members: members.iter().map(|&(n, i)| (NodeId(n), IfaceId(i))).collect() }
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
        compute(&forwards, &subnets)
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
        let t = compute(&[false, false, false], &subnets);
        assert_eq!(t[0].get(NodeId(2)), None);
        assert!(t[0].get(NodeId(1)).is_some());
        let t = compute(&[false, true, false], &subnets);
        assert_eq!(t[0].get(NodeId(2)), Some(Hop { iface: IfaceId(0), next: NodeId(1) }));
    }

    #[test]
    fn every_node_has_a_route_to_every_other_node_of_a_connected_internetwork() {
        let t = two_sites();
        for r in &t {
            assert_eq!(r.reachable(), 6);
        }
    }
}
