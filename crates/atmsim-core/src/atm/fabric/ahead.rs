//! Ports served ahead (`atm::port` module docs, "Serving ahead"): a port takes no event per
//! cell.
//!
//! Owns bringing such a port up to an instant (`advance`: its completions, the releases of
//! the host shapers it drains — a lone shaper's cells that each find the port idle and leave
//! it before the next release pass it in one step, `pass_released` — and a
//! non-work-conserving RCSP port's start of a cell that
//! became eligible while it was idle, `hold`, carried out late with the times they had), the
//! arrival event a started cell needs at the far end of its link (`launched`, the link's chain
//! armed at a time: `next_arrival`, `rearm_link`), and the one event the port keeps for what
//! cannot wait — an end-of-frame or RM cell bound for a host must have started by its start
//! time, and a cell source is told at the instant its frame's last cell ends (`arm`,
//! `port_due`) — or, when the port knows such a cell's end exactly, that cell's arrival event
//! made at once instead (`arm_arrival`, `arrived`). Every caller
//! that reaches or reads a served-ahead port brings it up to its own instant first: arrivals
//! and pushes at the instant (after its completions, DESIGN §2b), the link's arrival chain at
//! the instant less the propagation delay, probes at the instant's left limit, the end of the
//! run at its end.

use super::{AtmEv, Clock, Fabric, Up};
use crate::atm::cell::{flags, Cell};
use crate::atm::port::ahead::AheadStep;
use super::link::each;
use crate::atm::link::Sink;
use crate::ids::{LinkId, PortId};
use crate::time::SimTime;

impl Fabric {
    /// A served-ahead port (`atm::port` module docs, "Serving ahead") started a cell that
    /// ends at `done`: the cell's arrival at the far end gets its event now, since no port
    /// event will put it on the link in time.
    #[inline]
    pub fn launched(&mut self, ck: &mut impl Clock, p: PortId, done: SimTime) {
        let (cell, l) = self.ports[p.idx()].launched(done);
        let at = done + self.links[l.idx()].delay;
        self.arrival_event(ck, l, at, cell);
    }

    /// Bring served-ahead port `p` up to `t` (at most `ck.now()`): every cell whose
    /// transmission ends at or before `t` leaves onto the link, and the next one starts at that
    /// instant, chosen from the cells present then — what the port's own events would have
    /// done, in the model's order (completions before the instant's arrivals, DESIGN §2b),
    /// since every arrival to the port and every reader of it brings it up to date first.
    #[inline]
    pub fn advance(&mut self, ck: &mut impl Clock, p: PortId, t: SimTime) {
        if let Some(s) = self.drainer_of(p) {
            if self.switches[s as usize].drained_to < t {
                // Its switch's arrivals before `t` first (`drained.rs`).
                self.drain(ck, s, t, false);
            }
        }
        if self.ports[p.idx()].is_due(t) {
            self.advance_to(ck, p, t);
        }
    }

    /// Bring host port `p` up to now before the host queues a frame into it or into one of its
    /// shapers: its completions up to now, and its shapers' releases whose place in the order
    /// of events the running one has reached (a release is an arrival, DESIGN §2b). A frame
    /// queued by an event earlier in the instant (a CPU finishing a job, or any event of a
    /// generation before the release's) goes in before them, as with their own events.
    pub fn advance_for_push(&mut self, ck: &mut impl Clock, p: PortId) {
        let now = ck.now();
        if self.ports[p.idx()].is_due(now) {
            self.advance_to(ck, p, now);
        }
    }

