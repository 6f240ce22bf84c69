//! # atmsim-core — a cell-level simulator of TCP/IP over ATM
//!
//! A tour, bottom-up:
//!
//! 1. [`time`] — integer picosecond time, rates, drift-free serialization.
//! 2. [`kernel`] — the deterministic event queue (time, then insertion order).
//! 3. [`rng`] — one seeded random stream per entity.
//! 4. [`atm`] — cells, AAL5, links, output ports, schedulers, switches.
//! 5. [`tcp`] — BSD 4.4-Lite TCP (Tahoe/Reno/NewReno), sans-I/O.
//! 6. [`ip`] — hosts and the TCP connections they terminate; [`ip::datagram`], the IP
//!    datagrams in flight (a 4-byte id through CPU queues, access links and AAL5 frames)
//!    and their ledger.
//! 7. [`dist`], [`apps`] — distributions (tcplib empirical CDFs); the ttcp-like bulk sender,
//!    greedy cell sources and the tcplib tables.
//! 8. [`net`] — the assembled network and its event loop. Events are grouped per layer
//!    ([`net::Ev`]: `Atm`, `Cpu`, `Access`, `Transport`, `App`, `Measure`) and each layer's
//!    events are handled in its own file: `net/fabric.rs` (cells), `net/adapter.rs`
//!    (datagrams in and out of AAL5 frames, the host CPU, captures), `net/access.rs`
//!    (packet-level access links), `net/transport.rs` (TCP and its applications),
//!    `net/sources.rs` (cell sources), `net/probes.rs` (warm-up and samples).
//! 9. [`measure`] — probes, time series and the end-of-run summary; [`pcap`] — packet
//!    captures at host interfaces.
//! 10. [`scenario`] — the scenario model (TOML/JSON), validation, and the builder.
//! 11. [`api`] — the entry points the Python package and tests call.
//!
//! Where things are handled: a **cell** in [`atm`] (ports, links, switches; its AAL5 frame
//! in [`atm::aal5`]) and, as events, in `net/fabric.rs` (`AtmEv::PortTx`, `AtmEv::Arrive`);
//! a **datagram** is created and ended in `net/adapter.rs` (`new_datagram`, `send_datagram`,
//! `host_receive_cell`) and `net/transport.rs` (`tcp_input`); a **segment** is built and
//! consumed by [`tcp`] and carried in a datagram's [`ip::datagram::Payload`]. Layers below IP
//! name no layer above them: the fabric knows a frame's datagram only by id.
//!
//! Pure Rust, no I/O beyond what callers hand it.

pub mod api;
pub mod apps;
pub mod atm;
pub mod dist;
pub mod error;
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
pub mod tcp;
pub mod time;

pub use error::{Error, ErrorKind, Result};
