//! IP datagrams in flight: what they carry, and the ledger that accounts for every one.
//!
//! Owns: [`DatagramId`], the [`Datagrams`] slab and its [`DatagramCounts`] ledger. What a
//! datagram carries is a type parameter `P`: IP moves it without looking inside (the network
//! uses [`crate::transport::Payload`]). A datagram is created where a
//! transport or a source hands data to IP, travels as a 4-byte id through CPU queues, packet
//! links and AAL5 frames (the ATM fabric never sees what it carries: DESIGN §7), and ends
//! exactly once — delivered to its transport endpoint or sink, refused by a full adapter,
//! lost with the AAL5 frame that carried it, or dropped by IP (no route), by a full
//! packet-level line (serial or LAN buffer) or by the IP-over-ATM driver (its VC setup
//! failed):
//!
//! `sent = delivered + refused_at_adapter + lost_in_fabric + no_route + dropped_at_line +
//! no_vc + in_flight`.
//!
//! The slab reuses freed slots (a free list), so the steady state allocates nothing.

use crate::header::PacketHeader;
pub use crate::ids::DatagramId;
use crate::time::SimTime;

/// One datagram: its header, content, total IP length and when IP took it.
#[derive(Clone, Copy, Debug)]
pub struct Datagram<P> {
    pub hdr: PacketHeader,
    pub payload: P,
    /// Total length with IP and transport headers \[bytes\].
    pub ip_bytes: u32,
    pub born: SimTime,
}

/// How datagrams ended (the ledger in the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagramCounts {
    pub sent: u64,
    /// Reached their transport endpoint or sink (stale TCP segments included: they arrived).
    pub delivered: u64,
    /// Refused whole by a host adapter whose buffer could not take the frame.
    pub refused_at_adapter: u64,
    /// Their AAL5 frame lost a cell (dropped in the fabric, or discarded at reassembly).
    pub lost_in_fabric: u64,
    /// A node had no route to their destination.
    pub no_route: u64,
    /// A serial line's or LAN's buffer was full.
    pub dropped_at_line: u64,
    /// The IP-over-ATM driver could not get a VC for them (the setup failed).
    pub no_vc: u64,
}

/// Why IP dropped a datagram (the ledger's last three fates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpDrop {
    NoRoute,
    LineFull,
    NoVc,
}

/// The slab of live datagrams carrying payloads of type `P`.
pub struct Datagrams<P> {
    slots: Vec<Datagram<P>>,
    free: Vec<u32>,
    live: u32,
    pub counts: DatagramCounts,
}

impl<P> Default for Datagrams<P> {
    fn default() -> Self {
        Datagrams { slots: Vec::new(), free: Vec::new(), live: 0, counts: DatagramCounts::default() }
    }
}

impl<P: Copy> Datagrams<P> {
    /// A new datagram handed to IP.
    #[inline]
    pub fn alloc(&mut self, hdr: PacketHeader, payload: P, ip_bytes: u32, born: SimTime) -> DatagramId {
        let d = Datagram { hdr, payload, ip_bytes, born };
        self.live += 1;
        self.counts.sent += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = d;
                DatagramId(i)
            }
            None => {
                self.slots.push(d);
                DatagramId((self.slots.len() - 1) as u32)
            }
        }
    }

    #[inline]
    pub fn get(&self, id: DatagramId) -> &Datagram<P> {
        &self.slots[id.0 as usize]
    }

    /// The datagram reached its endpoint or sink: it ends here; returns it.
    #[inline]
    pub fn deliver(&mut self, id: DatagramId) -> Datagram<P> {
        self.counts.delivered += 1;
        self.release(id)
    }

    /// A host adapter refused the datagram's frame.
    pub fn refuse(&mut self, id: DatagramId) {
        self.counts.refused_at_adapter += 1;
        self.release(id);
    }

    /// The AAL5 frame carrying the datagram was lost or discarded.
    pub fn lose(&mut self, id: DatagramId) {
        self.counts.lost_in_fabric += 1;
        self.release(id);
    }

    /// IP dropped the datagram.
    pub fn drop_ip(&mut self, id: DatagramId, why: IpDrop) {
        let c = &mut self.counts;
        match why {
            IpDrop::NoRoute => c.no_route += 1,
            IpDrop::LineFull => c.dropped_at_line += 1,
            IpDrop::NoVc => c.no_vc += 1,
        }
        self.release(id);
    }

    #[inline]
    fn release(&mut self, id: DatagramId) -> Datagram<P> {
        self.live -= 1;
        self.free.push(id.0);
        self.slots[id.0 as usize]
    }

    /// The datagrams still in flight (end-of-run accounting; O(slots)).
    pub fn in_flight(&self) -> impl Iterator<Item = &Datagram<P>> {
        let mut free = vec![false; self.slots.len()];
        for &f in &self.free {
            free[f as usize] = true;
        }
        self.slots.iter().zip(free).filter(|(_, f)| !f).map(|(d, _)| d)
    }

    /// Datagrams not yet ended (in CPU queues, on packet lines, waiting for a VC, in frames in the fabric).
    pub fn live(&self) -> u64 {
        self.live as u64
    }

    /// Does the ledger balance?
    pub fn balanced(&self) -> bool {
        let c = &self.counts;
        c.sent
            == c.delivered
                + c.refused_at_adapter
                + c.lost_in_fabric
                + c.no_route
                + c.dropped_at_line
                + c.no_vc
                + self.live()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::{Media, Proto};
    use crate::ids::NodeId;

    fn raw(d: &mut Datagrams<u32>, source: u32, bytes: u32) -> DatagramId {
        let hdr = PacketHeader {
            src: NodeId(0),
            dst: NodeId(1),
            proto: Proto::Udp,
            src_port: 0,
            dst_port: 0,
            tos: 0,
            media: Media::None,
        };
        d.alloc(hdr, source, bytes, SimTime::ZERO)
    }

    #[test]
    fn every_datagram_ends_once_and_slots_are_reused() {
        let mut d = Datagrams::default();
        let a = raw(&mut d, 1, 100);
        let b = raw(&mut d, 2, 200);
        let c = raw(&mut d, 3, 300);
        assert_eq!(d.deliver(b).ip_bytes, 200);
        d.refuse(a);
        assert!(d.balanced());
        assert_eq!(d.live(), 1);
        let e = raw(&mut d, 4, 400);
        assert!(e == a || e == b, "a freed slot is reused");
        d.lose(c);
        d.deliver(e);
        assert_eq!(
            d.counts,
            DatagramCounts { sent: 4, delivered: 2, refused_at_adapter: 1, lost_in_fabric: 1, ..Default::default() }
        );
        let f = raw(&mut d, 5, 100);
        let g = raw(&mut d, 6, 100);
        let h = raw(&mut d, 7, 100);
        d.drop_ip(f, IpDrop::NoRoute);
        d.drop_ip(g, IpDrop::LineFull);
        d.drop_ip(h, IpDrop::NoVc);
        assert_eq!((d.counts.no_route, d.counts.dropped_at_line, d.counts.no_vc), (1, 1, 1));
        assert_eq!(d.live(), 0);
        assert!(d.balanced());
    }
}
