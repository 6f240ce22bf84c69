//! Static-priority and RCSP cell scheduling of an output port (Mah §2.3, §4.3.1, Tab 2-1,
//! Tab 4-2, Tab 4-4; Zhang & Ferrari, "Rate-Controlled Static-Priority Queueing",
//! INFOCOM 1993, §2–§3).
//!
//! Owns: [`Priority`] (the level queues, the per-VC classes and regulators of one port),
//! [`VcClass`], and the class API of [`OutPort`] ([`OutPort::set_vc_class`],
//! [`OutPort::clear_vc_class`], [`OutPort::wake_needed`]). A scheduler that would serve as a
//! FIFO rests while its port runs as one (`rest.rs`).
//!
//! **Order of service**, highest first, non-preemptive (a cell on the wire always finishes):
//! guaranteed levels 0, 1, 2, 3 (Tab 4-2: local delay bounds of 16, 32, 64, 128 cell times),
//! then signalling (the port's control FIFO, [`OutPort::ctrl`]: the port serves it only when
//! [`Priority::guaranteed_ready`] says no level 0–3 cell is waiting), then best effort (every
//! VC without a class, and every VC of a port whose VCs were never classified), then — work-
//! conserving RCSP only — ineligible cells, "the lowest-possible scheduling priority (even
//! worse service than for best-effort traffic)" (Mah §4.5; spec A-33). Cells of one level
//! leave in the order they joined it.
//!
//! **Disciplines** ([`super::sched::Discipline`]):
//! - *static priority* (`sp`): a classified VC's cells join their level's FIFO on arrival; no
//!   rate control.
//! - *RCSP, work-conserving* (`wc`): a classified VC's cells wait in its [`Regulator`], which
//!   gives each an eligibility time on arrival; at that time it joins its level's FIFO
//!   (releases happen lazily, whenever the port picks a cell). When no cell of any level nor
//!   of best effort is eligible, the waiting cell with the earliest eligibility time (ties:
//!   lowest VCI) is sent early. It still counts in its regulator: its eligibility time was
//!   assigned, and the history advanced, when it arrived.
//! - *RCSP, non-work-conserving* (`nwc`): ineligible cells are never sent; the port idles while
//!   only they wait and asks to be woken at the next eligibility time
//!   ([`OutPort::wake_needed`]; the fabric schedules `AtmEv::PortWake`).
//!
//! A VC's regulator keeps its waiting cells and their times when the class is cleared or
//! replaced; a new class forgets the old history. Cells in regulators are queued data cells of
//! the port: they count in its occupancy, its buffer limit and the run's in-flight ledger.

mod level;
mod rest;

use super::cell::Cell;
use super::port::OutPort;
use super::regulator::{Regulator, TrafficSpec};
use crate::time::{SimDuration, SimTime};
use level::LevelQueue;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Guaranteed priority levels (Tab 4-2: 0..=3).
pub const LEVELS: usize = 4;

/// Release granularity of the regulators [cell times] (Mah §4.3.1; spec A-26).
pub const SLOT_CELLS: u64 = 8;

/// Which priority discipline a [`Priority`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Static,
    RcspWc,
    RcspNwc,
}

/// A VC's service class at a port: a guaranteed level and, for RCSP, its traffic spec.
/// A VC with no class is best effort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcClass {
    /// 0 (highest) ..= 3.
    pub level: u8,
    /// Required at RCSP ports; ignored by static priority.
    pub spec: Option<TrafficSpec>,
}

/// Which queued cells a port served ahead watches ([`Priority::watched_bound`]).
pub enum Watch<F: Fn(Cell) -> bool> {
    /// None.
    Nothing,
    /// Frame ends and RM cells ([`Cell::is_eof_or_rm`]).
    Marked,
    /// Those for which the function holds.
    Each(F),
}

/// A VC's regulator and the level its released cells join.
struct Regulated {
    level: u8,
    reg: Regulator,
    /// Cells the regulator has admitted, and released, since the VC was first classified.
    admitted: u64,
    released: u64,
    /// The admission numbers of the frame ends and RM cells it holds, in order: the first
    /// one's place in `reg.waiting` is its number less `released` (as [`LevelQueue`] keeps
    /// its marked cells).
    marked: VecDeque<u64>,
}

