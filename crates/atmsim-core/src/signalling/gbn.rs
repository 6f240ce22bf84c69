//! Go-back-N reliable delivery for one direction of a signalling link.
//!
//! Owns: [`GbnSender`] and [`GbnReceiver`], the two ends of the "simple positive-acknowledgment
//! retransmission protocol" that Mah's `CellGoBackN` object puts in front of each signalling
//! process (thesis §3.6.1), with the window and timeout of spec A-8 ([`GbnConfig`]).
//!
//! **Protocol.** The sender numbers messages modulo 2^16 and keeps up to `window` of them
//! unacknowledged; further messages wait in its queue. The receiver accepts only the
//! next expected number, delivers it upward, and answers *every* data frame with a
//! cumulative [`Frame::Ack`] naming the next number it expects — so a lost ACK is repaired by
//! the next one. Frames out of order (after a loss) and duplicates are discarded. When the
//! retransmission timer expires the sender goes back: it retransmits every unacknowledged
//! message from the oldest. The timer runs while anything is unacknowledged and restarts
//! whenever an ACK advances the window or the sender retransmits.
//!
//! **Wrap.** Sequence arithmetic is modular (`wrapping_sub`); an ACK is accepted only if it
//! acknowledges between 1 and `in flight` messages, which is unambiguous because the window
//! (at most 2^15) is far below the sequence space.
//!
//! **Timer, sans-I/O.** The sender asks its [`GbnSink`] to arm a timer and expects
//! [`GbnSender::on_timer`] at that instant. At most one timer request is outstanding: when
//! the deadline moves later (an ACK restarted it) the firing re-arms for the new deadline
//! instead of retransmitting, so no cancellation is needed and the caller's queue holds one
//! event per sender at most.

use super::msg::{Frame, Msg};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Go-back-N parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GbnConfig {
    /// Messages that may be unacknowledged at once \[messages\]. Default 8 (spec A-8).
    pub window: u16,
    /// Retransmission timeout \[ps\]. Default 200 ms (spec A-8).
    pub rto: SimDuration,
    /// First sequence number (both ends must agree). Default 0; tests start near the wrap.
    pub initial_seq: u16,
}

impl Default for GbnConfig {
    fn default() -> Self {
        GbnConfig { window: 8, rto: SimDuration::from_millis(200), initial_seq: 0 }
    }
}

/// Where a go-back-N endpoint sends its output.
pub trait GbnSink {
    /// Put `frame` on the link.
    fn transmit(&mut self, frame: Frame);
    /// Call [`GbnSender::on_timer`] at `at`.
    fn arm(&mut self, at: SimTime);
}

/// Sender counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Messages transmitted for the first time.
    pub sent: u64,
    /// Retransmissions (each message counted once per retransmission).
    pub retransmitted: u64,
    /// ACK frames received (useful or not).
    pub acks: u64,
    /// Timer expiries that caused a go-back.
    pub timeouts: u64,
}

/// The sending end of one link direction.
#[derive(Clone, Debug)]
pub struct GbnSender {
    cfg: GbnConfig,
    /// Sequence number of `queue[0]`, the oldest unacknowledged message.
    base: u16,
    /// Unacknowledged messages (the first `in_flight`) then messages not yet sent.
    queue: VecDeque<Msg>,
    in_flight: usize,
    /// When the retransmission timer expires, if it runs.
    deadline: Option<SimTime>,
    /// A timer request is outstanding with the caller.
    armed: bool,
    pub stats: SenderStats,
}

impl GbnSender {
    pub fn new(cfg: GbnConfig) -> Self {
        assert!(cfg.window >= 1 && cfg.window <= 1 << 15, "window must be in 1..=32768");
        GbnSender {
            cfg,
            base: cfg.initial_seq,
            queue: VecDeque::new(),
            in_flight: 0,
            deadline: None,
            armed: false,
            stats: SenderStats::default(),
        }
    }

    /// Messages accepted but not yet acknowledged (in flight or waiting for the window).
    pub fn outstanding(&self) -> usize {
        self.queue.len()
    }

