//! The event queue: the model's order of simultaneous events, cancellation, and the batching
//! horizon.
//!
//! Owns: [`EventQueue`], a monotone priority queue of small `Copy` events, kept as a binary heap
//! or, with many pending, a timing wheel (`wheel.rs`); [`Ranked`], the trait by which an event
//! tells the queue its place within an instant.
//!
//! **Order (DESIGN §2b).** Events are delivered in non-decreasing time. Within one instant the
//! *model* orders them, not the engine: the key of an event is
//!
//! `(time, generation, kind, entity, tie)`
//!
//! - *kind* and *entity* come from the event ([`Ranked::rank`]): the model's phases within an
//!   instant (for the network: probes, then servers' completions, then arrivals, then the ports'
//!   admission of simultaneous arrivals, then protocol and application timers — `net` module
//!   docs), and within a kind the index of the entity the event belongs to (a port, a link, a
//!   connection endpoint);
//! - the *generation* is causal: an event scheduled for the current instant with a rank above
//!   the running event's joins the running event's generation (it still runs after it); one
//!   with a rank at or below it goes to the next generation, after every event already pending
//!   for this instant. An event scheduled for a later instant is of generation 0 there;
//! - the *tie* is the engine's insertion sequence, the last tie-break: it orders only events of
//!   the same time, generation, kind and entity — one entity's own events, which do not
//!   interact with each other. `simulation.tie_order` permutes it ([`TieOrder`]: first in
//!   first out, last in first out, or a seeded permutation), and no result may depend on it
//!   (tested on every shipped scenario).
//!
//! Every key pushed is at least the key of the running event (a later instant, a later
//! generation, or a higher rank in the same generation), so the queue is *monotone* under every
//! tie order, which the timing wheel needs.
//!
//! **Layout.** One `u128`: time 64 bits, generation 8, rank 28 (kind 5, entity 23), tie 28.
//! Entities beyond 2^23 share ranks modulo 2^23 (their order falls to the tie); ties wrap after
//! 2^28 events, which is harmless because an instant's events of one rank are all pushed before
//! the first of them is popped. More than 255 generations in one instant is a zero-delay loop:
//! the queue flags it ([`EventQueue::generation_overflow`]) and the run stops with an error.
//!
//! **Two structures.** While at most a few hundred events are pending (one TCP connection, a
//! few VCs) a binary heap is fastest: it stays in L1 cache and a pop is a handful of
//! comparisons. With thousands pending (a dumbbell of 500–2000 flows, Mah's internetwork of
//! 1,212 hosts) its O(log n) pops dominate, and the queue moves its events into a timing wheel
//! for the next 68.7 ms with a binary heap for the rest (above 256 pending; back below 64;
//! `wheel.rs` says why a wheel). Either gives exactly the keys' order (tested against a
//! reference heap), so results are bit-identical whichever structure holds the events.
//!
//! **Cancellation.** [`EventQueue::schedule`] returns an [`EventKey`]; [`EventQueue::cancel`]
//! marks it dead and the queue drops it when it reaches the front. Cancellation is rare in
//! atmsim (TCP timers are tick counters, as in BSD), so the common path pays one
//! `is_empty()` test per pop.
//!
//! **Batching horizon.** A busy server (an output port, a link) may take its next step inline
//! instead of scheduling an event when that step's key would come before every pending event's
//! ([`EventQueue::enter_inline`]): it is the event the queue would deliver next, so the result
//! is identical to event-by-event execution.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use wheel::Wheel;

mod wheel;

/// An event's place within an instant: `kind << ENTITY_BITS | entity` (module docs, "Order").
pub trait Ranked {
    /// The rank: the kind (below `1 << KIND_BITS`) in the high bits, the entity index (taken
    /// modulo `1 << ENTITY_BITS`) in the low ones. Lower ranks run first.
    fn rank(&self) -> u32;
}

/// Bits of the entity index in a rank.
pub const ENTITY_BITS: u32 = 23;
/// Bits of the kind in a rank.
pub const KIND_BITS: u32 = 5;
const RANK_BITS: u32 = ENTITY_BITS + KIND_BITS;
const GEN_BITS: u32 = 8;
const TIE_BITS: u32 = 28;
const TIE_MASK: u64 = (1 << TIE_BITS) - 1;
const MAX_GEN: u64 = (1 << GEN_BITS) - 1;

