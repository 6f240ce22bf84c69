//! The VC table: every VC one driver holds, by multiplexing key and, when cached, by
//! (egress, class); the datagrams waiting for pending setups; and the VCs' timers.
//!
//! Owns: [`VcRef`] (the driver's handle of a VC), [`VcState`], [`VcInfo`],
//! [`TimerToken`] and the crate-private `VcTable`.
//!
//! VCs are simplex (Tab 4-3) and tagged with the egress router, the class and the
//! conversation type that created them (§6.3). A VC moves through
//!
//! ```text
//!   (free) ─open→ Pending ─setup ok→ Bound ⇄ Cached      (svccache: unbind / reuse)
//!                    │                 │        │
//!                 setup failed      release  release ──→ Releasing ─release done→ (free)
//!                    ↓
//!                 (free)
//! ```
//!
//! **Lookups without order dependence.** Keys are found through hash maps with a fixed,
//! seedless hasher (`detmap`); nothing ever iterates a map, so no result depends on hash
//! order. Cached VCs of one (egress, class) are kept in unbinding order; reuse takes the
//! most recently unbound (the older ones are left to expire, so the cache holds as few VCs
//! as the load needs).
//!
//! **Timers are lazy.** A slot has at most one *live* timer: the token whose generation
//! equals the slot's. When a VC's deadline moves later (a packet was sent), nothing is
//! armed: the live timer fires at the old deadline and is re-armed at the new one. When the
//! deadline moves earlier than the live timer (a cached VC is reused), the generation is
//! bumped and a new timer armed; the old token is then stale and ignored when it fires.
//!
//! **No allocation per packet.** Slots and queue nodes live in slabs with free lists; the
//! FIFO of a pending VC is a linked list through the node slab, so queued datagrams cost
//! nothing once the slab has grown to the run's peak.

use super::policy::{MuxKey, VcClass};
use super::ConvType;
use crate::detmap::DetMap;
use crate::ids::{DatagramId, NodeId};
use crate::time::SimTime;
use std::collections::VecDeque;

/// The driver's handle of one of its VCs. The caller maps it to the fabric's VC when the
/// setup completes (or when it declares a PVC); a handle is reused only after
/// [`super::IpoaDriver::release_done`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VcRef(pub u32);

/// A timer the driver asked for; hand it back to [`super::IpoaDriver::timer_fired`] at
/// its instant. Stale tokens are recognised and ignored, so the caller never cancels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerToken {
    vc: VcRef,
    gen: u32,
}

impl TimerToken {
    /// The VC the timer belongs to.
    pub fn vc(self) -> VcRef {
        self.vc
    }
}

/// Where a VC is in its life (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcState {
    /// Setup requested; datagrams for its key wait in its FIFO (A-27: unlimited).
    Pending,
    /// Carries the traffic of its key.
    Bound,
    /// Unbound after idling, reusable by a matching request (svccache).
    Cached,
    /// Release requested; the handle is not reused until the caller confirms.
    Releasing,
}

/// What the table knows of one VC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcInfo {
    pub state: VcState,
    pub egress: NodeId,
    pub class: VcClass,
    /// The type of the conversation that created the VC (§6.3 tag).
    pub ty: ConvType,
    /// A declared PVC of the scenario: never idles, never torn down.
    pub permanent: bool,
}

const NIL: u32 = u32::MAX;

/// A FIFO of datagrams, linked through the node slab.
#[derive(Clone, Copy, Debug)]
struct Fifo {
    head: u32,
    tail: u32,
}

impl Fifo {
    const EMPTY: Fifo = Fifo { head: NIL, tail: NIL };
}

#[derive(Clone, Copy, Debug)]
struct QNode {
    datagram: DatagramId,
    next: u32,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    /// `None` while the slot is free.
    state: Option<VcState>,
    /// The key while `Pending` or `Bound`.
    key: MuxKey,
    egress: NodeId,
    class: VcClass,
    ty: ConvType,
    permanent: bool,
    /// The last datagram sent (or the binding instant) [while `Bound`].
    last_use: SimTime,
    /// When the VC became `Cached`.
    unbound_at: SimTime,
    /// Generation of the live timer; older tokens are stale.
    gen: u32,
    /// Instant of the live timer, if one is armed.
    armed: Option<SimTime>,
    queue: Fifo,
}

