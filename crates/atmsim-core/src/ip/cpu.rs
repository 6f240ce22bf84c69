//! A host's receive-side CPU (MAGIC §3.6, §4.3: TCP on the DEC 3000 was receiver CPU bound).
//!
//! Owns: [`Cpu`]. Every TCP segment a host receives costs `per_segment + per_byte · payload`
//! of CPU time before TCP sees it; segments wait in FIFO order while the CPU is busy. With
//! both costs zero (the default) the stage is absent and costs nothing. Sending costs are not
//! modelled (the paper's hosts were receiver bound).

use crate::atm::aal5::Payload;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Cpu {
    pub per_segment: SimDuration,
    /// [ps per payload byte].
    pub per_byte_ps: u64,
    pub queue: VecDeque<Payload>,
    pub busy: bool,
    busy_since: SimTime,
    /// Total busy time [ps] and segments processed.
    pub busy_ps: u64,
    pub segments: u64,
    pub max_queue: usize,
}

impl Cpu {
    pub fn new(per_segment: SimDuration, per_byte_ps: u64) -> Self {
        Cpu {
            per_segment,
            per_byte_ps,
            queue: VecDeque::new(),
            busy: false,
            busy_since: SimTime::ZERO,
            busy_ps: 0,
            segments: 0,
            max_queue: 0,
        }
    }

    /// Processing time of one segment.
    pub fn cost(&self, p: &Payload) -> SimDuration {
        let len = match p {
            Payload::Tcp { seg, .. } => seg.len as u64,
            Payload::Raw { .. } => 0,
        };
        SimDuration::from_ps(self.per_segment.as_ps() + self.per_byte_ps * len)
    }

    /// Queue a segment; returns the completion time if the CPU was idle and starts on it.
    pub fn push(&mut self, now: SimTime, p: Payload) -> Option<SimTime> {
        self.queue.push_back(p);
        self.max_queue = self.max_queue.max(self.queue.len());
        if self.busy {
            return None;
        }
        self.busy = true;
        self.busy_since = now;
        Some(now + self.cost(&p))
    }

    /// The segment at the front is done: returns it and, if another waits, its completion time.
    pub fn done(&mut self, now: SimTime) -> (Payload, Option<SimTime>) {
        let p = self.queue.pop_front().expect("CPU done with an empty queue");
        self.segments += 1;
        match self.queue.front() {
            Some(next) => (p, Some(now + self.cost(next))),
            None => {
                self.busy = false;
                self.busy_ps += now.0 - self.busy_since.0;
                (p, None)
            }
        }
    }

    /// Busy time up to `now` [ps].
    pub fn busy_until(&self, now: SimTime) -> u64 {
        self.busy_ps + if self.busy { now.0 - self.busy_since.0 } else { 0 }
    }
}
