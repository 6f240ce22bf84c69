//! Drained switches of many inputs: a switch drained by its readers (`drained.rs`) with more
//! than `SCANNED_INPUTS` (16) inputs keeps its inputs in order of their next arrivals, instead of
//! scanning every input and the port feeding it at each drain.
//!
//! Owns [`DueInputs`] (a binary heap of (arrival time, input link)), telling a switch of a
//! cell's arrival ([`Fabric::due_at`]), and draining such a switch (`Fabric::drain_due`).
//!
//! **The entries.** Each input link is in the heap under its time in [`Fabric::link_due`](super::Fabric::link_due),
//! no later than the first cell on it, or in transmission onto it, that the switch has not
//! switched yet. Whoever puts a cell in flight towards the switch tells it the cell's arrival
//! time (`each::DUE` on the link): a port served ahead as it starts the cell (its arrival event
//! is decided then, `Fabric::arrival_event`), a port with an event per cell as it puts the cell
//! on the link, a drained switch passing a cell or a train through an idle port. The link is
//! entered only if that is sooner than its entry: the cells of one link arrive in the order
//! they start, so the first one's entry stands for those after it. When the switch takes the
//! link's entry, it switches the cells that are due and enters the link again under its next
//! cell: the head of its pipe, or the cell in transmission onto it. An entry whose time is
//! not the link's `link_due` any more is stale, and skipped.
//!
//! **Why it is exact.** A drain switches the same cells at the same instants, in the same
//! order, as a drain that scans its inputs: the heap's first entry is the earliest arrival on
//! any input (every entry is a lower bound on its input's next arrival, and one taken from the
//! heap is checked against the input's pipe once the port feeding it is brought up to the
//! drain's bound); the entries at one instant are taken together and switched in the inputs'
//! index order, as `Fabric::switch_collected` does; a cell alone at its instant is switched
//! by the same step as in a scanned switch (`switch_run`), up to the next entry of the heap, a
//! lower bound on the other inputs' next arrivals. Ports feeding the switch are brought up to
//! date only when their input is taken, not all at each drain: such a port changes nothing but
//! its own link (it is a host's port or one of a switch that is not drained) and is brought
//! up to the same bound either way. The ports of drained switches feeding the switch
//! ([`DueInputs::upstream`]) are brought up to date first, as every feeder of a scanned
//! switch is, since draining their switch may start cells on other inputs.
//!
//! **Cost.** A drain costs a heap step per input that has cells before its bound and per run of
//! one input's cells, not a look at every input: on the TCP dumbbell of 800 flows (801 inputs
//! at the left switch) the switch takes no event per arriving cell. A signalling cell alone at
//! its instant still goes through `Fabric::switch_collected`, which scans every input (rare:
//! signalling frames are a few cells per call).

use super::{Clock, Fabric};
use crate::atm::link::Sink;
use crate::ids::LinkId;
use crate::time::{SimDuration, SimTime};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const PS: SimDuration = SimDuration::from_ps(1);

/// The inputs of a drained switch of many inputs, in order of their next arrivals (module
/// docs).
#[derive(Debug, Default)]
pub struct DueInputs {
    /// (the input link's [`Fabric::link_due`](super::Fabric::link_due) when entered, the link),
    /// packed into one `u128` ([`entry`]) so that the heap compares without branches, earliest
    /// first; stale entries are skipped when taken.
    heap: BinaryHeap<Reverse<u128>>,
    /// The inputs fed by ports of drained switches, brought up to date at every drain.
    pub upstream: Vec<LinkId>,
    /// Scratch: the inputs with a cell at the instant being switched when there are several,
    /// in index order.
    instant: Vec<LinkId>,
}

/// A heap entry: the time in the high 64 bits, the link below (the order of `(time, link)`).
#[inline(always)]
fn entry(at: SimTime, l: u32) -> u128 {
    (at.0 as u128) << 64 | l as u128
}

/// The time of a heap entry.
#[inline(always)]
fn entry_time(e: u128) -> SimTime {
    SimTime((e >> 64) as u64)
}

impl Fabric {
    /// Switch `s`, drained by its readers and of many inputs, keeps them in order of their next
    /// arrivals (module docs); every input enters under the first cell it holds, if any.
    pub(super) fn prime_due(&mut self, s: usize) {
        let mut due = DueInputs::default();
        for &l in &self.switches[s].inputs {
            if self.ports[self.links[l.idx()].from.idx()].drainer().is_some() {
                due.upstream.push(l);
            }
        }
        self.due_inputs[s] = Some(Box::new(due));
        self.link_due.resize(self.links.len(), SimTime::MAX);
        for i in 0..self.switches[s].inputs.len() {
            self.enter_next(self.switches[s].inputs[i]);
        }
    }

    /// A cell will reach the far end of link `l`, an input of a switch drained through its
    /// inputs' next arrivals, at `at`: the link is entered then unless it already is no later.
    #[inline(never)]
    pub fn due_at(&mut self, l: LinkId, at: SimTime) {
        if at >= self.link_due[l.idx()] {
            return;
        }
        self.link_due[l.idx()] = at;
        let Sink::Switch { switch, .. } = self.links[l.idx()].to else {
            unreachable!("a host link told of an arrival")
        };
        let due = self.due_inputs[switch.idx()].as_mut().expect("a switch drained through its inputs");
        due.heap.push(Reverse(entry(at, l.0)));
    }

