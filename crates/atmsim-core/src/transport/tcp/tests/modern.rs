//! End-to-end tests of today's TCP options on the two-endpoint harness of [`super`]:
//! timestamps (RTTM, PAWS, the option's cost in data per segment), CUBIC after a loss against
//! RFC 9438's closed form, and HyStart++ on a path whose delay does not change.

use super::*;
use crate::transport::tcp::cc::{cubic, Algorithm};
use crate::transport::tcp::segment::Timestamps;
use std::cell::RefCell;
use std::rc::Rc;

fn modern(mss: u32, buf: u32, variant: Variant, timestamps: bool) -> TcpConfig {
    TcpConfig { variant, timestamps, ..cfg(mss, buf) }
}

#[test]
fn timestamps_are_used_only_when_both_syns_carry_them() {
    let mut n = Net::established(modern(1000, 64000, Variant::Reno, true), cfg(1000, 64000), 5);
    assert!(n.sent_ab[0].ts.is_some(), "the SYN offers them");
    n.transfer(20_000, 10.0);
    assert!(n.sent_ab[1..].iter().all(|s| s.ts.is_none()), "the peer did not: no option after the SYN");
    assert_eq!(n.a.mss(), 1000, "the whole MSS carries data");

    let mut n = Net::established(modern(1000, 64000, Variant::Reno, true), modern(1000, 64000, Variant::Reno, true), 5);
    n.transfer(20_000, 10.0);
    assert!(n.sent_ab.iter().all(|s| s.ts.is_some()));
    let data: Vec<_> = n.sent_ab.iter().filter(|s| s.len > 0).collect();
    assert!(data.iter().all(|s| s.len <= 988), "12 option bytes come out of every segment's data");
    assert!(data.iter().all(|s| s.ip_bytes() <= 1040), "the datagram is no larger than without timestamps");
    assert_eq!(n.b.stats().bytes_rcvd, 20_000);
}

/// A 1 MB transfer over a 40 ms round trip without delayed ACKs; returns the RTT samples
/// the sender took and the ACKs of new data it received.
fn rtt_samples(timestamps: bool) -> (u64, u64, SimDuration) {
    let c = TcpConfig { delayed_ack: false, ..modern(1000, 64000, Variant::Reno, timestamps) };
    let mut n = Net::established(c, c, 20);
    let before = n.a.stats().rtt_samples;
    let highest = Rc::new(RefCell::new((0u32, 0u64)));
    let h = highest.clone();
    n.drop_ba = Box::new(move |s: &Segment| {
        let mut h = h.borrow_mut();
        if s.ack.wrapping_sub(h.0) as i32 > 0 {
            *h = (s.ack, h.1 + 1);
        }
        false
    });
    n.transfer(1_000_000, 60.0);
    n.run_until(|n| n.a.in_flight() == 0, 60.0);
    let acks = highest.borrow().1;
    (n.a.stats().rtt_samples - before, acks, n.a.srtt_exact())
}

#[test]
fn rttm_samples_every_ack_of_new_data() {
    let (ts_samples, ts_acks, ts_srtt) = rtt_samples(true);
    let (bsd_samples, bsd_acks, _) = rtt_samples(false);
    assert_eq!(ts_samples, ts_acks, "one sample per ACK that advances SND.UNA (RFC 7323 §4.2)");
    assert!(bsd_acks > 900);
    assert!(bsd_samples * 10 < bsd_acks, "BSD times one segment per round trip: {bsd_samples} of {bsd_acks}");
    assert_eq!(ts_srtt, SimDuration::from_millis(40), "millisecond echoes of a 40 ms round trip");
}

