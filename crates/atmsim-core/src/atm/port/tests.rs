//! Tests of output ports: admission (tail, PPD, EPD, per-VC shares), the control class, the ledger.

use super::*;
use crate::atm::cell::flags::{CTRL, EOF};
use crate::time::Rate;

fn port(limit: u32, policy: DropPolicy) -> OutPort {
    OutPort::new(
        "p".into(),
        LinkId(0),
        Discipline::Fifo,
        limit,
        policy,
        Serializer::new(Rate::bps(1_000_000), crate::atm::cell::CELL_BITS),
    )
}

fn frame_cells(vci: u32, frame: u32, n: u32) -> Vec<Cell> {
    (0..n).map(|i| Cell { vci, frame, flags: if i + 1 == n { EOF } else { 0 } }).collect()
}

fn offer(p: &mut OutPort, cells: &[Cell]) -> Vec<Option<DropReason>> {
    cells.iter().map(|&c| p.offer_cell(SimTime::ZERO, c)).collect()
}

#[test]
fn tail_drop_drops_only_cells_that_find_the_buffer_full() {
    let mut p = port(3, DropPolicy::Tail);
    let v = offer(&mut p, &frame_cells(1, 0, 5));
    assert_eq!(v.iter().filter(|d| d.is_some()).count(), 2);
    assert_eq!(p.occupancy, 3);
    assert_eq!(p.stats.drop_tail, 2);
}

#[test]
fn ppd_drops_the_rest_of_the_frame_but_keeps_eof_when_room() {
    let mut p = port(3, DropPolicy::Ppd);
    offer(&mut p, &frame_cells(1, 0, 3)); // fills the buffer
    p.start_next(SimTime::ZERO); // one cell leaves: room for one
    p.in_tx = None;
    let v = offer(&mut p, &frame_cells(2, 1, 2).into_iter().chain(frame_cells(2, 2, 1)).collect::<Vec<_>>());
    // frame 1: first cell accepted (room for one), EOF dropped by tail;
    // frame 2 (a new frame): tail drop.
    assert_eq!(v, vec![None, Some(DropReason::Tail), Some(DropReason::Tail)]);
}

#[test]
fn ppd_after_a_drop_discards_middle_cells_and_passes_eof() {
    let mut p = port(2, DropPolicy::Ppd);
    let v = offer(&mut p, &frame_cells(1, 0, 5));
    // cells 0,1 in; cell 2 tail-dropped -> PPD; cell 3 PPD; EOF: buffer still full -> tail.
    assert_eq!(v, vec![None, None, Some(DropReason::Tail), Some(DropReason::Ppd), Some(DropReason::Tail)]);
    p.start_next(SimTime::ZERO);
    p.in_tx = None;
    let v = offer(&mut p, &frame_cells(1, 1, 3));
    // previous frame ended with an EOF (dropped), so this is a new frame: first accepted.
    assert_eq!(v[0], None);
}

#[test]
fn epd_refuses_whole_frames_above_threshold_and_admits_below() {
    let mut p = port(100, DropPolicy::Epd { threshold: 4 });
    let a = offer(&mut p, &frame_cells(1, 0, 6)); // starts at 0 < 4: admitted whole
    assert!(a.iter().all(|d| d.is_none()));
    let b = offer(&mut p, &frame_cells(2, 1, 3)); // starts at 6 >= 4: refused whole
    assert!(b.iter().all(|d| *d == Some(DropReason::Epd)));
    assert_eq!(p.stats.frames_refused, 1);
    assert_eq!(p.occupancy, 6);
}

/// Spec A-4: a VC at its share of the buffer loses its next cells while another VC is
/// still admitted to the same, far from full, buffer.
#[test]
fn a_vc_at_its_buffer_share_loses_cells_others_do_not() {
    let mut p = port(100, DropPolicy::Tail);
    p.vc_limit = 3;
    let v = offer(&mut p, &frame_cells(1, 0, 5));
    assert_eq!(v, vec![None, None, None, Some(DropReason::Tail), Some(DropReason::Tail)]);
    let w = offer(&mut p, &frame_cells(2, 0, 3));
    assert_eq!(w, vec![None, None, None]);
    assert_eq!((p.occupancy, p.stats.drop_tail), (6, 2));
    p.start_next(SimTime::ZERO); // VC 1's first cell leaves: room for one more of VC 1
    p.in_tx = None;
    assert_eq!(offer(&mut p, &frame_cells(1, 1, 1)), vec![None]);
}

