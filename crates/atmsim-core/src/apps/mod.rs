//! Applications that drive TCP connections and cell-level sources.
//!
//! - [`bulk`] — a greedy bulk sender modelled on ttcp (fixed-size blocking writes) and the
//!   sink that reads everything at once (MAGIC §2.2);
//! - [`conversation`] — tcplib FTP, NNTP, SMTP and TELNET conversations run back to back
//!   on a connection slot (Cáceres et al. 1993);
//! - [`greedy`] — a cell-level source that always has a frame queued on its VC;
//! - [`tcplib`] — the tcplib empirical tables (Danzig & Jamin 1991).

pub mod bulk;
pub mod conversation;
pub mod greedy;
pub mod tcplib;
