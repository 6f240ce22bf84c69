//! Measurement: time series recorded by periodic probes, and warm-up snapshots.
//!
//! Owns: [`Measurement`] (what a network measures), [`Recorder`] and the [`Series`] it hands
//! out; the metrics' names are declared in [`metric`]. Probes cost nothing when sampling is
//! off (no `Sample` events are scheduled) and one row per entity per metric per sample when
//! on. Rows are kept in
//! columnar vectors with interned entity and metric names, and handed out so (the binding
//! makes one Python string per name); counters (cells, drops, TCP statistics) live with the
//! entities themselves and are read once at the end.

pub mod metric;

pub use metric::{Entity, Metric};

use crate::apps::Conn;
use crate::atm::port::{OutPort, PortStats};
use crate::ip::Host;
use crate::pcap::{Capture, Packet, Tap};
use crate::time::{SimDuration, SimTime};

/// Time series in tidy long form: one row per (time, entity, metric) sample, the entity and
/// the metric of a row given by their index into [`Series::entity_names`] and
/// [`Series::metric_names`] (22 bytes a row, where a pair of strings per row took about 120).
/// Two series are equal when their rows are, whatever the order of their names.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub entity: Vec<u32>,
    pub metric: Vec<u16>,
    pub value: Vec<f64>,
    pub entity_names: Vec<String>,
    pub metric_names: Vec<String>,
}

impl Series {
    /// A series from rows named in full (each name stored once).
    pub fn from_rows(time_s: Vec<f64>, entity: &[String], metric: &[String], value: Vec<f64>) -> Series {
        fn codes<T: TryFrom<usize>>(rows: &[String], names: &mut Vec<String>) -> Vec<T> {
            let mut index = std::collections::HashMap::new();
            rows.iter()
                .map(|n| {
                    let i = *index.entry(n.as_str()).or_insert_with(|| {
                        names.push(n.clone());
                        names.len() - 1
                    });
                    T::try_from(i).unwrap_or_else(|_| panic!("{} distinct names do not fit the row index", i + 1))
                })
                .collect()
        }
        let (mut entity_names, mut metric_names) = (Vec::new(), Vec::new());
        let entity = codes(entity, &mut entity_names);
        let metric = codes(metric, &mut metric_names);
        Series { time_s, entity, metric, value, entity_names, metric_names }
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
    /// The entity of row `i` (e.g. `"port:a->b"`).
    pub fn entity_name(&self, i: usize) -> &str {
        &self.entity_names[self.entity[i] as usize]
    }
    /// The metric of row `i` (e.g. `"queue_cells"`).
    pub fn metric_name(&self, i: usize) -> &str {
        &self.metric_names[self.metric[i] as usize]
    }
}

impl PartialEq for Series {
    fn eq(&self, other: &Series) -> bool {
        self.time_s == other.time_s
            && self.value == other.value
            && self.entity.len() == other.entity.len()
            && self.metric.len() == other.metric.len()
            && (0..self.entity.len()).all(|i| self.entity_name(i) == other.entity_name(i))
            && (0..self.metric.len()).all(|i| self.metric_name(i) == other.metric_name(i))
    }
}

/// Columnar store of samples.
#[derive(Default)]
pub struct Recorder {
    time_s: Vec<f64>,
    entity: Vec<u32>,
    metric: Vec<u16>,
    value: Vec<f64>,
    entity_names: Vec<String>,
    metric_names: Vec<&'static str>,
    /// Each metric's index into `metric_names`, once it has a row.
    metric_codes: [Option<u16>; Metric::ALL.len()],
    conn_entities: Vec<u32>,
    port_entities: Vec<u32>,
    host_entities: Vec<u32>,
    /// Port counters at the end of the warm-up (empty if there was no warm-up).
    pub ports_warm: Vec<PortStats>,
    /// Each port's transmitting time up to the end of the warm-up \[ps\].
    pub ports_warm_busy_ps: Vec<u64>,
}

impl Recorder {
    /// Declare the entities (in arena order) so probes can refer to them by index.
    pub fn new(conn_names: &[String], port_names: &[String], host_names: &[String]) -> Self {
        let mut r = Recorder::default();
        for n in conn_names {
            r.conn_entities.push(r.entity_names.len() as u32);
            r.entity_names.push(Entity::Conn.of(n));
        }
        for n in port_names {
            r.port_entities.push(r.entity_names.len() as u32);
            r.entity_names.push(Entity::Port.of(n));
        }
        for n in host_names {
            r.host_entities.push(r.entity_names.len() as u32);
            r.entity_names.push(Entity::Host.of(n));
        }
        r
    }

