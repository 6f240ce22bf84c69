//! A static-priority or RCSP scheduler at rest: while no cell waits in a guaranteed level or a
//! regulator, its port keeps its cells in a plain FIFO and is served as a FIFO port.
//!
//! Owns: the port's scheduler set aside ([`OutPort::classes_at_rest`]), when it rests
//! ([`OutPort::try_rest`]) and wakes ([`OutPort::enqueue_waking`]), and the questions that must
//! see it either way ([`OutPort::has_classes`], [`OutPort::priority_mode`],
//! [`OutPort::set_discipline`], [`OutPort::classifies_at_rest`]).
//!
//! **Why it is exact.** With no cell in a level or a regulator, [`Priority::pop`] takes best
//! effort's head: cells leave in the order they arrived, signalling goes before any data cell
//! ([`Priority::guaranteed_ready`] is false), work-conserving RCSP has no ineligible cell to
//! send early and non-work-conserving RCSP none to hold. That is the FIFO discipline's service
//! (`atm::sched`), cell for cell, as long as every arriving cell joins best effort, so the
//! port uses the FIFO's paths meanwhile: a served-ahead port's runs of completions go in one
//! loop, and an idle port lets trains through (`atm::fabric`) — except a classified VC's
//! cells, which wake the scheduler instead.
//!
//! **When.** The scheduler wakes when a cell of a VC with a class arrives — unless, at a
//! static-priority port, that cell finds the port idle and empty and a switch admitted it:
//! the port starts it at once, before anything else can join, as every discipline would
//! ([`OutPort::starts_alone`]; an adapter's frame and RCSP's cells always wake it). Best effort takes
//! the FIFO's cells (a move, not a copy), and the cell joins its level or regulator. It rests
//! again as soon as its levels and regulators are empty after a cell starts, or when the port
//! finds nothing to send. A class set or cleared while it rests is kept in the scheduler set
//! aside. Resting forgets a pending non-work-conserving wake-up: one that still fires finds
//! the port with nothing held, and does nothing.
//!
//! **Frame ends armed while at rest.** A served-ahead FIFO port arms the arrival of its next
//! frame end at the time that cell will end (`atm::fabric::ahead`, `arm_arrival`). At a port
//! at rest with classified VCs that time can come too early, never too late: a classified
//! cell arriving later may go first, but nothing can make a queued cell start sooner. An early
//! arrival event finds the frame end not yet there, and the port arms again for it
//! (`Fabric::arrived`); the frame end's own arrival gets its event when it starts
//! (`Fabric::launched`), so it still arrives at its instant.
//!
//! Cost measured (docs/performance.md, "Priority ports at rest").

use super::{Mode, Priority};
use crate::atm::cell::Cell;
use crate::atm::port::OutPort;
use crate::atm::sched::{Discipline, Scheduler};
use crate::time::SimTime;
use std::collections::VecDeque;

impl OutPort {
    /// Whether the port's discipline is static priority or RCSP (at rest or not): its VCs can
    /// have classes, and its summary reports regulator drops.
    pub fn has_classes(&self) -> bool {
        self.sched.has_classes() || self.classes_at_rest.is_some()
    }

    /// The static-priority or RCSP mode of the port's scheduler, at rest or not.
    pub fn priority_mode(&self) -> Option<Mode> {
        self.classes().map(|p| p.mode)
    }

    /// The port's static-priority or RCSP scheduler, at rest or not.
    pub fn classes(&self) -> Option<&Priority> {
        match (&self.sched, &self.classes_at_rest) {
            (Scheduler::Priority(p), _) | (_, Some(p)) => Some(p),
            _ => None,
        }
    }

    /// [`OutPort::classes`], to change.
    pub(super) fn classes_mut(&mut self) -> Option<&mut Priority> {
        match (&mut self.sched, &mut self.classes_at_rest) {
            (Scheduler::Priority(p), _) | (_, Some(p)) => Some(p),
            _ => None,
        }
    }

    /// Whether the port's scheduler rests and VC `vci` has a class at it: the VC's next cell
    /// wakes it, and cannot pass the port as a FIFO port's cell would.
    #[inline]
    pub fn classifies_at_rest(&self, vci: u32) -> bool {
        self.classes_at_rest.as_ref().is_some_and(|p| p.classifies(vci))
    }

    /// Whether a cell of a classified VC reaching this port, whose scheduler rests, would start
    /// at once and alone: static priority (no regulator must see it), the transmitter idle,
    /// nothing queued (control cells included). Its port is started before anything else joins
    /// ([`OutPort::enqueue_offered`], `Fabric::pass_through`).
    #[inline]
    pub(in crate::atm) fn starts_alone(&self) -> bool {
        self.classes_at_rest.as_ref().is_some_and(|p| p.mode == Mode::Static)
            && self.in_tx.is_none()
            && self.ctrl.is_empty()
            && matches!(&self.sched, Scheduler::Fifo(q) if q.is_empty())
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
        if !p.at_rest() || self.wake_at != SimTime::MAX {
            return;
        }
        let cells = std::mem::take(&mut p.best_effort);
        p.wake_pending = None;
        let Scheduler::Priority(p) = std::mem::replace(&mut self.sched, Scheduler::Fifo(cells)) else {
            unreachable!("matched above")
        };
        self.classes_at_rest = Some(p);
    }

    /// A data cell of a VC with a class reaches a port whose scheduler rests: the scheduler
    /// wakes, taking the port's cells back as best effort, and queues the cell. False if an
    /// RCSP regulator refused it (the scheduler rests again).
    #[cold]
    #[inline(never)]
    pub(in crate::atm) fn enqueue_waking(&mut self, now: SimTime, cell: Cell) -> bool {
        self.wake_classes();
        let queued = self.enqueue_priority(now, cell);
        if !queued {
            self.try_rest();
        }
        queued
    }

    /// The scheduler at rest, if any, wakes: best effort takes the port's FIFO.
    pub(in crate::atm) fn wake_classes(&mut self) {
        let Some(mut p) = self.classes_at_rest.take() else { return };
        let Scheduler::Fifo(cells) = std::mem::replace(&mut self.sched, Scheduler::Fifo(VecDeque::new())) else {
            unreachable!("a port whose scheduler rests is a FIFO")
        };
        p.best_effort = cells;
        self.sched = Scheduler::Priority(p);
    }
}
