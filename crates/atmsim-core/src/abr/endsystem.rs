//! One ABR end system on one VC: the node's IP output queue for the VC, the VC's cell buffer,
//! its source (the direction the node sends) and its destination (the direction it receives).
//!
//! Owns: [`AbrEnd`], [`IpService`], [`Queued`], [`EndStats`].
//!
//! # The end system of the study (Kalampoukas §2.1, digest §1.2 and A3)
//!
//! A node's TCP data segments and its acks for the reverse connection share **one FIFO IP
//! output queue**, served at the VC's ACR. We realise "served at ACR" as the digest (A3)
//! recommends: the IP queue hands its head datagram to AAL5 when the VC's cell buffer is empty,
//! so the next datagram is segmented as the last cell of the previous one leaves at ACR; the
//! IP service rate is then exactly the VC's data-cell rate ([`IpService::Acr`]). With
//! [`IpService::Instant`] (the server of §5.5: "IP service time infinitesimally small") every
//! datagram is segmented at once and the backlog sits in the VC's own cell queue instead —
//! one such queue per VC is the per-VC ATM queueing of §5.5.
//!
//! The **fixes of §6** are options of the end system:
//! - *ack priority*: pure acks wait in a queue of their own that the IP queue serves first
//!   (non-preemptive: an ack waits at most for the datagram being segmented);
//! - *separate VCs*: pure acks are diverted to another ABR VC between the same nodes (its end
//!   at this node, [`AbrEnd::ack_divert`]), so data and acks never share a queue.
//!
//! A *pure ack* is a TCP segment without payload (the classification a stack needs for either
//! fix; Mogul's proposal for routers, which the paper cites, is the same test).
//!
//! # What is counted (digest A3, A20)
//!
//! - `ip_queue_data`: data datagrams waiting in the IP queue (the one being segmented is not
//!   in it) — the quantity of the paper's Figs. 5.3, 5.7 and 5.12, which count data only;
//! - `backlog_data`: those plus the data datagrams in the VC's cell buffer, the one being
//!   sent counted as one — the node's whole backlog of data for the VC, the quantity of the
//!   analysis (Fig. 3.2 counts the packet in service).

use super::source::Emitted;
use super::{AbrDestination, AbrSource, Direction, RmCell};
use crate::time::SimTime;
use crate::ids::{DatagramId, NodeId, PortId};
use std::collections::VecDeque;

/// How the IP output queue of an ABR VC hands datagrams to AAL5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpService {
    /// The next datagram is segmented when the VC's cell buffer is empty: IP is served at ACR.
    Acr,
    /// Every datagram is segmented at once (IP service time 0): the backlog waits as cells in
    /// the VC's own queue (per-VC ATM queueing, Kalampoukas §5.5).
    Instant,
}

/// A datagram waiting for AAL5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub datagram: DatagramId,
    pub ip_bytes: u32,
    /// Carries TCP payload (data); false for a pure ack.
    pub data: bool,
}

/// A datagram segmented into the VC's cell buffer.
#[derive(Clone, Copy, Debug)]
struct InCells {
    frame: u32,
    ncells: u32,
    data: bool,
}

/// Counters of one end system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndStats {
    /// Datagrams offered to the VC (after diversion: acks diverted here count here).
    pub datagrams_in: u64,
    /// Pure acks this end sent on to its ack VC.
    pub acks_diverted: u64,
    /// Datagrams refused because the IP queue was full.
    pub refused: u64,
    /// Most data datagrams in the IP queue at once.
    pub max_ip_queue_data: u32,
    /// Most datagrams (data and acks) in the IP queue at once.
    pub max_ip_queue_packets: u32,
    /// Most data datagrams in IP queue and cell buffer together.
    pub max_backlog_data: u32,
    /// Data cells of segmented datagrams put on the wire.
    pub cells_sent: u64,
    /// RM cells and data cells received on the reverse direction.
    pub rm_received: u64,
}

/// The ABR end system of one node on one VC.
#[derive(Clone, Debug)]
pub struct AbrEnd {
    /// `"<vc>:<node>"`.
    pub name: String,
    pub vc: String,
    pub node: NodeId,
    /// The other end's node.
    pub peer: NodeId,
    /// The node's adapter port and the VCI this end sends on.
    pub port: PortId,
    pub vci: u32,
    /// The VCI the reverse direction arrives on at this node.
    pub in_vci: u32,
    pub source: AbrSource,
    pub dest: AbrDestination,
    pub service: IpService,
    /// Pure acks are served before data (§6 fix 1).
    pub ack_priority: bool,
    /// Pure acks go to this other end instead (§6 fix 2), an end at the same node.
    pub ack_divert: Option<u32>,
    /// The allocator of the node's own adapter port and this VC's slot in it, if the node
    /// allocates its link among its ABR VCs (`[[host]] er_algorithm`).
    pub local: Option<(u32, super::VcSlot)>,
    /// Most datagrams the IP queue holds; `u32::MAX` = unlimited.
    ip_limit: u32,
    ip: VecDeque<Queued>,
    acks: VecDeque<Queued>,
    cells: VecDeque<InCells>,
    /// Cells of the head of `cells` already sent.
    head_sent: u32,
    ip_data: u32,
    cell_data: u32,
    /// The instant of the pending transmission event, if one is scheduled.
    pub next_at: Option<crate::time::SimTime>,
    /// ACR when it last changed, and when \[cells/s, s\].
    last_acr: (f64, f64),
    /// The end's entity in the probe recorder.
    probe: u32,
    pub stats: EndStats,
}

