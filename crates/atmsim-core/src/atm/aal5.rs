//! AAL5 segmentation and reassembly (ITU-T I.363.5), and the table of frames in flight.
//!
//! Owns: [`cells_for`], the [`Frames`] table (one record per AAL5 frame: the id of the IP
//! datagram it carries and how many of its cells are still unresolved) and the per-VC
//! [`Reassembler`]. A frame knows its datagram only by id ([`crate::ip::datagram`]): the
//! fabric never sees what a datagram carries. When a frame ends without being delivered,
//! its datagram id is left in `Frames::orphans` ([`Frames::take_orphans`]) for the IP layer to account as lost.
//!
//! Segmentation: an IP datagram of `n` bytes plus the 8-byte trailer is padded to a multiple
//! of 48 bytes: `cells = ceil((n + 8) / 48)` (DESIGN §4: 9180 → 192 cells, 40 → 1 cell).
//!
//! Reassembly works as the real receiver does: cells of a VC accumulate until a cell with the
//! end-of-frame bit; the frame is accepted only if exactly the cells of one frame arrived
//! (the length/CRC check). A lost cell therefore discards its frame, and a lost end-of-frame
//! cell merges two frames into one that fails the check — both are discarded and counted.

use super::cell::CELL_PAYLOAD_BYTES;
use crate::ids::{DatagramId, NodeId};
use crate::time::SimTime;

/// AAL5 CPCS trailer \[bytes\].
pub const AAL5_TRAILER_BYTES: u32 = 8;

/// Cells needed to carry an IP datagram of `ip_bytes` bytes.
#[inline]
pub fn cells_for(ip_bytes: u32) -> u32 {
    (ip_bytes + AAL5_TRAILER_BYTES).div_ceil(CELL_PAYLOAD_BYTES)
}

/// One IP packet in one AAL5 frame.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub dgram: DatagramId,
    pub src: NodeId,
    pub ip_bytes: u32,
    pub ncells: u32,
    /// Cells neither delivered to a reassembler's verdict nor dropped yet.
    pub outstanding: u32,
    pub cells_dropped: u32,
    pub delivered: bool,
    pub sent_at: SimTime,
}

/// How a finished frame ended (for conservation accounting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFate {
    Delivered,
    /// Some cells reached the receiver but the frame failed reassembly.
    Discarded,
    /// Every cell was dropped in the network.
    Lost,
}

/// Frame counts by fate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameCounts {
    pub sent: u64,
    pub delivered: u64,
    pub discarded: u64,
    pub lost: u64,
}

/// The table of live frames: a slab with a free list (no allocation per frame once warm).
#[derive(Default)]
pub struct Frames {
    slots: Vec<Frame>,
    free: Vec<u32>,
    live: u32,
    pub counts: FrameCounts,
    /// Datagrams of frames that ended discarded or lost, not yet accounted by the IP layer.
    orphans: Vec<DatagramId>,
    /// Frames carrying no datagram (signalling messages, [`NO_DATAGRAM`]) that ended
    /// discarded or lost, not yet accounted by the signalling layer.
    control_lost: Vec<u32>,
}

/// The datagram id of a frame that carries a signalling message rather than an IP datagram.
pub const NO_DATAGRAM: DatagramId = DatagramId(u32::MAX);

