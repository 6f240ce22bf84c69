//! A served-ahead port's bookkeeping (module docs of [`super`], "Serving ahead"): when it is
//! next due, what it does then, and which of its events are pending.
//!
//! Owns the steps the fabric ([`crate::atm::fabric::ahead`]) takes on a port it serves ahead,
//! as [`OutPort`] methods: the port says what is due ([`OutPort::next_step`]) and keeps its
//! `due`, `release_at`, `wake_at`, `tx_event` and `shape_watch` times consistent as cells
//! start, complete and are released; the fabric, which also runs the links, the shapers and
//! the clock, carries the steps out.

use super::OutPort;
use crate::atm::cell::Cell;
use crate::ids::LinkId;
use crate::time::{SimDuration, SimTime};

/// What a served-ahead port does next, up to some instant ([`OutPort::next_step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AheadStep {
    /// Nothing is due by then.
    Idle,
    /// It is idle and waits for a held cell to become eligible (a non-work-conserving RCSP
    /// port): start it.
    Wake,
    /// Its shapers release at `at` (before the cell in transmission ends, or with the port
    /// idle); `alone`: the port is idle with one shaper, whose cells may pass one at a time.
    Release { at: SimTime, alone: bool },
    /// The cell in transmission ends.
    Complete,
}

impl OutPort {
    /// The cell in transmission started and ends at `done`: the port is next due then (or at
    /// its next release, if sooner). The cell and the link it goes onto.
    #[inline]
    pub fn launched(&mut self, done: SimTime) -> (Cell, LinkId) {
        self.tx_done = done;
        self.due = done.min(self.release_at);
        (self.in_tx.expect("launched without a cell"), self.link)
    }

    /// Whether anything is due at or before `t`.
    #[inline]
    pub fn is_due(&self, t: SimTime) -> bool {
        self.due <= t
    }

    /// What is due by `t`, in the model's order: a completion before a release at the same
    /// instant (a release is an arrival, DESIGN §2b).
    #[inline]
    pub fn next_step(&self, t: SimTime) -> AheadStep {
        if self.due > t {
            return AheadStep::Idle;
        }
        if self.in_tx.is_none() && self.wake_at != SimTime::MAX {
            // Only an idle nwc RCSP port waits for eligibility (never with shapers).
            return AheadStep::Wake;
        }
        if self.in_tx.is_none() || self.release_at < self.tx_done {
            let alone = self.in_tx.is_none() && self.shapers.len() == 1;
            return AheadStep::Release { at: self.release_at, alone };
        }
        AheadStep::Complete
    }

    /// The cell in transmission ends: it leaves the port (counted), with the time it ended.
    #[inline]
    pub fn complete(&mut self) -> (SimTime, Cell) {
        let cell = self.in_tx.take().expect("complete an idle port");
        self.stats.cells_tx += 1;
        (self.tx_done, cell)
    }

    /// The port found nothing to start at `t` and sleeps; it is next due at its next release.
    /// Whether its scheduler may hold cells to start later (then the fabric arranges a wake).
    /// Out of line: inlined into the fabric's completion loop it cost a busy port two
    /// instructions per cell in the scheduler's dispatch (cachegrind, 64 round-robin VCs).
    #[inline(never)]
    pub fn went_idle(&mut self, t: SimTime) -> bool {
        self.sleep(t);
        self.due = self.release_at;
        self.sched.may_hold_cells()
    }

    /// Whether more completions are due by `t` and run plain ([`OutPort::runs_plain_until`]).
    #[inline]
    pub fn completes_plainly_by(&self, t: SimTime) -> bool {
        self.tx_done <= t && self.runs_plain_until(t)
    }

    /// Whether `cell`, which just left, ends a frame of a source waiting to hear of it.
    #[inline]
    pub fn frame_left_notifies(&self, cell: Cell) -> bool {
        self.notifies(cell)
    }

    /// The first unit of the transmitter (one cell time) and the port's one shaper, for an
    /// idle port passing that shaper's cells one at a time.
    pub fn lone_shaper(&self) -> (SimDuration, u32) {
        (self.ser.first_unit(), self.shapers[0])
    }

    /// The port's shapers release next at `next` (`SimTime::MAX`: none); it is next due then
    /// or when its cell in transmission ends, whichever comes first.
    #[inline]
    pub fn releases_next(&mut self, next: SimTime) {
        self.release_at = next;
        self.due = next.min(if self.in_tx.is_some() { self.tx_done } else { SimTime::MAX });
    }

    /// A shaper the port releases was armed for cells due at `at`: the port is due by then.
    /// Its link, and whether it watches frame ends.
    pub fn release_due(&mut self, at: SimTime) -> (LinkId, bool) {
        self.release_at = self.release_at.min(at);
        self.due = self.due.min(at);
        (self.link, self.watch_ends)
    }

    /// An idle nwc RCSP port whose regulators hold cells: it waits until the first becomes
    /// eligible, and is due then. None if it holds none.
    pub fn hold(&mut self) -> Option<SimTime> {
        self.wake_at = SimTime::MAX;
        let w = self.held_until()?;
        self.wake_at = w;
        self.due = self.due.min(w);
        Some(w)
    }