/// Spec A-5: with a per-VC EPD threshold, a frame whose first cell finds its VC holding
/// that many cells is refused whole; the same frame on an idle VC is admitted.
#[test]
fn per_vc_epd_refuses_a_frame_of_a_loaded_vc_only() {
    let mut p = port(100, DropPolicy::Epd { threshold: 90 });
    p.vc_limit = 10;
    p.vc_epd_threshold = 4;
    assert!(offer(&mut p, &frame_cells(1, 0, 4)).iter().all(Option::is_none));
    let v = offer(&mut p, &frame_cells(1, 1, 3));
    assert_eq!(v, vec![Some(DropReason::Epd); 3]);
    assert!(offer(&mut p, &frame_cells(2, 0, 3)).iter().all(Option::is_none));
    assert_eq!((p.occupancy, p.stats.drop_epd, p.stats.frames_refused), (7, 3, 1));
}

#[test]
fn epd_state_is_per_vc() {
    let mut p = port(100, DropPolicy::Epd { threshold: 2 });
    // VC 1 starts a frame while empty; VC 2 starts a frame once the buffer holds 2.
    let c1 = frame_cells(1, 0, 4);
    let c2 = frame_cells(2, 1, 2);
    assert_eq!(p.offer_cell(SimTime::ZERO, c1[0]), None);
    assert_eq!(p.offer_cell(SimTime::ZERO, c1[1]), None);
    assert_eq!(p.offer_cell(SimTime::ZERO, c2[0]), Some(DropReason::Epd));
    assert_eq!(p.offer_cell(SimTime::ZERO, c1[2]), None);
    assert_eq!(p.offer_cell(SimTime::ZERO, c2[1]), Some(DropReason::Epd));
    assert_eq!(p.offer_cell(SimTime::ZERO, c1[3]), None);
}

// ---- the control class ----

fn ctrl_cell(vci: u32, frame: u32) -> Cell {
    Cell { vci, frame, flags: CTRL | EOF }
}

fn rr_port(limit: u32) -> OutPort {
    OutPort::new(
        "p".into(),
        LinkId(0),
        Discipline::RoundRobin,
        limit,
        DropPolicy::Tail,
        Serializer::new(Rate::bps(1_000_000), crate::atm::cell::CELL_BITS),
    )
}

/// One cell time at 1 Mb/s: 424 µs.
const CELL_PS: u64 = 424_000_000;

/// Let the transmitter run from `now` until the port is empty, with `during` called after
/// each cell starts (to offer more cells mid-transmission). Returns (completion, cell).
fn drain_with(
    p: &mut OutPort,
    mut now: SimTime,
    mut during: impl FnMut(&mut OutPort, SimTime),
) -> Vec<(SimTime, Cell)> {
    let mut out = Vec::new();
    while let Some(done) = p.start_next(now) {
        during(p, now);
        out.push((done, p.in_tx.take().unwrap()));
        now = done;
    }
    out
}

fn drain(p: &mut OutPort) -> Vec<(SimTime, Cell)> {
    drain_with(p, SimTime::ZERO, |_, _| {})
}