impl Regulated {
    /// The release time of the first frame end or RM cell the regulator holds.
    fn first_marked_release(&self) -> Option<SimTime> {
        let &m = self.marked.front()?;
        Some(self.reg.waiting[(m - self.released) as usize].0)
    }
}

/// The queues of a static-priority or RCSP port.
pub struct Priority {
    pub mode: Mode,
    /// Regulator release clock: [`SLOT_CELLS`] cell times of the port.
    slot: SimDuration,
    levels: [LevelQueue; LEVELS],
    /// Best effort: the port's FIFO while the scheduler rests (`rest.rs`), taken back when it
    /// wakes.
    best_effort: VecDeque<Cell>,
    /// Current class level of each VC (by VCI): `None` = best effort.
    class: Vec<Option<u8>>,
    /// Cells in the levels and the regulators (none: the scheduler can rest, `rest.rs`).
    waiting: u32,
    /// Regulators by VCI (RCSP only).
    regs: Vec<Option<Regulated>>,
    /// (release time, VCI) of the head cell of every non-empty regulator.
    heads: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// The wake-up the fabric has scheduled and not yet delivered (nwc).
    wake_pending: Option<SimTime>,
}

impl Priority {
    /// Empty queues; `cell_time` is the port's cell transmission time.
    pub fn new(mode: Mode, cell_time: SimDuration) -> Self {
        Priority {
            mode,
            slot: cell_time.mul(SLOT_CELLS),
            levels: Default::default(),
            best_effort: VecDeque::new(),
            class: Vec::new(),
            waiting: 0,
            regs: Vec::new(),
            heads: BinaryHeap::new(),
            wake_pending: None,
        }
    }

    fn rate_controlled(&self) -> bool {
        self.mode != Mode::Static
    }

    /// Give VC `vci` a class (new arrivals follow it). Errors leave the port unchanged.
    pub fn set_class(&mut self, vci: u32, c: VcClass) -> Result<(), String> {
        if c.level as usize >= LEVELS {
            return Err(format!("VC {vci}: priority level {} (levels are 0..=3)", c.level));
        }
        let v = vci as usize;
        if self.rate_controlled() {
            let Some(spec) = c.spec else {
                return Err(format!("VC {vci}: an RCSP port needs a traffic spec"));
            };
            if v >= self.regs.len() {
                self.regs.resize_with(v + 1, || None);
            }
            match &mut self.regs[v] {
                Some(r) => {
                    r.level = c.level;
                    r.reg.reset(spec);
                }
                slot => {
                    *slot = Some(Regulated {
                        level: c.level,
                        reg: Regulator::new(spec, self.slot),
                        admitted: 0,
                        released: 0,
                        marked: VecDeque::new(),
                    })
                }
            }
        }
        if v >= self.class.len() {
            self.class.resize(v + 1, None);
        }
        self.class[v] = Some(c.level);
        Ok(())
    }

    /// VC `vci` is best effort again (its regulated cells still leave at their times).
    pub fn clear_class(&mut self, vci: u32) {
        if let Some(c) = self.class.get_mut(vci as usize) {
            *c = None;
        }
    }

    /// Whether this scheduler serves exactly as a FIFO of its best-effort cells would
    /// (`rest.rs`): no level or regulator holds a cell.
    #[inline]
    fn at_rest(&self) -> bool {
        debug_assert_eq!(
            self.waiting == 0,
            self.heads.is_empty() && self.levels.iter().all(|q| q.is_empty()),
            "the count of cells in levels and regulators"
        );
        self.waiting == 0
    }

    /// Whether VC `vci` has a class here (its cells join a level or a regulator).
    #[inline]
    fn classifies(&self, vci: u32) -> bool {
        self.level_of(vci).is_some()
    }

    /// The class level of VC `vci`, if any.
    pub fn level_of(&self, vci: u32) -> Option<u8> {
        self.class.get(vci as usize).copied().flatten()
    }

    /// Queue a cell arriving at `now`; false if its regulator refuses it (eligible more than
    /// 2 s ahead, spec A-26).
    #[inline(never)]
    pub fn push(&mut self, now: SimTime, cell: Cell) -> bool {
        let Some(level) = self.level_of(cell.vci) else {
            self.best_effort.push_back(cell);
            return true;
        };
        if !self.rate_controlled() {
            self.levels[level as usize].push_back(cell);
            self.waiting += 1;
            return true;
        }
        let r = match self.regs.get_mut(cell.vci as usize) {
            Some(Some(r)) => r,
            _ => unreachable!("a classified VC at an RCSP port has a regulator"),
        };
        let was_idle = r.reg.waiting.is_empty();
        match r.reg.admit(now, cell) {
            None => false,
            Some(t) => {
                if cell.is_eof_or_rm() {
                    r.marked.push_back(r.admitted);
                }
                r.admitted += 1;
                if was_idle {
                    self.heads.push(Reverse((t, cell.vci)));
                }
                self.waiting += 1;
                true
            }
        }
    }

