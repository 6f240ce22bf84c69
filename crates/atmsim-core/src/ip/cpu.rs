//! A host's protocol-processing CPU (MAGIC §3.6, §4.3: TCP on the DEC 3000 was receiver CPU
//! bound, and smaller segments cost more processing per byte).
//!
//! Owns: [`Cpu`], [`Cost`] and [`Dir`]. Every TCP segment a host receives costs
//! `rx.per_segment + rx.per_byte · payload` of CPU time before TCP sees it, and every segment
//! it sends costs `tx.per_segment + tx.per_byte · payload` before it reaches the adapter. One
//! CPU serves both directions in FIFO order. With all costs zero (the default) the stage is
//! absent and costs nothing; with only receive costs, sent segments bypass it.
//!
//! **Timing jitter.** `cpu_jitter_us` = J adds to every job, in both directions, a time drawn
//! uniformly from [0, J) (picoseconds, from the host's own stream, `rng::Purpose::HostCpu`):
//! the random component of real hosts' per-packet processing that Floyd & Jacobson (1992, "On
//! traffic phase effects in packet-switched gateways") showed breaks the phase effects of
//! deterministic drop-tail simulations — with every time exact, two identical TCP senders can
//! lock into a pattern in which one of them takes every drop. A host with jitter has a CPU
//! even when its costs are zero, and its sent segments go through it. The mean cost per job
//! grows by J/2.
//!
//! **Simultaneous events (DESIGN §2b).** At one instant the CPU first finishes its job (`Done`
//! runs before any arrival, and the next job starts), then the instant's new jobs join the
//! FIFO in the order of the events that bring them: received datagrams (cells reaching the
//! adapter, kind `Arrive`) before segments sent on timers and application events, and within a
//! kind by the index of the link or connection (`net` module docs) — an index order, not the
//! round-robin arbiter of ATM ports and packet lines ([`crate::arbiter`]). Two jobs reach one
//! CPU at the same picosecond only in exact lock step; no shipped scenario does (results
//! identical under every engine tie order, tested).

use crate::ids::DatagramId;
use crate::rng::{Rng, Stream};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Which way a segment goes through the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Rx,
    Tx,
}

/// The processing cost of one segment in one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    pub per_segment: SimDuration,
    /// [ps per payload byte].
    pub per_byte_ps: u64,
}

impl Cost {
    pub fn is_zero(&self) -> bool {
        self.per_segment == SimDuration::ZERO && self.per_byte_ps == 0
    }
}

#[derive(Clone, Debug)]
pub struct Cpu {
    pub rx: Cost,
    pub tx: Cost,
    pub queue: VecDeque<(DatagramId, Dir, u32)>,
    pub busy: bool,
    busy_since: SimTime,
    /// Total busy time \[ps\] and segments processed per direction.
    pub busy_ps: u64,
    rx_segments: u64,
    tx_segments: u64,
    pub max_queue: usize,
    /// Timing jitter: the bound J \[ps\] of each job's extra time and the stream it is drawn
    /// from (module docs); none if J is 0.
    jitter: Option<(u64, Stream)>,
}

impl Cpu {
    /// A CPU with these costs, each job lengthened by a time drawn uniformly from [0, J) with
    /// `jitter = Some((J, stream))` (J > 0 ps).
    pub fn new(rx: Cost, tx: Cost, jitter: Option<(SimDuration, Stream)>) -> Self {
        Cpu {
            jitter: jitter.map(|(j, r)| (j.as_ps(), r)),
            rx,
            tx,
            queue: VecDeque::new(),
            busy: false,
            busy_since: SimTime::ZERO,
            busy_ps: 0,
            rx_segments: 0,
            tx_segments: 0,
            max_queue: 0,
        }
    }

    /// Segments the CPU has finished in direction `dir`.
    pub fn segments_done(&self, dir: Dir) -> u64 {
        match dir {
            Dir::Rx => self.rx_segments,
            Dir::Tx => self.tx_segments,
        }
    }

    /// Whether sent segments go through the CPU.
    pub fn costs_tx(&self) -> bool {
        !self.tx.is_zero() || self.jitter.is_some()
    }

    /// Whether received segments go through the CPU.
    pub fn costs_rx(&self) -> bool {
        !self.rx.is_zero() || self.jitter.is_some()
    }

    /// Processing time of one segment with `len` payload bytes, its jitter drawn now.
    pub fn cost(&mut self, len: u32, dir: Dir) -> SimDuration {
        let len = len as u64;
        let c = match dir {
            Dir::Rx => self.rx,
            Dir::Tx => self.tx,
        };
        let extra = match &mut self.jitter {
            Some((j, r)) => r.gen_range(0..*j),
            None => 0,
        };
        SimDuration::from_ps(
            c.per_segment.as_ps().saturating_add(c.per_byte_ps.saturating_mul(len)).saturating_add(extra),
        )
    }

    /// Queue a segment (datagram `d`, `len` payload bytes); returns the completion time if
    /// the CPU was idle and starts on it.
    pub fn push(&mut self, now: SimTime, d: DatagramId, len: u32, dir: Dir) -> Option<SimTime> {
        self.queue.push_back((d, dir, len));
        self.max_queue = self.max_queue.max(self.queue.len());
        if self.busy {
            return None;
        }
        self.busy = true;
        self.busy_since = now;
        Some(now + self.cost(len, dir))
    }

    /// The segment at the front is done: returns it and, if another waits, its completion time.
    pub fn done(&mut self, now: SimTime) -> ((DatagramId, Dir), Option<SimTime>) {
        let item = self.queue.pop_front().expect("CPU done with an empty queue");
        match item.1 {
            Dir::Rx => self.rx_segments += 1,
            Dir::Tx => self.tx_segments += 1,
        }
        match self.queue.front() {
            Some(&(_, dir, len)) => ((item.0, item.1), Some(now + self.cost(len, dir))),
            None => {
                self.busy = false;
                self.busy_ps += now.0 - self.busy_since.0;
                ((item.0, item.1), None)
            }
        }
    }

    /// Busy time up to `now` \[ps\].
    pub fn busy_until(&self, now: SimTime) -> u64 {
        self.busy_ps + if self.busy { now.0 - self.busy_since.0 } else { 0 }
    }
}