/// What an end's transmission opportunity sends ([`AbrEnd::transmit_due`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sent {
    /// Nothing: the opportunity was superseded by another, or there is nothing to send.
    Nothing,
    /// The source's next opportunity is later: schedule it ([`AbrEnd::arm`]).
    Later,
    /// A data cell of AAL5 frame `frame` (`eof`: the frame's last cell).
    Data { frame: u32, eof: bool },
    /// A forward or backward RM cell.
    Rm(RmCell),
}

impl AbrEnd {
    /// The end's transmission opportunity scheduled for `now` (TM 4.0 source rule 3 picks
    /// the cell).
    pub fn transmit_due(&mut self, now: SimTime) -> Sent {
        if self.next_at != Some(now) {
            return Sent::Nothing; // superseded by an earlier opportunity
        }
        self.next_at = None;
        let waiting = self.data_waiting();
        match self.source.peek(now, waiting) {
            None => return Sent::Nothing,
            Some(slot) if slot.at > now => return Sent::Later,
            Some(_) => {}
        }
        let (at, emitted) = self.source.transmit(now, waiting).expect("peek found a cell");
        debug_assert_eq!(at, now);
        match emitted {
            Emitted::Data => {
                let (frame, eof) = self.send_data_cell();
                Sent::Data { frame, eof }
            }
            Emitted::ForwardRm(rm) | Emitted::BackwardRm(rm) => Sent::Rm(rm),
        }
    }

    /// The end's next transmission opportunity after `now`, if it comes before the one
    /// scheduled (it is the scheduled one from here on): the instant to schedule.
    pub fn arm(&mut self, now: SimTime) -> Option<SimTime> {
        let slot = self.source.peek(now, self.data_waiting())?;
        if self.next_at.is_some_and(|t| slot.at >= t) {
            return None;
        }
        self.next_at = Some(slot.at);
        Some(slot.at)
    }

    /// The end's entity in the probe recorder.
    #[inline]
    pub fn probe(&self) -> u32 {
        self.probe
    }

    /// The probe recorder declared the end as entity `e`.
    pub fn set_probe(&mut self, e: u32) {
        self.probe = e;
    }

