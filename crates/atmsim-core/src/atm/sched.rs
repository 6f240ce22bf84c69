//! Cell schedulers of an output port: which queued cell goes out next.
//!
//! Owns: [`Scheduler`] and its disciplines.
//!
//! - **FIFO**: one queue shared by all VCs; cells leave in arrival order.
//! - **Round robin**, cell by cell over per-VC queues, with the *token queue* of Cáceres §8:
//!   a queue of tokens names the non-empty cell queues. A cell arriving at an empty VC queue
//!   appends that VC's token; the server takes the front token, sends one cell of that VC,
//!   and puts the token back at the end if the VC still has cells (else drops it). O(1) per
//!   cell; idle queues are never scanned.
//! - **Static priority** and **RCSP** (work-conserving and not): per-level queues, per-VC
//!   classes and regulators, in [`super::priority`] (Mah §2.3, §4.3.1; Zhang & Ferrari 1993).
//!
//! `push` and `pop` take the current time, which only the rate-controlled disciplines read;
//! the FIFO arm comes first and does exactly what it did before they existed.

use super::cell::Cell;
use super::priority::{Mode, Priority};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Scheduling discipline, as named in scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    #[default]
    Fifo,
    RoundRobin,
    /// Static priority: levels 0–3, signalling, best effort (Mah `sp`).
    StaticPriority,
    /// Work-conserving RCSP (Mah `wc`).
    RcspWc,
    /// Non-work-conserving RCSP, rate-jitter control (Mah `nwc`).
    RcspNwc,
}

impl Discipline {
    /// Every discipline, in declaration order.
    pub const ALL: [Discipline; 5] =
        [Discipline::Fifo, Discipline::RoundRobin, Discipline::StaticPriority, Discipline::RcspWc, Discipline::RcspNwc];

    /// Its name in scenarios (serde's).
    pub const fn name(self) -> &'static str {
        match self {
            Discipline::Fifo => "fifo",
            Discipline::RoundRobin => "round_robin",
            Discipline::StaticPriority => "static_priority",
            Discipline::RcspWc => "rcsp_wc",
            Discipline::RcspNwc => "rcsp_nwc",
        }
    }

    /// Whether the discipline has per-VC classes (and signalling below guaranteed levels).
    pub fn has_classes(self) -> bool {
        matches!(self, Discipline::StaticPriority | Discipline::RcspWc | Discipline::RcspNwc)
    }
}

/// The queues of one port and the discipline that serves them.
///
/// `repr(u8)`: an explicit tag byte, so telling the variants apart per cell is one load and one
/// compare (with the niche of a `VecDeque` capacity as the tag, three variants cost several).
#[repr(u8)]
pub enum Scheduler {
    Fifo(VecDeque<Cell>),
    RoundRobin {
        /// Tokens of non-empty VC queues, in service order.
        tokens: VecDeque<u32>,
        /// Per-VC cell queues, indexed by VCI.
        queues: Vec<VecDeque<Cell>>,
    },
    /// Static priority or RCSP (boxed: rarely used, keeps the port's hot fields together).
    Priority(Box<Priority>),
}

impl Scheduler {
    /// The queues of discipline `d` at a port whose cell time is `cell_time` (the regulators'
    /// release clock is 8 cell times).
    pub fn new(d: Discipline, cell_time: SimDuration) -> Self {
        let prio = |m| Scheduler::Priority(Box::new(Priority::new(m, cell_time)));
        match d {
            Discipline::Fifo => Scheduler::Fifo(VecDeque::new()),
            Discipline::RoundRobin => Scheduler::RoundRobin { tokens: VecDeque::new(), queues: Vec::new() },
            Discipline::StaticPriority => prio(Mode::Static),
            Discipline::RcspWc => prio(Mode::RcspWc),
            Discipline::RcspNwc => prio(Mode::RcspNwc),
        }
    }

    /// Queue a cell arriving at `now` (admission was decided by the caller). False only if an
    /// RCSP regulator refused it (its 2-second queue is full): the cell was not queued.
    #[inline(always)]
    pub fn push(&mut self, now: SimTime, cell: Cell) -> bool {
        match self.push_plain(cell) {
            Ok(()) => true,
            Err(cell) => match self {
                Scheduler::Priority(p) => p.push(now, cell),
                _ => unreachable!("push_plain refuses only for a priority scheduler"),
            },
        }
    }

    /// [`Scheduler::push`] for FIFO and round robin; `Err(cell)` (nothing done) for a priority
    /// scheduler. The port's per-cell path: one tag test, as before the priority disciplines.
    #[inline(always)]
    pub fn push_plain(&mut self, cell: Cell) -> Result<(), Cell> {
        match self {
            Scheduler::Fifo(q) => {
                q.push_back(cell);
                Ok(())
            }
            Scheduler::RoundRobin { tokens, queues } => {
                let v = cell.vci as usize;
                if v >= queues.len() {
                    queues.resize_with(v + 1, VecDeque::new);
                }
                let q = &mut queues[v];
                if q.is_empty() {
                    tokens.push_back(cell.vci);
                }
                q.push_back(cell);
                Ok(())
            }
            Scheduler::Priority(_) => Err(cell),
        }
    }

    /// The next cell to transmit at `now`, if any.
    #[inline(always)]
    pub fn pop(&mut self, now: SimTime) -> Option<Cell> {
        match self {
            Scheduler::Priority(p) => p.pop(now),
            _ => self.pop_plain(),
        }
    }

