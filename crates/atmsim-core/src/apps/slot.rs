//! Connection slots: a TCP connection's two endpoints and the application that drives them,
//! with what the application has read and sent.
//!
//! Owns: [`Conn`] (a slot), [`App`] (its application: a bulk sender, or tcplib conversations
//! one after another). A pooled slot is reused by conversation after conversation
//! ([`Conn::gen`]); the network opens, runs and recycles slots.

use super::bulk::BulkSender;
use super::conversation::ConvApp;
use super::session::Role;
use crate::time::SimTime;
use crate::transport::Endpoint;

/// The application of a connection slot.
pub enum App {
    /// ttcp-like bulk sender; the server reads everything (one connection, never recycled).
    Bulk(BulkSender),
    /// tcplib conversations, one after another ([`crate::apps::conversation`]).
    Conv(Box<ConvApp>),
}

impl App {
    pub fn kind_name(&self) -> &'static str {
        match self {
            App::Bulk(_) => "bulk",
            App::Conv(a) => a.kind.name(),
        }
    }
}

/// A TCP connection: side 0 is the client (active opener, bulk sender), side 1 the server
/// (passive opener, sink).
pub struct Conn {
    pub name: String,
    /// The traffic generator whose pool the slot belongs to (`None`: a `[[tcp]]` slot).
    pub pooled: Option<u32>,
    pub start: SimTime,
    pub ep: [Endpoint; 2],
    pub app: App,
    /// Conversation number of the current endpoint pair (segments carry it; a segment of an
    /// earlier generation is stale and dropped on delivery).
    pub gen: u32,
    /// Segments of earlier conversations dropped on delivery.
    pub stale_segments: u64,
    /// Bytes the server application has read (client → server).
    pub bytes_read: u64,
    /// `bytes_read` at the end of the warm-up.
    pub bytes_read_warm: u64,
    /// Payload bytes the client's TCP had sent (retransmissions included) at the end of the
    /// warm-up: the base of the offered load (Koçyiğit §III efficiency).
    pub bytes_sent_warm: u64,
    /// Segments the client's TCP had retransmitted at the end of the warm-up.
    pub rexmt_segs_warm: u64,
    pub rexmt_bytes_warm: u64,
    /// `bytes_read` at the previous sample (for per-interval goodput).
    pub bytes_read_sampled: u64,
    /// When the sink read the last byte of a finite transfer.
    pub finished_at: Option<SimTime>,
    /// Bytes the client application has read (server → client) at the end of the warm-up.
    pub bytes_s2c_warm: u64,
    /// The session the connection works for, and its role there (generated sessions only);
    /// `session_told`: the session has heard that the connection is done.
    pub session: Option<(u32, Role)>,
    pub session_told: bool,
}
