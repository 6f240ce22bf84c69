//! TCP modelled on BSD 4.4-Lite (Wright & Stevens, *TCP/IP Illustrated* vol. 2).
//!
//! Owns the transport protocol of an endpoint, as a *sans-I/O* state machine: the host feeds
//! it segments, application calls and timer ticks, and pulls the segments it wants to send.
//! It never sees cells, links or the event queue.
//!
//! - [`segment`]: the segment and header sizes;
//! - [`config`]: every parameter with its BSD default;
//! - [`conn`]: the connection state machine (RFC 793 states; `tcp_input`/`tcp_output`);
//! - [`input`] / [`output`] / [`reass`]: `tcp_input`, `tcp_output` and `tcp_reass`, as
//!   `impl TcpConn` blocks;
//! - [`seq`]: modular sequence-number comparisons;
//! - [`rtt`]: the Jacobson/Karels estimator on the 500 ms slow timer, backoff, Karn's rule;
//! - [`cc`]: congestion control — slow start, congestion avoidance, fast retransmit and
//!   recovery — with one module per algorithm: BSD's (Tahoe, Reno, NewReno) and CUBIC
//!   (RFC 9438), and HyStart++ (RFC 9406) as an option;
//! - [`timestamps`]: RFC 7323 timestamps (RTTM and PAWS);
//! - [`sack`]: selective acknowledgements (RFC 2018) and the loss recovery they steer
//!   (RFC 6675), when both ends enable them.
//!
//! BSD 4.4-Lite is the default in every respect; today's options (CUBIC, timestamps, SACK,
//! HyStart++) are each off unless a scenario asks for them, and change nothing when off.
//!
//! Timers follow BSD: counters in ticks decremented by `slow_timo` (500 ms) and `fast_timo`
//! (200 ms). The host calls the ticks on a per-connection grid whose phase is random, and
//! only while [`conn::TcpConn::wants_slow_tick`] / `wants_fast_tick` say a timer is armed.
//!
//! **Simultaneous events (DESIGN §2b).** A segment that reaches an endpoint at the instant one
//! of its ticks falls is processed first, then the tick (timers run after the instant's
//! arrivals: `net` module docs): an ACK arriving as the retransmission timer would fire stops
//! it, as in BSD, where the input path runs at a higher interrupt priority than `softclock`.
//! An endpoint's fast tick runs before its slow tick at the same instant (a convention: BSD
//! runs the two from separate callouts and fixes no order).

pub mod cc;
pub mod config;
pub mod conn;
pub mod input;
pub mod output;
pub mod reass;
pub mod rtt;
pub mod sack;
pub mod segment;
pub mod timestamps;
pub mod seq;

#[cfg(test)]
mod tests;

pub use config::{SsthreshOnLoss, TcpConfig, Variant};
pub use conn::{State, TcpConn, TcpStats};
pub use segment::{Flags, Segment};