#[test]
fn a_control_cell_behind_100_data_cells_leaves_one_cell_time_after_the_cell_in_transmission() {
    let mut p = port(u32::MAX, DropPolicy::Tail);
    p.wake(SimTime::ZERO);
    offer(&mut p, &frame_cells(40, 0, 101));
    let first_done = p.start_next(SimTime::ZERO).unwrap();
    assert_eq!(first_done, SimTime(CELL_PS));
    let on_wire = p.in_tx.unwrap();
    // Arrives mid-transmission, behind 100 waiting data cells.
    assert_eq!(p.offer_cell(SimTime(CELL_PS / 3), ctrl_cell(5, 900)), None);
    assert_eq!(p.occupancy, 100, "the control cell is not a data cell");
    assert_eq!(p.in_tx, Some(on_wire), "no preemption");
    p.in_tx = None;
    let out = drain_with(&mut p, first_done, |_, _| {});
    assert_eq!(out[0], (SimTime(2 * CELL_PS), ctrl_cell(5, 900)));
    // The data cells follow in order, each one cell time later.
    assert_eq!(out.len(), 101);
    for (i, &(t, c)) in out[1..].iter().enumerate() {
        assert_eq!(c.vci, 40);
        assert_eq!(t, SimTime((i as u64 + 3) * CELL_PS));
    }
}

#[test]
fn control_cells_keep_fifo_order_among_themselves() {
    let mut p = port(u32::MAX, DropPolicy::Tail);
    for k in 0..6u32 {
        p.offer_cell(SimTime::ZERO, Cell { vci: 40 + k % 2, frame: 100 + k, flags: EOF });
        // Two signalling VCs interleaved; one 2-cell frame among them.
        let vci = 5 + k % 2;
        let c = if k == 3 { Cell { vci, frame: k, flags: CTRL } } else { ctrl_cell(vci, k) };
        p.offer_cell(SimTime::ZERO, c);
    }
    let out: Vec<Cell> = drain(&mut p).into_iter().map(|(_, c)| c).collect();
    let frames: Vec<u32> = out.iter().map(|c| c.frame).collect();
    assert_eq!(frames, vec![0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105]);
    assert!(out[..6].iter().all(Cell::is_ctrl));
    assert!(!out[6..].iter().any(Cell::is_ctrl));
}

#[test]
fn a_full_control_queue_drops_and_counts_and_leaves_data_alone() {
    let mut p = port(6, DropPolicy::Epd { threshold: 3 }).with_ctrl_buffer(3);
    let ctrl: Vec<Cell> = (0..5).map(|k| ctrl_cell(5, k)).collect();
    let v = offer(&mut p, &ctrl);
    assert_eq!(v, vec![None, None, None, Some(DropReason::Ctrl), Some(DropReason::Ctrl)]);
    assert_eq!(p.ctrl.len(), 3);
    // A data frame arriving now sees an empty data buffer: admitted whole despite EPD.
    let d = offer(&mut p, &frame_cells(40, 10, 6));
    assert!(d.iter().all(Option::is_none));
    assert_eq!(p.occupancy, 6);
    let st = p.stats;
    assert_eq!((st.dropped_ctrl, st.ctrl_in, st.cells_in), (2, 5, 11));
    assert_eq!((st.drop_tail, st.drop_epd, st.frames_refused), (0, 0, 0));
    assert_eq!(st.drops(), 2);
    assert_eq!(st.max_ctrl_occupancy, 3);
    assert_eq!(st.max_occupancy, 6);
    // And a full data buffer does not stop control cells.
    assert_eq!(p.offer_cell(SimTime::ZERO, frame_cells(41, 11, 1)[0]), Some(DropReason::Epd));
    p.ctrl.clear();
    assert_eq!(p.offer_cell(SimTime::ZERO, ctrl_cell(5, 6)), None);
}

#[test]
fn an_adapter_control_frame_is_flagged_and_admitted_whole_or_refused_whole() {
    let mut p = port(4, DropPolicy::Tail).with_ctrl_buffer(3);
    assert!(p.push_ctrl_frame(5, 7, 2));
    assert_eq!(
        p.ctrl.iter().copied().collect::<Vec<_>>(),
        vec![Cell { vci: 5, frame: 7, flags: CTRL }, Cell { vci: 5, frame: 7, flags: CTRL | EOF }]
    );
    assert!(!p.push_ctrl_frame(5, 8, 2), "2 + 2 > 3: refused whole");
    assert_eq!(p.ctrl.len(), 2);
    assert!(p.push_ctrl_frame(5, 9, 1));
    assert_eq!((p.stats.dropped_ctrl, p.stats.ctrl_in, p.stats.cells_in), (2, 5, 5));
    // The data side still has its whole buffer.
    assert!(p.has_room_for(4));
    assert_eq!(p.occupancy, 0);
}

