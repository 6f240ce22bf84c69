//! Behaviour of the driver under a small event loop standing in for the network: setups
//! complete after a fixed delay, releases complete at once, timers fire at their instant.

use super::*;
use crate::ids::{DatagramId, NodeId};
use crate::kernel::EventQueue;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
enum Ev {
    Packet { hdr: PacketHeader, egress: NodeId, d: DatagramId },
    Timer(TimerToken),
    Setup(VcRef),
}

/// One rank for all: simultaneous events run in the order they were caused (generations).
impl crate::kernel::Ranked for Ev {
    fn rank(&self) -> u32 {
        0
    }
}

/// The caller: an event queue, fixed setup delay, and a log of what the driver asked for.
struct Net {
    drv: IpoaDriver,
    q: EventQueue<Ev>,
    now: SimTime,
    setup_delay: SimDuration,
    setup_outcome: SetupOutcome,
    next_datagram: u32,
    out: Vec<Action>,
    log: Vec<(SimTime, Action)>,
}

impl Net {
    fn new(cfg: DriverConfig) -> Self {
        Net {
            drv: IpoaDriver::new(cfg),
            q: EventQueue::new(),
            now: SimTime::ZERO,
            setup_delay: SimDuration::from_millis(50),
            setup_outcome: SetupOutcome::Connected,
            next_datagram: 0,
            out: Vec::new(),
            log: Vec::new(),
        }
    }

    /// A datagram of `hdr` to `egress` at `at`; returns its id.
    fn packet(&mut self, at: SimTime, hdr: PacketHeader, egress: NodeId) -> DatagramId {
        let d = DatagramId(self.next_datagram);
        self.next_datagram += 1;
        self.q.schedule(at, Ev::Packet { hdr, egress, d });
        d
    }

    /// Deliver every event up to and including `end`.
    fn run_until(&mut self, end: SimTime) {
        while self.q.peek_time().is_some_and(|t| t <= end) {
            let (t, ev) = self.q.pop().unwrap();
            self.now = t;
            let mut out = std::mem::take(&mut self.out);
            match ev {
                Ev::Packet { hdr, egress, d } => self.drv.transmit(t, &hdr, egress, d, &mut out),
                Ev::Timer(token) => self.drv.timer_fired(t, token, &mut out),
                Ev::Setup(vc) => self.drv.setup_result(t, vc, self.setup_outcome, &mut out),
            }
            for a in out.drain(..) {
                self.carry_out(a);
            }
            self.out = out;
        }
    }

    fn carry_out(&mut self, a: Action) {
        self.log.push((self.now, a));
        match a {
            Action::RequestSetup { vc, .. } => {
                self.q.schedule(self.now + self.setup_delay, Ev::Setup(vc));
            }
            Action::ArmTimer { at, token } => {
                assert!(at >= self.now, "timers are never armed in the past");
                self.q.schedule(at, Ev::Timer(token));
            }
            Action::Release { vc } => self.drv.release_done(vc),
            Action::Send { .. } | Action::Drop { .. } => {}
        }
    }

    fn sends(&self) -> Vec<(SimTime, DatagramId, VcRef)> {
        self.log
            .iter()
            .filter_map(|&(t, a)| if let Action::Send { datagram, vc } = a { Some((t, datagram, vc)) } else { None })
            .collect()
    }

    fn releases(&self) -> Vec<(SimTime, VcRef)> {
        self.log
            .iter()
            .filter_map(|&(t, a)| if let Action::Release { vc } = a { Some((t, vc)) } else { None })
            .collect()
    }

    fn drops(&self) -> Vec<DatagramId> {
        self.log
            .iter()
            .filter_map(|&(_, a)| if let Action::Drop { datagram, .. } = a { Some(datagram) } else { None })
            .collect()
    }

    fn state(&self, vc: VcRef) -> Option<VcState> {
        self.drv.vc_info(vc).map(|i| i.state)
    }
}

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

fn at_s(s: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs(s)
}

const EAST: NodeId = NodeId(100);
const WEST: NodeId = NodeId(200);

/// A TCP segment from host `src` port `sp` to host `dst` port `dp`.
fn tcp(src: u32, sp: u16, dst: u32, dp: u16) -> PacketHeader {
    PacketHeader {
        src: NodeId(src),
        dst: NodeId(dst),
        proto: Proto::Tcp,
        src_port: sp,
        dst_port: dp,
        tos: 0,
        media: Media::None,
    }
}

