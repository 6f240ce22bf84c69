//! Point-to-point serial lines at packet level (Cáceres 1993 §2: each source and sink reaches
//! its router over its own 1.5 Mb/s line).
//!
//! Owns: [`SerialLine`]: two nodes, and one [`super::pipe::PacketLine`] per direction
//! (`lines[0]` carries `ends[0] → ends[1]`; the lines themselves live in
//! [`crate::iface::Interfaces::lines`]). Each direction is a FIFO at the line rate with the
//! line's propagation delay; the two directions are independent (full duplex).

use crate::ids::NodeId;

/// A full-duplex serial line between two nodes.
#[derive(Debug)]
pub struct SerialLine {
    pub name: String,
    pub ends: [NodeId; 2],
    /// Indices of its two directions in [`crate::iface::Interfaces::lines`].
    pub lines: [u32; 2],
}