#[test]
fn round_robin_and_fifo_data_both_yield_to_control() {
    for d in [Discipline::Fifo, Discipline::RoundRobin] {
        let mk = || {
            let mut p = OutPort::new(
                "p".into(),
                LinkId(0),
                d,
                u32::MAX,
                DropPolicy::Tail,
                Serializer::new(Rate::bps(1_000_000), crate::atm::cell::CELL_BITS),
            );
            for c in frame_cells(33, 0, 4).into_iter().chain(frame_cells(40, 1, 4)) {
                p.offer_cell(SimTime::ZERO, c);
            }
            p
        };
        let data_alone: Vec<Cell> = drain(&mut mk()).into_iter().map(|(_, c)| c).collect();
        // The same backlog, with two control cells offered while the 3rd cell is on the wire.
        let mut n = 0;
        let mixed = drain_with(&mut mk(), SimTime::ZERO, |p, now| {
            n += 1;
            if n == 3 {
                p.offer_cell(now, ctrl_cell(5, 50));
                p.offer_cell(now, ctrl_cell(5, 51));
            }
        });
        let cells: Vec<Cell> = mixed.iter().map(|&(_, c)| c).collect();
        assert_eq!(&cells[..3], &data_alone[..3], "{d:?}");
        assert_eq!(&cells[3..5], &[ctrl_cell(5, 50), ctrl_cell(5, 51)], "{d:?}");
        assert_eq!(&cells[5..], &data_alone[3..], "{d:?}: data order unchanged");
        // Back to back: the transmitter never idles.
        for (i, &(t, _)) in mixed.iter().enumerate() {
            assert_eq!(t, SimTime((i as u64 + 1) * CELL_PS));
        }
    }
    // Round robin keeps its tokens untouched by control cells.
    let mut p = rr_port(u32::MAX);
    p.offer_cell(SimTime::ZERO, frame_cells(33, 0, 1)[0]);
    p.offer_cell(SimTime::ZERO, ctrl_cell(5, 1));
    assert_eq!(p.sched.active_vcs(), 1);
}

#[test]
fn a_shaper_released_control_cell_joins_the_control_fifo() {
    let mut p = rr_port(u32::MAX);
    p.push_cell(SimTime::ZERO, frame_cells(33, 0, 1)[0]);
    p.push_cell(SimTime::ZERO, ctrl_cell(5, 1));
    assert_eq!((p.occupancy, p.ctrl.len(), p.stats.ctrl_in, p.stats.cells_in), (1, 1, 1, 2));
    assert_eq!(drain(&mut p)[0].1, ctrl_cell(5, 1));
}

proptest::proptest! {
    /// Mixed classes under random offers and departures: every cell offered is waiting,
    /// on the wire, sent, or counted in exactly one drop counter; neither buffer overflows.
    #[test]
    fn every_offered_cell_is_queued_sent_or_dropped_once(
        ops in proptest::collection::vec((0u32..3, 1u32..4, proptest::bool::ANY, proptest::bool::ANY), 1..300),
        limit in 1u32..20,
        ctrl_limit in 1u32..6,
    ) {
        let mut p = port(limit, DropPolicy::Epd { threshold: (limit / 2).max(1) }).with_ctrl_buffer(ctrl_limit);
        let mut sent = 0u64;
        for (i, &(vc, n, is_ctrl, depart)) in ops.iter().enumerate() {
            if is_ctrl {
                if vc == 0 {
                    p.push_ctrl_frame(5, i as u32, n.min(2));
                } else {
                    let cells: Vec<Cell> = frame_cells(5, i as u32, n.min(2)).into_iter()
                        .map(|c| Cell { flags: c.flags | CTRL, ..c }).collect();
                    offer(&mut p, &cells);
                }
            } else {
                offer(&mut p, &frame_cells(32 + vc, i as u32, n));
            }
            proptest::prop_assert!(p.occupancy <= limit);
            proptest::prop_assert!(p.ctrl.len() as u32 <= ctrl_limit);
            if depart && p.start_next(SimTime::ZERO).is_some() {
                p.in_tx = None;
                sent += 1;
            }
            proptest::prop_assert_eq!(p.stats.cells_in, sent + p.queued_cells() + p.stats.drops());
        }
    }
}

