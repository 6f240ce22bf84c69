//! Measurement in the running network: the end of the warm-up and the periodic probes.
//!
//! Owns the handling of [`MeasureEv`]: `Warm` snapshots the counters that rates are measured
//! from; `Sample` records queues and TCP state into the [`crate::measure::Recorder`] and
//! schedules the next sample.
//!
//! **Simultaneous events (DESIGN §2b).** Probes run before every other event of their instant:
//! a sample, the warm-up snapshot and the VC count see the state just before the instant
//! (its left limit, t−), whatever else happens at that picosecond.

use super::ck;
use super::{Ev, MeasureEv, Network};
use crate::measure::Metric;

/// How often the IP-over-ATM drivers' VCs in use are counted (Mah §6.6: once a second).
pub const VC_COUNT_PERIOD: crate::time::SimDuration = crate::time::SimDuration::from_secs(1);

impl Network {
    /// Dispatch of the measurement events.
    pub(super) fn on_measure(&mut self, ev: MeasureEv) {
        match ev {
            MeasureEv::Warm => self.snapshot_warm(),
            MeasureEv::Sample => {
                self.sample();
                if let Some(dt) = self.measure.sample_every {
                    self.eng.q.schedule(self.eng.now + dt, Ev::Measure(MeasureEv::Sample));
                }
            }
            MeasureEv::VcCount => {
                for h in &mut self.ip.hosts {
                    if let Some(atm) = &mut h.atm {
                        atm.driver.sample_in_use();
                    }
                }
                self.eng.q.schedule(self.eng.now + VC_COUNT_PERIOD, Ev::Measure(MeasureEv::VcCount));
            }
        }
    }

    pub(super) fn snapshot_warm(&mut self) {
        let t = self.eng.now.saturating_sub(crate::time::SimDuration::from_ps(1));
        self.fabric.advance_all(ck!(self), t);
        self.apps.snapshot_warm();
        self.measure.rec.snapshot_ports(&self.fabric.ports, self.eng.now);
    }

    pub(super) fn sample(&mut self) {
        let t = self.eng.now.saturating_sub(crate::time::SimDuration::from_ps(1));
        self.fabric.advance_all(ck!(self), t);
        self.drain_host_links();
        let t = self.eng.now.as_secs_f64();
        let dt = self.measure.sample_every.map_or(1.0, |d| d.as_secs_f64());
        for (i, c) in self.apps.fixed_slots_mut().iter_mut().enumerate() {
            let gp = c.take_read_sample() as f64 * 8.0 / dt;
            let tcp = c.endpoint(0).tcp();
            let e = self.measure.rec.conn_entity(i);
            self.measure.rec.push(t, e, Metric::CwndBytes, tcp.cwnd() as f64);
            self.measure.rec.push(t, e, Metric::SsthreshBytes, tcp.ssthresh() as f64);
            self.measure.rec.push(t, e, Metric::GoodputBps, gp);
            self.measure.rec.push(t, e, Metric::RexmtSegs, tcp.stats().rexmt_segs as f64);
            // Sequence space released by TCP so far (Kalampoukas §5.2 plots segments as they
            // leave TCP, not the wire).
            self.measure.rec.push(t, e, Metric::SeqBytes, tcp.seq_released() as f64);
        }
        for (i, p) in self.fabric.ports.iter().enumerate() {
            let e = self.measure.rec.port_entity(i);
            self.measure.rec.push(t, e, Metric::QueueCells, p.occupancy as f64);
            self.measure.rec.push(t, e, Metric::DropsCells, p.stats.drops() as f64);
        }
        for (i, h) in self.ip.hosts.iter().enumerate() {
            let e = self.measure.rec.host_entity(i);
            self.measure.rec.push(t, e, Metric::FramesDiscarded, h.frames_corrupt as f64);
        }
    }
}
