//! Measurement: time series recorded by periodic probes, and warm-up snapshots.
//!
//! Owns: [`Recorder`] and the [`Series`] it hands out. Probes cost nothing when sampling is off (no `Sample` events are
//! scheduled) and one row per entity per metric per sample when on. Rows are kept in
//! columnar vectors with interned entity and metric names; counters (cells, drops, TCP
//! statistics) live with the entities themselves and are read once at the end.

pub mod internet;
pub mod report;

use crate::atm::port::{OutPort, PortStats};

/// Time series in tidy long form: one row per (time, entity, metric) sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub entity: Vec<String>,
    pub metric: Vec<String>,
    pub value: Vec<f64>,
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
    conn_entities: Vec<u32>,
    port_entities: Vec<u32>,
    host_entities: Vec<u32>,
    /// Port counters at the end of the warm-up (empty if there was no warm-up).
    pub ports_warm: Vec<PortStats>,
    /// Each port's transmitting time up to the end of the warm-up [ps].
    pub ports_warm_busy_ps: Vec<u64>,
}

impl Recorder {
    /// Declare the entities (in arena order) so probes can refer to them by index.
    pub fn new(conn_names: &[String], port_names: &[String], host_names: &[String]) -> Self {
        let mut r = Recorder::default();
        for n in conn_names {
            r.conn_entities.push(r.entity_names.len() as u32);
            r.entity_names.push(format!("conn:{n}"));
        }
        for n in port_names {
            r.port_entities.push(r.entity_names.len() as u32);
            r.entity_names.push(format!("port:{n}"));
        }
        for n in host_names {
            r.host_entities.push(r.entity_names.len() as u32);
            r.entity_names.push(format!("host:{n}"));
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

    pub fn push(&mut self, t: f64, entity: u32, metric: &'static str, value: f64) {
        let m = match self.metric_names.iter().position(|&n| n == metric) {
            Some(i) => i,
            None => {
                self.metric_names.push(metric);
                self.metric_names.len() - 1
            }
        };
        self.time_s.push(t);
        self.entity.push(entity);
        self.metric.push(m as u16);
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

    /// The samples in tidy long form.
    pub fn to_series(&self) -> Series {
        Series {
            time_s: self.time_s.clone(),
            entity: self.entity.iter().map(|&e| self.entity_names[e as usize].clone()).collect(),
            metric: self.metric.iter().map(|&m| self.metric_names[m as usize].to_string()).collect(),
            value: self.value.clone(),
        }
    }
}
