//! Shared-medium LANs at packet level: INSANE's idealised `Lan` (Mah 1996 §3.2, §3.6.1:
//! "simple, idealized, shared-media", bandwidth and latency configurable per subnet).
//!
//! Owns: [`Lan`]: its stations and the medium, one [`super::pipe::PacketLine`] (in
//! [`crate::iface::Interfaces::lines`]) shared by every station —
//! a datagram any station sends waits for the medium in one FIFO (no collisions, no
//! backoff), occupies it for `bytes·8 / rate`, and reaches its destination station the
//! LAN's latency later. Spec decision A-3: one FIFO channel per site, unlimited buffer by
//! default.

use crate::ids::NodeId;

/// A shared-medium LAN.
#[derive(Debug)]
pub struct Lan {
    pub name: String,
    pub members: Vec<NodeId>,
    /// Index of the medium in [`crate::iface::Interfaces::lines`].
    pub line: u32,
}