    /// [`Fabric::advance`] once something is due: completions and shaper releases up to `t`,
    /// in time order; a release at the running instant only once the running event has
    /// reached its place ([`Fabric::release_shapers`]).
    pub fn advance_to(&mut self, ck: &mut impl Clock, p: PortId, t: SimTime) {
        loop {
            match self.ports[p.idx()].next_step(t) {
                AheadStep::Idle => break,
                AheadStep::Wake => {
                    self.wake_held(ck, p, t);
                    continue;
                }
                AheadStep::Release { at, alone } => {
                    // A shaper's release is an arrival: after a completion at the same instant.
                    if alone && self.pass_released(ck, p, t) {
                        continue;
                    }
                    if !self.release_shapers(ck, p, at) {
                        break;
                    }
                    continue;
                }
                AheadStep::Complete => {}
            }
            let port = &mut self.ports[p.idx()];
            let (d, cell) = port.complete();
            self.cell_hops += 1;
            let link = &mut self.links[port.link.idx()];
            link.pipe.push_back((d + link.delay, cell));
            match port.start_next(d) {
                Some(done) => self.launched(ck, p, done),
                None => {
                    if port.went_idle(d) {
                        self.hold(ck, p, t);
                    }
                }
            }
            let port = &self.ports[p.idx()];
            if port.frame_left_notifies(cell) {
                debug_assert_eq!(d, ck.now(), "a source's frame left before its port's event");
                self.up.push(Up::FrameLeft { port: p, cell });
            }
            // More completions due: the plain ones in one loop (a port that completes one cell
            // per call pays this one comparison).
            let port = &self.ports[p.idx()];
            if port.completes_plainly_by(t) && self.links[port.link.idx()].each & each::STEP == 0 {
                self.complete_run(p, t);
            }
        }
        // No re-arming: the cells still waiting were armed for when they were queued (the
        // pending event comes no later than any of their starts), and a port event re-arms.
    }

    /// Idle served-ahead host port `p`, whose one shaper is due, passes the cells that shaper
    /// releases one at a time before the running instant, each a plain data cell ending by `t`
    /// and before the next release: each is released, queued, started, sent and put on the
    /// link in one step ([`Shaper::release_alone`], [`OutPort::pass_released`]), as the
    /// release and the port's completion would have done it, since the port holds nothing
    /// else meanwhile and nothing reaches or reads it before `t`. Such a cell needs no arrival
    /// event (a link that gives every cell one is left to the general step). True if any
    /// passed.
    ///
    /// [`Shaper::release_alone`]: crate::atm::shaping::Shaper::release_alone
    /// [`OutPort::pass_released`]: crate::atm::port::OutPort::pass_released
    #[inline(never)]
    fn pass_released(&mut self, ck: &mut impl Clock, p: PortId, t: SimTime) -> bool {
        let port = &mut self.ports[p.idx()];
        let link = &mut self.links[port.link.idx()];
        if link.each != 0 || !port.is_idle_fifo_but_for_shapers() {
            return false;
        }
        let (q, s) = port.lone_shaper();
        let sh = &mut self.shapers.list[s as usize];
        let (delay, running) = (link.delay, ck.running());
        let (mut n, mut last) = (0, SimTime::ZERO);
        loop {
            let r = sh.next_at;
            if r >= running || r + q > t {
                break;
            }
            let Some(cell) = sh.release_alone(r, r + q) else { break };
            let d = port.pass_released(r);
            debug_assert_eq!(d, q);
            link.pipe.push_back((r + d + delay, cell));
            (n, last) = (n + 1, r);
        }
        if n == 0 {
            return false;
        }
        self.cell_hops += n;
        let next = sh.next_at;
        if next != SimTime::MAX {
            // Armed by the release at `last`, as `release_shapers` arms it.
            sh.arm_place(ck.release_place(next, s, last));
        }
        debug_assert!(!port.is_busy(), "cells passed one at a time leave the port idle");
        port.releases_next(next);
        true
    }

    /// [`Fabric::advance_to`]'s run of plain completions up to `t` at FIFO port `p`, whose
    /// link gives no cell but frame ends and RM cells an arrival event
    /// ([`OutPort::complete_plain_run`](crate::atm::port::OutPort::complete_plain_run)), out of
    /// line so that the single steps stay light.
    #[inline(never)]
    fn complete_run(&mut self, p: PortId, t: SimTime) {
        let port = &mut self.ports[p.idx()];
        let link = &mut self.links[port.link.idx()];
        self.cell_hops += port.complete_plain_run(t, &mut link.pipe, link.delay);
    }

    /// Served-ahead port `p` went idle, brought up to `t`: if it is a non-work-conserving RCSP
    /// port whose regulators hold cells, it starts the first when that becomes eligible
    /// ([`OutPort::wake_at`](crate::atm::port::OutPort::wake_at)), by an event of its own unless that comes by `t` (the event comes
    /// late in the run if a drain found the port idle at an earlier instant; the cell still
    /// starts at its time, as every step of a served-ahead port).
    #[cold]
    #[inline(never)]
    pub fn hold(&mut self, ck: &mut impl Clock, p: PortId, t: SimTime) {
        if self.ports[p.idx()].hold().is_none() {
            return;
        }
        if let Some(at) = self.wake_event(p).filter(|&at| at > t) {
            self.port_event_at(ck, p, at);
        }
    }

