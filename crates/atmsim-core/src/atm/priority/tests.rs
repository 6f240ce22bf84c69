//! Static priority and RCSP at one port, driven by a small event loop: order of service,
//! non-preemption, the delay bounds of admitted traffic (Zhang & Ferrari's delay test),
//! work conservation (wc) and rate-jitter control (nwc), and the ledger.

use super::*;
use crate::atm::cell::flags::{CTRL, EOF};
use crate::atm::port::{DropPolicy, DropReason};
use crate::atm::sched::{Discipline, Scheduler};
use crate::ids::LinkId;
use crate::time::{Rate, Serializer};

/// One cell time τ: 424 bits at 424 Mb/s = 1 µs.
const TAU: u64 = 1_000_000;

fn t(cells: u64) -> SimTime {
    SimTime(cells * TAU)
}

fn d(cells: u64) -> SimDuration {
    SimDuration(cells * TAU)
}

fn port(disc: Discipline) -> OutPort {
    let ser = Serializer::new(Rate::bps(424_000_000), crate::atm::cell::CELL_BITS);
    OutPort::new("p".into(), LinkId(0), disc, u32::MAX, DropPolicy::Tail, ser)
}

/// Tab 4-2: delay bound of level m [cell times].
fn bound(level: u8) -> u64 {
    16 << level
}

/// A cell with a unique id in its `frame` field.
fn cell(vci: u32, id: u32) -> Cell {
    Cell { vci, frame: id, flags: EOF }
}

#[derive(Clone, Copy, Debug)]
struct Departure {
    start: SimTime,
    done: SimTime,
    cell: Cell,
}

/// Offer `arrivals` (sorted by time) to `p` and run its transmitter until nothing is left,
/// honouring the wake-ups a non-work-conserving port asks for. At equal times a transmission
/// ends first, then arrivals, then a wake-up.
fn simulate(p: &mut OutPort, arrivals: &[(SimTime, Cell)]) -> Vec<Departure> {
    let mut out = Vec::new();
    let (mut i, mut tx_end, mut wakes): (usize, Option<SimTime>, Vec<SimTime>) = (0, None, Vec::new());
    let mut start = SimTime::ZERO;
    loop {
        let ta = arrivals.get(i).map(|a| a.0);
        let tw = wakes.iter().min().copied();
        let now = match [tx_end, ta, tw].into_iter().flatten().min() {
            Some(now) => now,
            None => break,
        };
        if tx_end == Some(now) {
            out.push(Departure { start, done: now, cell: p.in_tx.take().unwrap() });
            tx_end = None;
            p.sleep(now);
        } else if ta == Some(now) {
            while i < arrivals.len() && arrivals[i].0 == now {
                let c = arrivals[i].1;
                assert_eq!(p.offer_cell(now, c), None);
                i += 1;
            }
        } else {
            wakes.retain(|&w| w != now);
            p.woken(now);
        }
        if tx_end.is_none() {
            p.wake(now);
            match p.start_next(now) {
                Some(done) => (start, tx_end) = (now, Some(done)),
                None => {
                    p.sleep(now);
                    wakes.extend(p.wake_needed());
                }
            }
        }
    }
    assert_eq!(p.queued_cells(), 0, "everything left");
    out
}

// ---- static priority ----

