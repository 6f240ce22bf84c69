//! Per-endpoint access links (Cáceres §2.4): packet-level serial links between a TCP endpoint
//! and its host's adapter.
//!
//! Owns the handling of [`AccessEv`]: a datagram finishing serialization (`Tx`) and reaching
//! the far end after the propagation delay (`Arrive`), in either direction (0 = towards the
//! adapter, 1 = towards the endpoint). The issue-10 node model replaces these links with
//! serial interfaces to an edge router.

use super::{AccessEv, Ev, Network};
use crate::ids::{ConnId, DatagramId};
use crate::time::SimDuration;

impl Network {
    /// Dispatch of the access links' events.
    pub(super) fn on_access(&mut self, ev: AccessEv) {
        match ev {
            AccessEv::Tx(c, s, d) => self.access_tx_done(c, s as usize, d as usize),
            AccessEv::Arrive(c, s, d) => self.access_arrive(c, s as usize, d as usize),
        }
    }

    /// Queue a datagram on the access link of endpoint `side` of `c`, direction `d`.
    pub(super) fn access_push(&mut self, c: ConnId, side: usize, d: usize, p: DatagramId, ip_bytes: u32) {
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        acc.dirs[d].queue.push_back((p, ip_bytes));
        if !acc.dirs[d].busy {
            self.access_start(c, side, d);
        }
    }

    /// Start serializing the head datagram of direction `d`, if any.
    pub(super) fn access_start(&mut self, c: ConnId, side: usize, d: usize) {
        let now = self.now;
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        let Some(&(_, bytes)) = acc.dirs[d].queue.front() else {
            acc.dirs[d].busy = false;
            return;
        };
        acc.dirs[d].busy = true;
        let done = now + acc.rate.tx_time(bytes as u64 * 8);
        self.q.schedule(done, Ev::Access(AccessEv::Tx(c, side as u8, d as u8)));
    }

    pub(super) fn access_tx_done(&mut self, c: ConnId, side: usize, d: usize) {
        let now = self.now;
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        let (p, _) = acc.dirs[d].queue.pop_front().expect("AccessTx with an empty queue");
        let delay = acc.delay;
        if delay == SimDuration::ZERO {
            self.access_forward(c, side, d, p);
        } else {
            acc.dirs[d].pipe.push_back((now + delay, p));
            self.q.schedule(now + delay, Ev::Access(AccessEv::Arrive(c, side as u8, d as u8)));
        }
        self.access_start(c, side, d);
    }

    pub(super) fn access_arrive(&mut self, c: ConnId, side: usize, d: usize) {
        let acc = self.conns[c.idx()].ep[side].access.as_mut().expect("access link");
        let (_, p) = acc.dirs[d].pipe.pop_front().expect("AccessArrive with an empty pipe");
        self.access_forward(c, side, d, p);
    }

    /// A datagram leaves the access link: into the host's IP layer (`d` = 0) or to the endpoint.
    pub(super) fn access_forward(&mut self, c: ConnId, side: usize, d: usize, p: DatagramId) {
        if d == 0 {
            let h = self.conns[c.idx()].ep[side].host;
            self.ip_output(h, p);
        } else {
            self.deliver_tcp(p);
        }
    }
}