fn telnet(src: u32, dst: u32, client_port: u16) -> PacketHeader {
    tcp(src, client_port, dst, 23)
}

fn cfg(mux: MuxPolicy, vc: VcPolicy) -> DriverConfig {
    DriverConfig::new(mux, vc)
}

// ---- multiplexing ----------------------------------------------------------------------

/// Local hosts 1 and 2; hosts 11 and 12 behind router EAST, host 21 behind WEST.
fn mixed_conversations() -> Vec<(PacketHeader, NodeId)> {
    let audio = PacketHeader { proto: Proto::Udp, media: Media::Audio, ..tcp(1, 5004, 21, 5004) };
    vec![
        (telnet(1, 11, 40_000), EAST),
        (tcp(1, 40_001, 11, 80), EAST), // HTTP up, connection A
        (tcp(1, 40_002, 11, 80), EAST), // HTTP up, connection B: same app, same host pair
        (tcp(1, 40_003, 12, 80), EAST), // HTTP up to another host
        (tcp(2, 40_004, 11, 21), EAST), // FTP control up
        (tcp(2, 20, 11, 40_005), EAST), // FTP data down (host 2 serves)
        (tcp(2, 40_006, 21, 25), WEST), // SMTP
        (tcp(2, 40_007, 21, 25), WEST), // SMTP again: same app, same host pair
        (audio, WEST),
    ]
}

fn vcs_needed(mux: MuxPolicy) -> u64 {
    let mut net = Net::new(cfg(mux, VcPolicy::Svc));
    for (i, (hdr, egress)) in mixed_conversations().into_iter().enumerate() {
        // Two packets per conversation, the second after every setup has completed.
        net.packet(at_ms(i as u64), hdr, egress);
        net.packet(at_ms(1000 + i as u64), hdr, egress);
    }
    net.run_until(at_s(2));
    let mut vcs: Vec<VcRef> = net.sends().iter().map(|s| s.2).collect();
    vcs.sort();
    vcs.dedup();
    assert_eq!(vcs.len() as u64, net.drv.counters().setups_requested);
    assert_eq!(net.sends().len(), 18, "every datagram went out");
    net.drv.counters().setups_requested
}

#[test]
fn each_multiplexing_policy_needs_its_own_number_of_vcs() {
    assert_eq!(vcs_needed(MuxPolicy::Conv), 9, "one per conversation");
    assert_eq!(vcs_needed(MuxPolicy::App), 7, "HTTP A+B share, the two SMTPs share");
    assert_eq!(vcs_needed(MuxPolicy::Router), 2, "one per egress router");
}

// ---- svc ---------------------------------------------------------------------------------

/// One telnet conversation under `policy`: a packet at 0 (setup done at 50 ms), then `more`.
fn one_conversation(policy: VcPolicy, more: &[SimTime]) -> Net {
    let mut net = Net::new(cfg(MuxPolicy::Conv, policy));
    net.packet(SimTime::ZERO, telnet(1, 11, 40_000), EAST);
    for &t in more {
        net.packet(t, telnet(1, 11, 40_000), EAST);
    }
    net
}

#[test]
fn svc_tears_down_exactly_one_idle_timeout_after_the_last_packet() {
    let mut net = one_conversation(VcPolicy::Svc, &[at_s(5)]);
    net.run_until(at_s(100));
    assert_eq!(net.releases(), vec![(at_s(15), VcRef(0))]);
    assert_eq!(net.drv.counters().teardowns, 1);
    assert_eq!(net.drv.counters().vcs_in_use, 0);
}

#[test]
fn svc_packet_just_before_the_timeout_postpones_teardown() {
    let mut net = one_conversation(VcPolicy::Svc, &[at_s(5), at_ms(14_999)]);
    net.run_until(at_s(100));
    assert_eq!(net.releases(), vec![(at_ms(24_999), VcRef(0))]);
}

#[test]
fn svc_needs_a_new_setup_after_teardown() {
    let mut net = one_conversation(VcPolicy::Svc, &[at_s(30)]);
    net.run_until(at_s(31));
    assert_eq!(net.drv.counters().setups_requested, 2);
    assert_eq!(net.sends()[1].0, at_ms(30_050), "the second packet waited for its setup");
}