/// A rank from a kind and an entity index (the index taken modulo `1 << ENTITY_BITS`).
#[inline(always)]
pub const fn rank(kind: u32, entity: u32) -> u32 {
    kind << ENTITY_BITS | (entity & ((1 << ENTITY_BITS) - 1))
}

/// Handle of a scheduled event, used to cancel it: its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventKey(u128);

/// How the engine orders events of the same time, generation, kind and entity (the last
/// tie-break; module docs, "Order").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieOrder {
    /// In the order they were scheduled (the default).
    Fifo,
    /// Last scheduled first.
    Lifo,
    /// A pseudo-random permutation of the scheduling order, fixed by this salt (drawn from
    /// the run's seed).
    Random(u64),
}

impl TieOrder {
    /// Its name in scenarios and summaries (`simulation.tie_order`).
    pub const fn name(self) -> &'static str {
        match self {
            TieOrder::Fifo => "fifo",
            TieOrder::Lifo => "lifo",
            TieOrder::Random(_) => "random",
        }
    }
}

/// The tie is a bijection of the low [`TIE_BITS`] of the sequence number: `seq ^ xor`, then
/// mixed if `mix`. FIFO: `xor` 0; LIFO: `xor` all ones; random: `xor` the salt, mixed by an
/// xorshift-multiply permutation of the tie's bits.
#[derive(Clone, Copy)]
struct TieKey {
    xor: u64,
    mix: bool,
}

impl TieKey {
    fn of(t: TieOrder) -> Self {
        match t {
            TieOrder::Fifo => TieKey { xor: 0, mix: false },
            TieOrder::Lifo => TieKey { xor: TIE_MASK, mix: false },
            TieOrder::Random(salt) => TieKey { xor: salt & TIE_MASK, mix: true },
        }
    }

    #[inline]
    fn tie(self, seq: u64) -> u64 {
        let x = (seq ^ self.xor) & TIE_MASK;
        if self.mix {
            mixed(x)
        } else {
            x
        }
    }
}

