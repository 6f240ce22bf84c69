//! A static-priority or RCSP scheduler at rest: while no VC of its port has a class and no
//! level queue or regulator holds a cell, the port keeps its cells in a plain FIFO and is
//! served as a FIFO port.
//!
//! Owns: the port's scheduler set aside ([`OutPort::classes_at_rest`]), when it rests
//! ([`OutPort::try_rest`]) and wakes ([`OutPort::wake_classes`]), and the questions that must
//! see it either way ([`OutPort::has_classes`], [`OutPort::priority_mode`],
//! [`OutPort::set_discipline`]).
//!
//! **Why it is exact.** With no classified VC every arriving cell joins best effort; with no
//! cell in a level or a regulator, [`Priority::pop`](super::Priority::pop) takes best effort's head, cells leave in
//! the order they arrived, signalling goes before any data cell
//! ([`Priority::guaranteed_ready`](super::Priority::guaranteed_ready) is false), work-conserving RCSP has no ineligible cell to
//! send early and non-work-conserving RCSP none to hold. That is the FIFO discipline's service
//! (`atm::sched`), cell for cell, so the port uses the FIFO's paths meanwhile: a served-ahead
//! port knows its frame ends' arrivals exactly and runs of completions go in one loop, and an
//! idle port lets trains through (`atm::fabric`). A static-priority port on which signalling
//! never classifies a VC is a FIFO port throughout.
//!
//! **When.** The scheduler wakes before a VC gets a class ([`OutPort::set_vc_class`]): best
//! effort takes the FIFO's cells in their order, and the caller brings the port up to date
//! before and arms it after (`net::qos`), since cells of the new class may now overtake. It
//! rests when the last class is cleared with its levels and regulators empty
//! ([`OutPort::clear_vc_class`]), or later, when the port finds nothing to send in that state.
//! Resting forgets a pending non-work-conserving wake-up: one that still fires finds the port
//! with nothing held, and does nothing. Regulators are kept, empty; a VC's next class resets
//! its own (as it always does).
//!
//! Cost measured (docs/performance.md, "Priority ports at rest"): in Mah's QoS runs most
//! cells cross ports on which no VC has a class (61 % of a static-priority port's starts on
//! the 60-s cut of `sp`).

use super::{LevelQueue, Mode};
use crate::atm::port::OutPort;
use crate::atm::sched::{Discipline, Scheduler};
use std::collections::VecDeque;

impl OutPort {
    /// Whether the port's discipline is static priority or RCSP (at rest or not): its VCs can
    /// have classes, and its summary reports regulator drops.
    pub fn has_classes(&self) -> bool {
        self.sched.has_classes() || self.classes_at_rest.is_some()
    }

    /// The static-priority or RCSP mode of the port's scheduler, at rest or not.
    pub fn priority_mode(&self) -> Option<Mode> {
        match (&self.sched, &self.classes_at_rest) {
            (Scheduler::Priority(p), _) | (_, Some(p)) => Some(p.mode),
            _ => None,
        }
    }

    /// Give an empty port discipline `d` (a scenario's QoS policy, at build time).
    pub fn set_discipline(&mut self, d: Discipline) {
        debug_assert!(self.occupancy == 0 && self.in_tx.is_none(), "a discipline changed under cells");
        self.sched = Scheduler::new(d, self.ser.rate().tx_time(crate::atm::cell::CELL_BITS));
        self.classes_at_rest = None;
        self.try_rest();
    }

    /// A static-priority or RCSP scheduler that serves as a FIFO would (module docs) rests: its
    /// best-effort cells become the port's FIFO.
    pub(in crate::atm) fn try_rest(&mut self) {
        let Scheduler::Priority(p) = &mut self.sched else { return };
        if !p.at_rest() {
            return;
        }
        let cells = p.best_effort.take_cells();
        p.wake_pending = None;
        let Scheduler::Priority(p) = std::mem::replace(&mut self.sched, Scheduler::Fifo(cells)) else {
            unreachable!("matched above")
        };
        self.classes_at_rest = Some(p);
    }

    /// The scheduler at rest, if any, takes the port's cells back as best effort.
    pub(super) fn wake_classes(&mut self) {
        let Some(mut p) = self.classes_at_rest.take() else { return };
        let Scheduler::Fifo(cells) = std::mem::replace(&mut self.sched, Scheduler::Fifo(VecDeque::new())) else {
            unreachable!("a port whose classes rest is a FIFO")
        };
        p.best_effort = LevelQueue::from_cells(cells);
        self.sched = Scheduler::Priority(p);
    }
}