    pub fn conn_entity(&self, i: usize) -> u32 {
        self.conn_entities[i]
    }
    pub fn port_entity(&self, i: usize) -> u32 {
        self.port_entities[i]
    }
    pub fn host_entity(&self, i: usize) -> u32 {
        self.host_entities[i]
    }
    /// Declare one more entity (e.g. `"abr:<vc>:<node>"`); returns its index.
    pub fn add_entity(&mut self, name: String) -> u32 {
        self.entity_names.push(name);
        (self.entity_names.len() - 1) as u32
    }

    pub fn push(&mut self, t: f64, entity: u32, metric: Metric, value: f64) {
        let m = *self.metric_codes[metric.index()].get_or_insert_with(|| {
            self.metric_names.push(metric.name());
            (self.metric_names.len() - 1) as u16
        });
        self.time_s.push(t);
        self.entity.push(entity);
        self.metric.push(m);
        self.value.push(value);
    }

    pub fn snapshot_ports(&mut self, ports: &[OutPort], now: crate::time::SimTime) {
        self.ports_warm = ports.iter().map(|p| p.stats).collect();
        self.ports_warm_busy_ps = ports.iter().map(|p| p.busy_ps_at(now)).collect();
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    /// The samples in tidy long form, the recorder emptied.
    pub fn take_series(&mut self) -> Series {
        let r = std::mem::take(self);
        Series {
            time_s: r.time_s,
            entity: r.entity,
            metric: r.metric,
            value: r.value,
            entity_names: r.entity_names,
            metric_names: r.metric_names.into_iter().map(str::to_string).collect(),
        }
    }
}

/// What a network measures while it runs: the warm-up, the probes' period and their
/// recorder, and the packet captures.
pub struct Measurement {
    /// End of the warm-up: counters are snapshotted then.
    warmup: SimTime,
    /// Period of the probes, if any.
    sample_every: Option<SimDuration>,
    rec: Recorder,
    /// Packet captures ([`crate::pcap`]); host `h` records into `taps[h.tap]`.
    taps: Vec<Tap>,
}

impl Measurement {
    pub fn new(warmup: SimTime, sample_every: Option<SimDuration>, rec: Recorder, taps: Vec<Tap>) -> Self {
        Measurement { warmup, sample_every, rec, taps }
    }

    /// The end of the warm-up.
    pub fn warmup(&self) -> SimTime {
        self.warmup
    }

    /// The probes' period, if sampling is on.
    #[inline]
    pub fn sample_every(&self) -> Option<SimDuration> {
        self.sample_every
    }

    /// Record one sample.
    #[inline]
    pub fn push(&mut self, t: f64, entity: u32, metric: Metric, value: f64) {
        self.rec.push(t, entity, metric, value);
    }

    /// The end of the warm-up at `now`: the ports' counters and transmitting times.
    pub fn snapshot_warm(&mut self, ports: &[OutPort], now: SimTime) {
        self.rec.snapshot_ports(ports, now);
    }

    /// Port `i`'s transmitting time up to the end of the warm-up \[ps\] (0 without one).
    pub fn warm_busy_ps(&self, i: usize) -> u64 {
        self.rec.ports_warm_busy_ps.get(i).copied().unwrap_or(0)
    }

