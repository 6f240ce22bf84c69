//! The event queue: deterministic ordering, cancellation, and the batching horizon.
//!
//! Owns: [`EventQueue`], a monotone priority queue of small `Copy` events keyed on
//! `(time, insertion sequence)`, kept as a radix heap.
//!
//! **Two structures.** While at most a few hundred events are pending (one TCP connection, a
//! few VCs) a binary heap is fastest: it stays in L1 cache and a pop is a handful of
//! comparisons. With thousands pending (a dumbbell of 500–2000 flows) its O(log n) pops dominate,
//! and the queue moves its events into a radix heap (above 256 pending; back below 64).
//!
//! **Why a radix heap.** A discrete-event simulation never schedules into the past, and an
//! event scheduled *now* gets a larger sequence number than any event already popped, so every
//! key pushed is at least the last key popped: the queue is *monotone*. A radix heap exploits
//! that (Ahuja, Mehlhorn, Orlin & Tarjan 1990): keys live in 129 buckets by the highest bit in
//! which they differ from the last key popped; a push is an append to one bucket (O(1)); a pop
//! empties only the lowest non-empty bucket into lower ones, so each entry moves at most once
//! per bit of the key, and in practice a few times. A binary heap pays O(log n) per operation,
//! which was 33–40 % of the profile with thousands of pending events (issue 13). The order is
//! exactly the binary heap's, `(time, seq)` (tested against a reference heap), so results are
//! bit-identical whichever structure holds the events.
//!
//! **Ordering guarantee.** Events are delivered in non-decreasing time; events scheduled for
//! the same instant are delivered in the order they were scheduled (first in, first out).
//! The key is one `u128` (`time << 64 | seq`), so the order is total and identical on every
//! machine — the basis of atmsim's bit-for-bit determinism.
//!
//! **Tie order.** The default above ([`TieOrder::Fifo`], DESIGN §2) is one convention among
//! several a modeller could defend: at one instant, which of two simultaneous cell arrivals
//! takes the last buffer place is decided by scheduling history, not by physics. To test how
//! much a result depends on it, a run may order simultaneous events last-scheduled first
//! ([`TieOrder::Lifo`]) or by a seeded pseudo-random permutation of their sequence numbers
//! ([`TieOrder::Random`]) — `simulation.tie_order`. Causality holds in every order: an event
//! scheduled for *now* is only queued once its cause has run. Those keys are not monotone, so
//! the queue keeps them in the binary heap whatever the population.
//!
//! **Cancellation.** [`EventQueue::schedule`] returns an [`EventKey`]; [`EventQueue::cancel`]
//! marks it dead and the queue drops it when it reaches the front. Cancellation is rare in
//! atmsim (TCP timers are tick counters, as in BSD), so the common path pays one
//! `is_empty()` test per pop.
//!
//! **Batching horizon.** A busy server (an output port, a link) whose next step happens
//! strictly before every pending event may take that step inline instead of scheduling an
//! event: nothing can change its decision in between, so the result is identical to
//! event-by-event execution. [`EventQueue::horizon`] gives the bound to compare with. Ties
//! are *not* taken inline, because an event already queued for the same instant must run
//! first (it was scheduled earlier).

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

/// Handle of a scheduled event, used to cancel it: the tie-breaking half of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventKey(u64);

/// How events scheduled for the same instant are ordered (module docs, "Tie order").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieOrder {
    /// In the order they were scheduled (the default; DESIGN §2).
    Fifo,
    /// Last scheduled first.
    Lifo,
    /// A pseudo-random permutation of the scheduling order, fixed by this salt (drawn from
    /// the run's seed).
    Random(u64),
}

/// The tie-breaking half of an event's key is a bijection of its sequence number `seq` (so
/// keys stay unique): `seq ^ xor`, then mixed if `mix`. FIFO: `xor` 0; LIFO: `xor` all ones;
/// random: `xor` the salt, mixed by SplitMix64's output function.
#[derive(Clone, Copy)]
struct TieKey {
    xor: u64,
    mix: bool,
}

impl TieKey {
    fn of(t: TieOrder) -> Self {
        match t {
            TieOrder::Fifo => TieKey { xor: 0, mix: false },
            TieOrder::Lifo => TieKey { xor: u64::MAX, mix: false },
            TieOrder::Random(salt) => TieKey { xor: salt, mix: true },
        }
    }

    #[inline]
    fn tie(self, seq: u64) -> u64 {
        let x = seq ^ self.xor;
        if self.mix {
            mixed(x)
        } else {
            x
        }
    }
}