    /// Take the head cell of VC `v`'s regulator and re-key the heap on the next one.
    fn take_head(&mut self, v: u32) -> (u8, Cell) {
        let r = self.regs[v as usize].as_mut().expect("heap entry of a regulator");
        let (_, cell) = r.reg.waiting.pop_front().expect("heap entry of a non-empty regulator");
        if r.marked.front() == Some(&r.released) {
            r.marked.pop_front();
        }
        r.released += 1;
        if let Some(&(t, _)) = r.reg.waiting.front() {
            self.heads.push(Reverse((t, v)));
        }
        (r.level, cell)
    }

    /// Move every cell eligible by `now` from its regulator to its level.
    fn release(&mut self, now: SimTime) {
        while let Some(&Reverse((t, v))) = self.heads.peek() {
            if t > now {
                return;
            }
            self.heads.pop();
            let (level, cell) = self.take_head(v);
            self.levels[level as usize].push_back(cell);
        }
    }

    /// Whether an eligible cell of a guaranteed level waits at `now` (signalling yields to it).
    #[inline(never)]
    pub fn guaranteed_ready(&mut self, now: SimTime) -> bool {
        if self.waiting == 0 {
            return false;
        }
        self.release(now);
        self.levels.iter().any(|q| !q.is_empty())
    }

    /// The next cell to send at `now`, if any (see the module docs for the order).
    #[inline(never)]
    pub fn pop(&mut self, now: SimTime) -> Option<Cell> {
        if self.waiting == 0 {
            return self.best_effort.pop_front();
        }
        self.release(now);
        for q in &mut self.levels {
            if let Some(c) = q.pop_front() {
                self.waiting -= 1;
                return Some(c);
            }
        }
        if let Some(c) = self.best_effort.pop_front() {
            return Some(c);
        }
        if self.mode == Mode::RcspWc {
            let Reverse((_, v)) = self.heads.pop()?;
            self.waiting -= 1;
            return Some(self.take_head(v).1);
        }
        None
    }

    /// nwc, after [`Priority::pop`] found nothing: the next release time, if no wake-up at or
    /// before it is already pending (recorded as pending).
    pub fn wake_needed(&mut self) -> Option<SimTime> {
        let &Reverse((t, _)) = self.heads.peek()?;
        if self.wake_pending.is_some_and(|w| w <= t) {
            return None;
        }
        self.wake_pending = Some(t);
        Some(t)
    }

    /// A wake-up scheduled for `now` was delivered.
    pub fn woken(&mut self, now: SimTime) {
        if self.wake_pending == Some(now) {
            self.wake_pending = None;
        }
    }

    /// The earliest time a regulator's cell becomes eligible, if any waits (nwc: the port
    /// idle with only such cells waits for it).
    pub fn next_eligible(&self) -> Option<SimTime> {
        self.heads.peek().map(|&Reverse((t, _))| t)
    }

    /// The earliest time a frame end or RM cell held by a regulator becomes eligible, if any
    /// is held: a look at each regulator holding cells.
    fn first_marked_eligible(&self) -> Option<SimTime> {
        self.heads
            .iter()
            .filter_map(|&Reverse((_, v))| self.regs[v as usize].as_ref().and_then(Regulated::first_marked_release))
            .min()
    }

