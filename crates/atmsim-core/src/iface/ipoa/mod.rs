//! The IP-over-ATM device driver: which VC carries each datagram, and when VCs are opened,
//! cached and closed — decision logic only (sans-I/O).
//!
//! So far: [`classify`], the conversation key and type of a datagram (Mah 1996 §4.3.2).

pub mod classify;

pub use classify::{ConvKey, ConvType, Media, PacketHeader, Proto};
