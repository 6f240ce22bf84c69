//! A host's ATM adapter: datagrams into AAL5 frames, and the host CPU.
//!
//! Owns: creating datagrams (`new_datagram`) and accounting those whose frames were lost;
//! segmenting a datagram onto a VC of the adapter (`send_datagram`, through a shaper if the VC
//! or host has one; a full adapter, or a full shaper, refuses it whole); the host CPU's queue
//! ([`CpuEv`]) between IP and TCP. A frame reassembled at a host reaches IP in `ip.rs`
//! (`host_frame`).

use super::ck;
use super::{CpuEv, Ev, Network};
use crate::header::PacketHeader;
use crate::ids::{DatagramId, NodeId, PortId};
use crate::ip::cpu::Dir;
use crate::transport::Payload;

impl Network {
    /// Dispatch of the host CPU's events.
    pub(super) fn on_cpu(&mut self, ev: CpuEv) {
        match ev {
            CpuEv::Done(h) => self.cpu_done(h),
        }
    }

    /// Segment IP datagram `d` onto VC `vci` of host `h`'s adapter (an ABR VC's end system,
    /// or the fabric's adapter: [`crate::atm::fabric::Fabric::segment`]); a refused datagram
    /// ends refused. True if queued.
    pub(super) fn send_datagram(&mut self, h: NodeId, port: PortId, vci: u32, d: DatagramId) -> bool {
        if let Some(e) = self.abr.sender(port, vci) {
            return self.abr_send(e, d);
        }
        let ip_bytes = self.ip.datagrams.get(d).ip_bytes;
        let queued = self.fabric.segment(ck!(self), h, port, vci, d, ip_bytes);
        self.after_segment(h, d, queued)
    }

    /// Segment datagram `d` onto VC `vci` of host `h`'s adapter port `port` as a control
    /// (signalling) frame ([`crate::atm::fabric::Fabric::segment_ctrl`]). True if queued.
    pub fn send_ctrl_datagram(&mut self, h: NodeId, port: PortId, vci: u32, d: DatagramId) -> bool {
        let ip_bytes = self.ip.datagrams.get(d).ip_bytes;
        let queued = self.fabric.segment_ctrl(ck!(self), h, port, vci, d, ip_bytes);
        self.after_segment(h, d, queued)
    }

    /// Datagram `d` was handed to host `h`'s adapter: captured as sent if queued, refused if
    /// not.
    #[inline]
    fn after_segment(&mut self, h: NodeId, d: DatagramId, queued: bool) -> bool {
        if !queued {
            self.ip.datagrams.refuse(d);
        } else if let Some(t) = self.ip.hosts[h.idx()].tap() {
            self.capture(t, true, d);
        }
        queued
    }

    /// A TCP datagram reaches its endpoint: stale generations are counted and dropped.
    /// A TCP segment reaches its host's IP layer: through the receive CPU if the host has one.
    pub(crate) fn deliver_tcp(&mut self, d: DatagramId) {
        let dg = self.ip.datagrams.get(d);
        let Payload::Tcp { seg, .. } = dg.payload else { unreachable!("not a TCP payload") };
        // The destination host (the slot may hold a later conversation on other hosts).
        let h = dg.hdr.dst;
        let now = self.eng.now;
        match self.ip.hosts[h.idx()].cpu_mut() {
            Some(cpu) if cpu.costs_rx() => {
                if let Some(done) = cpu.push(now, d, seg.len, Dir::Rx) {
                    self.eng.q.schedule(done, Ev::Cpu(CpuEv::Done(h)));
                }
            }
            _ => self.segment_in(d),
        }
    }

    /// A datagram handed to IP. Datagrams whose frames ended undelivered since the last call
    /// are accounted as lost first (so that their slots are reused).
    #[inline]
    pub(super) fn new_datagram(&mut self, hdr: PacketHeader, payload: Payload, ip_bytes: u32) -> DatagramId {
        self.account_lost_datagrams();
        self.ip.datagrams.alloc(hdr, payload, ip_bytes, self.eng.now)
    }

    /// End the datagrams of frames the fabric lost or reassembly discarded.
    #[inline]
    pub(crate) fn account_lost_datagrams(&mut self) {
        if let Some(lost) = self.fabric.frames.take_orphans() {
            for d in lost {
                self.ip.datagrams.lose(d);
            }
        }
    }

    pub(super) fn cpu_done(&mut self, h: NodeId) {
        let now = self.eng.now;
        let cpu = self.ip.hosts[h.idx()].cpu_mut().expect("CpuDone for a host without a CPU");
        let ((p, dir), next) = cpu.done(now);
        if let Some(t) = next {
            self.eng.q.schedule(t, Ev::Cpu(CpuEv::Done(h)));
        }
        match dir {
            Dir::Rx => self.segment_in(p),
            Dir::Tx => self.segment_out(p),
        }
    }
}

/// What the host CPU hands upward, routed by the network (`run.rs`): a TCP segment it has
/// processed on the way in, or on the way out.
pub(super) trait SegmentUp {
    /// Datagram `d`'s segment reaches its TCP endpoint.
    fn segment_in(&mut self, d: DatagramId);
    /// Datagram `d`'s segment leaves its host through IP.
    fn segment_out(&mut self, d: DatagramId);
}
