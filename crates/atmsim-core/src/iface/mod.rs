//! Interfaces below IP: how a node's IP layer reaches the networks it is attached to
//! (DESIGN §7).
//!
//! Owns: [`ipoa`], the IP-over-ATM device driver of an ATM interface (classification,
//! multiplexing policy, VC management).

pub mod ipoa;
