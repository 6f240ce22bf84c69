//! Behaviour tests of the signalling layer, in the mini world of [`super::world`].

use super::world::{Builder, World};
use super::*;
use crate::ids::PortId;
use crate::time::{Rate, SimDuration, SimTime};

const T1: Rate = Rate::bps(1_536_000);
const P: SimDuration = SimDuration::from_millis(1);

fn ms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}
fn t1(delay: SimDuration) -> LinkSpec {
    LinkSpec::symmetric(T1, delay)
}

/// Endpoint 0 — switches — endpoint 1 in a line; node ids 0 (origin), 1..=k (switches),
/// k+1 (destination). `proc[j]` is the processing time of node `j`.
fn line(links: &[LinkSpec], proc: &[SimDuration], cfg: SigConfig) -> World {
    let mut b = Builder::default();
    let k = links.len() - 1;
    b.endpoint(0, proc[0]);
    for p in &proc[1..=k] {
        b.switch(*p);
    }
    b.endpoint(1, proc[k + 1]);
    for (j, l) in links.iter().enumerate() {
        b.link(j, j + 1, *l);
    }
    b.build(cfg)
}

/// Set up call `call` from node `o` to endpoint `dest`; return its latency.
fn setup(w: &mut World, o: usize, call: u32, dest: u32) -> SimDuration {
    let t0 = w.now;
    w.request(o, call, dest);
    w.run();
    w.connected_at(call) - t0
}

/// Release `call` at `o`; return the time until the destination's `Released`.
fn release(w: &mut World, o: usize, call: u32) -> SimDuration {
    let t0 = w.now;
    w.release(o, call);
    w.run();
    w.when(|a| matches!(a, Action::Released { call: c, .. } if c.0 == call)) - t0
}

fn assert_closed_form(w: &mut World, o: usize, call: u32, dest: u32, links: &[LinkSpec], proc: &[SimDuration]) {
    assert!(closed_form_holds(links, proc));
    assert_eq!(setup(w, o, call, dest), setup_latency(links, proc), "setup of call {call}");
    assert_eq!(release(w, o, call), release_latency(links, proc), "release of call {call}");
}

#[test]
fn setup_latency_equals_the_closed_form_through_one_switch_and_release_frees_everything() {
    let links = [t1(ms(5)), t1(ms(5))];
    let proc = [P; 3];
    let mut w = line(&links, &proc, SigConfig::default());
    assert_closed_form(&mut w, 0, 1, 1, &links, &proc);
    // 2·(2 cells + 5 ms + 1 ms) + 2·(1 cell + 5 ms + 1 ms) on T1.
    assert_eq!(setup_latency(&links, &proc).as_ps(), 24_000_000_000 + 2 * 552_083_333 + 2 * 276_041_666);
    w.check_all_free();
    w.check_conservation();
}

#[test]
fn setup_latency_equals_the_closed_form_on_three_switches_in_a_line() {
    let oc3 = Rate::bps(149_760_000);
    let asym = LinkSpec { rate_fwd: T1, delay_fwd: ms(7), rate_rev: oc3, delay_rev: ms(3) };
    let links = [t1(SimDuration::from_micros(10)), asym, LinkSpec::symmetric(oc3, ms(2)), t1(ms(5))];
    let proc = [ms(2), P, SimDuration::from_micros(300), ms(4), P];
    let mut w = line(&links, &proc, SigConfig::default());
    assert_closed_form(&mut w, 0, 7, 1, &links, &proc);
    // A second call reuses the freed VCIs and takes exactly as long.
    assert_closed_form(&mut w, 0, 8, 1, &links, &proc);
    w.check_all_free();
    w.check_conservation();
}

/// The 8-switch dumbbell of stars of spec §1.2: routers R1..R6 (endpoints 0..5, nodes 0..5)
/// on site switches S1..S6 (nodes 6..11), hubs HW (12) and HE (13) joined by 30 ms.
fn dumbbell() -> World {
    let access = t1(SimDuration::from_micros(10));
    let mut b = Builder::default();
    for r in 0..6 {
        b.endpoint(r, P);
    }
    for _ in 0..8 {
        b.switch(P);
    }
    for r in 0..6 {
        b.link(r, 6 + r, access);
        b.link(6 + r, if r < 3 { 12 } else { 13 }, t1(ms(5)));
    }
    b.link(12, 13, t1(ms(30)));
    b.build(SigConfig::default())
}

