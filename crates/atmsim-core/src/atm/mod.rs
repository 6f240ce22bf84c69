//! The ATM layer: cells, AAL5, links, output ports and their schedulers, switches.
//!
//! - [`cell`] — the 53-byte cell as a 12-byte record of ids and header bits;
//! - [`aal5`] — segmentation, reassembly, the table of frames in flight;
//! - [`link`] — cell rates (T1, DS3, TAXI-100, OC-3c presets) and propagation;
//! - [`sched`] — FIFO and cell-by-cell round robin with a token queue (Cáceres §8), and the
//!   choice of discipline;
//! - [`priority`] — static priority and RCSP (wc, nwc): levels 0–3, signalling, best effort,
//!   per-VC classes (Mah §4.3.1, Tab 4-2; Zhang & Ferrari 1993);
//! - [`regulator`] — the per-VC (X_min, X_ave, I) rate controller of RCSP;
//! - [`port`] — output buffers, tail/PPD/EPD admission, a strict-priority control (signalling)
//!   class, the transmitter;
//! - [`shaping`] — the GCRA (ITU-T I.371), shapers and pacing at host adapters;
//! - [`fabric`] — all of them in a running network: ports, links, output-queued switches
//!   ([`fabric::switch`]; their VC translation tables are the links'), shapers, the frames in
//!   flight, the cell ledger and the ATM layer's events.

pub mod aal5;
pub mod cell;
pub mod fabric;
pub mod link;
pub mod port;
pub mod priority;
pub mod regulator;
pub mod sched;
pub mod shaping;
