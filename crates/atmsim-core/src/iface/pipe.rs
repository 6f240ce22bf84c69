//! A packet-level transmission line: a FIFO serializer followed by a propagation delay.
//!
//! Owns: [`PacketLine`]. Whole IP datagrams are stored and forwarded: a datagram of `b` bytes
//! occupies the line for `b·8 / rate`, then arrives `delay` later. Serial lines use one per
//! direction ([`super::serial`]), a shared-medium LAN one for all its stations
//! ([`super::lan`]). The line is sans-I/O: `push` and `tx_done` return the instant the caller
//! must come back (the end of a serialization), `arrive` hands over what has arrived.
//! An optional buffer limit (in datagrams, the one being sent included) drops arrivals that
//! find it full; the caller accounts the dropped datagram.
//!
//! **Simultaneous events (DESIGN §2b).** At one instant the serializer first finishes (the
//! datagram leaves, the next starts: `LineTx` runs before any arrival), then the instant's
//! datagrams join the FIFO in the round-robin order of their inputs ([`crate::arbiter`];
//! [`PacketLine::arbiter`]): the line or adapter a forwarded datagram came in by, or the node
//! that sent it (so a LAN's stations are its inputs). The network collects them
//! ([`PacketLine::arrivals`]) and queues them together at the instant's admission phase
//! (`net/ip.rs`, `line_push`). A datagram on a line without delay arrives in the arrival phase
//! of the instant it was sent.

use crate::ids::{DatagramId, NodeId};
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::VecDeque;

/// One datagram on a line: its id, size, and the node that will receive it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnLine {
    pub datagram: DatagramId,
    pub bytes: u32,
    pub to: NodeId,
}

/// Counters of one line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineStats {
    pub sent: u64,
    pub bytes_sent: u64,
    /// Datagrams that found the buffer full.
    pub dropped: u64,
    /// Picoseconds spent serializing.
    pub busy_ps: u64,
}

/// A FIFO serializer and its propagation pipe.
#[derive(Debug)]
pub struct PacketLine {
    pub rate: Rate,
    pub delay: SimDuration,
    /// Largest number of datagrams waiting or in transmission (`None`: unlimited).
    pub limit: Option<u32>,
    queue: VecDeque<OnLine>,
    busy: bool,
    /// Serialized and propagating, with their arrival times (FIFO: arrivals are in order).
    pipe: VecDeque<(SimTime, OnLine)>,
    pub stats: LineStats,
    /// Datagrams offered at the current instant and not yet queued, with their input's id
    /// (the network queues them together, in the arbiter's order: module docs).
    pub arrivals: Vec<(u32, OnLine)>,
    /// The input that goes first at the line's next tie between inputs ([`crate::arbiter`]).
    pub arbiter: u32,
}

/// What [`PacketLine::push`] did with a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pushed {
    /// The line was idle: serialization ends at this instant (call `tx_done` then).
    Started(SimTime),
    /// Queued behind others.
    Queued,
    /// The buffer was full: the datagram was not taken.
    Dropped,
}

impl PacketLine {
    pub fn new(rate: Rate, delay: SimDuration, limit: Option<u32>) -> Self {
        PacketLine {
            rate,
            delay,
            limit,
            queue: VecDeque::new(),
            busy: false,
            pipe: VecDeque::new(),
            stats: LineStats::default(),
            arrivals: Vec::new(),
            arbiter: 0,
        }
    }

    fn tx_time(&self, bytes: u32) -> SimDuration {
        self.rate.tx_time(bytes as u64 * 8)
    }

    /// Offer a datagram at `now`.
    pub fn push(&mut self, now: SimTime, p: OnLine) -> Pushed {
        if self.limit.is_some_and(|l| self.queue.len() as u32 >= l) {
            self.stats.dropped += 1;
            return Pushed::Dropped;
        }
        self.queue.push_back(p);
        if self.busy {
            return Pushed::Queued;
        }
        self.busy = true;
        Pushed::Started(now + self.tx_time(p.bytes))
    }

    /// The datagram at the front finished serializing at `now`: it enters the pipe. Returns
    /// its arrival time and, if another datagram starts, the end of that one's serialization.
    pub fn tx_done(&mut self, now: SimTime) -> (SimTime, Option<SimTime>) {
        let p = self.queue.pop_front().expect("tx_done on an idle line");
        let t = self.tx_time(p.bytes);
        self.stats.sent += 1;
        self.stats.bytes_sent += p.bytes as u64;
        self.stats.busy_ps += t.0;
        let at = now + self.delay;
        self.pipe.push_back((at, p));
        let next = match self.queue.front() {
            Some(n) => Some(now + self.tx_time(n.bytes)),
            None => {
                self.busy = false;
                None
            }
        };
        (at, next)
    }

    /// The datagram at the head of the pipe, if it has arrived by `now`.
    pub fn arrive(&mut self, now: SimTime) -> Option<OnLine> {
        match self.pipe.front() {
            Some(&(at, p)) if at <= now => {
                self.pipe.pop_front();
                Some(p)
            }
            _ => None,
        }
    }

    /// Datagrams waiting, in transmission or propagating.
    pub fn in_flight(&self) -> usize {
        self.queue.len() + self.pipe.len()
    }

    /// Datagrams waiting or in transmission.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(d: u32, bytes: u32) -> OnLine {
        OnLine { datagram: DatagramId(d), bytes, to: NodeId(1) }
    }

    #[test]
    fn serialization_and_propagation_are_exact() {
        // 1,500 bytes at 100 Mb/s = 120 us; 10 us of propagation.
        let mut l = PacketLine::new(Rate::bps(100_000_000), SimDuration::from_micros(10), None);
        let t0 = SimTime::ZERO;
        assert_eq!(l.push(t0, on(0, 1500)), Pushed::Started(t0 + SimDuration::from_micros(120)));
        assert_eq!(l.push(t0, on(1, 500)), Pushed::Queued);
        let t1 = t0 + SimDuration::from_micros(120);
        let (at, next) = l.tx_done(t1);
        assert_eq!(at, t1 + SimDuration::from_micros(10));
        assert_eq!(next, Some(t1 + SimDuration::from_micros(40)), "500 bytes back to back");
        assert_eq!(l.arrive(SimTime::from_ps(at.as_ps() - 1)), None);
        assert_eq!(l.arrive(at).map(|p| p.datagram), Some(DatagramId(0)));
        let (at2, next2) = l.tx_done(t1 + SimDuration::from_micros(40));
        assert_eq!(next2, None);
        assert_eq!(at2, t1 + SimDuration::from_micros(50));
        assert_eq!(l.stats.busy_ps, SimDuration::from_micros(160).0);
        assert_eq!(l.arrive(at2).map(|p| p.datagram), Some(DatagramId(1)));
        assert_eq!(l.in_flight(), 0);
    }

    #[test]
    fn a_full_buffer_drops_and_counts() {
        let mut l = PacketLine::new(Rate::bps(1_000_000), SimDuration::ZERO, Some(2));
        assert!(matches!(l.push(SimTime::ZERO, on(0, 100)), Pushed::Started(_)));
        assert_eq!(l.push(SimTime::ZERO, on(1, 100)), Pushed::Queued);
        assert_eq!(l.push(SimTime::ZERO, on(2, 100)), Pushed::Dropped);
        assert_eq!(l.stats.dropped, 1);
        assert_eq!(l.queued(), 2);
    }
}