/// Kept out of line so [`EventQueue::schedule`] stays small enough to be inlined.
#[inline(never)]
fn mixed(x: u64) -> u64 {
    crate::rng::splitmix64(x)
}

#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest key first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// The queue moves its events into the radix heap when more than this many are pending...
const TO_RADIX: usize = 256;
/// ...and back into the binary heap when fewer than this many are (hysteresis: a switch costs
/// one pass over the pending events).
const TO_HEAP: usize = 64;

/// Number of buckets: bucket 0 holds the key equal to the last one popped; bucket `b ≥ 1` the
/// keys whose highest bit differing from it is bit `b − 1`.
const BUCKETS: usize = 129;

/// Deterministic future-event list.
pub struct EventQueue<E: Copy> {
    /// The events while few are pending (`radix_on` false).
    heap: BinaryHeap<Entry<E>>,
    /// The radix heap holds the events instead.
    radix_on: bool,
    buckets: Vec<Vec<Entry<E>>>,
    /// Smallest key in each bucket (meaningful while the bucket is non-empty).
    bucket_min: [u128; BUCKETS],
    /// Bit `b` set iff bucket `b + 1` is non-empty (bucket 0 is `buckets[0]`).
    occupied: u128,
    /// The last key popped (every key pushed is at least this).
    last: u128,
    len: usize,
    seq: u64,
    cancelled: HashSet<u64>,
    popped: u64,
    ties: TieOrder,
    tie_key: TieKey,
    /// Keys never go below the last popped (FIFO ties): the radix heap may hold them.
    monotone: bool,
}

