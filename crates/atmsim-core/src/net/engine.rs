//! The engine of a running network: the event queue, the running instant, the instant's
//! agenda of admissions, and the batching rule.
//!
//! Owns: [`Engine`] (also the fabric's [`Clock`]), [`Due`] (a queue waiting for the
//! instant's admission phase), [`INLINE_RUN_MAX`], [`PROGRESS_WALL_PERIOD`].

use super::events::{kind, Ev};
use crate::atm::fabric::{AtmEv, Clock};
use crate::ids::PortId;
use crate::kernel::{rank, EventQueue, Ranked};
use crate::time::SimTime;

/// Longest wall-clock time between two progress reports of [`super::Network::run`].
pub const PROGRESS_WALL_PERIOD: std::time::Duration = std::time::Duration::from_millis(100);

/// Every this-many inline steps, batching hands one step back to the event queue.
pub const INLINE_RUN_MAX: u32 = 4096;

/// The running instant, the event queue, and the instant's agenda of admissions.
pub struct Engine {
    pub q: EventQueue<Ev>,
    pub now: SimTime,
    /// The end of the run (inclusive).
    pub until: SimTime,
    /// Serve ports ahead, drain switches and take servers' steps inline (module docs).
    pub batching: bool,
    /// Steps taken inline by batching (each would otherwise have been one event).
    pub inline_steps: u64,
    /// Inline steps left before batching hands one back to the queue ([`Engine::take_inline`]).
    pub inline_budget: u32,
    /// Queues (ATM ports, packet lines) holding arrivals of this instant, each with its place
    /// in the instant's order (a key prefix of kind [`kind::ADMIT`]): the run loop admits them
    /// there, before the first pending event that comes later (`cells.rs`, `admit_due_now`).
    pub admit_due: Vec<(u128, Due)>,
}

impl Engine {
    /// An engine at time zero with nothing pending.
    pub fn new(q: EventQueue<Ev>, until: SimTime, batching: bool) -> Self {
        Engine {
            q,
            now: SimTime::ZERO,
            until,
            batching,
            inline_steps: 0,
            inline_budget: INLINE_RUN_MAX,
            admit_due: Vec::new(),
        }
    }

    /// The running instant.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The end of the run.
    pub fn until(&self) -> SimTime {
        self.until
    }

    /// Whether steps are taken inline when nothing else comes first.
    pub fn batching(&self) -> bool {
        self.batching
    }

    /// Events the model executed: those popped from the queue and the steps taken inline.
    pub fn events(&self) -> (u64, u64) {
        (self.q.events_popped(), self.inline_steps)
    }

    /// The event queue (its tie order and counters).
    pub fn queue(&self) -> &EventQueue<Ev> {
        &self.q
    }

    /// The batching rule (module docs): a server's next step `ev` at `t` is taken inline iff
    /// batching is on, it is the event the queue would deliver next, within the run, and no
    /// port's admission is due before it.
    /// If so, the clock moves to `t` and the caller loops instead of scheduling an event.
    ///
    /// Every [`INLINE_RUN_MAX`]-th step goes through the queue all the same (the same
    /// result: nothing else is pending before `t`), so that the run loop regains control
    /// and can report progress, and see an interrupt, even where one server could otherwise
    /// batch the whole run inside a single event.
    #[inline(always)]
    pub fn take_inline(&mut self, t: SimTime, ev: Ev) -> bool {
        if !self.batching || self.inline_budget == 0 || !self.admit_due.is_empty() {
            if self.batching {
                self.inline_budget = INLINE_RUN_MAX;
            }
            return false;
        }
        if self.q.enter_inline(t, ev.rank(), self.until) {
            self.inline_budget -= 1;
            self.now = t;
            self.inline_steps += 1;
            true
        } else {
            false
        }
    }

    /// Whether an event of the instant's arrival phase is still pending (DESIGN §2b): then a
    /// queue offered something now admits it at the instant's admission phase.
    #[inline(always)]
    pub fn arrivals_pending(&self) -> bool {
        self.q.pending_before(rank(kind::ADMIT, 0))
    }

    /// Queue `due` holds arrivals of this instant: it admits them at its place in the
    /// instant's admission phase.
    #[inline]
    pub fn admit_later(&mut self, due: Due) {
        let entity = match due {
            Due::Port(p) => p.0,
            Due::Line(l) => l,
        };
        let at = self.q.prefix_now(rank(kind::ADMIT, entity));
        self.admit_due.push((at, due));
    }
}

/// The engine as the cell fabric sees it.
impl Clock for Engine {
    #[inline(always)]
    fn now(&self) -> SimTime {
        self.now
    }

    #[inline(always)]
    fn set_now(&mut self, t: SimTime) {
        self.now = t;
    }

    #[inline(always)]
    fn running(&self) -> SimTime {
        self.q.running_time()
    }

    #[inline(always)]
    fn schedule(&mut self, at: SimTime, ev: AtmEv) {
        self.q.schedule(at, Ev::Atm(ev));
    }

    #[inline]
    fn release_place(&self, at: SimTime, s: u32, armed: SimTime) -> u128 {
        self.q.prefix_of(at, rank(kind::SHAPE, s), armed == self.q.running_time())
    }

    #[inline]
    fn running_place(&self) -> u128 {
        self.q.running_prefix()
    }

    #[inline(always)]
    fn take_inline(&mut self, t: SimTime, ev: AtmEv) -> bool {
        Engine::take_inline(self, t, Ev::Atm(ev))
    }

    #[inline(always)]
    fn arrivals_pending(&self) -> bool {
        Engine::arrivals_pending(self)
    }

    #[inline(always)]
    fn admit_later(&mut self, p: PortId) {
        Engine::admit_later(self, Due::Port(p))
    }
}

/// `ck!(self)`: the network's [`Engine`] as the fabric's [`Clock`], borrowed beside
/// `self.fabric`.
macro_rules! ck {
    ($net:expr) => {
        &mut $net.eng
    };
}
pub(crate) use ck;

/// A queue whose arrivals of this instant wait for the admission phase ([`Engine::admit_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// An ATM output port.
    Port(PortId),
    /// A packet line (serial line direction or LAN medium), by index in [`crate::iface::Interfaces::lines`].
    Line(u32),
}
