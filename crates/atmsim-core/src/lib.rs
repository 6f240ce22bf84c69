//! # atmsim-core — a cell-level simulator of TCP/IP over ATM
//!
//! A tour, bottom-up:
//!
//! 1. [`time`] — integer picosecond time, rates, drift-free serialization.
//! 2. [`kernel`] — the deterministic event queue (time, then insertion order).
//! 3. [`rng`] — one seeded random stream per entity.
//! 4. [`tcp`] — BSD 4.4-Lite TCP (Tahoe/Reno), sans-I/O.
//! 5. [`scenario`] — the scenario model (TOML/JSON), its validation and the network builder.
//! 6. [`api`] — the entry points the Python package and tests call.
//!
//! Pure Rust, no I/O beyond what callers hand it.

pub mod api;
pub mod error;
pub mod kernel;
pub mod rng;
pub mod tcp;
pub mod time;

pub use error::{Error, ErrorKind, Result};