// ---- pvc ---------------------------------------------------------------------------------

#[test]
fn pvc_is_set_up_on_first_use_and_never_released() {
    let mut net = one_conversation(VcPolicy::Pvc, &[at_s(5000)]);
    net.run_until(at_s(10_000));
    assert!(net.releases().is_empty());
    assert!(!net.log.iter().any(|(_, a)| matches!(a, Action::ArmTimer { .. })), "pvc arms no timer");
    assert_eq!(net.sends(), vec![(at_ms(50), DatagramId(0), VcRef(0)), (at_s(5000), DatagramId(1), VcRef(0))]);
}

#[test]
fn declared_pvc_is_bound_at_once_and_never_torn_down() {
    let mut net = Net::new(cfg(MuxPolicy::Router, VcPolicy::Svc));
    let key = MuxKey::Router { egress: EAST };
    let pvc = net.drv.declare_pvc(key, EAST).unwrap();
    assert_eq!(net.drv.declare_pvc(key, EAST), Err(KeyInUse(key)));
    let d = net.packet(at_s(1), telnet(1, 11, 40_000), EAST);
    net.run_until(at_s(1000));
    assert_eq!(net.sends(), vec![(at_s(1), d, pvc)]);
    assert!(net.releases().is_empty());
    assert_eq!(net.drv.counters().setups_requested, 0);
    assert_eq!(net.drv.counters().vcs_in_use, 1);
}

// ---- pending setups ----------------------------------------------------------------------

#[test]
fn packets_arriving_while_a_setup_is_pending_are_flushed_in_order() {
    let mut net = Net::new(cfg(MuxPolicy::Router, VcPolicy::Svc));
    let ds: Vec<_> = (0..4).map(|i| net.packet(at_ms(10 * i), telnet(1, 11, 40_000 + i as u16), EAST)).collect();
    net.run_until(at_s(1));
    let sends = net.sends();
    assert_eq!(sends.iter().map(|s| s.1).collect::<Vec<_>>(), ds);
    assert!(sends.iter().all(|s| s.0 == at_ms(50)), "all leave when the setup completes");
    assert_eq!(net.drv.counters().setups_requested, 1, "later packets wait on the same setup (A-27)");
    assert_eq!(net.drv.counters().datagrams_queued, 4);
}

#[test]
fn packets_waiting_on_a_failed_setup_are_reported_dropped() {
    let mut net = Net::new(cfg(MuxPolicy::App, VcPolicy::SvcCache));
    net.setup_outcome = SetupOutcome::Failed;
    let ds: Vec<_> = (0..3).map(|i| net.packet(at_ms(i), telnet(1, 11, 40_000), EAST)).collect();
    net.run_until(at_s(1));
    assert_eq!(net.drops(), ds);
    assert!(net.sends().is_empty());
    let c = net.drv.counters();
    assert_eq!((c.setups_failed, c.datagrams_dropped, c.vcs_in_use), (1, 3, 0));
    assert_eq!(net.state(VcRef(0)), None, "the handle is free again");
}

// ---- svccache ----------------------------------------------------------------------------

#[test]
fn svccache_unbinds_at_the_idle_timeout_and_reuses_with_no_setup() {
    // Telnet at 0, bound at 50 ms, last packet at 1 s: unbound at exactly 11 s.
    let mut net = one_conversation(VcPolicy::SvcCache, &[at_s(1)]);
    net.run_until(SimTime::from_ps(at_s(11).as_ps() - 1));
    assert_eq!(net.state(VcRef(0)), Some(VcState::Bound));
    net.run_until(at_s(11));
    assert_eq!(net.state(VcRef(0)), Some(VcState::Cached));
    // A new conversation of the same type to the same egress takes it over at once.
    let d = net.packet(at_s(20), telnet(2, 12, 40_100), EAST);
    net.run_until(at_s(20));
    assert_eq!(net.sends().last(), Some(&(at_s(20), d, VcRef(0))));
    let c = net.drv.counters();
    assert_eq!((c.setups_requested, c.cache_hits, c.vcs_in_use), (1, 1, 1));
}