    /// Messages transmitted and not yet acknowledged.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Accept `msg` for reliable delivery; it goes out at once if the window allows.
    pub fn send(&mut self, now: SimTime, msg: Msg, sink: &mut impl GbnSink) {
        self.queue.push_back(msg);
        self.fill_window(now, sink);
    }

    /// A cumulative ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, next: u16, sink: &mut impl GbnSink) {
        self.stats.acks += 1;
        let acked = next.wrapping_sub(self.base) as usize;
        if acked == 0 || acked > self.in_flight {
            return; // old or duplicate ACK
        }
        self.queue.drain(..acked);
        self.in_flight -= acked;
        self.base = next;
        self.deadline = None;
        if self.in_flight > 0 {
            self.restart(now, sink);
        }
        self.fill_window(now, sink);
    }

    /// The timer armed through [`GbnSink::arm`] fired.
    pub fn on_timer(&mut self, now: SimTime, sink: &mut impl GbnSink) {
        self.armed = false;
        match self.deadline {
            None => {}
            Some(d) if now < d => self.arm(d, sink),
            Some(_) => self.go_back(now, sink),
        }
    }

    /// Timeout: retransmit every unacknowledged message, oldest first.
    fn go_back(&mut self, now: SimTime, sink: &mut impl GbnSink) {
        self.stats.timeouts += 1;
        for k in 0..self.in_flight {
            let seq = self.base.wrapping_add(k as u16);
            sink.transmit(Frame::Data { seq, msg: self.queue[k] });
        }
        self.stats.retransmitted += self.in_flight as u64;
        self.deadline = None;
        self.restart(now, sink);
    }

    fn fill_window(&mut self, now: SimTime, sink: &mut impl GbnSink) {
        while self.in_flight < self.cfg.window as usize && self.in_flight < self.queue.len() {
            let seq = self.base.wrapping_add(self.in_flight as u16);
            sink.transmit(Frame::Data { seq, msg: self.queue[self.in_flight] });
            self.in_flight += 1;
            self.stats.sent += 1;
            if self.deadline.is_none() {
                self.restart(now, sink);
            }
        }
    }

    fn restart(&mut self, now: SimTime, sink: &mut impl GbnSink) {
        let d = now + self.cfg.rto;
        self.deadline = Some(d);
        if !self.armed {
            self.arm(d, sink);
        }
    }

    fn arm(&mut self, at: SimTime, sink: &mut impl GbnSink) {
        self.armed = true;
        sink.arm(at);
    }
}

/// Receiver counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Messages delivered upward (each exactly once, in order).
    pub delivered: u64,
    /// Data frames already delivered before (a retransmission after a lost ACK).
    pub duplicates: u64,
    /// Data frames ahead of the expected number (their predecessor was lost).
    pub out_of_order: u64,
    /// ACK frames sent.
    pub acks_sent: u64,
}

/// The receiving end of one link direction.
#[derive(Clone, Debug)]
pub struct GbnReceiver {
    expected: u16,
    window: u16,
    pub stats: ReceiverStats,
}

impl GbnReceiver {
    pub fn new(cfg: GbnConfig) -> Self {
        GbnReceiver { expected: cfg.initial_seq, window: cfg.window, stats: ReceiverStats::default() }
    }

    /// A data frame arrived: returns the message if it is the next in order, and always
    /// acknowledges cumulatively.
    pub fn on_data(&mut self, seq: u16, msg: Msg, sink: &mut impl GbnSink) -> Option<Msg> {
        let ahead = seq.wrapping_sub(self.expected);
        let delivered = if ahead == 0 {
            self.expected = self.expected.wrapping_add(1);
            self.stats.delivered += 1;
            Some(msg)
        } else if ahead < self.window {
            self.stats.out_of_order += 1;
            None
        } else {
            self.stats.duplicates += 1;
            None
        };
        self.stats.acks_sent += 1;
        sink.transmit(Frame::Ack { next: self.expected });
        delivered
    }

    /// Frames received in total (delivered, duplicate or out of order).
    pub fn frames_received(&self) -> u64 {
        self.stats.delivered + self.stats.duplicates + self.stats.out_of_order
    }
}

#[cfg(test)]
#[path = "gbn_tests.rs"]
mod tests;
