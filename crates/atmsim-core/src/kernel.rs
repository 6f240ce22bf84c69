//! The event queue: deterministic ordering, cancellation, and the batching horizon.
//!
//! Owns: [`EventQueue`], a binary min-heap of small `Copy` events keyed on
//! `(time, insertion sequence)`.
//!
//! **Ordering guarantee.** Events are delivered in non-decreasing time; events scheduled for
//! the same instant are delivered in the order they were scheduled (first in, first out).
//! The key is one `u128` (`time << 64 | seq`), so the order is total and identical on every
//! machine — the basis of atmsim's bit-for-bit determinism.
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

/// Handle of a scheduled event, used to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventKey(u64);

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

/// Deterministic future-event list.
pub struct EventQueue<E: Copy> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    cancelled: HashSet<u64>,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0, cancelled: HashSet::new(), popped: 0 }
    }

    /// Schedule `ev` at `time`. Events at equal times run in scheduling order.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: E) -> EventKey {
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Entry { key: ((time.0 as u128) << 64) | seq as u128, ev });
        EventKey(seq)
    }

    /// Cancel a scheduled event. Cancelling an event that already ran is a no-op.
    pub fn cancel(&mut self, key: EventKey) {
        if key.0 < self.seq {
            self.cancelled.insert(key.0);
        }
    }

    /// Remove and return the earliest live event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        loop {
            let e = self.heap.pop()?;
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
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
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
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
