//! The `signalling` section: the switch controllers' counters, summed, and the ledger of
//! signalling messages.
//!
//! Owns: [`Signalling`], [`SignallingMessages`] and [`signalling`].

use crate::net::Network;
use crate::signalling::{PortIx, RejectReason};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Signalling {
    pub controllers: usize,
    pub setups_requested: u64,
    pub setups_connected: u64,
    /// Per reject reason (`signalling::RejectReason`, lower case).
    pub setups_failed: BTreeMap<String, u64>,
    pub setups_refused: BTreeMap<String, u64>,
    pub releases: u64,
    pub messages_processed: u64,
    pub stale_messages: u64,
    pub max_processing_queue: usize,
    pub retransmissions: u64,
    pub retransmission_timeouts: u64,
    pub calls_held: usize,
    pub messages: SignallingMessages,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SignallingMessages {
    pub sent: u64,
    pub delivered: u64,
    pub lost: u64,
    pub in_flight: u64,
    pub cells: u64,
    pub balanced: bool,
}

/// `None` without a signalling plane.
pub fn signalling(net: &Network) -> Option<Signalling> {
    let sig = net.sig()?;
    let c = &sig.counts;
    let in_flight = sig.messages_in_flight();
    let mut out = Signalling {
        controllers: sig.controllers().len(),
        calls_held: sig.calls_held(),
        messages: SignallingMessages {
            sent: c.sent,
            delivered: c.delivered,
            lost: c.lost,
            in_flight,
            cells: c.cells,
            balanced: c.sent == c.delivered + c.lost + in_flight,
        },
        ..Signalling::default()
    };
    let (mut failed, mut refused) = ([0u64; 3], [0u64; 3]);
    for ctl in sig.controllers() {
        let s = &ctl.stats;
        out.setups_requested += s.requested;
        out.setups_connected += s.connected;
        out.releases += s.released;
        out.messages_processed += s.processed;
        out.stale_messages += s.stale;
        out.max_processing_queue = out.max_processing_queue.max(s.max_queue);
        for k in 0..3 {
            failed[k] += s.failed[k];
            refused[k] += s.refused[k];
        }
        for p in 0..ctl.num_ports() {
            let tx = &ctl.sender(PortIx(p as u32)).stats;
            out.retransmissions += tx.retransmitted;
            out.retransmission_timeouts += tx.timeouts;
        }
    }
    let by_reason =
        |a: [u64; 3]| RejectReason::ALL.iter().map(|r| (format!("{r:?}").to_lowercase(), a[r.index()])).collect();
    out.setups_failed = by_reason(failed);
    out.setups_refused = by_reason(refused);
    Some(out)
}