    /// When idle nwc port `p`, whose regulators hold cells, needs its next event: at the first
    /// one's eligibility, unless it watches only frame ends and RM cells on a link that gives
    /// no other cell an event — then at the first of those a regulator holds (none if it holds
    /// none). Every reader brings such a port up to date first, starting the held cells at
    /// their times, as a FIFO port's plain cells need no event.
    fn wake_event(&self, p: PortId) -> Option<SimTime> {
        let port = &self.ports[p.idx()];
        port.wake_time(self.links[port.link.idx()].each & each::STEP != 0)
    }

    /// Idle served-ahead port `p` starts at its [`OutPort::wake_at`](crate::atm::port::OutPort::wake_at) (at most `t`) the cell that
    /// became eligible then, as a wake-up event does with batching off: before the instant's
    /// arrivals (DESIGN §2b: a server's step).
    #[cold]
    #[inline(never)]
    fn wake_held(&mut self, ck: &mut impl Clock, p: PortId, t: SimTime) {
        let port = &mut self.ports[p.idx()];
        let w = port.take_wake();
        debug_assert!(w <= t);
        port.wake(w);
        match port.start_next(w) {
            Some(done) => self.launched(ck, p, done),
            None => {
                port.went_idle(w);
                self.hold(ck, p, t);
            }
        }
    }

    /// The shapers of served-ahead port `p` due at `r` release their conforming cells into it,
    /// in index order, each followed by the transmitter starting if idle — what their `Shape`
    /// events would have done at `r`. At the running instant, only those whose place in the
    /// order of events ([`Shaper::releases_at`]) the running event has reached: a shaper
    /// armed by an event of this instant after the releases' kind releases in the next
    /// generation, after the events still pending for the instant (kernel module docs). True
    /// if any released.
    ///
    /// [`Shaper::releases_at`]: crate::atm::shaping::Shaper::releases_at
    pub fn release_shapers(&mut self, ck: &mut impl Clock, p: PortId, r: SimTime) -> bool {
        let reached = if r < ck.running() { u128::MAX } else { ck.running_place() };
        let (mut next, mut any) = (SimTime::MAX, false);
        for i in 0..self.ports[p.idx()].own_shapers().len() {
            let s = self.ports[p.idx()].own_shapers()[i] as usize;
            let sh = &mut self.shapers.list[s];
            if sh.releases_at(r, reached) {
                any = true;
                let port = &mut self.ports[p.idx()];
                if let Some(at) = sh.release(r, &mut |cell| {
                    let queued = port.push_cell(r, cell);
                    debug_assert!(queued, "only a priority port refuses, and it is not served ahead");
                }) {
                    // Armed by the release at `r`, for a later instant.
                    sh.arm_place(ck.release_place(at, s as u32, r));
                }
                let port = &mut self.ports[p.idx()];
                if !port.is_busy() {
                    port.wake(r);
                    if let Some(done) = port.start_next(r) {
                        self.launched(ck, p, done);
                    } else {
                        port.sleep(r);
                    }
                }
            }
            next = next.min(self.shapers.list[s].next_at);
        }
        self.ports[p.idx()].releases_next(next);
        any
    }

    /// Shaper `s`, which port `p` releases itself ([`crate::atm::port::OutPort::shapers`]),
    /// was armed now for cells due at `at`: the port releases them when brought up to date,
    /// at the place their release event would have had, and the port's link is armed for
    /// the first of them.
    pub fn shaper_due(&mut self, ck: &mut impl Clock, p: PortId, s: u32, at: SimTime) {
        self.shapers.list[s as usize].arm_place(ck.release_place(at, s, ck.running()));
        let (l, watch) = self.ports[p.idx()].release_due(at);
        self.rearm_link(ck, l);
        if watch {
            self.arm_shapers(ck, p);
        }
    }

    /// The earliest time the next cell can reach the far end of switch-bound link `l`: its
    /// head, else the end of the cell its served-ahead port is sending, else the first cell of
    /// the port's next shaper release (exact when the port is idle until then: a train starts
    /// with a first unit). None if nothing is on its way.
    #[inline]
    pub fn next_arrival(&self, l: LinkId) -> Option<SimTime> {
        let link = &self.links[l.idx()];
        if !link.pipe.is_empty() {
            return Some(link.pipe.head_time());
        }
        self.ports[link.from.idx()].next_cell_end().map(|end| end + link.delay)
    }