    /// [`Scheduler::pop`] for FIFO and round robin; always `None` for a priority scheduler
    /// (whose pop needs the time): the port asks [`Scheduler::has_classes`] only then.
    #[inline(always)]
    pub fn pop_plain(&mut self) -> Option<Cell> {
        match self {
            Scheduler::Fifo(q) => q.pop_front(),
            Scheduler::RoundRobin { tokens, queues } => {
                let v = tokens.pop_front()?;
                let q = &mut queues[v as usize];
                let c = q.pop_front();
                debug_assert!(c.is_some(), "token for an empty queue");
                if !q.is_empty() {
                    tokens.push_back(v);
                }
                c
            }
            Scheduler::Priority(_) => None,
        }
    }

    /// Whether a cell of a guaranteed level (0–3) is eligible at `now`: the control FIFO
    /// (signalling) waits for it. Always false for FIFO and round robin, whose control FIFO
    /// comes first.
    #[inline]
    pub fn guaranteed_ready(&mut self, now: SimTime) -> bool {
        match self {
            Scheduler::Priority(p) => p.guaranteed_ready(now),
            _ => false,
        }
    }

    /// Whether this is a static-priority or RCSP scheduler ([`super::priority`]): per-VC class
    /// levels, and a pop that needs the time.
    #[inline]
    pub fn has_classes(&self) -> bool {
        matches!(self, Scheduler::Priority(_))
    }

    /// Whether the port may go idle while holding cells that become eligible later, and so may
    /// need a wake-up ([`super::priority::Priority::wake_needed`]): a static-priority or RCSP
    /// scheduler, of which only non-work-conserving RCSP ever does.
    #[inline]
    pub fn may_hold_cells(&self) -> bool {
        matches!(self, Scheduler::Priority(_))
    }

    /// Number of non-empty VC queues holding tokens (round robin) — for tests and probes.
    pub fn active_vcs(&self) -> usize {
        match self {
            Scheduler::Fifo(_) => 0,
            Scheduler::RoundRobin { tokens, .. } => tokens.len(),
            Scheduler::Priority(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(vci: u32, frame: u32) -> Cell {
        Cell { vci, frame, flags: 0 }
    }

    #[test]
    fn round_robin_interleaves_backlogged_vcs_cell_by_cell() {
        let mut s = Scheduler::new(Discipline::RoundRobin, SimDuration::ZERO);
        for i in 0..3 {
            s.push(SimTime::ZERO, cell(40, i));
        }
        for i in 0..3 {
            s.push(SimTime::ZERO, cell(33, 10 + i));
        }
        s.push(SimTime::ZERO, cell(35, 20));
        let order: Vec<u32> = std::iter::from_fn(|| s.pop(SimTime::ZERO).map(|c| c.vci)).collect();
        assert_eq!(order, vec![40, 33, 35, 40, 33, 40, 33]);
    }

    #[test]
    fn round_robin_keeps_one_token_per_nonempty_queue() {
        let mut s = Scheduler::new(Discipline::RoundRobin, SimDuration::ZERO);
        s.push(SimTime::ZERO, cell(5, 0));
        s.push(SimTime::ZERO, cell(5, 1));
        s.push(SimTime::ZERO, cell(7, 2));
        assert_eq!(s.active_vcs(), 2);
        s.pop(SimTime::ZERO);
        s.pop(SimTime::ZERO);
        assert_eq!(s.active_vcs(), 1);
        s.pop(SimTime::ZERO);
        assert_eq!(s.active_vcs(), 0);
        assert!(s.pop(SimTime::ZERO).is_none());
    }

    #[test]
    fn fifo_preserves_arrival_order_across_vcs() {
        let mut s = Scheduler::new(Discipline::Fifo, SimDuration::ZERO);
        for (v, f) in [(40, 0), (33, 1), (40, 2)] {
            s.push(SimTime::ZERO, cell(v, f));
        }
        let order: Vec<u32> = std::iter::from_fn(|| s.pop(SimTime::ZERO).map(|c| c.frame)).collect();
        assert_eq!(order, vec![0, 1, 2]);
    }

    proptest::proptest! {
        /// Fairness: while k VCs are backlogged, any window of k consecutive departures
        /// contains each of them exactly once; and every cell leaves exactly once.
        #[test]
        fn round_robin_is_fair_and_loses_nothing(backlogs in proptest::collection::vec(1usize..30, 1..12)) {
            let mut s = Scheduler::new(Discipline::RoundRobin, SimDuration::ZERO);
            let mut n = 0u32;
            for (v, &b) in backlogs.iter().enumerate() {
                for _ in 0..b { s.push(SimTime::ZERO, cell(v as u32, n)); n += 1; }
            }
            let out: Vec<u32> = std::iter::from_fn(|| s.pop(SimTime::ZERO).map(|c| c.vci)).collect();
            proptest::prop_assert_eq!(out.len(), n as usize);
            // Per-VC FIFO order and fair rounds.
            let mut remaining = backlogs.clone();
            let mut i = 0;
            while i < out.len() {
                let active: Vec<usize> = (0..remaining.len()).filter(|&v| remaining[v] > 0).collect();
                let round = &out[i..i + active.len()];
                let mut seen: Vec<usize> = round.iter().map(|&v| v as usize).collect();
                seen.sort();
                proptest::prop_assert_eq!(&seen, &active);
                for &v in round { remaining[v as usize] -= 1; }
                i += active.len();
            }
        }
    }
}
