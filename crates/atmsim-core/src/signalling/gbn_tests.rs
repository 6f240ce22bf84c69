//! Go-back-N over a lossy pipe with a fixed one-way delay: a sender, a receiver, and a
//! loss pattern per direction (indices of frames to drop, counted per direction).

use super::*;
use crate::signalling::msg::Setup;
use crate::signalling::{CallId, Descriptor, EndpointId};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
enum Ev {
    ToRx(Frame),
    ToTx(Frame),
    Timer,
}

#[derive(Default)]
struct Out {
    frames: Vec<Frame>,
    arms: Vec<SimTime>,
}
impl GbnSink for Out {
    fn transmit(&mut self, f: Frame) {
        self.frames.push(f);
    }
    fn arm(&mut self, at: SimTime) {
        self.arms.push(at);
    }
}

struct Pipe {
    tx: GbnSender,
    rx: GbnReceiver,
    q: BTreeMap<(SimTime, u64), Ev>,
    seq: u64,
    delay: SimDuration,
    /// Frames offered per direction (0: data, 1: acks) and the indices to drop.
    offered: [u64; 2],
    drop: [Vec<u64>; 2],
    lost: [u64; 2],
    delivered: Vec<(SimTime, Msg)>,
    timer_events: u64,
}

fn msg(n: u32) -> Msg {
    Msg::Setup(Setup {
        call: CallId(n),
        origin: EndpointId(0),
        dest: EndpointId(1),
        descriptor: Descriptor(0),
        vci: 32 + n,
    })
}

impl Pipe {
    fn new(cfg: GbnConfig, drop_data: Vec<u64>, drop_acks: Vec<u64>) -> Self {
        Pipe {
            tx: GbnSender::new(cfg),
            rx: GbnReceiver::new(cfg),
            q: BTreeMap::new(),
            seq: 0,
            delay: SimDuration::from_millis(10),
            offered: [0; 2],
            drop: [drop_data, drop_acks],
            lost: [0; 2],
            delivered: Vec::new(),
            timer_events: 0,
        }
    }

    fn push(&mut self, at: SimTime, ev: Ev) {
        self.q.insert((at, self.seq), ev);
        self.seq += 1;
    }

    /// Put the sink's output on the wire (direction 0: data, 1: ACKs) and arm timers.
    fn flush(&mut self, now: SimTime, out: Out, dir: usize) {
        for f in out.frames {
            let i = self.offered[dir];
            self.offered[dir] += 1;
            if self.drop[dir].contains(&i) {
                self.lost[dir] += 1;
                continue;
            }
            let ev = if dir == 0 { Ev::ToRx(f) } else { Ev::ToTx(f) };
            self.push(now + self.delay, ev);
        }
        for at in out.arms {
            self.push(at, Ev::Timer);
        }
    }

    fn send(&mut self, now: SimTime, m: Msg) {
        let mut out = Out::default();
        self.tx.send(now, m, &mut out);
        self.flush(now, out, 0);
    }

    fn run(&mut self) {
        while let Some(((now, _), ev)) = self.q.pop_first() {
            let mut out = Out::default();
            match ev {
                Ev::ToRx(Frame::Data { seq, msg }) => {
                    if let Some(m) = self.rx.on_data(seq, msg, &mut out) {
                        self.delivered.push((now, m));
                    }
                    self.flush(now, out, 1);
                }
                Ev::ToTx(Frame::Ack { next }) => {
                    self.tx.on_ack(now, next, &mut out);
                    self.flush(now, out, 0);
                }
                Ev::Timer => {
                    self.timer_events += 1;
                    self.tx.on_timer(now, &mut out);
                    self.flush(now, out, 0);
                }
                other => panic!("frame on the wrong direction: {other:?}"),
            }
        }
    }

    /// Every message delivered once, in order; frames conserved in both directions.
    fn check(&self, n: u32) {
        let calls: Vec<u32> = self.delivered.iter().map(|(_, m)| m.call().0).collect();
        assert_eq!(calls, (0..n).collect::<Vec<_>>());
        assert_eq!(self.tx.outstanding(), 0);
        let data_tx = self.tx.stats.sent + self.tx.stats.retransmitted;
        assert_eq!(data_tx, self.offered[0]);
        assert_eq!(self.offered[0], self.rx.frames_received() + self.lost[0]);
        assert_eq!(self.rx.stats.acks_sent, self.offered[1]);
        assert_eq!(self.offered[1], self.tx.stats.acks + self.lost[1]);
        assert_eq!(self.tx.stats.sent, n as u64);
        assert_eq!(self.rx.stats.delivered, n as u64);
    }
}

