//! The IP-over-ATM device driver: which VC carries each datagram, and when VCs are opened,
//! cached and closed — decision logic only (sans-I/O).
//!
//! So far: [`classify`], the conversation key and type of a datagram (Mah 1996 §4.3.2);
//! [`policy`], the multiplexing and VC management policies; [`counters`].

pub mod classify;
pub mod counters;
pub mod policy;

pub use classify::{ConvKey, ConvType, Media, PacketHeader, Proto};
pub use counters::DriverCounters;
pub use policy::{ClassMatch, DriverConfig, MuxKey, MuxPolicy, TrafficDescriptor, VcClass, VcPolicy};