#[test]
fn static_priority_serves_levels_then_signalling_then_best_effort() {
    let mut p = port(Discipline::StaticPriority);
    for l in 0..4u8 {
        p.set_vc_class(10 + l as u32, VcClass { level: l, spec: None }).unwrap();
    }
    // Offered lowest first, two cells each, while the port is busy with a first BE cell.
    let mut id = 0;
    let mut offer = |p: &mut OutPort, c: Cell| {
        id += 1;
        p.offer_cell(SimTime::ZERO, Cell { frame: id, ..c })
    };
    offer(&mut p, cell(20, 0));
    assert!(p.start_next(SimTime::ZERO).is_some());
    let first = p.in_tx.take().unwrap();
    for _ in 0..2 {
        offer(&mut p, cell(20, 0));
        p.offer_cell(SimTime::ZERO, Cell { vci: 5, frame: 900, flags: CTRL | EOF });
        for v in [13, 12, 11, 10] {
            offer(&mut p, cell(v, 0));
        }
    }
    let mut order = vec![first];
    while p.start_next(SimTime::ZERO).is_some() {
        order.push(p.in_tx.take().unwrap());
    }
    let vcis: Vec<u32> = order.iter().map(|c| c.vci).collect();
    assert_eq!(vcis, vec![20, 10, 10, 11, 11, 12, 12, 13, 13, 5, 5, 20, 20]);
    // FIFO within a level: ids increase.
    for v in [10, 11, 12, 13, 20] {
        let ids: Vec<u32> = order.iter().filter(|c| c.vci == v).map(|c| c.frame).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "VC {v}: {ids:?}");
    }
}

#[test]
fn static_priority_is_non_preemptive() {
    let mut p = port(Discipline::StaticPriority);
    p.set_vc_class(10, VcClass { level: 0, spec: None }).unwrap();
    let out = simulate(&mut p, &[(t(0), cell(20, 1)), (SimTime(TAU / 2), cell(10, 2))]);
    assert_eq!((out[0].cell.vci, out[0].done), (20, t(1)), "the BE cell finishes");
    assert_eq!((out[1].cell.vci, out[1].start, out[1].done), (10, t(1), t(2)));
}

#[test]
fn unclassified_vcs_at_a_qos_port_are_best_effort_in_arrival_order() {
    for disc in [Discipline::StaticPriority, Discipline::RcspWc, Discipline::RcspNwc] {
        let mut p = port(disc);
        let arr: Vec<_> = (0..20).map(|k| (t(k / 3), cell(30 + k as u32 % 4, k as u32))).collect();
        let out = simulate(&mut p, &arr);
        let ids: Vec<u32> = out.iter().map(|x| x.cell.frame).collect();
        assert_eq!(ids, (0..20).collect::<Vec<_>>(), "{disc:?}");
    }
}

#[test]
fn class_errors_are_reported_not_panics() {
    let mut p = port(Discipline::RcspWc);
    assert!(p.set_vc_class(1, VcClass { level: 4, spec: None }).is_err());
    assert!(p.set_vc_class(1, VcClass { level: 0, spec: None }).is_err(), "RCSP needs a spec");
    let mut f = port(Discipline::Fifo);
    assert!(f.set_vc_class(1, VcClass { level: 0, spec: None }).is_ok(), "ignored at FIFO");
    assert_eq!(f.wake_needed(), None);
}

// ---- RCSP: an admitted, worst-case load ----

/// b_j(t): most cells of a VC with `s` eligible in any window of length `w` (Zhang & Ferrari).
fn b(s: &TrafficSpec, w: SimDuration) -> u64 {
    let (i, xa, xm) = (s.i.as_ps(), s.x_ave.as_ps(), s.x_min.as_ps());
    let n = i / xa;
    (w.as_ps() / i) * n + ((w.as_ps() % i).div_ceil(xm)).min(n)
}

/// Zhang & Ferrari's delay test for non-preemptive static priority with 1-cell packets, each
/// window widened by `slack` (the regulators' release granularity), and the rate test.
#[allow(clippy::int_plus_one)] // written as in the paper: Σ b_j(d_m) + 1 ≤ d_m/τ
fn admissible(vcs: &[(u8, TrafficSpec)], slack: SimDuration) -> bool {
    let rate: f64 = vcs.iter().map(|(_, s)| TAU as f64 / s.x_ave.as_ps() as f64).sum();
    (0..4u8).all(|m| {
        let dm = d(bound(m));
        let cells: u64 = vcs.iter().filter(|(l, _)| *l <= m).map(|(_, s)| b(s, dm + slack)).sum();
        cells + 1 <= bound(m)
    }) && rate <= 1.0
}