#[inline]
fn bucket_of(key: u128, last: u128) -> usize {
    (128 - (key ^ last).leading_zeros()) as usize
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_ties(TieOrder::Fifo)
    }

    /// A queue ordering simultaneous events by `ties`.
    pub fn with_ties(ties: TieOrder) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            radix_on: false,
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            bucket_min: [u128::MAX; BUCKETS],
            occupied: 0,
            last: 0,
            len: 0,
            seq: 0,
            cancelled: HashSet::new(),
            popped: 0,
            ties,
            tie_key: TieKey::of(ties),
            monotone: ties == TieOrder::Fifo,
        }
    }

    #[inline]
    fn push_entry(&mut self, e: Entry<E>) {
        let b = bucket_of(e.key, self.last);
        if b == 0 {
            self.buckets[0].push(e);
            return;
        }
        let bucket = &mut self.buckets[b];
        if bucket.is_empty() {
            self.occupied |= 1u128 << (b - 1);
            self.bucket_min[b] = e.key;
        } else if e.key < self.bucket_min[b] {
            self.bucket_min[b] = e.key;
        }
        bucket.push(e);
    }

    /// Schedule `ev` at `time`. Events at equal times run in scheduling order. `time` must not
    /// be earlier than the last event popped (a simulation never schedules into the past).
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, ev: E) -> EventKey {
        let seq = self.seq;
        self.seq += 1;
        let tie = self.tie_key.tie(seq);
        let key = ((time.0 as u128) << 64) | tie as u128;
        debug_assert!(time.0 >= (self.last >> 64) as u64, "an event scheduled before the last one popped");
        debug_assert!(!self.monotone || key >= self.last, "FIFO keys are monotone");
        self.len += 1;
        if self.radix_on {
            self.push_entry(Entry { key, ev });
        } else {
            self.heap.push(Entry { key, ev });
            if self.len > TO_RADIX && self.monotone {
                self.spill_to_radix();
            }
        }
        EventKey(tie)
    }

    /// Cancel a scheduled event that has not run yet.
    pub fn cancel(&mut self, key: EventKey) {
        self.cancelled.insert(key.0);
    }

    /// Move every event from the binary heap into the radix heap (`last` is the last key popped,
    /// at most every pending key).
    #[cold]
    fn spill_to_radix(&mut self) {
        self.radix_on = true;
        let heap = std::mem::take(&mut self.heap);
        let mut v = heap.into_vec();
        for e in v.drain(..) {
            self.push_entry(e);
        }
        self.heap = BinaryHeap::from(v);
    }

    /// Move every event from the radix heap back into the binary heap.
    #[cold]
    fn gather_into_heap(&mut self) {
        self.radix_on = false;
        let mut v = std::mem::take(&mut self.heap).into_vec();
        for b in 0..BUCKETS {
            v.append(&mut self.buckets[b]);
        }
        self.occupied = 0;
        self.heap = BinaryHeap::from(v);
    }

    /// Move the smallest key into bucket 0 (making it `last`), if bucket 0 is empty.
    #[inline]
    fn settle(&mut self) -> bool {
        if !self.buckets[0].is_empty() {
            return true;
        }
        if self.occupied == 0 {
            return false;
        }
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1u128 << (b - 1));
        self.last = self.bucket_min[b];
        if self.buckets[b].len() == 1 {
            // The common case with few pending events: the lone entry is the minimum.
            let e = self.buckets[b].pop().expect("non-empty");
            self.buckets[0].push(e);
            return true;
        }
        let mut moving = std::mem::take(&mut self.buckets[b]);
        for e in moving.drain(..) {
            self.push_entry(e);
        }
        // Give the (empty) vector back to its bucket so its capacity is reused.
        self.buckets[b] = moving;
        true
    }

    /// Remove and return the earliest live event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        loop {
            let e = if self.radix_on {
                if !self.settle() {
                    return None;
                }
                let e = self.buckets[0].pop().expect("settled");
                if self.len <= TO_HEAP {
                    self.gather_into_heap();
                }
                e
            } else {
                let e = self.heap.pop()?;
                self.last = e.key;
                e
            };
            self.len -= 1;
            if !self.cancelled.is_empty() && self.cancelled.remove(&(e.key as u64)) {
                continue;
            }
            self.popped += 1;
            return Some((SimTime((e.key >> 64) as u64), e.ev));
        }
    }

    /// Time of the earliest pending event (cancelled ones included: a conservative bound).
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        if !self.radix_on {
            return self.heap.peek().map(|e| SimTime((e.key >> 64) as u64));
        }
        let key = if let Some(e) = self.buckets[0].last() {
            e.key
        } else if self.occupied != 0 {
            self.bucket_min[self.occupied.trailing_zeros() as usize + 1]
        } else {
            return None;
        };
        Some(SimTime((key >> 64) as u64))
    }

    /// The batching horizon: a server may take a step at time `t` inline iff
    /// `t < horizon(until)`, where `until` is the end of the run (inclusive).
    #[inline]
    pub fn horizon(&self, until: SimTime) -> SimTime {
        let end = SimTime(until.0.saturating_add(1));
        match self.peek_time() {
            Some(t) if t < end => t,
            _ => end,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    /// How simultaneous events are ordered.
    pub fn ties(&self) -> TieOrder {
        self.ties
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Events delivered so far (cancelled ones excluded).
    pub fn events_popped(&self) -> u64 {
        self.popped
    }
}

/// Values too large for an event, parked until their event fires: an event carries the
/// slot's index (a `u32`). Freed slots are reused, so steady state allocates nothing.
#[derive(Debug)]
pub struct Slots<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slots<T> {
    /// Park `v`; returns its slot.
    pub fn put(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = Some(v);
                i
            }
            None => {
                self.items.push(Some(v));
                (self.items.len() - 1) as u32
            }
        }
    }

    /// What slot `i` holds.
    pub fn get(&self, i: u32) -> &T {
        self.items[i as usize].as_ref().expect("an empty slot")
    }

    /// Take back what slot `i` holds (once).
    pub fn take(&mut self, i: u32) -> T {
        let v = self.items[i as usize].take().expect("a slot taken twice");
        self.free.push(i);
        v
    }

    /// Slots in use.
    pub fn len(&self) -> usize {
        self.items.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_run_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 'b');
        q.schedule(SimTime(5), 'a');
        q.schedule(SimTime(10), 'c');
        q.schedule(SimTime(10), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn cancelled_event_is_never_delivered() {
        let mut q = EventQueue::new();
        let k = q.schedule(SimTime(1), 1);
        q.schedule(SimTime(2), 2);
        q.cancel(k);
        assert_eq!(q.pop(), Some((SimTime(2), 2)));
        assert_eq!(q.pop(), None);
        assert_eq!(q.events_popped(), 1);
    }

    #[test]
    fn horizon_is_next_event_or_just_past_the_end() {
        let mut q: EventQueue<u8> = EventQueue::new();
        assert_eq!(q.horizon(SimTime(100)), SimTime(101));
        q.schedule(SimTime(40), 0);
        assert_eq!(q.horizon(SimTime(100)), SimTime(40));
        assert_eq!(q.horizon(SimTime(20)), SimTime(21));
    }

    /// The radix heap against a reference binary heap on (time, seq), with pushes interleaved
    /// with pops the way a simulation makes them (never before the last popped time).
    #[test]
    fn interleaved_pushes_and_pops_follow_the_reference_order() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut now = 0u64;
        let mut seq = 0u64;
        for step in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pushes = if step % 7 == 0 { 3 } else { 1 };
            for _ in 0..pushes {
                // Mostly near-future events, some far (timers), some at `now` exactly.
                let dt = match x % 10 {
                    0 => 0,
                    1 => x % (1 << 40),
                    _ => x % 3_000_000,
                };
                q.schedule(SimTime(now + dt), seq);
                reference.push(Reverse((now + dt, seq)));
                seq += 1;
                x = x.rotate_left(7);
            }
            if step % 3 != 2 {
                let got = q.pop();
                let want = reference.pop().map(|Reverse((t, s))| (SimTime(t), s));
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t.0;
                }
                assert_eq!(q.peek_time(), reference.peek().map(|Reverse((t, _))| SimTime(*t)));
            }
        }
        while let Some(want) = reference.pop() {
            assert_eq!(q.pop(), Some((SimTime(want.0 .0), want.0 .1)));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    /// The population swings across both thresholds many times: every switch between the
    /// binary heap and the radix heap keeps the order.
    #[test]
    fn switching_between_heap_and_radix_keeps_the_order() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let (mut x, mut now, mut seq) = (12345u64, 0u64, 0u64);
        for _ in 0..30 {
            for _ in 0..(TO_RADIX + 150) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let t = now + (x >> 33) % 5_000_000;
                q.schedule(SimTime(t), seq);
                reference.push(Reverse((t, seq)));
                seq += 1;
            }
            assert!(q.radix_on);
            while q.len() > 10 {
                let want = reference.pop().map(|Reverse((t, s))| (SimTime(t), s));
                let got = q.pop();
                assert_eq!(got, want);
                now = got.unwrap().0 .0;
            }
            assert!(!q.radix_on);
        }
    }

    /// Last-in-first-out ties: simultaneous events come out newest first, times still in order,
    /// and an event scheduled for the current instant runs after its cause (it did not exist
    /// before) but before the older simultaneous ones.
    #[test]
    fn lifo_ties_reverse_the_scheduling_order_within_an_instant() {
        let mut q = EventQueue::with_ties(TieOrder::Lifo);
        for (t, e) in [(10u64, 'a'), (5, 'b'), (10, 'c'), (10, 'd'), (5, 'e')] {
            q.schedule(SimTime(t), e);
        }
        assert_eq!(q.pop(), Some((SimTime(5), 'e')));
        assert_eq!(q.pop(), Some((SimTime(5), 'b')));
        assert_eq!(q.pop(), Some((SimTime(10), 'd')));
        q.schedule(SimTime(10), 'f');
        let rest: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(rest, ['f', 'c', 'a']);
    }

    /// Random ties: each instant's events come out in a permutation fixed by the salt; the
    /// same salt gives the same order, another salt another; populations far above the radix
    /// threshold stay ordered (they are kept in the binary heap).
    #[test]
    fn random_ties_are_a_seeded_permutation_within_each_instant() {
        let order = |salt: u64| -> Vec<(u64, u32)> {
            let mut q = EventQueue::with_ties(TieOrder::Random(salt));
            for i in 0..2000u32 {
                q.schedule(SimTime(u64::from(i % 7)), i);
            }
            assert!(!q.radix_on);
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect()
        };
        let a = order(1);
        assert_eq!(a, order(1));
        assert_ne!(a, order(2));
        assert!(a.windows(2).all(|w| w[0].0 <= w[1].0), "times in order");
        let mut ids: Vec<u32> = a.iter().map(|x| x.1).collect();
        // Not the scheduling order within an instant...
        assert!(a.windows(2).any(|w| w[0].0 == w[1].0 && w[0].1 > w[1].1));
        // ...but every event exactly once.
        ids.sort_unstable();
        assert_eq!(ids, (0..2000).collect::<Vec<_>>());
    }

    proptest::proptest! {
        #[test]
        fn pops_are_sorted_by_time_then_insertion(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(SimTime(*t), i);
            }
            let mut last: Option<(SimTime, usize)> = None;
            while let Some((t, i)) = q.pop() {
                proptest::prop_assert_eq!(SimTime(times[i]), t);
                if let Some((lt, li)) = last {
                    proptest::prop_assert!(lt < t || (lt == t && li < i));
                }
                last = Some((t, i));
            }
        }
    }
}
