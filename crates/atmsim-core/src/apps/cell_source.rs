//! Cell-level traffic sources on a VC: greedy (always backlogged), Poisson messages, and
//! on/off bursts.
//!
//! Owns: [`CellSource`], [`Pattern`] and [`BurstLaw`].
//!
//! - **Greedy**: the source keeps two AAL5 frames of `frame_bytes` queued and adds one each
//!   time a frame's last cell is sent, so the adapter's scheduler always finds cells on this
//!   VC (saturation experiments, the kernel benchmark).
//! - **Poisson** (Koçyiğit §III, background traffic): messages arrive as a Poisson process;
//!   a message of `n` cells has a truncated-geometric length on {1, …, max} and is carried
//!   as one AAL5 frame of exactly `n` cells. The offered load `load_bps` counts 53-byte cells,
//!   so the message rate is `load_bps / (424 · E[n])`. The geometric parameter is chosen so
//!   that the *truncated* mean equals `mean_cells` (solved by bisection; for mean 25 and
//!   max 200 it is p ≈ 0.03975).
//! - **On/off** (the classic cell-level source of multiplexer studies): an *on* period is one
//!   burst of cells — a fixed number, or a geometric number truncated to {1, …, max} — handed
//!   to the adapter as one AAL5 frame, so alone on its link it leaves back to back at the link
//!   rate; the *off* period starts when the burst's last cell has left the adapter and lasts a
//!   geometric number of cell slots of that link, k ∈ {0, 1, …} with mean
//!   `E[B]·(1 − ρ)/ρ`, where ρ = `load_bps` / link rate. Alone on its link the source offers
//!   exactly ρ in the long run: E\[B\] / (E\[B\] + E\[off\]) = ρ. It starts in an off period (a
//!   random phase). Sharing the adapter port with other VCs stretches its on periods, and
//!   the long-run load falls below ρ by as much.

use crate::dist;
use crate::header::PacketHeader;
use crate::ids::{NodeId, PortId};
use crate::rng::Stream;
use crate::time::SimDuration;

/// How a source generates frames.
#[derive(Clone, Debug)]
pub enum Pattern {
    Greedy {
        frame_bytes: u32,
    },
    Poisson {
        /// Mean time between messages.
        mean_gap: SimDuration,
        /// Geometric parameter and truncation of the message length \[cells\].
        p: f64,
        max_cells: u64,
        rng: Stream,
    },
    OnOff {
        burst: BurstLaw,
        /// Mean off period [cell slots of the sending link].
        mean_off_slots: f64,
        /// One cell slot of the sending link.
        slot: SimDuration,
        rng: Stream,
    },
}

/// The number of cells in an on/off source's burst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BurstLaw {
    /// Exactly this many cells.
    Fixed(u32),
    /// Geometric with parameter `p`, truncated to {1, …, max}.
    Geometric { p: f64, max: u64 },
}

#[derive(Clone, Debug)]
pub struct CellSource {
    pub name: String,
    pub host: NodeId,
    /// The host at the other end of its VC.
    pub peer: NodeId,
    pub port: PortId,
    pub vci: u32,
    pub pattern: Pattern,
    /// Frames handed to the adapter.
    pub frames_sent: u64,
    /// Cells handed to the adapter (accepted).
    pub cells_sent: u64,
    /// Frames reassembled at the far end, and their IP bytes.
    pub frames_rcvd: u64,
    pub bytes_rcvd: u64,
    /// `bytes_rcvd` at the end of the warm-up.
    pub bytes_rcvd_warm: u64,
}

/// What a source sends after one of its frames has left the adapter
/// ([`CellSource::frame_left`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterFrame {
    /// A greedy source: a frame of this many IP bytes, now.
    Now(u32),
    /// An on/off source: its next burst (IP bytes) after an off period.
    After(SimDuration, u32),
}

impl CellSource {
    /// The source's first message or burst at the start of the run: (gap before it, IP
    /// bytes). `None` for a greedy source, which queues two frames at once and one more per
    /// frame sent.
    pub fn first(&mut self) -> Option<(SimDuration, u32)> {
        self.next_message().or_else(|| self.pattern.next_burst())
    }

    /// A frame of the source has left the adapter: what it sends next (`None`: a Poisson
    /// source, whose messages come on their own clock).
    pub fn frame_left(&mut self) -> Option<AfterFrame> {
        match &mut self.pattern {
            Pattern::Greedy { frame_bytes } => Some(AfterFrame::Now(*frame_bytes)),
            pattern @ Pattern::OnOff { .. } => pattern.next_burst().map(|(off, b)| AfterFrame::After(off, b)),
            Pattern::Poisson { .. } => None,
        }
    }