fn spec(x_min: u64, x_ave: u64, i: u64) -> TrafficSpec {
    TrafficSpec::new(d(x_min), d(x_ave), d(i)).unwrap()
}

/// Levels 0–3 loaded as far as the delay test allows: one VC at level 0, one at 1, two at 2,
/// `n3` at 3 (all in multiples of the 8-cell slot).
fn admitted_load(n3: u32) -> Vec<(u8, TrafficSpec)> {
    let mut v = vec![(0, spec(8, 16, 32)), (1, spec(8, 16, 64)), (2, spec(8, 8, 64)), (2, spec(8, 8, 64))];
    v.extend((0..n3).map(|_| (3, spec(8, 16, 128))));
    v
}

/// A deterministic pseudo-random stream for arrival phases.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Guaranteed VCs 100.. with the `load`; each sends bursts (greedy: many cells at one
/// instant) at random times when `seed` is set, else one burst of 60 cells at time 0; plus a
/// saturating best-effort backlog on VC 7 and a few signalling cells. Returns the port, the
/// arrivals, and each guaranteed cell's (level, exact eligibility, release time) by id.
#[allow(clippy::type_complexity)]
fn rcsp_run(
    disc: Discipline,
    load: &[(u8, TrafficSpec)],
    seed: Option<u64>,
    be_cells: u32,
) -> (Vec<Departure>, Vec<Option<(u8, SimTime, SimTime)>>, Vec<SimTime>) {
    let mut p = port(disc);
    let mut arrivals: Vec<(SimTime, Cell)> = Vec::new();
    let mut id = 0u32;
    let mut rng = Lcg(seed.unwrap_or(0));
    for (k, _) in load.iter().enumerate() {
        let vci = 100 + k as u32;
        let mut at = 0;
        for _ in 0..if seed.is_some() { 6 } else { 1 } {
            let n = if seed.is_some() { 1 + rng.next(30) } else { 60 };
            for _ in 0..n {
                arrivals.push((t(at) + SimDuration(rng.next(TAU)), cell(vci, id)));
                id += 1;
            }
            at += rng.next(400);
        }
    }
    for _ in 0..be_cells {
        arrivals.push((SimTime::ZERO, cell(7, id)));
        id += 1;
    }
    for k in 0..5 {
        arrivals.push((t(40 * k + 3), Cell { vci: 5, frame: id, flags: CTRL | EOF }));
        id += 1;
    }
    arrivals.sort_by_key(|a| (a.0, a.1.frame));
    // The test's own regulators give each guaranteed cell its eligibility time.
    let mut info = vec![None; id as usize];
    let mut arrival_of = vec![SimTime::ZERO; id as usize];
    let mut regs: Vec<Regulator> = load.iter().map(|(_, s)| Regulator::new(*s, d(8))).collect();
    for &(at, c) in &arrivals {
        arrival_of[c.frame as usize] = at;
        if c.vci >= 100 {
            let k = (c.vci - 100) as usize;
            let e = regs[k].assign_exact(at);
            info[c.frame as usize] = Some((load[k].0, e, crate::atm::regulator::round_up(e, d(8))));
        }
    }
    for (k, (l, s)) in load.iter().enumerate() {
        p.set_vc_class(100 + k as u32, VcClass { level: *l, spec: Some(*s) }).unwrap();
    }
    let out = simulate(&mut p, &arrivals);
    assert_eq!(out.len(), arrivals.len());
    (out, info, arrival_of)
}

/// Per level: the largest (completion − release time) and (completion − exact eligibility).
fn max_delays(out: &[Departure], info: &[Option<(u8, SimTime, SimTime)>]) -> [(u64, u64); 4] {
    let mut m = [(0, 0); 4];
    for x in out {
        if let Some((l, e, r)) = info[x.cell.frame as usize] {
            let slot = &mut m[l as usize];
            slot.0 = slot.0.max(x.done.0.saturating_sub(r.0));
            slot.1 = slot.1.max(x.done.0 - e.0);
        }
    }
    m
}

