//! The transport layer: TCP (BSD 4.4-Lite, sans-I/O) and the endpoints hosts terminate.
//!
//! Owns: [`tcp`] (the protocol: connection state, input, output, timers, congestion control),
//! [`Endpoint`] (a TCP endpoint placed on a host, with its timer grids), [`socket`] (every
//! host's sockets: which endpoint or flow a datagram is for), [`Payload`] (what an IP datagram
//! carries: a TCP segment, a UDP datagram of a flow, or a cell source's data).
//! IP below knows a datagram's content only as this type; applications above drive endpoints
//! through [`tcp::TcpConn`]'s calls (DESIGN §7).

pub mod endpoint;
mod payload;
pub mod socket;
pub mod tcp;

pub use endpoint::Endpoint;
pub use payload::Payload;
