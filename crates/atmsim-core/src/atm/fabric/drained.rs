//! Switches drained by their readers: a switch whose output ports are all served ahead takes
//! no event per arriving cell.
//!
//! Owns deciding which switches are drained (`prime_drained`), switching a drained switch's
//! arrivals up to an instant (`drain`), and the periodic drain that bounds how far behind a
//! ring of drained switches can fall (`drain_tick`).
//!
//! **Why it is exact.** A switch changes nothing but its output ports' queues (the routing
//! table is read, not written, by a cell), and a served-ahead port is already brought up to
//! date by whoever reaches or reads it (`ahead.rs`). So the arrivals on a switch's input links
//! can wait in the links' pipes until someone reads one of the switch's ports: that reader
//! first switches every arrival before its instant, in time order — each at its own instant,
//! after the port's completions of that instant and, within an instant, in the round-robin
//! order of the inputs (DESIGN §2b), exactly as the arrivals' own events and the admission
//! phase would have. Every cell with an effect at its instant beyond the port still has its
//! event: an end-of-frame or RM cell, so that it starts on time at its output port (whose
//! frame ends are watched, [`crate::atm::port::OutPort::watch_ends`]) and reaches the next
//! switch or host on time; signalling frames end in such a cell too, and reach the
//! controller at their instant.
//!
//! **Who reads.** A port of the switch brought up to `t` (`advance`): the arrivals before
//! `t` first (completions precede the instant's arrivals). An end-of-frame cell's arrival
//! event, a controller sending a cell through the switch, a route or a VC class installed or
//! removed at the switch: the arrivals up to and including the instant. Probes: up to the
//! instant's left limit. The end of the run: everything up to it.
//!
//! **Control frames.** A control cell goes to its link's control reassembler in the fabric; a
//! frame it completes is handed upward ([`super::Up::CtrlFrame`]). Only a frame end's own
//! instant can complete one, and there the switch stops before admitting the instant (a
//! *held* instant, [`Fabric::drain`] with `hold`): the network lets the controller hear the
//! frame, its answer joins the instant's arrivals ([`Fabric::offer_while_switching`]), and
//! [`Fabric::finish_held`] admits them in the arbiter's order. A route the controller installs
//! then applies from the next instant: the instant's other inputs were translated already.
//!
//! **Upstream.** The cells that arrive before `t` on input link `l` are all in its pipe once
//! the port feeding `l` is up to `t` less the link's delay (less a picosecond: a cell ending
//! exactly then arrives at `t`): draining brings that port there first, which, for a port of
//! another drained switch, drains that switch up to that instant. Every step back costs a
//! positive link delay, so the recursion ends; around a ring of drained switches it ends
//! within a bounded number of steps because a periodic drain (every `TICK_DELAYS` of the
//! ring's shortest delays) keeps every drained switch at most that far behind. A drain far
//! behind costs about one call per switch per ring delay of simulated time however it is
//! split, so the period only trades the ticks' own cost against the recursion's depth.
//!
//! **ABR.** A switch meets its ports' explicit-rate allocators ([`crate::abr::ErPorts`]) as it
//! translates a cell, at the cell's instant and, within an instant, in the order of its
//! inputs, as the arrival events did: an allocator of a switch port hears nothing but that
//! switch's arrivals, so hearing them late in the run, but in order and at their own
//! instants, changes nothing. A backward RM cell carries the ER it was given onward; RM cells
//! keep their arrival events, as frame ends do, since an end system acts on them at their
//! instant.
//!
//! **Cells through idle ports.** A data cell alone at its instant (no other input has an
//! arrival before `limit`, the sooner of the next such arrival and the drain's bound) that
//! is neither a frame end nor an RM cell, routed to a FIFO port that is idle with nothing
//! queued, starts at its arrival and ends one first cell time later. If that end comes
//! before `limit` and before its own input's next cell, nothing reaches or reads the port
//! in between, so admission, start and completion are carried out in one step
//! ([`crate::atm::port::OutPort::pass_idle`]) and the cell goes straight onto the output
//! link's pipe, as the port's completion would have put it there. The cells of its VC that
//! follow it on the same input pass alike, one after another, while each meets the same
//! conditions (a train: no lookup, no admission, since the VC's frame state is as the first
//! left it; `OutPort::pass_again_run`); so do the input's cells of other VCs routed to the
//! same port, each translated and admitted on its own VC (`pass_following`: the far switch of
//! a TCP dumbbell passes its bottleneck's interleaved VCs so). In a lightly loaded
//! switch this is how most of a frame's cells cross (MAGIC's 9180-byte frames: all but the
//! last of about 192 cells); a frame's last cell keeps the usual path, since its arrival
//! event stops the drain at its own instant.
//!
//! **An instant bound for one port.** Several inputs' cells at one instant, none of them a
//! control cell and all routed to one output port (an overloaded multiplexer in lock step),
//! are not collected for the admission phase: a switch's inputs are in index order and an
//! input brings at most one cell to an instant, so taking the inputs cyclically from the
//! first at or past the port's arbiter is the arbiter's order, and each cell is taken from
//! its input and admitted in turn (`switch_to_one_port`). Any other instant is collected
//! per port and admitted port by port (`switch_collected`).
//!
//! **Which switches.** With batching on: every output port served
//! ahead (any discipline), no policer or re-shaper on an input, every input link from
//! another switch with a positive delay, and every output
//! link ending at a host or at another drained switch (a cell started late by a drain must
//! not owe anyone an event). The ports feeding a drained switch watch their frame ends too;
//! one that releases its host shapers itself keeps an event for the first frame end they
//! hold, whose release it knows exactly (`ahead.rs`, `arm_shapers`).
//! A drain as described here looks at every input (its head cell, and first the port feeding
//! it), so a switch of more than `SCANNED_INPUTS` inputs keeps them in order of their next
//! arrivals instead and takes only those with cells due (`due.rs`); the steps that switch an
//! instant or a run of one input's cells are the same.

