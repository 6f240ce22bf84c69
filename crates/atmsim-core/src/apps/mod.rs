//! Applications that drive TCP connections and cell-level sources.
//!
//! - [`bulk`] — a greedy bulk sender modelled on ttcp (fixed-size blocking writes) and the
//!   sink that reads everything at once (MAGIC §2.2);
//! - [`conversation`] — tcplib FTP, NNTP, SMTP and TELNET conversations run back to back
//!   on a connection slot (Cáceres et al. 1993);
//! - [`cell_source`] — cell-level sources: greedy (always backlogged) and Poisson messages;
//! - [`tcplib`] — the tcplib empirical tables (Danzig & Jamin 1991).

pub mod bulk;
pub mod cell_source;
pub mod conversation;
pub mod generator;
pub mod tcplib;
pub mod udp;