    /// When a held port needs its next event: at the first held cell's eligibility, unless it
    /// watches only frame ends and RM cells on a link that gives no other cell an event
    /// (`link_steps` false) — then at the first of those a regulator holds, if any.
    pub fn wake_time(&self, link_steps: bool) -> Option<SimTime> {
        if !self.watch_ends || self.notify || link_steps {
            Some(self.wake_at)
        } else {
            self.held_watched_until()
        }
    }

    /// The held port wakes: the time it waited for (at most the caller's instant).
    pub fn take_wake(&mut self) -> SimTime {
        let w = std::mem::replace(&mut self.wake_at, SimTime::MAX);
        debug_assert!(self.release_at == SimTime::MAX);
        w
    }

    /// Whether the port is idle, waiting for a held cell to become eligible.
    pub fn waits_for_eligibility(&self) -> bool {
        self.in_tx.is_none() && self.wake_at != SimTime::MAX
    }

    /// When the next cell the port sends ends, if it is served ahead and one is on its way:
    /// the cell in transmission, else the first of the next shaper release (exact when the
    /// port is idle until then: a train starts with a first unit).
    #[inline]
    pub fn next_cell_end(&self) -> Option<SimTime> {
        if !self.lazy {
            return None;
        }
        if self.in_tx.is_some() {
            return Some(self.tx_done);
        }
        (self.release_at != SimTime::MAX).then(|| self.release_at + self.ser.first_unit())
    }

    /// Whether the port is served ahead and some cell's end matters (it watches frame ends or
    /// tells a source of them): then it arms events for them.
    #[inline]
    pub fn watches(&self) -> bool {
        self.lazy && (self.watch_ends || self.notify)
    }

    /// The host shapers the port releases itself, in index order.
    #[inline]
    pub fn own_shapers(&self) -> &[u32] {
        &self.shapers
    }

    /// The port's event at `now` runs: it is no longer pending.
    #[inline]
    pub fn tx_event_ran(&mut self, now: SimTime) {
        if self.tx_event == now {
            self.tx_event = SimTime::MAX;
        }
    }

    /// The port needs an event at `t`: true if none that comes no later is pending (it is
    /// pending from here on).
    #[inline]
    pub fn tx_event_needed(&mut self, t: SimTime) -> bool {
        if t < self.tx_event {
            self.tx_event = t;
            return true;
        }
        false
    }

    /// The port's shapers' watched release event at `now` runs: it is no longer pending.
    pub fn shape_watch_ran(&mut self, now: SimTime) {
        if self.shape_watch == now {
            self.shape_watch = SimTime::MAX;
        }
    }

    /// The port needs a shaper release event at `t` for a watched cell: true if none that
    /// comes no later is pending (it is pending from here on).
    pub fn shape_watch_needed(&mut self, t: SimTime) -> bool {
        if t < self.shape_watch {
            self.shape_watch = t;
            return true;
        }
        false
    }

    /// Before the run: the port is served ahead if `lazy`; it watches its frame ends if
    /// `watch_ends` (its link ends at a host); it tells cell sources of their frames if one
    /// of its VCs asks.
    pub fn prime_ahead(&mut self, lazy: bool, watch_ends: bool) {
        self.lazy = lazy;
        self.watch_ends = watch_ends;
        self.notify = self.vcs.iter().any(|v| v.notify_source);
    }

    /// Whether the port releases its host shapers itself: served ahead, FIFO or round robin,
    /// and no source waits on its frames.
    pub fn may_release_shapers(&self) -> bool {
        self.lazy && !self.has_classes() && !self.notify
    }

    /// Host shaper `s` is released by the port itself from now on.
    pub fn add_own_shaper(&mut self, s: u32) {
        self.shapers.push(s);
    }

    /// The port belongs to switch `s`, drained by its readers
    /// ([`crate::atm::fabric::drained`]).
    pub fn set_drainer(&mut self, s: u32) {
        self.drained_by = s;
    }

    /// The drained switch the port belongs to, if any.
    #[inline]
    pub fn drainer(&self) -> Option<u32> {
        (self.drained_by != u32::MAX).then_some(self.drained_by)
    }

    /// The port's frame ends must start on time from now on (its link ends at a switch
    /// drained by its readers).
    pub fn watch_frame_ends(&mut self) {
        self.watch_ends = true;
    }

    /// One cell time of the transmitter (its first unit).
    #[inline]
    pub fn cell_time(&self) -> SimDuration {
        self.ser.first_unit()
    }

    /// When the cell in transmission ends, if the port is served ahead and sending one.
    #[inline]
    pub fn sending_until(&self) -> Option<SimTime> {
        if self.lazy { self.in_tx.map(|_| self.tx_done) } else { None }
    }

    /// The port found nothing to start at `t` and sleeps (a port with an event per cell).
    /// Whether its scheduler may hold cells to start later.
    #[inline]
    pub fn rests(&mut self, t: SimTime) -> bool {
        self.sleep(t);
        self.sched.may_hold_cells()
    }

    /// Whether a port that just started a cell needs arming: cells wait, or the cell it sends
    /// may notify a source.
    pub fn needs_arming(&self) -> bool {
        self.queued_cells() > 0 || self.notify
    }
}