proptest::proptest! {
    /// EPD on random interleavings of frames from several VCs and random departures:
    /// the buffer never overflows; a frame refused at its first cell loses every cell;
    /// an admitted frame keeps a prefix of its cells, plus its end-of-frame cell unless
    /// the buffer was full when that arrived.
    #[test]
    fn epd_discards_whole_frames_or_keeps_a_prefix(
        ops in proptest::collection::vec((0u32..4, 1u32..12, proptest::bool::ANY), 1..200),
        limit in 8u32..64,
        thr_frac in 0.2f64..1.0,
    ) {
        let threshold = ((limit as f64 * thr_frac) as u32).max(1);
        let mut p = port(limit, DropPolicy::Epd { threshold });
        // (vc, frame id, cells) for each frame, and the verdicts of its cells.
        let mut verdicts: Vec<Vec<Option<DropReason>>> = Vec::new();
        for (i, &(vc, n, depart)) in ops.iter().enumerate() {
            let mut v = Vec::new();
            for c in frame_cells(vc, i as u32, n) {
                v.push(p.offer_cell(SimTime::ZERO, c));
                proptest::prop_assert!(p.occupancy <= limit);
                if depart && p.start_next(SimTime::ZERO).is_some() {
                    p.in_tx = None;
                }
            }
            verdicts.push(v);
        }
        for v in &verdicts {
            if v[0] == Some(DropReason::Epd) {
                proptest::prop_assert!(v.iter().all(|d| *d == Some(DropReason::Epd)));
                continue;
            }
            let body = &v[..v.len() - 1];
            let first_drop = body.iter().position(|d| d.is_some()).unwrap_or(body.len());
            proptest::prop_assert!(body[..first_drop].iter().all(|d| d.is_none()));
            proptest::prop_assert!(body[first_drop..].iter().all(|d| d.is_some()));
            let eof = v[v.len() - 1];
            proptest::prop_assert!(eof.is_none() || eof == Some(DropReason::Tail));
        }
    }
}

/// A port served ahead and bound for a host, with its first cell started at time 0 (the
/// network sets `tx_done` when a cell starts).
fn to_host(d: Discipline) -> OutPort {
    let mut p = OutPort::new(
        "p".into(),
        LinkId(0),
        d,
        u32::MAX,
        DropPolicy::Tail,
        Serializer::new(Rate::bps(149_760_000), crate::atm::cell::CELL_BITS),
    );
    p.lazy = true;
    p.watch_ends = true;
    p
}

fn start(p: &mut OutPort) {
    p.wake(SimTime::ZERO);
    p.tx_done = p.start_next(SimTime::ZERO).expect("a cell to start");
}

#[test]
fn a_fifo_port_bound_for_a_host_is_due_exactly_when_its_next_end_of_frame_cell_starts() {
    let mut p = to_host(Discipline::Fifo);
    offer(&mut p, &frame_cells(1, 0, 5));
    offer(&mut p, &frame_cells(2, 1, 3));
    start(&mut p);
    // Cells 1–3 wait ahead of the end-of-frame cell: it starts when they and the cell on the
    // wire have gone. Check against drawing the cell times one by one.
    let mut ser = p.ser;
    let mut t = p.tx_done;
    for _ in 0..3 {
        t += ser.next_unit();
    }
    assert_eq!(p.next_due(), Some(t));
    // Nothing watched waits behind a frame's middle cells until its end arrives.
    let mut q = to_host(Discipline::Fifo);
    offer(&mut q, &frame_cells(1, 0, 5)[..4]);
    start(&mut q);
    assert_eq!(q.next_due(), None);
    let eof = frame_cells(1, 0, 5)[4];
    q.offer_cell(SimTime::ZERO, eof);
    let mut ser = q.ser;
    let mut t = q.tx_done;
    for _ in 0..3 {
        t += ser.next_unit();
    }
    assert_eq!(q.next_due_after_push(eof), Some(t));
    assert_eq!(q.next_due(), Some(t));
}

