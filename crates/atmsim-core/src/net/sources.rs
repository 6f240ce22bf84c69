//! Cell-level sources (`apps::cell_source`) in the running network.
//!
//! Owns: what a source does when one of its frames has left the adapter (a greedy source
//! refills, an on/off source starts its off period), and messages and bursts
//! ([`AppEv::Message`]) handed to the adapter as whole AAL5 frames.

use super::{AppEv, Ev, Network};
use crate::apps::cell_source::Pattern;
use crate::atm::cell::Cell;
use crate::header::PacketHeader;
use crate::ids::{PortId, SourceId};
use crate::transport::Payload;

impl Network {
    /// If the cell just sent ends a frame of a source that waits for its frames to leave
    /// (greedy, on/off), that source.
    #[inline]
    pub(super) fn source_after_tx(&self, p: PortId, cell: Cell) -> Option<SourceId> {
        if !cell.is_eof() {
            return None;
        }
        let vs = self.fabric.ports[p.idx()].vcs.get(cell.vci as usize)?;
        if !vs.notify_source {
            return None;
        }
        match self.ip.datagrams.get(self.fabric.frames.get(cell.frame).dgram).payload {
            Payload::Raw { source } => Some(SourceId(source)),
            _ => None,
        }
    }

    /// A frame of source `s` has left the adapter: a greedy source queues the next frame, an
    /// on/off source schedules its next burst after an off period.
    pub(super) fn source_frame_left(&mut self, s: SourceId) {
        match &mut self.apps.sources[s.idx()].pattern {
            Pattern::Greedy { frame_bytes } => {
                let b = *frame_bytes;
                self.source_send(s, b);
            }
            pattern @ Pattern::OnOff { .. } => {
                if let Some((off, bytes)) = pattern.next_burst() {
                    self.eng.q.schedule(self.eng.now + off, Ev::App(AppEv::Message(s, bytes)));
                }
            }
            Pattern::Poisson { .. } => {}
        }
    }

    /// Hand one frame of source `s` to its adapter.
    pub(super) fn source_send(&mut self, s: SourceId, ip_bytes: u32) {
        let src = &self.apps.sources[s.idx()];
        let (h, port, vci) = (src.host, src.port, src.vci);
        let hdr = PacketHeader::raw(src.host, src.peer);
        let d = self.new_datagram(hdr, Payload::Raw { source: s.0 }, ip_bytes);
        if self.send_datagram(h, port, vci, d) {
            let src = &mut self.apps.sources[s.idx()];
            src.frames_sent += 1;
            src.cells_sent += crate::atm::aal5::cells_for(ip_bytes) as u64;
        }
    }

    /// A Poisson message (or an on/off burst) arrives: send it; a Poisson source schedules its
    /// next message (an on/off source waits for the burst to leave).
    pub(super) fn source_message(&mut self, s: SourceId, ip_bytes: u32) {
        self.source_send(s, ip_bytes);
        if let Some((gap, bytes)) = self.apps.sources[s.idx()].next_message() {
            self.eng.q.schedule(self.eng.now + gap, Ev::App(AppEv::Message(s, bytes)));
        }
    }
}