#[test]
fn paws_rejects_an_old_duplicate_in_the_window() {
    let c = modern(1000, 64000, Variant::Reno, true);
    let mut n = Net::established(c, c, 5);
    n.transfer(10_000, 10.0);
    let old = *n.sent_ab.iter().find(|s| s.len > 0).expect("data was sent");
    n.transfer(10_000, 20.0);
    n.run_until(|n| n.a.in_flight() == 0, 20.0);
    // The sequence space has wrapped (as it does in seconds at gigabit rates): an old
    // segment's sequence number lands at the receiver's next expected byte.
    let dup = Segment { seq: n.a.snd_max, ..old };
    let rcvd = n.b.stats().bytes_rcvd;
    let acks = n.b.stats().acks_sent;
    n.b.on_segment(n.now, &dup);
    assert_eq!(n.b.stats().paws_drops, 1);
    assert_eq!(n.b.stats().bytes_rcvd, rcvd, "its data is not taken");
    let reply = n.b.poll_transmit(n.now).expect("answered with an ACK");
    assert_eq!((reply.len, reply.ack), (0, n.a.snd_max));
    assert_eq!(n.b.stats().acks_sent, acks + 1);
    // The same segment with a current timestamp is data.
    let fresh = Segment { ts: Some(Timestamps { val: n.b.stamps.recent, ..old.ts.unwrap() }), ..dup };
    n.b.on_segment(n.now, &fresh);
    assert_eq!(n.b.stats().bytes_rcvd, rcvd + old.len as u64);
}

#[test]
fn cubic_after_a_loss_follows_the_closed_form() {
    // A 200 ms round trip, buffers far above the window, one loss in slow start: after the
    // recovery, cwnd(t) must follow W(t) = C(t − K)³ + W_max, K = ∛(W_max(1 − β)/C), with t
    // from the start of congestion avoidance (RFC 9438 §4.2), in the cubic region.
    let c = TcpConfig { delayed_ack: false, ..modern(1000, 8 << 20, Variant::Cubic, false) };
    let mut n = Net::established(c, cfg(1000, 8 << 20), 100);
    n.drop_ab = drop_nth_data(600);
    n.transfer(60_000_000, 120.0);
    let st = n.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0));
    let Algorithm::Cubic(cubic) = n.a.cc.algo else { panic!("a CUBIC sender") };
    let (w_max, k) = (cubic.w_max(), cubic.k());
    assert!(w_max > 300.0, "the loss came at a large window: W_max = {w_max}");
    assert!((k - (w_max * (1.0 - cubic::BETA) / cubic::C).cbrt()).abs() < 1e-9);
    let at_loss = n.trace.iter().find(|s| s.fast == 1).unwrap();
    let reduced = at_loss.ssthresh as f64 / 1000.0;
    assert!((reduced - 0.7 * w_max).abs() < 1.0, "ssthresh = β·W_max: {reduced} vs {w_max}");
    let t0 = cubic.epoch().expect("congestion avoidance began");
    let mut checked = 0;
    for s in n.trace.iter().filter(|s| s.t > t0 + SimDuration::from_secs(1)) {
        let t = s.t.since(t0).as_secs_f64();
        if t > 2.0 * k {
            break;
        }
        let closed = cubic::C * (t - k).powi(3) + w_max;
        let w = s.cwnd as f64 / 1000.0;
        assert!((w - closed).abs() <= 2.0 + 0.02 * closed, "t = {t:.2} s: cwnd {w:.1} vs W(t) {closed:.1}");
        checked += 1;
    }
    assert!(checked > 1000, "{checked} ACKs checked against W(t)");
}

#[test]
fn hystart_leaves_a_steady_path_in_slow_start() {
    // A constant delay never shows HyStart++ an RTT increase: slow start runs as without it,
    // only faster per ACK (L·SMSS), until the first loss ends HyStart++.
    let c = TcpConfig { hystart: true, ..modern(1000, 1 << 20, Variant::Cubic, true) };
    let mut n = Net::established(c, modern(1000, 1 << 20, Variant::Cubic, true), 20);
    n.transfer(2_000_000, 30.0);
    let h = n.a.cc.hystart.expect("configured");
    assert_eq!(h.phase, super::super::cc::hystart::Phase::SlowStart);
    assert_eq!(n.a.ssthresh(), super::super::cc::TCP_MAXWIN << super::super::cc::TCP_MAX_WINSHIFT);
}
