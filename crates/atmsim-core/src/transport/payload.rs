//! What an IP datagram carries, as the transport layer and the sources above IP know it.
//!
//! Owns: [`Payload`]. IP moves it inside a datagram without looking at it
//! ([`crate::ip::datagram`]); the network reads it when the datagram is delivered.

use super::tcp::Segment;
use crate::ids::ConnId;

/// What an IP datagram carries.
#[derive(Clone, Copy, Debug)]
pub enum Payload {
    /// A TCP segment for endpoint `side` (0 = client, 1 = server) of connection slot `conn`,
    /// sent by its conversation number `gen` (see [`crate::apps::Conn::gen`]).
    Tcp { conn: ConnId, side: u8, gen: u32, seg: Segment },
    /// Opaque data from cell-level source number `source`.
    Raw { source: u32 },
    /// A UDP datagram of flow `flow` ([`crate::apps::udp`]).
    Udp { flow: u32 },
}