#[test]
fn svccache_refuses_a_cached_vc_to_another_egress() {
    let mut net = one_conversation(VcPolicy::SvcCache, &[]);
    net.packet(at_s(20), telnet(1, 21, 40_000), WEST);
    net.run_until(at_s(21));
    assert_eq!(net.drv.counters().cache_hits, 0);
    assert_eq!(net.drv.counters().setups_requested, 2);
    assert_eq!(net.state(VcRef(0)), Some(VcState::Cached), "still cached for EAST");
}

#[test]
fn svccache_with_type_tags_refuses_another_type_and_noqos_accepts_it() {
    // A telnet VC is cached from 10.05 s; HTTP up to the same egress arrives at 20 s.
    for (matching, hits) in [(ClassMatch::ByType, 0), (ClassMatch::Pooled, 1)] {
        let mut net = Net::new(DriverConfig { class_match: matching, ..cfg(MuxPolicy::Conv, VcPolicy::SvcCache) });
        net.packet(SimTime::ZERO, telnet(1, 11, 40_000), EAST);
        net.packet(at_s(20), tcp(1, 40_001, 11, 80), EAST);
        net.run_until(at_s(21));
        assert_eq!(net.drv.counters().cache_hits, hits, "{matching:?}");
        assert_eq!(net.drv.counters().setups_requested, 2 - hits, "{matching:?}");
    }
}

#[test]
fn svccache_with_type_tags_reuses_for_an_identical_type() {
    let mut net =
        Net::new(DriverConfig { class_match: ClassMatch::ByType, ..cfg(MuxPolicy::Conv, VcPolicy::SvcCache) });
    net.packet(SimTime::ZERO, telnet(1, 11, 40_000), EAST);
    net.packet(at_s(20), tcp(1, 40_001, 11, 80), EAST);
    let d = net.packet(at_s(21), telnet(2, 12, 40_002), EAST);
    net.run_until(at_s(22));
    assert_eq!(net.sends().last(), Some(&(at_s(21), d, VcRef(0))));
    let info = net.drv.vc_info(VcRef(0)).unwrap();
    assert_eq!((info.class, info.ty), (VcClass::Type(ConvType::TelnetUp), ConvType::TelnetUp));
}

#[test]
fn svccache_tears_down_exactly_300_s_after_unbinding() {
    // Last use at 50 ms (the setup), unbound at 10.05 s, released at 310.05 s.
    let mut net = one_conversation(VcPolicy::SvcCache, &[]);
    net.run_until(at_s(400));
    assert_eq!(net.releases(), vec![(at_ms(310_050), VcRef(0))]);
    assert_eq!(net.drv.counters().vcs_in_use, 0);
}

#[test]
fn svccache_reuse_restarts_the_idle_clock() {
    // Unbound at 10.05 s, reused at 305 s, idle again: unbound at 315 s, released at 615 s.
    let mut net = one_conversation(VcPolicy::SvcCache, &[at_s(305)]);
    net.run_until(at_s(1000));
    assert_eq!(net.releases(), vec![(at_s(615), VcRef(0))]);
    assert_eq!(net.drv.counters().cache_hits, 1);
}

#[test]
fn vcs_in_use_counts_bound_and_cached_vcs() {
    let mut net = Net::new(cfg(MuxPolicy::Conv, VcPolicy::SvcCache));
    net.packet(SimTime::ZERO, telnet(1, 11, 40_000), EAST);
    net.packet(at_s(5), telnet(1, 11, 40_001), EAST);
    net.run_until(at_s(12));
    assert_eq!(net.state(VcRef(0)), Some(VcState::Cached));
    assert_eq!(net.state(VcRef(1)), Some(VcState::Bound));
    assert_eq!(net.drv.sample_in_use(), 2);
    net.run_until(at_s(1000));
    assert_eq!(net.drv.sample_in_use(), 0);
    assert_eq!(net.drv.counters().max_vcs_in_use(), 2);
}

// ---- router multiplexing: svccache behaves as pvc (thesis §6.5) -------------------------

/// Sends of `policy` under router multiplexing for arrivals `(time, egress)`.
fn router_sends(policy: VcPolicy, arrivals: &[(SimTime, NodeId)]) -> Vec<(SimTime, DatagramId, VcRef)> {
    let mut net = Net::new(cfg(MuxPolicy::Router, policy));
    for (i, &(t, egress)) in arrivals.iter().enumerate() {
        net.packet(t, tcp(1, 40_000 + (i % 7) as u16, 11, [23, 80, 21, 25][i % 4]), egress);
    }
    net.run_until(at_s(1_000_000));
    net.sends()
}

