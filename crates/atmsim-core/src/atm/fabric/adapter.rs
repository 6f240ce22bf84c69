//! Host adapters: a datagram segmented into an AAL5 frame on a VC of the host's adapter port,
//! and the cells ABR end systems send one at a time.
//!
//! Owns: [`Fabric::segment`] (a data frame: into the VC's shaper if it has one, within the
//! shaper's bound, else into the port within its buffer; refused whole otherwise),
//! [`Fabric::segment_ctrl`] (a signalling frame into the port's control FIFO) and
//! [`Fabric::inject`] (one cell of an ABR end system). Each brings the port up to date first
//! (a served-ahead port, [`super::ahead`]), keeps the cell ledger (`injected`,
//! `refused_at_host`) and starts the port if it was idle. The network hands over the datagram
//! and hears whether it was queued; what IP does with a refused one is IP's.

use super::{AtmEv, Clock, Fabric};
use crate::atm::cell::{flags, Cell};
use crate::ids::{DatagramId, NodeId, PortId};

impl Fabric {
    /// Datagram `d` of `ip_bytes` from host `h` as an AAL5 frame on VC `vci` of adapter port
    /// `p`, now: true if queued. A frame the shaper or the buffer cannot take whole is
    /// refused (counted in `refused_at_host`, its frame forgotten).
    #[inline]
    pub fn segment(&mut self, ck: &mut impl Clock, h: NodeId, p: PortId, vci: u32, d: DatagramId, ip_bytes: u32) -> bool {
        let now = ck.now();
        let f = self.frames.alloc(d, h, ip_bytes, now);
        let ncells = self.frames.get(f).ncells;
        if let Some(s) = self.shapers.find(p, vci) {
            // Shaped: the cells wait in the shaper, within its own bound, not the adapter's.
            self.advance_for_push(ck, p);
            let sh = &mut self.shapers.list[s as usize];
            if !sh.admit_frame(ncells) {
                return self.refuse(f, ncells);
            }
            match sh.push_frame(now, vci, f, ncells) {
                Some(at) if sh.lazy => self.shaper_due(ck, p, s, at),
                Some(at) => ck.schedule(at, AtmEv::Shape(s)),
                None => {}
            }
            self.cells.injected += ncells as u64;
            return true;
        }
        self.advance_for_push(ck, p);
        let pt = &mut self.ports[p.idx()];
        if !pt.has_room_for(ncells) {
            pt.refuse_frame(ncells);
            return self.refuse(f, ncells);
        }
        let refused = pt.push_frame(now, vci, f, ncells);
        self.cells.injected += ncells as u64;
        if refused > 0 {
            self.regulator_refused(f, refused);
        }
        self.arm_after_push(ck, p, Cell { vci, frame: f, flags: flags::EOF });
        self.kick(ck, p);
        true
    }

    /// Datagram `d` of `ip_bytes` from host `h` as a control (signalling) frame on VC `vci`
    /// of adapter port `p`, now: its cells carry [`flags::CTRL`], wait in the port's control
    /// FIFO ahead of all data, and keep that class at every switch they cross. Never shaped.
    /// A frame that does not fit the control FIFO whole is refused as a data frame is (and
    /// counted in the port's `dropped_ctrl`). True if queued.
    pub fn segment_ctrl(&mut self, ck: &mut impl Clock, h: NodeId, p: PortId, vci: u32, d: DatagramId, ip_bytes: u32) -> bool {
        let f = self.frames.alloc(d, h, ip_bytes, ck.now());
        let ncells = self.frames.get(f).ncells;
        self.advance_for_push(ck, p);
        if !self.ports[p.idx()].push_ctrl_frame(vci, f, ncells) {
            return self.refuse(f, ncells);
        }
        self.cells.injected += ncells as u64;
        self.arm(ck, p);
        self.kick(ck, p);
        true
    }

    /// Frame `f` of `ncells` refused whole at its host's adapter: forgotten, counted.
    fn refuse(&mut self, f: u32, ncells: u32) -> bool {
        self.frames.cancel(f);
        self.cells.refused_at_host += ncells as u64;
        false
    }

    /// An ABR end system sends `cell` on adapter port `p` now (its source paces it; a
    /// regulator of the port may still refuse it, counted `dropped_regulator`).
    pub fn inject(&mut self, ck: &mut impl Clock, p: PortId, cell: Cell) {
        let now = ck.now();
        self.cells.injected += 1;
        self.advance(ck, p, now);
        if self.ports[p.idx()].push_cell(now, cell) {
            self.arm_after_push(ck, p, cell);
        } else {
            self.cells.dropped_regulator += 1;
            self.cell_lost(cell);
        }
        self.kick(ck, p);
    }
}
