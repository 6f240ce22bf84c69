//! The ATM cell as the simulator carries it (ITU-T I.361).
//!
//! Owns: [`Cell`], [`CELL_BYTES`], [`CELL_BITS`]. A cell is 53 bytes on the wire (5 header +
//! 48 payload) but in the simulator it is 12 bytes of ids: the VCI on the current hop, the
//! AAL5 frame it belongs to, and the header bits that matter (PTI end-of-frame, CLP) plus
//! one simulator mark, [`flags::CTRL`], for signalling cells, and the RM-cell mark
//! [`flags::RM`] of ABR VCs.

/// Cell size on the wire \[bytes\].
pub const CELL_BYTES: u32 = 53;
/// Cell payload \[bytes\].
pub const CELL_PAYLOAD_BYTES: u32 = 48;
/// Cell size on the wire \[bits\].
pub const CELL_BITS: u64 = 424;

/// Header bits carried with a cell.
pub mod flags {
    /// PTI "AAL-indicate": last cell of an AAL5 frame.
    pub const EOF: u8 = 0x01;
    /// Cell loss priority: 1 = may be discarded first.
    pub const CLP: u8 = 0x02;
    /// Control (signalling) cell: every output port serves it from its own control FIFO, ahead
    /// of all data cells (strict priority; [`crate::atm::port`]). Not a header bit of I.361:
    /// a real switch knows its signalling VC from its tables; the simulator carries the verdict
    /// with the cell so that a port needs no lookup to classify it. Set on every cell of a
    /// signalling frame by its sender (`OutPort::push_ctrl_frame` at an adapter) and kept
    /// across switches (translation rewrites only the VCI). Apart from queueing at ports, a
    /// control cell is an ordinary cell: same frame table, reassembly and cell ledger.
    pub const CTRL: u8 = 0x04;
    /// Resource-management cell of an ABR VC (TM 4.0 §5.10.3: PTI = 110 on the VC). The
    /// cell's `frame` field then indexes the RM-cell record ([`crate::abr::RmCells`]), not an
    /// AAL5 frame: reassembly never sees it, and at a switch it bypasses the per-VC frame
    /// state (EPD/PPD) and is dropped only by tail. In every ledger it is a cell like any other.
    pub const RM: u8 = 0x08;
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

    /// A control (signalling) cell ([`flags::CTRL`]).
    #[inline]
    pub fn is_ctrl(&self) -> bool {
        self.flags & flags::CTRL != 0
    }

    /// An ABR resource-management cell ([`flags::RM`]).
    #[inline]
    pub fn is_rm(&self) -> bool {
        self.flags & flags::RM != 0
    }

    /// A frame end or an RM cell: what a port watching frame ends watches
    /// ([`crate::atm::port::OutPort::watch_ends`]).
    #[inline]
    pub fn is_eof_or_rm(&self) -> bool {
        self.flags & (flags::EOF | flags::RM) != 0
    }
}
