//! Typed indices into the simulator's arenas.
//!
//! Entities live in `Vec`s owned by [`crate::net::Network`]; events and cells carry these
//! ids, never references. Each id is a `u32` newtype so one kind cannot be passed for another.

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(/// An output port (a host adapter's transmitter or a switch output).
    PortId);
id!(/// A simplex link (one direction of a physical link).
    LinkId);
id!(/// A switch.
    SwitchId);
id!(/// A TCP connection (both endpoints).
    ConnId);
id!(/// A cell-level traffic source.
    SourceId);
id!(/// An IP datagram in flight ([`crate::ip::datagram::Datagrams`]).
    DatagramId);
id!(/// A node with an IP layer: a host or a router. Its index is also its IP address in
    /// forwarding tables (one entry per destination node: an O(1) lookup).
    NodeId);
id!(/// A network interface of a node (ATM adapter, LAN attachment or serial line).
    IfaceId);
