//! The `conservation` section: the ledgers of cells, AAL5 frames and IP datagrams, each with
//! whether it balances (everything sent is delivered, dropped, lost or still in flight).
//!
//! Owns: [`Conservation`], [`CellLedger`], [`FrameLedger`], [`DatagramLedger`] and
//! [`conservation`].

use crate::net::Network;
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Conservation {
    pub cells: CellLedger,
    pub frames: FrameLedger,
    pub datagrams: DatagramLedger,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct CellLedger {
    pub injected: u64,
    pub delivered: u64,
    pub dropped_tail: u64,
    pub dropped_ppd: u64,
    pub dropped_epd: u64,
    pub dropped_no_route: u64,
    pub dropped_clp1: u64,
    pub dropped_police: u64,
    pub dropped_reshape: u64,
    pub dropped_ctrl: u64,
    pub in_flight: u64,
    pub in_reassembly: u64,
    pub refused_at_host: u64,
    pub balanced: bool,
    /// Only when some port is static-priority or RCSP, so other runs keep their digests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_regulator: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FrameLedger {
    pub sent: u64,
    pub delivered: u64,
    pub discarded: u64,
    pub lost: u64,
    pub in_flight: u64,
    pub balanced: bool,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct DatagramLedger {
    pub sent: u64,
    pub delivered: u64,
    pub refused_at_adapter: u64,
    pub lost_in_fabric: u64,
    pub no_route: u64,
    pub dropped_at_line: u64,
    pub no_vc: u64,
    pub in_flight: u64,
    pub balanced: bool,
}

pub fn conservation(net: &Network) -> Conservation {
    let c = &net.fabric().cells;
    let in_flight = net.fabric().cells_in_flight();
    let f = &net.fabric().frames.counts;
    let frames_in_flight = net.fabric().frames.live() as u64;
    let d = &net.ip().datagrams.counts;
    Conservation {
        cells: CellLedger {
            injected: c.injected,
            delivered: c.delivered,
            dropped_tail: c.dropped_tail,
            dropped_ppd: c.dropped_ppd,
            dropped_epd: c.dropped_epd,
            dropped_no_route: c.dropped_no_route,
            dropped_clp1: c.dropped_clp1,
            dropped_police: c.dropped_police,
            dropped_reshape: c.dropped_reshape,
            dropped_ctrl: c.dropped_ctrl,
            in_flight,
            in_reassembly: net.fabric().cells_in_reassembly(),
            refused_at_host: c.refused_at_host,
            balanced: c.injected == c.delivered + c.dropped_in_network() + in_flight,
            dropped_regulator: net.fabric().ports.iter().any(|p| p.has_classes()).then_some(c.dropped_regulator),
        },
        frames: FrameLedger {
            sent: f.sent,
            delivered: f.delivered,
            discarded: f.discarded,
            lost: f.lost,
            in_flight: frames_in_flight,
            balanced: f.sent == f.delivered + f.discarded + f.lost + frames_in_flight,
        },
        datagrams: DatagramLedger {
            sent: d.sent,
            delivered: d.delivered,
            refused_at_adapter: d.refused_at_adapter,
            lost_in_fabric: d.lost_in_fabric,
            no_route: d.no_route,
            dropped_at_line: d.dropped_at_line,
            no_vc: d.no_vc,
            in_flight: net.ip().datagrams.live(),
            balanced: net.ip().datagrams.balanced(),
        },
    }
}