/// The table (module docs). Every method that names a VC expects a live handle in the
/// state the method documents; the driver keeps to that, and debug builds check it.
#[derive(Default)]
pub(super) struct VcTable {
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    by_key: DetMap<MuxKey, VcRef>,
    cached: DetMap<(NodeId, VcClass), VecDeque<VcRef>>,
    nodes: Vec<QNode>,
    free_node: u32,
}

impl VcTable {
    pub fn new() -> Self {
        VcTable { free_node: NIL, ..Default::default() }
    }

    fn slot(&self, vc: VcRef) -> &Slot {
        &self.slots[vc.0 as usize]
    }

    fn slot_mut(&mut self, vc: VcRef) -> &mut Slot {
        &mut self.slots[vc.0 as usize]
    }

    /// The VC pending or bound for `key`.
    #[inline]
    pub fn lookup(&self, key: &MuxKey) -> Option<(VcRef, VcState)> {
        let vc = *self.by_key.get(key)?;
        Some((vc, self.slot(vc).state.expect("keyed VC is live")))
    }

    /// What the table knows of `vc`; `None` for a free handle.
    pub fn info(&self, vc: VcRef) -> Option<VcInfo> {
        let s = self.slots.get(vc.0 as usize)?;
        Some(VcInfo { state: s.state?, egress: s.egress, class: s.class, ty: s.ty, permanent: s.permanent })
    }

    /// A new VC in `state` for `key` (`Pending`, or `Bound` for a declared PVC).
    pub fn open(&mut self, key: MuxKey, egress: NodeId, class: VcClass, ty: ConvType, state: VcState) -> VcRef {
        let slot = Slot {
            state: Some(state),
            key,
            egress,
            class,
            ty,
            permanent: false,
            last_use: SimTime::ZERO,
            unbound_at: SimTime::ZERO,
            gen: 0,
            armed: None,
            queue: Fifo::EMPTY,
        };
        let vc = match self.free_slots.pop() {
            Some(i) => {
                let gen = self.slots[i as usize].gen;
                self.slots[i as usize] = Slot { gen: gen.wrapping_add(1), ..slot };
                VcRef(i)
            }
            None => {
                self.slots.push(slot);
                VcRef(self.slots.len() as u32 - 1)
            }
        };
        let previous = self.by_key.insert(key, vc);
        debug_assert!(previous.is_none(), "a key has one VC at a time");
        vc
    }

    /// The key of pending or bound `vc`.
    pub fn key_of(&self, vc: VcRef) -> MuxKey {
        self.slot(vc).key
    }

    /// Re-tag pending `vc` (an admission fallback, A-36); it is in no cache list yet.
    pub fn set_class(&mut self, vc: VcRef, class: VcClass) {
        debug_assert_eq!(self.slot(vc).state, Some(VcState::Pending));
        self.slot_mut(vc).class = class;
    }

    pub fn set_permanent(&mut self, vc: VcRef) {
        self.slot_mut(vc).permanent = true;
    }

    /// Append `d` to the FIFO of pending `vc`.
    pub fn enqueue(&mut self, vc: VcRef, d: DatagramId) {
        let node = QNode { datagram: d, next: NIL };
        let n = if self.free_node != NIL {
            let n = self.free_node;
            self.free_node = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            self.nodes.len() as u32 - 1
        };
        let q = &mut self.slots[vc.0 as usize].queue;
        if q.tail == NIL {
            q.head = n;
        } else {
            self.nodes[q.tail as usize].next = n;
        }
        q.tail = n;
    }