/// Arrivals to each egress with the given gaps \[ms\], merged in time order.
fn merge(gaps_per_egress: &[Vec<u64>]) -> Vec<(SimTime, NodeId)> {
    let mut all = Vec::new();
    for (e, gaps) in gaps_per_egress.iter().enumerate() {
        let mut t = 0;
        for g in gaps {
            t += g;
            all.push((at_ms(t), NodeId(100 + e as u32)));
        }
    }
    all.sort();
    all
}

#[test]
fn router_mux_svccache_differs_from_pvc_once_a_vc_idles_310_s() {
    // Last use at 50 ms (setup done): cached at 10.05 s, torn down at 310.05 s.
    let arrivals = merge(&[vec![0, 310_051]]);
    let (pvc, cache) = (router_sends(VcPolicy::Pvc, &arrivals), router_sends(VcPolicy::SvcCache, &arrivals));
    assert_eq!(pvc[1].0, at_ms(310_051));
    assert_eq!(cache[1].0, at_ms(310_101), "the VC was torn down: a new setup");
}

proptest::proptest! {
    /// Under router multiplexing a cached VC is re-bound by the next packet to its egress
    /// with zero delay, so as long as no egress sees a gap of idle-timeout + cache-timeout
    /// (10 s + 300 s, measured from the VC's last use) svccache sends every datagram at the
    /// same instant, on the same VC, as pvc (thesis §6.5, spec V-10).
    #[test]
    fn router_mux_svccache_sends_exactly_as_pvc_while_no_vc_idles_310_s(
        gaps in proptest::collection::vec(
            proptest::collection::vec(proptest::prop_oneof![0u64..100, 0u64..20_000, 0u64..310_000], 1..40),
            1..4),
    ) {
        let arrivals = merge(&gaps);
        let pvc = router_sends(VcPolicy::Pvc, &arrivals);
        proptest::prop_assert_eq!(pvc.len(), arrivals.len());
        proptest::prop_assert_eq!(router_sends(VcPolicy::SvcCache, &arrivals), pvc);
    }

    /// Every datagram is sent or dropped exactly once, whatever the policies and outcomes.
    #[test]
    fn every_datagram_is_sent_or_dropped_once(
        mux in 0usize..3, vc in 0usize..3, fail in proptest::bool::ANY,
        arrivals in proptest::collection::vec((0u64..400_000, 0u32..3, 0u16..4), 1..60),
    ) {
        let mux = [MuxPolicy::Conv, MuxPolicy::App, MuxPolicy::Router][mux];
        let vc = [VcPolicy::Pvc, VcPolicy::Svc, VcPolicy::SvcCache][vc];
        let mut net = Net::new(cfg(mux, vc));
        if fail {
            net.setup_outcome = SetupOutcome::Failed;
        }
        for &(ms, host, port) in &arrivals {
            net.packet(at_ms(ms), telnet(host, 11 + host, 40_000 + port), NodeId(100 + host % 2));
        }
        net.run_until(at_s(1_000_000));
        let mut ended: Vec<_> = net.sends().iter().map(|s| s.1).chain(net.drops()).collect();
        ended.sort();
        proptest::prop_assert_eq!(ended, (0..arrivals.len() as u32).map(DatagramId).collect::<Vec<_>>());
        let c = net.drv.counters();
        proptest::prop_assert_eq!(c.setups_requested, c.setups_completed + c.setups_failed);
    }
}

// ---- the QoS layer's entry: admission fallback VCs (A-36) -------------------------------