impl Frames {
    /// The datagrams of frames that ended discarded or lost since the last call, for the IP
    /// layer to account (taken).
    #[inline]
    pub fn take_orphans(&mut self) -> Option<std::vec::Drain<'_, DatagramId>> {
        (!self.orphans.is_empty()).then(|| self.orphans.drain(..))
    }

    /// The signalling frames that ended discarded or lost since the last call, for the
    /// signalling plane to account (taken).
    pub fn take_control_lost(&mut self) -> Option<std::vec::Drain<'_, u32>> {
        (!self.control_lost.is_empty()).then(|| self.control_lost.drain(..))
    }

    /// Register a new frame about to be segmented; returns its id.
    pub fn alloc(&mut self, dgram: DatagramId, src: NodeId, ip_bytes: u32, now: SimTime) -> u32 {
        let ncells = cells_for(ip_bytes);
        let f = Frame {
            dgram,
            src,
            ip_bytes,
            ncells,
            outstanding: ncells,
            cells_dropped: 0,
            delivered: false,
            sent_at: now,
        };
        self.live += 1;
        self.counts.sent += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = f;
                i
            }
            None => {
                self.slots.push(f);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Undo an `alloc` for a frame that was refused before any cell left (host queue full).
    pub fn cancel(&mut self, id: u32) {
        self.counts.sent -= 1;
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: u32) -> &Frame {
        &self.slots[id as usize]
    }

    /// One cell of frame `id` was dropped in the network.
    #[inline]
    pub fn cell_dropped(&mut self, id: u32) {
        let f = &mut self.slots[id as usize];
        f.cells_dropped += 1;
        self.resolve(id, 1);
    }

    /// Keep frame `id`'s record (and its id) past its last cell's verdict until
    /// [`Frames::unpin`]: a complete frame handed upward by an outbox is read after later
    /// frames are allocated (`atm::fabric`, control frames).
    pub fn pin(&mut self, id: u32) {
        self.slots[id as usize].outstanding += 1;
    }

    /// Release a [`Frames::pin`].
    pub fn unpin(&mut self, id: u32) {
        self.resolve(id, 1);
    }

    /// `n` cells of frame `id` reached a reassembler's verdict.
    #[inline]
    fn resolve(&mut self, id: u32, n: u32) {
        let f = &mut self.slots[id as usize];
        debug_assert!(f.outstanding >= n);
        f.outstanding -= n;
        if f.outstanding == 0 {
            let fate = if f.delivered {
                FrameFate::Delivered
            } else if f.cells_dropped == f.ncells {
                FrameFate::Lost
            } else {
                FrameFate::Discarded
            };
            match fate {
                FrameFate::Delivered => self.counts.delivered += 1,
                FrameFate::Discarded => self.counts.discarded += 1,
                FrameFate::Lost => self.counts.lost += 1,
            }
            if fate != FrameFate::Delivered {
                let d = f.dgram;
                if d == NO_DATAGRAM {
                    self.control_lost.push(id);
                } else {
                    self.orphans.push(d);
                }
            }
            self.live -= 1;
            self.free.push(id);
        }
    }

    /// Frames with cells still unresolved (in queues, on links, or in a reassembly buffer).
    pub fn live(&self) -> u32 {
        self.live
    }
}

/// Reassembly state of one incoming VC at a host.
#[derive(Clone, Debug, Default)]
pub struct Reassembler {
    /// (frame id, cells received) in arrival order since the last end-of-frame cell.
    parts: Vec<(u32, u32)>,
}

/// The verdict on an end-of-frame cell.
pub enum Reassembled {
    /// Not the end of a frame yet.
    Pending,
    /// A complete frame: its id (still valid until the caller calls [`Frames`] release).
    Frame(Frame),
    /// The accumulated cells failed the length check and were discarded.
    Corrupt,
}

impl Reassembler {
    /// Accept one cell; returns the verdict if it closes a frame.
    pub fn push(&mut self, frames: &mut Frames, frame: u32, eof: bool) -> Reassembled {
        match self.parts.last_mut() {
            Some((f, n)) if *f == frame => *n += 1,
            _ => self.parts.push((frame, 1)),
        }
        if !eof {
            return Reassembled::Pending;
        }
        let ok = self.parts.len() == 1 && {
            let (f, n) = self.parts[0];
            frames.get(f).ncells == n
        };
        let out = if ok {
            let f = self.parts[0].0;
            frames.slots[f as usize].delivered = true;
            Reassembled::Frame(*frames.get(f))
        } else {
            Reassembled::Corrupt
        };
        for (f, n) in self.parts.drain(..) {
            frames.resolve(f, n);
        }
        out
    }