/// Issue 15, "what it must show": admitted conforming traffic under worst-case load (greedy
/// sources at their regulators' limits, saturating best effort, signalling) never exceeds
/// its level's delay bound, under both RCSP variants.
#[test]
fn rcsp_meets_the_delay_bounds_of_admitted_greedy_traffic() {
    let load = admitted_load(9);
    assert!(admissible(&load, SimDuration::ZERO));
    assert!(!admissible(&admitted_load(10), SimDuration::ZERO), "the load is at the test's limit");
    for disc in [Discipline::RcspWc, Discipline::RcspNwc] {
        let (out, info, _) = rcsp_run(disc, &load, None, 3000);
        let m = max_delays(&out, &info);
        for l in 0..4u8 {
            let (rel, _) = m[l as usize];
            eprintln!("{disc:?} greedy: level {l}: max delay {} of bound {} cell times", rel / TAU, bound(l));
            assert!(rel <= bound(l) * TAU, "{disc:?} level {l}: {} > {}", rel, bound(l) * TAU);
        }
    }
}

/// The same with bursts at random instants (off the slotted clock): the bound holds from the
/// (rounded) release time when the delay test passes with windows widened by one slot, so
/// from the exact eligibility time it is the "switch delay bound" of Tab 4-2 (d + 8 cells).
#[test]
fn rcsp_meets_the_delay_bounds_with_random_arrival_phases() {
    let load = admitted_load(8);
    assert!(admissible(&load, d(8)));
    let mut worst = [(0, 0); 4];
    for seed in 1..=12 {
        for disc in [Discipline::RcspWc, Discipline::RcspNwc] {
            let (out, info, _) = rcsp_run(disc, &load, Some(seed), 2000);
            let m = max_delays(&out, &info);
            for l in 0..4 {
                worst[l] = (worst[l].0.max(m[l].0), worst[l].1.max(m[l].1));
            }
        }
    }
    for l in 0..4u8 {
        let (rel, exact) = worst[l as usize];
        eprintln!(
            "random phases: level {l}: max delay {} (from exact eligibility {}) of bound {} (+8)",
            rel / TAU,
            exact / TAU,
            bound(l)
        );
        assert!(rel <= bound(l) * TAU);
        assert!(exact <= (bound(l) + 8) * TAU);
    }
}

/// Work conservation and rate-jitter control, checked on the timeline: a cell is "ready" at
/// its arrival (best effort, signalling) or its release time (guaranteed). wc: the port is
/// busy whenever any cell waits, and sends a cell before its release only when no ready cell
/// waits. nwc: no cell leaves before its release, and the port is busy whenever a ready cell
/// waits.
#[test]
fn wc_sends_early_only_when_nothing_is_ready_and_nwc_never_sends_early() {
    let load = admitted_load(8);
    for seed in 1..=8 {
        for disc in [Discipline::RcspWc, Discipline::RcspNwc] {
            // A small best-effort load, so that ineligible cells get their chance under wc.
            let (out, info, arrival) = rcsp_run(disc, &load, Some(seed), 50);
            let ready = |c: &Cell| info[c.frame as usize].map_or(arrival[c.frame as usize], |x| x.2);
            let mut early = 0;
            for (k, x) in out.iter().enumerate() {
                let is_early = x.start < ready(&x.cell);
                if disc == Discipline::RcspNwc {
                    assert!(!is_early, "nwc sent cell {} early", x.cell.frame);
                } else if is_early {
                    early += 1;
                    // No cell ready by now was still waiting.
                    for y in &out[k + 1..] {
                        assert!(ready(&y.cell) > x.start, "seed {seed}: {:?} early while {:?} ready", x, y);
                    }
                }
            }
            // Busy whenever a cell waits (wc: from its arrival; nwc: from its release).
            for x in &out {
                let from = if disc == Discipline::RcspWc { arrival[x.cell.frame as usize] } else { ready(&x.cell) };
                for w in out.windows(2) {
                    let (gap_from, gap_to) = (w[0].done, w[1].start);
                    assert!(
                        !(gap_from < gap_to && from < gap_to && gap_from < x.start),
                        "{disc:?}: idle while {x:?} waited"
                    );
                }
            }
            if disc == Discipline::RcspWc {
                assert!(early > 0, "seed {seed}: the load exercises early sends");
            }
        }
    }
}

