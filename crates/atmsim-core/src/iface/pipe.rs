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
    /// Served ahead (module docs): no event for the end of a serialization.
    pub lazy: bool,
    /// Datagrams waiting or in transmission (event by event).
    queue: VecDeque<OnLine>,
    /// Served ahead: the ends of serialization of the datagrams waiting or in transmission,
    /// with their sizes, in order (the queue as of the last time it was brought up to date).
    ends: VecDeque<(SimTime, u32)>,
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
    /// Served ahead: taken, and it arrives at this instant (serialized and propagated).
    Ahead(SimTime),
    /// The buffer was full: the datagram was not taken.
    Dropped,
}

impl PacketLine {
    pub fn new(rate: Rate, delay: SimDuration, limit: Option<u32>) -> Self {
        PacketLine {
            rate,
            delay,
            limit,
            lazy: false,
            queue: VecDeque::new(),
            ends: VecDeque::new(),
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

    /// Offer a datagram at `now` (event by event).
    pub fn push(&mut self, now: SimTime, p: OnLine) -> Pushed {
        debug_assert!(!self.lazy);
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

    /// Offer a datagram at `now` to a line served ahead (module docs): it is dropped if the
    /// buffer is full, else it is queued behind the datagrams whose serialization has not
    /// ended, and its arrival instant returned. `ended_now` says whether a serialization
    /// ending at `now` has ended for the running event (it comes after that end's place in the
    /// order of the instant); it is asked only if one ends at `now`.
    pub fn push_ahead(&mut self, now: SimTime, p: OnLine, ended_now: impl FnOnce() -> bool) -> Pushed {
        debug_assert!(self.lazy);
        self.settle(now, ended_now);
        if self.limit.is_some_and(|l| self.ends.len() as u32 >= l) {
            self.stats.dropped += 1;
            return Pushed::Dropped;
        }
        let start = self.ends.back().map_or(now, |&(end, _)| end.max(now));
        let end = start + self.tx_time(p.bytes);
        self.ends.push_back((end, p.bytes));
        let at = end + self.delay;
        self.pipe.push_back((at, p));
        Pushed::Ahead(at)
    }

    /// A line served ahead counts the serializations that have ended by `now` (one ending
    /// exactly then only if `ended_now()`; ends are at least a bit time apart, so there is at
    /// most one) and forgets them.
    fn settle(&mut self, now: SimTime, ended_now: impl FnOnce() -> bool) {
        while self.ends.front().is_some_and(|&(end, _)| end < now) {
            self.count_sent();
        }
        if self.ends.front().is_some_and(|&(end, _)| end == now) && ended_now() {
            self.count_sent();
        }
    }

    /// The front serialization of a line served ahead has ended: it leaves the queue.
    fn count_sent(&mut self) {
        let (_, bytes) = self.ends.pop_front().expect("a serialization to count");
        self.stats.sent += 1;
        self.stats.bytes_sent += bytes as u64;
        self.stats.busy_ps += self.tx_time(bytes).0;
    }

    /// The run ends at `until` (every event up to it has run): a line served ahead counts the
    /// serializations ended by then.
    pub fn finish(&mut self, until: SimTime) {
        if self.lazy {
            self.settle(until, || true);
        }
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
        if self.lazy {
            self.pipe.len()
        } else {
            self.queue.len() + self.pipe.len()
        }
    }

    /// Datagrams waiting or in transmission (for a line served ahead: as of the last time it
    /// was brought up to date; [`PacketLine::finish`] at the end of the run).
    pub fn queued(&self) -> usize {
        if self.lazy {
            self.ends.len()
        } else {
            self.queue.len()
        }
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

    /// Arrivals (instant, datagram), drops, counters and final queue of a line offered
    /// `offers` (µs since the last offer, bytes, whether an end of serialization at the same
    /// instant comes after the offer) at 8 Mb/s (a byte a µs, so ends and offers often meet)
    /// with 3 µs of propagation and a buffer of `limit`, until `until_us`; event by event
    /// (`tx_done` at each end) or served ahead.
    fn offered(
        offers: &[(u64, u32, bool)],
        limit: u32,
        until_us: u64,
        lazy: bool,
    ) -> (Vec<(SimTime, u32)>, Vec<u32>, LineStats, usize) {
        let us = SimDuration::from_micros;
        let mut l = PacketLine::new(Rate::bps(8_000_000), us(3), Some(limit));
        l.lazy = lazy;
        let (mut arrivals, mut dropped, mut next_tx) = (Vec::new(), Vec::new(), None::<SimTime>);
        let complete = |l: &mut PacketLine,
                        next_tx: &mut Option<SimTime>,
                        upto: SimTime,
                        incl: bool,
                        arr: &mut Vec<(SimTime, u32)>| {
            while let Some(t) = next_tx.filter(|&t| t < upto || (incl && t == upto)) {
                let (_, next) = l.tx_done(t);
                *next_tx = next;
                arr.extend(std::iter::from_fn(|| l.arrive(SimTime::MAX)).map(|p| (t + us(3), p.datagram.0)));
            }
        };
        let mut now = SimTime::ZERO;
        for (i, &(gap, bytes, before_end)) in offers.iter().enumerate() {
            now += us(gap);
            let p = on(i as u32, bytes);
            let pushed = if lazy {
                l.push_ahead(now, p, || !before_end)
            } else {
                complete(&mut l, &mut next_tx, now, !before_end, &mut arrivals);
                l.push(now, p)
            };
            match pushed {
                Pushed::Ahead(at) => arrivals.push((at, i as u32)),
                Pushed::Started(t) => next_tx = Some(t),
                Pushed::Queued => {}
                Pushed::Dropped => dropped.push(i as u32),
            }
        }
        let until = SimTime::ZERO + us(until_us);
        if lazy {
            l.finish(until);
            // Arrivals served ahead are known at once; compare those by the end, as events would.
            arrivals.retain(|&(at, _)| at <= until + us(3));
        } else {
            complete(&mut l, &mut next_tx, until, true, &mut arrivals);
        }
        (arrivals, dropped, l.stats, l.queued())
    }

    proptest::proptest! {
        /// A line served ahead delivers the same datagrams at the same instants, drops the
        /// same ones, and ends with the same counters and queue as one with an event at every
        /// end of serialization, offers meeting ends on either side of them (DESIGN §2b).
        #[test]
        fn served_ahead_is_the_line_event_by_event(
            offers in proptest::collection::vec((0u64..6, 1u32..6, proptest::bool::ANY), 1..60),
            limit in 1u32..5,
            tail in 0u64..30,
        ) {
            let until = offers.iter().map(|o| o.0).sum::<u64>() + tail;
            let (a1, d1, s1, q1) = offered(&offers, limit, until, false);
            let (a2, d2, s2, q2) = offered(&offers, limit, until, true);
            proptest::prop_assert_eq!(d1, d2);
            proptest::prop_assert_eq!(a1, a2);
            proptest::prop_assert_eq!(s1, s2);
            proptest::prop_assert_eq!(q1, q2);
        }
    }
}
