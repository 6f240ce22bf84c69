//! ttcp-like bulk transfer (MAGIC §2.2: "ttcp used write buffers which were 64 kB each").
//!
//! Owns: [`BulkSender`]. The application issues blocking `write`s of `write_bytes` from
//! memory. As in BSD `sosend`, a blocked write copies data into the socket buffer whenever
//! at least `sb_lowat` bytes (or the rest of the write) fit. The receiving side reads every
//! byte as soon as it is in order (an infinitely fast sink), which is what makes BSD's
//! receiver send window updates every two segments.

use crate::transport::tcp::{State, TcpConn};

/// A greedy writer of `total_bytes` (or forever) in `write_bytes` chunks.
#[derive(Clone, Debug)]
pub struct BulkSender {
    pub write_bytes: u64,
    pub total_bytes: Option<u64>,
    pub lowat: u64,
    /// Bytes of the current write not yet copied.
    cur_left: u64,
    /// Bytes accepted by the socket so far.
    written: u64,
    /// Writes completed.
    pub writes: u64,
    closed: bool,
}

impl BulkSender {
    pub fn new(write_bytes: u64, total_bytes: Option<u64>, lowat: u64) -> Self {
        BulkSender { write_bytes, total_bytes, lowat, cur_left: 0, written: 0, writes: 0, closed: false }
    }

    /// Bytes the socket has accepted so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Copy as much as the socket takes now; close after the last byte.
    pub fn pump(&mut self, tcp: &mut TcpConn) {
        if self.closed || !matches!(tcp.state(), State::Established | State::CloseWait) {
            return;
        }
        loop {
            if self.cur_left == 0 {
                let left_total = self.total_bytes.map_or(u64::MAX, |t| t - self.written);
                if left_total == 0 {
                    tcp.close();
                    self.closed = true;
                    return;
                }
                self.cur_left = self.write_bytes.min(left_total);
            }
            let space = tcp.send_space();
            // soreserve() clamps the low-water mark to the buffer size.
            let lowat = self.lowat.min(tcp.snd_buf_bytes() as u64);
            if space == 0 || (space < lowat && space < self.cur_left) {
                return;
            }
            let n = tcp.send(space.min(self.cur_left));
            if n == 0 {
                return;
            }
            self.cur_left -= n;
            self.written += n;
            if self.cur_left == 0 {
                self.writes += 1;
            }
        }
    }
}
