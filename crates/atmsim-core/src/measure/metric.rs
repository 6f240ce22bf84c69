//! The time-series metrics: each declared once, here, with the entity it is sampled on and
//! its unit. Probes push a [`Metric`]; the series and Python (`atmsim._core.Metric`) name it
//! by [`Metric::name`]. A series row names its entity `"<kind>:<name>"` (`"conn:ttcp"`,
//! `"port:sw1->sw2"`); the kinds are [`Entity`] (`atmsim._core.Entity`, and
//! `atmsim._core.entity_name` spells a whole name).
//!
//! Owns: [`Metric`], [`Entity`].

/// The kinds of entity a series samples, the prefix of an entity's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entity {
    /// A `[[tcp]]` connection.
    Conn,
    /// An output port.
    Port,
    /// A host or router.
    Host,
    /// An ABR end system (`"<vc>:<node>"`).
    Abr,
}

impl Entity {
    pub const ALL: [Entity; 4] = [Entity::Conn, Entity::Port, Entity::Host, Entity::Abr];

    /// The prefix of its entities' names.
    pub const fn name(self) -> &'static str {
        match self {
            Entity::Conn => "conn",
            Entity::Port => "port",
            Entity::Host => "host",
            Entity::Abr => "abr",
        }
    }

    /// The name of the entity of this kind named `of` in a series (`"conn:ttcp"`).
    pub fn of(self, of: &str) -> String {
        format!("{}:{of}", self.name())
    }
}

/// One time-series metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// A connection's congestion window \[bytes\], at its client.
    CwndBytes,
    /// A connection's slow-start threshold \[bytes\].
    SsthreshBytes,
    /// Bytes a connection delivered to its application over the last sample interval \[b/s\].
    GoodputBps,
    /// Segments the client has retransmitted so far.
    RexmtSegs,
    /// Sequence space TCP has released so far \[bytes\] (Kalampoukas §5.2 plots segments as
    /// they leave TCP, not the wire).
    SeqBytes,
    /// A port's queue \[cells\].
    QueueCells,
    /// Cells a port has dropped so far.
    DropsCells,
    /// Frames a host has discarded as corrupt so far.
    FramesDiscarded,
    /// An ABR source's allowed cell rate \[b/s\], at each change.
    AcrBps,
    /// An ABR end's IP queue [bytes of data], at each change.
    IpQueueData,
    /// An ABR end's backlog [bytes of data], at each change.
    BacklogData,
}

impl Metric {
    /// Every metric, in declaration order.
    pub const ALL: [Metric; 11] = [
        Metric::CwndBytes,
        Metric::SsthreshBytes,
        Metric::GoodputBps,
        Metric::RexmtSegs,
        Metric::SeqBytes,
        Metric::QueueCells,
        Metric::DropsCells,
        Metric::FramesDiscarded,
        Metric::AcrBps,
        Metric::IpQueueData,
        Metric::BacklogData,
    ];

    /// The name rows of the series carry.
    pub const fn name(self) -> &'static str {
        match self {
            Metric::CwndBytes => "cwnd_bytes",
            Metric::SsthreshBytes => "ssthresh_bytes",
            Metric::GoodputBps => "goodput_bps",
            Metric::RexmtSegs => "rexmt_segs",
            Metric::SeqBytes => "seq_bytes",
            Metric::QueueCells => "queue_cells",
            Metric::DropsCells => "drops_cells",
            Metric::FramesDiscarded => "frames_discarded",
            Metric::AcrBps => "acr_bps",
            Metric::IpQueueData => "ip_queue_data",
            Metric::BacklogData => "backlog_data",
        }
    }

    /// The kind of entity it is sampled on.
    pub const fn entity(self) -> Entity {
        match self {
            Metric::CwndBytes | Metric::SsthreshBytes | Metric::GoodputBps | Metric::RexmtSegs | Metric::SeqBytes => {
                Entity::Conn
            }
            Metric::QueueCells | Metric::DropsCells => Entity::Port,
            Metric::FramesDiscarded => Entity::Host,
            Metric::AcrBps | Metric::IpQueueData | Metric::BacklogData => Entity::Abr,
        }
    }

    /// Its position in [`Metric::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::Metric;

    #[test]
    fn every_metric_is_listed_in_order_under_a_name_of_its_own() {
        for (i, m) in Metric::ALL.iter().enumerate() {
            assert_eq!(m.index(), i, "{m:?}");
        }
        let mut names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Metric::ALL.len());
        // Snake case, as Python identifiers and column names want them.
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
    }
}
