//! Applications that drive TCP connections and cell-level sources.
//!
//! - [`bulk`] — a greedy bulk sender modelled on ttcp (fixed-size blocking writes) and the
//!   sink that reads everything at once (MAGIC §2.2);
//! - [`conversation`] — tcplib FTP, NNTP, SMTP and TELNET conversations run back to back
//!   on a connection slot (Cáceres et al. 1993);
//! - [`cell_source`] — cell-level sources: greedy (always backlogged) and Poisson messages;
//! - [`tcplib`] — the tcplib empirical tables (Danzig & Jamin 1991);
//! - [`generator`] — traffic generators: conversations opened between random hosts;
//! - [`session`] — FTP sessions and Web browsers: several TCP connections per
//!   conversation (Mah 1996 §3.3);
//! - [`http`] — Mah's HTTP model: request and reply sizes, files per page, documents per
//!   server, think time (Mah 1996 App. A);
//! - [`voice`] and [`vic`] — audio (on/off, 64 kb/s) and video (two-state vic) senders
//!   over UDP (Mah 1996 §3.3.6–3.3.7, App. B);
//! - [`udp`] — UDP flows and their delivery, loss and lateness counters;
//! - [`slot`] — connection slots: a TCP connection's endpoints and the application driving them;
//! - [`workload`] — the workload: slots, generators' pools, sessions, flows and sources, and
//!   the bookkeeping between them.

pub mod bulk;
pub mod cell_source;
pub mod conversation;
pub mod generator;
pub mod http;
pub mod session;
pub mod slot;
pub mod tcplib;
pub mod udp;
pub mod vic;
pub mod voice;
pub mod workload;

pub use slot::{App, Conn};
pub use workload::Workload;