    /// Remove and return the oldest datagram waiting on `vc`.
    pub fn dequeue(&mut self, vc: VcRef) -> Option<DatagramId> {
        let q = &mut self.slots[vc.0 as usize].queue;
        let n = q.head;
        if n == NIL {
            return None;
        }
        let QNode { datagram, next } = self.nodes[n as usize];
        q.head = next;
        if next == NIL {
            q.tail = NIL;
        }
        self.nodes[n as usize].next = self.free_node;
        self.free_node = n;
        Some(datagram)
    }

    /// `vc` now carries its key's traffic, from `now`.
    pub fn bind(&mut self, vc: VcRef, now: SimTime) {
        let s = self.slot_mut(vc);
        debug_assert!(matches!(s.state, Some(VcState::Pending | VcState::Bound)));
        s.state = Some(VcState::Bound);
        s.last_use = now;
    }

    /// A datagram went out on bound `vc` at `now`.
    #[inline]
    pub fn touch(&mut self, vc: VcRef, now: SimTime) {
        self.slot_mut(vc).last_use = now;
    }

    pub fn last_use(&self, vc: VcRef) -> SimTime {
        self.slot(vc).last_use
    }

    pub fn unbound_at(&self, vc: VcRef) -> SimTime {
        self.slot(vc).unbound_at
    }

    /// Forget the key of pending or bound `vc`.
    fn drop_key(&mut self, vc: VcRef) {
        let key = self.slot(vc).key;
        let removed = self.by_key.remove(&key);
        debug_assert_eq!(removed, Some(vc));
    }

    /// Bound `vc` idled out at `at`: unbind it and cache it under (egress, class).
    pub fn unbind(&mut self, vc: VcRef, at: SimTime) {
        self.drop_key(vc);
        let s = self.slot_mut(vc);
        s.state = Some(VcState::Cached);
        s.unbound_at = at;
        let cache_key = (s.egress, s.class);
        self.cached.entry(cache_key).or_default().push_back(vc);
    }

    /// Is a VC to `egress` of `class` cached?
    pub fn has_cached(&self, egress: NodeId, class: VcClass) -> bool {
        self.cached.get(&(egress, class)).is_some_and(|l| !l.is_empty())
    }

    /// Take the most recently unbound cached VC to `egress` of `class`, bound to `key` at
    /// `now`.
    pub fn reuse_cached(&mut self, egress: NodeId, class: VcClass, key: MuxKey, now: SimTime) -> Option<VcRef> {
        let vc = self.cached.get_mut(&(egress, class))?.pop_back()?;
        let s = self.slot_mut(vc);
        s.state = Some(VcState::Bound);
        s.key = key;
        s.last_use = now;
        let previous = self.by_key.insert(key, vc);
        debug_assert!(previous.is_none());
        Some(vc)
    }

    /// Bound or cached `vc` is being released.
    pub fn start_release(&mut self, vc: VcRef) {
        match self.slot(vc).state {
            Some(VcState::Bound) => self.drop_key(vc),
            Some(VcState::Cached) => self.uncache(vc),
            other => debug_assert!(false, "release from {other:?}"),
        }
        self.slot_mut(vc).state = Some(VcState::Releasing);
    }

    /// Remove cached `vc` from its list. Lists are in unbinding order and expiry follows
    /// that order, so `vc` is almost always at the front.
    fn uncache(&mut self, vc: VcRef) {
        let s = self.slot(vc);
        let list = self.cached.get_mut(&(s.egress, s.class)).expect("cached VC has a list");
        let at = list.iter().position(|&v| v == vc).expect("cached VC is listed");
        list.remove(at);
    }

    /// Pending `vc` failed, or releasing `vc` is released: the handle becomes free. The
    /// FIFO must be empty.
    pub fn free(&mut self, vc: VcRef) {
        let s = self.slot(vc);
        debug_assert_eq!(s.queue.head, NIL, "drain the FIFO before freeing");
        match s.state {
            Some(VcState::Pending) => self.drop_key(vc),
            Some(VcState::Releasing) => {}
            other => debug_assert!(false, "free from {other:?}"),
        }
        let s = self.slot_mut(vc);
        s.state = None;
        s.armed = None;
        self.free_slots.push(vc.0);
    }

