//! Cell-level sources (`apps::cell_source`) in the running network.
//!
//! Owns: what a source does when one of its frames has left the adapter (a greedy source
//! refills, an on/off source starts its off period), and messages and bursts
//! ([`AppEv::Message`]) handed to the adapter as whole AAL5 frames.

use super::{AppEv, Ev, Network};
use crate::apps::cell_source::AfterFrame;
use crate::atm::cell::Cell;
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
        if !self.fabric.ports[p.idx()].notifies_source(cell.vci) {
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
        match self.apps.sources[s.idx()].frame_left() {
            Some(AfterFrame::Now(bytes)) => self.source_send(s, bytes),
            Some(AfterFrame::After(off, bytes)) => {
                self.eng.q.schedule(self.eng.now + off, Ev::App(AppEv::Message(s, bytes)));
            }
            None => {}
        }
    }

    /// Hand one frame of source `s` to its adapter.
    pub(super) fn source_send(&mut self, s: SourceId, ip_bytes: u32) {
        let (h, port, vci, hdr) = self.apps.sources[s.idx()].adapter();
        let d = self.new_datagram(hdr, Payload::Raw { source: s.0 }, ip_bytes);
        if self.send_datagram(h, port, vci, d) {
            self.apps.sources[s.idx()].sent(ip_bytes);
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
