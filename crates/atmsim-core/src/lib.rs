//! # atmsim-core — a cell-level simulator of TCP/IP over ATM
//!
//! A tour, bottom-up (DESIGN §7: layers you can see):
//!
//! 1. [`time`] — integer picosecond time, rates, drift-free serialization; [`ids`], [`error`],
//!    [`detmap`]; [`header`] — the IP header fields every layer may read (addresses, ports,
//!    protocol, media tag).
//! 2. [`kernel`] — the deterministic event queue (time, then the model's order within an
//!    instant: DESIGN §2b); [`arbiter`] — round-robin admission of simultaneous arrivals.
//! 3. [`rng`] — one seeded random stream per entity.
//! 4. [`atm`] — the cell fabric: cells, AAL5, links, output ports (with a control class for
//!    signalling cells), schedulers, shaping, switches.
//!    [`abr`] — ABR rate control (TM 4.0): end systems sending at ACR behind their IP output
//!    queues, RM cells, explicit-rate allocators per switch port (max-min, ERICA).
//! 5. [`signalling`] — switch and endpoint controllers: hop-by-hop VC setup and release in
//!    one round trip over go-back-N signalling links, VCI spaces, the admission hook
//!    (sans-I/O).
//! 6. [`iface`] — interfaces below IP: the ATM adapter's IP-over-ATM driver
//!    ([`iface::ipoa`]: classification, multiplexing, pvc/svc/svccache), serial lines and
//!    shared-medium LANs at packet level.
//! 7. [`ip`] — nodes (hosts and routers), their forwarding tables ([`ip::route`]) and the
//!    datagrams in flight with their ledger ([`ip::datagram`]; what they carry is a type
//!    parameter).
//! 8. [`transport`] — BSD 4.4-Lite TCP ([`transport::tcp`]: Tahoe/Reno/NewReno, sans-I/O, and
//!    today's options beside it: CUBIC, SACK, timestamps, HyStart++),
//!    the endpoints hosts terminate, and what a datagram carries ([`transport::Payload`]).
//! 9. [`dist`], [`apps`] — distributions (tcplib empirical CDFs); the ttcp-like bulk sender,
//!    tcplib conversations, connection slots, traffic generators, UDP flows, cell sources.
//! 10. [`net`] — the running network: one owner per layer ([`net::Network`]: the fabric,
//!     [`iface::Interfaces`], [`ip::IpLayer`], [`apps::Workload`], [`measure::Measurement`],
//!     the ABR and signalling planes, the engine; each keeps its fields and answers through
//!     its methods, and the summary reads them through the network's read-only view) and
//!     the glue between them. Events are grouped per layer ([`net::Ev`]) and each layer's
//!     are handled in its own file of
//!     `net/`; the files call down, and what must go up at once goes through an upcall
//!     trait the router (`net/run.rs`) implements (the module's docs have the table).
//! 11. [`measure`] — probes and time series, each metric named once ([`measure::Metric`]);
//!     [`pcap`] — packet captures at host interfaces (both written by the network as it runs);
//!     [`summary`] — the end-of-run summary, a typed struct per section, read from the network
//!     after the run.
//! 12. [`scenario`] — the scenario model (TOML/JSON), validation, and the builder (one file
//!     per section under `scenario/build/`).
//! 13. [`api`] — the entry points the Python package and tests call.
//!
//! Where things are handled: a **cell** in [`atm`] (ports, links; its AAL5 frame in
//! [`atm::aal5`]) and, as events, in [`atm::fabric`] (which also owns the switches) (`AtmEv::PortTx`, `AtmEv::Arrive`);
//! a **datagram** is created in `net/adapter.rs` (`new_datagram`), routed in `net/ip.rs`
//! (`ip_output`, `ip_input`: the forwarding table, then a serial line, a LAN or the ATM
//! driver, whose `Send` becomes `send_datagram` in `net/adapter.rs`), reassembled and handed
//! to IP in `host_frame` (`net/ip.rs`) and ended by its transport (`tcp_input` in `net/transport.rs`, UDP
//! and sinks in `net/ip.rs`); a **segment** is built and consumed by [`transport::tcp`] and carried
//! in a datagram's [`transport::Payload`]; a **signalling message** is produced by a
//! [`signalling::Controller`] and carried as control cells on VCI 5 by
//! `net/signalling.rs` (`sig_transmit`, `sig_frame`). No layer names a layer above it
//! (`tests/it/layers_call_down.rs` checks every reference): the fabric knows a frame's
//! datagram only by id, IP a datagram's content only as a type parameter.
//!
//! Pure Rust, no I/O beyond what callers hand it.

pub mod abr;
pub mod api;
pub mod apps;
pub mod arbiter;
pub mod atm;
pub mod detmap;
pub mod dist;
pub mod error;
pub mod header;
pub mod ids;
pub mod iface;
pub mod ip;
pub mod kernel;
pub mod measure;
pub mod net;
pub mod pcap;
pub mod rng;
pub mod scenario;
pub mod signalling;
pub mod summary;
pub mod time;
pub mod transport;

pub use error::{Error, ErrorKind, Result};

// The integration tests (`tests/it/`, through the public API, as `atmsim_core::…`) are built
// into the library's own test binary, so that `cargo test` compiles the core once in the test
// profile, not a second time as a plain library for a separate test binary (`make test`'s
// critical path; Cargo.toml, `autotests`).
#[cfg(test)]
extern crate self as atmsim_core;
#[cfg(test)]
#[path = "../tests/it/main.rs"]
mod integration;
