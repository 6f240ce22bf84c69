//! The event queue's structure while many events are pending: a timing wheel for the near
//! future, a binary heap for the far future (kernel module docs, "Two structures").
//!
//! Owns [`Wheel`]. Time is cut into slots of 2^[`SLOT_BITS`] ps (67.1 µs). The wheel holds the
//! [`WHEEL_SLOTS`] slots after the slot of the last key popped (`base`, 68.7 ms ahead), each an
//! unsorted vector, with a bitmap of the non-empty ones; `base`'s own slot is kept sorted, the
//! earliest key last. A key further ahead waits in a binary heap. The earliest pending key is
//! always known (`min`):
//! - a push is an append to its slot (or an insertion into the sorted slot, or a heap push);
//! - a pop takes the sorted slot's last entry; when that slot is empty, the slot of `min`
//!   becomes the sorted one first (its vector swapped in, the far keys of that slot added,
//!   sorted), and `min` is found again from the next non-empty slot (a scan of the bitmap and of
//!   that slot's few entries) and the heap's top.
//!
//! Every key pushed is at least the last key popped (the queue is monotone), so a slot once
//! passed never receives a key again, and the slots in the wheel always lie within
//! `WHEEL_SLOTS` after `base`: a wheel index names one slot only. The order is exactly the
//! keys' order, as the binary heap's (tested against a reference heap), so results are
//! bit-identical whichever structure holds the events.
//!
//! **Why a wheel.** A network's events are mostly near ones (a cell or a packet reaching the
//! next node, microseconds to tens of milliseconds ahead) among a few far ones (protocol and
//! application timers). The wheel places a near event in O(1) and does not move it again
//! before its slot comes. A radix heap on the keys' bits (Ahuja, Mehlhorn, Orlin & Tarjan
//! 1990) is O(1) too, but it moves each entry through its buckets several times on the way:
//! on Mah's internetwork that was about 250 instructions an event against about 85 here
//! (docs/performance.md, "The event queue as a timing wheel").

use super::Entry;
use std::collections::BinaryHeap;

/// A slot is 2^26 ps (67.1 µs) of simulated time.
const SLOT_BITS: u32 = 26;
/// Slots in the wheel: 1024 × 67.1 µs = 68.7 ms ahead of the running slot.
const WHEEL_SLOTS: usize = 1024;
const MASK: u64 = WHEEL_SLOTS as u64 - 1;
const WORDS: usize = WHEEL_SLOTS / 64;

#[inline(always)]
fn slot_of(key: u128) -> u64 {
    ((key >> 64) as u64) >> SLOT_BITS
}

/// Pending events of a monotone queue (module docs).
pub(super) struct Wheel<E> {
    /// The entries of slot `base`, sorted by key, the earliest last.
    cur: Vec<Entry<E>>,
    /// The slot of the last key popped (at creation: of the reference key given).
    base: u64,
    /// The entries of slot `s` (`base < s < base + WHEEL_SLOTS`) at index `s & MASK`, unsorted.
    slots: Vec<Vec<Entry<E>>>,
    /// Bit `i` set iff `slots[i]` is non-empty.
    occupied: [u64; WORDS],
    /// Entries of slots at or past `base + WHEEL_SLOTS` when they were pushed.
    far: BinaryHeap<Entry<E>>,
    /// The earliest pending key (`u128::MAX` if none).
    min: u128,
    /// Entries in `slots`.
    in_wheel: usize,
}

impl<E: Copy> Wheel<E> {
    /// An empty wheel without its slots (allocated by the first [`Wheel::start`]).
    pub(super) fn new() -> Self {
        Wheel {
            cur: Vec::new(),
            base: 0,
            slots: Vec::new(),
            occupied: [0; WORDS],
            far: BinaryHeap::new(),
            min: u128::MAX,
            in_wheel: 0,
        }
    }

    /// Make the empty wheel ready to take keys of at least `last`.
    pub(super) fn start(&mut self, last: u128) {
        debug_assert!(self.min == u128::MAX, "start with entries pending");
        if self.slots.is_empty() {
            self.slots = (0..WHEEL_SLOTS).map(|_| Vec::new()).collect();
        }
        self.base = slot_of(last);
    }

    /// The earliest pending key.
    #[inline]
    pub(super) fn peek(&self) -> Option<u128> {
        (self.min != u128::MAX).then_some(self.min)
    }

