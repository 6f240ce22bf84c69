//! ABR in the running network: end systems sending at ACR, RM cells through switches, and
//! the turnaround at destinations (ATM Forum TM 4.0; Kalampoukas, Varma & Ramakrishnan 1997).
//!
//! Owns the handling of [`AtmEv::Abr`] (a transmission opportunity of an end system) and the
//! three places where an ABR VC differs from any other VC:
//!
//! - **Sending** (`abr_send`, called by the adapter for a datagram on an ABR VC): the datagram
//!   joins the end's IP output queue (or, as a pure ack, the queue of its ack VC or its
//!   priority queue); AAL5 segments it when the IP queue's service rule allows
//!   ([`crate::abr::IpService`]); the cells then leave one by one at the instants the
//!   [`crate::abr::AbrSource`] allows, with forward RM cells every Nrm cells and turned-around
//!   backward RM cells in between (rule 3), into the adapter's port like any other cell.
//! - **At a switch input** (the fabric, [`crate::abr::ErPorts::at_switch`]): a forward RM cell
//!   updates the allocator of the port its VC leaves by; a backward RM cell gets ER from the
//!   allocator of the port the reverse direction's data leave by; with ERICA every ABR cell
//!   is counted. The cell then goes through the port's FIFO as any data cell (one FIFO ABR
//!   queue per port, Kalampoukas §5.1).
//! - **At the receiving node** (`abr_at_host`): a forward RM cell is turned around and waits
//!   for an in-rate slot of the same node's source (never the IP queue, digest A15); a backward
//!   RM cell sets the node's ACR (rules 8–9).
//!
//! An end has at most one transmission event pending (`next_at`); when ACR rises or something
//! new is waiting, `abr_schedule` moves it earlier, and an event whose instant is no longer
//! `next_at` does nothing.

use super::ck;
use super::{AtmEv, Ev, Network};
use crate::abr::endsystem::Sent;
use crate::abr::{Direction, Queued};
use crate::atm::cell::{flags, Cell, CELL_BITS};
use crate::ids::{DatagramId, NodeId};
use crate::measure::Metric;
use crate::transport::Payload;

impl Network {
    /// Datagram `d` for ABR end `e` (found by the adapter from its port and VCI). Returns false
    /// if the IP queue refused it (the datagram is then refused at the adapter).
    pub(super) fn abr_send(&mut self, e: u32, d: DatagramId) -> bool {
        let dg = self.ip.datagrams.get(d);
        let data = !matches!(dg.payload, Payload::Tcp { seg, .. } if seg.len == 0);
        let q = Queued { datagram: d, ip_bytes: dg.ip_bytes, data };
        let e = self.abr.divert(e, data);
        if !self.abr.ends[e as usize].offer(q) {
            self.ip.datagrams.refuse(d);
            return false;
        }
        self.abr_fill(e);
        self.abr_trace_queue(e);
        self.abr_schedule(e);
        true
    }

    /// Segment what the IP queue of end `e` releases now.
    fn abr_fill(&mut self, e: u32) {
        let now = self.eng.now;
        while let Some(q) = self.abr.ends[e as usize].next_for_aal5() {
            let node = self.abr.ends[e as usize].node;
            let f = self.fabric.frames.alloc(q.datagram, node, q.ip_bytes, now);
            let ncells = self.fabric.frames.get(f).ncells;
            self.abr.ends[e as usize].segmented(q, f, ncells);
            if let Some(t) = self.ip.hosts[node.idx()].tap() {
                self.capture(t, true, q.datagram);
            }
        }
    }

    /// Make sure end `e` has a transmission event at its next opportunity.
    fn abr_schedule(&mut self, e: u32) {
        if let Some(at) = self.abr.ends[e as usize].arm(self.eng.now) {
            self.eng.q.schedule(at, Ev::Atm(AtmEv::Abr(e)));
        }
    }

    /// A transmission opportunity of end `e`: send the cell rule 3 picks, if it is due.
    pub(super) fn abr_tx(&mut self, e: u32) {
        let now = self.eng.now;
        let end = &mut self.abr.ends[e as usize];
        let (vci, port, local) = (end.vci, end.port, end.local);
        let (cell, frame_done) = match end.transmit_due(now) {
            Sent::Nothing => return,
            Sent::Later => return self.abr_schedule(e),
            Sent::Data { frame, eof } => (Cell { vci, frame, flags: if eof { flags::EOF } else { 0 } }, eof),
            Sent::Rm(rm) => {
                if let (Some((a, slot)), Direction::Forward) = (local, rm.dir) {
                    self.fabric.er.allocators[a as usize].on_forward_rm(now, slot, &rm);
                }
                (Cell { vci, frame: self.fabric.alloc_rm(rm), flags: flags::RM }, false)
            }
        };
        if let Some((a, slot)) = local {
            self.fabric.er.allocators[a as usize].on_cell(now, slot);
        }
        self.fabric.inject(ck!(self), port, cell);
        if frame_done {
            self.abr_fill(e);
            self.abr_trace_queue(e);
        }
        self.abr_schedule(e);
    }

    /// An RM cell reaches node `h`: turnaround (forward) or feedback (backward).
    #[cold]
    #[inline(never)]
    pub(super) fn abr_at_host(&mut self, h: NodeId, cell: Cell) {
        let mut rm = self.fabric.deliver_rm(cell.frame);
        let Some(e) = self.abr.receiver(h, cell.vci) else {
            return; // an RM cell on a VC that is not ABR here: delivered, ignored
        };
        let end = &mut self.abr.ends[e as usize];
        if let (Direction::Backward, Some((a, slot))) = (rm.dir, end.local) {
            // The node's own allocator meets the backward RM cell before its source does.
            self.fabric.er.allocators[a as usize].on_backward_rm(self.eng.now, slot, &mut rm);
        }
        let now_s = self.eng.now.as_secs_f64();
        let end = &mut self.abr.ends[e as usize];
        if let Some(acr) = end.rm_arrived(&rm, now_s) {
            if self.measure.sample_every().is_some() {
                self.measure.push(now_s, end.probe(), Metric::AcrBps, acr * CELL_BITS as f64);
            }
        }
        self.abr_schedule(e);
    }

    /// Record the queue lengths of end `e` as they change (when probes are on): an exact step
    /// trace, so that peaks of a few segments are never missed between samples.
    fn abr_trace_queue(&mut self, e: u32) {
        if self.measure.sample_every().is_none() {
            return;
        }
        let end = &self.abr.ends[e as usize];
        let (t, p) = (self.eng.now.as_secs_f64(), end.probe());
        let (ip, backlog) = (end.ip_queue_data() as f64, end.backlog_data() as f64);
        self.measure.push(t, p, Metric::IpQueueData, ip);
        self.measure.push(t, p, Metric::BacklogData, backlog);
    }

    /// Initial probe rows of every end (ACR at ICR, empty queues), when probes are on.
    pub(super) fn abr_trace_start(&mut self) {
        if self.measure.sample_every().is_none() {
            return;
        }
        for e in 0..self.abr.ends.len() {
            let end = &self.abr.ends[e];
            self.measure.push(0.0, end.probe(), Metric::AcrBps, end.source.acr() * CELL_BITS as f64);
            self.abr_trace_queue(e as u32);
        }
    }
}