    /// An RM cell of this VC reaches this end at `now_s` \[s\]: a forward one is turned around
    /// (the destination's backward RM cell joins the source's queue), a backward one sets the
    /// source's rate. Returns the new ACR \[cells/s\] if it changed.
    pub fn rm_arrived(&mut self, rm: &RmCell, now_s: f64) -> Option<f64> {
        self.stats.rm_received += 1;
        match rm.dir {
            Direction::Forward => {
                let back = self.dest.turn_around(rm);
                self.source.queue_backward_rm(back);
                None
            }
            Direction::Backward => {
                self.source.on_backward_rm(rm);
                let acr = self.source.acr();
                if acr == self.last_acr.0 {
                    return None;
                }
                self.last_acr = (acr, now_s);
                Some(acr)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        vc: &str,
        node_name: &str,
        node: NodeId,
        peer: NodeId,
        port: PortId,
        vci: u32,
        in_vci: u32,
        source: AbrSource,
        service: IpService,
    ) -> Self {
        let acr = source.acr();
        AbrEnd {
            name: format!("{vc}:{node_name}"),
            vc: vc.to_string(),
            node,
            peer,
            port,
            vci,
            in_vci,
            source,
            dest: AbrDestination::new(),
            service,
            ack_priority: false,
            ack_divert: None,
            local: None,
            ip_limit: u32::MAX,
            ip: VecDeque::new(),
            acks: VecDeque::new(),
            cells: VecDeque::new(),
            head_sent: 0,
            ip_data: 0,
            cell_data: 0,
            next_at: None,
            last_acr: (acr, 0.0),
            probe: u32::MAX,
            stats: EndStats::default(),
        }
    }

    /// Let the IP queue hold at most `datagrams` datagrams (`u32::MAX`: unlimited).
    pub fn set_ip_limit(&mut self, datagrams: u32) {
        self.ip_limit = datagrams;
    }

    /// Send pure acks through end `other` (an end at the same node) instead of this one.
    pub fn divert_acks_to(&mut self, other: u32) {
        self.ack_divert = Some(other);
    }

    /// When the ACR last changed \[s\] (0 if it never did).
    pub fn acr_last_change_s(&self) -> f64 {
        self.last_acr.1
    }

    /// Data datagrams waiting in the IP queue.
    pub fn ip_queue_data(&self) -> u32 {
        self.ip_data
    }
    /// Datagrams (data and acks) waiting in the IP queue.
    pub fn ip_queue_packets(&self) -> u32 {
        (self.ip.len() + self.acks.len()) as u32
    }
    /// Data datagrams in the IP queue and the cell buffer (the one being sent counted).
    pub fn backlog_data(&self) -> u32 {
        self.ip_data + self.cell_data
    }
    /// Cells segmented and not yet sent.
    pub fn cells_waiting(&self) -> u64 {
        let total: u64 = self.cells.iter().map(|c| u64::from(c.ncells)).sum();
        total - u64::from(self.head_sent)
    }
    /// A data cell is waiting for an in-rate slot.
    #[inline]
    pub fn data_waiting(&self) -> bool {
        !self.cells.is_empty()
    }

    /// Offer a datagram to the IP queue; false if the queue is full (the caller refuses it).
    pub fn offer(&mut self, q: Queued) -> bool {
        if self.ip_queue_packets() >= self.ip_limit {
            self.stats.refused += 1;
            return false;
        }
        self.stats.datagrams_in += 1;
        if !q.data && self.ack_priority {
            self.acks.push_back(q);
        } else {
            self.ip.push_back(q);
        }
        if q.data {
            self.ip_data += 1;
        }
        if self.service == IpService::Acr {
            self.note_maxima(); // with instant service nothing stays in the IP queue
        }
        true
    }

    /// The datagram AAL5 takes next, if the service rule lets it take one now.
    pub fn next_for_aal5(&mut self) -> Option<Queued> {
        if self.service == IpService::Acr && !self.cells.is_empty() {
            return None;
        }
        let q = self.acks.pop_front().or_else(|| self.ip.pop_front())?;
        if q.data {
            self.ip_data -= 1;
        }
        Some(q)
    }

    /// Datagram `q` was segmented into `ncells` cells of frame `frame`.
    pub fn segmented(&mut self, q: Queued, frame: u32, ncells: u32) {
        self.cells.push_back(InCells { frame, ncells, data: q.data });
        if q.data {
            self.cell_data += 1;
        }
        self.note_maxima();
    }

    /// The next data cell goes out: its frame, and whether it ends the frame.
    pub fn send_data_cell(&mut self) -> (u32, bool) {
        let head = *self.cells.front().expect("send_data_cell with an empty cell buffer");
        self.head_sent += 1;
        self.stats.cells_sent += 1;
        let eof = self.head_sent == head.ncells;
        if eof {
            self.cells.pop_front();
            self.head_sent = 0;
            if head.data {
                self.cell_data -= 1;
            }
        }
        (head.frame, eof)
    }

    fn note_maxima(&mut self) {
        let s = &mut self.stats;
        s.max_ip_queue_data = s.max_ip_queue_data.max(self.ip_data);
        s.max_ip_queue_packets = s.max_ip_queue_packets.max((self.ip.len() + self.acks.len()) as u32);
        s.max_backlog_data = s.max_backlog_data.max(self.ip_data + self.cell_data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::params::{AbrParams, OC3C_CELLS_S};

    fn end(service: IpService) -> AbrEnd {
        let src = AbrSource::new(AbrParams::kalampoukas97(OC3C_CELLS_S));
        AbrEnd::new("v", "a", NodeId(0), NodeId(1), PortId(0), 32, 33, src, service)
    }

    fn q(d: u32, data: bool) -> Queued {
        Queued { datagram: DatagramId(d), ip_bytes: if data { 9180 } else { 40 }, data }
    }

    #[test]
    fn served_at_acr_the_ip_queue_releases_a_datagram_only_when_the_cells_are_gone() {
        let mut e = end(IpService::Acr);
        e.offer(q(0, true));
        e.offer(q(1, false));
        e.offer(q(2, true));
        assert_eq!((e.ip_queue_data(), e.ip_queue_packets(), e.backlog_data()), (2, 3, 2));
        let first = e.next_for_aal5().unwrap();
        assert_eq!(first.datagram, DatagramId(0));
        e.segmented(first, 7, 2);
        assert_eq!((e.ip_queue_data(), e.backlog_data()), (1, 2), "the datagram in service counts in the backlog");
        assert_eq!(e.next_for_aal5(), None, "cells still waiting");
        assert_eq!(e.send_data_cell(), (7, false));
        assert_eq!(e.send_data_cell(), (7, true));
        assert_eq!(e.backlog_data(), 1);
        assert_eq!(e.next_for_aal5().unwrap().datagram, DatagramId(1), "FIFO: the ack behind the first segment");
    }

    #[test]
    fn ack_priority_serves_acks_first_and_instant_service_segments_everything() {
        let mut e = end(IpService::Instant);
        e.ack_priority = true;
        e.offer(q(0, true));
        e.offer(q(1, true));
        e.offer(q(2, false));
        let order: Vec<u32> = std::iter::from_fn(|| e.next_for_aal5()).map(|x| x.datagram.0).collect();
        assert_eq!(order, vec![2, 0, 1]);
    }

    #[test]
    fn a_full_ip_queue_refuses() {
        let mut e = end(IpService::Acr);
        e.ip_limit = 1;
        assert!(e.offer(q(0, true)));
        assert!(!e.offer(q(1, true)));
        assert_eq!(e.stats.refused, 1);
        assert_eq!(e.stats.max_ip_queue_data, 1);
    }
}
