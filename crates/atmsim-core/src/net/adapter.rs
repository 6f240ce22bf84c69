//! A host's ATM adapter: datagrams into AAL5 frames, and the host CPU.
//!
//! Owns: creating datagrams (`new_datagram`) and accounting those whose frames were lost;
//! segmenting a datagram onto a VC of the adapter (`send_datagram`, through a shaper if the VC
//! or host has one; a full adapter, or a full shaper, refuses it whole); the host CPU's queue
//! ([`CpuEv`]) between IP and TCP. A frame reassembled at a host reaches IP in `ip.rs`
//! (`host_frame`).

use super::ck;
use super::{AtmEv, CpuEv, Ev, Network};
use crate::atm::cell::Cell;
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

    /// Segment IP datagram `d` onto VC `vci` of host `h`'s adapter.
    pub(super) fn send_datagram(&mut self, h: NodeId, port: PortId, vci: u32, d: DatagramId) -> bool {
        if let Some(e) = self.abr.sender(port, vci) {
            return self.abr_send(e, d);
        }
        let now = self.eng.now;
        let ip_bytes = self.ip.datagrams.get(d).ip_bytes;
        let f = self.fabric.frames.alloc(d, h, ip_bytes, now);
        let ncells = self.fabric.frames.get(f).ncells;
        if let Some(s) = self.fabric.shapers.find(port, vci) {
            // Shaped: the cells wait in the shaper, within its own bound, not the adapter's.
            self.fabric.advance_for_push(ck!(self), port);
            let sh = &mut self.fabric.shapers.list[s as usize];
            if !sh.admit_frame(ncells) {
                self.fabric.frames.cancel(f);
                self.fabric.cells.refused_at_host += ncells as u64;
                self.ip.datagrams.refuse(d);
                return false;
            }
            match sh.push_frame(now, vci, f, ncells) {
                Some(at) if sh.lazy => self.fabric.shaper_due(ck!(self), port, s, at),
                Some(at) => {
                    self.eng.q.schedule(at, Ev::Atm(AtmEv::Shape(s)));
                }
                None => {}
            }
            self.fabric.cells.injected += ncells as u64;
            if let Some(t) = self.ip.hosts[h.idx()].tap() {
                self.capture(t, true, d);
            }
            return true;
        }
        self.fabric.advance_for_push(ck!(self), port);
        let pt = &mut self.fabric.ports[port.idx()];
        if !pt.has_room_for(ncells) {
            pt.refuse_frame(ncells);
            self.fabric.frames.cancel(f);
            self.fabric.cells.refused_at_host += ncells as u64;
            self.ip.datagrams.refuse(d);
            return false;
        }
        let refused = pt.push_frame(now, vci, f, ncells);
        self.fabric.cells.injected += ncells as u64;
        if refused > 0 {
            self.fabric.regulator_refused(f, refused);
        }
        self.fabric.arm_after_push(ck!(self), port, Cell { vci, frame: f, flags: crate::atm::cell::flags::EOF });
        if let Some(t) = self.ip.hosts[h.idx()].tap() {
            self.capture(t, true, d);
        }
        self.fabric.kick(ck!(self), port);
        true
    }

    /// Segment datagram `d` onto VC `vci` of host `h`'s adapter port `port` as a control
    /// (signalling) frame: its cells carry [`crate::atm::cell::flags::CTRL`], wait in the
    /// port's control FIFO ahead of all data, and keep that class at every switch they cross.
    /// Never shaped. A frame that does not fit the control FIFO whole is refused as a data
    /// frame is (`refused_at_host`, the datagram refused), and counted in the port's
    /// `dropped_ctrl`. Returns whether the frame was queued.
    pub fn send_ctrl_datagram(&mut self, h: NodeId, port: PortId, vci: u32, d: DatagramId) -> bool {
        let now = self.eng.now;
        let ip_bytes = self.ip.datagrams.get(d).ip_bytes;
        let f = self.fabric.frames.alloc(d, h, ip_bytes, now);
        let ncells = self.fabric.frames.get(f).ncells;
        self.fabric.advance_for_push(ck!(self), port);
        if !self.fabric.ports[port.idx()].push_ctrl_frame(vci, f, ncells) {
            self.fabric.frames.cancel(f);
            self.fabric.cells.refused_at_host += ncells as u64;
            self.ip.datagrams.refuse(d);
            return false;
        }
        self.fabric.cells.injected += ncells as u64;
        self.fabric.arm(ck!(self), port);
        if let Some(t) = self.ip.hosts[h.idx()].tap() {
            self.capture(t, true, d);
        }
        self.fabric.kick(ck!(self), port);
        true
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