#[test]
fn behind_control_cells_the_due_time_is_a_lower_bound_and_round_robin_follows_its_service_order() {
    // A control cell goes first: the next start is all that is certain.
    let mut p = to_host(Discipline::Fifo);
    offer(&mut p, &frame_cells(1, 0, 4));
    start(&mut p);
    p.offer_cell(SimTime::ZERO, Cell { vci: 5, frame: 9, flags: CTRL | EOF });
    assert_eq!(p.next_due(), Some(p.tx_done));
    // Round robin: the port follows its service order (round r serves every VC's r-th cell,
    // in token order), so with nothing else arriving the due time is VC 2's end-of-frame
    // cell's real start: after VC 2's first cell and VC 1's second.
    let mut r = to_host(Discipline::RoundRobin);
    offer(&mut r, &frame_cells(1, 0, 6));
    offer(&mut r, &frame_cells(2, 1, 2));
    start(&mut r);
    let due = r.next_due().expect("a watched cell waits");
    assert_eq!(due, r.tx_done + r.ser.peek_units(2));
    let mut now = r.tx_done;
    r.in_tx = None;
    let mut eof_start = None;
    while let Some(done) = r.start_next(now) {
        if r.in_tx.is_some_and(|c| c.vci == 2 && c.is_eof()) {
            eof_start = Some(now);
        }
        r.in_tx = None;
        now = done;
    }
    assert_eq!(eof_start, Some(due));
}

#[test]
fn a_source_waiting_on_its_frame_is_due_when_that_frame_ends() {
    let mut p = to_host(Discipline::Fifo);
    p.watch_ends = false;
    p.notify = true;
    offer(&mut p, &frame_cells(3, 0, 1));
    p.vcs[3].notify_source = true;
    start(&mut p);
    assert_eq!(p.next_due(), Some(p.tx_done));
}

#[test]
fn a_watched_control_cell_ends_exactly_where_its_arrival_is_armed_ahead() {
    // Control cells go before every data cell at FIFO and round-robin ports, so the first
    // watched one (a control frame's end) ends exactly as many cell times after the cell on
    // the wire as there are control cells up to it: checked against the port's own service.
    for d in [Discipline::Fifo, Discipline::RoundRobin] {
        let mut p = to_host(d);
        offer(&mut p, &frame_cells(1, 0, 4));
        start(&mut p);
        // A control frame's middle cell alone is not watched: the port keeps its own event.
        p.offer_cell(SimTime::ZERO, Cell { vci: 5, frame: 9, flags: CTRL });
        assert_eq!(p.watched_end_bound(SimTime::ZERO), None, "{d:?}");
        p.offer_cell(SimTime::ZERO, ctrl_cell(5, 9));
        let bound = p.watched_end_bound(SimTime::ZERO).flatten().expect("a watched control cell");
        let now = p.tx_done;
        p.in_tx = None;
        let sent = drain_with(&mut p, now, |_, _| {});
        let end = sent.iter().find(|(_, c)| c.is_ctrl() && c.is_eof()).expect("sent").0;
        assert_eq!(bound, end, "{d:?}");
    }
    // A port whose cell on the wire ended by now is not up to date: its own event first.
    let mut p = to_host(Discipline::Fifo);
    offer(&mut p, &frame_cells(1, 0, 2));
    start(&mut p);
    p.offer_cell(SimTime::ZERO, ctrl_cell(5, 9));
    assert!(p.watched_end_bound(p.tx_done.saturating_sub(SimDuration::from_ps(1))).is_some());
    assert_eq!(p.watched_end_bound(p.tx_done), None);
    // Nor does a port whose sources wait on their frames, or one that does not watch ends.
    p.notify = true;
    assert_eq!(p.watched_end_bound(SimTime::ZERO), None);
    p.notify = false;
    p.watch_ends = false;
    assert_eq!(p.watched_end_bound(SimTime::ZERO), None);
}