use super::{AtmEv, Clock, Fabric};
use crate::atm::cell::{flags, Cell};
use super::link::each;
use crate::atm::link::{CellPipe, Sink};
use crate::ids::{LinkId, PortId};
use crate::signalling::SIG_VCI;
use crate::time::{SimDuration, SimTime};

const PS: SimDuration = SimDuration::from_ps(1);

/// A drained switch falls at most this many of its ring's shortest link delays behind, so a
/// drain recurses at most about this deep. Kalampoukas §5.4 (`sec54_multiple`, its two
/// switches 1 µs apart both ways, cut to 2 s): 5.51 G instructions with a tick every 4
/// delays, 5.18 G with 64 (5.31 G with an event per switch arrival); 64 levels of `drain`
/// and `advance` fit any thread's stack, debug builds included.
const TICK_DELAYS: u64 = 64;

/// Most inputs a drained switch scans at each drain (its inputs' head cells and the ports
/// feeding them, an input a bit of a mask). A switch of more inputs keeps them in order of
/// their next arrivals instead (`due.rs`): scanning them, the TCP dumbbell of 500 flows, 0.5 s,
/// took 2.67 G instructions against 0.59 G with an event per arrival.
pub(super) const SCANNED_INPUTS: usize = 16;

impl Fabric {
    /// Decide which switches are drained by their readers (module docs, "Which switches"),
    /// and start the periodic drain if any drained switch feeds another. `may`: batching is on
    /// (event by event otherwise).
    pub(super) fn prime_drained(&mut self, ck: &mut impl Clock, may: bool) {
        for l in 0..self.links.len() {
            if let Sink::Switch { switch, .. } = self.links[l].to {
                self.switches[switch.idx()].inputs.push(LinkId(l as u32));
            }
        }
        if !may {
            return;
        }
        let mut of_switch = vec![false; self.ports.len()];
        for sw in &self.switches {
            for p in &sw.ports {
                of_switch[p.idx()] = true;
            }
        }
        let mut ok: Vec<bool> = (0..self.switches.len()).map(|s| self.may_drain(s, &of_switch)).collect();
        loop {
            let mut changed = false;
            for s in 0..ok.len() {
                if ok[s] && self.feeds(s).any(|s2| !ok[s2]) {
                    ok[s] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut ring_delay = SimDuration::MAX;
        for s in (0..ok.len()).filter(|&s| ok[s]) {
            self.switches[s].drained = true;
            for i in 0..self.switches[s].ports.len() {
                let p = self.switches[s].ports[i];
                let port = &mut self.ports[p.idx()];
                port.set_drainer(s as u32);
                if let Sink::Switch { switch, .. } = self.links[port.link.idx()].to {
                    if ok[switch.idx()] {
                        ring_delay = ring_delay.min(self.links[port.link.idx()].delay);
                    }
                }
            }
            // Whatever feeds the switch starts its frame ends on time (module docs), and only
            // those (and RM cells) need arrival events; a switch of many inputs hears of every
            // cell's arrival time instead of scanning its inputs (`due.rs`).
            let wide = self.switches[s].inputs.len() > SCANNED_INPUTS;
            for i in 0..self.switches[s].inputs.len() {
                let l = self.switches[s].inputs[i];
                self.links[l.idx()].each = if wide { each::DUE } else { 0 };
                self.ports[self.links[l.idx()].from.idx()].watch_frame_ends();
            }
        }
        for s in (0..ok.len()).filter(|&s| ok[s]) {
            if self.switches[s].inputs.len() > SCANNED_INPUTS {
                self.prime_due(s);
            }
        }
        if ring_delay != SimDuration::MAX {
            self.drain_period = ring_delay.mul(TICK_DELAYS);
            ck.schedule(SimTime::ZERO + self.drain_period, AtmEv::Drain);
        }
    }

    /// Whether switch `s` could be drained on its own account (module docs, "Which switches").
    fn may_drain(&self, s: usize, of_switch: &[bool]) -> bool {
        let sw = &self.switches[s];
        !sw.inputs.is_empty()
            && sw.ports.iter().all(|p| self.ports[p.idx()].lazy)
            && sw.inputs.iter().all(|l| {
                let link = &self.links[l.idx()];
                let from_switch = of_switch[link.from.idx()];
                (link.delay > SimDuration::ZERO || !from_switch) && !self.shapers.guards(*l)
            })
    }

    /// The switches that switch `s`'s output links lead to.
    fn feeds(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        self.switches[s].ports.iter().filter_map(|p| match self.links[self.ports[p.idx()].link.idx()].to {
            Sink::Switch { switch, .. } => Some(switch.idx()),
            Sink::Host(_) => None,
        })
    }

    /// Switch every cell that arrives at drained switch `s` before `before` (at most a
    /// picosecond after now), in time order (module docs). Does nothing while `s` is
    /// switching an instant's arrivals: whoever calls from inside that instant (a controller
    /// answering a signalling cell) is already in order.
    ///
    /// With `hold`, an instant in which a control frame is completed stops before its
    /// admission, so that the controller hears it first and its answer joins the instant
    /// (DESIGN §2b): the call returns true, the frame waits in [`Fabric::up`], and the caller
    /// routes it and then calls [`Fabric::finish_held`]. Only the frame end's own instant
    /// can hold (its last cell has an arrival event), so drains that stop before now pass
    /// `hold = false`.
    #[inline(never)]
    pub fn drain(&mut self, ck: &mut impl Clock, s: u32, before: SimTime, hold: bool) -> bool {
        let sw = &self.switches[s as usize];
        if sw.drained_to >= before || sw.switching {
            return false;
        }
        if self.due_inputs[s as usize].is_some() {
            return self.drain_due(ck, s, before, hold);
        }
        for i in 0..sw.inputs.len() {
            let link = &self.links[self.switches[s as usize].inputs[i].idx()];
            let (from, reach) = (link.from, link.delay + PS);
            self.advance(ck, from, before.saturating_sub(reach));
        }
        self.switches[s as usize].switching = true;
        self.switch_until(ck, s, before, hold)
    }

    /// The held instant of drained switch `s` ([`Fabric::drain`]) admits its arrivals, and the
    /// switch goes on switching up to `before`; true if it holds again.
    pub fn finish_held(&mut self, ck: &mut impl Clock, s: u32, before: SimTime) -> bool {
        let now = ck.now();
        ck.set_now(self.switches[s as usize].drained_to);
        self.admit_instant(ck);
        ck.set_now(now);
        if self.due_inputs[s as usize].is_some() {
            return self.switch_due_until(ck, s, before, true);
        }
        self.switch_until(ck, s, before, true)
    }

    /// Switch the instants of switch `s` before `before`, or up to one that holds. A cell alone
    /// at its instant is switched without the arbiter, and so are the cells of its input that
    /// follow it before any other input's next arrival: each is alone at its instant too, so
    /// the inputs are looked at once per run of one input's cells, not once per cell.
    fn switch_until(&mut self, ck: &mut impl Clock, s: u32, before: SimTime, hold: bool) -> bool {
        let now = ck.now();
        while let Some((at, mask, others)) = self.next_arrival_at(s, before) {
            let held = if mask & (mask - 1) == 0 {
                let l = self.switches[s as usize].inputs[mask.trailing_zeros() as usize];
                self.switch_run(ck, s, l, others.min(before), now, hold)
            } else {
                self.switches[s as usize].drained_to = at;
                ck.set_now(at);
                self.switch_instant(ck, s, at, mask, now, hold)
            };
            if held {
                ck.set_now(now);
                return true;
            }
        }
        self.switched_until(ck, s, before, now)
    }

    /// Drained switch `s` has switched every arrival before `before`: the clock goes back to
    /// the drain's instant `now`; false (nothing holds).
    #[inline]
    pub(super) fn switched_until(&mut self, ck: &mut impl Clock, s: u32, before: SimTime, now: SimTime) -> bool {
        ck.set_now(now);
        let sw = &mut self.switches[s as usize];
        sw.switching = false;
        sw.drained_to = sw.drained_to.max(before);
        false
    }

    /// The earliest arrival on drained switch `s`'s inputs before `before`, the inputs with a
    /// cell then (bit `i` for the switch's input `i`), and the earliest arrival on the other
    /// inputs (`before` if none comes sooner).
    #[inline]
    fn next_arrival_at(&self, s: u32, before: SimTime) -> Option<(SimTime, u32, SimTime)> {
        let sw = &self.switches[s as usize];
        let (mut at, mut others) = (before, before);
        let mut mask = 0;
        for (i, &l) in sw.inputs.iter().enumerate() {
            // An empty pipe's head is `SimTime::MAX`: never before `at` unless `at` is
            // `before` itself, and then there is no arrival to return.
            let t = self.links[l.idx()].pipe.head_time();
            if t < at {
                others = at;
                at = t;
                mask = 1 << i;
            } else if t == at {
                others = at;
                mask |= 1 << i;
            } else if t < others {
                others = t;
            }
        }
        (at < before).then_some((at, mask, others))
    }

    /// Drained switch `s` switches the cells of input `l` that arrive before `limit`, each
    /// alone at its instant (no other input has an arrival before `limit`); true if one
    /// holds. Always inlined into its two callers (as a call it cost the multiplexer 2 %).
    #[inline(always)]
    pub(super) fn switch_run(
        &mut self,
        ck: &mut impl Clock,
        s: u32,
        l: LinkId,
        limit: SimTime,
        now: SimTime,
        hold: bool,
    ) -> bool {
        loop {
            let t = self.links[l.idx()].pipe.head_time();
            if t >= limit {
                break;
            }
            self.switches[s as usize].drained_to = t;
            ck.set_now(t);
            if self.switch_alone(ck, s, l, limit, now, hold) {
                return true;
            }
        }
        false
    }

    /// Drained switch `s` switches the head cell of input `l`, the only cell arriving at this
    /// instant and before `limit` on any other input: no arbiter is needed. Always inlined
    /// into its two callers' runs (a call per cell cost the multiplexer 3 %).
    #[inline(always)]
    fn switch_alone(
        &mut self,
        ck: &mut impl Clock,
        s: u32,
        l: LinkId,
        limit: SimTime,
        now: SimTime,
        hold: bool,
    ) -> bool {
        let link = &mut self.links[l.idx()];
        let &(at, cell) = link.pipe.front().expect("an arrival");
        if cell.vci == SIG_VCI {
            // The controller may answer at once: the instant's general case.
            return self.switch_collected(ck, s, at, now, hold);
        }
        link.pipe.pop_front();
        link.cells_delivered += 1;
        match link.route(cell.vci) {
            Some(r) => {
                self.meet_allocators(l, cell, at);
                let vci_in = cell.vci;
                let cell = Cell { vci: r.vci, ..cell };
                self.advance(ck, r.port, at);
                if !self.pass_through(ck, s, l, vci_in, r.port, cell, limit) {
                    self.admit_current(ck, r.port, cell);
                }
            }
            None => self.no_route(s, cell),
        }
        false
    }

    /// Data cell `cell`, just taken from input `l` at now (its VCI `vci_in` there) and alone
    /// in its instant before `limit`, passes output port `p` (brought up to now) in one step if the port is idle
    /// and the cell ends before anything else can reach or read the port; so do the cells of
    /// its VC that follow it on `l` while the same holds for each (module docs, "Cells through
    /// idle ports"). False if the cell must be admitted the usual way. Always inlined, as
    /// [`Fabric::switch_alone`] is.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pass_through(
        &mut self,
        ck: &mut impl Clock,
        s: u32,
        l: LinkId,
        vci_in: u32,
        p: PortId,
        cell: Cell,
        limit: SimTime,
    ) -> bool {
        if cell.flags & (flags::EOF | flags::RM) != 0 {
            return false;
        }
        let at = ck.now();
        let port = &self.ports[p.idx()];
        if !port.is_idle_fifo() || (port.classifies_at_rest(cell.vci) && !port.starts_alone()) {
            return false;
        }
        let q = port.cell_time();
        if at + q >= limit || self.links[l.idx()].pipe.head_time() < at + q {
            return false;
        }
        if self.pass_cell(p, cell, at) {
            let pipe = &self.links[l.idx()].pipe;
            if Self::follows_alone(pipe, vci_in, cell.flags, pipe.head_time() + q, limit) {
                self.pass_train(ck, s, l, vci_in, p, cell, limit);
            }
        }
        // The port is idle again, with nothing queued, when the input's next cell arrives.
        self.pass_following(ck, s, l, p, limit);
        true
    }

    /// The cells of input `l` that follow a cell just passed through (or dropped at) idle port
    /// `p`, of any VC routed to `p`, pass it one after another while each meets the conditions of
    /// [`Fabric::pass_through`]: a plain data cell (no frame end, RM or control cell) that
    /// ends before `limit` and before the input's next cell arrives, at a port that is not
    /// waiting for a class at rest. Each arrives once the cell before it has ended (the
    /// conditions that cell passed under), so the port is idle again; each is translated and
    /// admitted on its own VC, and a run of its VC's cells behind it passes as a train. The
    /// TCP dumbbell's far switch passes its bottleneck's cells, one VC after another, this way.
    #[inline(never)]
    fn pass_following(&mut self, ck: &mut impl Clock, s: u32, l: LinkId, p: PortId, limit: SimTime) {
        let q = self.ports[p.idx()].cell_time();
        loop {
            let link = &self.links[l.idx()];
            let Some(&(t, next)) = link.pipe.front() else { return };
            let done = t + q;
            let after = link.pipe.get(1).copied();
            if next.flags & (flags::EOF | flags::RM) != 0
                || next.vci == SIG_VCI
                || done >= limit
                || after.is_some_and(|(t2, _)| t2 < done)
            {
                return;
            }
            let Some(r) = link.route(next.vci) else { return };
            let port = &self.ports[p.idx()];
            if r.port != p || (port.classifies_at_rest(r.vci) && !port.starts_alone()) {
                return;
            }
            debug_assert!(port.is_idle_fifo(), "a port passed through is idle again");
            let link = &mut self.links[l.idx()];
            link.pipe.pop_front();
            link.cells_delivered += 1;
            self.switches[s as usize].drained_to = t;
            ck.set_now(t);
            self.meet_allocators(l, next, t);
            let cell = Cell { vci: r.vci, ..next };
            // A train of its VC behind it (the cell after it is of the same VC, the rest
            // checked as `pass_through` does).
            let same = after.is_some_and(|(_, c)| c.vci == next.vci && c.flags == next.flags);
            if self.pass_cell(p, cell, t) && same {
                let pipe = &self.links[l.idx()].pipe;
                if Self::follows_alone(pipe, next.vci, next.flags, pipe.head_time() + q, limit) {
                    self.pass_train(ck, s, l, next.vci, p, cell, limit);
                }
            }
        }
    }

    /// Whether the head of input pipe `pipe`, ending at `done` if passed, is the next cell of
    /// the train (VCI `vci_in` there, flags `flags`): it ends before `limit` and before the
    /// input's next cell arrives.
    #[inline(always)]
    fn follows_alone(pipe: &CellPipe, vci_in: u32, flags: u8, done: SimTime, limit: SimTime) -> bool {
        pipe.front().is_some_and(|&(_, c)| Self::follows(c, pipe.get(1).map(|&(t, _)| t), vci_in, flags, done, limit))
    }

    /// [`Fabric::follows_alone`] of cell `c`, the input's next arrival after it at `next_at`.
    #[inline(always)]
    fn follows(c: Cell, next_at: Option<SimTime>, vci_in: u32, flags: u8, done: SimTime, limit: SimTime) -> bool {
        c.vci == vci_in && c.flags == flags && done < limit && next_at.is_none_or(|t2| t2 >= done)
    }

    /// The cells of input `l`'s VC `vci_in` that follow a cell (`first`, translated) just passed
    /// through idle port `p`, while each meets the conditions of [`Fabric::pass_through`]: taken
    /// from the input and put on the port's link one after another, each ending one first cell
    /// time after its arrival; the port's counters move once for the run
    /// ([`crate::atm::port::OutPort::pass_again_run`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn pass_train(
        &mut self,
        ck: &mut impl Clock,
        s: u32,
        l: LinkId,
        vci_in: u32,
        p: PortId,
        first: Cell,
        limit: SimTime,
    ) {
        let q = self.ports[p.idx()].cell_time();
        let out = self.ports[p.idx()].link;
        let [input, output] = self
            .links
            .get_disjoint_mut([l.idx(), out.idx()])
            .expect("a switch's input link is not one of its output links");
        // How many of the input's next cells follow, in one pass.
        let mut n = 0;
        let mut cells = input.pipe.iter().peekable();
        while let Some(&(t, c)) = cells.next() {
            if !Self::follows(c, cells.peek().map(|&&(t2, _)| t2), vci_in, first.flags, t + q, limit) {
                break;
            }
            n += 1;
        }
        if n == 0 {
            return;
        }
        if self.er.wants(first) {
            for &(t, c) in input.pipe.iter().take(n) {
                self.er.at_switch(&mut self.rm, l, c, t);
            }
        }
        let last = input.pipe.get(n - 1).expect("counted").0;
        let delay = output.delay;
        let first_at = input.pipe.head_time() + q + delay;
        input.pipe.move_front(n, &mut output.pipe, |(t, c)| (t + q + delay, Cell { vci: first.vci, ..c }));
        let due = output.each & each::DUE != 0;
        let n = n as u64;
        input.cells_delivered += n;
        if due {
            self.due_at(out, first_at);
        }
        self.cell_hops += n;
        self.ports[p.idx()].pass_again_run(last, n);
        self.switches[s as usize].drained_to = last;
        ck.set_now(last);
    }

    /// [`Fabric::pass_through`] of one cell reaching idle port `p` at `at`: admitted, sent and
    /// put on the port's link (true), or dropped.
    #[inline(always)]
    fn pass_cell(&mut self, p: PortId, cell: Cell, at: SimTime) -> bool {
        match self.ports[p.idx()].pass_idle(at, cell) {
            Ok(d) => {
                self.put_passed(p, cell, at + d);
                true
            }
            Err(reason) => {
                self.dropped_at_port(cell, reason);
                false
            }
        }
    }

    /// `cell`, passed through port `p` and ending at `done`, goes onto the port's link.
    #[inline(always)]
    fn put_passed(&mut self, p: PortId, cell: Cell, done: SimTime) {
        self.cell_hops += 1;
        let l = self.ports[p.idx()].link;
        let link = &mut self.links[l.idx()];
        debug_assert!(link.each & each::STEP == 0, "a drained switch's port feeds a stepped switch");
        let at = done + link.delay;
        link.pipe.push_back((at, cell));
        if link.each & each::DUE != 0 {
            self.due_at(l, at);
        }
    }

    /// Drained switch `s` switches the cells arriving at `at` on its inputs `mask` (bit `i`:
    /// input `i`, at least two), bound for one port ([`Fabric::switch_to_one_port`]) or in
    /// general ([`Fabric::switch_collected`]); true if the instant holds for a control frame.
    #[inline]
    fn switch_instant(
        &mut self,
        ck: &mut impl Clock,
        s: u32,
        at: SimTime,
        mask: u32,
        now: SimTime,
        hold: bool,
    ) -> bool {
        match self.one_port_of(s, mask) {
            Some(p) => {
                self.switch_to_one_port(ck, s, at, mask, p);
                false
            }
            None => self.switch_collected(ck, s, at, now, hold),
        }
    }

    /// The output port that every head cell of drained switch `s`'s inputs `mask` is routed
    /// to, if they all go to one and none is a control cell.
    #[inline]
    fn one_port_of(&self, s: u32, mask: u32) -> Option<PortId> {
        let inputs = &self.switches[s as usize].inputs;
        let mut port = None;
        let mut bits = mask;
        while bits != 0 {
            let link = &self.links[inputs[bits.trailing_zeros() as usize].idx()];
            bits &= bits - 1;
            let &(_, cell) = link.pipe.front().expect("an arrival");
            if cell.vci == SIG_VCI {
                return None;
            }
            let p = link.route(cell.vci)?.port;
            if port.is_some_and(|q| q != p) {
                return None;
            }
            port = Some(p);
        }
        port
    }

    /// Drained switch `s` switches the head cells of its inputs `mask` (at least two), all
    /// arriving at `at`, routed to port `p` and none a control cell: what
    /// [`Fabric::switch_collected`] does, without collecting. The allocators meet the cells in
    /// the inputs' index order; then, the switch's inputs being in index order, taking them
    /// cyclically from the first at or past the port's arbiter is the arbiter's order
    /// ([`crate::arbiter::admit_order`]: an input brings at most one cell to an instant), and
    /// each cell is taken from its input, translated and admitted in that order.
    #[inline(never)]
    fn switch_to_one_port(&mut self, ck: &mut impl Clock, s: u32, at: SimTime, mask: u32, p: PortId) {
        debug_assert!(mask.count_ones() > 1 && self.ports[p.idx()].arrivals.is_empty());
        let mut bits = if self.er.listening() { mask } else { 0 };
        while bits != 0 {
            let l = self.switches[s as usize].inputs[bits.trailing_zeros() as usize];
            bits &= bits - 1;
            let &(_, cell) = self.links[l.idx()].pipe.front().expect("an arrival");
            self.meet_allocators(l, cell, at);
        }
        let n = self.switches[s as usize].inputs.len();
        let from = self.ports[p.idx()].arbiter;
        let start = self.switches[s as usize].inputs.partition_point(|l| l.0 < from) % n;
        let rotated = (mask >> start | mask << (n - start)) & ((1 << n) - 1);
        let mut first = None;
        let mut bits = rotated;
        while bits != 0 {
            let mut i = start + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if i >= n {
                i -= n;
            }
            let l = self.switches[s as usize].inputs[i];
            first.get_or_insert(l.0);
            let link = &mut self.links[l.idx()];
            let (_, cell) = link.pipe.pop_front().expect("an arrival");
            link.cells_delivered += 1;
            let r = link.route(cell.vci).expect("routed");
            // `admit`, less its drain of this switch (switching now: nothing to do).
            if self.ports[p.idx()].is_due(at) {
                self.advance_to(ck, p, at);
            }
            self.admit_current(ck, p, Cell { vci: r.vci, ..cell });
        }
        self.ports[p.idx()].arbiter = first.expect("arrivals").wrapping_add(1);
    }

    /// Drained switch `s` switches the cells arriving at `at`: each input's cell, in the
    /// inputs' index order, is translated (or goes to its link's control reassembler), then
    /// each output port admits its cells of the instant in its arbiter's order — the arrival
    /// events and the admission phase of the instant (`fabric` module). `now` is the caller's
    /// instant: only there can a control frame end (its last cell has an event of its own).
    /// True if the instant holds for a control frame ([`Fabric::drain`]).
    fn switch_collected(&mut self, ck: &mut impl Clock, s: u32, at: SimTime, now: SimTime, hold: bool) -> bool {
        let up = self.up.len();
        for i in 0..self.switches[s as usize].inputs.len() {
            let l = self.switches[s as usize].inputs[i];
            self.collect(s, l, at, now);
        }
        self.admit_collected(ck, up, hold)
    }

    /// [`Fabric::switch_collected`] of input `l`: its cell arriving at `at`, if any, is
    /// translated and joins its output port's arrivals of the instant, or goes to the link's
    /// control reassembler.
    #[inline(always)]
    pub(super) fn collect(&mut self, s: u32, l: LinkId, at: SimTime, now: SimTime) {
        let link = &mut self.links[l.idx()];
        if link.pipe.head_time() != at {
            return;
        }
        let (_, cell) = link.pipe.pop_front().expect("checked");
        link.cells_delivered += 1;
        if cell.vci == SIG_VCI {
            debug_assert!(!cell.is_eof() || at == now, "a signalling frame ended before its event");
            return self.ctrl_cell(l, cell);
        }
        match self.links[l.idx()].route(cell.vci) {
            Some(r) => {
                self.meet_allocators(l, cell, at);
                let port = &mut self.ports[r.port.idx()];
                if port.arrivals.is_empty() {
                    self.drain_dirty.push(r.port);
                }
                port.arrivals.push((l.0, Cell { vci: r.vci, ..cell }));
            }
            None => self.no_route(s, cell),
        }
    }

    /// The instant's cells collected ([`Fabric::collect`]) are admitted, unless the instant
    /// holds for a control frame completed in it (`up`: the outbox's length before); true if
    /// it holds.
    #[inline]
    pub(super) fn admit_collected(&mut self, ck: &mut impl Clock, up: usize, hold: bool) -> bool {
        if hold && self.up.len() > up {
            return true;
        }
        self.admit_instant(ck);
        false
    }

    /// The ports with arrivals in the instant being switched admit them, with the cells a
    /// controller answering a control frame of the instant offered.
    fn admit_instant(&mut self, ck: &mut impl Clock) {
        let mut dirty = std::mem::take(&mut self.drain_dirty);
        dirty.append(&mut self.drain_offered);
        dirty.sort_unstable();
        dirty.dedup();
        for &p in &dirty {
            self.admit_arrivals(ck, p);
        }
        dirty.clear();
        self.drain_dirty = dirty;
    }

    /// Port `p`, whose drained switch is switching an instant's arrivals, is offered a cell by
    /// a controller: it joins the instant's arrivals.
    pub fn offer_while_switching(&mut self, p: PortId, cell: Cell, input: u32) {
        let port = &mut self.ports[p.idx()];
        if port.arrivals.is_empty() {
            self.drain_offered.push(p);
        }
        port.arrivals.push((input, cell));
    }

    /// Drain every drained switch up to `before` (not beyond now: nothing holds).
    pub fn drain_all(&mut self, ck: &mut impl Clock, before: SimTime) {
        for s in 0..self.switches.len() {
            if self.switches[s].drained {
                self.drain(ck, s as u32, before, false);
            }
        }
    }

    /// The periodic drain (module docs, "Upstream"): every drained switch up to now.
    pub fn drain_tick(&mut self, ck: &mut impl Clock) {
        self.drain_all(ck, ck.now());
        ck.schedule(ck.now() + self.drain_period, AtmEv::Drain);
    }
}