    /// Give switch-bound link `l` an arrival event for its next cell unless one no later is
    /// pending.
    pub fn rearm_link(&mut self, ck: &mut impl Clock, l: LinkId) {
        match self.links[l.idx()].to {
            Sink::Switch { switch, .. } if !self.switches[switch.idx()].drained => {}
            _ => return,
        }
        if let Some(t) = self.next_arrival(l) {
            let link = &mut self.links[l.idx()];
            if t < link.armed_at {
                link.armed_at = t;
                ck.schedule(t, AtmEv::Arrive(l));
            }
        }
    }

    /// Bring every served-ahead port up to `t`, every drained switch's arrivals up to `t`
    /// included first.
    pub fn advance_all(&mut self, ck: &mut impl Clock, t: SimTime) {
        self.drain_all(ck, t + crate::time::SimDuration::from_ps(1));
        for p in 0..self.ports.len() {
            self.advance(ck, PortId(p as u32), t);
        }
    }

    /// The event of served-ahead port `p`: bring it up to now (a source whose frame left is
    /// told at this instant) and arm its next event.
    pub fn port_due(&mut self, ck: &mut impl Clock, p: PortId) {
        let now = ck.now();
        self.ports[p.idx()].tx_event_ran(now);
        self.advance(ck, p, now);
        self.arm(ck, p);
        if self.ports[p.idx()].waits_for_eligibility() {
            // An idle nwc RCSP port waiting for eligibility (`hold`) needs its event still.
            if let Some(at) = self.wake_event(p) {
                self.port_event_at(ck, p, at);
            }
        }
    }

    /// Give served-ahead port `p` the event it needs next
    /// ([`crate::atm::port::OutPort::next_due`]), unless one
    /// that comes no later is pending.
    ///
    /// When the first watched cell's end is known exactly ([`OutPort::watched_end`](crate::atm::port::OutPort::watched_end)), its
    /// arrival at the far end gets its event at once instead (`arm_arrival`).
    #[inline]
    pub fn arm(&mut self, ck: &mut impl Clock, p: PortId) {
        let port = &mut self.ports[p.idx()];
        if !port.watches() {
            return;
        }
        let (l, shaped) = (port.link, !port.own_shapers().is_empty());
        match port.watched_end() {
            Some(Some(end)) => self.arm_arrival(ck, l, end),
            Some(None) => {}
            None => match port.watched_end_bound(ck.now()) {
                Some(Some(end)) => self.arm_arrival_by(ck, l, end),
                Some(None) => {}
                None => {
                    if let Some(t) = port.next_due() {
                        self.port_event_at(ck, p, t);
                    }
                }
            },
        }
        if shaped {
            self.arm_shapers(ck, p);
        }
    }

    /// Served-ahead port `p`, which watches frame ends and releases its host shapers itself,
    /// gets an event at the release of the first frame end (or RM cell) they hold, known
    /// exactly ([`crate::atm::shaping::Shaper::first_watched_release`]), unless one no later
    /// is pending: a shaper release event of the shaper that holds it, so that the release
    /// takes its place in the instant (DESIGN §2b). It brings the port up to date then
    /// ([`Fabric::shaper_watched`]): the frame end joins the port, and starts at once or is
    /// armed as any waiting frame end is. Frame ends queued behind it are armed when it has
    /// gone, and later ones released no sooner.
    #[cold]
    #[inline(never)]
    pub fn arm_shapers(&mut self, ck: &mut impl Clock, p: PortId) {
        let mut first: Option<(SimTime, u32)> = None;
        for &s in self.ports[p.idx()].own_shapers() {
            if let Some(t) = self.shapers.list[s as usize].first_watched_release() {
                if first.is_none_or(|(f, _)| t < f) {
                    first = Some((t, s));
                }
            }
        }
        let Some((t, s)) = first else { return };
        let t = t.max(ck.running());
        if self.ports[p.idx()].shape_watch_needed(t) {
            ck.schedule(t, AtmEv::Shape(s));
        }
    }

    /// The event [`Fabric::arm_shapers`] made for host shaper `s`, released by its port: the
    /// port is brought up to now, its shapers' releases at now included (this is their place
    /// in the instant), and armed again.
    pub fn shaper_watched(&mut self, ck: &mut impl Clock, s: u32) {
        let now = ck.now();
        let p = self.shapers.list[s as usize].port;
        self.ports[p.idx()].shape_watch_ran(now);
        self.advance(ck, p, now);
        self.arm(ck, p);
    }