    #[inline(never)]
    pub(super) fn push(&mut self, e: Entry<E>) {
        let s = slot_of(e.key);
        debug_assert!(s >= self.base, "a key before the last one popped");
        let ahead = s.wrapping_sub(self.base);
        if ahead == 0 {
            let i = self.cur.partition_point(|x| x.key > e.key);
            self.cur.insert(i, e);
        } else if ahead < WHEEL_SLOTS as u64 {
            let i = (s & MASK) as usize;
            self.slots[i].push(e);
            self.occupied[i >> 6] |= 1 << (i & 63);
            self.in_wheel += 1;
        } else {
            self.far.push(e);
        }
        if e.key < self.min {
            self.min = e.key;
        }
    }

    /// Remove and return the entry of the earliest key.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        if self.min == u128::MAX {
            return None;
        }
        if self.cur.is_empty() {
            self.take_slot(slot_of(self.min));
        }
        let e = self.cur.pop().expect("the slot of the earliest key");
        self.min = match self.cur.last() {
            Some(next) => next.key,
            None => self.next_min(),
        };
        Some(e)
    }

    /// Slot `s`, that of the earliest key, becomes the sorted one: its wheel entries and its far
    /// ones, sorted with the earliest last.
    fn take_slot(&mut self, s: u64) {
        debug_assert!(self.cur.is_empty() && s > self.base);
        if s - self.base < WHEEL_SLOTS as u64 {
            let i = (s & MASK) as usize;
            if self.occupied[i >> 6] & (1 << (i & 63)) != 0 {
                std::mem::swap(&mut self.cur, &mut self.slots[i]);
                self.occupied[i >> 6] &= !(1 << (i & 63));
                self.in_wheel -= self.cur.len();
            }
        }
        while self.far.peek().is_some_and(|e| slot_of(e.key) == s) {
            self.cur.push(self.far.pop().expect("peeked"));
        }
        self.base = s;
        if self.cur.len() > 1 {
            self.cur.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        }
    }

    /// The earliest key after slot `base`: in the first non-empty wheel slot, or at the heap's
    /// top.
    fn next_min(&self) -> u128 {
        let far = self.far.peek().map_or(u128::MAX, |e| e.key);
        if self.in_wheel == 0 {
            return far;
        }
        let i = self.next_occupied(((self.base + 1) & MASK) as usize);
        let near = self.slots[i].iter().map(|e| e.key).min().expect("an occupied slot");
        near.min(far)
    }

    /// The first occupied wheel index at or cyclically after `from` (one is occupied).
    #[inline]
    fn next_occupied(&self, from: usize) -> usize {
        let (w0, b0) = (from >> 6, from & 63);
        let first = self.occupied[w0] & (!0u64 << b0);
        if first != 0 {
            return (w0 << 6) | first.trailing_zeros() as usize;
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = self.occupied[w];
            if bits != 0 {
                return (w << 6) | bits.trailing_zeros() as usize;
            }
        }
        unreachable!("next_occupied with an empty wheel")
    }

    /// Every pending entry, in no order; the wheel is left empty.
    pub(super) fn drain_into(&mut self, out: &mut Vec<Entry<E>>) {
        out.append(&mut self.cur);
        if self.in_wheel > 0 {
            for s in &mut self.slots {
                out.append(s);
            }
        }
        out.extend(self.far.drain());
        self.occupied = [0; WORDS];
        self.in_wheel = 0;
        self.min = u128::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(slot: u64, tie: u32) -> Entry<u32> {
        Entry { key: ((slot << SLOT_BITS) as u128) << 64 | tie as u128, ev: tie }
    }

    /// The next non-empty slot may lie almost a whole wheel ahead, at an index that wraps
    /// around into the running slot's bitmap word below it: the scan comes back to that word.
    #[test]
    fn the_next_slot_is_found_a_whole_wheel_ahead_in_the_running_slots_bitmap_word() {
        let last = WHEEL_SLOTS as u64 - 1;
        let mut w = Wheel::new();
        w.start(0);
        w.push(entry(5, 0));
        w.push(entry(5, 1));
        assert_eq!(w.pop().map(|e| e.ev), Some(0));
        // Running slot 5 (index 5, bitmap word 0); the wheel's last slot, 5 + 1023, has index
        // 4, in word 0 below 5; one slot further goes past the wheel, to the heap.
        w.push(entry(5 + last, 2));
        w.push(entry(5 + last + 1, 3));
        let rest: Vec<u32> = std::iter::from_fn(|| w.pop().map(|e| e.ev)).collect();
        assert_eq!(rest, [1, 2, 3]);
        assert_eq!(w.peek(), None);
    }
}