#[test]
fn setup_latency_equals_the_closed_form_across_the_dumbbell_of_stars() {
    let mut w = dumbbell();
    let access = t1(SimDuration::from_micros(10));
    // R1 → R5 crosses the bottleneck: R1-S1-HW-HE-S5-R5.
    let cross = [access, t1(ms(5)), t1(ms(30)), t1(ms(5)), access];
    assert_closed_form(&mut w, 0, 1, 4, &cross, &[P; 6]);
    // R6 → R2 the other way, and R2 → R3 within the west half: R2-S2-HW-S3-R3.
    assert_closed_form(&mut w, 5, 2, 1, &cross, &[P; 6]);
    let west = [access, t1(ms(5)), t1(ms(5)), access];
    assert_closed_form(&mut w, 1, 3, 2, &west, &[P; 5]);
    // About 2 × 40 ms of propagation plus 10 processing times and 15 cell times.
    let t = setup_latency(&cross, &[P; 6]);
    assert!(t > ms(94) && t < ms(95), "{t}");
    w.check_all_free();
    w.check_conservation();
}

#[test]
fn a_lost_setup_on_any_hop_costs_exactly_one_retransmission_timeout() {
    let links = [t1(ms(1)), t1(ms(5)), t1(ms(30)), t1(ms(5))];
    let proc = [P; 5];
    let rto = GbnConfig::default().rto;
    for j in 0..links.len() {
        let mut w = line(&links, &proc, SigConfig::default());
        w.wire(j, j + 1).drop = vec![0]; // the first frame on hop j is the SETUP
        assert_eq!(setup(&mut w, 0, 1, 1), setup_latency(&links, &proc) + rto, "SETUP lost on hop {j}");
        assert_eq!(w.wire(j, j + 1).lost, [1, 0]);
        w.release(0, 1);
        w.run();
        w.check_all_free();
        w.check_conservation();
    }
}

#[test]
fn a_lost_ack_costs_nothing_and_its_duplicate_is_discarded() {
    let links = [t1(ms(5)), t1(ms(5)), t1(ms(5))];
    let proc = [P; 4];
    let mut w = line(&links, &proc, SigConfig::default());
    w.wire(2, 1).drop = vec![0]; // the ACK of the SETUP from switch 2 to switch 1
    assert_eq!(setup(&mut w, 0, 1, 1), setup_latency(&links, &proc));
    assert_eq!(w.wire(2, 1).lost, [0, 1]);
    assert_eq!(w.ctrls[2].receiver(PortIx(0)).stats.duplicates, 1);
    assert_eq!(w.ctrls[1].sender(PortIx(1)).stats.retransmitted, 1);
    w.release(0, 1);
    w.run();
    w.check_all_free();
    w.check_conservation();
}

#[test]
fn a_burst_loss_longer_than_the_window_is_recovered_each_message_once_in_order() {
    let links = [t1(ms(5)), t1(ms(5))];
    let proc = [P; 3];
    let mut w = line(&links, &proc, SigConfig::default());
    w.wire(0, 1).drop = (0..10).collect(); // the first window of SETUPs and two retransmissions
    for call in 0..12 {
        w.request(0, call, 1);
    }
    w.run();
    let rto = GbnConfig::default().rto;
    assert!(w.connected_at(0) - SimTime::ZERO >= setup_latency(&links, &proc) + rto.mul(2));
    let (s, r) = (w.ctrls[0].sender(PortIx(0)).stats, w.ctrls[1].receiver(PortIx(0)).stats);
    assert_eq!((s.sent, s.retransmitted, s.timeouts), (12, 16, 2));
    assert_eq!((r.delivered, r.out_of_order, r.duplicates), (12, 6, 0));
    // In order: the calls reach the destination in request order, with VCIs in that order.
    let vcis: Vec<(u32, u32)> = w
        .results
        .iter()
        .filter_map(|(_, a)| match *a {
            Action::Incoming { call, vci, .. } => Some((call.0, vci)),
            _ => None,
        })
        .collect();
    assert_eq!(vcis, (0..12).map(|c| (c, 32 + c)).collect::<Vec<_>>());
    for call in 0..12 {
        w.release(0, call);
    }
    w.run();
    w.check_all_free();
    w.check_conservation();
}

/// E0 — S1 — S2 — E1, with a third endpoint E2 on S2 (node 4); 3 VCIs per port.
fn small_vci_world() -> World {
    let cfg = SigConfig { vci_space: 35, ..SigConfig::default() };
    let mut b = Builder::default();
    let (e0, s1, s2, e1) = (b.endpoint(0, P), b.switch(P), b.switch(P), b.endpoint(1, P));
    let e2 = b.endpoint(2, P);
    for (a, z) in [(e0, s1), (s1, s2), (s2, e1), (e2, s2)] {
        b.link(a, z, t1(ms(5)));
    }
    b.build(cfg)
}