/// A permutation of `0..2^TIE_BITS` (each step is invertible modulo 2^TIE_BITS). Kept out of
/// line so [`EventQueue::schedule`] stays small enough to be inlined.
#[inline(never)]
fn mixed(mut x: u64) -> u64 {
    for _ in 0..2 {
        x ^= x >> 15;
        x = x.wrapping_mul(0x2C1B_3C6D) & TIE_MASK;
        x ^= x >> 12;
        x = x.wrapping_mul(0x297A_2D39) & TIE_MASK;
    }
    x
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

/// The queue moves its events into the wheel when more than this many are pending...
const TO_WHEEL: usize = 256;
/// ...and back into the binary heap when fewer than this many are (hysteresis: a switch costs
/// one pass over the pending events).
const TO_HEAP: usize = 64;

/// Deterministic future-event list.
pub struct EventQueue<E: Copy> {
    /// The events while few are pending (`wheel_on` false).
    heap: BinaryHeap<Entry<E>>,
    /// The wheel holds the events instead.
    wheel_on: bool,
    wheel: Wheel<E>,
    /// The last key popped (every key pushed is at least this).
    last: u128,
    /// Time, generation and rank of the running event (popped, or taken inline), tie bits
    /// clear: what the generation of an event scheduled now is computed against. Before the
    /// first event it is 0: the build runs as time 0, generation 0, rank 0 (so rank 0 is best
    /// left unused: an event of rank 0 scheduled by the build for time 0 is in generation 1).
    cur: u128,
    len: usize,
    seq: u64,
    cancelled: HashSet<u128>,
    popped: u64,
    ties: TieOrder,
    tie_key: TieKey,
    /// More than [`MAX_GEN`] generations were needed in one instant (a zero-delay loop).
    gen_overflow: bool,
}

/// The key without its tie bits: time, generation and rank.
#[inline(always)]
fn prefix(key: u128) -> u128 {
    key & !(TIE_MASK as u128)
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

    /// A queue ordering an entity's simultaneous events by `ties`.
    pub fn with_ties(ties: TieOrder) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            wheel_on: false,
            wheel: Wheel::new(),
            last: 0,
            cur: 0,
            len: 0,
            seq: 0,
            cancelled: HashSet::new(),
            popped: 0,
            ties,
            tie_key: TieKey::of(ties),
            gen_overflow: false,
        }
    }

    /// The generation an event of `rank` scheduled at `time` gets (module docs, "Order"),
    /// unclamped.
    #[inline(always)]
    fn generation(&self, time: SimTime, rank: u32) -> u64 {
        let cur = self.cur;
        if time.0 != (cur >> 64) as u64 {
            return 0;
        }
        let low = (cur as u64) >> TIE_BITS;
        let cur_rank = low & ((1 << RANK_BITS) - 1);
        (low >> RANK_BITS) + (rank as u64 <= cur_rank) as u64
    }

    /// Time, generation and rank an event of `rank` for `time` would get, without scheduling
    /// it: a place in the order (module docs) for work done later without an event. Scheduled
    /// by the running event (`by_running`), its generation follows the rule of "Order";
    /// scheduled at an earlier instant (work a lazy server carries out late, at the place it
    /// had), it is of generation 0 at `time`.
    #[inline]
    pub fn prefix_of(&self, time: SimTime, rank: u32, by_running: bool) -> u128 {
        let gen = if by_running { self.generation(time, rank).min(MAX_GEN) } else { 0 };
        ((time.0 as u128) << 64) | (((gen << RANK_BITS | rank as u64) << TIE_BITS) as u128)
    }

    /// Time, generation and rank of the running event: its place in the order.
    #[inline]
    pub fn running_prefix(&self) -> u128 {
        self.cur
    }

    /// Time, generation and rank of an event of `rank` scheduled now for `time`.
    #[inline(always)]
    fn prefix_for(&mut self, time: SimTime, rank: u32) -> u128 {
        debug_assert!(time.0 >= (self.cur >> 64) as u64, "an event scheduled before the running one");
        debug_assert!(rank < 1 << RANK_BITS);
        let mut gen = self.generation(time, rank);
        if gen > MAX_GEN {
            self.gen_overflow = true;
            gen = MAX_GEN;
        }
        ((time.0 as u128) << 64) | (((gen << RANK_BITS | rank as u64) << TIE_BITS) as u128)
    }

    /// Schedule `ev` at `time` (not before the running event's time). Its place among the
    /// events of that instant is the model's (module docs, "Order").
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, ev: E) -> EventKey
    where
        E: Ranked,
    {
        let p = self.prefix_for(time, ev.rank());
        let seq = self.seq;
        self.seq += 1;
        let key = p | self.tie_key.tie(seq) as u128;
        debug_assert!(key >= self.cur || self.gen_overflow, "keys are monotone");
        self.len += 1;
        if self.wheel_on {
            self.wheel.push(Entry { key, ev });
        } else {
            self.heap.push(Entry { key, ev });
            if self.len > TO_WHEEL {
                self.spill_to_wheel();
            }
        }
        EventKey(key)
    }

    /// Whether some pending event would run before an event of `rank` scheduled now for the
    /// current instant.
    #[inline]
    pub fn pending_before(&self, rank: u32) -> bool {
        let Some(k) = self.peek_key() else { return false };
        let now = (self.cur >> 64) as u64;
        if (k >> 64) as u64 > now {
            return false; // the common case: nothing else at this instant
        }
        let gen = self.generation(SimTime(now), rank).min(MAX_GEN);
        let p = ((now as u128) << 64) | (((gen << RANK_BITS | rank as u64) << TIE_BITS) as u128);
        prefix(k) < p
    }

    /// The batching rule: a step at `time` of `rank` that the queue would deliver next — its
    /// key before every pending event's, `time` at most `until` — may run inline instead of
    /// being scheduled. If so it becomes the running event and true is returned.
    #[inline]
    pub fn enter_inline(&mut self, time: SimTime, rank: u32, until: SimTime) -> bool {
        if time > until {
            return false;
        }
        let next = self.peek_key();
        if next.is_some_and(|k| ((k >> 64) as u64) < time.0) {
            return false; // the common case: something pending at an earlier instant
        }
        let p = self.prefix_for(time, rank);
        if next.is_some_and(|k| prefix(k) <= p) {
            return false;
        }
        self.cur = p;
        true
    }

    /// The key prefix (time, generation, rank; kernel module docs) an event of `rank` scheduled
    /// now for the current instant would get: for work the caller runs later in this instant
    /// without an event, at that point of the order ([`EventQueue::enter`]).
    #[inline]
    pub fn prefix_now(&mut self, rank: u32) -> u128 {
        self.prefix_for(SimTime((self.cur >> 64) as u64), rank)
    }

    /// Prefix of the earliest pending event (cancelled ones included).
    #[inline]
    pub fn next_prefix(&self) -> Option<u128> {
        self.peek_key().map(prefix)
    }

    /// Run, without an event, the work the caller placed at `p` ([`EventQueue::prefix_now`]):
    /// it becomes the running event. `p` must come before every pending event.
    #[inline]
    pub fn enter(&mut self, p: u128) {
        debug_assert!(p >= self.cur && self.next_prefix().is_none_or(|n| p < n));
        self.cur = p;
    }

    /// The instant of the running event: no event may be scheduled before it.
    #[inline]
    pub fn running_time(&self) -> SimTime {
        SimTime((self.cur >> 64) as u64)
    }

    /// More than 255 generations of events were needed at one instant (a zero-delay loop);
    /// the order is no longer the model's from then on.
    pub fn generation_overflow(&self) -> bool {
        self.gen_overflow
    }

    /// Cancel a scheduled event that has not run yet.
    pub fn cancel(&mut self, key: EventKey) {
        self.cancelled.insert(key.0);
    }

    /// Move every event from the binary heap into the wheel (`last` is the last key popped, at
    /// most every pending key).
    #[cold]
    fn spill_to_wheel(&mut self) {
        self.wheel_on = true;
        self.wheel.start(self.last);
        let mut v = std::mem::take(&mut self.heap).into_vec();
        for e in v.drain(..) {
            self.wheel.push(e);
        }
        self.heap = BinaryHeap::from(v);
    }

    /// Move every event from the wheel back into the binary heap.
    #[cold]
    fn gather_into_heap(&mut self) {
        self.wheel_on = false;
        let mut v = std::mem::take(&mut self.heap).into_vec();
        self.wheel.drain_into(&mut v);
        self.heap = BinaryHeap::from(v);
    }

    /// Remove and return the earliest live event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        loop {
            let e = if self.wheel_on {
                self.pop_wheel()?
            } else {
                let e = self.heap.pop()?;
                self.last = e.key;
                e
            };
            self.len -= 1;
            if !self.cancelled.is_empty() && self.cancelled.remove(&e.key) {
                continue;
            }
            self.cur = prefix(e.key);
            self.popped += 1;
            return Some((SimTime((e.key >> 64) as u64), e.ev));
        }
    }

    /// [`EventQueue::pop`]'s step while the wheel holds the events, out of line: the binary
    /// heap's pop stays inline in the run loop.
    #[inline(never)]
    fn pop_wheel(&mut self) -> Option<Entry<E>> {
        let e = self.wheel.pop()?;
        self.last = e.key;
        if self.len <= TO_HEAP {
            self.gather_into_heap();
        }
        Some(e)
    }

    /// Key of the earliest pending event (cancelled ones included).
    #[inline]
    fn peek_key(&self) -> Option<u128> {
        if !self.wheel_on {
            return self.heap.peek().map(|e| e.key);
        }
        self.wheel.peek()
    }

    /// Time of the earliest pending event (cancelled ones included: a conservative bound).
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.peek_key().map(|k| SimTime((k >> 64) as u64))
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

    impl Ranked for char {
        fn rank(&self) -> u32 {
            0
        }
    }
    impl Ranked for u64 {
        fn rank(&self) -> u32 {
            0
        }
    }
    impl Ranked for usize {
        fn rank(&self) -> u32 {
            0
        }
    }
    impl Ranked for i32 {
        fn rank(&self) -> u32 {
            0
        }
    }

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

    /// A step taken inline must be the event the queue would deliver next.
    #[test]
    fn a_step_is_taken_inline_only_before_every_pending_event() {
        let mut q: EventQueue<Ev> = EventQueue::new();
        assert!(q.enter_inline(SimTime(100), rank(3, 0), SimTime(100)), "empty queue, within the run");
        assert!(!q.enter_inline(SimTime(101), rank(3, 0), SimTime(100)), "past the end of the run");
        q.schedule(SimTime(140), Ev(2, 0, 'a'));
        assert!(!q.enter_inline(SimTime(150), rank(1, 0), SimTime(1000)), "a later instant");
        assert!(!q.enter_inline(SimTime(140), rank(2, 0), SimTime(1000)), "the same rank: not before it");
        assert!(q.enter_inline(SimTime(140), rank(1, 9), SimTime(1000)), "a lower rank at that instant");
        // Now running at (140, rank 1): the pending 'a' (rank 2) is in this generation.
        assert!(!q.pending_before(rank(2, 0)));
        assert!(q.pending_before(rank(2, 1)));
        assert_eq!(q.pop(), Some((SimTime(140), Ev(2, 0, 'a'))));
    }

    /// The queue against a reference binary heap on (time, seq), with pushes interleaved with
    /// pops the way a simulation makes them (never before the last popped time); `dt` draws
    /// how far ahead of the last popped time each push lands.
    fn follows_the_reference_order(dt: impl Fn(u64) -> u64) {
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
                let t = now + dt(x);
                q.schedule(SimTime(t), seq);
                reference.push(Reverse((t, seq)));
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
        assert!(q.wheel_on);
        while let Some(want) = reference.pop() {
            assert_eq!(q.pop(), Some((SimTime(want.0 .0), want.0 .1)));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }

    /// Mostly events a few microseconds ahead (most in the running slot of the wheel), some far
    /// (timers, past the wheel), some at the last popped time exactly.
    #[test]
    fn interleaved_pushes_and_pops_follow_the_reference_order() {
        follows_the_reference_order(|x| match x % 10 {
            0 => 0,
            1 => x % (1 << 40),
            _ => x % 3_000_000,
        });
    }

    /// Events spread over every slot of the wheel and past its end, on slot boundaries and
    /// one picosecond either side of them: the wheel wraps around many times.
    #[test]
    fn pushes_across_the_whole_wheel_follow_the_reference_order() {
        const SLOT: u64 = 1 << 26;
        follows_the_reference_order(|x| match x % 8 {
            0 => (x >> 8) % (1200 * SLOT),
            1 => (x >> 8) % 1200 * SLOT,
            2 => ((x >> 8) % 1200 * SLOT).saturating_sub(1),
            3 => (x >> 8) % 1200 * SLOT + 1,
            4 => (x >> 8) % SLOT,
            5 => 0,
            _ => (x >> 8) % (40 * SLOT),
        });
    }

    /// The population swings across both thresholds many times: every switch between the
    /// binary heap and the wheel keeps the order.
    #[test]
    fn switching_between_heap_and_wheel_keeps_the_order() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let (mut x, mut now, mut seq) = (12345u64, 0u64, 0u64);
        for _ in 0..30 {
            for _ in 0..(TO_WHEEL + 150) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let t = now + (x >> 33) % 5_000_000;
                q.schedule(SimTime(t), seq);
                reference.push(Reverse((t, seq)));
                seq += 1;
            }
            assert!(q.wheel_on);
            while q.len() > 10 {
                let want = reference.pop().map(|Reverse((t, s))| (SimTime(t), s));
                let got = q.pop();
                assert_eq!(got, want);
                now = got.unwrap().0 .0;
            }
            assert!(!q.wheel_on);
        }
    }

    /// A test event: kind, entity and a label.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Ev(u32, u32, char);
    impl Ranked for Ev {
        fn rank(&self) -> u32 {
            rank(self.0, self.1)
        }
    }

    fn drain(q: &mut EventQueue<Ev>) -> Vec<char> {
        std::iter::from_fn(|| q.pop().map(|(_, e)| e.2)).collect()
    }

    /// Within an instant the rank decides, whatever the scheduling order and tie order: kind
    /// first, then entity.
    #[test]
    fn an_instant_is_ordered_by_kind_then_entity_under_every_tie_order() {
        for ties in [TieOrder::Fifo, TieOrder::Lifo, TieOrder::Random(7)] {
            let mut q = EventQueue::with_ties(ties);
            for e in [Ev(2, 5, 'd'), Ev(1, 9, 'b'), Ev(2, 1, 'c'), Ev(1, 3, 'a'), Ev(1, 9, 'b')] {
                q.schedule(SimTime(10), e);
            }
            q.schedule(SimTime(5), Ev(3, 0, 'z'));
            assert_eq!(drain(&mut q), ['z', 'a', 'b', 'b', 'c', 'd'], "{ties:?}");
        }
    }

    /// An event scheduled for the running instant with a rank above the running event's joins
    /// its generation (and runs among the pending ones by rank); one at or below it goes to
    /// the next generation, after everything already pending for the instant.
    #[test]
    fn events_caused_at_an_instant_follow_their_cause_by_generation() {
        for ties in [TieOrder::Fifo, TieOrder::Lifo, TieOrder::Random(3)] {
            let mut q = EventQueue::with_ties(ties);
            q.schedule(SimTime(10), Ev(1, 0, 'a'));
            q.schedule(SimTime(10), Ev(3, 0, 'c'));
            q.schedule(SimTime(10), Ev(5, 0, 'e'));
            assert_eq!(q.pop().unwrap().1 .2, 'a');
            q.schedule(SimTime(10), Ev(4, 0, 'd')); // above 'a': this generation, before 'e'
            q.schedule(SimTime(10), Ev(0, 0, 'x')); // below 'a': the next generation
            q.schedule(SimTime(10), Ev(1, 0, 'y')); // equal to 'a': the next generation
            assert_eq!(drain(&mut q), ['c', 'd', 'e', 'x', 'y'], "{ties:?}");
        }
    }

    /// The tie order permutes only an entity's simultaneous events of one kind: LIFO reverses
    /// them, a random order is a seeded permutation, and every event comes out once.
    #[test]
    fn tie_orders_permute_only_events_of_equal_rank() {
        let run = |ties: TieOrder| -> Vec<(u64, u32, char)> {
            let mut q = EventQueue::with_ties(ties);
            for i in 0..2000u32 {
                let label = char::from_u32(0x4E00 + i).unwrap();
                q.schedule(SimTime(u64::from(i % 7)), Ev(1 + i % 3, 0, label));
            }
            assert!(q.wheel_on, "every tie order keeps the queue monotone");
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e.0, e.2))).collect()
        };
        let fifo = run(TieOrder::Fifo);
        let key = |v: &Vec<(u64, u32, char)>| v.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>();
        for ties in [TieOrder::Lifo, TieOrder::Random(1), TieOrder::Random(2)] {
            let other = run(ties);
            assert_eq!(key(&other), key(&fifo), "{ties:?}: the same (time, rank) sequence");
            assert_ne!(other, fifo, "{ties:?}: another order among equals");
            let mut a: Vec<char> = other.iter().map(|x| x.2).collect();
            a.sort_unstable();
            let mut b: Vec<char> = fifo.iter().map(|x| x.2).collect();
            b.sort_unstable();
            assert_eq!(a, b);
        }
        assert_eq!(run(TieOrder::Random(1)), run(TieOrder::Random(1)));
        let lifo = run(TieOrder::Lifo);
        assert_eq!(lifo[0], (0, 1, char::from_u32(0x4E00 + 1995).unwrap()), "the last (0, 1) scheduled");
    }

    #[test]
    fn the_tie_permutation_is_a_bijection() {
        // Distinct sequence numbers (a sample of 2^16, spread over the tie's range) give
        // distinct ties within the tie's bits.
        let mut images: Vec<u64> = (0..(1u64 << 16)).map(|x| mixed((x * 4093) & TIE_MASK)).collect();
        assert!(images.iter().all(|&y| y <= TIE_MASK));
        images.sort_unstable();
        images.dedup();
        assert_eq!(images.len(), 1 << 16);
    }

    #[test]
    fn a_zero_delay_loop_is_flagged() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(1), Ev(0, 0, 'a'));
        for _ in 0..300 {
            let (t, e) = q.pop().unwrap();
            q.schedule(t, e);
        }
        assert!(q.generation_overflow());
        let mut ok = EventQueue::new();
        ok.schedule(SimTime(1), Ev(0, 0, 'a'));
        for _ in 0..200 {
            let (t, e) = ok.pop().unwrap();
            ok.schedule(t, e);
        }
        assert!(!ok.generation_overflow());
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