    /// Accept `n` cells of `frame` that do not end it.
    #[inline]
    pub fn push_cells(&mut self, frame: u32, n: u32) {
        match self.parts.last_mut() {
            Some((f, k)) if *f == frame => *k += n,
            _ => self.parts.push((frame, n)),
        }
    }

    /// Cells held waiting for an end-of-frame cell.
    pub fn held_cells(&self) -> u64 {
        self.parts.iter().map(|&(_, n)| n as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_counts_match_design_examples() {
        assert_eq!(cells_for(9180), 192);
        assert_eq!(cells_for(40), 1);
        assert_eq!(cells_for(41), 2);
        assert_eq!(cells_for(88), 2);
        assert_eq!(cells_for(89), 3);
        assert_eq!(cells_for(552), 12);
    }

    proptest::proptest! {
        #[test]
        fn cells_carry_the_datagram_with_less_than_one_cell_of_padding(n in 1u32..70_000) {
            let c = cells_for(n);
            proptest::prop_assert!(c * 48 >= n + 8);
            proptest::prop_assert!((c - 1) * 48 < n + 8);
        }
    }

    fn frame(frames: &mut Frames, bytes: u32) -> u32 {
        frames.alloc(DatagramId(7), NodeId(0), bytes, SimTime::ZERO)
    }

    #[test]
    fn complete_frame_is_delivered_and_freed() {
        let mut fr = Frames::default();
        let f = frame(&mut fr, 100); // 3 cells
        let mut r = Reassembler::default();
        assert!(matches!(r.push(&mut fr, f, false), Reassembled::Pending));
        assert!(matches!(r.push(&mut fr, f, false), Reassembled::Pending));
        assert!(matches!(r.push(&mut fr, f, true), Reassembled::Frame(_)));
        assert_eq!(fr.counts.delivered, 1);
        assert_eq!(fr.live(), 0);
    }

    #[test]
    fn a_pinned_frame_keeps_its_id_until_unpinned() {
        let mut fr = Frames::default();
        let f = frame(&mut fr, 40); // 1 cell
        fr.pin(f);
        let mut r = Reassembler::default();
        assert!(matches!(r.push(&mut fr, f, true), Reassembled::Frame(_)));
        assert_eq!((fr.live(), fr.counts.delivered), (1, 0), "still held by its pin");
        let g = frame(&mut fr, 40);
        assert_ne!(g, f, "a pinned id is not given to a new frame");
        fr.unpin(f);
        assert_eq!((fr.live(), fr.counts.delivered), (1, 1));
        assert_eq!(frame(&mut fr, 40), f, "free again once unpinned");
    }

    #[test]
    fn a_lost_middle_cell_discards_the_frame() {
        let mut fr = Frames::default();
        let f = frame(&mut fr, 100);
        let mut r = Reassembler::default();
        r.push(&mut fr, f, false);
        fr.cell_dropped(f);
        assert!(matches!(r.push(&mut fr, f, true), Reassembled::Corrupt));
        assert_eq!((fr.counts.discarded, fr.counts.delivered, fr.live()), (1, 0, 0));
    }

    #[test]
    fn a_lost_eof_cell_merges_two_frames_and_both_are_discarded() {
        let mut fr = Frames::default();
        let a = frame(&mut fr, 100);
        let b = frame(&mut fr, 100);
        let mut r = Reassembler::default();
        r.push(&mut fr, a, false);
        r.push(&mut fr, a, false);
        fr.cell_dropped(a); // a's EOF
        r.push(&mut fr, b, false);
        r.push(&mut fr, b, false);
        assert!(matches!(r.push(&mut fr, b, true), Reassembled::Corrupt));
        assert_eq!(fr.counts.discarded, 2);
        assert_eq!(fr.live(), 0);
    }

    #[test]
    fn a_frame_whose_cells_all_drop_is_lost() {
        let mut fr = Frames::default();
        let f = frame(&mut fr, 40);
        fr.cell_dropped(f);
        assert_eq!(fr.counts.lost, 1);
        assert_eq!(fr.orphans, vec![DatagramId(7)], "its datagram is left for IP to account");
    }
}