/// An independent check of the (X_min, X_ave, I) spec on a sequence of times, with a
/// tolerance: consecutive times ≥ X_min − tol apart, and the n-th next ≥ I − tol later.
fn conforms(times: &[SimTime], s: &TrafficSpec, tol: SimDuration) -> bool {
    let n = (s.i.as_ps() / s.x_ave.as_ps()) as usize;
    let gap_ok = times.windows(2).all(|w| w[1].0 + tol.0 >= w[0].0 + s.x_min.0);
    let win_ok = times.iter().zip(times.iter().skip(n)).all(|(a, z)| z.0 + tol.0 >= a.0 + s.i.0);
    gap_ok && win_ok
}

/// nwc reconstructs the traffic spec: a VC sending bursts far above it leaves the port
/// conforming (within the 8-cell slot plus one cell on the wire), while best effort
/// saturates the link; under wc the same VC's departures do not conform.
#[test]
fn nwc_output_conforms_to_the_traffic_spec() {
    let s = spec(8, 16, 64);
    let mut rng = Lcg(7);
    let mut arr: Vec<(SimTime, Cell)> = Vec::new();
    for k in 0..200 {
        arr.push((SimTime(rng.next(2000 * TAU)), cell(100, k)));
    }
    for k in 0..500 {
        arr.push((SimTime::ZERO, cell(7, 1000 + k)));
    }
    arr.sort_by_key(|a| (a.0, a.1.frame));
    let mut results = Vec::new();
    for disc in [Discipline::RcspNwc, Discipline::RcspWc] {
        let mut p = port(disc);
        p.set_vc_class(100, VcClass { level: 1, spec: Some(s) }).unwrap();
        let out = simulate(&mut p, &arr);
        let times: Vec<SimTime> = out.iter().filter(|x| x.cell.vci == 100).map(|x| x.start).collect();
        assert_eq!(times.len(), 200);
        results.push(conforms(&times, &s, d(8) + d(1)));
    }
    assert_eq!(results, vec![true, false]);
    let arrivals: Vec<SimTime> = arr.iter().filter(|a| a.1.vci == 100).map(|a| a.0).collect();
    assert!(!conforms(&arrivals, &s, d(9)), "the input does not conform");
}

// ---- nwc wake-ups and the ledger ----

#[test]
fn an_idle_nwc_port_asks_once_for_a_wake_up_at_the_next_release() {
    let mut p = port(Discipline::RcspNwc);
    p.set_vc_class(100, VcClass { level: 0, spec: Some(spec(8, 8, 64)) }).unwrap();
    let c = |k| cell(100, k);
    p.offer_cell(t(1), c(0));
    p.offer_cell(t(1), c(1));
    assert_eq!(p.start_next(t(1)), None, "released at the slot point 8");
    assert_eq!(p.wake_needed(), Some(t(8)));
    assert_eq!(p.wake_needed(), None, "already pending");
    assert_eq!(p.start_next(t(5)), None, "a spurious early kick sends nothing");
    p.woken(t(8));
    assert_eq!(p.start_next(t(8)), Some(t(9)));
    p.in_tx = None;
    assert_eq!(p.start_next(t(9)), None);
    assert_eq!(p.wake_needed(), Some(t(16)), "exact 9 rounds up to 16");
    assert_eq!(p.queued_cells(), 1, "held cells are queued cells");
}

