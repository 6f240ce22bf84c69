//! The end-of-run summary: one typed struct per section, assembled by [`Summary::of`].
//!
//! Owns: [`Summary`] (the document: run settings, then one field per section), the small
//! sections that are a few lines each ([`ConnectionPool`], [`CaptureCounts`], [`RunStats`]),
//! [`summary`] (the document as JSON) and [`EchoStats`]. The sections live beside it, one
//! file per part of the network:
//!
//! * [`connections`] — TCP connections and the applications on them;
//! * [`fabric`] — the cell layer: cell sources, ports, shapers, policers;
//! * [`abr`] — ABR end systems, ER allocators, RM cells;
//! * [`conservation`] — the ledgers of cells, frames and datagrams;
//! * [`internet`] — nodes' IP layers and IP-over-ATM drivers, packet lines, UDP flows;
//! * [`signalling`] — the signalling plane;
//! * [`traffic`] — traffic generators and the application metrics of their groups;
//! * [`schema`] — each section's field names, read from the structs (for the Python stub test).
//!
//! Rates are measured over the measurement window `[warmup_s, duration_s]`; counters cover
//! the whole run.
//!
//! **Why [`summary`] returns a `serde_json::Value`.** The Python binding and the results digest
//! (`api::results_digest`) both read a `Value`, and serde_json's map keeps its keys sorted:
//! converting the typed document once, here at its edge, gives every reader the same key
//! order the recorded digests were made with, whatever order the structs declare their fields
//! in. The structs follow the JSON exactly: a field that is `Option<T>` without
//! `skip_serializing_if` is `null` when absent; one with it is left out (listed as optional by
//! [`schema`]); `Option<Option<T>>` is left out or `null`. A float that is not finite
//! (an efficiency of no data, 0/0) becomes `null`, as serde_json turns every non-finite float
//! into `null`.

pub mod abr;
pub mod connections;
pub mod conservation;
pub mod fabric;
pub mod internet;
pub mod schema;
pub mod signalling;
pub mod stats;
pub mod traffic;

pub use stats::{EchoStats, Window};

use crate::kernel::TieOrder;
use crate::net::Network;
use serde::Serialize;
use std::collections::BTreeMap;

/// The summary of one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// The scenario's name; set by `api::run_str` (absent from `api::run_doc`'s summaries,
    /// which tests and digests read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The seed the run used; set with `scenario`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub batching: bool,
    /// Only a non-default tie order ("lifo", "random") is recorded, so default runs keep
    /// their digests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_order: Option<&'static str>,
    pub connections: Vec<connections::Connection>,
    pub sources: Vec<fabric::Source>,
    pub ports: Vec<fabric::Port>,
    pub shapers: Vec<fabric::Shaper>,
    pub policers: Vec<fabric::Policer>,
    pub hosts: Vec<internet::Host>,
    pub lines: Vec<internet::Line>,
    pub udp: Vec<internet::UdpFlow>,
    /// `null` without a signalling plane.
    pub signalling: Option<signalling::Signalling>,
    pub traffic: Vec<traffic::Generator>,
    /// Per `[[traffic]]` group; only when the scenario has traffic generators.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applications: Option<BTreeMap<String, traffic::Application>>,
    pub abr: abr::Abr,
    pub connection_pool: ConnectionPool,
    pub captures: Vec<CaptureCounts>,
    pub conservation: conservation::Conservation,
    pub run: RunStats,
}

/// The pool of recycled connection slots (tcplib conversations, generators).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ConnectionPool {
    pub slots: usize,
    pub free: usize,
}

/// One `[[capture]]`: what its host sent and received.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CaptureCounts {
    pub name: String,
    pub host: String,
    pub snaplen_bytes: u32,
    pub packets: u64,
    pub packets_out: u64,
    pub packets_in: u64,
}

/// How the run went on this machine: engine steps and wall-clock rates (left out of the
/// results digest).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct RunStats {
    /// Steps of the engine: heap events plus the steps batching took inline. Served-ahead
    /// ports (`atm::port` module docs) take no step per cell, so with batching on this is
    /// smaller than with it off, for the same results.
    pub events: u64,
    pub heap_events: u64,
    pub cell_hops: u64,
    pub wall_s: f64,
    pub events_per_s: f64,
    pub cell_hops_per_s: f64,
}

/// Summarise a finished run as JSON (module docs: why a `Value`). `wall_s` is the
/// wall-clock time the run took.
pub fn summary(net: &Network, wall_s: f64) -> serde_json::Value {
    Summary::of(net, wall_s).to_value()
}

impl Summary {
    /// Summarise a finished run. `wall_s` is the wall-clock time the run took.
    pub fn of(net: &Network, wall_s: f64) -> Summary {
        let end = net.engine().until().as_secs_f64();
        let warm = net.measure().warmup().as_secs_f64();
        let window = Window { end, warm, len: (end - warm).max(f64::MIN_POSITIVE) };
        Summary {
            scenario: None,
            seed: None,
            duration_s: end,
            warmup_s: warm,
            batching: net.engine().batching(),
            tie_order: match net.engine().queue().ties() {
                TieOrder::Fifo => None,
                order => Some(order.name()),
            },
            connections: connections::connections(net, window),
            sources: fabric::sources(net, window),
            ports: fabric::ports(net),
            shapers: fabric::shapers(net),
            policers: fabric::policers(net),
            hosts: internet::hosts(net),
            lines: internet::lines(net),
            udp: internet::udp(net),
            signalling: signalling::signalling(net),
            traffic: traffic::generators(net),
            applications: (!net.apps().generators().is_empty()).then(|| traffic::applications(net)),
            abr: abr::abr(net),
            connection_pool: {
                let (slots, free) = net.apps().pool_sizes();
                ConnectionPool { slots, free }
            },
            captures: net
                .measure()
                .captures()
                .iter()
                .map(|t| CaptureCounts {
                    name: t.name.clone(),
                    host: t.host.clone(),
                    snaplen_bytes: t.snaplen(),
                    packets: t.packets(),
                    packets_out: t.packets_out,
                    packets_in: t.packets_in,
                })
                .collect(),
            conservation: conservation::conservation(net),
            run: run_stats(net, wall_s),
        }
    }

    /// The document as JSON, keys in serde_json's (sorted) order.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a summary is plain data")
    }
}

fn run_stats(net: &Network, wall_s: f64) -> RunStats {
    let (heap_events, inline_steps) = net.engine().events();
    let events = heap_events + inline_steps;
    RunStats {
        events,
        heap_events,
        cell_hops: net.fabric().cell_hops,
        wall_s,
        events_per_s: events as f64 / wall_s.max(1e-9),
        cell_hops_per_s: net.fabric().cell_hops as f64 / wall_s.max(1e-9),
    }
}