    /// The periodic probe at `t` \[s\], `dt` \[s\] after the previous one: each `[[tcp]]`
    /// connection's window, threshold, goodput over the interval, retransmissions and
    /// sequence space released (Kalampoukas §5.2 plots segments as they leave TCP, not the
    /// wire); each port's queue and drops; each host's discarded frames.
    pub fn sample(&mut self, (t, dt): (f64, f64), slots: &mut [Conn], ports: &[OutPort], hosts: &[Host]) {
        let rec = &mut self.rec;
        for (i, c) in slots.iter_mut().enumerate() {
            let gp = c.take_read_sample() as f64 * 8.0 / dt;
            let tcp = c.endpoint(0).tcp();
            let e = rec.conn_entity(i);
            rec.push(t, e, Metric::CwndBytes, tcp.cwnd() as f64);
            rec.push(t, e, Metric::SsthreshBytes, tcp.ssthresh() as f64);
            rec.push(t, e, Metric::GoodputBps, gp);
            rec.push(t, e, Metric::RexmtSegs, tcp.stats().rexmt_segs as f64);
            rec.push(t, e, Metric::SeqBytes, tcp.seq_released() as f64);
        }
        for (i, p) in ports.iter().enumerate() {
            let e = rec.port_entity(i);
            rec.push(t, e, Metric::QueueCells, p.occupancy() as f64);
            rec.push(t, e, Metric::DropsCells, p.stats.drops() as f64);
        }
        for (i, h) in hosts.iter().enumerate() {
            let e = rec.host_entity(i);
            rec.push(t, e, Metric::FramesDiscarded, h.frames().0 as f64);
        }
    }

    /// Capture `t` records a packet sent (`outgoing`) or received at `now`.
    pub fn capture(&mut self, t: u32, now: SimTime, outgoing: bool, pkt: &Packet<'_>) {
        self.taps[t as usize].record(now, outgoing, pkt);
    }

    /// The captures, to read their counters.
    pub fn captures(&self) -> &[Tap] {
        &self.taps
    }

    /// Hand over the finished captures (leaves none behind).
    pub fn take_captures(&mut self) -> Vec<Capture> {
        std::mem::take(&mut self.taps).into_iter().map(Tap::finish).collect()
    }

    /// The recorded time series, the recorder emptied.
    pub fn take_series(&mut self) -> Series {
        self.rec.take_series()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn a_series_stores_each_name_once_and_gives_every_row_its_names() {
        let s = Series::from_rows(
            vec![0.0, 0.0, 1.0],
            &names(&["port:a", "conn:c", "port:a"]),
            &names(&["queue_cells", "cwnd", "queue_cells"]),
            vec![1.0, 2.0, 3.0],
        );
        assert_eq!(s.entity_names, names(&["port:a", "conn:c"]));
        assert_eq!(s.metric_names, names(&["queue_cells", "cwnd"]));
        let rows: Vec<(&str, &str)> = (0..s.len()).map(|i| (s.entity_name(i), s.metric_name(i))).collect();
        assert_eq!(rows, [("port:a", "queue_cells"), ("conn:c", "cwnd"), ("port:a", "queue_cells")]);
    }

    #[test]
    fn series_are_equal_when_their_rows_are_whatever_the_order_of_their_names() {
        let rows = |e: &[&str], m: &[&str], v: f64| Series::from_rows(vec![0.0, 1.0], &names(e), &names(m), vec![v, v]);
        let a = rows(&["x", "y"], &["m", "m"], 1.0);
        let mut b = rows(&["x", "y"], &["m", "m"], 1.0);
        // The same rows with the names stored the other way round.
        b.entity_names.reverse();
        b.entity = vec![1, 0];
        assert_eq!(a, b);
        assert_ne!(a, rows(&["y", "x"], &["m", "m"], 1.0));
        assert_ne!(a, rows(&["x", "y"], &["m", "n"], 1.0));
        assert_ne!(a, rows(&["x", "y"], &["m", "m"], 2.0));
    }

    #[test]
    fn the_recorder_hands_out_what_was_pushed_and_is_left_empty() {
        let mut r = Recorder::new(&names(&["c"]), &names(&["p"]), &[]);
        let (c, p) = (r.conn_entity(0), r.port_entity(0));
        r.push(0.5, p, Metric::QueueCells, 3.0);
        r.push(0.5, c, Metric::CwndBytes, 512.0);
        r.push(1.0, p, Metric::QueueCells, 4.0);
        let s = r.take_series();
        assert!(r.is_empty());
        let rows: Vec<(f64, &str, &str, f64)> =
            (0..s.len()).map(|i| (s.time_s[i], s.entity_name(i), s.metric_name(i), s.value[i])).collect();
        assert_eq!(
            rows,
            [
                (0.5, "port:p", "queue_cells", 3.0),
                (0.5, "conn:c", "cwnd_bytes", 512.0),
                (1.0, "port:p", "queue_cells", 4.0)
            ]
        );
        assert_eq!(s.metric_names.len(), 2);
    }
}