    /// Input link `l`, whose entry was taken, enters again under its next cell: the head of its
    /// pipe, or the cell in transmission onto it from a port served ahead (a port with an event
    /// per cell tells the switch when it puts the cell on the link).
    fn enter_next(&mut self, l: LinkId) {
        let link = &self.links[l.idx()];
        let next = if !link.pipe.is_empty() {
            link.pipe.head_time()
        } else {
            let Some(end) = self.ports[link.from.idx()].sending_until() else { return };
            end + link.delay
        };
        self.due_at(l, next);
    }

    /// [`Fabric::drain`] of switch `s`, drained through its inputs' next arrivals: the ports of
    /// drained switches feeding it are brought up to date first (module docs), then its
    /// arrivals before `before` are switched.
    #[inline(never)]
    pub(super) fn drain_due(&mut self, ck: &mut impl Clock, s: u32, before: SimTime, hold: bool) -> bool {
        let n = self.due_inputs[s as usize].as_ref().map_or(0, |d| d.upstream.len());
        for i in 0..n {
            let l = self.due_inputs[s as usize].as_ref().expect("due inputs").upstream[i];
            let link = &self.links[l.idx()];
            let (from, reach) = (link.from, link.delay + PS);
            self.advance(ck, from, before.saturating_sub(reach));
        }
        self.switches[s as usize].switching = true;
        self.switch_due_until(ck, s, before, hold)
    }

    /// [`Fabric::switch_until`] of switch `s`, drained through its inputs' next arrivals: its
    /// instants before `before` in time order, or up to one that holds.
    pub(super) fn switch_due_until(&mut self, ck: &mut impl Clock, s: u32, before: SimTime, hold: bool) -> bool {
        let now = ck.now();
        while let Some((at, alone)) = self.next_due_instant(ck, s, before, now) {
            let held = if let Some(l) = alone {
                let due = self.due_inputs[s as usize].as_ref().expect("due inputs");
                let limit = due.heap.peek().map_or(before, |e| entry_time(e.0).min(before));
                let held = self.switch_run(ck, s, l, limit, now, hold);
                self.enter_next(l);
                held
            } else {
                self.switches[s as usize].drained_to = at;
                ck.set_now(at);
                self.switch_due_instant(ck, s, at, now, hold)
            };
            if held {
                ck.set_now(now);
                return true;
            }
        }
        self.switched_until(ck, s, before, now)
    }

    /// The next instant before `before` at which a cell reaches switch `s`, with the input
    /// that brings one then if it is the only one (taken from the heap), or else `None` and
    /// the inputs that do taken into [`DueInputs::instant`], in index order; each input taken
    /// has its feeding port brought up to the drain's bound first, at the drain's instant
    /// `now`, and one without a cell then enters again under its next.
    fn next_due_instant(
        &mut self,
        ck: &mut impl Clock,
        s: u32,
        before: SimTime,
        now: SimTime,
    ) -> Option<(SimTime, Option<LinkId>)> {
        ck.set_now(now);
        let mut at = SimTime::MAX;
        // The first input with a cell at `at`, while it is the only one.
        let mut alone = None;
        loop {
            let due = self.due_inputs[s as usize].as_mut().expect("due inputs");
            let Some(&Reverse(e)) = due.heap.peek() else { break };
            let (k, l) = (entry_time(e), e as u32);
            if k >= before || k > at {
                break;
            }
            due.heap.pop();
            let l = LinkId(l);
            if self.link_due[l.idx()] != k {
                continue;
            }
            self.link_due[l.idx()] = SimTime::MAX;
            let link = &self.links[l.idx()];
            let (from, reach) = (link.from, link.delay + PS);
            self.advance(ck, from, before.saturating_sub(reach));
            match self.links[l.idx()].pipe.front() {
                Some(&(t, _)) if t == k && at == SimTime::MAX => {
                    at = k;
                    alone = Some(l);
                }
                Some(&(t, _)) if t == k => {
                    let instant = &mut self.due_inputs[s as usize].as_mut().expect("due inputs").instant;
                    if let Some(first) = alone.take() {
                        instant.clear();
                        instant.push(first);
                    }
                    instant.push(l);
                }
                _front => {
                    debug_assert!(_front.is_none_or(|&(t, _)| t > k), "a cell before its input's entry");
                    self.enter_next(l);
                }
            }
        }
        if at == SimTime::MAX {
            return None;
        }
        if alone.is_none() {
            self.due_inputs[s as usize].as_mut().expect("due inputs").instant.sort_unstable();
        }
        Some((at, alone))
    }

    /// Switch `s` switches the cells arriving at `at` on the inputs taken for the instant
    /// (at least two), as `Fabric::switch_collected` does, and the inputs enter again under
    /// their next cells; true if the instant holds for a control frame.
    fn switch_due_instant(&mut self, ck: &mut impl Clock, s: u32, at: SimTime, now: SimTime, hold: bool) -> bool {
        let up = self.up.len();
        let instant = std::mem::take(&mut self.due_inputs[s as usize].as_mut().expect("due inputs").instant);
        for &l in &instant {
            self.collect(s, l, at, now);
            self.enter_next(l);
        }
        self.due_inputs[s as usize].as_mut().expect("due inputs").instant = instant;
        self.admit_collected(ck, up, hold)
    }
}