#[test]
fn a_full_regulator_drops_and_the_port_ledger_balances() {
    let mut p = port(Discipline::RcspNwc);
    let ms = SimDuration::from_millis;
    // X_min = X_ave = 500 ms: a burst at 0 is eligible at 0, 0.5, …, 2 s (5 cells); the
    // rest would be eligible more than 2 s ahead and is refused.
    p.set_vc_class(100, VcClass { level: 2, spec: Some(TrafficSpec::new(ms(500), ms(500), ms(5000)).unwrap()) })
        .unwrap();
    let v: Vec<_> = (0..10).map(|k| p.offer_cell(SimTime::ZERO, cell(100, k))).collect();
    assert_eq!(v.iter().filter(|x| **x == Some(DropReason::Regulator)).count(), 5);
    assert_eq!((p.stats.drop_regulator, p.stats.drops(), p.occupancy), (5, 5, 5));
    assert_eq!(p.stats.cells_in, p.queued_cells() + p.stats.drops());
    // Cleared: the held cells still leave at their times (the first is eligible at once, at
    // level 2, before best effort); new cells are best effort.
    p.clear_vc_class(100);
    let out = simulate(&mut p, &[(SimTime::ZERO, cell(100, 10))]);
    let got: Vec<(u32, SimTime)> = out.iter().map(|x| (x.cell.frame, x.start)).collect();
    let at = |k: u64| SimTime(k * ms(500).0);
    assert_eq!(got, vec![(0, at(0)), (10, t(1)), (1, at(1)), (2, at(2)), (3, at(3)), (4, at(4))]);
}

/// A regulator refusal mid-frame is a lost cell like an overflow: under PPD (and EPD) the
/// rest of the frame is discarded at the port and its EOF cell still goes to the regulator;
/// under tail drop each later cell meets the regulator on its own.
#[test]
fn a_regulator_refusal_mid_frame_discards_the_rest_of_the_frame_under_ppd() {
    let ms = SimDuration::from_millis;
    let spec = Some(TrafficSpec::new(ms(500), ms(500), ms(5000)).unwrap());
    let mid = |k| Cell { vci: 100, frame: k, flags: 0 };
    let ser = || Serializer::new(Rate::bps(424_000_000), crate::atm::cell::CELL_BITS);
    for (policy, want) in [(DropPolicy::Ppd, DropReason::Ppd), (DropPolicy::Tail, DropReason::Regulator)] {
        let mut p = OutPort::new("p".into(), LinkId(0), Discipline::RcspNwc, u32::MAX, policy, ser());
        p.set_vc_class(100, VcClass { level: 2, spec }).unwrap();
        // Eligible at 0, 0.5, …, 2 s: five cells; the sixth would be 2.5 s ahead.
        let v: Vec<_> = (0..8).map(|k| p.offer_cell(SimTime::ZERO, mid(k))).collect();
        assert_eq!(&v[..5], &[None; 5]);
        assert_eq!(v[5], Some(DropReason::Regulator));
        assert_eq!(&v[6..], &[Some(want); 2], "{policy:?}");
        // The EOF cell, 1 s later, is eligible at 2.5 s: within 2 s, so it is queued.
        assert_eq!(p.offer_cell(SimTime::ZERO + ms(1000), cell(100, 8)), None, "{policy:?}");
        assert_eq!(p.stats.cells_in, p.queued_cells() + p.stats.drops());
    }
}

// ---- a scheduler at rest (rest.rs) ----

