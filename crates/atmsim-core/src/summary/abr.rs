//! The `abr` section: the ABR plane per end system (ACR, RM cells, queues), per switch
//! allocator, and the RM-cell ledger.
//!
//! Owns: [`Abr`], [`AbrEnd`], [`ErAllocator`], [`RmCells`] and [`abr`].

use crate::atm::cell::CELL_BITS;
use crate::net::Network;
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Abr {
    pub ends: Vec<AbrEnd>,
    pub allocators: Vec<ErAllocator>,
    pub rm_cells: RmCells,
}

/// One ABR source and its destination.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AbrEnd {
    pub name: String,
    pub vc: String,
    pub from: String,
    pub to: String,
    pub pcr_bps: f64,
    pub icr_bps: f64,
    pub acr_bps: f64,
    pub acr_last_change_s: f64,
    pub data_cells: u64,
    pub forward_rm: u64,
    pub out_of_rate_rm: u64,
    pub backward_rm_sent: u64,
    pub backward_rm_overwritten: u64,
    pub backward_rm_received: u64,
    pub turned_around: u64,
    pub adtf_resets: u64,
    pub crm_cuts: u64,
    pub datagrams_in: u64,
    pub acks_diverted: u64,
    pub refused: u64,
    pub max_ip_queue_data: u32,
    pub max_ip_queue_packets: u32,
    pub max_backlog_data: u32,
    pub cells_waiting: u64,
}

/// One switch port's explicit-rate allocator.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ErAllocator {
    pub port: String,
    pub algorithm: &'static str,
    pub advertised_bps: f64,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct RmCells {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

pub fn abr(net: &Network) -> Abr {
    let bits = CELL_BITS as f64;
    let ends = net
        .abr()
        .ends
        .iter()
        .map(|e| {
            let s = e.source.stats();
            let p = e.source.params();
            AbrEnd {
                name: e.name.clone(),
                vc: e.vc.clone(),
                from: net.ip().hosts[e.node.idx()].name().to_string(),
                to: net.ip().hosts[e.peer.idx()].name().to_string(),
                pcr_bps: p.pcr_cells_s * bits,
                icr_bps: p.effective_icr() * bits,
                acr_bps: e.source.acr() * bits,
                acr_last_change_s: e.acr_last_change_s(),
                data_cells: s.data_cells,
                forward_rm: s.forward_rm,
                out_of_rate_rm: s.out_of_rate_rm,
                backward_rm_sent: s.backward_rm_sent,
                backward_rm_overwritten: s.backward_rm_overwritten,
                backward_rm_received: s.backward_rm_received,
                turned_around: e.dest.turned_around(),
                adtf_resets: s.adtf_resets,
                crm_cuts: s.crm_cuts,
                datagrams_in: e.stats.datagrams_in,
                acks_diverted: e.stats.acks_diverted,
                refused: e.stats.refused,
                max_ip_queue_data: e.stats.max_ip_queue_data,
                max_ip_queue_packets: e.stats.max_ip_queue_packets,
                max_backlog_data: e.stats.max_backlog_data,
                cells_waiting: e.cells_waiting(),
            }
        })
        .collect();
    let allocators = net
        .fabric()
        .er
        .with_ports()
        .map(|(a, p)| ErAllocator {
            port: net.fabric().ports[p.idx()].name.clone(),
            algorithm: a.algorithm().as_str(),
            advertised_bps: a.advertised() * bits,
        })
        .collect();
    let rm = &net.fabric().rm_cells().counts;
    Abr {
        ends,
        allocators,
        rm_cells: RmCells {
            sent: rm.sent,
            delivered: rm.delivered,
            dropped: rm.dropped,
            in_flight: net.fabric().rm_cells().in_flight(),
        },
    }
}