    /// For a port served ahead (`atm::port` module docs, "Serving ahead"): a lower bound on how
    /// many cell times after the current cell ends the first cell `watch` names can start, as
    /// `(cells, eligible)` — at least `cells` cells go first (those ahead of it in its level's
    /// or best effort's FIFO; `None` if no queued cell is watched, looking at most `max`
    /// places of each, a queue longer than that giving `max`), and a cell still in a regulator
    /// starts no sooner than `eligible` (wc: the earliest eligibility time of any regulator's
    /// cell, sent early only after every queued cell, `queued`; nwc, which never sends a cell
    /// before its eligibility time: that of the first watched cell a regulator holds, when
    /// the watched cells are the marked ones, else of any).
    /// Arrivals only add cells ahead; a regulator's release is bounded by its time; a class
    /// change re-arms. A level's frame ends and RM cells are found without a scan
    /// (`LevelQueue`).
    pub fn watched_bound<F: Fn(Cell) -> bool>(
        &self,
        watch: Watch<F>,
        max: usize,
    ) -> (Option<usize>, Option<SimTime>, usize) {
        let mut cells: Option<usize> = None;
        let mut queued = 0;
        for q in &self.levels {
            queued += q.len();
            let first = match &watch {
                Watch::Nothing => None,
                Watch::Marked => q.first_marked(),
                Watch::Each(f) => q.iter().take(max).position(|&c| f(c)),
            };
            let k = match first {
                Some(p) => Some(p.min(max)),
                None => (q.len() > max).then_some(max),
            };
            cells = match (cells, k) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        // Best effort goes after every cell now in a level; its frame ends are found by a
        // scan (its cells were queued while the port ran as a FIFO, unmarked).
        let be = &self.best_effort;
        let first = match &watch {
            Watch::Nothing => None,
            Watch::Marked => be.iter().take(max).position(|c| c.is_eof_or_rm()),
            Watch::Each(f) => be.iter().take(max).position(|&c| f(c)),
        };
        let k = match first {
            Some(p) => Some((queued + p).min(max)),
            None => (be.len() > max).then_some(max),
        };
        cells = match (cells, k) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let eligible = match watch {
            Watch::Marked if self.mode == Mode::RcspNwc => self.first_marked_eligible(),
            _ => self.next_eligible(),
        };
        (cells, eligible, queued + be.len())
    }

    /// Cells held by regulators (not yet eligible).
    pub fn regulated_cells(&self) -> usize {
        self.regs.iter().flatten().map(|r| r.reg.waiting.len()).sum()
    }
}

impl OutPort {
    /// Set VC `vci`'s class at this port when the VC is set up (the signalling layer's call;
    /// its admission test is its own business). Static priority uses the level only; RCSP
    /// also needs `spec` and starts the VC's regulator afresh. On a FIFO or round-robin port
    /// this does nothing (every VC is served alike). Cells already queued keep their place.
    /// A scheduler at rest (`rest.rs`) takes the class as it rests: the VC's next cell wakes it.
    pub fn set_vc_class(&mut self, vci: u32, class: VcClass) -> Result<(), String> {
        match self.classes_mut() {
            Some(p) => p.set_class(vci, class),
            None => Ok(()),
        }
    }

    /// VC `vci` was released: later cells on that VCI are best effort. Cells already queued
    /// (in a regulator too) still leave in their turn.
    pub fn clear_vc_class(&mut self, vci: u32) {
        if let Some(p) = self.classes_mut() {
            p.clear_class(vci);
        }
    }

    /// After [`OutPort::start_next`] found nothing to send: the time at which a held cell
    /// becomes eligible, if the fabric must schedule a wake-up then (nwc only; `None` when one
    /// at or before that time is already pending, or nothing is held).
    #[inline]
    pub fn wake_needed(&mut self) -> Option<SimTime> {
        match &mut self.sched {
            super::sched::Scheduler::Priority(p) if p.mode == Mode::RcspNwc => p.wake_needed(),
            _ => None,
        }
    }

    /// A served-ahead port found nothing to send: when the first cell its regulators hold
    /// becomes eligible, if it is a non-work-conserving RCSP port holding one (it starts that
    /// cell then unless something else comes first).
    pub fn held_until(&self) -> Option<SimTime> {
        match &self.sched {
            super::sched::Scheduler::Priority(p) if p.mode == Mode::RcspNwc => p.next_eligible(),
            _ => None,
        }
    }

    /// An nwc port's [`OutPort::held_until`] for its first held frame end or RM cell.
    pub fn held_watched_until(&self) -> Option<SimTime> {
        match &self.sched {
            super::sched::Scheduler::Priority(p) if p.mode == Mode::RcspNwc => p.first_marked_eligible(),
            _ => None,
        }
    }

    /// A wake-up scheduled by [`OutPort::wake_needed`] fired at `now`.
    pub fn woken(&mut self, now: SimTime) {
        if let super::sched::Scheduler::Priority(p) = &mut self.sched {
            p.woken(now);
        }
    }
}

#[cfg(test)]
mod tests;
