//! Cell-level sources (`apps::cell_source`) in the running network.
//!
//! Owns: refilling greedy sources as their frames leave the adapter, and Poisson messages
//! ([`AppEv::Message`]) handed to the adapter as whole AAL5 frames.

use super::{AppEv, Ev, Network};
use crate::apps::cell_source::Pattern;
use crate::atm::cell::Cell;
use crate::ids::{PortId, SourceId};
use crate::ip::datagram::Payload;
use crate::ip::header::PacketHeader;

impl Network {
    /// If the cell just sent ends a greedy source's frame, that source wants a refill.
    #[inline]
    pub(super) fn greedy_after_tx(&self, p: PortId, cell: Cell) -> Option<SourceId> {
        if !cell.is_eof() {
            return None;
        }
        let vs = self.ports[p.idx()].vcs.get(cell.vci as usize)?;
        vs.greedy_frame_bytes?;
        match self.datagrams.get(self.frames.get(cell.frame).dgram).payload {
            Payload::Raw { source } => Some(SourceId(source)),
            _ => None,
        }
    }

    pub(super) fn greedy_refill(&mut self, s: SourceId) {
        if let Pattern::Greedy { frame_bytes } = self.sources[s.idx()].pattern {
            self.source_send(s, frame_bytes);
        }
    }

    /// Hand one frame of source `s` to its adapter.
    pub(super) fn source_send(&mut self, s: SourceId, ip_bytes: u32) {
        let src = &self.sources[s.idx()];
        let (h, port, vci) = (src.host, src.port, src.vci);
        let hdr = PacketHeader::raw(src.host, src.peer);
        let d = self.new_datagram(hdr, Payload::Raw { source: s.0 }, ip_bytes);
        if self.send_datagram(h, port, vci, d) {
            let src = &mut self.sources[s.idx()];
            src.frames_sent += 1;
            src.cells_sent += crate::atm::aal5::cells_for(ip_bytes) as u64;
        }
    }

    /// A Poisson message arrives: send it and schedule the next one.
    pub(super) fn source_message(&mut self, s: SourceId, ip_bytes: u32) {
        self.source_send(s, ip_bytes);
        if let Some((gap, bytes)) = self.sources[s.idx()].next_message() {
            self.q.schedule(self.now + gap, Ev::App(AppEv::Message(s, bytes)));
        }
    }
}
