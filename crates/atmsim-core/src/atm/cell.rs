//! The ATM cell as the simulator carries it (ITU-T I.361).
//!
//! Owns: [`Cell`], [`CELL_BYTES`], [`CELL_BITS`]. A cell is 53 bytes on the wire (5 header +
//! 48 payload) but in the simulator it is 12 bytes of ids: the VCI on the current hop, the
//! AAL5 frame it belongs to, and the header bits that matter (PTI end-of-frame, CLP).

/// Cell size on the wire [bytes].
pub const CELL_BYTES: u32 = 53;
/// Cell payload [bytes].
pub const CELL_PAYLOAD_BYTES: u32 = 48;
/// Cell size on the wire [bits].
pub const CELL_BITS: u64 = 424;

/// Header bits carried with a cell.
pub mod flags {
    /// PTI "AAL-indicate": last cell of an AAL5 frame.
    pub const EOF: u8 = 0x01;
    /// Cell loss priority: 1 = may be discarded first.
    pub const CLP: u8 = 0x02;
}

/// One cell in flight or in a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Virtual channel identifier on the current link (rewritten at every switch).
    pub vci: u32,
    /// The AAL5 frame this cell belongs to (an index into the frame table).
    pub frame: u32,
    /// [`flags`] bits.
    pub flags: u8,
}

impl Cell {
    #[inline]
    pub fn is_eof(&self) -> bool {
        self.flags & flags::EOF != 0
    }
}