    /// Where its frames enter the fabric: (host, adapter port, VCI), and their IP header.
    pub fn adapter(&self) -> (NodeId, PortId, u32, PacketHeader) {
        (self.host, self.port, self.vci, PacketHeader::raw(self.host, self.peer))
    }

    /// The adapter accepted a frame of `ip_bytes`.
    pub fn sent(&mut self, ip_bytes: u32) {
        self.frames_sent += 1;
        self.cells_sent += crate::atm::aal5::cells_for(ip_bytes) as u64;
    }

    /// A frame of `ip_bytes` was reassembled at the far end.
    pub fn received(&mut self, ip_bytes: u32) {
        self.frames_rcvd += 1;
        self.bytes_rcvd += ip_bytes as u64;
    }

    /// The source's pattern as the report names it: "greedy", "poisson" or "onoff".
    pub fn kind_name(&self) -> &'static str {
        match self.pattern {
            Pattern::Greedy { .. } => "greedy",
            Pattern::Poisson { .. } => "poisson",
            Pattern::OnOff { .. } => "onoff",
        }
    }

    /// Whether the source is greedy: it offers whatever its link takes, no load of its own.
    pub fn is_greedy(&self) -> bool {
        matches!(self.pattern, Pattern::Greedy { .. })
    }

    /// IP bytes of frames reassembled at the far end since the end of the warm-up.
    pub fn bytes_rcvd_since_warm(&self) -> u64 {
        self.bytes_rcvd - self.bytes_rcvd_warm
    }

    /// Draw the next Poisson message: (gap before it, its IP bytes so that AAL5 needs exactly
    /// the drawn number of cells). `None` for a greedy source.
    pub fn next_message(&mut self) -> Option<(SimDuration, u32)> {
        match &mut self.pattern {
            Pattern::Greedy { .. } | Pattern::OnOff { .. } => None,
            Pattern::Poisson { mean_gap, p, max_cells, rng } => {
                let gap = SimDuration::from_secs_f64(dist::exponential(rng, mean_gap.as_secs_f64()));
                let n = dist::truncated_geometric(rng, *p, *max_cells);
                Some((gap, ip_bytes_for_cells(n as u32)))
            }
        }
    }
}

impl Pattern {
    /// An on/off source's next off period and the burst after it: (off time, IP bytes of the
    /// burst's frame). `None` for the other patterns.
    pub fn next_burst(&mut self) -> Option<(SimDuration, u32)> {
        let Pattern::OnOff { burst, mean_off_slots, slot, rng } = self else {
            return None;
        };
        // Geometric on {0, 1, …} with mean m: a geometric on {1, …} of mean m + 1, less one.
        let off = dist::geometric(rng, *mean_off_slots + 1.0) - 1;
        let cells = match *burst {
            BurstLaw::Fixed(n) => n,
            BurstLaw::Geometric { p, max } => dist::truncated_geometric(rng, p, max) as u32,
        };
        Some((slot.mul(off), ip_bytes_for_cells(cells)))
    }
}

/// The IP datagram size that AAL5 carries in exactly `n` cells: 48·n − 8 bytes.
pub fn ip_bytes_for_cells(n: u32) -> u32 {
    48 * n.max(1) - 8
}

/// Mean of the geometric law with parameter `p` truncated to {1, …, max}.
pub fn truncated_geometric_mean(p: f64, max: u64) -> f64 {
    let q: f64 = 1.0 - p;
    let qm = q.powi(max as i32);
    1.0 / p - max as f64 * qm / (1.0 - qm)
}

/// The parameter `p` whose truncated mean on {1, …, max} is `mean` (1 ≤ mean < (max+1)/2).
pub fn geometric_p_for_truncated_mean(mean: f64, max: u64) -> f64 {
    let (mut lo, mut hi) = (1e-9, 1.0 - 1e-12);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        // The truncated mean decreases as p grows.
        if truncated_geometric_mean(mid, max) > mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::aal5::cells_for;

    #[test]
    fn messages_become_frames_of_exactly_their_cell_count() {
        for n in [1, 2, 25, 200] {
            assert_eq!(cells_for(ip_bytes_for_cells(n)), n);
        }
    }

    #[test]
    fn koyigit_message_lengths_have_mean_25_cells() {
        let p = geometric_p_for_truncated_mean(25.0, 200);
        assert!((truncated_geometric_mean(p, 200) - 25.0).abs() < 1e-9);
        assert!((p - 0.03975).abs() < 5e-4, "{p}");
    }
}