#[test]
fn a_fallback_vc_serves_later_fallbacks_of_its_type_but_never_a_guaranteed_request() {
    let mut drv =
        IpoaDriver::new(DriverConfig { class_match: ClassMatch::ByType, ..cfg(MuxPolicy::Conv, VcPolicy::SvcCache) });
    let audio = |port: u16| PacketHeader { proto: Proto::Udp, media: Media::Audio, ..tcp(1, port, 21, 5004) };
    let fallback = (VcClass::Fallback(ConvType::Audio), TrafficDescriptor::BestEffort);
    let mut out = Vec::new();
    drv.transmit_with_class(SimTime::ZERO, &audio(1), WEST, DatagramId(0), fallback, &mut out);
    let Some(&Action::RequestSetup { vc, class, .. }) = out.first() else { panic!("{out:?}") };
    assert_eq!(class, VcClass::Fallback(ConvType::Audio));
    drv.setup_result(SimTime::ZERO, vc, SetupOutcome::Connected, &mut out);
    let Some(&Action::ArmTimer { at, token }) = out.last() else { panic!("{out:?}") };
    drv.timer_fired(at, token, &mut out);
    assert_eq!(drv.vc_info(vc).map(|i| i.state), Some(VcState::Cached));

    out.clear();
    drv.transmit(at_s(20), &audio(2), WEST, DatagramId(1), &mut out);
    assert!(matches!(out[0], Action::RequestSetup { class: VcClass::Type(ConvType::Audio), .. }), "{out:?}");
    out.clear();
    drv.transmit_with_class(at_s(21), &audio(3), WEST, DatagramId(2), fallback, &mut out);
    assert_eq!(out[0], Action::Send { datagram: DatagramId(2), vc });
    assert_eq!(drv.counters().cache_hits, 1);
}

// ---- QoS policies: guaranteed requests and their admission fallback (Chapter 4, A-36) ----

fn qos_driver(policy: &str) -> IpoaDriver {
    let c = qos::Configuration::parse(policy).expect("a thesis configuration");
    IpoaDriver::new(DriverConfig::new(c.mux, c.vc).with_qos(c.qos))
}

fn setup_request(out: &[Action]) -> (VcRef, VcClass, TrafficDescriptor) {
    match out.iter().find(|a| matches!(a, Action::RequestSetup { .. })) {
        Some(&Action::RequestSetup { vc, class, descriptor, .. }) => (vc, class, descriptor),
        _ => panic!("no setup request in {out:?}"),
    }
}

#[test]
fn favoured_types_ask_for_guaranteed_vcs_and_the_rest_for_best_effort() {
    let mut drv = qos_driver("sp-telnet-conv-svc");
    let mut out = Vec::new();
    drv.transmit(SimTime::ZERO, &telnet(1, 21, 40_000), WEST, DatagramId(0), &mut out);
    let (_, class, descriptor) = setup_request(&out);
    assert_eq!(
        (class, descriptor),
        (VcClass::Type(ConvType::TelnetUp), TrafficDescriptor::Guaranteed(ConvType::TelnetUp))
    );
    out.clear();
    drv.transmit(SimTime::ZERO, &tcp(1, 40_001, 21, 25), WEST, DatagramId(1), &mut out);
    let (_, class, descriptor) = setup_request(&out);
    assert_eq!(
        (class, descriptor),
        (VcClass::Type(ConvType::Smtp), TrafficDescriptor::BestEffort),
        "SMTP is always best effort"
    );
    assert_eq!(drv.counters().guaranteed_requested, 1);
    // noqos asks for best effort whatever the type, in the pooled class.
    let mut drv = qos_driver("noqos-conv-svc");
    out.clear();
    drv.transmit(SimTime::ZERO, &telnet(1, 21, 40_000), WEST, DatagramId(0), &mut out);
    assert_eq!(setup_request(&out).1, VcClass::BestEffort);
    assert_eq!(setup_request(&out).2, TrafficDescriptor::BestEffort);
}

#[test]
fn a_refused_guaranteed_setup_falls_back_to_best_effort_and_keeps_its_queue() {
    let mut drv = qos_driver("nwc-telnet-conv-svc");
    let mut out = Vec::new();
    for d in 0..2 {
        drv.transmit(at_ms(d), &telnet(1, 21, 40_000), WEST, DatagramId(d as u32), &mut out);
    }
    let (vc, _, _) = setup_request(&out);
    out.clear();
    drv.setup_result(at_ms(60), vc, SetupOutcome::Refused, &mut out);
    assert_eq!(setup_request(&out), (vc, VcClass::Fallback(ConvType::TelnetUp), TrafficDescriptor::BestEffort));
    assert!(!out.iter().any(|a| matches!(a, Action::Drop { .. })), "nothing dropped: {out:?}");
    out.clear();
    drv.setup_result(at_ms(120), vc, SetupOutcome::Connected, &mut out);
    let sent: Vec<_> = out
        .iter()
        .filter_map(|a| if let Action::Send { datagram, .. } = a { Some(datagram.0) } else { None })
        .collect();
    assert_eq!(sent, [0, 1], "the queue leaves in order on the fallback VC");
    let c = drv.counters();
    assert_eq!((c.setups_requested, c.setups_completed, c.setups_failed), (2, 1, 1));
    assert_eq!((c.guaranteed_requested, c.guaranteed_refused), (1, 1));
    assert_eq!(c.guaranteed_failure_rate(), Some(1.0));
}