#[test]
fn a_qos_port_rests_as_a_fifo_and_wakes_for_a_classified_cell() {
    let mut p = port(Discipline::StaticPriority);
    let at_rest = |p: &OutPort| matches!(p.sched, Scheduler::Fifo(_));
    assert!(p.has_classes() && at_rest(&p), "at rest from the start");
    assert_eq!(p.priority_mode(), Some(Mode::Static));
    for k in 0..3 {
        p.offer_cell(t(0), cell(20, k));
    }
    p.set_vc_class(10, VcClass { level: 0, spec: None }).unwrap();
    assert!(at_rest(&p) && p.classifies_at_rest(10) && !p.classifies_at_rest(20), "a class kept at rest");
    p.offer_cell(t(0), cell(10, 3));
    assert!(!at_rest(&p), "awake for the classified cell");
    p.offer_cell(t(0), cell(20, 4));
    let mut sent = || p.start_next(t(0)).map(|_| p.in_tx.take().unwrap().frame);
    assert_eq!(sent(), Some(3), "the level cell first");
    let mut order = Vec::new();
    while let Some(id) = sent() {
        order.push(id);
    }
    assert_eq!(order, [0, 1, 2, 4], "then best effort in arrival order");
    assert!(at_rest(&p), "at rest once its level is empty");
    // A refused class changes nothing.
    let mut r = port(Discipline::RcspWc);
    assert!(r.set_vc_class(1, VcClass { level: 0, spec: None }).is_err());
    assert!(at_rest(&r) && !r.classifies_at_rest(1) && r.priority_mode() == Some(Mode::RcspWc));
}

/// The earliest release time of a frame end or RM cell in any regulator of an nwc port, found
/// by a scan (what [`OutPort::held_watched_until`] answers from its marks).
fn held_watched_scan(p: &OutPort) -> Option<SimTime> {
    match &p.sched {
        Scheduler::Priority(pr) if pr.mode == Mode::RcspNwc => pr
            .regs
            .iter()
            .flatten()
            .filter_map(|r| r.reg.waiting.iter().find(|(_, c)| c.is_eof_or_rm()).map(|&(t, _)| t))
            .min(),
        _ => None,
    }
}

/// One step of [`a_port_at_rest_serves_as_one_always_awake`].
#[derive(Clone, Debug)]
enum Op {
    /// A data cell of VC `vci`, a frame end or not, `dt` cell times after the last step.
    Offer { vci: u32, eof: bool, dt: u64 },
    /// A host adapter's frame of `n` cells on VC `vci`.
    Frame { vci: u32, n: u32 },
    /// A control cell.
    Ctrl,
    /// VC `vci` gets level `level`.
    Class { vci: u32, level: u8 },
    /// VC `vci` is best effort again.
    Clear { vci: u32 },
    /// The transmitter takes the next cell, if any, `dt` cell times after the last step.
    Send { dt: u64 },
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        4 => (0u32..5, any::<bool>(), 0u64..3).prop_map(|(vci, eof, dt)| Op::Offer { vci, eof, dt }),
        1 => (0u32..5, 1u32..4).prop_map(|(vci, n)| Op::Frame { vci, n }),
        1 => Just(Op::Ctrl),
        1 => (0u32..5, 0u8..4).prop_map(|(vci, level)| Op::Class { vci, level }),
        1 => (0u32..5).prop_map(|vci| Op::Clear { vci }),
        4 => (0u64..4).prop_map(|dt| Op::Send { dt }),
    ]
}