    /// [`Fabric::arm`] after `cell` joined the tail of served-ahead port `p`'s queue. Only a
    /// frame end or an RM cell can be watched, and only at a port that watches its frame ends
    /// or tells a source of them, so any other cell or port needs nothing (and no call).
    #[inline(always)]
    pub fn arm_after_push(&mut self, ck: &mut impl Clock, p: PortId, cell: Cell) {
        if cell.flags & (flags::EOF | flags::RM) != 0 && self.ports[p.idx()].watches() {
            self.arm_after_watched_push(ck, p, cell);
        }
    }

    /// [`Fabric::arm_after_push`] for a frame end or an RM cell at a port that watches it.
    #[inline(never)]
    fn arm_after_watched_push(&mut self, ck: &mut impl Clock, p: PortId, cell: Cell) {
        let port = &self.ports[p.idx()];
        let l = port.link;
        if let Some(end) = port.pushed_end(cell) {
            self.arm_arrival(ck, l, end);
        } else if let Some(bound) = port.watched_end_bound(ck.now()) {
            if let Some(end) = bound {
                self.arm_arrival_by(ck, l, end);
            }
        } else if let Some(t) = port.next_due_after_push(cell) {
            self.port_event_at(ck, p, t);
        }
    }

    /// A watched cell (a frame end or RM cell) waiting at the port feeding link `l`, which ends
    /// at a host or a drained switch, will end exactly at `end`: its arrival gets its event now,
    /// unless one no later is pending ([`super::link::Link::armed_at`]), and the port needs
    /// no event of its own for it. When that event fires, the port is brought up to date and
    /// armed again ([`Fabric::arrived`]).
    #[inline]
    fn arm_arrival(&mut self, ck: &mut impl Clock, l: LinkId, end: SimTime) {
        let link = &mut self.links[l.idx()];
        let at = end + link.delay;
        debug_assert!(at >= ck.running(), "a frame end armed in the past on link {}", link.name);
        if at < link.armed_at {
            link.armed_at = at;
            ck.schedule(at, AtmEv::Arrive(l));
        }
    }

    /// The first watched cell waiting at the port feeding link `l` ends no sooner than `end`
    /// ([`crate::atm::port::OutPort::watched_end_bound`]: a bound at a static-priority or RCSP
    /// port, exact for a control frame's end at a FIFO or round-robin port): its arrival's
    /// event is armed there, unless one no later is pending, and the port needs no event of
    /// its own for it. If the cell has not arrived when the event fires (cells of higher
    /// levels went first), the event brings the port up to date, the cell, if it has started
    /// by then, gets an arrival event of its own ([`Fabric::arrival_event`]), and the port
    /// arms again ([`Fabric::arrived`]). A bound before the running event's instant (found
    /// while a drain switches an earlier instant) becomes that instant: the link's pending
    /// arrival events all lie at or after it, and none of the cells they were armed for has
    /// arrived yet.
    #[inline]
    fn arm_arrival_by(&mut self, ck: &mut impl Clock, l: LinkId, end: SimTime) {
        let link = &mut self.links[l.idx()];
        let at = (end + link.delay).max(ck.running());
        if at < link.armed_at {
            link.armed_at = at;
            ck.schedule(at, AtmEv::Arrive(l));
        }
    }

    /// An arrival event of link `l` (into a host or a drained switch) fired now, its cells
    /// delivered or switched: if it was armed ahead by the port feeding the link, that port
    /// arms its next watched cell.
    pub fn arrived(&mut self, ck: &mut impl Clock, l: LinkId) {
        let link = &mut self.links[l.idx()];
        if link.armed_at == ck.now() {
            link.armed_at = SimTime::MAX;
            let p = link.from;
            self.arm(ck, p);
        }
    }

    /// Give served-ahead port `p` an event at `t` unless one no later is pending. A time
    /// before the running event's instant (a lower bound found while a drain switches an
    /// earlier instant) becomes that instant: the port's pending events all lie at or after
    /// it, and a waiting cell starts no sooner than the next of them, so none has started yet.
    #[inline]
    pub fn port_event_at(&mut self, ck: &mut impl Clock, p: PortId, t: SimTime) {
        let t = t.max(ck.running());
        if self.ports[p.idx()].tx_event_needed(t) {
            ck.schedule(t, AtmEv::PortTx(p));
        }
    }
}