    /// Make sure a live timer fires no later than `deadline`; returns the timer to arm, if
    /// a new one is needed (module docs: lazy timers).
    pub fn arm(&mut self, vc: VcRef, deadline: SimTime) -> Option<(SimTime, TimerToken)> {
        let s = self.slot_mut(vc);
        if matches!(s.armed, Some(t) if t <= deadline) {
            return None;
        }
        s.gen = s.gen.wrapping_add(1);
        s.armed = Some(deadline);
        Some((deadline, TimerToken { vc, gen: s.gen }))
    }

    /// A timer fired: the VC and its state if the token is live (the timer is then
    /// disarmed), `None` if stale.
    pub fn fire(&mut self, token: TimerToken) -> Option<(VcRef, VcState)> {
        let s = self.slots.get_mut(token.vc.0 as usize)?;
        if s.gen != token.gen || s.armed.is_none() {
            return None;
        }
        s.armed = None;
        Some((token.vc, s.state?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(e: u32) -> MuxKey {
        MuxKey::Router { egress: NodeId(e) }
    }

    fn open(t: &mut VcTable, e: u32) -> VcRef {
        t.open(key(e), NodeId(e), VcClass::BestEffort, ConvType::Other, VcState::Pending)
    }

    #[test]
    fn fifos_keep_order_and_recycle_nodes() {
        let mut t = VcTable::new();
        let (a, b) = (open(&mut t, 1), open(&mut t, 2));
        for i in 0..3 {
            t.enqueue(a, DatagramId(i));
            t.enqueue(b, DatagramId(10 + i));
        }
        let drained: Vec<_> = std::iter::from_fn(|| t.dequeue(a)).collect();
        assert_eq!(drained, [DatagramId(0), DatagramId(1), DatagramId(2)]);
        t.enqueue(a, DatagramId(7));
        assert_eq!(t.nodes.len(), 6, "a freed node is reused");
        assert_eq!(t.dequeue(b), Some(DatagramId(10)));
    }

    #[test]
    fn an_earlier_deadline_makes_the_old_token_stale() {
        let mut t = VcTable::new();
        let a = open(&mut t, 1);
        let (_, late) = t.arm(a, SimTime(300)).unwrap();
        assert_eq!(t.arm(a, SimTime(400)), None, "a later deadline waits for the live timer");
        let (_, early) = t.arm(a, SimTime(10)).unwrap();
        assert_eq!(t.fire(late), None);
        assert_eq!(t.fire(early), Some((a, VcState::Pending)));
        assert_eq!(t.fire(early), None, "a token fires once");
    }

    #[test]
    fn reuse_takes_the_most_recently_unbound_vc_of_the_same_egress() {
        let mut t = VcTable::new();
        let cache = |t: &mut VcTable, k: u32, egress: u32, at: u64| {
            let vc = t.open(key(k), NodeId(egress), VcClass::BestEffort, ConvType::Other, VcState::Pending);
            t.bind(vc, SimTime(0));
            t.unbind(vc, SimTime(at));
            vc
        };
        let (a, b, _c) = (cache(&mut t, 1, 1, 5), cache(&mut t, 2, 1, 6), cache(&mut t, 3, 2, 7));
        assert_eq!(t.reuse_cached(NodeId(1), VcClass::BestEffort, key(9), SimTime(9)), Some(b));
        assert_eq!(t.lookup(&key(9)), Some((b, VcState::Bound)));
        assert_eq!(t.reuse_cached(NodeId(1), VcClass::Type(ConvType::Other), key(8), SimTime(9)), None);
        t.start_release(a);
        assert_eq!(t.reuse_cached(NodeId(1), VcClass::BestEffort, key(8), SimTime(9)), None);
        t.free(a);
        assert_eq!(t.info(a), None);
        assert_eq!(open(&mut t, 4), a, "a freed handle is reused");
    }
}