#[test]
fn under_svccache_a_refusal_takes_a_cached_fallback_vc_at_once() {
    let mut drv = qos_driver("wc-audio-app-svccache");
    let audio = |port: u16| PacketHeader { proto: Proto::Udp, media: Media::Audio, ..tcp(1, port, 21, 5004) };
    let mut out = Vec::new();
    drv.transmit(SimTime::ZERO, &audio(1), WEST, DatagramId(0), &mut out);
    let (first, _, _) = setup_request(&out);
    drv.setup_result(at_ms(50), first, SetupOutcome::Refused, &mut out);
    drv.setup_result(at_ms(100), first, SetupOutcome::Connected, &mut out);
    let Some(&Action::ArmTimer { at, token }) = out.last() else { panic!("{out:?}") };
    drv.timer_fired(at, token, &mut out);
    assert_eq!(
        drv.vc_info(first).map(|i| (i.state, i.class)),
        Some((VcState::Cached, VcClass::Fallback(ConvType::Audio)))
    );
    // A later audio conversation to another host asks for a guaranteed VC (the cached
    // fallback does not serve it); refused again, it takes the cached fallback at once.
    out.clear();
    let later = PacketHeader { dst: NodeId(22), ..audio(2) };
    drv.transmit(at_s(30), &later, WEST, DatagramId(1), &mut out);
    let (second, class, _) = setup_request(&out);
    assert_eq!(class, VcClass::Type(ConvType::Audio));
    out.clear();
    drv.setup_result(at_s(30), second, SetupOutcome::Refused, &mut out);
    assert_eq!(out.first(), Some(&Action::Send { datagram: DatagramId(1), vc: first }));
    assert!(drv.vc_info(second).is_none(), "the refused handle is free");
    let c = drv.counters();
    assert_eq!((c.cache_hits, c.guaranteed_refused, c.setups_requested), (1, 2, 3));
    assert_eq!(c.guaranteed_hits, 0, "a fallback hit is not a guaranteed hit");
    assert_eq!(c.guaranteed_failure_rate_per_vc_request(), Some(1.0), "2 refused of 0 hits + 2 setups");
}

#[test]
fn a_guaranteed_request_served_by_a_cached_guaranteed_vc_is_a_guaranteed_hit() {
    let mut drv = qos_driver("nwc-telnet-conv-svccache");
    let mut out = Vec::new();
    drv.transmit(SimTime::ZERO, &telnet(1, 21, 40_000), WEST, DatagramId(0), &mut out);
    let (vc, _, _) = setup_request(&out);
    drv.setup_result(at_ms(50), vc, SetupOutcome::Connected, &mut out);
    let Some(&Action::ArmTimer { at, token }) = out.last() else { panic!("{out:?}") };
    drv.timer_fired(at, token, &mut out);
    assert_eq!(drv.vc_info(vc).map(|i| i.state), Some(VcState::Cached));
    // A later telnet conversation takes the cached guaranteed VC; SMTP, best effort, does not count.
    out.clear();
    drv.transmit(at_s(30), &telnet(1, 21, 40_001), WEST, DatagramId(1), &mut out);
    assert_eq!(out.first(), Some(&Action::Send { datagram: DatagramId(1), vc }));
    drv.transmit(at_s(31), &tcp(1, 40_002, 21, 25), WEST, DatagramId(2), &mut out);
    let c = drv.counters();
    assert_eq!((c.cache_hits, c.guaranteed_hits, c.guaranteed_requested, c.guaranteed_refused), (1, 1, 1, 0));
    assert_eq!(c.guaranteed_failure_rate_per_vc_request(), Some(0.0));
}