proptest::proptest! {
    /// Under any arrivals (a switch's cells and an adapter's frames, the transmitter started
    /// after each as the fabric starts it), class changes and sends, a port whose scheduler
    /// rests whenever it can sends the same cells at the same steps, and refuses the same, as
    /// one woken before every step (whose steps all run the static-priority or RCSP scheduler);
    /// an nwc port knows its first held frame end's release time without a scan.
    #[test]
    fn a_port_at_rest_serves_as_one_always_awake(
        disc in proptest::sample::select(vec![Discipline::StaticPriority, Discipline::RcspWc, Discipline::RcspNwc]),
        ops in proptest::collection::vec(op(), 0..200),
    ) {
        let (mut p, mut awake) = (port(disc), port(disc));
        let mut now = SimTime::ZERO;
        let kick = |q: &mut OutPort, now: SimTime| {
            if q.in_tx.is_none() {
                q.start_next(now);
            }
        };
        for (id, o) in ops.iter().enumerate() {
            awake.wake_classes();
            proptest::prop_assert!(matches!(awake.sched, Scheduler::Priority(_)));
            let id = id as u32;
            match *o {
                Op::Offer { vci, eof, dt } => {
                    now += d(dt);
                    let c = Cell { vci, frame: id, flags: if eof { EOF } else { 0 } };
                    proptest::prop_assert_eq!(p.offer_cell(now, c), awake.offer_cell(now, c));
                }
                Op::Frame { vci, n } => {
                    proptest::prop_assert_eq!(p.push_frame(now, vci, id, n), awake.push_frame(now, vci, id, n));
                }
                Op::Ctrl => {
                    let c = Cell { vci: 5, frame: id, flags: CTRL | EOF };
                    proptest::prop_assert_eq!(p.offer_cell(now, c), awake.offer_cell(now, c));
                }
                Op::Class { vci, level } => {
                    let class = VcClass { level, spec: Some(spec(8, 16, 64)) };
                    proptest::prop_assert_eq!(p.set_vc_class(vci, class), awake.set_vc_class(vci, class));
                }
                Op::Clear { vci } => {
                    p.clear_vc_class(vci);
                    awake.clear_vc_class(vci);
                }
                Op::Send { dt } => {
                    now += d(dt);
                    proptest::prop_assert_eq!(p.in_tx.take(), awake.in_tx.take());
                }
            }
            kick(&mut p, now);
            kick(&mut awake, now);
            proptest::prop_assert_eq!(p.in_tx, awake.in_tx);
            proptest::prop_assert_eq!(p.queued_cells(), awake.queued_cells());
            let first_held_end = held_watched_scan(&awake);
            proptest::prop_assert_eq!(awake.held_watched_until(), first_held_end);
            proptest::prop_assert_eq!(p.held_watched_until(), first_held_end);
        }
        proptest::prop_assert_eq!(p.stats.drop_regulator, awake.stats.drop_regulator);
    }
}

/// Served ahead, a port watching frame ends arms its first watched cell's arrival at a lower
/// bound on its end (`OutPort::watched_end_bound`). At a static-priority port a guaranteed
/// level's frame end goes before control cells, so the bound is the sooner of the levels' and
/// the control queue's: here the level-0 frame end's, though a control frame's end was queued
/// first (behind one of its middle cells).
#[test]
fn the_first_watched_cell_to_end_is_bounded_across_levels_and_control_cells() {
    let mut p = port(Discipline::StaticPriority);
    (p.lazy, p.watch_ends) = (true, true);
    p.set_vc_class(10, VcClass { level: 0, spec: None }).unwrap();
    p.offer_cell(SimTime::ZERO, Cell { vci: 20, frame: 1, flags: 0 });
    p.wake(SimTime::ZERO);
    p.tx_done = p.start_next(SimTime::ZERO).expect("the best-effort cell starts");
    p.offer_cell(SimTime::ZERO, Cell { vci: 5, frame: 2, flags: CTRL });
    p.offer_cell(SimTime::ZERO, Cell { vci: 5, frame: 2, flags: CTRL | EOF });
    p.offer_cell(SimTime::ZERO, Cell { vci: 10, frame: 3, flags: EOF });
    let bound = p.watched_end_bound(SimTime::ZERO).flatten().expect("watched cells wait");
    let (mut now, mut ends) = (p.tx_done, Vec::new());
    p.in_tx = None;
    while let Some(done) = p.start_next(now) {
        let c = p.in_tx.take().unwrap();
        if c.is_eof_or_rm() {
            ends.push((c.vci, done));
        }
        now = done;
    }
    assert_eq!(ends, vec![(10, t(2)), (5, t(4))]);
    assert_eq!(bound, t(2));
}
