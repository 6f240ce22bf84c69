//! A greedy cell-level source: its VC queue at the host adapter is never empty.
//!
//! Owns: [`GreedySource`]. The source keeps two AAL5 frames of `frame_bytes` queued and adds
//! one each time a frame's last cell starts transmission, so the adapter's scheduler always
//! finds cells on this VC (used for saturation experiments and the kernel benchmark).

use crate::ids::{HostId, PortId};

#[derive(Clone, Debug)]
pub struct GreedySource {
    pub name: String,
    pub host: HostId,
    /// The host at the other end of its VC.
    pub peer: HostId,
    pub port: PortId,
    pub vci: u32,
    pub frame_bytes: u32,
    /// Frames handed to the adapter.
    pub frames_sent: u64,
    /// Frames reassembled at the far end, and their IP bytes.
    pub frames_rcvd: u64,
    pub bytes_rcvd: u64,
    /// `bytes_rcvd` at the end of the warm-up.
    pub bytes_rcvd_warm: u64,
}