const T0: SimTime = SimTime::ZERO;

#[test]
fn lossless_transfer_delivers_each_message_once_in_order_one_way_delay_later() {
    let mut p = Pipe::new(GbnConfig::default(), vec![], vec![]);
    for n in 0..20 {
        p.send(T0, msg(n));
    }
    p.run();
    p.check(20);
    assert_eq!(p.tx.stats.retransmitted, 0);
    // The window lets 8 go at once; each ACK round trip (20 ms) releases the next batch.
    assert_eq!(p.delivered[0].0, T0 + SimDuration::from_millis(10));
    assert_eq!(p.delivered[8].0, T0 + SimDuration::from_millis(30));
    assert_eq!(p.delivered[19].0, T0 + SimDuration::from_millis(50));
}

#[test]
fn lost_first_message_is_retransmitted_after_one_timeout() {
    let mut p = Pipe::new(GbnConfig::default(), vec![0], vec![]);
    p.send(T0, msg(0));
    p.run();
    p.check(1);
    assert_eq!(p.delivered[0].0, T0 + SimDuration::from_millis(210));
    assert_eq!((p.tx.stats.retransmitted, p.tx.stats.timeouts), (1, 1));
}

#[test]
fn lost_ack_causes_one_duplicate_that_the_receiver_discards() {
    let mut p = Pipe::new(GbnConfig::default(), vec![], vec![0]);
    p.send(T0, msg(0));
    p.run();
    p.check(1);
    assert_eq!(p.rx.stats.duplicates, 1);
    assert_eq!(p.delivered[0].0, T0 + SimDuration::from_millis(10));
}

#[test]
fn a_later_ack_covers_a_lost_one() {
    // ACK 0 lost, ACK 1 arrives and acknowledges both: no retransmission.
    let mut p = Pipe::new(GbnConfig::default(), vec![], vec![0]);
    p.send(T0, msg(0));
    p.send(T0, msg(1));
    p.run();
    p.check(2);
    assert_eq!(p.tx.stats.retransmitted, 0);
}

#[test]
fn burst_loss_longer_than_the_window_recovers_in_order() {
    // 12 messages; the first 10 data frames offered are lost: the whole first window and
    // the first two of its retransmission. The other six of that retransmission arrive out
    // of order and are discarded; the second go-back delivers.
    let mut p = Pipe::new(GbnConfig::default(), (0..10).collect(), vec![]);
    for n in 0..12 {
        p.send(T0, msg(n));
    }
    p.run();
    p.check(12);
    assert_eq!(p.rx.stats.out_of_order, 6);
    assert_eq!(p.tx.stats.timeouts, 2);
    assert_eq!(p.delivered[0].0, T0 + SimDuration::from_millis(410));
}

#[test]
fn sequence_numbers_wrap_without_confusion() {
    let cfg = GbnConfig { initial_seq: u16::MAX - 5, ..GbnConfig::default() };
    let mut p = Pipe::new(cfg, vec![3, 4, 9], vec![2, 7]);
    for n in 0..40 {
        p.send(T0, msg(n));
    }
    p.run();
    p.check(40);
}

#[test]
fn a_moved_deadline_re_arms_instead_of_retransmitting() {
    // Messages sent 5 ms apart: each ACK restarts the timer, so the first firing finds a
    // later deadline. There is never more than one timer request outstanding.
    let mut p = Pipe::new(GbnConfig::default(), vec![], vec![]);
    p.send(T0, msg(0));
    p.push(T0, Ev::Timer); // a spurious early firing is harmless too
    p.run();
    let mut out = Out::default();
    p.tx.send(SimTime::from_ps(0) + SimDuration::from_millis(5), msg(1), &mut out);
    assert_eq!(out.arms.len(), 1, "no timer is outstanding after the queue drained");
    p.flush(SimTime::from_ps(0) + SimDuration::from_millis(5), out, 0);
    p.run();
    p.check(2);
    assert_eq!(p.tx.stats.timeouts, 0);
}