#[test]
fn a_setup_fails_cleanly_when_a_port_runs_out_of_vcis_and_succeeds_after_a_release() {
    let mut w = small_vci_world();
    for call in 10..13 {
        setup(&mut w, 4, call, 1); // E2 fills S2's port towards E1
    }
    assert_eq!(w.ctrls[2].vcis_in_use(PortIx(1)), 3);
    let entries_before = w.table.clone();
    w.request(0, 1, 1);
    w.run();
    let failed = w.results.iter().filter(|(_, a)| matches!(a, Action::SetupFailed { .. })).collect::<Vec<_>>();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].1, Action::SetupFailed { call: CallId(1), reason: RejectReason::NoVci });
    assert_eq!(w.ctrls[2].stats.refused[RejectReason::NoVci.index()], 1);
    // Every hop upstream of S2 freed what it allocated; S2 holds only E2's calls.
    assert_eq!((w.ctrls[0].vcis_in_use(PortIx(0)), w.ctrls[1].vcis_in_use(PortIx(1))), (0, 0));
    assert_eq!((w.ctrls[0].calls_held(), w.ctrls[1].calls_held()), (0, 0));
    assert_eq!(w.table, entries_before);
    release(&mut w, 4, 11);
    let links = [t1(ms(5)); 3];
    assert_eq!(setup(&mut w, 0, 2, 1), setup_latency(&links, &[P; 4]));
    for (o, call) in [(0, 2), (4, 10), (4, 12)] {
        release(&mut w, o, call);
    }
    w.check_all_free();
    w.check_conservation();
}

#[test]
fn an_admission_refusal_releases_every_partial_reservation() {
    // Refuse in turn at the origin's port, the 1st switch's and the 2nd switch's.
    let links = [t1(ms(5)); 3];
    for refuse_at in 0..3 {
        let mut w = line(&links, &[P; 4], SigConfig::default());
        let port = w.ctrls[refuse_at].port(PortIx(if refuse_at == 0 { 0 } else { 1 })).out;
        w.adm.refuse = vec![port];
        w.request(0, 1, 1);
        w.run();
        assert_eq!(
            w.results.last().unwrap().1,
            Action::SetupFailed { call: CallId(1), reason: RejectReason::Admission }
        );
        assert_eq!(w.adm.admits.len(), refuse_at, "admitted before the refusing port");
        w.check_all_free(); // includes: the hook saw one release per admit
        w.check_conservation();
    }
}

#[test]
fn a_call_released_while_pending_leaves_nothing_behind() {
    let links = [t1(ms(5)); 3];
    let mut w = line(&links, &[P; 4], SigConfig::default());
    w.request(0, 1, 1);
    w.release(0, 1); // at once: the RELEASE follows the SETUP down the path
    w.run();
    assert!(!w.results.iter().any(|(_, a)| matches!(a, Action::Connected { .. })));
    // The RELEASE overtakes the returning CONNECT at the last switch, which drops it as stale.
    let stale: Vec<u64> = w.ctrls.iter().map(|c| c.stats.stale).collect();
    assert_eq!(stale, [0, 0, 1, 0]);
    w.check_all_free();
    w.check_conservation();
}

#[test]
fn failures_at_the_origin_are_reported_at_once() {
    let cfg = SigConfig { vci_space: 33, ..SigConfig::default() };
    let mut w = line(&[t1(ms(5)); 2], &[P; 3], cfg);
    w.request(0, 1, 9);
    assert_eq!(w.results[0], (SimTime::ZERO, Action::SetupFailed { call: CallId(1), reason: RejectReason::NoRoute }));
    w.request(0, 2, 1);
    w.request(0, 3, 1);
    assert_eq!(w.results[1], (SimTime::ZERO, Action::SetupFailed { call: CallId(3), reason: RejectReason::NoVci }));
    w.run();
    release(&mut w, 0, 2);
    w.check_all_free();
    w.check_conservation();
}

#[test]
fn identical_runs_give_identical_results() {
    let run = || {
        let mut w = dumbbell();
        w.wire(12, 13).drop = vec![0, 3];
        for (o, call, dest) in [(0, 1, 4), (1, 2, 5), (3, 3, 0), (2, 4, 1)] {
            w.request(o, call, dest);
        }
        w.run();
        w.results.clone()
    };
    assert_eq!(run(), run());
    assert_eq!(run().len(), 8);
}

#[test]
fn actions_stay_small_copy_values() {
    assert!(std::mem::size_of::<Action>() <= 40, "{}", std::mem::size_of::<Action>());
    let _ = PortId(0);
}
